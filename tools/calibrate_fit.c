/* The arithmetic of kfuse-calibrate, kept out of the CUDA program so that it
 * can be tested without a GPU: medians, the occupancy knee, the profile text,
 * the psi table text. */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "calibrate_fit.h"
#include "kfuse/plan.h"

static int kf__cal_cmp(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int kf_cal_median(double *x, size_t n, double *median)
{
  if (!x || !median || n == 0)
    return KF_EINVAL;
  for (size_t i = 0; i < n; i++)
    if (!isfinite(x[i]))
      return KF_EINVAL;
  qsort(x, n, sizeof *x, kf__cal_cmp);
  *median = n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
  return 0;
}

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static int kf__cal_err(char *err, size_t errlen, int rc, const char *fmt, ...)
{
  if (err && errlen) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
  }
  return rc;
}

int kf_cal_hide_occupancy(const kf_cal_point_t *pts, size_t n, double frac, double *hide,
                          char *err, size_t errlen)
{
  if (!hide)
    return kf__cal_err(err, errlen, KF_EINVAL, "no result pointer");
  if (!pts || n == 0)
    return kf__cal_err(err, errlen, KF_EINVAL, "no occupancy measurements");
  if (!(frac > 0 && frac <= 1))
    return kf__cal_err(err, errlen, KF_EINVAL, "fraction %g outside (0, 1]", frac);
  for (size_t i = 0; i < n; i++) {
    double o = pts[i].occupancy, b = pts[i].bandwidth;
    if (!(o > 0 && o <= 1))
      return kf__cal_err(err, errlen, KF_EINVAL, "point %zu: occupancy %g outside (0, 1]", i, o);
    if (!(b > 0) || !isfinite(b))
      return kf__cal_err(err, errlen, KF_EINVAL, "point %zu: bandwidth %g is not positive", i, b);
    if (i > 0 && !(o > pts[i - 1].occupancy))
      return kf__cal_err(err, errlen, KF_EINVAL,
                         "point %zu: occupancies not increasing (%g after %g)", i, o,
                         pts[i - 1].occupancy);
  }
  /* Occupancies are ratios of whole warps; 1e-9 only absorbs rounding. */
  if (pts[n - 1].occupancy < 1 - 1e-9)
    return kf__cal_err(err, errlen, KF_EINVAL,
                       "no measurement at full occupancy (highest is %g)", pts[n - 1].occupancy);
  double need = frac * pts[n - 1].bandwidth;
  size_t k = n - 1;
  while (k > 0 && pts[k - 1].bandwidth >= need)
    k--;
  *hide = pts[k].occupancy;
  return 0;
}

int kf_cal_flops_per_cycle(double flops, double seconds, int sm_count, double clock_hz,
                           double *out)
{
  if (!out || !(flops > 0) || !isfinite(flops) || !(seconds > 0) || !isfinite(seconds) ||
      sm_count < 1 || !(clock_hz > 0) || !isfinite(clock_hz))
    return KF_EINVAL;
  *out = flops / seconds / ((double)sm_count * clock_hz);
  return 0;
}

/* Appends to a fixed buffer; remembers overflow instead of failing at once. */
typedef struct {
  char *buf;
  size_t len, used;
  int overflow;
} kf__cal_out;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void kf__cal_put(kf__cal_out *o, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  size_t room = o->used < o->len ? o->len - o->used : 0;
  int n = vsnprintf(o->buf + (room ? o->used : 0), room, fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= room)
    o->overflow = 1;
  else
    o->used += (size_t)n;
}

/* One "key = value" line, the unit as a comment in one column. Integer
 * fields pass through a double exactly (they are ints). */
static void kf__cal_key(kf__cal_out *o, const char *key, const char *fmt, double v,
                        const char *unit)
{
  char num[64], line[128];
  snprintf(num, sizeof num, fmt, v);
  snprintf(line, sizeof line, "%s = %s", key, num);
  if (unit)
    kf__cal_put(o, "%-36s # %s\n", line, unit);
  else
    kf__cal_put(o, "%s\n", line);
}

