/* Two map kernels launched in a row (fused into one kernel) and a kernel that
 * calls a __device__ function of helper.cu when built with -fgpu-rdc. */
#include <kfuse/kfuse.h>
#include "multi.h"
#ifdef __CUDA_ARCH__
/* Only the device compile reads this header: a change to it must still
 * rebuild this file (run.sh checks). */
#include "device_only.h"
#else
#define MF_SCALE_FACTOR 1.0f /* the host compile parses the kernels too */
#endif

__global__ KFUSE_MAP void mf_scale(const float *x, float *t, float a, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    t[i] = MF_SCALE_FACTOR * a * x[i];
}

__global__ KFUSE_MAP void mf_add(const float *t, const float *y, float *o, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    o[i] = t[i] + y[i];
}

#if KF_RDC
__device__ float mf_twice(float v); /* helper.cu */
#else
static __device__ float mf_twice(float v) { return 2.0f * v; }
#endif

__global__ void mf_double(float *o, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    o[i] = mf_twice(o[i]);
}

void mf_chain(const float *x, const float *y, float *t, float *o, int n)
{
  mf_scale<<<(n + 255) / 256, 256>>>(x, t, 2.0f, n);
  mf_add<<<(n + 255) / 256, 256>>>(t, y, o, n);
  mf_double<<<(n + 255) / 256, 256>>>(o, n);
}
