/* The problem file reader (format in docs/plan.md): one statement per line,
 * errors reported with their line number, never a crash on bad input. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "plan_int.h"

#define KF__MAXTOK 64

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
  if (s->err && s->errlen) {
    char msg[256];
    snprintf(msg, sizeof msg, fmt, arg ? arg : "");
    snprintf(s->err, s->errlen, "line %d: %s", s->line, msg);
  }
  return KF_EPARSE;
}

static int kf__num(const char *v, double *out)
{
  char *e;
  errno = 0;
  double x = strtod(v, &e);
  if (!*v || *e || errno || !isfinite(x) || x < 0)
    return -1;
  *out = x;
  return 0;
}

static int kf__int(const char *v, int *out)
{
  double x;
  if (kf__num(v, &x) || x != floor(x) || x > 1e9)
    return -1;
  *out = (int)x;
  return 0;
}

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
    if (nt != 2 || kf__num(tok[1], instances) || *instances <= 0)
      return kf__fail(s, "instances needs one positive number%s", NULL);
    return 0;
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
      if (strncmp(tok[i], "instances=", 10) != 0 || kf__num(tok[i] + 10, &inst) || inst <= 0)
        return kf__fail(s, "bad launch attribute '%s'", tok[i]);
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
      if (strcmp(k, "tpi") == 0)
        bad = kf__int(val, &v.threads_per_instance) || v.threads_per_instance < 1 ||
              v.threads_per_instance > KF_VARIANT_MAX_THREADS;
      else if (strcmp(k, "ipb") == 0)
        bad = kf__int(val, &v.instances_per_block) || v.instances_per_block < 1 ||
              v.instances_per_block > KF_VARIANT_MAX_THREADS;
      else if (strcmp(k, "block") == 0)
        bad = kf__int(val, &v.block_threads) || v.block_threads < 1 ||
              v.block_threads > KF_VARIANT_MAX_THREADS;
      else if (strcmp(k, "regs") == 0)
        bad = kf__int(val, &v.registers) || v.registers < 1 || v.registers > KF_VARIANT_MAX_REGS;
      else if (strcmp(k, "smem") == 0)
        bad = kf__int(val, &v.shared_bytes);
      else if (strcmp(k, "flops") == 0)
        bad = kf__num(val, &v.flops);
      else if (strcmp(k, "psi") == 0)
        v.psi_compute = val;
      else
        return kf__fail(s, "unknown variant key '%s'", k);
      if (bad)
        return kf__fail(s, "bad value for '%s'", k);
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
      return kf__fail(s, "expected '%s BUFFER bytes=N [psi=ROUTINE]'", kw);
    int b = kf__find(p, tok[1], 0);
    if (b < 0)
      return kf__fail(s, "unknown buffer '%s'", tok[1]);
    double bytes = -1;
    const char *psi = NULL;
    for (int i = 2; i < nt; i++) {
      if (strncmp(tok[i], "bytes=", 6) == 0) {
        if (kf__num(tok[i] + 6, &bytes))
          return kf__fail(s, "bad byte count '%s'", tok[i] + 6);
      } else if (strncmp(tok[i], "psi=", 4) == 0 && tok[i][4]) {
        psi = tok[i] + 4;
      } else {
        return kf__fail(s, "unknown access attribute '%s'", tok[i]);
      }
    }
    if (bytes < 0)
      return kf__fail(s, "access without bytes=%s", NULL);
    int mode = kw[4] == 'w' ? KF_READWRITE : kw[0] == 'r' ? KF_READ : KF_WRITE;
    return kf_problem_add_access(p, p->nl - 1, b, mode, bytes, psi);
  }
  if (strcmp(kw, "psi") == 0) {
    int ipb, sm;
    double sec;
    if (nt != 5 || kf__int(tok[2], &ipb) || ipb < 1 || kf__int(tok[3], &sm) ||
        kf__num(tok[4], &sec))
      return kf__fail(s, "expected 'psi ROUTINE IPB EXTRA_SHARED SECONDS'%s", NULL);
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
  size_t pos = 0;
  char buf[4096];
  while (pos < len && rc == 0) {
    s.line++;
    size_t e = pos;
    while (e < len && text[e] != '\n')
      e++;
    size_t n = e - pos;
    if (n >= sizeof buf) {
      rc = kf__fail(&s, "line longer than 4095 characters%s", NULL);
      break;
    }
    memcpy(buf, text + pos, n);
    buf[n] = 0;
    pos = e + 1;
    if (memchr(buf, 0, n)) {
      rc = kf__fail(&s, "NUL byte in line%s", NULL);
      break;
    }
    char *hash = strchr(buf, '#');
    if (hash)
      *hash = 0;
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
