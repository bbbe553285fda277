/* Strict parser of the manifest text the device pass embeds: anything it
 * does not recognise is an error, so a stale or corrupt manifest can only
 * make the runtime fall back, never launch a kernel with wrong guards. */
#include "manifest/manifest.h"

#include <stdlib.h>
#include <string.h>

/* `shape gran` has a field for each launch of its group; every other line
 * has at most 8. */
#define KF__MAX_FIELDS (KF__MANIFEST_MAX_LAUNCHES + 3)

typedef struct kf__field {
  const char *s;
  size_t n;
} kf__field_t;

static int kf__field_is(kf__field_t f, const char *word)
{
  size_t n = strlen(word);
  return f.n == n && memcmp(f.s, word, n) == 0;
}

/* Decimal, no sign; KF_EPARSE for anything else, KF_ERANGE above @p max. */
static int kf__parse_u64(kf__field_t f, uint64_t max, uint64_t *v)
{
  uint64_t x = 0;
  if (f.n == 0 || f.n > 32)
    return f.n == 0 ? KF_EPARSE : KF_ERANGE;
  for (size_t i = 0; i < f.n; i++) {
    unsigned d = (unsigned char)f.s[i] - (unsigned)'0';
    if (d > 9)
      return KF_EPARSE;
    if (x > (UINT64_MAX - d) / 10)
      return KF_ERANGE;
    x = x * 10 + d;
  }
  if (x > max)
    return KF_ERANGE;
  *v = x;
  return 0;
}

static int kf__parse_u32(kf__field_t f, uint32_t max, uint32_t *v)
{
  uint64_t x;
  int rc = kf__parse_u64(f, max, &x);
  if (rc == 0)
    *v = (uint32_t)x;
  return rc;
}

/* Non-negative decimal with an optional fraction ("1500", "1500.25"). */
static int kf__parse_ns(kf__field_t f, double *v)
{
  double x = 0, scale = 1;
  int digits = 0, frac = 0;
  if (f.n == 0 || f.n > 40)
    return KF_EPARSE;
  for (size_t i = 0; i < f.n; i++) {
    char c = f.s[i];
    if (c == '.' && !frac && digits) {
      frac = 1;
      continue;
    }
    if (c < '0' || c > '9')
      return KF_EPARSE;
    digits++;
    if (frac)
      x += (c - '0') * (scale /= 10);
    else
      x = x * 10 + (c - '0');
  }
  if (f.s[f.n - 1] == '.')
    return KF_EPARSE;
  *v = x;
  return 0;
}

/* Names: non-empty, printable, no spaces (mangled C++ names qualify). */
static int kf__parse_name(kf__field_t f, char **out)
{
  if (f.n == 0 || f.n > 4096)
    return KF_EPARSE;
  for (size_t i = 0; i < f.n; i++)
    if ((unsigned char)f.s[i] <= ' ' || (unsigned char)f.s[i] == 0x7f)
      return KF_EPARSE;
  *out = malloc(f.n + 1);
  if (*out == NULL)
    return KF_ENOMEM;
  memcpy(*out, f.s, f.n);
  (*out)[f.n] = '\0';
  return 0;
}

static int kf__parse_ref(kf__field_t f, const kf__group_t *g, kf__param_ref_t *ref)
{
  const char *dot = memchr(f.s, '.', f.n);
  kf__field_t a, p;
  int rc;
  if (dot == NULL)
    return KF_EPARSE;
  a.s = f.s;
  a.n = (size_t)(dot - f.s);
  p.s = dot + 1;
  p.n = f.n - a.n - 1;
  if ((rc = kf__parse_u32(a, KF__MANIFEST_MAX_LAUNCHES, &ref->launch)) != 0 ||
      (rc = kf__parse_u32(p, KF__MANIFEST_MAX_PARAMS, &ref->param)) != 0)
    return rc == KF_ERANGE ? KF_EPARSE : rc;
  if (ref->launch >= g->nlaunches ||
      ref->param >= g->kernels[ref->launch].nparams + g->kernels[ref->launch].nfields)
    return KF_EPARSE;
  return 0;
}

/* Appends one element of @p size to the array whose pointer is at @p arrp
 * (any object pointer type) and has *n elements. */
static int kf__append(void *arrp, uint32_t *n, size_t size, const void *elem)
{
  void *arr;
  memcpy(&arr, arrp, sizeof arr);
  if (*n >= KF__MANIFEST_MAX_LINES)
    return KF_ERANGE;
  if ((*n & (*n - 1)) == 0) { /* grow at 0, 1, 2, 4, 8, ... */
    void *p = realloc(arr, (*n ? 2 * (size_t)*n : 1) * size);
    if (p == NULL)
      return KF_ENOMEM;
    arr = p;
    memcpy(arrp, &arr, sizeof arr);
  }
  memcpy((char *)arr + (size_t)*n * size, elem, size);
  (*n)++;
  return 0;
}

