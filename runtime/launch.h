/* Launching: the original launches exactly as their stubs would, and the
 * fused kernel of a group. */
#ifndef KFUSE_RUNTIME_LAUNCH_H
#define KFUSE_RUNTIME_LAUNCH_H

#include <stdint.h>

#include "kfuse/rt.h"
#include "runtime/site.h"

/** Runs launches l[0..count) in order with cudaLaunchKernel, as the stubs do. */
void kf__launch_originals(const kf_launch_t *l, uint32_t count);

/**
 * Launches @p seg's fused kernel for its launches @p l (the segment's
 * first), with the arguments of all launches but the riders followed by
 * @p dead_mask, then the group's riders one by one, as the stubs would.
 * @returns 0, KF_ENOMEM, or KF_ECUDA when cuLaunchKernel failed (nothing ran).
 */
int kf__launch_fused(const kf__segment_t *seg, const kf_launch_t *l, uint64_t dead_mask);

#endif
