/* Guards of a fused group: launch shape, stream, shared memory, equal
 * arguments and disjoint footprints, checked on every call. */
#include "runtime/guard.h"

#include <stdlib.h>
#include <string.h>

#include "runtime/capture.h"
#include "runtime/cuda_api.h"
#include "runtime/scratch.h"

__extension__ typedef __int128 kf__i128;

int kf__arg_pointer(const kf_launch_t *l, uint32_t p, uint64_t *ptr)
{
  if (p >= l->nargs || l->args == NULL || l->arg_sizes == NULL || l->args[p] == NULL ||
      l->arg_sizes[p] != sizeof *ptr)
    return KF_EINVAL;
  memcpy(ptr, l->args[p], sizeof *ptr);
  return 0;
}

static int kf__alloc_range(uint64_t ptr, uint64_t *base, uint64_t *size)
{
  __typeof__(&cuMemGetAddressRange) range = KF__CU(cuMemGetAddressRange);
  CUdeviceptr b = 0;
  size_t s = 0;
  CUresult res;
  int mode;
  if (range == NULL || ptr == 0)
    return KF_ECUDA;
  /* A query, not stream work; relaxed all the same, so that a guard checked
   * during a capture in global or thread-local mode can never break it. */
  mode = kf__capture_relax();
  res = range(&b, &s, (CUdeviceptr)ptr);
  kf__capture_restore(mode);
  if (res != CUDA_SUCCESS)
    return KF_ECUDA;
  *base = (uint64_t)b;
  *size = (uint64_t)s;
  return 0;
}

/* The footprint range, or KF_ENOENT when the manifest has none. */
static int kf__footprint_range(const kf__group_t *g, const kf_launch_t *l, kf__param_ref_t ref,
                               uint64_t ptr, uint64_t *lo, uint64_t *hi)
{
  const kf__footprint_t *fp = kf__group_footprint(g, ref);
  int64_t a, b;
  kf__i128 x, y;
  if (fp == NULL)
    return KF_ENOENT;
  if (fp->lo == NULL || kf__expr_eval(fp->lo, &l[ref.launch], &a) != 0 ||
      kf__expr_eval(fp->hi, &l[ref.launch], &b) != 0)
    return KF_EINVAL;
  if (b <= a) { /* touches nothing */
    *lo = *hi = ptr;
    return 0;
  }
  x = (kf__i128)ptr + a;
  y = (kf__i128)ptr + b;
  if (x < 0 || y > (kf__i128)UINT64_MAX)
    return KF_EINVAL;
  *lo = (uint64_t)x;
  *hi = (uint64_t)y;
  return 0;
}

