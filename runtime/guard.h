/* The run-time guards of a fused group: the conditions under which its
 * fused kernel computes what the original launches compute. */
#ifndef KFUSE_RUNTIME_GUARD_H
#define KFUSE_RUNTIME_GUARD_H

#include <stdint.h>

#include "kfuse/rt.h"
#include "manifest/manifest.h"

/**
 * Checks every guard of @p g against the group's launches @p l (g->nlaunches
 * of them): shape, stream (always: one fused kernel runs on one stream),
 * dynamic shared memory, `equal`, then `disjoint`.
 * @returns KF_FALLBACK_COUNT when all hold, else the first failing guard's
 * reason (WIRING, SCALAR, OVERLAP, SHAPE, STREAM, SHMEM).
 */
kf_fallback_t kf__guards_check(const kf__group_t *g, const kf_launch_t *l);

/**
 * kf__guards_check(), also telling in @p pure whether the verdict came from
 * the launches alone (grid, block, shmem, stream, argument bytes): 0 when a
 * `disjoint` pair needed the per-pair path, which may ask the driver for
 * allocation ranges. Only a pure pass may be memoized (memo.h).
 */
kf_fallback_t kf__guards_check_pure(const kf__group_t *g, const kf_launch_t *l, int *pure);

/**
 * The launches of @p g as its fused kernel's stages see them: where the
 * group has `impl` lines, a copy of @p l in which each such launch's
 * parameter p holds p * to / from and its grid.x is grid.x * to / from
 * rounded up, as if the program had launched the implementation the stage
 * runs (docs/manifest.md, `impl`). Every other line of the group, its
 * grid and its arguments are evaluated on the view.
 * @returns KF_FALLBACK_COUNT with *view NULL (no `impl` line: use @p l) or
 * a malloc'd copy the caller frees; KF_FALLBACK_SHAPE for a launch that is
 * not 1-D; KF_FALLBACK_LAYOUT when a parameter is not an integer of 4 or 8
 * bytes, is negative, is not a multiple of from, exceeds the launch's
 * threads, or does not fit once scaled; KF_FALLBACK_LAUNCH without memory.
 */
kf_fallback_t kf__impl_view(const kf__group_t *g, const kf_launch_t *l, kf_launch_t **view);

/**
 * For a `shape split` group: the fused launch's grid.x, the sum of the
 * launches' grid.x, or 0 when it exceeds the device's limit of 2^31 - 1 or
 * a launch's grid.x is 0 (that launch fails unfused, which the fallback
 * keeps).
 */
uint32_t kf__split_grid_x(const kf__group_t *g, const kf_launch_t *l);

/**
 * For a `shape gran` group: the fused launch's grid.x, enough blocks of
 * g->gran_ipb instances for the launch that needs the most: the maximum
 * over the launches i that are not riders of
 * ceil(grid.x * block.x / (gran_tpi[i] * gran_ipb)), in 64-bit arithmetic.
 * 0 when a launch is not 1-D (grid.y, grid.z, block.y or block.z other
 * than 1), has a grid.x or block.x of 0, or the result times the block
 * (gran_tpi_max * gran_ipb threads) exceeds 2^31 - 1, so that no stage's
 * global index passes an int, and for a group of another shape.
 */
uint32_t kf__gran_grid_x(const kf__group_t *g, const kf_launch_t *l);

/**
 * The byte range launch ref.launch touches through pointer param ref.param:
 * its footprint if the manifest has one, else the whole allocation.
 * @returns 0, or KF_EINVAL (not an 8-byte argument, or the footprint does
 * not evaluate) / KF_ECUDA (no footprint and cuMemGetAddressRange failed).
 */
int kf__param_range(const kf__group_t *g, const kf_launch_t *l, kf__param_ref_t ref,
                    uint64_t *lo, uint64_t *hi);

/**
 * kf__param_range() within the pointer's allocation: the bytes that exist
 * of it (a footprint is a superset of what the launch touches, and may
 * reach past the allocation where the kernel's bound is not one the
 * device pass reads: `i < a * b`). For copies of what a launch may write
 * (KFUSE_VERIFY). @returns as kf__param_range(), KF_ECUDA when the
 * allocation cannot be found.
 */
int kf__param_bytes(const kf__group_t *g, const kf_launch_t *l, kf__param_ref_t ref,
                    uint64_t *lo, uint64_t *hi);

/**
 * The dead mask to pass the fused kernel of the group whose launches are
 * @p l[0..nlaunches) of the @p n launches of a call starting at @p all:
 * bit k of each `dead k a.p` line whose buffer
 *  - has bit p of kf_launch_t.dead (not read after the call), or
 *  - has bit p of kf_launch_t.rerun (read after the call only by the next
 *    execution of this same call) and the line says `covered` (each
 *    execution writes every element of it it reads before reading it), and
 *    is no argument of a launch before the group in this call (that launch
 *    would read it before the group writes it),
 * and is no argument of a launch after the group in this call (it still
 * reads it).
 */
uint64_t kf__dead_mask(const kf__group_t *g, const kf_launch_t *all, uint32_t n,
                       uint32_t first);

/**
 * kf__dead_mask(), where a buffer is also dead when everything the launch
 * may write through it (its footprint, else its allocation) lies in a range
 * kf_rt_scratch() declared and nothing else makes it dead; the rule about
 * later launches of the call applies as to the `dead` bit. @p declared
 * (may be NULL) gets the bits set only because of such a range.
 */
uint64_t kf__dead_mask_declared(const kf__group_t *g, const kf_launch_t *all, uint32_t n,
                                uint32_t first, uint64_t *declared);

/** kf__dead_mask_declared() where the launches @p all are those of a call
 * from @p site, whose field table (kf_site_t.fields) lists the buffers the
 * launches pass in fields of struct arguments: "an argument of a launch"
 * includes those. */
uint64_t kf__dead_mask_site(const kf__group_t *g, const kf_site_t *site, const kf_launch_t *all,
                            uint32_t n, uint32_t first, uint64_t *declared);

/** @returns the 8-byte pointer value of argument @p p of @p l in @p ptr; 0 or KF_EINVAL. */
int kf__arg_pointer(const kf_launch_t *l, uint32_t p, uint64_t *ptr);

#endif