static void kf__group_clear(kf__group_t *g)
{
  if (g->kernels != NULL)
    for (uint32_t i = 0; i < g->nlaunches; i++)
      free(g->kernels[i].name);
  for (uint32_t i = 0; i < g->nfootprints; i++) {
    kf__expr_free(g->footprints[i].lo);
    kf__expr_free(g->footprints[i].hi);
  }
  for (uint32_t i = 0; i < g->nle; i++) {
    kf__expr_free(g->le[i].lhs);
    kf__expr_free(g->le[i].rhs);
  }
  free(g->le);
  free(g->disjoint_fp);
  free(g->lo_src);
  free(g->hi_src);
  free(g->name);
  free(g->plan_function);
  free(g->at_function);
  free(g->kernels);
  free(g->equal);
  free(g->disjoint);
  free(g->footprints);
  free(g->dead);
  free(g->gran_tpi);
  free(g->impl);
  free(g->align);
  free(g->fields);
  memset(g, 0, sizeof *g);
}

void kf__manifest_free(kf__manifest_t *m)
{
  if (m == NULL)
    return;
  for (uint32_t i = 0; i < m->ngroups; i++)
    kf__group_clear(&m->groups[i]);
  for (uint32_t i = 0; i < m->nmissed; i++) {
    free(m->missed[i].function);
    free(m->missed[i].reason);
  }
  free(m->groups);
  free(m->missed);
  free(m);
}

const kf__footprint_t *kf__group_footprint(const kf__group_t *g, kf__param_ref_t ref)
{
  for (uint32_t i = 0; i < g->nfootprints; i++)
    if (g->footprints[i].ref.launch == ref.launch && g->footprints[i].ref.param == ref.param)
      return &g->footprints[i];
  return NULL;
}

/* Fills the derived guard tables of @p g (manifest.h). @returns 0,
 * KF_EPARSE for a group whose lines contradict each other, or KF_ENOMEM. */
static int kf__group_derive(kf__group_t *g)
{
  size_t np = g->ndisjoint ? 2 * (size_t)g->ndisjoint : 1, nf = g->nfootprints ? g->nfootprints : 1;
  /* Riders run on their own: the fused kernel's launch, wiring, layout and
   * dead bits are the members'. */
  if (kf__group_rider(g, g->grid_launch) || kf__group_rider(g, g->block_launch))
    return KF_EPARSE;
  for (uint32_t i = 0; i < g->nequal; i++)
    if (kf__group_rider(g, g->equal[i].a.launch) || kf__group_rider(g, g->equal[i].b.launch))
      return KF_EPARSE;
  for (uint32_t i = 0; i < g->nle; i++)
    if (kf__group_rider(g, g->le[i].launch) || kf__group_rider(g, g->le[i].rhs_launch))
      return KF_EPARSE;
  for (uint32_t i = 0; i < g->ndead; i++)
    if (kf__group_rider(g, g->dead[i].ref.launch))
      return KF_EPARSE;
  for (uint32_t i = 0; i < g->nalign; i++)
    if (kf__group_rider(g, g->align[i].ref.launch))
      return KF_EPARSE;
  /* Under `shape gran` a rider has no granularity and every member has
   * one: the `rider` lines may come after the `shape` line. */
  for (uint32_t i = 0; g->shape_gran && i < g->nlaunches; i++)
    if ((g->gran_tpi[i] == 0) != kf__group_rider(g, i))
      return KF_EPARSE;
  /* An implementation replaces a member's kernel in a group across
   * granularities, at most once per launch, with the stage's threads per
   * instance. */
  for (uint32_t i = 0; i < g->nimpl; i++) {
    const kf__impl_t *m = &g->impl[i];
    if (!g->shape_gran || kf__group_rider(g, m->ref.launch) || g->gran_tpi[m->ref.launch] != m->to)
      return KF_EPARSE;
    for (uint32_t j = 0; j < i; j++)
      if (g->impl[j].ref.launch == m->ref.launch)
        return KF_EPARSE;
  }
  g->nparams_fused = 0;
  for (uint32_t i = 0; i < g->nlaunches; i++)
    if (!kf__group_rider(g, i))
      g->nparams_fused += g->kernels[i].nparams + g->kernels[i].nfields;
  if ((g->disjoint_fp = malloc(np * sizeof *g->disjoint_fp)) == NULL ||
      (g->lo_src = malloc(nf * sizeof *g->lo_src)) == NULL || (g->hi_src = malloc(nf * sizeof *g->hi_src)) == NULL)
    return KF_ENOMEM;
  for (uint32_t i = 0; i < g->ndisjoint; i++)
    for (int s = 0; s < 2; s++) {
      const kf__footprint_t *fp = kf__group_footprint(g, s ? g->disjoint[i].b : g->disjoint[i].a);
      g->disjoint_fp[2 * i + s] = fp ? (uint32_t)(fp - g->footprints) : KF__NO_FOOTPRINT;
    }
  for (uint32_t i = 0; i < g->nfootprints; i++) {
    const kf__footprint_t *fi = &g->footprints[i];
    g->lo_src[i] = g->hi_src[i] = i;
    for (uint32_t j = 0; j < i; j++) {
      const kf__footprint_t *fj = &g->footprints[j];
      if (fj->ref.launch != fi->ref.launch)
        continue;
      if (g->lo_src[i] == i && kf__expr_same(fj->lo, fi->lo))
        g->lo_src[i] = j;
      if (g->hi_src[i] == i && kf__expr_same(fj->hi, fi->hi))
        g->hi_src[i] = j;
    }
  }
  return 0;
}

