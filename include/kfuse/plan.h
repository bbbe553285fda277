/* libkfplan: the fusion problem (launches, buffers, accesses), its solution
 * (an ordered set partition of the launches into fused groups) and the k best
 * alternatives. Usable from C++ (the LLVM pass) through extern "C". */
#ifndef KFUSE_PLAN_H
#define KFUSE_PLAN_H

#include <stddef.h>
#include <stdio.h>
#include "kfuse/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kf_problem kf_problem;
typedef struct kf_plan kf_plan;
typedef struct kf_model kf_model;

/* Access modes of a launch to a buffer. */
typedef enum kf_access_mode {
  KF_READ = 1,
  KF_WRITE = 2,
  KF_READWRITE = 3
} kf_access_mode_t;

/* Dependency kinds, derived from accesses in launch order. */
typedef enum kf_dep_kind {
  KF_DEP_RAW = 1,
  KF_DEP_WAR = 2,
  KF_DEP_WAW = 4
} kf_dep_kind_t;

/* One implementation of a launch's kernel (the seed paper's granularities:
 * 1, 3 or 9 threads for a 3x3 product). Zero fields take defaults. */
/* Largest threads_per_instance, instances_per_block and block_threads, and
 * largest registers, kf_problem_add_variant accepts. */
#define KF_VARIANT_MAX_THREADS 32768
#define KF_VARIANT_MAX_REGS 65536
#define KF_VARIANT_MAX_TIE_RANK 1000

typedef struct kf_variant_s {
  const char *name;            /* copied; NULL gives "v<index>" */
  int threads_per_instance;    /* default 1 */
  int instances_per_block;     /* 0: block_threads / threads_per_instance */
  int block_threads;           /* unfused block size; default 256 */
  int registers;               /* per thread; default 32 */
  int shared_bytes;            /* per block, the kernel's own; default 0 */
  double flops;                /* per instance */
  const char *psi_compute;     /* routine name in the psi tables, or NULL */
  /* Of a group's assignments of variants predicted alike, the one whose
   * variants' tie ranks sum lowest comes first (default 0; kfuse gives the
   * implementations it derives itself 1, so that where the model cannot
   * tell them from the program's own, the program's run). */
  int tie_rank;
} kf_variant_t;

/** Legality callback: @returns nonzero if launches @p group[0..n) (ascending
 * launch order) may run as one fused kernel. Only called for connected,
 * convex groups of 2..max_group launches. */
typedef int (*kf_legal_fn)(void *user, const int *group, int n);

/** Legality of one variant assignment: @returns nonzero if launches
 * @p group[0..n) (ascending launch order) may run with launch group[i] in
 * its variant @p variants[i]: as one fused kernel for n >= 2, or alone for
 * n == 1 (where a caller that runs lone launches as they were written
 * allows only their own variant). Called for every group, singletons
 * included, and every assignment the odometer visits, after kf_legal_fn
 * accepted the group; the group is costed in its best legal assignment,
 * and is no candidate where none is legal (a launch that has no legal
 * variant alone makes the problem infeasible). */
typedef int (*kf_legal_variants_fn)(void *user, const int *group, const int *variants, int n);

/** Creates an empty problem. @returns 0 or KF_ENOMEM. */
KF_EXTERN int kf_problem_create(kf_problem **out);
/** Frees @p p and everything it owns; NULL is allowed. */
KF_EXTERN void kf_problem_destroy(kf_problem *p);

/** Adds a buffer. @param dead_after nonzero if the buffer is not read after
 * the sequence, so a fused group that holds all its accesses may drop its
 * global stores. @param id receives the buffer index (0, 1, ...).
 * @returns 0, KF_EINVAL (NULL or empty name, duplicate name) or KF_ENOMEM. */
KF_EXTERN int kf_problem_add_buffer(kf_problem *p, const char *name,
                                    int dead_after, int *id);

/** Marks @p buffer as carried in registers inside a fused group: each thread
 * reads only what the same thread wrote (an element, or a record such as a
 * small matrix per instance), so a group that produces and consumes it
 * stages nothing in shared memory for it. Buffers start unmarked (staged).
 * @returns 0 or KF_EINVAL (NULL @p p, @p buffer out of range). */
KF_EXTERN int kf_problem_set_buffer_registers(kf_problem *p, int buffer, int in_registers);

