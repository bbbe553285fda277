/* KFUSE_VERIFY, a debugging mode: each fused group runs unfused and fused
 * from the same bytes, the written buffers are compared bit for bit, and
 * the unfused results are what the program keeps. It synchronises the
 * stream and allocates scratch memory on every call. */
#include "runtime/verify.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "runtime/cuda_api.h"
#include "runtime/guard.h"
#include "runtime/launch.h"
#include "runtime/log.h"

/* One buffer the group may write: [lo, hi) of device memory, named by the
 * first parameter found writing it. */
typedef struct kf__written {
  kf__param_ref_t ref;
  uint64_t ptr; /* the parameter's value, for the reported offset */
  uint64_t lo, hi;
  void *snapshot;       /* device scratch: the bytes before the group */
  unsigned char *unfused; /* host: the bytes after the original launches */
  unsigned char *fused;   /* host: the bytes after the fused kernel */
} kf__written_t;

typedef struct kf__verify {
  cudaStream_t stream;
  uint32_t n;
  kf__written_t *w;
} kf__verify_t;

static int kf__copy(void *dst, const void *src, uint64_t bytes, enum cudaMemcpyKind kind, cudaStream_t s)
{
  __typeof__(&cudaMemcpyAsync) copy = KF__CU(cudaMemcpyAsync);
  __typeof__(&cudaStreamSynchronize) sync = KF__CU(cudaStreamSynchronize);
  if (copy == NULL || sync == NULL || copy(dst, src, (size_t)bytes, kind, s) != cudaSuccess ||
      sync(s) != cudaSuccess)
    return KF_ECUDA;
  return 0;
}

static void kf__verify_free(kf__verify_t *v)
{
  __typeof__(&cudaFree) rt_free = KF__CU(cudaFree);
  for (uint32_t i = 0; i < v->n; i++) {
    if (v->w[i].snapshot != NULL && rt_free != NULL)
      (void)rt_free(v->w[i].snapshot);
    free(v->w[i].unfused);
    free(v->w[i].fused);
  }
  free(v->w);
}

/* Nonzero when the manifest names @p ref as written, or says nothing about
 * it and its value is a device pointer (then it may be written). */
static int kf__maybe_written(const kf__group_t *g, kf__param_ref_t ref)
{
  const kf__footprint_t *fp = kf__group_footprint(g, ref);
  return fp == NULL || (fp->mode & KF__FP_WRITE) != 0;
}

/* Collects the written ranges and snapshots them. */
static int kf__verify_prepare(kf__verify_t *v, const kf__group_t *g, const kf_launch_t *l)
{
  __typeof__(&cudaMalloc) rt_malloc = KF__CU(cudaMalloc);
  v->stream = (cudaStream_t)l[0].stream;
  v->n = 0;
  if ((v->w = calloc(g->nparams_total ? g->nparams_total : 1, sizeof *v->w)) == NULL)
    return KF_ENOMEM;
  for (uint32_t a = 0; a < g->nlaunches; a++)
    for (uint32_t p = 0; p < l[a].nargs; p++) {
      kf__param_ref_t ref = {a, p};
      kf__written_t *w = &v->w[v->n];
      int dup = 0;
      if (!kf__maybe_written(g, ref) || kf__arg_pointer(&l[a], p, &w->ptr) != 0 ||
          kf__param_bytes(g, l, ref, &w->lo, &w->hi) != 0 || w->lo >= w->hi)
        continue;
      for (uint32_t i = 0; i < v->n && !dup; i++)
        dup = v->w[i].lo == w->lo && v->w[i].hi == w->hi;
      if (dup)
        continue;
      w->ref = ref;
      v->n++;
    }
  if (rt_malloc == NULL)
    return KF_ECUDA;
  for (uint32_t i = 0; i < v->n; i++) {
    kf__written_t *w = &v->w[i];
    uint64_t bytes = w->hi - w->lo;
    if ((w->unfused = malloc(bytes)) == NULL || (w->fused = malloc(bytes)) == NULL)
      return KF_ENOMEM;
    if (rt_malloc(&w->snapshot, (size_t)bytes) != cudaSuccess) {
      w->snapshot = NULL;
      return KF_ECUDA;
    }
    if (kf__copy(w->snapshot, (void *)(uintptr_t)w->lo, bytes, cudaMemcpyDeviceToDevice, v->stream) != 0)
      return KF_ECUDA;
  }
  return 0;
}

static int kf__verify_save(kf__verify_t *v, int fused)
{
  __typeof__(&cudaStreamSynchronize) sync = KF__CU(cudaStreamSynchronize);
  if (sync == NULL || sync(v->stream) != cudaSuccess)
    return KF_ECUDA;
  for (uint32_t i = 0; i < v->n; i++) {
    kf__written_t *w = &v->w[i];
    if (kf__copy(fused ? w->fused : w->unfused, (void *)(uintptr_t)w->lo, w->hi - w->lo,
                 cudaMemcpyDeviceToHost, v->stream) != 0)
      return KF_ECUDA;
  }
  return 0;
}