/* "0-3,8-15": an `equal` line's byte ranges, each "<first>-<last>" with
 * first <= last <= KF__EQUAL_MAX_BYTE, ascending and apart (adjacent ranges
 * would be one), at most KF__EQUAL_MAX_RANGES of them. */
static int kf__parse_byte_ranges(kf__field_t f, kf__equal_t *eq)
{
  size_t i = 0;
  for (;;) {
    size_t j = i;
    uint32_t lo, hi;
    kf__field_t num;
    while (j < f.n && f.s[j] != '-')
      j++;
    num.s = f.s + i;
    num.n = j - i;
    if (j == f.n || kf__parse_u32(num, KF__EQUAL_MAX_BYTE, &lo) != 0)
      return KF_EPARSE;
    i = ++j;
    while (j < f.n && f.s[j] != ',')
      j++;
    num.s = f.s + i;
    num.n = j - i;
    if (kf__parse_u32(num, KF__EQUAL_MAX_BYTE, &hi) != 0 || hi < lo ||
        eq->nranges == KF__EQUAL_MAX_RANGES ||
        (eq->nranges > 0 && lo <= eq->ranges[eq->nranges - 1].last + 1))
      return KF_EPARSE;
    eq->ranges[eq->nranges].first = lo;
    eq->ranges[eq->nranges].last = hi;
    eq->nranges++;
    if (j == f.n)
      return 0;
    i = j + 1; /* past the ',', which another range must follow */
  }
}

/* "0,2-5,9": ranks below @p count, ascending ranges, into the bitset. */
static int kf__parse_ranks(kf__field_t f, uint32_t count, uint64_t *bits)
{
  size_t i = 0;
  int64_t prev = -1;
  while (i < f.n) {
    size_t j = i;
    uint32_t lo, hi;
    kf__field_t num;
    while (j < f.n && f.s[j] != ',' && f.s[j] != '-')
      j++;
    num.s = f.s + i;
    num.n = j - i;
    if (kf__parse_u32(num, count - 1, &lo) != 0)
      return KF_EPARSE;
    hi = lo;
    if (j < f.n && f.s[j] == '-') {
      i = ++j;
      while (j < f.n && f.s[j] != ',')
        j++;
      num.s = f.s + i;
      num.n = j - i;
      if (kf__parse_u32(num, count - 1, &hi) != 0 || hi < lo)
        return KF_EPARSE;
    }
    if ((int64_t)lo <= prev)
      return KF_EPARSE; /* ascending, no overlap */
    for (uint32_t r = lo; r <= hi; r++)
      bits[r / 64] |= UINT64_C(1) << (r % 64);
    prev = hi;
    if (j < f.n) { /* a ',' must be followed by another range */
      if (++j == f.n)
        return KF_EPARSE;
    }
    i = j;
  }
  return prev < 0 ? KF_EPARSE : 0;
}

int kf__group_in_plan(const kf__group_t *g, uint32_t rank)
{
  if (g->plan_count == 0)
    return 1;
  if (rank >= g->plan_count)
    rank = 0;
  return (g->plan_ranks[rank / 64] >> (rank % 64)) & 1;
}

enum kf__pstate { KF__P_HEADER, KF__P_TOP, KF__P_KERNELS, KF__P_BODY };

typedef struct kf__parser {
  enum kf__pstate state;
  kf__manifest_t *m;
  kf__group_t *g;       /* the group being read */
  uint32_t next_kernel; /* in KF__P_KERNELS */
  unsigned seen_launch : 1;
  unsigned seen_dynshmem : 1;
  unsigned seen_predict : 1;
  unsigned seen_plans : 1;
  unsigned seen_at : 1;
  unsigned seen_shape : 1;
  unsigned seen_stream : 1;
} kf__parser_t;

static int kf__parse_group_line(kf__parser_t *ps, const kf__field_t *f, int nf)
{
  kf__manifest_t *m = ps->m;
  kf__group_t *g;
  uint32_t n;
  int rc;
  if (nf != 3 || !kf__field_is(f[0], "group"))
    return KF_EPARSE;
  if ((rc = kf__parse_u32(f[2], KF__MANIFEST_MAX_LAUNCHES, &n)) != 0)
    return rc;
  if (n == 0)
    return KF_EPARSE;
  if (m->ngroups >= KF__MANIFEST_MAX_GROUPS)
    return KF_ERANGE;
  if ((m->ngroups & (m->ngroups - 1)) == 0) {
    kf__group_t *p = realloc(m->groups, (m->ngroups ? 2 * (size_t)m->ngroups : 1) * sizeof *p);
    if (p == NULL)
      return KF_ENOMEM;
    m->groups = p;
  }
  g = &m->groups[m->ngroups++];
  memset(g, 0, sizeof *g);
  g->predict_unfused_ns = g->predict_fused_ns = -1;
  if ((rc = kf__parse_name(f[1], &g->name)) != 0)
    return rc;
  g->kernels = calloc(n, sizeof *g->kernels);
  if (g->kernels == NULL)
    return KF_ENOMEM;
  g->nlaunches = n;
  ps->g = g;
  ps->next_kernel = 0;
  ps->seen_launch = ps->seen_dynshmem = ps->seen_predict = ps->seen_plans = ps->seen_at = 0;
  ps->seen_shape = ps->seen_stream = 0;
  ps->state = KF__P_KERNELS;
  return 0;
}