/* Largest instances per launch, bytes per instance of an access, flops per
 * instance, and psi-table seconds the problem accepts: beyond them the
 * predicted times leave the range the solvers handle with precision. */
#define KF_MAX_INSTANCES 1e15
#define KF_MAX_BYTES_PER_INSTANCE 1e9
#define KF_MAX_FLOPS_PER_INSTANCE 1e12
#define KF_MAX_PSI_SECONDS 1e6

/** Appends a launch (launch order = call order). @param instances number of
 * independent instances (map elements) it processes, > 0 and at most
 * KF_MAX_INSTANCES. The launch starts with no variant; one default variant is assumed if none is
 * added. @returns 0, KF_EINVAL (NULL or empty name, instances not finite or
 * not positive), KF_ERANGE (instances too large) or KF_ENOMEM. */
KF_EXTERN int kf_problem_add_launch(kf_problem *p, const char *name,
                                    double instances, int *id);

/** Adds an implementation variant to @p launch (copied).
 * @returns 0, KF_EINVAL (bad index or negative field), KF_ERANGE (flops
 * beyond KF_MAX_FLOPS_PER_INSTANCE) or KF_ENOMEM. */
KF_EXTERN int kf_problem_add_variant(kf_problem *p, int launch,
                                     const kf_variant_t *v);

/** Records that @p launch accesses @p buffer with @p mode, moving
 * @p bytes_per_instance bytes per instance per direction (0 to
 * KF_MAX_BYTES_PER_INSTANCE). @param psi_routine the psi-table routine of
 * this load/store, or NULL. Accesses must be added before kf_plan_solve();
 * dependencies are derived from them in launch order. @returns 0, KF_EINVAL
 * (bytes not finite or negative, among others), KF_ERANGE (bytes too large)
 * or KF_ENOMEM. */
KF_EXTERN int kf_problem_add_access(kf_problem *p, int launch, int buffer,
                                    kf_access_mode_t mode,
                                    double bytes_per_instance,
                                    const char *psi_routine);

/** Records that @p launch reads @p buffer at neighbouring instances too
 * (a stencil), @p elements of them beyond each block's own (the halo, both
 * sides together). A group that fuses it with the buffer's producer runs
 * the producer again for those instances in every block: the model counts
 * the producer's flops and loads (elements / instances per block) times more.
 * Call after kf_problem_add_access() for that launch and buffer.
 * @returns 0 or KF_EINVAL (bad index, no read of @p buffer by @p launch,
 * @p elements negative or above KF_VARIANT_MAX_THREADS). */
KF_EXTERN int kf_problem_set_halo(kf_problem *p, int launch, int buffer, int elements);

/** Adds one entry of the per-routine timing table psi(routine, instances per
 * block, extra shared memory in bytes) = @p seconds (Fousek et al.), 0 to
 * KF_MAX_PSI_SECONDS. @returns 0, KF_EINVAL, KF_ERANGE or KF_ENOMEM. */
KF_EXTERN int kf_problem_add_psi(kf_problem *p, const char *routine,
                                 int instances_per_block, int extra_shared,
                                 double seconds);

/** Sets the legality callback; NULL (the default) means every connected
 * convex group is legal. */
KF_EXTERN void kf_problem_set_legality(kf_problem *p, kf_legal_fn fn, void *user);

/** Sets the variant legality callback; NULL (the default) allows every
 * assignment. */
KF_EXTERN void kf_problem_set_variant_legality(kf_problem *p, kf_legal_variants_fn fn,
                                               void *user);

/** Nonzero @p consecutive: only groups of consecutive launches (i, i+1,
 * ..., j in launch order) may fuse, as where the code generator fuses
 * runs of adjacent launches. The planner then lists n * max_group groups
 * instead of every connected one, and finds the optimum (and the k best
 * plans) by dynamic programming in O(n * max_group * k_best).
 * @returns 0 or KF_EINVAL (NULL @p p). */
KF_EXTERN int kf_problem_set_consecutive(kf_problem *p, int consecutive);

/** Threads of a fused group's block. 0 (the default) is the seed paper's
 * block: instances per block x the members' largest threads per instance,
 * instances per block lowered until that fits the device's limit. A
 * positive @p threads is the block of kfuse's fused kernels across
 * granularities (256): min(@p threads, instances per block x largest
 * threads per instance) threads at the members' instances per block, a
 * member with more threads per block than that looping over them. The psi
 * tables must be measured the same way (kfuse-calibrate --psi-block).
 * @returns 0 or KF_EINVAL (NULL @p p, @p threads negative or above
 * KF_VARIANT_MAX_THREADS). */
