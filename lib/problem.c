/* The fusion problem as the caller builds it: launches in order, their
 * variants and buffer accesses, psi timing tables and the legality callback. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "plan_int.h"

int kf__grow(void **arr, int *cap, int need, size_t sz)
{
  if (need <= *cap)
    return 0;
  int ncap = *cap ? *cap * 2 : 8;
  while (ncap < need)
    ncap *= 2;
  void *n = realloc(*arr, (size_t)ncap * sz);
  if (!n)
    return KF_ENOMEM;
  *arr = n;
  *cap = ncap;
  return 0;
}

char *kf__strdup(const char *s)
{
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d)
    memcpy(d, s, n);
  return d;
}

int kf_problem_create(kf_problem **out)
{
  if (!out)
    return KF_EINVAL;
  *out = calloc(1, sizeof(kf_problem));
  return *out ? 0 : KF_ENOMEM;
}

void kf_problem_destroy(kf_problem *p)
{
  if (!p)
    return;
  for (int i = 0; i < p->nl; i++) {
    kf__launch *l = &p->l[i];
    free(l->name);
    for (int v = 0; v < l->nvar; v++) {
      free(l->var[v].name);
      free(l->var[v].psi_compute);
    }
    for (int a = 0; a < l->nacc; a++)
      free(l->acc[a].psi);
    free(l->var);
    free(l->acc);
  }
  for (int i = 0; i < p->nb; i++)
    free(p->b[i].name);
  for (int i = 0; i < p->npsi; i++)
    free(p->psi[i].routine);
  if (p->free_rules)
    p->free_rules(p->owned_rules);
  free(p->l);
  free(p->b);
  free(p->psi);
  free(p);
}

int kf_problem_add_buffer(kf_problem *p, const char *name, int dead_after, int *id)
{
  if (!p || !name || !*name)
    return KF_EINVAL;
  for (int i = 0; i < p->nb; i++)
    if (strcmp(p->b[i].name, name) == 0)
      return KF_EINVAL;
  if (kf__grow((void **)&p->b, &p->capb, p->nb + 1, sizeof(kf__buffer)))
    return KF_ENOMEM;
  char *n = kf__strdup(name);
  if (!n)
    return KF_ENOMEM;
  p->b[p->nb].name = n;
  p->b[p->nb].dead_after = dead_after != 0;
  p->b[p->nb].in_registers = 0;
  p->b[p->nb].users = 0;
  if (id)
    *id = p->nb;
  p->nb++;
  return 0;
}

int kf_problem_set_buffer_registers(kf_problem *p, int buffer, int in_registers)
{
  if (!p || buffer < 0 || buffer >= p->nb)
    return KF_EINVAL;
  p->b[buffer].in_registers = in_registers != 0;
  return 0;
}

int kf_problem_set_halo(kf_problem *p, int launch, int buffer, int elements)
{
  if (!p || launch < 0 || launch >= p->nl || elements < 0 || elements > KF_VARIANT_MAX_THREADS)
    return KF_EINVAL;
  kf__launch *l = &p->l[launch];
  for (int a = 0; a < l->nacc; a++)
    if (l->acc[a].buffer == buffer && (l->acc[a].mode & KF_READ)) {
      l->acc[a].halo = elements;
      return 0;
    }
  return KF_EINVAL;
}

int kf_problem_add_launch(kf_problem *p, const char *name, double instances, int *id)
{
  if (!p || !name || !*name || !(instances > 0) || !isfinite(instances))
    return KF_EINVAL;
  if (instances > KF_MAX_INSTANCES)
    return KF_ERANGE;
  for (int i = 0; i < p->nl; i++)
    if (strcmp(p->l[i].name, name) == 0)
      return KF_EINVAL;
  if (kf__grow((void **)&p->l, &p->capl, p->nl + 1, sizeof(kf__launch)))
    return KF_ENOMEM;
  kf__launch *l = &p->l[p->nl];
  memset(l, 0, sizeof *l);
  l->name = kf__strdup(name);
  if (!l->name)
    return KF_ENOMEM;
  l->instances = instances;
  if (id)
    *id = p->nl;
  p->nl++;
  return 0;
}

int kf_problem_add_variant(kf_problem *p, int launch, const kf_variant_t *v)
{
  if (!p || !v || launch < 0 || launch >= p->nl)
    return KF_EINVAL;
  if (v->threads_per_instance < 0 || v->threads_per_instance > KF_VARIANT_MAX_THREADS ||
      v->instances_per_block < 0 || v->instances_per_block > KF_VARIANT_MAX_THREADS ||
      v->block_threads < 0 || v->block_threads > KF_VARIANT_MAX_THREADS ||
      v->registers < 0 || v->registers > KF_VARIANT_MAX_REGS || v->shared_bytes < 0 ||
      v->tie_rank < 0 || v->tie_rank > KF_VARIANT_MAX_TIE_RANK ||
      !(v->flops >= 0) || !isfinite(v->flops))
    return KF_EINVAL;
  if (v->flops > KF_MAX_FLOPS_PER_INSTANCE)
    return KF_ERANGE;
  kf__launch *l = &p->l[launch];
  if (kf__grow((void **)&l->var, &l->capvar, l->nvar + 1, sizeof(kf__variant)))
    return KF_ENOMEM;
  kf__variant *d = &l->var[l->nvar];
  memset(d, 0, sizeof *d);
  char buf[32];
  snprintf(buf, sizeof buf, "v%d", l->nvar);
  d->name = kf__strdup(v->name ? v->name : buf);
  d->psi_compute = v->psi_compute ? kf__strdup(v->psi_compute) : NULL;
  if (!d->name || (v->psi_compute && !d->psi_compute)) {
    free(d->name);
    free(d->psi_compute);
    return KF_ENOMEM;
  }
  d->tpi = v->threads_per_instance ? v->threads_per_instance : 1;
  d->block = v->block_threads ? v->block_threads : 256;
  d->ipb = v->instances_per_block ? v->instances_per_block : d->block / d->tpi;
  if (d->ipb < 1)
    d->ipb = 1;
  d->regs = v->registers ? v->registers : 32;
  d->smem = v->shared_bytes;
  d->tie_rank = v->tie_rank;
  d->flops = v->flops;
  l->nvar++;
  return 0;
}

int kf_problem_add_access(kf_problem *p, int launch, int buffer,
                          kf_access_mode_t mode, double bytes, const char *psi)
{
  if (!p || launch < 0 || launch >= p->nl || buffer < 0 || buffer >= p->nb ||
      (mode != KF_READ && mode != KF_WRITE && mode != KF_READWRITE) ||
      !(bytes >= 0) || !isfinite(bytes))
    return KF_EINVAL;
  if (bytes > KF_MAX_BYTES_PER_INSTANCE)
    return KF_ERANGE;
  kf__launch *l = &p->l[launch];
  for (int a = 0; a < l->nacc; a++)
    if (l->acc[a].buffer == buffer) /* merge repeated accesses */
      return l->acc[a].mode |= mode, l->acc[a].bytes = fmax(l->acc[a].bytes, bytes), 0;
  if (kf__grow((void **)&l->acc, &l->capacc, l->nacc + 1, sizeof(kf__access)))
    return KF_ENOMEM;
  kf__access *a = &l->acc[l->nacc];
  a->buffer = buffer;
  a->mode = mode;
  a->bytes = bytes;
  a->halo = 0;
  a->psi = psi ? kf__strdup(psi) : NULL;
  if (psi && !a->psi)
    return KF_ENOMEM;
  l->nacc++;
  p->b[buffer].users++;
  return 0;
}

