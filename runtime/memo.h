/* Per-segment memo of the last launches whose guards all passed on
 * footprint arithmetic alone, so a call that repeats them skips the guards. */
#ifndef KFUSE_RUNTIME_MEMO_H
#define KFUSE_RUNTIME_MEMO_H

#include <stdint.h>

#include "kfuse/rt.h"

/* The key: per launch grid, block, shmem, stream, nargs, then each argument's
 * size and bytes. The guards read nothing else, so equal keys give equal
 * verdicts; a key is stored only when no guard consulted the driver
 * (cuMemGetAddressRange answers change as memory is freed and allocated). */
typedef struct kf__memo {
  uint64_t seq;    /**< seqlock: odd while a writer fills w[]; 0: empty */
  uint32_t cap;    /**< words in w[] */
  uint32_t nwords; /**< words of the stored key */
  uint64_t w[];
} kf__memo_t;

/** @returns the key words for @p l[0..n), 0 when the launches cannot be keyed
 * (missing argument arrays). */
uint32_t kf__memo_words(const kf_launch_t *l, uint32_t n);

/** @returns a new empty memo of @p cap words, NULL without memory. */
kf__memo_t *kf__memo_new(uint32_t cap);

/** @returns nonzero when @p m holds exactly the key of @p l[0..n). Lock-free;
 * a concurrent writer makes it answer 0. */
int kf__memo_hit(const kf__memo_t *m, const kf_launch_t *l, uint32_t n);

/** Stores the key of @p l[0..n) in @p m unless it does not fit or another
 * thread is storing (then nothing happens). */
void kf__memo_store(kf__memo_t *m, const kf_launch_t *l, uint32_t n);

#endif
