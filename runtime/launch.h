/* Launching: the original launches exactly as their stubs would, and the
 * fused kernel of a group. */
#ifndef KFUSE_RUNTIME_LAUNCH_H
#define KFUSE_RUNTIME_LAUNCH_H

#include <stdint.h>

#include "kfuse/rt.h"
#include "runtime/site.h"

/** Runs launches l[0..count) in order with cudaLaunchKernel, as the stubs do. */
void kf__launch_originals(const kf_launch_t *l, uint32_t count);

/** Runs the launches of @p g's span (@p l, its first) that are its own, in
 * program order, unfused: all of them, but the `other` riders of a set's
 * part, which another group of the set runs. */
void kf__launch_group_unfused(const kf__group_t *g, const kf_launch_t *l);

/**
 * Runs @p seg's group for its launches @p l (the segment's first): the
 * riders marked `before`, then the fused kernel with the arguments of all
 * launches but the riders followed by @p dead_mask, then the other riders,
 * each rider as its stub would.
 * @returns 0; or KF_ENOMEM or KF_ECUDA (cuLaunchKernel failed), after
 * running the launches that had not run through their stubs in program
 * order, so the caller has nothing left to launch.
 */
int kf__launch_fused(const kf__segment_t *seg, const kf_launch_t *l, uint64_t dead_mask);

#endif
