#include <cuda_runtime.h>
#define KM __global__ __attribute__((annotate("kfuse_map")))
KM void scale(const float *x, float *t, float a, int n) { int i = threadIdx.x; if (i < n) t[i] = a * x[i]; }
KM void axpy(const float *t, const float *y, float *o, int n) { int i = threadIdx.x; if (i < n) o[i] = t[i] + y[i]; }
void run(const float *x, float *t, const float *y, float *o, int n, cudaStream_t s) {
  scale<<<(n + 255) / 256, 256, 0, s>>>(x, t, 2.0f, n);
  int m = n * 2;
  axpy<<<dim3(n, 2, 3), dim3(32, 4), 128, s>>>(t, y, o, m);
}