static int kf__parse_kernel_line(kf__parser_t *ps, const kf__field_t *f, int nf)
{
  kf__group_t *g = ps->g;
  kf__mkernel_t *k = &g->kernels[ps->next_kernel];
  uint32_t i;
  int rc;
  if (nf != 4 || !kf__field_is(f[0], "kernel"))
    return KF_EPARSE;
  if ((rc = kf__parse_u32(f[1], KF__MANIFEST_MAX_LAUNCHES, &i)) != 0)
    return rc == KF_ERANGE ? KF_EPARSE : rc;
  if (i != ps->next_kernel)
    return KF_EPARSE;
  if ((rc = kf__parse_u32(f[3], KF__MANIFEST_MAX_PARAMS, &k->nparams)) != 0)
    return rc;
  if ((rc = kf__parse_name(f[2], &k->name)) != 0)
    return rc;
  if (g->nparams_total + k->nparams > KF__MANIFEST_MAX_PARAMS * 4)
    return KF_ERANGE;
  g->nparams_total += k->nparams;
  if (++ps->next_kernel == g->nlaunches)
    ps->state = KF__P_BODY;
  return 0;
}

/* Compiles the two expressions of a footprint or `le` line. One that does
 * not compile leaves both NULL: the manifest stays usable and only the guards
 * that need the line fail. */
static void kf__compile_pair(kf__field_t a, kf__field_t b, kf__expr_t **x, kf__expr_t **y)
{
  (void)kf__expr_compile(a.s, a.n, x);
  (void)kf__expr_compile(b.s, b.n, y);
  if (*x == NULL || *y == NULL) {
    kf__expr_free(*x);
    kf__expr_free(*y);
    *x = *y = NULL;
  }
}

/* `shape gran <ipb> <t_0> ... <t_{n-1}>`, @p f from <ipb> on: instances
 * per block, then each launch's threads per instance, the widest times
 * ipb at most 1024 (one block). Which entries may be 0 is checked at
 * `end`, once every `rider` line has been read. */
static int kf__parse_gran(kf__group_t *g, const kf__field_t *f, int nf)
{
  int rc;
  int threads = nf >= 1 && (uint32_t)nf - 2 == g->nlaunches;
  if (nf < 1 || ((uint32_t)nf - 1 != g->nlaunches && !threads))
    return KF_EPARSE;
  if ((rc = kf__parse_u32(f[0], 1024, &g->gran_ipb)) != 0)
    return rc == KF_ERANGE ? KF_EPARSE : rc;
  if (g->gran_ipb == 0)
    return KF_EPARSE;
  if ((g->gran_tpi = calloc(g->nlaunches, sizeof *g->gran_tpi)) == NULL)
    return KF_ENOMEM;
  for (uint32_t i = 0; i < g->nlaunches; i++) {
    if ((rc = kf__parse_u32(f[1 + i], 1024, &g->gran_tpi[i])) != 0)
      return rc == KF_ERANGE ? KF_EPARSE : rc;
    if (g->gran_tpi[i] > g->gran_tpi_max)
      g->gran_tpi_max = g->gran_tpi[i];
  }
  /* The block: the widest stage's threads, or fewer over which the
   * stages loop (at most 1024 either way). */
  g->gran_threads = g->gran_tpi_max * g->gran_ipb;
  if (threads) {
    if ((rc = kf__parse_u32(f[nf - 1], 1024, &g->gran_threads)) != 0)
      return rc == KF_ERANGE ? KF_EPARSE : rc;
    if (g->gran_threads == 0 || g->gran_threads > g->gran_tpi_max * g->gran_ipb)
      return KF_EPARSE;
  } else if (g->gran_threads > 1024) {
    return KF_EPARSE;
  }
  g->shape_gran = 1;
  return 0;
}

