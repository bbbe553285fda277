/* The arithmetic of kfuse-calibrate, apart from the GPU: medians of timings,
 * the choice of hide_occupancy, the device profile and psi table text. */
#ifndef KFUSE_CALIBRATE_FIT_H
#define KFUSE_CALIBRATE_FIT_H

#include <stddef.h>
#include "kfuse/error.h"
#include "kfuse/profile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The fraction of the full-occupancy bandwidth at which an occupancy counts
 * as hiding memory latency (see kf_cal_hide_occupancy). */
#define KF_CAL_HIDE_FRACTION 0.9

/* One point of an occupancy curve: resident threads per SM over the most an
 * SM can hold, and the bandwidth measured there (bytes/s). */
typedef struct kf_cal_point_s {
  double occupancy;
  double bandwidth;
} kf_cal_point_t;

/** Median of @p n samples (the mean of the middle two when @p n is even).
 * Sorts @p x in place.
 * @returns 0, or KF_EINVAL when @p x or @p median is NULL, @p n is 0, or a
 * sample is not finite (then *median is untouched). */
int kf_cal_median(double *x, size_t n, double *median);

/** hide_occupancy from an occupancy curve: the smallest measured occupancy
 * from which on every measured point reaches @p frac of the bandwidth at
 * full occupancy (the last point). A lone fast point below a slow one does
 * not count, so noise at low occupancy cannot pick a knee that the rest of
 * the curve contradicts.
 * @param pts points with strictly increasing occupancy in (0, 1], the last
 *        at occupancy 1, every bandwidth finite and positive.
 * @param frac in (0, 1]; KF_CAL_HIDE_FRACTION is the rule kfuse-calibrate uses.
 * @param err if not NULL, receives the reason on error.
 * @returns 0, or KF_EINVAL for NULL arguments, no points, a point out of
 * range, occupancies out of order or no point at full occupancy. */
int kf_cal_hide_occupancy(const kf_cal_point_t *pts, size_t n, double frac, double *hide,
                          char *err, size_t errlen);

/** FP32 flops per cycle per SM from a measured rate: @p flops done in
 * @p seconds on @p sm_count SMs running at @p clock_hz.
 * @returns 0, or KF_EINVAL when an input is not finite and positive. */
int kf_cal_flops_per_cycle(double flops, double seconds, int sm_count, double clock_hz,
                           double *out);

/** Writes @p prof as profile text (docs/plan.md) into @p buf: first
 * @p comment (may be NULL), each of its lines as a "# " comment line (cut
 * at 400 bytes, well inside the reader's line limit), then
 * one "key = value" line per field. The name loses characters the format
 * cannot carry ('#', control characters). The text is parsed back with
 * kf_profile_parse() before returning, so a profile whose values the reader
 * would reject (out of range, not finite) is an error here.
 * @param len size of @p buf; *written (if not NULL) receives the text's length.
 * @param err if not NULL, receives the reason on error.
 * @returns 0, KF_EINVAL for NULL arguments, KF_ERANGE when @p buf is too
 * small, or KF_EPARSE when the text does not parse back. */
int kf_cal_format_profile(const kf_profile_t *prof, const char *comment, char *buf, size_t len,
                          size_t *written, char *err, size_t errlen);

/** Compares two profiles: the integer fields and the name exactly, the
 * others within relative tolerance @p rtol (what formatting may round).
 * @param what if not NULL, receives the first field that differs.
 * @returns 0 when they agree, KF_EMISMATCH when not, KF_EINVAL for NULL. */
int kf_cal_profile_diff(const kf_profile_t *a, const kf_profile_t *b, double rtol, char *what,
                        size_t whatlen);

/* The psi tables (Fousek et al.): per routine, instances per block and extra
 * shared memory, the seconds of the routine over all instances of one launch.
 * kfuse-calibrate measures them; the problem file carries them as
 * "psi ROUTINE IPB EXTRA_SHARED SECONDS" lines (docs/plan.md). */

