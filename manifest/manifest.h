/* The parsed form of a `kfuse-manifest 1` text (docs/manifest.md): the fused
 * kernels of one module and the guards each needs. */
#ifndef KFUSE_MANIFEST_MANIFEST_H
#define KFUSE_MANIFEST_MANIFEST_H

#include <stddef.h>
#include <stdint.h>

#include "manifest/expr.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The name of a module's manifest global is this prefix followed by its
 * translation unit's key, 16 hex digits (docs/manifest.md). */
#define KF__MANIFEST_PREFIX "__kfuse_manifest_"
/** The name the runtime reads where a site names no manifest
 * (kf_site_t.manifest NULL: a host module without a key). */
#define KF__MANIFEST_SYMBOL "__kfuse_manifest"

/* Limits on what a manifest may declare: far above what the device pass
 * emits, low enough that a corrupt count cannot exhaust memory. */
#define KF__MANIFEST_VERSION 1
#define KF__MANIFEST_MAX_BYTES (16u << 20)
#define KF__MANIFEST_MAX_LAUNCHES 256
#define KF__MANIFEST_MAX_PARAMS 1024
#define KF__MANIFEST_MAX_GROUPS 65536
#define KF__MANIFEST_MAX_LINES 4096 /* guard lines per group, `missed` lines */
#define KF__MANIFEST_MAX_PLANS 256  /* `plans` count: ranks 0..255 */
#define KF__MANIFEST_MAX_REASON 1024 /* bytes of a `missed` line's reason */
#define KF__MANIFEST_MAX_PARTS 8     /* groups of one `part` set */

/** "<a>.<p>": parameter p of launch a of the group. */
typedef struct kf__param_ref {
  uint32_t launch;
  uint32_t param;
} kf__param_ref_t;

typedef struct kf__mkernel {
  char *name;      /**< mangled name of the original kernel */
  uint32_t nparams;
  /** `field` lines of this launch: its parameters nparams.. nparams +
   * nfields - 1 are fields of its by-value arguments. */
  uint32_t nfields;
} kf__mkernel_t;

/** Most `field` lines per launch. */
#define KF__MANIFEST_MAX_FIELDS 16
/** Largest byte offset a `field` line names. */
#define KF__FIELD_MAX_BYTE 32760

/** `field <a>.<q> <p> <byte>`: parameter q of launch a, after its kernel's
 * own, is the pointer at byte @c byte of its by-value parameter p: the
 * runtime passes the address of those bytes of the launch's argument, so
 * the guards, and the fused kernel, read the pointer the kernel would load
 * from its struct (a buffer in a field, a lambda's capture). */
typedef struct kf__ptrfield {
  kf__param_ref_t ref;
  uint32_t param;
  uint32_t byte;
} kf__ptrfield_t;

enum { KF__FP_READ = 1, KF__FP_WRITE = 2 };

typedef struct kf__footprint {
  kf__param_ref_t ref;
  unsigned mode;   /**< KF__FP_READ | KF__FP_WRITE */
  kf__expr_t *lo;  /**< NULL: the text did not compile; the guard then fails */
  kf__expr_t *hi;
} kf__footprint_t;

typedef struct kf__pair {
  kf__param_ref_t a;
  kf__param_ref_t b;
} kf__pair_t;

/** Most byte ranges an `equal` line lists. */
#define KF__EQUAL_MAX_RANGES 16
/** Largest byte offset an `equal` range names (a kernel's parameters take
 * at most 32764 bytes). */
#define KF__EQUAL_MAX_BYTE 32767

/** `equal <a>.<p> <b>.<q> [<ranges>]`: the two arguments are equal, every
 * byte of them, or where the line lists ranges ("0-3,8-15": a struct's
 * fields, its padding left out) those bytes alone, ascending, inclusive. */
typedef struct kf__equal {
  kf__param_ref_t a;
  kf__param_ref_t b;
  uint32_t nranges; /**< 0: every byte */
  struct {
    uint32_t first, last;
  } ranges[KF__EQUAL_MAX_RANGES];
} kf__equal_t;

/** `le <a> <lhs> <rhs>`: lhs <= rhs, both evaluated for launch a; `le <a>
 * <lhs> <b> <rhs>`: lhs evaluated for launch a, rhs for launch b. */
typedef struct kf__le {
  uint32_t launch;
  uint32_t rhs_launch; /**< the launch rhs is evaluated for */
  kf__expr_t *lhs; /**< NULL: the text did not compile; the guard then fails */
  kf__expr_t *rhs;
} kf__le_t;

typedef struct kf__dead {
  uint32_t bit;
  kf__param_ref_t ref;
  /** `covered`: every execution of the run, fused or not, writes each
   * element of the buffer it reads before reading it (docs/manifest.md). */
  unsigned covered : 1;
} kf__dead_t;