static int kf__verify_restore(kf__verify_t *v, int unfused)
{
  for (uint32_t i = 0; i < v->n; i++) {
    kf__written_t *w = &v->w[i];
    int rc = unfused ? kf__copy((void *)(uintptr_t)w->lo, w->unfused, w->hi - w->lo,
                                cudaMemcpyHostToDevice, v->stream)
                     : kf__copy((void *)(uintptr_t)w->lo, w->snapshot, w->hi - w->lo,
                                cudaMemcpyDeviceToDevice, v->stream);
    if (rc != 0)
      return rc;
  }
  return 0;
}

/* Nonzero when @p ptr is a buffer whose stores the dead mask lets the fused
 * kernel skip: its bytes may legitimately differ. */
static int kf__is_dead(const kf__group_t *g, const kf_launch_t *l, uint64_t dead_mask, uint64_t ptr)
{
  for (uint32_t i = 0; i < g->ndead; i++) {
    uint64_t p;
    if ((dead_mask >> g->dead[i].bit & 1) &&
        kf__arg_pointer(&l[g->dead[i].ref.launch], g->dead[i].ref.param, &p) == 0 && p == ptr)
      return 1;
  }
  return 0;
}

static int kf__verify_compare(const kf__verify_t *v, const kf__site_state_t *st, const kf__segment_t *seg,
                              const kf_launch_t *l, uint64_t dead_mask)
{
  for (uint32_t i = 0; i < v->n; i++) {
    const kf__written_t *w = &v->w[i];
    if (kf__is_dead(seg->group, l, dead_mask, w->ptr))
      continue;
    for (uint64_t b = 0; b < w->hi - w->lo; b++)
      if (w->fused[b] != w->unfused[b]) {
        const char *kernel = st->names[seg->first + w->ref.launch];
        fprintf(stderr,
                "kfuse-verify: %s: %s: launch %" PRIu32 " (%s) param %" PRIu32
                " byte %" PRId64 ": fused 0x%02x unfused 0x%02x\n",
                st->where ? st->where : "?", seg->group->name, w->ref.launch, kernel ? kernel : "?",
                w->ref.param, (int64_t)(w->lo + b - w->ptr), w->fused[b], w->unfused[b]);
        return KF_EMISMATCH;
      }
  }
  return 0;
}

kf_fallback_t kf__verify_group(const kf__site_state_t *st, const kf__segment_t *seg,
                               const kf_launch_t *l, uint64_t dead_mask)
{
  kf__verify_t v = {0};
  kf_fallback_t result = KF_FALLBACK_COUNT;
  int rc = kf__verify_prepare(&v, seg->group, l);
  if (rc != 0) {
    /* Nothing ran yet: run the group as it would without verification. */
    kf__log(KF__LOG_WARN, "%s: %s: cannot verify (%s)", st->where ? st->where : "?", seg->group->name,
            kf_strerror(rc));
    kf__verify_free(&v);
    return kf__launch_fused(seg, l, dead_mask) == 0 ? KF_FALLBACK_COUNT : KF_FALLBACK_LAUNCH;
  }
  kf__launch_group_unfused(seg->group, l);
  if ((rc = kf__verify_save(&v, 0)) != 0) {
    /* The original launches ran and nothing overwrote their results. */
    kf__log(KF__LOG_WARN, "%s: %s: verification copies failed", st->where ? st->where : "?",
            seg->group->name);
    kf__verify_free(&v);
    return KF_FALLBACK_LAUNCH;
  }
  if ((rc = kf__verify_restore(&v, 0)) != 0) {
    /* The snapshot may be partly back: put the unfused results back. */
    kf__log(KF__LOG_WARN, "%s: %s: verification copies failed", st->where ? st->where : "?",
            seg->group->name);
    (void)kf__verify_restore(&v, 1);
    kf__verify_free(&v);
    return KF_FALLBACK_LAUNCH;
  }
  if (kf__launch_fused(seg, l, dead_mask) != 0) {
    result = KF_FALLBACK_LAUNCH;
  } else if ((rc = kf__verify_save(&v, 1)) != 0) {
    result = KF_FALLBACK_LAUNCH;
  } else if (kf__verify_compare(&v, st, seg, l, dead_mask) != 0) {
    result = KF_FALLBACK_MISMATCH;
  }
  /* Keep the unfused results: the program sees what it would see without
   * kfuse whatever the comparison said. */
  if (kf__verify_restore(&v, 1) != 0)
    kf__log(KF__LOG_ERROR, "%s: %s: restoring the unfused results failed", st->where ? st->where : "?",
            seg->group->name);
  kf__verify_free(&v);
  return result;
}