kf_fallback_t kf__impl_view(const kf__group_t *g, const kf_launch_t *l, kf_launch_t **view)
{
  size_t nargs = 0, bytes;
  kf_launch_t *v;
  void **args;
  int64_t *vals;
  *view = NULL;
  if (g->nimpl == 0)
    return KF_FALLBACK_COUNT;
  for (uint32_t i = 0; i < g->nimpl; i++)
    nargs += l[g->impl[i].ref.launch].nargs;
  bytes = g->nlaunches * sizeof *v + nargs * sizeof *args + g->nimpl * sizeof *vals;
  if ((v = malloc(bytes)) == NULL)
    return KF_FALLBACK_LAUNCH;
  memcpy(v, l, g->nlaunches * sizeof *v);
  args = (void **)(v + g->nlaunches);
  vals = (int64_t *)(args + nargs);
  for (uint32_t i = 0; i < g->nimpl; i++) {
    const kf__impl_t *m = &g->impl[i];
    kf_launch_t *a = &v[m->ref.launch];
    uint32_t p = m->ref.param, size = p < a->nargs && a->arg_sizes ? a->arg_sizes[p] : 0;
    uint64_t threads = (uint64_t)a->grid[0] * a->block[0], grid;
    int64_t s;
    kf_fallback_t why = KF_FALLBACK_COUNT;
    if (a->grid[1] != 1 || a->grid[2] != 1 || a->block[1] != 1 || a->block[2] != 1)
      why = KF_FALLBACK_SHAPE;
    else if (size == 4) {
      int32_t x;
      memcpy(&x, a->args[p], 4);
      s = x;
    } else if (size == 8) {
      memcpy(&s, a->args[p], 8);
    } else {
      why = KF_FALLBACK_LAYOUT;
    }
    /* The original launch's threads cover whole instances, all of them:
     * then the implementation, launched over as many instances, does the
     * same work. */
    if (why == KF_FALLBACK_COUNT && (s < 0 || (uint64_t)s > threads || s % m->from != 0))
      why = KF_FALLBACK_LAYOUT;
    if (why == KF_FALLBACK_COUNT) {
      s = s / m->from * m->to; /* below 2^42 * 1024 */
      grid = ((uint64_t)a->grid[0] * m->to + m->from - 1) / m->from;
      if ((size == 4 && s > INT32_MAX) || grid > UINT32_MAX || grid == 0)
        why = KF_FALLBACK_LAYOUT;
    }
    if (why != KF_FALLBACK_COUNT) {
      free(v);
      return why;
    }
    memcpy(args, a->args, a->nargs * sizeof *args);
    if (size == 4) {
      int32_t x = (int32_t)s;
      memcpy(&vals[i], &x, 4);
    } else {
      vals[i] = s;
    }
    args[p] = &vals[i];
    a->args = args;
    a->grid[0] = (uint32_t)grid;
    args += a->nargs;
  }
  *view = v;
  return KF_FALLBACK_COUNT;
}

int kf__param_range(const kf__group_t *g, const kf_launch_t *l, kf__param_ref_t ref,
                    uint64_t *lo, uint64_t *hi)
{
  uint64_t ptr, base, size;
  int rc;
  kf_launch_t *view;
  if (kf__arg_pointer(&l[ref.launch], ref.param, &ptr) != 0)
    return KF_EINVAL;
  if (kf__impl_view(g, l, &view) != KF_FALLBACK_COUNT)
    rc = KF_ENOENT; /* the guards fail too: the whole allocation */
  else
    rc = kf__footprint_range(g, view ? view : l, ref, ptr, lo, hi);
  free(view);
  if (rc != KF_ENOENT)
    return rc;
  if ((rc = kf__alloc_range(ptr, &base, &size)) != 0)
    return rc;
  *lo = base;
  *hi = base + size;
  return 0;
}

int kf__param_bytes(const kf__group_t *g, const kf_launch_t *l, kf__param_ref_t ref,
                    uint64_t *lo, uint64_t *hi)
{
  uint64_t ptr, base, size;
  int rc = kf__param_range(g, l, ref, lo, hi);
  if (rc != 0)
    return rc;
  if (kf__arg_pointer(&l[ref.launch], ref.param, &ptr) != 0 || kf__alloc_range(ptr, &base, &size) != 0)
    return KF_ECUDA;
  if (*lo < base)
    *lo = base;
  if (*hi > base + size)
    *hi = base + size;
  return 0;
}

static int kf__ranges_overlap(uint64_t alo, uint64_t ahi, uint64_t blo, uint64_t bhi)
{
  return alo < ahi && blo < bhi && alo < bhi && blo < ahi;
}

/* Nonzero when the two footprints provably do not overlap. Footprint
 * arithmetic first (no driver call); only when that cannot decide, the
 * allocations: pointers in different allocations never overlap. */
