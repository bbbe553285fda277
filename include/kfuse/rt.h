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

/* XX(name, text): why a group ran unfused. KFUSE_STATS counts them per site
 * under these names, and KFUSE_LOG names them. */
#define KF_FALLBACK_MAP(XX)                                                   \
  XX(DISABLED, "disabled")         /* KFUSE_DISABLE=1 */                      \
  XX(NO_MANIFEST, "no-manifest")   /* module has no (readable) manifest */    \
  XX(NO_MATCH, "no-match")         /* no fused kernel covers these launches */\
  XX(WIRING, "wiring")             /* an `equal` pointer pair differs */      \
  XX(SCALAR, "scalar")             /* an `equal` scalar pair differs */       \
  XX(OVERLAP, "overlap")           /* two `disjoint` footprints overlap */    \
  XX(SHAPE, "shape")               /* grid or block differ between launches */\
  XX(STREAM, "stream")             /* launches on different streams */        \
  XX(SHMEM, "shmem")               /* dynamic shared memory differs */        \
  XX(LAYOUT, "layout")             /* an `le` or `align` guard fails */        \
  XX(LAUNCH, "launch-failed")      /* the fused launch itself failed */       \
  XX(MISMATCH, "verify-mismatch")  /* KFUSE_VERIFY found different bits */   \
  XX(CAPTURE, "capture")           /* discovery failed in a capture: retry */ \
  XX(PENDING, "pending-error")     /* an error the program has not read yet */

typedef enum kf_fallback {
#define KF__FALLBACK_ENUM(name, text) KF_FALLBACK_##name,
  KF_FALLBACK_MAP(KF__FALLBACK_ENUM)
#undef KF__FALLBACK_ENUM
  KF_FALLBACK_COUNT
} kf_fallback_t;

/** One original launch, exactly as the source wrote it. */
typedef struct kf_launch {
  /** The kernel's host stub, the handle the original code passes to cudaLaunchKernel. */
  const void *func;
  uint32_t grid[3];
  uint32_t block[3];
  /** Dynamic shared memory bytes. */
  size_t shmem;
  /** cudaStream_t of the launch (NULL: the legacy default stream; a
   * translation unit compiled for the per-thread default stream passes
   * cudaStreamPerThread where its launch named the default stream). */
  void *stream;
  /** One pointer per kernel parameter, pointing at the argument's value. */
  void **args;
  /** Size in bytes of each argument (nargs entries). */
  const uint32_t *arg_sizes;
  uint32_t nargs;
  /** Bit p set (p < 32): pointer parameter p's buffer is not read after the
   * run before either its end of life or the next execution of this same
   * run (a time loop), so the fused kernel may skip its stores where every
   * execution of the run writes each element of it before reading it (the
   * manifest's `dead ... covered`). The host pass sets it only when it can
   * prove it; the runtime checks the rest (docs/runtime.md). */
  uint32_t rerun;
  /** Bit p set: pointer parameter p's buffer is dead after the run (never read
   * again before it is freed or overwritten), so the fused kernel may skip its
   * stores. The host pass sets it only when it can prove it. */
  uint64_t dead;
} kf_launch_t;

/** A pointer argument of a run that the source declared scratch with
 * `kfuse_scratch` (README.md, "Scratch buffers"): the host pass set its
 * `dead` bit on that promise, not on a proof. KFUSE_VERIFY names it. */
typedef struct kf_scratch_decl {
  /** Launch index within the site's run, and parameter index (from 0). */
  uint32_t launch;
  uint32_t param;
  /** The declared variable or field as the source names it ("Ctx::t"). */
  const char *name;
  /** "file:line" of the declaration. */
  const char *at;
} kf_scratch_decl_t;

/** What the host pass proved of a buffer after its run (kf_field_ptr_t.fate). */
enum {
  KF_FIELD_LIVE = 0,  /**< nothing: it may be read */
  KF_FIELD_DEAD = 1,  /**< as kf_launch_t.dead says of a pointer argument */
  KF_FIELD_RERUN = 2, /**< as kf_launch_t.rerun says of a pointer argument */
};