int kf_problem_add_psi(kf_problem *p, const char *routine, int ipb, int smem,
                       double seconds)
{
  if (!p || !routine || !*routine || ipb < 1 || smem < 0 || !(seconds >= 0) ||
      !isfinite(seconds))
    return KF_EINVAL;
  if (seconds > KF_MAX_PSI_SECONDS)
    return KF_ERANGE;
  if (kf__grow((void **)&p->psi, &p->cappsi, p->npsi + 1, sizeof(kf__psi)))
    return KF_ENOMEM;
  kf__psi *e = &p->psi[p->npsi];
  e->routine = kf__strdup(routine);
  if (!e->routine)
    return KF_ENOMEM;
  e->ipb = ipb;
  e->smem = smem;
  e->seconds = seconds;
  p->npsi++;
  return 0;
}

void kf_problem_set_legality(kf_problem *p, kf_legal_fn fn, void *user)
{
  if (!p)
    return;
  p->legal = fn;
  p->legal_user = user;
}

void kf_problem_set_variant_legality(kf_problem *p, kf_legal_variants_fn fn, void *user)
{
  if (!p)
    return;
  p->legal_variants = fn;
  p->legal_variants_user = user;
}

int kf_problem_set_consecutive(kf_problem *p, int consecutive)
{
  if (!p)
    return KF_EINVAL;
  p->consecutive = consecutive != 0;
  return 0;
}

int kf_problem_set_fused_block(kf_problem *p, int threads)
{
  if (!p || threads < 0 || threads > KF_VARIANT_MAX_THREADS)
    return KF_EINVAL;
  p->fused_block = threads;
  return 0;
}

static const kf__variant kf__default_variant = {
  (char *)"default", 1, 256, 256, 32, 0, 0, 0.0, NULL
};

const kf__variant *kf__variant_of(const kf_problem *p, int l, int v)
{
  if (p->l[l].nvar == 0)
    return &kf__default_variant;
  return &p->l[l].var[v];
}

int kf__variant_count(const kf_problem *p, int l)
{
  return p->l[l].nvar ? p->l[l].nvar : 1;
}

int kf_problem_launch_count(const kf_problem *p) { return p ? p->nl : KF_EINVAL; }
int kf_problem_buffer_count(const kf_problem *p) { return p ? p->nb : KF_EINVAL; }

const char *kf_problem_launch_name(const kf_problem *p, int l)
{
  return p && l >= 0 && l < p->nl ? p->l[l].name : NULL;
}

const char *kf_problem_buffer_name(const kf_problem *p, int b)
{
  return p && b >= 0 && b < p->nb ? p->b[b].name : NULL;
}

const char *kf_problem_variant_name(const kf_problem *p, int l, int v)
{
  if (!p || l < 0 || l >= p->nl || v < 0 || v >= kf__variant_count(p, l))
    return NULL;
  return kf__variant_of(p, l, v)->name;
}

int kf_problem_foreach_dep(const kf_problem *p,
                           void (*fn)(void *, int, int, int), void *user)
{
  if (!p)
    return KF_EINVAL;
  kf__dag d;
  int rc = kf__dag_build(p, &d);
  if (rc)
    return rc;
  for (int e = 0; e < d.nedges; e++)
    if (fn)
      fn(user, d.efrom[e], d.eto[e], d.ekind[e]);
  rc = d.nedges;
  kf__dag_free(&d);
  return rc;
}
