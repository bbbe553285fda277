/* Device profiles: defaults for the H100 and the "key = value" file reader. */
#include <ctype.h>
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
  kf__text_error(err, errlen, line, "%s%s%s", msg, arg ? ": " : "", arg ? arg : "");
  return KF_EPARSE;
}

int kf__profile_check(const kf_profile_t *p, char *err, size_t errlen)
{
  for (size_t i = 0; i < sizeof kf__keys / sizeof kf__keys[0]; i++) {
    const char *at = (const char *)p + kf__keys[i].off;
    double x = kf__keys[i].type == KF__I ? *(const int *)at : *(const double *)at;
    if (!(x >= kf__keys[i].lo && x <= kf__keys[i].hi)) {
      kf__text_error(err, errlen, 0, "profile value out of range: %s = %g (%g to %g)",
                     kf__keys[i].key, x, kf__keys[i].lo, kf__keys[i].hi);
      return KF_ERANGE;
    }
  }
  if (p->shared_per_block > p->shared_per_sm) {
    kf__text_error(err, errlen, 0, "shared_per_block exceeds shared_per_sm");
    return KF_ERANGE;
  }
  return 0;
}

int kf_profile_parse(kf_profile_t *prof, const char *text, size_t len,
                     char *err, size_t errlen)
{
  if (!prof || (!text && len))
    return KF_EINVAL;
  kf_profile_t p;
  kf_profile_default(&p);
  kf__lines lines = { text, len, 0, 0 };
  char buf[KF__LINE_MAX + 1];
  for (;;) {
    int more = kf__lines_next(&lines, buf, sizeof buf, err, errlen);
    if (more < 0)
      return more;
    if (!more)
      break;
    int line = lines.line;
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
    double x;
    int bad = kf_parse_number(v, kf__keys[i].lo, kf__keys[i].hi, kf__keys[i].type == KF__I, &x);
    if (bad == KF_ERANGE) {
      kf__text_error(err, errlen, line, "value out of range for: %s = %s (%g to %g)", k, v,
                     kf__keys[i].lo, kf__keys[i].hi);
      return KF_EPARSE;
    }
    if (bad && kf__keys[i].type == KF__I)
      return kf__perr(err, errlen, line, "expected an integer for", k);
    if (bad)
      return kf__perr(err, errlen, line, "not a number", v);
    if (kf__keys[i].type == KF__I)
      *(int *)((char *)&p + kf__keys[i].off) = (int)x;
    else
      *(double *)((char *)&p + kf__keys[i].off) = x;
  }
  if (p.shared_per_block > p.shared_per_sm)
    return kf__perr(err, errlen, 0, "shared_per_block exceeds shared_per_sm", NULL);
  *prof = p;
  return 0;
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