/** `impl <a>.<p> <from> <to>`: launch a's kernel runs @c from threads per
 * instance and its integer parameter p counts its threads (`if (j < m)`,
 * m = from * instances); the fused kernel's stage is another implementation
 * of the same function with @c to threads per instance, whose parameter p
 * counts its own. The runtime checks p a multiple of @c from, at least 0
 * and at most the launch's threads, and evaluates the group's other lines,
 * grid and arguments for a launch of that implementation: p * to / from,
 * and grid.x * to / from rounded up (kf__impl_view(), guard.c). */
typedef struct kf__impl {
  kf__param_ref_t ref;
  uint32_t from, to;
} kf__impl_t;

/** `align <a>.<p> <bytes>`: the pointer in parameter p of launch a is a
 * multiple of @c bytes (a power of two, 2 to 4096): the fused kernel moves
 * the buffer's records from its start in words of that size. */
typedef struct kf__align {
  kf__param_ref_t ref;
  uint32_t bytes;
} kf__align_t;

typedef struct kf__group {
  char *name;            /**< the fused kernel */
  uint32_t nlaunches;
  kf__mkernel_t *kernels; /**< nlaunches entries, in launch order */
  uint32_t nparams_total; /**< sum of the kernels' params and fields (dead mask not counted) */
  /** `rider <i> [before]` lines: launch i of the group is not fused. It
   * runs, unfused, after the fused kernel, or with `before` before it (the
   * `disjoint` lines check what the order relies on). Neither the first nor
   * the last launch is a rider. Bit i of riders[i / 64], and of
   * riders_before[i / 64] for `before`. */
  uint64_t riders[KF__MANIFEST_MAX_LAUNCHES / 64];
  uint64_t riders_before[KF__MANIFEST_MAX_LAUNCHES / 64];
  /** `rider <i> [before] other`: the rider is a launch another group of
   * its set (`part`) runs, fused or as its own rider; this group's fused
   * run leaves it alone, and `before` says on which side of this group it
   * runs. Bit i of riders_other[i / 64]. */
  uint64_t riders_other[KF__MANIFEST_MAX_LAUNCHES / 64];
  uint32_t nriders;
  /** `part <index> <offset> <id>`: the group is part @c part (0 to
   * KF__MANIFEST_MAX_PARTS - 1) of a set of groups whose spans overlap,
   * which the runtime runs as one: part 0's launches (its fused kernel with
   * its riders), then part 1's, and so on. Part k's span starts at launch
   * @c part_offset of the set's (part 0: 0), inside the spans of the parts
   * before it. part_id: the set's number in the manifest, 0 for a group
   * alone. Derived when the manifest is read: @c part_next, the part that
   * runs after this one (NULL for the last), @c part_count, the set's
   * parts, and, for part 0, @c part_span, the launches the set covers. */
  uint32_t part;
  uint32_t part_offset;
  uint32_t part_id;
  uint32_t part_span;
  uint32_t part_count;
  const struct kf__group *part_next;
  /** The fused kernel's parameters: the params of the launches that are
   * not riders (derived at `end`). */
  uint32_t nparams_fused;
  unsigned shape_same : 1;
  /** `shape split`: equal blocks, grid.y and grid.z; the fused kernel runs
   * the launches' blocks side by side along x (grid.x is their sum) and
   * takes each launch's grid.x as a u32 after the launches' parameters. */
  unsigned shape_split : 1;
  /** `shape gran <ipb> <t_0> ... <t_{n-1}> [<threads>]`: the launches run
   * over the same instances at different granularities, launch i with
   * gran_tpi[i] threads per instance (0 for a rider). The fused kernel
   * runs gran_ipb instances per block, in blocks of gran_threads threads
   * (at most 1024; gran_tpi_max * gran_ipb where the line does not say,
   * else at most that: its stages loop), and its grid.x is what covers the
   * launch that needs the most blocks (kf__gran_grid_x()); no grid or
   * block need be equal. */
  unsigned shape_gran : 1;
  uint32_t gran_ipb;
  uint32_t gran_tpi_max;
  uint32_t gran_threads;
  uint32_t *gran_tpi; /**< nlaunches entries under `shape gran`, else NULL */
  unsigned stream_same : 1;
  unsigned has_dynshmem : 1;
  uint64_t dynshmem;
  uint32_t grid_launch;
  uint32_t block_launch;
  uint32_t shared_bytes;
  uint32_t nequal, ndisjoint, nfootprints, ndead, nle, nimpl, nalign, nfields;
  kf__ptrfield_t *fields;
  kf__impl_t *impl;
  kf__align_t *align;
  kf__le_t *le;
  kf__equal_t *equal;
  kf__pair_t *disjoint;
  kf__footprint_t *footprints;
  kf__dead_t *dead;
  double predict_unfused_ns, predict_fused_ns; /**< -1 when absent */
  /** `plans <count> <first> <length> <function> <ranks>`: the group belongs
   * to those plans of its sequence's @c plan_count, and covers launches from
   * @c plan_first on of the sequence of @c plan_length launches in host
   * function @c plan_function. plan_count 0: no such line (the best plan's
   * group, at any position of any site). */
  uint32_t plan_count;
  uint32_t plan_first;
  uint32_t plan_length;
  char *plan_function;
  uint64_t plan_ranks[KF__MANIFEST_MAX_PLANS / 64];
  /** `at <first> <length> <line>:<col> <function>`: the group covers
   * launches from @c at_first on of the one sequence of @c at_length
   * launches whose first launch is at @c at_line : @c at_col of host
   * function @c at_function, and is bound to that sequence's site only.
   * at_function NULL: no such line (a group bound by kernel names alone,
   * at any position of any site). */
  uint32_t at_first;
  uint32_t at_length;
  uint32_t at_line;
  uint32_t at_col;
  char *at_function;
  /* Derived at `end`, for the per-call guards (guard.c): */
  /** 2*ndisjoint entries: the footprint index of each pair's a and b,
   * KF__NO_FOOTPRINT when the manifest gives that parameter none. */
  uint32_t *disjoint_fp;
  /** nfootprints entries each: the first footprint of the same launch whose
   * lo (hi) expression is the same program, so one evaluation serves both
   * (the footprint's own index when none comes before). */
  uint32_t *lo_src, *hi_src;
} kf__group_t;