KF_EXTERN int kf_problem_set_fused_block(kf_problem *p, int threads);

/** Parses the whole of @p text as a finite decimal number in [@p lo, @p hi],
 * an integer if @p integer is nonzero, as the problem and profile readers
 * and kfuse-plan's options do: no "inf", "nan", hexadecimal or trailing
 * characters. @returns 0 with *out set, KF_EPARSE (not such a number; an
 * overflow such as 1e999 is out of range instead), KF_ERANGE (a number
 * outside the range) or KF_EINVAL (NULL argument). */
KF_EXTERN int kf_parse_number(const char *text, double lo, double hi, int integer,
                              double *out);

/** Parses a problem file (format in docs/plan.md). On KF_EPARSE, @p err
 * receives "line N: reason". @returns 0, KF_EPARSE, KF_EINVAL or KF_ENOMEM;
 * on error *out is NULL. The legality statements of the file are installed
 * as the problem's legality callback. */
KF_EXTERN int kf_problem_parse(kf_problem **out, const char *text, size_t len,
                               char *err, size_t errlen);

/** kf_problem_parse() on the contents of @p path; KF_EIO if unreadable. */
KF_EXTERN int kf_problem_load(kf_problem **out, const char *path,
                              char *err, size_t errlen);

/** Writes a synthetic problem file like the scalable-fusion paper's suite
 * (Wahib and Maruyama): @p kernels launches, @p arrays buffers, each array
 * used by a sharing set of share_min..share_max launches (its first user
 * writes it unless it is an input), random flops, registers and variants.
 * The same @p seed gives the same file. @returns 0, KF_EINVAL or KF_EIO. */
KF_EXTERN int kf_problem_write_synthetic(FILE *f, int kernels, int arrays,
                                         int share_min, int share_max,
                                         unsigned seed);

/** Sizes and names, for printing. Indices are not checked beyond NULL. */
KF_EXTERN int kf_problem_launch_count(const kf_problem *p);
KF_EXTERN int kf_problem_buffer_count(const kf_problem *p);
KF_EXTERN const char *kf_problem_launch_name(const kf_problem *p, int launch);
KF_EXTERN const char *kf_problem_buffer_name(const kf_problem *p, int buffer);
KF_EXTERN const char *kf_problem_variant_name(const kf_problem *p, int launch,
                                              int variant);

/** Calls @p fn once per derived dependency edge (from < to), in order.
 * @returns the number of edges, or KF_EINVAL. */
KF_EXTERN int kf_problem_foreach_dep(const kf_problem *p,
                                     void (*fn)(void *user, int from, int to,
                                                int kinds),
                                     void *user);

/* Solver choice. */
typedef enum kf_solver {
  KF_SOLVE_AUTO = 0,      /* exact; heuristic above max_exact_launches */
  KF_SOLVE_EXACT = 1,     /* CBC (a heuristic start, proven gap if stopped) */
  KF_SOLVE_HEURISTIC = 2  /* greedy merge + local search only */
} kf_solver_t;

/* Default and largest work_limit. */
#define KF_WORK_LIMIT_DEFAULT 2000000L
#define KF_WORK_LIMIT_MAX 1000000000000L

typedef struct kf_solve_options_s {
  int max_group;          /* k: largest group; default 4 */
  int k_best;             /* number of distinct plans wanted; default 1 */
  long work_limit;        /* units of work for the whole solve, 1 to
                             KF_WORK_LIMIT_MAX; default KF_WORK_LIMIT_DEFAULT.
                             A unit is a candidate group enumerated, a move
                             of the heuristic, a state of the dynamic
                             program, a node of a branch and bound or a
                             simplex iteration: counts that do not depend on
                             the machine, so the same problem and options
                             give the same plan everywhere */
  kf_solver_t solver;
  int max_exact_launches; /* AUTO threshold; default 2000 */
  unsigned seed;          /* heuristic seed; default 1 */
  int assignments;        /* variant assignments of each group of several
                             launches the k best plans may hold, 1 to 1024:
                             1 (the default) gives the k best partitions,
                             each group in its cheapest assignment; more
                             lists a group also in its next cheapest ones,
                             each a plan of its own (the best partition in
                             other implementations before the next best
                             partition, where cheaper); the best plan is the
                             same either way */
} kf_solve_options_t;

