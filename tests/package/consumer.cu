// A two-kernel chain built through kfuse_enable(); only compiled and linked.
// The kernels are marked with the installed header's KFUSE_MAP.
#include <cuda_runtime.h>
#include <kfuse/kfuse.h>
#include <stdio.h>

#if !KFUSE_ENABLED
#error "kfuse_enable() should load the kfuse Clang plugin"
#endif

__global__ KFUSE_MAP void scale(const float *x, float *t, float a, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) t[i] = a * x[i]; }
__global__ KFUSE_MAP void add(const float *t, const float *y, float *o, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) o[i] = t[i] + y[i]; }

int main(void)
{
  int n = 1 << 10;
  float *x, *t, *y, *o;
  if (cudaMalloc(&x, n * 4) || cudaMalloc(&t, n * 4) || cudaMalloc(&y, n * 4) || cudaMalloc(&o, n * 4)) {
    puts("no CUDA device");
    return 77;
  }
  scale<<<(n + 255) / 256, 256>>>(x, t, 2.0f, n);
  add<<<(n + 255) / 256, 256>>>(t, y, o, n);
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