#define KF__NO_FOOTPRINT UINT32_MAX

/** `missed <function> <line> <length> <first> <last> <reason>`: the device
 * pass did not fuse launches first..last of the sequence of @c length
 * launches whose first launch is at line @c line of host function
 * @c function, for @c reason (its remark's words). The runtime keeps these
 * for nothing; the host pass quotes them in its remarks. */
typedef struct kf__missed {
  char *function;
  uint32_t line;
  uint32_t length;
  uint32_t first;
  uint32_t last;
  char *reason;
} kf__missed_t;

typedef struct kf__manifest {
  uint32_t version;
  uint32_t ngroups;
  kf__group_t *groups;
  uint32_t nmissed;
  kf__missed_t *missed;
} kf__manifest_t;

/**
 * Parses @p len bytes of manifest text (stops at the first NUL).
 * @param out receives a manifest to free with kf__manifest_free().
 * @param err_line receives the 1-based line of the first error (0 when none); may be NULL.
 * @returns 0; KF_EVERSION for a version other than 1; KF_EPARSE for anything
 * malformed (unknown directive, bad number, reference out of range, missing
 * `end`, ...); KF_ERANGE for counts beyond the limits above; KF_ENOMEM.
 * Footprint expressions that do not compile are not an error: they make the
 * group's disjointness guards fail at run time.
 */
int kf__manifest_parse(const char *text, size_t len, kf__manifest_t **out, unsigned *err_line);

/** Frees @p m; NULL is fine. */
void kf__manifest_free(kf__manifest_t *m);

/** Nonzero when @p g may run under plan @p rank (KFUSE_PLAN): always for a
 * group without a `plans` line; else when its ranks hold @p rank, or rank 0
 * when its sequence has no plan @p rank. */
int kf__group_in_plan(const kf__group_t *g, uint32_t rank);

/** Nonzero when launch @p i of @p g is a rider (`rider` line): not fused. */
static inline int kf__group_rider(const kf__group_t *g, uint32_t i)
{
  return i < KF__MANIFEST_MAX_LAUNCHES && (g->riders[i / 64] >> (i % 64) & 1) != 0;
}

/** Nonzero when launch @p i of @p g is a rider that runs before the fused
 * kernel (`rider <i> before`). */
static inline int kf__group_rider_before(const kf__group_t *g, uint32_t i)
{
  return i < KF__MANIFEST_MAX_LAUNCHES && (g->riders_before[i / 64] >> (i % 64) & 1) != 0;
}

/** Nonzero when launch @p i of @p g is a rider another group of its set
 * runs (`rider <i> ... other`). */
static inline int kf__group_rider_other(const kf__group_t *g, uint32_t i)
{
  return i < KF__MANIFEST_MAX_LAUNCHES && (g->riders_other[i / 64] >> (i % 64) & 1) != 0;
}

/** @returns the footprint of @p ref in @p g, NULL when the manifest gives none. */
const kf__footprint_t *kf__group_footprint(const kf__group_t *g, kf__param_ref_t ref);

#ifdef __cplusplus
}
#endif
#endif
