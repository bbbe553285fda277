/* The device function fused.cu calls under -fgpu-rdc, and the host side of
 * the program's buffers. */
#include <cuda_runtime.h>
#include "multi.h"

#if KF_RDC
__device__ float mf_twice(float v) { return 2.0f * v; }
#endif

int mf_run(int n)
{
  float *x, *y, *t, *o;
  if (cudaMalloc(&x, 4 * n * sizeof(float)) != cudaSuccess)
    return 77; /* no GPU here: the test only builds */
  y = x + n, t = y + n, o = t + n;
  cudaMemset(x, 0, 4 * n * sizeof(float));
  mf_chain(x, y, t, o, n);
  int rc = cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
  cudaFree(x);
  return rc;
}
