/* KFUSE_VERIFY: runs a fused group and its original launches on the same
 * input bytes and compares what they wrote, bit for bit. */
#ifndef KFUSE_RUNTIME_VERIFY_H
#define KFUSE_RUNTIME_VERIFY_H

#include <stdint.h>

#include "kfuse/rt.h"
#include "runtime/site.h"

/**
 * Runs group @p seg of @p st (launches @p l, guards already checked) both
 * ways and leaves the unfused results in memory. Synchronises the stream
 * and allocates: never called while a launch's stream is capturing.
 * @returns KF_FALLBACK_COUNT when the bytes agree, KF_FALLBACK_MISMATCH
 * (after printing the first difference) or KF_FALLBACK_LAUNCH.
 */
kf_fallback_t kf__verify_group(const kf__site_state_t *st, const kf__segment_t *seg,
                               const kf_launch_t *l, uint64_t dead_mask);

#endif
