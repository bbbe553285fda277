/* shlib's library: scale then add, t forwarded in registers. The library
 * holds its own device code and its own copies of the CUDA runtime and of
 * libkfuse_rt (both static, exporting nothing); its site must find the
 * manifest in the library's module, not in the program's, whose kernels
 * have the same names. The kernels are static, as a library keeps its
 * kernels to itself: the program's non-static kernels of the same names
 * would otherwise interpose on the library's host stubs. */
#include <kfuse/kfuse.h>
#include "shlib.h"

static __global__ KFUSE_MAP void scale(const float *x, float *t, float a, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    t[i] = a * x[i];
}

static __global__ KFUSE_MAP void add(const float *u, const float *v, float *o, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    o[i] = u[i] + v[i];
}

void shlib_chain(const float *x, const float *y, float *t, float *o, float a, int n, int block,
                 cudaStream_t s)
{
  unsigned grid = (unsigned)((n + block - 1) / block);
  scale<<<grid, block, 0, s>>>(x, t, a, n);
  add<<<grid, block, 0, s>>>(t, y, o, n);
}
