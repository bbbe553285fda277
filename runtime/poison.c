/* KFUSE_VERIFY's scratch check (poison.h): a mutex-protected list of the
 * ranges poisoned after runs, consulted before every segment of every call
 * while the mode is on. A debugging mode: it may synchronise a stream to
 * look at bytes, and it allocates. */
#include "runtime/poison.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/cuda_api.h"
#include "runtime/guard.h"
#include "runtime/log.h"
#include "runtime/scratch.h"

/* Bytes of a read compared against the pattern: enough to tell a buffer
 * nothing rewrote from one something did, without copying gigabytes. */
#define KF__POISON_PEEK 65536

/* One poisoned range and who poisoned it. */
typedef struct kf__poisoned {
  uint64_t lo, hi;
  char name[256]; /* the declaration: "'Ctx::t' declared at a.cu:7" */
  char by[256];   /* "launch 0 (k1) param 2 of a.cu:40:3 f" */
} kf__poisoned_t;

/* (site, launch, param) already announced on a kfuse-poison line. */
typedef struct kf__announced {
  const kf__site_state_t *st;
  uint32_t launch, param;
} kf__announced_t;

static pthread_mutex_t kf__poison_lock = PTHREAD_MUTEX_INITIALIZER;
static kf__poisoned_t *kf__poisoned;
static uint32_t kf__npoisoned, kf__poisoned_cap;
static kf__announced_t *kf__announced;
static uint32_t kf__nannounced, kf__announced_cap;

static const char *kf__kernel_name(const kf__site_state_t *st, uint32_t launch)
{
  return st->names != NULL && launch < st->n && st->names[launch] != NULL ? st->names[launch] : "?";
}

/* Removes [lo, hi) from every record, splitting where needed (lock held). */
static void kf__poison_clear(uint64_t lo, uint64_t hi)
{
  for (uint32_t i = 0; i < kf__npoisoned;) {
    kf__poisoned_t *r = &kf__poisoned[i];
    if (hi <= r->lo || r->hi <= lo) {
      i++;
      continue;
    }
    if (r->lo < lo && hi < r->hi && kf__npoisoned < kf__poisoned_cap) {
      /* Split: the part above the write goes to a new record. */
      kf__poisoned[kf__npoisoned] = *r;
      kf__poisoned[kf__npoisoned].lo = hi;
      kf__npoisoned++;
      r->hi = lo;
      i++;
    } else if (r->lo < lo) {
      r->hi = lo;
      i++;
    } else if (hi < r->hi) {
      r->lo = hi;
      i++;
    } else {
      *r = kf__poisoned[--kf__npoisoned];
    }
  }
}

static int kf__poison_reserve(uint32_t more)
{
  if (kf__npoisoned + more > kf__poisoned_cap) {
    uint32_t cap = kf__poisoned_cap ? 2 * kf__poisoned_cap : 16;
    kf__poisoned_t *grown;
    while (cap < kf__npoisoned + more)
      cap *= 2;
    if ((grown = realloc(kf__poisoned, cap * sizeof *grown)) == NULL)
      return KF_ENOMEM;
    kf__poisoned = grown;
    kf__poisoned_cap = cap;
  }
  return 0;
}

/* Nonzero when some aligned word of [lo, hi) (its first KF__POISON_PEEK
 * bytes) still holds the pattern. Copies on @p stream and synchronises. */
static int kf__still_poisoned(uint64_t lo, uint64_t hi, void *stream)
{
  __typeof__(&cudaMemcpyAsync) copy = KF__CU(cudaMemcpyAsync);
  __typeof__(&cudaStreamSynchronize) sync = KF__CU(cudaStreamSynchronize);
  uint64_t a = (lo + 3) & ~UINT64_C(3), b = hi & ~UINT64_C(3);
  unsigned char *buf;
  int found = 0;
  if (b > a + KF__POISON_PEEK)
    b = a + KF__POISON_PEEK;
  if (a >= b || copy == NULL || sync == NULL || (buf = malloc(b - a)) == NULL)
    return 0;
  if (copy(buf, (void *)(uintptr_t)a, (size_t)(b - a), cudaMemcpyDeviceToHost, (cudaStream_t)stream) ==
          cudaSuccess &&
      sync((cudaStream_t)stream) == cudaSuccess)
    for (uint64_t k = 0; k + 4 <= b - a && !found; k += 4) {
      uint32_t w;
      memcpy(&w, buf + k, sizeof w);
      found = w == KF__POISON_WORD;
    }
  free(buf);
  return found;
}

