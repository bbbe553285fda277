/* File c of the multi-file programs (multifile.h): static kernels and an
 * anonymous-namespace kernel named as in the other files, and the template
 * pair every file launches alike. */
#include "multifile.h"

static __global__ KFUSE_MAP void scale(const float *x, float *t, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    t[i] = x[i] * 4.0f;
}

static __global__ KFUSE_MAP void add(const float *t, const float *y, float *o, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    o[i] = t[i] * y[i];
}

namespace {
__global__ KFUSE_MAP void bump(const float *o, float *u, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    u[i] = o[i] + 3.0f;
}
} // namespace

/* The template pair, a sequence of its own: the same in every file. */
static void pair(const float *x, const float *y, MfOut out, int n, int block, cudaStream_t s)
{
  dim3 g((n + block - 1) / block), b(block);
  mf_shift<float><<<g, b, 0, s>>>(x, out.w, 0.5f, n);
  mf_mul<float><<<g, b, 0, s>>>(out.w, y, out.v, n);
}

void mf_run_c(const float *x, const float *y, MfOut out, int n, int block, cudaStream_t s)
{
  dim3 g((n + block - 1) / block), b(block);
  scale<<<g, b, 0, s>>>(x, out.t, n);
  add<<<g, b, 0, s>>>(out.t, y, out.o, n);
  bump<<<g, b, 0, s>>>(out.o, out.u, n);
  pair(x, y, out, n, block, s);
}