/** Fills @p o with the defaults above. */
KF_EXTERN void kf_solve_options_init(kf_solve_options_t *o);

/** Solves @p p with cost model @p m (NULL: the default H100 roofline model).
 * @param opts NULL for defaults. @param out receives the plan (free it with
 * kf_plan_destroy) whenever the return value is 0 or KF_ELIMIT. The best
 * plan is never worse than the best plan of consecutive groups (which is
 * always found exactly) nor than the greedy plan, and depends only on the
 * problem, the model and the options: never on time, load or addresses.
 * @returns 0 when every plan is proven optimal (the i-th plan the i-th best);
 * KF_ELIMIT when the work limit stopped the search: the plan holds the best
 * found and kf_plan_gap() bounds its distance from the optimum;
 * KF_ERANGE when a predicted time is not finite or beyond 1e9 seconds
 * (absurd sizes); KF_EINFEASIBLE, KF_ESOLVER, KF_EINVAL or KF_ENOMEM
 * otherwise. */
KF_EXTERN int kf_plan_solve(const kf_problem *p, const kf_model *m,
                            const kf_solve_options_t *opts, kf_plan **out);

/** Frees a plan; NULL is allowed. */
KF_EXTERN void kf_plan_destroy(kf_plan *plan);

/* One fused group of a plan. Pointers stay valid until kf_plan_destroy. */
typedef struct kf_group_info_s {
  const int *launches;        /* launch indices in execution (linearised) order */
  const int *variants;        /* chosen variant per entry of launches */
  int count;
  double time;                /* predicted seconds */
  int shared_bytes;           /* per block, staging + the kernels' own */
  int instances_per_block;
  int threads_per_block;
} kf_group_info_t;

/** Number of alternative plans held (1..k_best). */
KF_EXTERN int kf_plan_count(const kf_plan *plan);
/** Groups of plan @p rank (0 = best), in a legal execution order. */
KF_EXTERN int kf_plan_group_count(const kf_plan *plan, int rank);
/** @returns 0 or KF_EINVAL for a bad rank or index. */
KF_EXTERN int kf_plan_group(const kf_plan *plan, int rank, int group,
                            kf_group_info_t *out);
/** Predicted total seconds of plan @p rank; negative for a bad rank. */
KF_EXTERN double kf_plan_time(const kf_plan *plan, int rank);
/** Predicted seconds with every launch alone, each in its best variant. */
KF_EXTERN double kf_plan_unfused_time(const kf_plan *plan);
/** unfused time - plan time, seconds. */
KF_EXTERN double kf_plan_gain(const kf_plan *plan, int rank);
/** Relative gap (plan - bound) / plan of the best plan: 0 when proven. */
KF_EXTERN double kf_plan_gap(const kf_plan *plan);
/** Lower bound on the optimum that the gap refers to. */
KF_EXTERN double kf_plan_bound(const kf_plan *plan);
/** Number of candidate groups considered (singletons included). */
KF_EXTERN int kf_plan_candidate_count(const kf_plan *plan);
/** Nonzero if the best plan came from the heuristic alone. */
KF_EXTERN int kf_plan_is_heuristic(const kf_plan *plan);

/* How a solve went, for benchmarks and tests. */
typedef struct kf_plan_stats_s {
  int enumerated;     /* groups enumerated and cheaper than their launches
                         alone, singletons included */
  int candidates;     /* of those, kept after dominance pruning (columns) */
  int conflict_rows;  /* rows the relaxation was tightened with: against
                         groups that depend on each other both ways, cliques
                         of overlapping groups, odd cycles */
  int ilp_solves;     /* CBC runs */
  int cycle_cuts;     /* cuts against cyclic group orders found in CBC's
                         solutions */
  double seconds;     /* wall time of kf_plan_solve (reported, never used) */
  long work;          /* work units the solve spent (see work_limit) */
  long sweep_states;  /* states the sweep expanded (the exact search by
                         dynamic programming over the launches in order) */
} kf_plan_stats_t;

/** Fills @p out with the statistics of the solve that made @p plan.
 * @returns 0 or KF_EINVAL. */
KF_EXTERN int kf_plan_stats(const kf_plan *plan, kf_plan_stats_t *out);

#ifdef __cplusplus
}
#endif
#endif