static int kf__parse_body_line(kf__parser_t *ps, const kf__field_t *f, int nf)
{
  kf__group_t *g = ps->g;
  int rc;
  if (kf__field_is(f[0], "end") && nf == 1) {
    if (!ps->seen_launch)
      return KF_EPARSE;
    if ((rc = kf__group_derive(g)) != 0)
      return rc;
    ps->state = KF__P_TOP;
    ps->g = NULL;
    return 0;
  }
  if (kf__field_is(f[0], "shape") && nf >= 2 && kf__field_is(f[1], "gran")) {
    if (ps->seen_shape)
      return KF_EPARSE;
    ps->seen_shape = 1;
    return kf__parse_gran(g, f + 2, nf - 2);
  }
  if (kf__field_is(f[0], "shape") || kf__field_is(f[0], "stream")) {
    int shape = f[0].n == 5;
    int split = shape && nf == 2 && kf__field_is(f[1], "split");
    if (nf != 2 || !(kf__field_is(f[1], "same") || split) ||
        (shape ? ps->seen_shape : ps->seen_stream))
      return KF_EPARSE;
    if (split)
      ps->seen_shape = g->shape_split = 1;
    else if (shape)
      ps->seen_shape = g->shape_same = 1;
    else
      ps->seen_stream = g->stream_same = 1;
    return 0;
  }
  if (kf__field_is(f[0], "dynshmem")) {
    if (nf != 2 || ps->seen_dynshmem)
      return KF_EPARSE;
    ps->seen_dynshmem = g->has_dynshmem = 1;
    return kf__parse_u64(f[1], UINT32_MAX, &g->dynshmem);
  }
  if (kf__field_is(f[0], "rider")) {
    uint32_t i;
    int before = 0, other = 0, k = 2;
    if (k < nf && kf__field_is(f[k], "before"))
      before = 1, k++;
    if (k < nf && kf__field_is(f[k], "other"))
      other = 1, k++;
    if (nf < 2 || k != nf)
      return KF_EPARSE;
    if ((rc = kf__parse_u32(f[1], KF__MANIFEST_MAX_LAUNCHES, &i)) != 0)
      return rc == KF_ERANGE ? KF_EPARSE : rc;
    if (i == 0 || i + 1 >= g->nlaunches || kf__group_rider(g, i))
      return KF_EPARSE;
    g->riders[i / 64] |= UINT64_C(1) << (i % 64);
    if (before)
      g->riders_before[i / 64] |= UINT64_C(1) << (i % 64);
    if (other)
      g->riders_other[i / 64] |= UINT64_C(1) << (i % 64);
    g->nriders++;
    return 0;
  }
  if (kf__field_is(f[0], "part")) {
    if (nf != 4 || g->part_id != 0)
      return KF_EPARSE;
    if ((rc = kf__parse_u32(f[1], KF__MANIFEST_MAX_PARTS - 1, &g->part)) != 0 ||
        (rc = kf__parse_u32(f[2], KF__MANIFEST_MAX_LAUNCHES, &g->part_offset)) != 0 ||
        (rc = kf__parse_u32(f[3], UINT32_MAX, &g->part_id)) != 0)
      return rc == KF_ERANGE ? KF_EPARSE : rc;
    if (g->part_id == 0 || (g->part == 0) != (g->part_offset == 0))
      return KF_EPARSE;
    return 0;
  }
  if (kf__field_is(f[0], "launch")) {
    if (nf != 4 || ps->seen_launch)
      return KF_EPARSE;
    ps->seen_launch = 1;
    if ((rc = kf__parse_u32(f[1], KF__MANIFEST_MAX_LAUNCHES, &g->grid_launch)) != 0 ||
        (rc = kf__parse_u32(f[2], KF__MANIFEST_MAX_LAUNCHES, &g->block_launch)) != 0)
      return rc == KF_ERANGE ? KF_EPARSE : rc;
    if (g->grid_launch >= g->nlaunches || g->block_launch >= g->nlaunches)
      return KF_EPARSE;
    return kf__parse_u32(f[3], UINT32_MAX, &g->shared_bytes);
  }
  if (kf__field_is(f[0], "equal")) {
    kf__equal_t eq;
    memset(&eq, 0, sizeof eq);
    if (nf != 3 && nf != 4)
      return KF_EPARSE;
    if ((rc = kf__parse_ref(f[1], g, &eq.a)) != 0 || (rc = kf__parse_ref(f[2], g, &eq.b)) != 0)
      return rc;
    if (nf == 4 && (rc = kf__parse_byte_ranges(f[3], &eq)) != 0)
      return rc;
    return kf__append(&g->equal, &g->nequal, sizeof eq, &eq);
  }
  if (kf__field_is(f[0], "disjoint")) {
    kf__pair_t pair;
    if (nf != 3)
      return KF_EPARSE;
    if ((rc = kf__parse_ref(f[1], g, &pair.a)) != 0 || (rc = kf__parse_ref(f[2], g, &pair.b)) != 0)
      return rc;
    return kf__append(&g->disjoint, &g->ndisjoint, sizeof pair, &pair);
  }
  if (kf__field_is(f[0], "footprint")) {
    kf__footprint_t fp = {{0, 0}, 0, NULL, NULL};
    if (nf != 5)
      return KF_EPARSE;
    if ((rc = kf__parse_ref(f[1], g, &fp.ref)) != 0)
      return rc;
    if (kf__group_footprint(g, fp.ref) != NULL)
      return KF_EPARSE;
    if (kf__field_is(f[2], "r"))
      fp.mode = KF__FP_READ;
    else if (kf__field_is(f[2], "w"))
      fp.mode = KF__FP_WRITE;
    else if (kf__field_is(f[2], "rw"))
      fp.mode = KF__FP_READ | KF__FP_WRITE;
    else
      return KF_EPARSE;
    kf__compile_pair(f[3], f[4], &fp.lo, &fp.hi);
    rc = kf__append(&g->footprints, &g->nfootprints, sizeof fp, &fp);
    if (rc != 0) {
      kf__expr_free(fp.lo);
      kf__expr_free(fp.hi);
    }
    return rc;
  }
  if (kf__field_is(f[0], "le")) {
    kf__le_t le = {0, 0, NULL, NULL};
    if (nf != 4 && nf != 5)
      return KF_EPARSE;
    if ((rc = kf__parse_u32(f[1], KF__MANIFEST_MAX_LAUNCHES, &le.launch)) != 0)
      return rc == KF_ERANGE ? KF_EPARSE : rc;
    le.rhs_launch = le.launch;
    if (nf == 5 && (rc = kf__parse_u32(f[3], KF__MANIFEST_MAX_LAUNCHES, &le.rhs_launch)) != 0)
      return rc == KF_ERANGE ? KF_EPARSE : rc;
    if (le.launch >= g->nlaunches || le.rhs_launch >= g->nlaunches)
      return KF_EPARSE;
    kf__compile_pair(f[2], f[nf - 1], &le.lhs, &le.rhs);
    rc = kf__append(&g->le, &g->nle, sizeof le, &le);
    if (rc != 0) {
      kf__expr_free(le.lhs);
      kf__expr_free(le.rhs);
    }
    return rc;
  }
  if (kf__field_is(f[0], "field")) {
    kf__ptrfield_t x;
    kf__mkernel_t *k;
    if (nf != 4)
      return KF_EPARSE;
    /* <a>.<q>: the next parameter of launch a, the first after its
     * kernel's own, then one after the other. */
    {
      const char *dot = memchr(f[1].s, '.', f[1].n);
      kf__field_t a, q;
      if (dot == NULL)
        return KF_EPARSE;
      a.s = f[1].s, a.n = (size_t)(dot - f[1].s);
      q.s = dot + 1, q.n = f[1].n - a.n - 1;
      if (kf__parse_u32(a, KF__MANIFEST_MAX_LAUNCHES, &x.ref.launch) != 0 ||
          kf__parse_u32(q, KF__MANIFEST_MAX_PARAMS, &x.ref.param) != 0 || x.ref.launch >= g->nlaunches)
        return KF_EPARSE;
    }
    k = &g->kernels[x.ref.launch];
    if (x.ref.param != k->nparams + k->nfields || k->nfields >= KF__MANIFEST_MAX_FIELDS)
      return KF_EPARSE;
    if ((rc = kf__parse_u32(f[2], KF__MANIFEST_MAX_PARAMS, &x.param)) != 0 ||
        (rc = kf__parse_u32(f[3], KF__FIELD_MAX_BYTE, &x.byte)) != 0)
      return rc == KF_ERANGE ? KF_EPARSE : rc;
    if (x.param >= k->nparams)
      return KF_EPARSE;
    if ((rc = kf__append(&g->fields, &g->nfields, sizeof x, &x)) != 0)
      return rc;
    k->nfields++;
    g->nparams_total++;
    return 0;
  }
  if (kf__field_is(f[0], "align")) {
    kf__align_t a;
    if (nf != 3)
      return KF_EPARSE;
    if ((rc = kf__parse_ref(f[1], g, &a.ref)) != 0)
      return rc;
    if ((rc = kf__parse_u32(f[2], 4096, &a.bytes)) != 0)
      return rc == KF_ERANGE ? KF_EPARSE : rc;
    if (a.bytes < 2 || (a.bytes & (a.bytes - 1)) != 0)
      return KF_EPARSE;
    return kf__append(&g->align, &g->nalign, sizeof a, &a);
  }
  if (kf__field_is(f[0], "impl")) {
    kf__impl_t m;
    if (nf != 4)
      return KF_EPARSE;
    if ((rc = kf__parse_ref(f[1], g, &m.ref)) != 0)
      return rc;
    if ((rc = kf__parse_u32(f[2], 1024, &m.from)) != 0 || (rc = kf__parse_u32(f[3], 1024, &m.to)) != 0)
      return rc == KF_ERANGE ? KF_EPARSE : rc;
    if (m.from == 0 || m.to == 0)
      return KF_EPARSE;
    return kf__append(&g->impl, &g->nimpl, sizeof m, &m);
  }
  if (kf__field_is(f[0], "dead")) {
    kf__dead_t d = {0};
    if (nf == 4 && kf__field_is(f[3], "covered"))
      d.covered = 1;
    else if (nf != 3)
      return KF_EPARSE;
    if ((rc = kf__parse_u32(f[1], 63, &d.bit)) != 0)
      return rc == KF_ERANGE ? KF_EPARSE : rc;
    if ((rc = kf__parse_ref(f[2], g, &d.ref)) != 0)
      return rc;
    return kf__append(&g->dead, &g->ndead, sizeof d, &d);
  }
  if (kf__field_is(f[0], "predict")) {
    if (nf != 3 || ps->seen_predict)
      return KF_EPARSE;
    ps->seen_predict = 1;
    if ((rc = kf__parse_ns(f[1], &g->predict_unfused_ns)) != 0 ||
        (rc = kf__parse_ns(f[2], &g->predict_fused_ns)) != 0)
      return rc;
    return 0;
  }
  if (kf__field_is(f[0], "plans")) {
    if (nf != 6 || ps->seen_plans)
      return KF_EPARSE;
    ps->seen_plans = 1;
    if ((rc = kf__parse_u32(f[1], KF__MANIFEST_MAX_PLANS, &g->plan_count)) != 0 ||
        (rc = kf__parse_u32(f[2], KF__MANIFEST_MAX_LAUNCHES - 1, &g->plan_first)) != 0 ||
        (rc = kf__parse_u32(f[3], KF__MANIFEST_MAX_LAUNCHES, &g->plan_length)) != 0)
      return rc == KF_ERANGE ? KF_EPARSE : rc;
    if (g->plan_count < 2 || g->plan_first + g->nlaunches > g->plan_length)
      return KF_EPARSE;
    if ((rc = kf__parse_name(f[4], &g->plan_function)) != 0)
      return rc;
    return kf__parse_ranks(f[5], g->plan_count, g->plan_ranks);
  }
  if (kf__field_is(f[0], "at")) {
    kf__field_t line = f[3], col = f[3];
    size_t colon = 0;
    if (nf != 5 || ps->seen_at)
      return KF_EPARSE;
    ps->seen_at = 1;
    while (colon < f[3].n && f[3].s[colon] != ':')
      colon++;
    if (colon == f[3].n)
      return KF_EPARSE;
    line.n = colon;
    col.s += colon + 1;
    col.n -= colon + 1;
    if ((rc = kf__parse_u32(f[1], KF__MANIFEST_MAX_LAUNCHES - 1, &g->at_first)) != 0 ||
        (rc = kf__parse_u32(f[2], KF__MANIFEST_MAX_LAUNCHES, &g->at_length)) != 0 ||
        (rc = kf__parse_u32(line, UINT32_MAX, &g->at_line)) != 0 ||
        (rc = kf__parse_u32(col, UINT32_MAX, &g->at_col)) != 0)
      return rc == KF_ERANGE ? KF_EPARSE : rc;
    if (g->at_first + g->nlaunches > g->at_length)
      return KF_EPARSE;
    return kf__parse_name(f[4], &g->at_function);
  }
  return KF_EPARSE; /* unknown directive */
}