/* The range a launch without footprints may touch through @p ptr: its allocation. */
static int kf__allocation(uint64_t ptr, uint64_t *lo, uint64_t *hi)
{
  __typeof__(&cuMemGetAddressRange) range = KF__CU(cuMemGetAddressRange);
  CUdeviceptr b = 0;
  size_t s = 0;
  if (range == NULL || ptr == 0 || range(&b, &s, (CUdeviceptr)ptr) != CUDA_SUCCESS)
    return 0;
  *lo = (uint64_t)b;
  *hi = (uint64_t)b + s;
  return 1;
}

/* Reports and forgets each record a read of [lo, hi) by launch @p k, param
 * @p p of the call finds still poisoned (lock held). */
static void kf__poison_check_read(kf__site_state_t *st, const kf_launch_t *l, uint32_t k, uint32_t p,
                                  uint64_t lo, uint64_t hi)
{
  for (uint32_t i = 0; i < kf__npoisoned;) {
    kf__poisoned_t *r = &kf__poisoned[i];
    uint64_t a = lo > r->lo ? lo : r->lo, b = hi < r->hi ? hi : r->hi;
    if (a >= b) {
      i++;
      continue;
    }
    if (kf__still_poisoned(a, b, l[k].stream)) {
      fprintf(stderr,
              "kfuse-verify: scratch buffer %s is read by launch %" PRIu32 " (%s) param %" PRIu32
              " of %s before it is written (poisoned after %s; bytes [+%" PRIu64 ", +%" PRIu64
              ") of the buffer are read)\n",
              r->name, k, kf__kernel_name(st, k), p, st->where ? st->where : "?", r->by, a - r->lo,
              b - r->lo);
      __atomic_fetch_add(&st->scratch_reads, 1, __ATOMIC_RELAXED);
    }
    /* Reported once; and poison a copy or another kernel overwrote is gone. */
    *r = kf__poisoned[--kf__npoisoned];
  }
}

void kf__poison_reads(kf__site_state_t *st, const kf__segment_t *seg, const kf_launch_t *l)
{
  pthread_mutex_lock(&kf__poison_lock);
  if (kf__npoisoned == 0) {
    pthread_mutex_unlock(&kf__poison_lock);
    return;
  }
  /* Room for every split a write may make. */
  for (uint32_t k = seg->first; k < seg->first + seg->count && kf__npoisoned != 0; k++)
    for (uint32_t p = 0; p < l[k].nargs && kf__npoisoned != 0; p++) {
      kf__param_ref_t ref = {k - seg->first, p};
      const kf__footprint_t *fp;
      uint64_t ptr, lo, hi;
      unsigned mode;
      if (kf__arg_pointer(&l[k], p, &ptr) != 0 || ptr == 0)
        continue;
      if (seg->group == NULL) {
        if (kf__allocation(ptr, &lo, &hi) && kf__poison_reserve(1) == 0)
          kf__poison_clear(lo, hi);
        continue;
      }
      fp = kf__group_footprint(seg->group, ref);
      mode = fp != NULL ? fp->mode : KF__FP_READ;
      if (kf__param_range(seg->group, &l[seg->first], ref, &lo, &hi) != 0 || lo >= hi)
        continue;
      if (mode & KF__FP_READ)
        kf__poison_check_read(st, l, k, p, lo, hi);
      if ((mode & KF__FP_WRITE) && kf__poison_reserve(1) == 0)
        kf__poison_clear(lo, hi);
    }
  pthread_mutex_unlock(&kf__poison_lock);
}

/* Fills [lo, hi) with the pattern on @p stream: words where aligned, 0xff bytes at the ends. */
static int kf__poison_fill(uint64_t lo, uint64_t hi, void *stream)
{
  __typeof__(&cudaMemsetAsync) set8 = KF__CU(cudaMemsetAsync);
  __typeof__(&cuMemsetD32Async) set32 = KF__CU(cuMemsetD32Async);
  uint64_t a = (lo + 3) & ~UINT64_C(3), b = hi & ~UINT64_C(3);
  if (set8 == NULL || set32 == NULL)
    return KF_ECUDA;
  if (a >= b)
    a = b = hi;
  if (lo < a && set8((void *)(uintptr_t)lo, 0xff, (size_t)(a - lo), (cudaStream_t)stream) != cudaSuccess)
    return KF_ECUDA;
  if (a < b && set32((CUdeviceptr)a, KF__POISON_WORD, (size_t)((b - a) / 4), (CUstream)stream) != CUDA_SUCCESS)
    return KF_ECUDA;
  if (b < hi && set8((void *)(uintptr_t)b, 0xff, (size_t)(hi - b), (cudaStream_t)stream) != cudaSuccess)
    return KF_ECUDA;
  return 0;
}

