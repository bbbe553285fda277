// The scale and axpy map kernels of the host-pass tests that compile with
// clang (annotated the way the Clang plugin spells kfuse_map).
#include <cuda_runtime.h>

__global__ __attribute__((annotate("kfuse_map"))) void scale(const float *x, float *t, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    t[i] = a * x[i];
}
__global__ __attribute__((annotate("kfuse_map"))) void axpy(const float *t, const float *y, float *o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    o[i] = t[i] + y[i];
}
