/* The ranges programs declare scratch with kf_rt_scratch(): a registry that
 * is usually empty, so the launch path asks it only when it is not. */
#ifndef KFUSE_RUNTIME_SCRATCH_H
#define KFUSE_RUNTIME_SCRATCH_H

#include <stddef.h>
#include <stdint.h>

/** Number of declared ranges (a relaxed snapshot, for the fast path). */
extern uint32_t kf__scratch_count;

/** Nonzero when some range is declared: one atomic load. */
static inline int kf__scratch_any(void)
{
  return __atomic_load_n(&kf__scratch_count, __ATOMIC_ACQUIRE) != 0;
}

/**
 * Finds the declared range holding all of [@p lo, @p hi) (lo <= hi).
 * @returns 1, with the range's bounds in the non-NULL @p rlo / @p rhi and
 * the "file:line" of its declaration copied into @p where (@p where_bytes,
 * truncated; may be NULL), or 0.
 */
int kf__scratch_find(uint64_t lo, uint64_t hi, uint64_t *rlo, uint64_t *rhi, char *where,
                     size_t where_bytes);

/** Test hook: forgets every declared range. */
void kf__scratch_reset(void);

#endif
