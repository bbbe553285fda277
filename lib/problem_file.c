/* The problem file reader (format in docs/plan.md): one statement per line,
 * errors reported with their line number, never a crash on bad input. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "plan_int.h"

#define KF__MAXTOK 64
/* Largest shared memory per block a variant or psi entry may name: more
 * than any GPU has, far less than overflows an int. */
#define KF__MAX_SHARED_BYTES (1 << 30)

typedef struct kf__rules {
  int n, cap;
  int *len;
  int (*ids)[KF__MAXK + 1];
} kf__rules;

static void kf__rules_free(void *r)
{
  kf__rules *x = r;
  if (!x)
    return;
  free(x->len);
  free(x->ids);
  free(x);
}

/* A rule forbids every group that holds all its launches. */
static int kf__rules_legal(void *user, const int *g, int n)
{
  const kf__rules *r = user;
  for (int i = 0; i < r->n; i++) {
    int all = 1;
    for (int a = 0; a < r->len[i] && all; a++) {
      int in = 0;
      for (int b = 0; b < n; b++)
        in |= g[b] == r->ids[i][a];
      all = in;
    }
    if (all)
      return 0;
  }
  return 1;
}

typedef struct kf__pst {
  char *err;
  size_t errlen;
  int line;
} kf__pst;

static int kf__fail(kf__pst *s, const char *fmt, const char *arg)
{
  char msg[256];
  snprintf(msg, sizeof msg, fmt, arg ? arg : "");
  kf__text_error(s->err, s->errlen, s->line, "%s", msg);
  return KF_EPARSE;
}

/* A number of the file in [lo, hi]: 0, or KF_EPARSE with "line N: WHAT:
 * VALUE out of range (LO to HI)" or "line N: WHAT: 'VALUE' is not a
 * number". */
static int kf__num_in(kf__pst *s, const char *what, const char *v, double lo, double hi,
                      int integer, double *out)
{
  int bad = kf_parse_number(v, lo, hi, integer, out);
  if (bad == KF_ERANGE)
    kf__text_error(s->err, s->errlen, s->line, "%s: %s out of range (%g to %g)", what, v, lo,
                   hi);
  else if (bad)
    kf__text_error(s->err, s->errlen, s->line, "%s: '%s' is not %s", what, v,
                   integer ? "an integer" : "a number");
  return bad ? KF_EPARSE : 0;
}

static int kf__int_in(kf__pst *s, const char *what, const char *v, int lo, int hi, int *out)
{
  double x;
  int rc = kf__num_in(s, what, v, lo, hi, 1, &x);
  if (rc == 0)
    *out = (int)x;
  return rc;
}

/* Instances of a launch: at least one element. */
#define KF__MIN_INSTANCES 1.0

static int kf__find(const kf_problem *p, const char *name, int launch)
{
  int n = launch ? p->nl : p->nb;
  for (int i = 0; i < n; i++)
    if (strcmp(launch ? p->l[i].name : p->b[i].name, name) == 0)
      return i;
  return -1;
}