/* The longest routine name kf_cal_format_psi accepts. */
#define KF_CAL_PSI_NAME_MAX 63

/* The smallest instances per block measured; the set is the powers of two
 * from it to KF_CAL_PSI_IPB_MAX that the block size allows. */
#define KF_CAL_PSI_IPB_MIN 8
#define KF_CAL_PSI_IPB_MAX 256

/* One entry of a psi table. */
typedef struct kf_cal_psi_s {
  const char *routine; /* an identifier: [A-Za-z_][A-Za-z0-9_]*, at most KF_CAL_PSI_NAME_MAX */
  int ipb;             /* instances per block, >= 1 */
  int extra_shared;    /* bytes of shared memory per block beyond the routine's own, >= 0 */
  double seconds;      /* finite, >= 0 */
} kf_cal_psi_t;

/** The instances per block a routine is measured at: the powers of two from
 * KF_CAL_PSI_IPB_MIN to KF_CAL_PSI_IPB_MAX whose block of ipb x @p tpi
 * threads (at least @p min_block) fits in @p max_block threads.
 * @param out receives at most @p cap values, increasing.
 * @returns the number of values (0 when even the smallest does not fit), or
 * KF_EINVAL for @p tpi or @p max_block below 1, or @p out NULL with @p cap > 0. */
int kf_cal_psi_ipb_set(int tpi, int min_block, int max_block, int *out, size_t cap);

/** The instances per block a routine is measured at in fused blocks of
 * @p block threads (kfuse-calibrate --psi-block): the powers of two from
 * KF_CAL_PSI_IPB_MIN to 64, then block / 3, block / 2 and block where
 * above 64 (85, 128 and 256 at 256: the instances kfuse's fused blocks run,
 * max(256 / the largest threads per instance, 64)); any threads per
 * instance, a routine with more threads than the block looping over them.
 * @param out receives at most @p cap values, increasing, distinct.
 * @returns the number of values, or KF_EINVAL for @p block below 1 or above
 * 32768, or @p out NULL with @p cap > 0. */
int kf_cal_psi_ipb_set_fused(int block, int *out, size_t cap);

/** The psi value of one configuration: the routine kernel's seconds per
 * launch minus those of the same launch of the harness without the routine,
 * clamped at 0 (timing noise can make a cheap routine's difference
 * negative).
 * @returns 0, or KF_EINVAL when a time is negative or not finite or @p out
 * is NULL (then *out is untouched). */
int kf_cal_psi_seconds(double routine_s, double harness_s, double *out);

/** Writes a psi table as problem-file text into @p buf: each line of
 * @p comment (may be NULL) as a "# " comment line (cut at 400 bytes), then,
 * for @p fused_block above 0, a "fused-block FUSED_BLOCK" line (the
 * tables were measured in fused blocks of that many threads), then one
 * "psi ROUTINE IPB EXTRA_SHARED SECONDS" line per entry, in the order
 * given. Seconds below 1e-15 (under any timer's resolution) are written as
 * 0. The text is a fragment for a problem file: it is parsed back with
 * kf_problem_parse() behind a "kfuse-plan 1" header and one launch before
 * returning.
 * @param n at least 1 entry.
 * @param written if not NULL, receives the text's length.
 * @param err if not NULL, receives the reason on error.
 * @returns 0; KF_EINVAL for NULL arguments, no entries, or an entry that is
 * invalid (routine not an identifier or too long, ipb < 1, extra_shared < 0,
 * @p fused_block negative or above 32768,
 * ipb or extra_shared above 10^9, seconds negative or not finite) or repeats
 * the routine, ipb and extra_shared of an earlier one; KF_ERANGE when @p buf
 * is too small; KF_ENOMEM; KF_EPARSE when the text does not parse back. */
int kf_cal_format_psi(const kf_cal_psi_t *entries, size_t n, const char *comment,
                      int fused_block, char *buf, size_t len, size_t *written, char *err,
                      size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