/* `missed <function> <line> <length> <first> <last> <reason>`, the reason
 * being the rest of the line (spaces included): @p s is the line after
 * "missed ". */
static int kf__parse_missed_line(kf__manifest_t *m, const char *s, size_t n)
{
  kf__field_t f[5];
  kf__missed_t x;
  size_t pos = 0;
  int rc;
  memset(&x, 0, sizeof x);
  for (int i = 0; i < 5; i++) {
    const char *sp = memchr(s + pos, ' ', n - pos);
    if (sp == NULL)
      return KF_EPARSE;
    f[i].s = s + pos;
    f[i].n = (size_t)(sp - f[i].s);
    pos += f[i].n + 1;
  }
  if ((rc = kf__parse_u32(f[1], UINT32_MAX, &x.line)) != 0 ||
      (rc = kf__parse_u32(f[2], KF__MANIFEST_MAX_LAUNCHES, &x.length)) != 0 ||
      (rc = kf__parse_u32(f[3], KF__MANIFEST_MAX_LAUNCHES, &x.first)) != 0 ||
      (rc = kf__parse_u32(f[4], KF__MANIFEST_MAX_LAUNCHES, &x.last)) != 0)
    return rc == KF_ERANGE ? KF_EPARSE : rc;
  if (x.first >= x.last || x.last >= x.length || n - pos == 0 || n - pos > KF__MANIFEST_MAX_REASON)
    return KF_EPARSE;
  for (size_t i = pos; i < n; i++)
    if ((unsigned char)s[i] < ' ' || (unsigned char)s[i] == 0x7f)
      return KF_EPARSE;
  if ((rc = kf__parse_name(f[0], &x.function)) != 0)
    return rc;
  if ((x.reason = malloc(n - pos + 1)) != NULL) {
    memcpy(x.reason, s + pos, n - pos);
    x.reason[n - pos] = '\0';
  }
  rc = x.reason == NULL ? KF_ENOMEM : kf__append(&m->missed, &m->nmissed, sizeof x, &x);
  if (rc != 0) {
    free(x.function);
    free(x.reason);
  }
  return rc;
}

