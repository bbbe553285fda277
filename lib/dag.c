/* The dependency DAG of a problem: RAW, WAR and WAW edges derived from the
 * accesses in launch order, neighbour lists and transitive reachability. */
#include <string.h>
#include "plan_int.h"

typedef struct kf__edge { int from, to, kind; } kf__edge;

static int kf__edge_cmp(const void *a, const void *b)
{
  const kf__edge *x = a, *y = b;
  if (x->from != y->from)
    return x->from < y->from ? -1 : 1;
  return (x->to > y->to) - (x->to < y->to);
}

static int kf__push(kf__edge **e, int *n, int *cap, int from, int to, int kind)
{
  if (kf__grow((void **)e, cap, *n + 1, sizeof(kf__edge)))
    return KF_ENOMEM;
  (*e)[(*n)++] = (kf__edge){ from, to, kind };
  return 0;
}

/* Builds a CSR from (a, b) pairs, both directions if sym. */
static int kf__csr(int n, const kf__edge *e, int ne, int sym, int **start, int **adj)
{
  *start = calloc((size_t)n + 1, sizeof(int));
  *adj = malloc(sizeof(int) * (size_t)(ne * (sym ? 2 : 1) + 1));
  int *fill = calloc((size_t)n + 1, sizeof(int));
  if (!*start || !*adj || !fill) {
    free(fill);
    return KF_ENOMEM;
  }
  for (int i = 0; i < ne; i++) {
    (*start)[e[i].from + 1]++;
    if (sym)
      (*start)[e[i].to + 1]++;
  }
  for (int i = 0; i < n; i++)
    (*start)[i + 1] += (*start)[i];
  for (int i = 0; i < ne; i++) {
    (*adj)[(*start)[e[i].from] + fill[e[i].from]++] = e[i].to;
    if (sym)
      (*adj)[(*start)[e[i].to] + fill[e[i].to]++] = e[i].from;
  }
  free(fill);
  return 0;
}

