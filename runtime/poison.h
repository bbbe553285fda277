/* KFUSE_VERIFY's scratch check: after a run, what it wrote to buffers
 * declared scratch is filled with a NaN pattern; a later kfuse launch that
 * reads it before anything writes it is reported, naming both sites. */
#ifndef KFUSE_RUNTIME_POISON_H
#define KFUSE_RUNTIME_POISON_H

#include <stdint.h>

#include "kfuse/rt.h"
#include "runtime/site.h"

/** The 32-bit poison word: a NaN as float, as each half of a double, and in
 * each 16-bit half as __half and __nv_bfloat16. Odd bytes at the ends of a
 * range get 0xff. */
#define KF__POISON_WORD UINT32_C(0xfff5fff5)

/**
 * Before segment @p seg of a call (launches @p l, the whole call) runs:
 * for each launch of the segment in order, a read (footprint `r` or `rw`,
 * or a pointer without footprint) of a poisoned range whose bytes still
 * hold the pattern is reported ("kfuse-verify: scratch buffer ... is read by
 * ..."); a write (`w`, `rw`) clears the poison of its footprint. Launches
 * no group covers have no footprints: poison in the allocations they get is
 * forgotten unreported.
 */
void kf__poison_reads(kf__site_state_t *st, const kf__segment_t *seg, const kf_launch_t *l);

/**
 * After group @p seg ran (fused or not) with guards that held: fills the
 * write footprint of each `dead` line whose bit is in @p declared (bits the
 * dead mask has only because of a declaration) with the poison pattern on
 * the group's stream, and remembers it with the declaration's name (from
 * @p site's scratch table, or the kf_rt_scratch() range). Synchronous work
 * on the group's stream: the caller skips both functions while a launch's
 * stream is capturing a graph (capture.h).
 */
void kf__poison_writes(kf__site_state_t *st, const kf_site_t *site, const kf__segment_t *seg,
                       const kf_launch_t *l, uint64_t declared);

/** Test hook: forgets every poisoned range. */
void kf__poison_reset(void);

#endif
