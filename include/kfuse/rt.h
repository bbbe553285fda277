/* libkfuse_rt: the run-time half of kfuse. The host pass replaces each run
 * of adjacent kfuse_map launches with one call to kf_rt_launch_seq(). */
#ifndef KFUSE_RT_H
#define KFUSE_RT_H

#include <stddef.h>
#include <stdint.h>

#include "kfuse/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One original launch, exactly as the source wrote it. */
typedef struct kf_launch {
  /** The kernel's host stub, the handle the original code passes to cudaLaunchKernel. */
  const void *func;
  uint32_t grid[3];
  uint32_t block[3];
  /** Dynamic shared memory bytes. */
  size_t shmem;
  /** cudaStream_t of the launch (NULL: the legacy default stream). */
  void *stream;
  /** One pointer per kernel parameter, pointing at the argument's value. */
  void **args;
  /** Size in bytes of each argument (nargs entries). */
  const uint32_t *arg_sizes;
  uint32_t nargs;
  /** Bit p set: pointer parameter p's buffer is dead after the run (never read
   * again before it is freed or overwritten), so the fused kernel may skip its
   * stores. The host pass sets it only when it can prove it. */
  uint64_t dead;
} kf_launch_t;

/** A call site: one per rewritten run, a zero-initialised static the host
 * pass emits. The runtime owns @c cache. */
typedef struct kf_site {
  /** "file:line:col function" of the first launch, for logs and stats. */
  const char *where;
  /** Runtime-private, atomically published match result; NULL at first. */
  void *volatile cache;
  uint32_t nlaunches;
  uint32_t reserved;
} kf_site_t;

/**
 * Runs the @p n launches of @p site: as fused kernels where the device pass
 * made them and every guard holds, else as the original launches, in order.
 * Launch errors surface exactly as the original launches would report them
 * (cudaGetLastError() afterwards gives the same answer).
 * Thread-safe.
 */
KF_EXTERN void kf_rt_launch_seq(kf_site_t *site, const kf_launch_t *launches, uint32_t n);

#ifdef __cplusplus
}
#endif
#endif