static int kf__disjoint(const kf__group_t *g, const kf_launch_t *l, kf__pair_t pair)
{
  kf__param_ref_t refs[2] = {pair.a, pair.b};
  uint64_t ptr[2], lo[2], hi[2], base[2], size[2];
  int have[2], alloc_ok[2];
  for (int i = 0; i < 2; i++) {
    int rc;
    if (kf__arg_pointer(&l[refs[i].launch], refs[i].param, &ptr[i]) != 0)
      return 0;
    rc = kf__footprint_range(g, l, refs[i], ptr[i], &lo[i], &hi[i]);
    if (rc != 0 && rc != KF_ENOENT)
      return 0; /* the expression does not evaluate: fail safe */
    have[i] = rc == 0;
  }
  if (have[0] && have[1] && !kf__ranges_overlap(lo[0], hi[0], lo[1], hi[1]))
    return 1;
  for (int i = 0; i < 2; i++)
    alloc_ok[i] = kf__alloc_range(ptr[i], &base[i], &size[i]) == 0;
  if (alloc_ok[0] && alloc_ok[1] && base[0] != base[1])
    return 1;
  for (int i = 0; i < 2; i++) {
    if (have[i])
      continue;
    if (!alloc_ok[i])
      return 0;
    lo[i] = base[i];
    hi[i] = base[i] + size[i];
  }
  return !kf__ranges_overlap(lo[0], hi[0], lo[1], hi[1]);
}

/* Nonzero when @p ref is, as far as we can tell, a pointer parameter: the
 * manifest gives it a footprint, a dead bit or a disjointness guard, or its
 * value is a device address. Only used to name a failed `equal` guard. */
static int kf__param_is_pointer(const kf__group_t *g, const kf_launch_t *l, kf__param_ref_t ref)
{
  uint64_t ptr, base, size;
#define KF__SAME_REF(x) ((x).launch == ref.launch && (x).param == ref.param)
  if (kf__group_footprint(g, ref) != NULL)
    return 1;
  for (uint32_t i = 0; i < g->ndead; i++)
    if (KF__SAME_REF(g->dead[i].ref))
      return 1;
  for (uint32_t i = 0; i < g->ndisjoint; i++)
    if (KF__SAME_REF(g->disjoint[i].a) || KF__SAME_REF(g->disjoint[i].b))
      return 1;
#undef KF__SAME_REF
  return kf__arg_pointer(&l[ref.launch], ref.param, &ptr) == 0 && kf__alloc_range(ptr, &base, &size) == 0;
}

/* The two arguments of an `equal` line have the same size and the same
 * bytes: all of them, or those of the line's ranges (a struct's fields). */
static int kf__args_equal(const kf_launch_t *l, const kf__equal_t *eq)
{
  const kf_launch_t *a = &l[eq->a.launch], *b = &l[eq->b.launch];
  uint32_t p = eq->a.param, q = eq->b.param;
  if (a->args == NULL || b->args == NULL || a->arg_sizes == NULL || b->arg_sizes == NULL ||
      p >= a->nargs || q >= b->nargs || a->args[p] == NULL || b->args[q] == NULL ||
      a->arg_sizes[p] != b->arg_sizes[q])
    return 0;
  if (eq->nranges == 0)
    return memcmp(a->args[p], b->args[q], a->arg_sizes[p]) == 0;
  for (uint32_t r = 0; r < eq->nranges; r++) {
    size_t first = eq->ranges[r].first, n = (size_t)eq->ranges[r].last - first + 1;
    if (eq->ranges[r].last >= a->arg_sizes[p] ||
        memcmp((const char *)a->args[p] + first, (const char *)b->args[q] + first, n) != 0)
      return 0;
  }
  return 1;
}

/* Footprints evaluated once per call for up to this many footprint lines;
 * groups with more take the per-pair path. */
#define KF__STACK_FOOTPRINTS 256

/* Every `disjoint` line of @p g: nonzero when all hold. Each footprint is
 * evaluated once (once per distinct expression and launch), then each pair
 * compares two precomputed ranges. A pair the footprints cannot decide (one
 * side has no footprint, does not evaluate, or the ranges overlap) goes to
 * kf__disjoint(), which decides it exactly as before, allocations included. */
