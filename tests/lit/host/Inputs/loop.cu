#include <cuda_runtime.h>
#define KM __global__ __attribute__((annotate("kfuse_map")))
struct Guard { ~Guard(); };
KM void k0(float *t, int n) { t[threadIdx.x] = n; }
KM void k1(const float *t, float *o) { o[threadIdx.x] = t[threadIdx.x]; }
void run(float *t, float *o, int n, int iters) {
  Guard g;
  for (int i = 0; i < iters; ++i) {
    k0<<<n / 32, 32>>>(t, i);
    k1<<<n / 32, 32>>>(t, o);
  }
}
