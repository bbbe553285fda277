/* The guard memo (memo.h): a seqlock-protected copy of the last passing key. */
#include "runtime/memo.h"

#include <stdlib.h>
#include <string.h>

uint32_t kf__memo_words(const kf_launch_t *l, uint32_t n)
{
  uint64_t w = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (l[i].nargs != 0 && (l[i].args == NULL || l[i].arg_sizes == NULL))
      return 0;
    w += 6;
    for (uint32_t p = 0; p < l[i].nargs; p++) {
      if (l[i].args[p] == NULL)
        return 0;
      w += 1 + ((uint64_t)l[i].arg_sizes[p] + 7) / 8;
    }
  }
  return w > UINT32_MAX / 2 ? 0 : (uint32_t)w;
}

kf__memo_t *kf__memo_new(uint32_t cap)
{
  kf__memo_t *m = calloc(1, sizeof *m + (size_t)cap * sizeof m->w[0]);
  if (m != NULL)
    m->cap = cap;
  return m;
}

/* Visits the key words of l[0..n) in order: compares them with m->w
 * (store 0; returns 0 at the first difference) or writes them (store 1).
 * Words are accessed with relaxed atomics: readers race with writers by
 * design, and the seqlock discards what a racing read saw. */
static int kf__memo_walk(kf__memo_t *m, const kf_launch_t *l, uint32_t n, int store)
{
  uint32_t k = 0, cap = store ? m->cap : __atomic_load_n(&m->nwords, __ATOMIC_RELAXED);
#define KF__WORD(v)                                                                                \
  do {                                                                                             \
    uint64_t v_ = (v);                                                                             \
    if (k >= cap)                                                                                  \
      return 0;                                                                                    \
    if (store)                                                                                     \
      __atomic_store_n(&m->w[k], v_, __ATOMIC_RELAXED);                                            \
    else if (__atomic_load_n(&m->w[k], __ATOMIC_RELAXED) != v_)                                    \
      return 0;                                                                                    \
    k++;                                                                                           \
  } while (0)
  for (uint32_t i = 0; i < n; i++) {
    const kf_launch_t *li = &l[i];
    KF__WORD(li->grid[0] | (uint64_t)li->grid[1] << 32);
    KF__WORD(li->grid[2] | (uint64_t)li->block[0] << 32);
    KF__WORD(li->block[1] | (uint64_t)li->block[2] << 32);
    KF__WORD((uint64_t)li->shmem);
    KF__WORD((uint64_t)(uintptr_t)li->stream);
    KF__WORD(li->nargs);
    for (uint32_t p = 0; p < li->nargs; p++) {
      uint32_t size = li->arg_sizes[p];
      const unsigned char *a = li->args[p];
      KF__WORD(size);
      if (size == 8) {
        uint64_t v;
        memcpy(&v, a, 8);
        KF__WORD(v);
      } else if (size == 4) {
        uint32_t v;
        memcpy(&v, a, 4);
        KF__WORD(v);
      } else {
        for (uint32_t off = 0; off < size; off += 8) {
          uint64_t v = 0;
          memcpy(&v, a + off, size - off < 8 ? size - off : 8);
          KF__WORD(v);
        }
      }
    }
  }
#undef KF__WORD
  if (store)
    __atomic_store_n(&m->nwords, k, __ATOMIC_RELAXED);
  return store || k == cap;
}

int kf__memo_hit(const kf__memo_t *m, const kf_launch_t *l, uint32_t n)
{
  uint64_t s1 = __atomic_load_n(&m->seq, __ATOMIC_ACQUIRE), s2;
  int same;
  if (s1 == 0 || (s1 & 1))
    return 0;
  same = kf__memo_walk((kf__memo_t *)m, l, n, 0);
  __atomic_thread_fence(__ATOMIC_ACQUIRE);
  s2 = __atomic_load_n(&m->seq, __ATOMIC_RELAXED);
  return same && s1 == s2;
}

void kf__memo_store(kf__memo_t *m, const kf_launch_t *l, uint32_t n)
{
  uint64_t s = __atomic_load_n(&m->seq, __ATOMIC_RELAXED);
  if ((s & 1) || !__atomic_compare_exchange_n(&m->seq, &s, s + 1, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
    return;
  __atomic_thread_fence(__ATOMIC_RELEASE);
  if (!kf__memo_walk(m, l, n, 1)) {
    /* Too long for this memo: leave it empty (seq 0 is never valid again
     * after a store, so mark the key empty instead). */
    __atomic_store_n(&m->nwords, 0, __ATOMIC_RELAXED);
  }
  __atomic_store_n(&m->seq, s + 2, __ATOMIC_RELEASE);
}
