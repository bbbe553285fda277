/* The cost model: predicted time of one group of launches run as one kernel.
 * Its own module so it can be replaced: a caller-supplied cost function
 * overrides the built-in formulas. */
#ifndef KFUSE_MODEL_H
#define KFUSE_MODEL_H

#include "kfuse/error.h"
#include "kfuse/plan.h"
#include "kfuse/profile.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kf_model_kind {
  /* time = max(memory, compute) / latency-hiding factor + launch overhead */
  KF_MODEL_ROOFLINE = 0,
  /* time = max(sum of psi over memory routines, sum over compute routines,
   * psi of KF_PSI_DISPATCH) + launch overhead, psi from the problem's
   * per-routine tables */
  KF_MODEL_PSI = 1
} kf_model_kind_t;

/* The psi routine name of block dispatch: the time a configuration (instances
 * per block, extra shared memory) spends starting its blocks, which the
 * routines' own tables leave out; charged once per group when present. */
#define KF_PSI_DISPATCH "dispatch"

typedef struct kf_estimate_s {
  double time;             /* seconds, launch included; INFINITY if it cannot run */
  double memory_time;
  double compute_time;
  double bytes;            /* global bytes moved */
  double flops;
  double occupancy;        /* resident threads / max threads per SM */
  int shared_bytes;        /* per block */
  int staging_bytes;       /* per instance, after allocation */
  int fragmentation;       /* per instance: allocation - live lower bound */
  int instances_per_block;
  int threads_per_block;
} kf_estimate_t;

/** Cost function replacing the built-in model. @p order is the group in
 * execution order, @p variants the variant of each entry. Fill @p out->time
 * (INFINITY to forbid); @returns 0 or a negative KF_E code. */
typedef int (*kf_cost_fn)(void *user, const kf_problem *p, const int *order,
                          const int *variants, int n, kf_estimate_t *out);

/** Creates a model over a copy of @p prof (NULL: kf_profile_default()).
 * @returns 0, KF_EINVAL, KF_ERANGE (a number of @p prof outside the range a
 * profile file may give it, docs/plan.md) or KF_ENOMEM. */
KF_EXTERN int kf_model_create(kf_model **out, const kf_profile_t *prof,
                              kf_model_kind_t kind);
/** Frees @p m; NULL is allowed. */
KF_EXTERN void kf_model_destroy(kf_model *m);
/** Replaces the built-in formulas by @p fn (NULL restores them). */
KF_EXTERN void kf_model_set_cost(kf_model *m, kf_cost_fn fn, void *user);
/** The profile the model uses. */
KF_EXTERN const kf_profile_t *kf_model_profile(const kf_model *m);

/** Estimates launches @p order[0..n) (a legal execution order) with the given
 * @p variants as one kernel. @returns 0, KF_EINVAL or the cost function's code. */
KF_EXTERN int kf_model_estimate(const kf_model *m, const kf_problem *p,
                                const int *order, const int *variants, int n,
                                kf_estimate_t *out);

#ifdef __cplusplus
}
#endif
#endif