static int kf__parse_line(kf__parser_t *ps, const char *s, size_t n)
{
  kf__field_t f[KF__MAX_FIELDS];
  int nf = 0;
  size_t start = 0;
  if (n == 0)
    return KF_EPARSE;
  if (ps->state == KF__P_TOP && n > 7 && memcmp(s, "missed ", 7) == 0)
    return kf__parse_missed_line(ps->m, s + 7, n - 7);
  for (size_t i = 0; i <= n; i++) {
    if (i == n || s[i] == ' ') {
      if (i == start || nf == KF__MAX_FIELDS)
        return KF_EPARSE; /* empty field (double or edge space) or too many */
      f[nf].s = s + start;
      f[nf].n = i - start;
      nf++;
      start = i + 1;
    }
  }
  switch (ps->state) {
  case KF__P_HEADER: {
    uint64_t v;
    int rc;
    if (nf != 2 || !kf__field_is(f[0], "kfuse-manifest"))
      return KF_EPARSE;
    rc = kf__parse_u64(f[1], UINT32_MAX, &v);
    if (rc == KF_EPARSE)
      return rc;
    if (rc != 0 || v != KF__MANIFEST_VERSION)
      return KF_EVERSION;
    ps->m->version = (uint32_t)v;
    ps->state = KF__P_TOP;
    return 0;
  }
  case KF__P_TOP: return kf__parse_group_line(ps, f, nf);
  case KF__P_KERNELS: return kf__parse_kernel_line(ps, f, nf);
  case KF__P_BODY: return kf__parse_body_line(ps, f, nf);
  }
  return KF_EPARSE;
}