static int kf__disjoint_all(const kf__group_t *g, const kf_launch_t *l, int *pure)
{
  uint64_t lo[KF__STACK_FOOTPRINTS + 1], hi[KF__STACK_FOOTPRINTS + 1];
  int64_t vlo[KF__STACK_FOOTPRINTS], vhi[KF__STACK_FOOTPRINTS];
  unsigned char ok[KF__STACK_FOOTPRINTS + 1], vok[KF__STACK_FOOTPRINTS];
  uint32_t nf = g->nfootprints;
  if (g->disjoint_fp == NULL || nf > KF__STACK_FOOTPRINTS) {
    *pure = 0;
    for (uint32_t i = 0; i < g->ndisjoint; i++)
      if (!kf__disjoint(g, l, g->disjoint[i]))
        return 0;
    return 1;
  }
  lo[nf] = hi[nf] = 0;
  ok[nf] = 0;
  for (uint32_t i = 0; i < nf; i++) {
    const kf__footprint_t *fp = &g->footprints[i];
    const kf_launch_t *fl = &l[fp->ref.launch];
    uint32_t ls = g->lo_src[i], hs = g->hi_src[i];
    uint64_t ptr;
    kf__i128 x, y;
    ok[i] = 0;
    /* vok: lo and hi evaluated; read by later footprints sharing them. */
    vok[i] = fp->lo != NULL && (ls == i ? kf__expr_eval(fp->lo, fl, &vlo[i]) == 0 : (vlo[i] = vlo[ls], vok[ls])) &&
             (hs == i ? kf__expr_eval(fp->hi, fl, &vhi[i]) == 0 : (vhi[i] = vhi[hs], vok[hs]));
    if (!vok[i] || kf__arg_pointer(fl, fp->ref.param, &ptr) != 0)
      continue;
    if (vhi[i] <= vlo[i]) { /* touches nothing */
      lo[i] = hi[i] = ptr;
      ok[i] = 1;
      continue;
    }
    x = (kf__i128)ptr + vlo[i];
    y = (kf__i128)ptr + vhi[i];
    if (x < 0 || y > (kf__i128)UINT64_MAX)
      continue;
    lo[i] = (uint64_t)x;
    hi[i] = (uint64_t)y;
    ok[i] = 1;
  }
  for (uint32_t k = 0; k < g->ndisjoint; k++) {
    uint32_t a = g->disjoint_fp[2 * k], b = g->disjoint_fp[2 * k + 1];
    /* Index nf is the "no footprint" slot: never ok. */
    a = a < nf ? a : nf;
    b = b < nf ? b : nf;
    if (ok[a] && ok[b] && !kf__ranges_overlap(lo[a], hi[a], lo[b], hi[b]))
      continue;
    *pure = 0;
    if (!kf__disjoint(g, l, g->disjoint[k]))
      return 0;
  }
  return 1;
}

uint32_t kf__split_grid_x(const kf__group_t *g, const kf_launch_t *l)
{
  uint64_t sum = 0;
  for (uint32_t i = 0; i < g->nlaunches; i++) {
    if (kf__group_rider(g, i))
      continue;
    /* An empty grid makes its own launch fail; in the sum it would vanish. */
    if (l[i].grid[0] == 0)
      return 0;
    sum += l[i].grid[0];
  }
  return sum <= INT32_MAX ? (uint32_t)sum : 0;
}

uint32_t kf__gran_grid_x(const kf__group_t *g, const kf_launch_t *l)
{
  uint64_t most = 0;
  if (!g->shape_gran || g->gran_tpi == NULL)
    return 0;
  for (uint32_t i = 0; i < g->nlaunches; i++) {
    uint64_t threads, per_block, blocks;
    if (kf__group_rider(g, i))
      continue;
    /* The stages index one line of instances: a launch in more than one
     * dimension, or an empty one (which fails unfused), has no place in it. */
    if (l[i].grid[0] == 0 || l[i].grid[1] != 1 || l[i].grid[2] != 1 || l[i].block[0] == 0 ||
        l[i].block[1] != 1 || l[i].block[2] != 1 || g->gran_tpi[i] == 0)
      return 0;
    /* Below 2^64: each factor is below 2^32. */
    threads = (uint64_t)l[i].grid[0] * l[i].block[0];
    per_block = (uint64_t)g->gran_tpi[i] * g->gran_ipb;
    blocks = threads / per_block + (threads % per_block != 0);
    if (blocks > most)
      most = blocks;
  }
  /* Each stage's global index, blockIdx.x * (t_i * ipb) + threadIdx.x, is
   * an int in the kernels: the fused grid must keep it below 2^31 for the
   * stage with the most threads, as the originals' grids kept theirs. */
  if (most < 1 || most * g->gran_tpi_max * g->gran_ipb > INT32_MAX)
    return 0;
  return (uint32_t)most;
}