/** A buffer pointer that a launch of a run passes in a field of a struct
 * argument (a lambda's capture, `f.u` of `Fields f`): the pointer at byte
 * @c byte of argument @c param of launch @c launch. The host pass lists
 * every one it saw stored there, so that the runtime sees the buffers the
 * run's launches reach through their structs, with what it proved of the
 * buffer after the run. */
typedef struct kf_field_ptr {
  uint32_t launch;
  uint32_t param;
  uint32_t byte;
  uint32_t fate; /**< KF_FIELD_LIVE, KF_FIELD_DEAD or KF_FIELD_RERUN */
} kf_field_ptr_t;

/** A call site: one per rewritten run, a static the host pass emits,
 * zero-initialised but for @c where, @c nlaunches, the scratch table,
 * @c manifest and @c anchor.
 * The runtime owns @c cache. */
typedef struct kf_site {
  /** "file:line:col function" of the first launch, for logs and stats. */
  const char *where;
  /** Runtime-private, atomically published match result; NULL at first. */
  void *volatile cache;
  uint32_t nlaunches;
  /** Entries of @c scratch. */
  uint32_t nscratch;
  /** The run's arguments declared scratch (NULL when none). */
  const kf_scratch_decl_t *scratch;
  /** The symbol of the manifest of the site's translation unit,
   * "__kfuse_manifest_<key>" (docs/manifest.md): the runtime reads that one
   * in the module of each launch's kernel, so under -fgpu-rdc, where every
   * file's device code is one module, each site reads its own file's. NULL:
   * "__kfuse_manifest" (a host module without a key). */
  const char *manifest;
  /** A host address registered for one of the fused kernels of the site's
   * translation unit (whole-program builds; NULL otherwise): the runtime
   * reads the manifest and the fused kernels in the module this address
   * leads to. A launch's own kernel may be in another file's module: a
   * template or inline kernel is defined in every file that uses it, and
   * the linker keeps one file's host stub. */
  const void *anchor;
  /** Entries of @c fields. */
  uint32_t nfields;
  /** The pointers the run's launches pass in fields of struct arguments
   * (NULL when none). */
  const kf_field_ptr_t *fields;
} kf_site_t;

/**
 * Runs the @p n launches of @p site: as fused kernels where the device pass
 * made them and every guard holds, else as the original launches, in order.
 * Launch errors surface exactly as the original launches would report them
 * (cudaGetLastError() afterwards gives the same answer).
 * Thread-safe.
 */
KF_EXTERN void kf_rt_launch_seq(kf_site_t *site, const kf_launch_t *launches, uint32_t n);

/**
 * Environment (read once, at the first call):
 *   KFUSE_DISABLE=1   never fuse: every site runs its original launches.
 *   KFUSE_LOG=<level> error|warn|info|debug (or 0..4): log to stderr, lines
 *                     start with "kfuse: ".
 *   KFUSE_STATS=1     at exit, one line per site on stderr:
 *                     "kfuse-stats: <where>: calls=<n> fused=<n> fallback=<n>"
 *                     followed by " <reason>=<n>" for every reason seen
 *                     (names from KF_FALLBACK_MAP), then " captured=<n>":
 *                     calls made while a launch's stream was capturing a
 *                     CUDA graph (counted in calls/fused/fallback too; a
 *                     graph's replays do not call the runtime).
 *   KFUSE_PLAN=<r>    run plan r (0 = best, the default) of modules built
 *                     with -mllvm -kfuse-plans=K; see kf_rt_select_plan().
 *                     KFUSE_STATS lines then end with " plan=<r>".
 *   KFUSE_VERIFY=1    run each fused group also unfused on copies of its
 *                     buffers and compare bit for bit; a difference prints
 *                     "kfuse-verify: <where>: <fused-kernel>: launch <i> (<kernel>)
 *                     param <p> byte <offset>: fused 0x.. unfused 0x.." and the
 *                     unfused results are kept. Also poisons scratch buffers,
 *                     as KFUSE_VERIFY=scratch does. A call captured into a
 *                     CUDA graph is not checked (either mode): it is
 *                     recorded as without KFUSE_VERIFY, and the site's first
 *                     such call prints "kfuse-verify: <where>: skipped: ...".
 *   KFUSE_VERIFY=scratch  after each run, fill what it wrote to buffers
 *                     declared scratch (kfuse_scratch, kf_rt_scratch()) with
 *                     a NaN pattern, and report a later kfuse launch that
 *                     reads it before anything writes it:
 *                     "kfuse-verify: scratch buffer '<name>' declared at
 *                     <file:line> is read by launch <i> (<kernel>) param <p>
 *                     of <where> before it is written (...)". Works with
 *                     KFUSE_DISABLE=1 too (docs/runtime.md).
 */

