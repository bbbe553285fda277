/* Device profiles: the handful of numbers the cost model needs about a GPU,
 * read from a "key = value" file (format in docs/plan.md). */
#ifndef KFUSE_PROFILE_H
#define KFUSE_PROFILE_H

#include <stddef.h>
#include "kfuse/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A device profile. Plain data: callers may fill or adjust it directly. */
typedef struct kf_profile_s {
  char name[64];               /* free text, e.g. "NVIDIA H100 SXM5 80GB" */
  double bandwidth;            /* effective global-memory bandwidth, bytes/s */
  double launch_overhead;      /* seconds per kernel launch */
  int sm_count;                /* streaming multiprocessors */
  int shared_per_sm;           /* shared memory per SM, bytes */
  int shared_per_block;        /* most shared memory one block may use, bytes */
  int regs_per_sm;             /* 32-bit registers per SM */
  int max_threads_per_sm;      /* resident threads per SM */
  int max_blocks_per_sm;       /* resident blocks per SM */
  int max_threads_per_block;   /* largest block */
  double l2_bytes;             /* L2 cache size, bytes */
  double clock_hz;             /* SM clock used for compute time, Hz */
  double flops_per_cycle_per_sm; /* fp32 flops per cycle per SM (FMA = 2) */
  double hide_occupancy;       /* occupancy (0..1] at which latency is hidden */
} kf_profile_t;

/** Fills @p prof with the default NVIDIA H100 SXM profile (the numbers of
 * profiles/h100.prof). Never fails. */
KF_EXTERN void kf_profile_default(kf_profile_t *prof);

/** Parses profile text of @p len bytes over the defaults of
 * kf_profile_default(): keys absent from the text keep the default value.
 * @param err if not NULL, receives "line N: reason" on KF_EPARSE.
 * @returns 0, KF_EINVAL for NULL arguments, KF_EPARSE for a malformed line,
 * an unknown key or a value out of range. */
KF_EXTERN int kf_profile_parse(kf_profile_t *prof, const char *text, size_t len,
                               char *err, size_t errlen);

/** Reads and parses the profile file @p path as kf_profile_parse() does.
 * @returns 0, KF_EIO if the file cannot be read, or kf_profile_parse()'s codes. */
KF_EXTERN int kf_profile_load(kf_profile_t *prof, const char *path,
                              char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