/* The name as the format can carry it: no '#' (a comment), no control
 * characters, no surrounding blanks (the reader trims them anyway). */
static void kf__cal_clean_name(const char *in, char *out, size_t outlen)
{
  size_t n = 0;
  for (const char *s = in; *s && n + 1 < outlen; s++) {
    unsigned char c = (unsigned char)*s;
    out[n++] = c == '#' || c < 0x20 || c == 0x7f ? ' ' : (char)c;
  }
  while (n > 0 && out[n - 1] == ' ')
    n--;
  out[n] = 0;
  size_t lead = strspn(out, " ");
  memmove(out, out + lead, n - lead + 1);
  if (!*out)
    snprintf(out, outlen, "unnamed device");
}

/* The comment lines of a header: each line of @p comment as "# line" (cut at
 * 400 bytes, well inside either reader's line limit), an empty one as "#". */
static void kf__cal_comment(kf__cal_out *o, const char *comment)
{
  for (const char *c = comment; c && *c;) {
    size_t n = strcspn(c, "\n");
    if (n)
      kf__cal_put(o, "# %.*s\n", (int)(n < 400 ? n : 400), c);
    else
      kf__cal_put(o, "#\n");
    c += n + (c[n] == '\n');
  }
}

int kf_cal_format_profile(const kf_profile_t *prof, const char *comment, char *buf, size_t len,
                          size_t *written, char *err, size_t errlen)
{
  if (!prof || !buf || len == 0)
    return kf__cal_err(err, errlen, KF_EINVAL, "no profile or buffer");
  kf_profile_t p = *prof;
  kf__cal_clean_name(prof->name, p.name, sizeof p.name);
  kf__cal_out o = { buf, len, 0, 0 };
  buf[0] = 0;
  /* The profile reader takes lines of up to 511 bytes, comments included. */
  kf__cal_comment(&o, comment);
  kf__cal_put(&o, "name = %s\n", p.name);
  kf__cal_key(&o, "bandwidth", "%.6g", p.bandwidth, "bytes/s");
  kf__cal_key(&o, "launch_overhead", "%.6g", p.launch_overhead, "s per kernel launch");
  kf__cal_key(&o, "sm_count", "%.0f", p.sm_count, NULL);
  kf__cal_key(&o, "shared_per_sm", "%.0f", p.shared_per_sm, "bytes");
  kf__cal_key(&o, "shared_per_block", "%.0f", p.shared_per_block, "bytes");
  kf__cal_key(&o, "regs_per_sm", "%.0f", p.regs_per_sm, NULL);
  kf__cal_key(&o, "max_threads_per_sm", "%.0f", p.max_threads_per_sm, NULL);
  kf__cal_key(&o, "max_blocks_per_sm", "%.0f", p.max_blocks_per_sm, NULL);
  kf__cal_key(&o, "max_threads_per_block", "%.0f", p.max_threads_per_block, NULL);
  kf__cal_key(&o, "l2_bytes", "%.0f", p.l2_bytes, "bytes");
  kf__cal_key(&o, "clock_hz", "%.6g", p.clock_hz, "SM clock");
  kf__cal_key(&o, "flops_per_cycle_per_sm", "%.6g", p.flops_per_cycle_per_sm, "fp32, FMA = 2");
  kf__cal_key(&o, "hide_occupancy", "%.6g", p.hide_occupancy, NULL);
  if (o.overflow)
    return kf__cal_err(err, errlen, KF_ERANGE, "profile text longer than %zu bytes", len);
  kf_profile_t back;
  char perr[160] = "";
  if (kf_profile_parse(&back, buf, o.used, perr, sizeof perr) != 0)
    return kf__cal_err(err, errlen, KF_EPARSE, "written profile does not parse: %s", perr);
  char what[32];
  if (kf_cal_profile_diff(&p, &back, 1e-5, what, sizeof what) != 0)
    return kf__cal_err(err, errlen, KF_EPARSE, "written profile reads back a different %s",
                       what);
  if (written)
    *written = o.used;
  return 0;
}

