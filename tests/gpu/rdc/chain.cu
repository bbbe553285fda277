/* rdc_link's device code that fuses: scale then add (map_kernels.h), with t
 * forwarded in registers, and a kernel that calls a __device__ function of
 * main.cu, which only the device link of the -fgpu-rdc objects resolves. */
#include <kfuse/kfuse.h>
#include "map_kernels.h"
#include "rdc_link.h"

__device__ float rdc_bias(float v); /* main.cu */

__global__ void bias(const float *o, float *p, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = rdc_bias(o[i]);
}

void rdc_chain(const float *x, const float *y, float *t, float *o, float *p, float a, int n,
               int block, cudaStream_t s)
{
  unsigned grid = (unsigned)((n + block - 1) / block);
  scale<<<grid, block, 0, s>>>(x, t, a, n);
  add<<<grid, block, 0, s>>>(t, y, o, n);
  bias<<<grid, block, 0, s>>>(o, p, n);
}