static int kf__line(kf_problem *p, kf__rules *rules, kf__pst *s, char **tok,
                    int nt, double *instances, int *seen_header)
{
  const char *kw = tok[0];
  int rc;
  if (!*seen_header) {
    if (strcmp(kw, "kfuse-plan") != 0 || nt != 2)
      return kf__fail(s, "expected header 'kfuse-plan 1'%s", NULL);
    if (strcmp(tok[1], "1") != 0) {
      kf__fail(s, "unsupported format version '%s'", tok[1]);
      return KF_EVERSION;
    }
    *seen_header = 1;
    return 0;
  }
  if (strcmp(kw, "instances") == 0) {
    if (nt != 2)
      return kf__fail(s, "instances needs one positive number%s", NULL);
    return kf__num_in(s, "instances needs one positive number", tok[1], KF__MIN_INSTANCES,
                      KF_MAX_INSTANCES, 0, instances);
  }
  if (strcmp(kw, "consecutive") == 0) {
    if (nt != 1)
      return kf__fail(s, "expected 'consecutive' alone%s", NULL);
    return kf_problem_set_consecutive(p, 1);
  }
  if (strcmp(kw, "fused-block") == 0) {
    int threads = 0;
    if (nt != 2)
      return kf__fail(s, "expected 'fused-block THREADS'%s", NULL);
    rc = kf__int_in(s, "fused-block", tok[1], 1, KF_VARIANT_MAX_THREADS, &threads);
    return rc ? rc : kf_problem_set_fused_block(p, threads);
  }
  if (strcmp(kw, "buffer") == 0) {
    int dead = 0, regs = 0, id = -1;
    if (nt < 2 || nt > 4)
      return kf__fail(s, "expected 'buffer NAME [dead] [registers]'%s", NULL);
    for (int i = 2; i < nt; i++) {
      int *flag = strcmp(tok[i], "dead") == 0        ? &dead
                  : strcmp(tok[i], "registers") == 0 ? &regs
                                                     : NULL;
      if (!flag)
        return kf__fail(s, "unknown buffer flag '%s' (dead, registers)", tok[i]);
      if (*flag)
        return kf__fail(s, "buffer flag '%s' given twice", tok[i]);
      *flag = 1;
    }
    if (kf__find(p, tok[1], 0) >= 0)
      return kf__fail(s, "duplicate buffer '%s'", tok[1]);
    rc = kf_problem_add_buffer(p, tok[1], dead, &id);
    if (rc == 0 && regs)
      rc = kf_problem_set_buffer_registers(p, id, 1);
    return rc == KF_EINVAL ? kf__fail(s, "bad buffer name '%s'", tok[1]) : rc;
  }
  if (strcmp(kw, "launch") == 0) {
    double inst = *instances;
    if (nt < 2)
      return kf__fail(s, "expected 'launch NAME [instances=N]'%s", NULL);
    for (int i = 2; i < nt; i++) {
      if (strncmp(tok[i], "instances=", 10) != 0)
        return kf__fail(s, "bad launch attribute '%s'", tok[i]);
      char what[96];
      snprintf(what, sizeof what, "bad launch attribute '%.60s'", tok[i]);
      if ((rc = kf__num_in(s, what, tok[i] + 10, KF__MIN_INSTANCES, KF_MAX_INSTANCES, 0,
                           &inst)) != 0)
        return rc;
    }
    if (kf__find(p, tok[1], 1) >= 0)
      return kf__fail(s, "duplicate launch '%s'", tok[1]);
    rc = kf_problem_add_launch(p, tok[1], inst, NULL);
    return rc == KF_EINVAL ? kf__fail(s, "bad launch '%s'", tok[1]) : rc;
  }
  if (strcmp(kw, "variant") == 0) {
    if (p->nl == 0)
      return kf__fail(s, "variant before any launch%s", NULL);
    if (nt < 2)
      return kf__fail(s, "expected 'variant NAME key=value...'%s", NULL);
    kf_variant_t v;
    memset(&v, 0, sizeof v);
    v.name = tok[1];
    for (int i = 2; i < nt; i++) {
      char *eq = strchr(tok[i], '=');
      if (!eq)
        return kf__fail(s, "expected key=value, got '%s'", tok[i]);
      *eq = 0;
      const char *k = tok[i], *val = eq + 1;
      int bad = 0;
      char what[96];
      snprintf(what, sizeof what, "bad value for '%.60s'", k);
      if (strcmp(k, "tpi") == 0)
        bad = kf__int_in(s, what, val, 1, KF_VARIANT_MAX_THREADS, &v.threads_per_instance);
      else if (strcmp(k, "ipb") == 0)
        bad = kf__int_in(s, what, val, 1, KF_VARIANT_MAX_THREADS, &v.instances_per_block);
      else if (strcmp(k, "block") == 0)
        bad = kf__int_in(s, what, val, 1, KF_VARIANT_MAX_THREADS, &v.block_threads);
      else if (strcmp(k, "regs") == 0)
        bad = kf__int_in(s, what, val, 1, KF_VARIANT_MAX_REGS, &v.registers);
      else if (strcmp(k, "smem") == 0)
        bad = kf__int_in(s, what, val, 0, KF__MAX_SHARED_BYTES, &v.shared_bytes);
      else if (strcmp(k, "flops") == 0)
        bad = kf__num_in(s, what, val, 0, KF_MAX_FLOPS_PER_INSTANCE, 0, &v.flops);
      else if (strcmp(k, "psi") == 0)
        v.psi_compute = val;
      else if (strcmp(k, "tie") == 0)
        bad = kf__int_in(s, what, val, 0, KF_VARIANT_MAX_TIE_RANK, &v.tie_rank);
      else
        return kf__fail(s, "unknown variant key '%s'", k);
      if (bad)
        return bad;
    }
    for (int i = 0; i < p->l[p->nl - 1].nvar; i++)
      if (strcmp(p->l[p->nl - 1].var[i].name, v.name) == 0)
        return kf__fail(s, "duplicate variant '%s'", v.name);
    return kf_problem_add_variant(p, p->nl - 1, &v);
  }
  if (!strcmp(kw, "read") || !strcmp(kw, "write") || !strcmp(kw, "readwrite")) {
    if (p->nl == 0)
      return kf__fail(s, "%s before any launch", kw);
    if (nt < 3)
      return kf__fail(s, "expected '%s BUFFER bytes=N [psi=ROUTINE] [halo=N]'", kw);
    int b = kf__find(p, tok[1], 0);
    if (b < 0)
      return kf__fail(s, "unknown buffer '%s'", tok[1]);
    double bytes = -1;
    const char *psi = NULL;
    int halo = 0;
    for (int i = 2; i < nt; i++) {
      if (strncmp(tok[i], "halo=", 5) == 0 && kw[0] == 'r') {
        if ((rc = kf__int_in(s, "bad halo", tok[i] + 5, 0, KF_VARIANT_MAX_THREADS, &halo)))
          return rc;
      } else if (strncmp(tok[i], "bytes=", 6) == 0) {
        if ((rc = kf__num_in(s, "bad byte count", tok[i] + 6, 0, KF_MAX_BYTES_PER_INSTANCE, 0,
                             &bytes)))
          return rc;
      } else if (strncmp(tok[i], "psi=", 4) == 0 && tok[i][4]) {
        psi = tok[i] + 4;
      } else {
        return kf__fail(s, "unknown access attribute '%s'", tok[i]);
      }
    }
    if (bytes < 0)
      return kf__fail(s, "access without bytes=%s", NULL);
    int mode = kw[4] == 'w' ? KF_READWRITE : kw[0] == 'r' ? KF_READ : KF_WRITE;
    if ((rc = kf_problem_add_access(p, p->nl - 1, b, mode, bytes, psi)))
      return rc;
    return halo ? kf_problem_set_halo(p, p->nl - 1, b, halo) : 0;
  }
  if (strcmp(kw, "psi") == 0) {
    int ipb, sm;
    double sec;
    if (nt != 5)
      return kf__fail(s, "expected 'psi ROUTINE IPB EXTRA_SHARED SECONDS'%s", NULL);
    const char *what = "expected 'psi ROUTINE IPB EXTRA_SHARED SECONDS'";
    if ((rc = kf__int_in(s, what, tok[2], 1, KF_VARIANT_MAX_THREADS, &ipb)) ||
        (rc = kf__int_in(s, what, tok[3], 0, KF__MAX_SHARED_BYTES, &sm)) ||
        (rc = kf__num_in(s, what, tok[4], 0, KF_MAX_PSI_SECONDS, 0, &sec)))
      return rc;
    return kf_problem_add_psi(p, tok[1], ipb, sm, sec);
  }
  if (strcmp(kw, "forbid") == 0 || strcmp(kw, "alone") == 0) {
    int want_one = kw[0] == 'a';
    if (want_one ? nt != 2 : (nt < 3 || nt > KF__MAXK + 1))
      return kf__fail(s, want_one ? "expected 'alone LAUNCH'%s"
                                  : "expected 'forbid LAUNCH LAUNCH...' (2 to 8)%s", NULL);
    if (kf__grow((void **)&rules->len, &rules->cap, rules->n + 1, sizeof(int)))
      return KF_ENOMEM;
    void *ni = realloc(rules->ids, sizeof(*rules->ids) * (size_t)rules->cap);
    if (!ni)
      return KF_ENOMEM;
    rules->ids = ni;
    for (int i = 1; i < nt; i++) {
      int l = kf__find(p, tok[i], 1);
      if (l < 0)
        return kf__fail(s, "unknown launch '%s'", tok[i]);
      rules->ids[rules->n][i - 1] = l;
    }
    rules->len[rules->n++] = nt - 1;
    return 0;
  }
  return kf__fail(s, "unknown statement '%s'", kw);
}

