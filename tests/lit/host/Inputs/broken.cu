#include <cuda_runtime.h>
#define KM __global__ __attribute__((annotate("kfuse_map")))
KM void ka(float *p, int n) { p[threadIdx.x] += n; }
KM void kb(float *p, int n) { p[threadIdx.x] *= n; }
__global__ void plain(float *p) { p[threadIdx.x] = 0; }
void copy_between(float *p, float *h, int n) {
  ka<<<1, 32>>>(p, n);
  cudaMemcpy(h, p, 4, cudaMemcpyDeviceToHost);
  kb<<<1, 32>>>(p, n);
}
void sync_between(float *p, int n) {
  ka<<<1, 32>>>(p, n);
  cudaDeviceSynchronize();
  kb<<<1, 32>>>(p, n);
}
void plain_between(float *p, int n) {
  ka<<<1, 32>>>(p, n);
  plain<<<1, 32>>>(p);
  kb<<<1, 32>>>(p, n);
}
float *g_buf;
void global_store_between(float *p, int n) {
  ka<<<1, 32>>>(p, n);
  g_buf = p;
  kb<<<1, 32>>>(p, n);
}
void branch_between(float *p, int n) {
  ka<<<1, 32>>>(p, n);
  if (n > 4) n = 4;
  kb<<<1, 32>>>(p, n);
}
void lone(float *p, int n) { ka<<<1, 32>>>(p, n); }