/* Nonzero the first time (st, launch, param) is poisoned (lock held). */
static int kf__first_poisoning(const kf__site_state_t *st, uint32_t launch, uint32_t param)
{
  for (uint32_t i = 0; i < kf__nannounced; i++)
    if (kf__announced[i].st == st && kf__announced[i].launch == launch && kf__announced[i].param == param)
      return 0;
  if (kf__nannounced == kf__announced_cap) {
    uint32_t cap = kf__announced_cap ? 2 * kf__announced_cap : 16;
    kf__announced_t *grown = realloc(kf__announced, cap * sizeof *grown);
    if (grown == NULL)
      return 0;
    kf__announced = grown;
    kf__announced_cap = cap;
  }
  kf__announced[kf__nannounced++] = (kf__announced_t){st, launch, param};
  return 1;
}

/* "'name' declared at file:line" of the declaration behind dead line @p d. */
static void kf__declaration(const kf_site_t *site, const kf__segment_t *seg, const kf_launch_t *gl,
                            const kf__dead_t *d, char *out, size_t bytes)
{
  uint32_t launch = seg->first + d->ref.launch;
  char where[128];
  uint64_t ptr = 0, lo, hi, rlo, rhi;
  for (uint32_t i = 0; site != NULL && site->scratch != NULL && i < site->nscratch; i++)
    if (site->scratch[i].launch == launch && site->scratch[i].param == d->ref.param) {
      snprintf(out, bytes, "'%s' declared at %s", site->scratch[i].name ? site->scratch[i].name : "?",
               site->scratch[i].at ? site->scratch[i].at : "?");
      return;
    }
  (void)kf__arg_pointer(&gl[d->ref.launch], d->ref.param, &ptr);
  if (kf__param_range(seg->group, gl, d->ref, &lo, &hi) == 0 &&
      kf__scratch_find(lo, hi, &rlo, &rhi, where, sizeof where))
    snprintf(out, bytes, "0x%" PRIx64 " (%" PRIu64 " bytes) declared at %s", rlo, rhi - rlo, where);
  else
    snprintf(out, bytes, "0x%" PRIx64 " (declaration ended)", ptr);
}

void kf__poison_writes(kf__site_state_t *st, const kf_site_t *site, const kf__segment_t *seg,
                       const kf_launch_t *l, uint64_t declared)
{
  const kf__group_t *g = seg->group;
  const kf_launch_t *gl = &l[seg->first];
  if (declared == 0 || g == NULL)
    return;
  pthread_mutex_lock(&kf__poison_lock);
  for (uint32_t i = 0; i < g->ndead; i++) {
    const kf__dead_t *d = &g->dead[i];
    uint32_t launch = seg->first + d->ref.launch;
    kf__poisoned_t *r;
    uint64_t lo, hi;
    if (!(declared >> d->bit & 1) ||
        kf__param_range(g, gl, d->ref, &lo, &hi) != 0 || lo >= hi || kf__poison_reserve(2) != 0)
      continue;
    if (kf__poison_fill(lo, hi, gl[0].stream) != 0) {
      kf__log(KF__LOG_WARN, "%s: poisoning launch %" PRIu32 " param %" PRIu32 " failed",
              st->where ? st->where : "?", launch, d->ref.param);
      continue;
    }
    kf__poison_clear(lo, hi);
    r = &kf__poisoned[kf__npoisoned++];
    r->lo = lo;
    r->hi = hi;
    kf__declaration(site, seg, gl, d, r->name, sizeof r->name);
    snprintf(r->by, sizeof r->by, "launch %" PRIu32 " (%s) param %" PRIu32 " of %s", launch,
             kf__kernel_name(st, launch), d->ref.param, st->where ? st->where : "?");
    __atomic_fetch_add(&st->poisoned, 1, __ATOMIC_RELAXED);
    if (kf__first_poisoning(st, launch, d->ref.param))
      fprintf(stderr, "kfuse-poison: %s: scratch buffer %s: %" PRIu64 " bytes at 0x%" PRIx64
                      " poisoned after each run\n", r->by, r->name, hi - lo, lo);
  }
  pthread_mutex_unlock(&kf__poison_lock);
}

void kf__poison_reset(void)
{
  pthread_mutex_lock(&kf__poison_lock);
  free(kf__poisoned);
  free(kf__announced);
  kf__poisoned = NULL;
  kf__announced = NULL;
  kf__npoisoned = kf__poisoned_cap = kf__nannounced = kf__announced_cap = 0;
  pthread_mutex_unlock(&kf__poison_lock);
}
