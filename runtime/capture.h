/* Stream capture (CUDA Graphs): whether a call's launches are being
 * captured, and the relaxed window the runtime's own synchronous work runs in. */
#ifndef KFUSE_RUNTIME_CAPTURE_H
#define KFUSE_RUNTIME_CAPTURE_H

#include <stdint.h>

#include "kfuse/rt.h"
#include "runtime/cuda_api.h"

/**
 * @returns nonzero when the stream of some launch of @p l[0..n) is capturing
 * (active or invalidated), or cannot say: the legacy stream answers
 * CUDA_ERROR_STREAM_CAPTURE_IMPLICIT while a blocking stream captures, and
 * anything the runtime enqueued there would then break that capture. Each
 * distinct stream is asked once (cuStreamIsCapturing, legal in every capture
 * mode); an error other than a stream-capture one (no current context yet)
 * means not capturing, as does a driver without cuStreamIsCapturing.
 */
int kf__capturing(const kf_launch_t *l, uint32_t n);

/**
 * Sets the calling thread's capture mode to relaxed, so that the runtime's
 * own allocations and synchronous copies (discovery, KFUSE_VERIFY) neither
 * fail nor invalidate a capture of this thread or, in global mode, of
 * another one. They must still stay off every capturing stream and off the
 * legacy stream, which relaxed mode does not permit.
 * @returns the previous mode, for kf__capture_restore(); -1 when it could
 * not be changed.
 */
int kf__capture_relax(void);

/** Puts back the mode kf__capture_relax() returned (nothing for -1). */
void kf__capture_restore(int previous);

/** @returns nonzero for the driver's stream-capture errors (900..908). */
int kf__capture_error(CUresult res);

#endif