/** Plan ranks the runtime can select: 0 .. KF_RT_MAX_PLANS-1. */
#define KF_RT_MAX_PLANS 256

/**
 * Selects which of the device pass's plans runs from now on: rank 0 is the
 * best predicted plan (the default, or KFUSE_PLAN), rank r the (r+1)-th best
 * of a module built with `-mllvm -kfuse-plans=K` (K > r). A sequence with
 * fewer plans runs its best one. Every site matches its launches again at
 * its next call. For measuring plans against each other (empirical
 * selection, kfuse-bench --plans); call it while no other thread launches
 * through kfuse. A rank of KF_RT_MAX_PLANS or more selects plan 0.
 */
KF_EXTERN void kf_rt_select_plan(unsigned rank);

/** @returns the plan rank kf_rt_select_plan() or KFUSE_PLAN selected. */
KF_EXTERN unsigned kf_rt_selected_plan(void);

/**
 * Declares the @p bytes of device memory at @p ptr scratch between kfuse
 * runs, for buffers the compiler cannot see declared (a pointer from another
 * translation unit or a library; `kfuse_scratch` covers variables and
 * fields): after a kf_rt_launch_seq() run that writes into the range, its
 * contents are not read (by any kernel, copy, memset or host access) before
 * they are written again; only the run's own later launches read what the
 * run wrote. The fused kernels then skip their stores to it exactly as to a
 * buffer the host pass proved dead: a store is skipped only where the whole
 * footprint of the writing launch lies inside the range and no later launch
 * of the same run gets the pointer. Use the kf_rt_scratch() macro, which
 * passes the caller's file:line as @p where (copied; named by KFUSE_VERIFY).
 * Thread-safe; runs that are in flight in other threads may or may not see
 * the declaration.
 * @returns 0; KF_EINVAL when @p ptr is NULL, @p bytes is 0, the range wraps
 * around, or it overlaps a range already declared; KF_ENOMEM.
 */
KF_EXTERN int kf_rt_scratch_at(const void *ptr, size_t bytes, const char *where);

/**
 * Ends the declaration kf_rt_scratch() made at @p ptr (the same address):
 * from the next run on, stores to it are kept. Call it before the memory is
 * freed or handed to code that reads it after a run.
 * @returns 0, or KF_ENOENT when no declared range starts at @p ptr.
 */
KF_EXTERN int kf_rt_scratch_end(const void *ptr);

#define KF__STR2(x) #x
#define KF__STR(x) KF__STR2(x)
/** kf_rt_scratch_at() with the caller's "file:line". */
#define kf_rt_scratch(ptr, bytes) kf_rt_scratch_at((ptr), (bytes), __FILE__ ":" KF__STR(__LINE__))

/** @returns the KF_FALLBACK_MAP text of @p reason ("?" when out of range). */
KF_EXTERN const char *kf_rt_fallback_name(kf_fallback_t reason);

#ifdef __cplusplus
}
#endif
#endif
