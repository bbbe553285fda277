/* The two ways a group runs: its original launches through the runtime API
 * (as the host stubs would), or its fused kernel through the driver API. */
#include "runtime/launch.h"

#include <stdlib.h>

#include "runtime/capture.h"
#include "runtime/cuda_api.h"
#include "runtime/guard.h"
#include "runtime/log.h"

void kf__launch_originals(const kf_launch_t *l, uint32_t count)
{
  __typeof__(&cudaLaunchKernel) launch = KF__CU(cudaLaunchKernel);
  for (uint32_t i = 0; i < count && launch != NULL; i++) {
    dim3 grid = {l[i].grid[0], l[i].grid[1], l[i].grid[2]};
    dim3 block = {l[i].block[0], l[i].block[1], l[i].block[2]};
    /* The stubs ignore the result too: the error is left for
     * cudaGetLastError(), exactly as without kfuse. */
    (void)launch(l[i].func, grid, block, l[i].args, l[i].shmem, (cudaStream_t)l[i].stream);
  }
}

/* Launches with room for this many argument pointers need no allocation. */
#define KF__STACK_ARGS 64

/* Runs the launches of @p g through their stubs, in order, all of its own
 * (never the `other` riders of a set's part), or (@p after_only) all but
 * the riders that run before the fused kernel, which already ran. */
static void kf__launch_unfused(const kf__group_t *g, const kf_launch_t *l, int after_only)
{
  for (uint32_t i = 0; i < g->nlaunches; i++)
    if (!kf__group_rider_other(g, i) && (!after_only || !kf__group_rider_before(g, i)))
      kf__launch_originals(&l[i], 1);
}

void kf__launch_group_unfused(const kf__group_t *g, const kf_launch_t *l)
{
  kf__launch_unfused(g, l, 0);
}

/* Runs the riders of @p g that run before the fused kernel (@p before) or
 * after it, in launch order: its own, not the other part's. */
static void kf__launch_riders(const kf__group_t *g, const kf_launch_t *l, int before)
{
  for (uint32_t i = 1; g->nriders != 0 && i + 1 < g->nlaunches; i++)
    if (kf__group_rider(g, i) && !kf__group_rider_other(g, i) && kf__group_rider_before(g, i) == before)
      kf__launch_originals(&l[i], 1);
}

static int kf__launch_fused_view(const kf__segment_t *seg, const kf_launch_t *l, const kf_launch_t *vl,
                                 uint64_t dead_mask);

int kf__launch_fused(const kf__segment_t *seg, const kf_launch_t *l, uint64_t dead_mask)
{
  /* The stages' view of the launches (`impl` lines); the originals, and
   * riders, run as the program launched them. */
  kf_launch_t *view;
  int rc;
  if (kf__impl_view(seg->group, l, &view) != KF_FALLBACK_COUNT) {
    kf__launch_unfused(seg->group, l, 0);
    return KF_EINVAL;
  }
  rc = kf__launch_fused_view(seg, l, view ? view : l, dead_mask);
  free(view);
  return rc;
}

static int kf__launch_fused_view(const kf__segment_t *seg, const kf_launch_t *l, const kf_launch_t *vl,
                                 uint64_t dead_mask)
{
  const kf__group_t *g = seg->group;
  __typeof__(&cuLaunchKernel) launch = KF__CU(cuLaunchKernel);
  void *stack_args[KF__STACK_ARGS];
  void **args = stack_args;
  const kf_launch_t *gl = &l[g->grid_launch], *bl = &l[g->block_launch];
  uint32_t grid[3] = {gl->grid[0], gl->grid[1], gl->grid[2]};
  uint32_t block[3] = {bl->block[0], bl->block[1], bl->block[2]};
  size_t nslots = (size_t)g->nparams_fused + (g->shape_split ? g->nlaunches : 0) + 1;
  uint32_t nargs = 0;
  CUresult res;
  if (g->shape_split) {
    /* The launches' blocks side by side along x, and each launch's grid.x
     * passed after the launches' parameters (the guards checked that the
     * sum fits). */
    grid[0] = kf__split_grid_x(g, l);
  } else if (g->shape_gran) {
    /* One line of blocks of gran_ipb instances each, as many as the launch
     * that needs the most (the guards checked that it fits and that every
     * launch is 1-D); the `launch` line's grid and block launches play no
     * part. */
    grid[0] = kf__gran_grid_x(g, vl), grid[1] = grid[2] = 1;
    block[0] = g->gran_threads, block[1] = block[2] = 1;
  }
  if (launch == NULL) {
    kf__launch_unfused(g, l, 0);
    return KF_ECUDA;
  }
  if (nslots > KF__STACK_ARGS && (args = malloc(nslots * sizeof *args)) == NULL) {
    kf__launch_unfused(g, l, 0);
    return KF_ENOMEM;
  }
  for (uint32_t i = 0; i < g->nlaunches; i++)
    for (uint32_t p = 0; p < l[i].nargs && !kf__group_rider(g, i); p++)
      args[nargs++] = vl[i].args[p];
  if (g->shape_split)
    for (uint32_t i = 0; i < g->nlaunches; i++)
      if (!kf__group_rider(g, i))
        args[nargs++] = (void *)&l[i].grid[0];
  args[nargs] = &dead_mask;
  kf__launch_riders(g, l, 1);
  res = launch(seg->fused, grid[0], grid[1], grid[2], block[0], block[1], block[2], g->shared_bytes,
               (CUstream)l[0].stream, args, NULL);
  if (res == CUDA_ERROR_INVALID_CONTEXT) {
    /* A thread whose first CUDA work is this launch has no current context
     * yet (the original stub would have made the runtime bind the primary
     * one): cudaFree(NULL) binds it without doing anything else. */
    __typeof__(&cudaFree) rt_free = KF__CU(cudaFree);
    int mode = kf__capture_relax(); /* cudaFree is off limits in a strict capture */
    cudaError_t bound = rt_free != NULL ? rt_free(NULL) : cudaErrorInitializationError;
    kf__capture_restore(mode);
    if (bound == cudaSuccess)
      res = launch(seg->fused, grid[0], grid[1], grid[2], block[0], block[1], block[2], g->shared_bytes,
                   (CUstream)l[0].stream, args, NULL);
  }
  if (args != stack_args)
    free(args);
  if (res != CUDA_SUCCESS) {
    kf__log(KF__LOG_WARN, "cuLaunchKernel(%s) failed with CUresult %d", g->name, (int)res);
    /* The fused launch reported its error through the driver API only, so
     * the runtime's last error is untouched and the originals' outcome is
     * what cudaGetLastError() returns next. */
    kf__launch_unfused(g, l, 1);
    return KF_ECUDA;
  }
  kf__launch_riders(g, l, 0);
  return 0;
}