int kf_cal_profile_diff(const kf_profile_t *a, const kf_profile_t *b, double rtol, char *what,
                        size_t whatlen)
{
  if (!a || !b)
    return KF_EINVAL;
  const char *bad = NULL;
#define KF__CAL_INT(f) else if (a->f != b->f) bad = #f;
#define KF__CAL_DBL(f) \
  else if (!(fabs(a->f - b->f) <= rtol * fmax(fabs(a->f), fabs(b->f)))) bad = #f;
  if (strcmp(a->name, b->name) != 0)
    bad = "name";
  KF__CAL_DBL(bandwidth)
  KF__CAL_DBL(launch_overhead)
  KF__CAL_INT(sm_count)
  KF__CAL_INT(shared_per_sm)
  KF__CAL_INT(shared_per_block)
  KF__CAL_INT(regs_per_sm)
  KF__CAL_INT(max_threads_per_sm)
  KF__CAL_INT(max_blocks_per_sm)
  KF__CAL_INT(max_threads_per_block)
  KF__CAL_DBL(l2_bytes)
  KF__CAL_DBL(clock_hz)
  KF__CAL_DBL(flops_per_cycle_per_sm)
  KF__CAL_DBL(hide_occupancy)
#undef KF__CAL_INT
#undef KF__CAL_DBL
  if (!bad)
    return 0;
  if (what && whatlen)
    snprintf(what, whatlen, "%s", bad);
  return KF_EMISMATCH;
}

int kf_cal_psi_ipb_set(int tpi, int min_block, int max_block, int *out, size_t cap)
{
  if (tpi < 1 || max_block < 1 || (!out && cap > 0))
    return KF_EINVAL;
  int n = 0;
  for (int ipb = KF_CAL_PSI_IPB_MIN; ipb <= KF_CAL_PSI_IPB_MAX; ipb *= 2) {
    long long block = (long long)ipb * tpi;
    if (block < min_block)
      block = min_block;
    if (block > max_block)
      break;
    if ((size_t)n < cap)
      out[n] = ipb;
    n++;
  }
  return n;
}

int kf_cal_psi_ipb_set_fused(int block, int *out, size_t cap)
{
  if (block < 1 || block > 32768 || (!out && cap > 0))
    return KF_EINVAL;
  int n = 0, last = 0;
  int cand[8], nc = 0;
  for (int ipb = KF_CAL_PSI_IPB_MIN; ipb <= 64; ipb *= 2)
    cand[nc++] = ipb;
  cand[nc++] = block / 3;
  cand[nc++] = block / 2;
  cand[nc++] = block;
  for (int i = 0; i < nc; i++) {
    /* increasing and distinct; past 64 only the block's shares */
    if (cand[i] <= last || (i >= nc - 3 && cand[i] <= 64))
      continue;
    if ((size_t)n < cap)
      out[n] = cand[i];
    n++;
    last = cand[i];
  }
  return n;
}

int kf_cal_psi_seconds(double routine_s, double harness_s, double *out)
{
  if (!out || !(routine_s >= 0) || !isfinite(routine_s) || !(harness_s >= 0) ||
      !isfinite(harness_s))
    return KF_EINVAL;
  *out = routine_s > harness_s ? routine_s - harness_s : 0;
  return 0;
}

/* A routine name the problem file carries as one word and a reader would
 * take for a name: an identifier. */
static int kf__cal_psi_name_ok(const char *r)
{
  if (!r || !(isalpha((unsigned char)r[0]) || r[0] == '_'))
    return 0;
  size_t n = 0;
  for (; r[n]; n++)
    if (!(isalnum((unsigned char)r[n]) || r[n] == '_'))
      return 0;
  return n <= KF_CAL_PSI_NAME_MAX;
}

/* The problem reader's limit on integers (lib/problem_file.c). */
#define KF__CAL_PSI_INT_MAX 1000000000

