/* Element-wise map kernels that several example and test programs chain:
 * one thread per element, 1D grid, guarded by i < n. */
#ifndef KFUSE_EXAMPLES_MAP_KERNELS_H
#define KFUSE_EXAMPLES_MAP_KERNELS_H

#include <kfuse/kfuse.h>

/* t = a * x */
__global__ KFUSE_MAP void scale(const float *x, float *t, float a, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    t[i] = a * x[i];
}

/* o = u + v */
__global__ KFUSE_MAP void add(const float *u, const float *v, float *o, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    o[i] = u[i] + v[i];
}

/* o = u * v */
__global__ KFUSE_MAP void mul(const float *u, const float *v, float *o, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    o[i] = u[i] * v[i];
}

#endif