int kf_problem_parse(kf_problem **out, const char *text, size_t len,
                     char *err, size_t errlen)
{
  if (!out || (!text && len))
    return KF_EINVAL;
  *out = NULL;
  kf_problem *p;
  int rc = kf_problem_create(&p);
  if (rc)
    return rc;
  kf__rules *rules = calloc(1, sizeof *rules);
  if (!rules) {
    kf_problem_destroy(p);
    return KF_ENOMEM;
  }
  p->owned_rules = rules;
  p->free_rules = kf__rules_free;
  kf__pst s = { err, errlen, 0 };
  double instances = 1 << 20;
  int header = 0;
  kf__lines lines = { text, len, 0, 0 };
  char buf[KF__LINE_MAX + 1];
  while (rc == 0) {
    int more = kf__lines_next(&lines, buf, sizeof buf, err, errlen);
    s.line = lines.line;
    if (more <= 0) {
      rc = more;
      break;
    }
    char *tok[KF__MAXTOK];
    int nt = 0;
    for (char *q = buf; *q;) {
      while (*q && isspace((unsigned char)*q))
        *q++ = 0;
      if (!*q)
        break;
      if (nt == KF__MAXTOK) {
        rc = kf__fail(&s, "too many words%s", NULL);
        break;
      }
      tok[nt++] = q;
      while (*q && !isspace((unsigned char)*q))
        q++;
    }
    if (rc || nt == 0)
      continue;
    rc = kf__line(p, rules, &s, tok, nt, &instances, &header);
  }
  if (rc == 0 && !header) {
    s.line = s.line ? s.line : 1;
    rc = kf__fail(&s, "missing header 'kfuse-plan 1'%s", NULL);
  }
  if (rc == 0 && p->nl == 0) {
    rc = kf__fail(&s, "no launches%s", NULL);
  }
  if (rc) {
    kf_problem_destroy(p);
    return rc;
  }
  if (rules->n)
    kf_problem_set_legality(p, kf__rules_legal, rules);
  *out = p;
  return 0;
}

static int kf__problem_parse_obj(void *out, const char *text, size_t len, char *err,
                                 size_t errlen)
{
  return kf_problem_parse(out, text, len, err, errlen);
}

int kf_problem_load(kf_problem **out, const char *path, char *err, size_t errlen)
{
  if (!out || !path)
    return KF_EINVAL;
  return kf__load_file(path, err, errlen, kf__problem_parse_obj, out);
}