/* Links the groups of each `part` set in the order they run: one part of
 * each index from 0 up, each part after the first starting inside the
 * spans of the parts before it, the launches two spans hold named alike,
 * and every launch of the set run by exactly one part (a member, or a
 * rider not marked `other`). @returns 0 or KF_EPARSE. */
static int kf__link_parts(kf__manifest_t *m)
{
  for (uint32_t i = 0; i < m->ngroups; i++) {
    kf__group_t *p[KF__MANIFEST_MAX_PARTS] = {NULL};
    kf__group_t *a = &m->groups[i];
    uint32_t nparts = 0, span = 0;
    uint8_t runs[KF__MANIFEST_MAX_LAUNCHES] = {0};
    if (a->part_id == 0 || a->part != 0)
      continue;
    for (uint32_t j = 0; j < m->ngroups; j++) {
      kf__group_t *h = &m->groups[j];
      if (h->part_id != a->part_id)
        continue;
      if (p[h->part] != NULL)
        return KF_EPARSE;
      p[h->part] = h;
      nparts = h->part + 1 > nparts ? h->part + 1 : nparts;
    }
    if (nparts < 2)
      return KF_EPARSE;
    for (uint32_t k = 0; k < nparts; k++) {
      const kf__group_t *g = p[k];
      if (g == NULL || (k > 0 && (g->part_offset <= p[k - 1]->part_offset || g->part_offset >= span)) ||
          g->part_offset + g->nlaunches > KF__MANIFEST_MAX_LAUNCHES)
        return KF_EPARSE;
      for (uint32_t q = 0; q < k; q++)
        for (uint32_t u = g->part_offset; u < p[q]->part_offset + p[q]->nlaunches && u - g->part_offset < g->nlaunches;
             u++) {
          const kf__mkernel_t *x = &p[q]->kernels[u - p[q]->part_offset], *y = &g->kernels[u - g->part_offset];
          if (strcmp(x->name, y->name) != 0 || x->nparams != y->nparams)
            return KF_EPARSE;
        }
      /* The parts run together, so under one plan or none. */
      if (g->plan_count != a->plan_count || memcmp(g->plan_ranks, a->plan_ranks, sizeof a->plan_ranks) != 0 ||
          (a->plan_count != 0 && (g->plan_first != a->plan_first + g->part_offset ||
                                  g->plan_length != a->plan_length ||
                                  strcmp(g->plan_function, a->plan_function) != 0)))
        return KF_EPARSE;
      for (uint32_t u = 0; u < g->nlaunches; u++)
        if (!kf__group_rider(g, u) || !kf__group_rider_other(g, u))
          runs[g->part_offset + u]++;
      if (g->part_offset + g->nlaunches > span)
        span = g->part_offset + g->nlaunches;
    }
    for (uint32_t u = 0; u < span; u++)
      if (runs[u] != 1)
        return KF_EPARSE;
    for (uint32_t k = 0; k < nparts; k++) {
      p[k]->part_next = k + 1 < nparts ? p[k + 1] : NULL;
      p[k]->part_count = nparts;
    }
    a->part_span = span;
  }
  for (uint32_t i = 0; i < m->ngroups; i++) {
    const kf__group_t *g = &m->groups[i];
    int others = 0;
    for (uint32_t k = 0; k < g->nlaunches && !others; k++)
      others = kf__group_rider_other(g, k);
    if ((g->part_id != 0 && g->part_count == 0) || (g->part_id == 0 && others))
      return KF_EPARSE;
  }
  return 0;
}

int kf__manifest_parse(const char *text, size_t len, kf__manifest_t **out, unsigned *err_line)
{
  kf__parser_t ps;
  const char *nul;
  size_t pos = 0;
  unsigned line = 0;
  int rc = 0;
  *out = NULL;
  if (err_line != NULL)
    *err_line = 0;
  if (text == NULL)
    return KF_EINVAL;
  if ((nul = memchr(text, '\0', len)) != NULL)
    len = (size_t)(nul - text);
  if (len > KF__MANIFEST_MAX_BYTES)
    return KF_ERANGE;
  memset(&ps, 0, sizeof ps);
  ps.m = calloc(1, sizeof *ps.m);
  if (ps.m == NULL)
    return KF_ENOMEM;
  while (pos < len) {
    const char *s = text + pos;
    const char *nl = memchr(s, '\n', len - pos);
    size_t n = nl != NULL ? (size_t)(nl - s) : len - pos;
    line++;
    if ((rc = kf__parse_line(&ps, s, n)) != 0)
      break;
    pos += n + (nl != NULL);
  }
  if (rc == 0 && ps.state != KF__P_TOP) {
    line++; /* the missing header or `end` belongs after the last line */
    rc = KF_EPARSE;
  }
  if (rc == 0 && (rc = kf__link_parts(ps.m)) != 0)
    line++; /* a set is not whole: the manifest as a whole is wrong */
  if (rc != 0) {
    if (err_line != NULL)
      *err_line = line;
    kf__manifest_free(ps.m);
    return rc;
  }
  *out = ps.m;
  return 0;
}