kf_fallback_t kf__guards_check(const kf__group_t *g, const kf_launch_t *l)
{
  int pure;
  return kf__guards_check_pure(g, l, &pure);
}

static kf_fallback_t kf__guards_check_view(const kf__group_t *g, const kf_launch_t *l, int *pure);

kf_fallback_t kf__guards_check_pure(const kf__group_t *g, const kf_launch_t *l, int *pure)
{
  kf_launch_t *view;
  kf_fallback_t why = kf__impl_view(g, l, &view);
  *pure = 1;
  if (why != KF_FALLBACK_COUNT)
    return why;
  why = kf__guards_check_view(g, view ? view : l, pure);
  free(view);
  return why;
}

static kf_fallback_t kf__guards_check_view(const kf__group_t *g, const kf_launch_t *l, int *pure)
{
  /* Launch 0 is never a rider; riders keep their own shape. */
  for (uint32_t i = 1; i < g->nlaunches; i++) {
    if (kf__group_rider(g, i))
      continue;
    if (g->shape_same && (memcmp(l[i].grid, l[0].grid, sizeof l[0].grid) != 0 ||
                          memcmp(l[i].block, l[0].block, sizeof l[0].block) != 0))
      return KF_FALLBACK_SHAPE;
    if (g->shape_split && (l[i].grid[1] != l[0].grid[1] || l[i].grid[2] != l[0].grid[2] ||
                           memcmp(l[i].block, l[0].block, sizeof l[0].block) != 0))
      return KF_FALLBACK_SHAPE;
  }
  if (g->shape_split && kf__split_grid_x(g, l) == 0)
    return KF_FALLBACK_SHAPE;
  if (g->shape_gran && kf__gran_grid_x(g, l) == 0)
    return KF_FALLBACK_SHAPE;
  for (uint32_t i = 1; i < g->nlaunches; i++)
    if (l[i].stream != l[0].stream)
      return KF_FALLBACK_STREAM;
  if (g->has_dynshmem)
    for (uint32_t i = 0; i < g->nlaunches; i++)
      if (!kf__group_rider(g, i) && l[i].shmem != g->dynshmem)
        return KF_FALLBACK_SHMEM;
  for (uint32_t i = 0; i < g->nle; i++) {
    const kf__le_t *le = &g->le[i];
    int64_t a, b;
    if (le->lhs == NULL || kf__expr_eval(le->lhs, &l[le->launch], &a) != 0 ||
        kf__expr_eval(le->rhs, &l[le->rhs_launch], &b) != 0 || a > b)
      return KF_FALLBACK_LAYOUT;
  }
  for (uint32_t i = 0; i < g->nalign; i++) {
    uint64_t ptr;
    const kf__align_t *a = &g->align[i];
    if (kf__arg_pointer(&l[a->ref.launch], a->ref.param, &ptr) != 0 || ptr % a->bytes != 0)
      return KF_FALLBACK_LAYOUT;
  }
  for (uint32_t i = 0; i < g->nequal; i++)
    if (!kf__args_equal(l, &g->equal[i]))
      return kf__param_is_pointer(g, l, g->equal[i].a) || kf__param_is_pointer(g, l, g->equal[i].b)
                 ? KF_FALLBACK_WIRING
                 : KF_FALLBACK_SCALAR;
  if (g->ndisjoint != 0 && !kf__disjoint_all(g, l, pure))
    return KF_FALLBACK_OVERLAP;
  return KF_FALLBACK_COUNT;
}