int kf__dag_build(const kf_problem *p, kf__dag *d)
{
  memset(d, 0, sizeof *d);
  int n = p->nl, rc = KF_ENOMEM;
  d->n = n;
  d->words = (n + 63) / 64;
  kf__edge *e = NULL, *s = NULL;
  int ne = 0, cape = 0, ns = 0, caps = 0;
  int *last_writer = malloc(sizeof(int) * (size_t)(p->nb + 1));
  int **readers = calloc((size_t)p->nb + 1, sizeof(int *));
  int *nread = calloc((size_t)p->nb + 1, sizeof(int));
  int *capread = calloc((size_t)p->nb + 1, sizeof(int));
  int **users = calloc((size_t)p->nb + 1, sizeof(int *));
  int *nuser = calloc((size_t)p->nb + 1, sizeof(int));
  int *capuser = calloc((size_t)p->nb + 1, sizeof(int));
  if (!last_writer || !readers || !nread || !capread || !users || !nuser || !capuser)
    goto out;
  for (int b = 0; b < p->nb; b++)
    last_writer[b] = -1;
  for (int i = 0; i < n; i++) {
    const kf__launch *l = &p->l[i];
    for (int a = 0; a < l->nacc; a++) {
      int b = l->acc[a].buffer, m = l->acc[a].mode;
      /* Read-read sharing joins launches for horizontal fusion. */
      for (int u = 0; u < nuser[b]; u++)
        if (kf__push(&s, &ns, &caps, users[b][u], i, 0))
          goto out;
      if (kf__grow((void **)&users[b], &capuser[b], nuser[b] + 1, sizeof(int)))
        goto out;
      users[b][nuser[b]++] = i;
      if ((m & KF_READ) && last_writer[b] >= 0 && last_writer[b] != i)
        if (kf__push(&e, &ne, &cape, last_writer[b], i, KF_DEP_RAW))
          goto out;
      if (m & KF_WRITE) {
        if (last_writer[b] >= 0 && last_writer[b] != i)
          if (kf__push(&e, &ne, &cape, last_writer[b], i, KF_DEP_WAW))
            goto out;
        for (int r = 0; r < nread[b]; r++)
          if (readers[b][r] != i)
            if (kf__push(&e, &ne, &cape, readers[b][r], i, KF_DEP_WAR))
              goto out;
        last_writer[b] = i;
        nread[b] = 0;
      } else {
        if (kf__grow((void **)&readers[b], &capread[b], nread[b] + 1, sizeof(int)))
          goto out;
        readers[b][nread[b]++] = i;
      }
    }
  }
  /* Merge duplicate edges, OR-ing their kinds. */
  if (ne > 1)
    qsort(e, (size_t)ne, sizeof *e, kf__edge_cmp);
  int m = 0;
  for (int i = 0; i < ne; i++) {
    if (m && e[m - 1].from == e[i].from && e[m - 1].to == e[i].to)
      e[m - 1].kind |= e[i].kind;
    else
      e[m++] = e[i];
  }
  ne = m;
  d->nedges = ne;
  d->efrom = malloc(sizeof(int) * (size_t)(ne + 1));
  d->eto = malloc(sizeof(int) * (size_t)(ne + 1));
  d->ekind = malloc(sizeof(int) * (size_t)(ne + 1));
  if (!d->efrom || !d->eto || !d->ekind)
    goto out;
  for (int i = 0; i < ne; i++) {
    d->efrom[i] = e[i].from;
    d->eto[i] = e[i].to;
    d->ekind[i] = e[i].kind;
  }
  if (kf__csr(n, e, ne, 0, &d->succ_start, &d->succ))
    goto out;
  /* Neighbours: dependency edges plus sharing, deduplicated. */
  for (int i = 0; i < ne; i++)
    if (kf__push(&s, &ns, &caps, e[i].from, e[i].to, 0))
      goto out;
  if (ns > 1)
    qsort(s, (size_t)ns, sizeof *s, kf__edge_cmp);
  m = 0;
  for (int i = 0; i < ns; i++)
    if (!m || s[m - 1].from != s[i].from || s[m - 1].to != s[i].to)
      s[m++] = s[i];
  if (kf__csr(n, s, m, 1, &d->nb_start, &d->nb))
    goto out;
  size_t bits = (size_t)n * (size_t)d->words;
  d->desc = calloc(bits + 1, sizeof(uint64_t));
  d->anc = calloc(bits + 1, sizeof(uint64_t));
  if (!d->desc || !d->anc)
    goto out;
  /* Edges go forward in launch order, so one backward sweep closes desc. */
  for (int i = n - 1; i >= 0; i--) {
    uint64_t *di = d->desc + (size_t)i * d->words;
    for (int k = d->succ_start[i]; k < d->succ_start[i + 1]; k++) {
      int j = d->succ[k];
      uint64_t *dj = d->desc + (size_t)j * d->words;
      di[j / 64] |= 1ull << (j % 64);
      for (int w = 0; w < d->words; w++)
        di[w] |= dj[w];
    }
  }
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      if (d->desc[(size_t)i * d->words + j / 64] >> (j % 64) & 1)
        d->anc[(size_t)j * d->words + i / 64] |= 1ull << (i % 64);
  rc = 0;
out:
  for (int b = 0; b < p->nb; b++) {
    if (readers)
      free(readers[b]);
    if (users)
      free(users[b]);
  }
  free(last_writer);
  free(readers);
  free(nread);
  free(capread);
  free(users);
  free(nuser);
  free(capuser);
  free(e);
  free(s);
  if (rc)
    kf__dag_free(d);
  return rc;
}

void kf__dag_free(kf__dag *d)
{
  free(d->efrom);
  free(d->eto);
  free(d->ekind);
  free(d->succ_start);
  free(d->succ);
  free(d->nb_start);
  free(d->nb);
  free(d->desc);
  free(d->anc);
  memset(d, 0, sizeof *d);
}

int kf__dag_convex(const kf__dag *d, const int *members, int n, uint64_t *scratch)
{
  int W = d->words;
  uint64_t *out = scratch, *in = scratch + W, *g = scratch + 2 * W;
  memset(scratch, 0, sizeof(uint64_t) * 3 * (size_t)W);
  for (int i = 0; i < n; i++) {
    int v = members[i];
    g[v / 64] |= 1ull << (v % 64);
    for (int w = 0; w < W; w++) {
      out[w] |= d->desc[(size_t)v * W + w];
      in[w] |= d->anc[(size_t)v * W + w];
    }
  }
  for (int w = 0; w < W; w++)
    if (out[w] & in[w] & ~g[w])
      return 0;
  return 1;
}
