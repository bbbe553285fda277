/* Device profiles: defaults for the H100 and the "key = value" file reader. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "plan_int.h"

void kf_profile_default(kf_profile_t *p)
{
  memset(p, 0, sizeof *p);
  /* profiles/h100.prof: measured by kfuse-calibrate on an H100 80GB HBM3
   * (SXM5), driver 580.159.04, CUDA 13.0, 2026-11-22. */
  snprintf(p->name, sizeof p->name, "NVIDIA H100 80GB HBM3 (default)");
  p->bandwidth = 3.00055e12;
  p->launch_overhead = 3.04813e-6;
  p->sm_count = 132;
  p->shared_per_sm = 228 * 1024;
  p->shared_per_block = 227 * 1024;
  p->regs_per_sm = 65536;
  p->max_threads_per_sm = 2048;
  p->max_blocks_per_sm = 32;
  p->max_threads_per_block = 1024;
  p->l2_bytes = 50.0 * 1024 * 1024;
  p->clock_hz = 1.96983e9;
  p->flops_per_cycle_per_sm = 251.026;
  p->hide_occupancy = 0.75;
}

enum { KF__D, KF__I };
static const struct {
  const char *key;
  int type;
  size_t off;
  double lo, hi;
} kf__keys[] = {
#define KF__K(k, t, lo, hi) { #k, t, offsetof(kf_profile_t, k), lo, hi }
  KF__K(bandwidth, KF__D, 1e6, 1e16),
  KF__K(launch_overhead, KF__D, 0, 1),
  KF__K(sm_count, KF__I, 1, 1e5),
  KF__K(shared_per_sm, KF__I, 0, 1e9),
  KF__K(shared_per_block, KF__I, 0, 1e9),
  KF__K(regs_per_sm, KF__I, 1, 1e9),
  KF__K(max_threads_per_sm, KF__I, 1, 1e6),
  KF__K(max_blocks_per_sm, KF__I, 1, 1e6),
  KF__K(max_threads_per_block, KF__I, 1, 1e6),
  KF__K(l2_bytes, KF__D, 0, 1e12),
  KF__K(clock_hz, KF__D, 1e6, 1e11),
  KF__K(flops_per_cycle_per_sm, KF__D, 1, 1e7),
  KF__K(hide_occupancy, KF__D, 1e-3, 1),
#undef KF__K
};

static int kf__perr(char *err, size_t errlen, int line, const char *msg, const char *arg)
{
  if (err && errlen)
    snprintf(err, errlen, "line %d: %s%s%s", line, msg, arg ? ": " : "", arg ? arg : "");
  return KF_EPARSE;
}

int kf_profile_parse(kf_profile_t *prof, const char *text, size_t len,
                     char *err, size_t errlen)
{
  if (!prof || (!text && len))
    return KF_EINVAL;
  kf_profile_t p;
  kf_profile_default(&p);
  size_t pos = 0;
  for (int line = 1; pos < len; line++) {
    size_t e = pos;
    while (e < len && text[e] != '\n')
      e++;
    char buf[512];
    size_t n = e - pos;
    if (n >= sizeof buf)
      return kf__perr(err, errlen, line, "line too long", NULL);
    memcpy(buf, text + pos, n);
    buf[n] = 0;
    pos = e + 1;
    char *hash = strchr(buf, '#');
    if (hash)
      *hash = 0;
    char *s = buf;
    while (isspace((unsigned char)*s))
      s++;
    if (!*s)
      continue;
    char *eq = strchr(s, '=');
    if (!eq)
      return kf__perr(err, errlen, line, "expected key = value", NULL);
    char *k = s, *ke = eq;
    while (ke > k && isspace((unsigned char)ke[-1]))
      ke--;
    *ke = 0;
    char *v = eq + 1;
    while (isspace((unsigned char)*v))
      v++;
    char *ve = v + strlen(v);
    while (ve > v && isspace((unsigned char)ve[-1]))
      ve--;
    *ve = 0;
    if (strcmp(k, "name") == 0) {
      snprintf(p.name, sizeof p.name, "%s", v);
      continue;
    }
    size_t i;
    for (i = 0; i < sizeof kf__keys / sizeof kf__keys[0]; i++)
      if (strcmp(k, kf__keys[i].key) == 0)
        break;
    if (i == sizeof kf__keys / sizeof kf__keys[0])
      return kf__perr(err, errlen, line, "unknown key", k);
    char *endp;
    errno = 0;
    double x = strtod(v, &endp);
    if (!*v || *endp || errno || !isfinite(x))
      return kf__perr(err, errlen, line, "not a number", v);
    if (x < kf__keys[i].lo || x > kf__keys[i].hi)
      return kf__perr(err, errlen, line, "value out of range for", k);
    if (kf__keys[i].type == KF__I) {
      if (x != floor(x))
        return kf__perr(err, errlen, line, "expected an integer for", k);
      *(int *)((char *)&p + kf__keys[i].off) = (int)x;
    } else {
      *(double *)((char *)&p + kf__keys[i].off) = x;
    }
  }
  if (p.shared_per_block > p.shared_per_sm)
    return kf__perr(err, errlen, 0, "shared_per_block exceeds shared_per_sm", NULL);
  *prof = p;
  return 0;
}

int kf__read_file(const char *path, char **text, size_t *len)
{
  FILE *f = fopen(path, "rb");
  if (!f)
    return KF_EIO;
  size_t cap = 4096, n = 0;
  char *b = malloc(cap);
  for (;;) {
    if (!b) {
      fclose(f);
      return KF_ENOMEM;
    }
    n += fread(b + n, 1, cap - n, f);
    if (n < cap)
      break;
    cap *= 2;
    char *nb = realloc(b, cap);
    if (!nb)
      free(b);
    b = nb;
  }
  int bad = ferror(f);
  fclose(f);
  if (bad) {
    free(b);
    return KF_EIO;
  }
  *text = b;
  *len = n;
  return 0;
}

int kf__load_file(const char *path, char *err, size_t errlen,
                  int (*parse)(void *obj, const char *text, size_t len, char *err, size_t errlen),
                  void *obj)
{
  char *t;
  size_t n;
  int rc = kf__read_file(path, &t, &n);
  if (rc) {
    if (err && errlen)
      snprintf(err, errlen, "%s: cannot read", path);
    return rc;
  }
  rc = parse(obj, t, n, err, errlen);
  free(t);
  return rc;
}

static int kf__profile_parse_obj(void *prof, const char *text, size_t len, char *err,
                                 size_t errlen)
{
  return kf_profile_parse(prof, text, len, err, errlen);
}

int kf_profile_load(kf_profile_t *prof, const char *path, char *err, size_t errlen)
{
  if (!prof || !path)
    return KF_EINVAL;
  return kf__load_file(path, err, errlen, kf__profile_parse_obj, prof);
}
