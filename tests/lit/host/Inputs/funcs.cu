#include <cuda_runtime.h>
#define KM __global__ __attribute__((annotate("kfuse_map")))
KM void ka(float *p, int n) { p[threadIdx.x] += n; }
KM void kb(float *p, int n) { p[threadIdx.x] *= n; }
void f1(float *p, int n) {
  ka<<<1, 32>>>(p, n);
  kb<<<1, 32>>>(p, n);
}
void f2(float *p, int n) {
  kb<<<2, 64>>>(p, n);
  ka<<<2, 64>>>(p, n + 1);
  kb<<<2, 64>>>(p, n + 2);
}
