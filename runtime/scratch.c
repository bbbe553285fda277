/* kf_rt_scratch() and kf_rt_scratch_end(): a sorted array of disjoint
 * ranges behind a reader-writer lock; the dead mask reads it only while
 * kf__scratch_count is not 0. */
/* pthread_rwlock_t is POSIX, not C11. */
#define _POSIX_C_SOURCE 200809L
#include "runtime/scratch.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kfuse/rt.h"
#include "runtime/log.h"
#include "runtime/site.h"

typedef struct kf__scratch_range {
  uint64_t lo, hi;
  char *where;
} kf__scratch_range_t;

uint32_t kf__scratch_count;

static pthread_rwlock_t kf__scratch_lock = PTHREAD_RWLOCK_INITIALIZER;
static kf__scratch_range_t *kf__scratch;
static uint32_t kf__scratch_cap;

/* Index of the first range whose hi is above @p ptr (lock held). */
static uint32_t kf__scratch_lower(uint64_t ptr)
{
  uint32_t a = 0, b = __atomic_load_n(&kf__scratch_count, __ATOMIC_RELAXED);
  while (a < b) {
    uint32_t m = a + (b - a) / 2;
    if (kf__scratch[m].hi <= ptr)
      a = m + 1;
    else
      b = m;
  }
  return a;
}

int kf_rt_scratch_at(const void *ptr, size_t bytes, const char *where)
{
  uint64_t lo = (uint64_t)(uintptr_t)ptr, hi = lo + bytes;
  uint32_t n, at;
  char *copy = NULL;
  int rc = 0;
  if (ptr == NULL || bytes == 0 || hi < lo) {
    kf__log(KF__LOG_ERROR, "kf_rt_scratch(%p, %zu) at %s: not a range of device memory", ptr, bytes,
            where ? where : "?");
    return KF_EINVAL;
  }
  if (where != NULL && (copy = kf__strdup(where)) == NULL)
    return KF_ENOMEM;
  pthread_rwlock_wrlock(&kf__scratch_lock);
  n = kf__scratch_count;
  at = kf__scratch_lower(lo);
  if (at < n && kf__scratch[at].lo < hi) {
    kf__log(KF__LOG_ERROR, "kf_rt_scratch(%p, %zu) at %s overlaps the range declared at %s", ptr, bytes,
            where ? where : "?", kf__scratch[at].where ? kf__scratch[at].where : "?");
    rc = KF_EINVAL;
  } else if (n == kf__scratch_cap) {
    uint32_t cap = kf__scratch_cap ? 2 * kf__scratch_cap : 8;
    kf__scratch_range_t *grown = realloc(kf__scratch, cap * sizeof *grown);
    if (grown == NULL)
      rc = KF_ENOMEM;
    else {
      kf__scratch = grown;
      kf__scratch_cap = cap;
    }
  }
  if (rc == 0) {
    memmove(&kf__scratch[at + 1], &kf__scratch[at], (n - at) * sizeof *kf__scratch);
    kf__scratch[at] = (kf__scratch_range_t){lo, hi, copy};
    __atomic_store_n(&kf__scratch_count, n + 1, __ATOMIC_RELEASE);
    copy = NULL;
  }
  pthread_rwlock_unlock(&kf__scratch_lock);
  free(copy);
  return rc;
}

int kf_rt_scratch_end(const void *ptr)
{
  uint64_t lo = (uint64_t)(uintptr_t)ptr;
  uint32_t n, at;
  char *where = NULL;
  int rc = KF_ENOENT;
  pthread_rwlock_wrlock(&kf__scratch_lock);
  n = kf__scratch_count;
  at = kf__scratch_lower(lo);
  if (at < n && kf__scratch[at].lo == lo) {
    where = kf__scratch[at].where;
    memmove(&kf__scratch[at], &kf__scratch[at + 1], (n - at - 1) * sizeof *kf__scratch);
    __atomic_store_n(&kf__scratch_count, n - 1, __ATOMIC_RELEASE);
    rc = 0;
  }
  pthread_rwlock_unlock(&kf__scratch_lock);
  if (rc != 0)
    kf__log(KF__LOG_ERROR, "kf_rt_scratch_end(%p): no range declared there", ptr);
  free(where); /* readers copy it under the read lock */
  return rc;
}

int kf__scratch_find(uint64_t lo, uint64_t hi, uint64_t *rlo, uint64_t *rhi, char *where,
                     size_t where_bytes)
{
  uint32_t at;
  int found = 0;
  pthread_rwlock_rdlock(&kf__scratch_lock);
  at = kf__scratch_lower(lo);
  if (at < kf__scratch_count && kf__scratch[at].lo <= lo && hi <= kf__scratch[at].hi) {
    found = 1;
    if (rlo != NULL)
      *rlo = kf__scratch[at].lo;
    if (rhi != NULL)
      *rhi = kf__scratch[at].hi;
    if (where != NULL && where_bytes != 0)
      snprintf(where, where_bytes, "%s", kf__scratch[at].where ? kf__scratch[at].where : "?");
  }
  pthread_rwlock_unlock(&kf__scratch_lock);
  return found;
}

void kf__scratch_reset(void)
{
  pthread_rwlock_wrlock(&kf__scratch_lock);
  for (uint32_t i = 0; i < kf__scratch_count; i++)
    free(kf__scratch[i].where);
  free(kf__scratch);
  kf__scratch = NULL;
  kf__scratch_cap = 0;
  __atomic_store_n(&kf__scratch_count, 0, __ATOMIC_RELEASE);
  pthread_rwlock_unlock(&kf__scratch_lock);
}