/* Nonzero when @p ptr is an argument of one of launches [from, to). */
static int kf__passed_to(const kf_site_t *site, const kf_launch_t *l, uint32_t from, uint32_t to,
                         uint64_t ptr)
{
  uint64_t other;
  for (uint32_t j = from; j < to; j++)
    for (uint32_t p = 0; p < l[j].nargs; p++)
      if (kf__arg_pointer(&l[j], p, &other) == 0 && other == ptr)
        return 1;
  /* The buffers the launches pass in fields of struct arguments. */
  for (uint32_t k = 0; site != NULL && site->fields != NULL && k < site->nfields; k++) {
    const kf_field_ptr_t *f = &site->fields[k];
    const kf_launch_t *a = &l[f->launch];
    if (f->launch < from || f->launch >= to)
      continue;
    if (f->param >= a->nargs || a->args == NULL || a->arg_sizes == NULL || a->args[f->param] == NULL ||
        (uint64_t)f->byte + sizeof other > a->arg_sizes[f->param])
      return 1; /* not readable: assume it is this buffer */
    memcpy(&other, (const char *)a->args[f->param] + f->byte, sizeof other);
    if (other == ptr)
      return 1;
  }
  return 0;
}

/* Nonzero when @p ptr is an argument of a rider of @p g (launches @p l,
 * from @p first of the call's): it runs after the fused kernel, so it would
 * read what the mask skipped. */
static int kf__passed_to_rider(const kf__group_t *g, const kf_site_t *site, const kf_launch_t *all,
                               uint32_t first, uint64_t ptr)
{
  for (uint32_t i = 1; g->nriders != 0 && i + 1 < g->nlaunches; i++)
    if (kf__group_rider(g, i) && kf__passed_to(site, all, first + i, first + i + 1, ptr))
      return 1;
  return 0;
}

/* Nonzero when everything launch ref of @p l may write through its pointer
 * (its footprint, else its allocation) lies in a range kf_rt_scratch()
 * declared. */
static int kf__in_declared_range(const kf__group_t *g, const kf_launch_t *l, kf__param_ref_t ref)
{
  uint64_t lo, hi;
  return kf__param_range(g, l, ref, &lo, &hi) == 0 && kf__scratch_find(lo, hi, NULL, NULL, NULL, 0);
}

uint64_t kf__dead_mask(const kf__group_t *g, const kf_launch_t *all, uint32_t n,
                       uint32_t first)
{
  return kf__dead_mask_declared(g, all, n, first, NULL);
}

uint64_t kf__dead_mask_declared(const kf__group_t *g, const kf_launch_t *all, uint32_t n,
                                uint32_t first, uint64_t *declared)
{
  return kf__dead_mask_site(g, NULL, all, n, first, declared);
}

uint64_t kf__dead_mask_site(const kf__group_t *g, const kf_site_t *site, const kf_launch_t *all,
                            uint32_t n, uint32_t first, uint64_t *declared)
{
  const kf_launch_t *l = &all[first];
  uint32_t after = first + g->nlaunches;
  uint64_t mask = 0, by_range = 0;
  int ranges = kf__scratch_any();
  for (uint32_t i = 0; i < g->ndead; i++) {
    const kf__dead_t *d = &g->dead[i];
    const kf_launch_t *a = &l[d->ref.launch];
    uint64_t ptr;
    int dead, rerun, range = 0;
    if (d->ref.param >= 64 || kf__arg_pointer(a, d->ref.param, &ptr) != 0)
      continue;
    dead = (int)(a->dead >> d->ref.param & 1);
    rerun = d->ref.param < 32 && (a->rerun >> d->ref.param & 1) && d->covered &&
            !kf__passed_to(site, all, 0, first, ptr);
    /* The registry is asked only when nothing else makes the buffer dead,
     * and only when it is not empty: the usual call never locks. */
    if (!dead && !rerun && ranges)
      range = kf__in_declared_range(g, l, d->ref);
    if ((dead || rerun || range) && !kf__passed_to(site, all, after, n, ptr) &&
        !kf__passed_to_rider(g, site, all, first, ptr)) {
      mask |= UINT64_C(1) << d->bit;
      if (range)
        by_range |= UINT64_C(1) << d->bit;
    }
  }
  if (declared != NULL)
    *declared = by_range;
  return mask;
}