int kf_cal_format_psi(const kf_cal_psi_t *entries, size_t n, const char *comment,
                      int fused_block, char *buf, size_t len, size_t *written, char *err,
                      size_t errlen)
{
  if (!entries || !buf || len == 0)
    return kf__cal_err(err, errlen, KF_EINVAL, "no entries or buffer");
  if (fused_block < 0 || fused_block > 32768)
    return kf__cal_err(err, errlen, KF_EINVAL, "fused block of %d threads outside 0..32768",
                       fused_block);
  if (n == 0)
    return kf__cal_err(err, errlen, KF_EINVAL, "no psi entries");
  for (size_t i = 0; i < n; i++) {
    const kf_cal_psi_t *e = &entries[i];
    if (!kf__cal_psi_name_ok(e->routine))
      return kf__cal_err(err, errlen, KF_EINVAL,
                         "entry %zu: routine '%.80s' is not an identifier of at most %d "
                         "characters", i, e->routine ? e->routine : "(null)",
                         KF_CAL_PSI_NAME_MAX);
    if (e->ipb < 1 || e->ipb > KF__CAL_PSI_INT_MAX)
      return kf__cal_err(err, errlen, KF_EINVAL, "entry %zu (%s): instances per block %d "
                         "outside 1..%d", i, e->routine, e->ipb, KF__CAL_PSI_INT_MAX);
    if (e->extra_shared < 0 || e->extra_shared > KF__CAL_PSI_INT_MAX)
      return kf__cal_err(err, errlen, KF_EINVAL, "entry %zu (%s): extra shared memory %d "
                         "outside 0..%d", i, e->routine, e->extra_shared, KF__CAL_PSI_INT_MAX);
    if (!(e->seconds >= 0) || !isfinite(e->seconds))
      return kf__cal_err(err, errlen, KF_EINVAL, "entry %zu (%s): seconds %g is not a finite "
                         "number >= 0", i, e->routine, e->seconds);
    for (size_t j = 0; j < i; j++)
      if (entries[j].ipb == e->ipb && entries[j].extra_shared == e->extra_shared &&
          strcmp(entries[j].routine, e->routine) == 0)
        return kf__cal_err(err, errlen, KF_EINVAL, "entry %zu repeats entry %zu: %s %d %d", i,
                           j, e->routine, e->ipb, e->extra_shared);
  }
  kf__cal_out o = { buf, len, 0, 0 };
  buf[0] = 0;
  kf__cal_comment(&o, comment);
  if (fused_block > 0)
    kf__cal_put(&o, "fused-block %d\n", fused_block);
  for (size_t i = 0; i < n; i++) {
    const kf_cal_psi_t *e = &entries[i];
    kf__cal_put(&o, "psi %s %d %d %.6g\n", e->routine, e->ipb, e->extra_shared,
                e->seconds < 1e-15 ? 0.0 : e->seconds);
  }
  if (o.overflow)
    return kf__cal_err(err, errlen, KF_ERANGE, "psi table text longer than %zu bytes", len);
  /* The problem reader wants its header and at least one launch. */
  static const char head[] = "kfuse-plan 1\nlaunch psi_table_check\n";
  size_t hl = sizeof head - 1;
  char *file = malloc(hl + o.used);
  if (!file)
    return kf__cal_err(err, errlen, KF_ENOMEM, "out of memory");
  memcpy(file, head, hl);
  memcpy(file + hl, buf, o.used);
  kf_problem *p = NULL;
  char perr[160] = "";
  int rc = kf_problem_parse(&p, file, hl + o.used, perr, sizeof perr);
  free(file);
  kf_problem_destroy(p);
  if (rc == KF_ENOMEM)
    return kf__cal_err(err, errlen, KF_ENOMEM, "out of memory");
  if (rc != 0)
    return kf__cal_err(err, errlen, KF_EPARSE, "written psi table does not parse (behind a "
                       "2-line header): %s", perr);
  if (written)
    *written = o.used;
  return 0;
}
