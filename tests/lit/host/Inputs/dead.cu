#include <cuda_runtime.h>
#define KM __global__ __attribute__((annotate("kfuse_map")))
KM void produce(const float *x, float *t, int n) { t[threadIdx.x] = 2 * x[threadIdx.x]; }
KM void consume(const float *t, float *o, int n) { o[threadIdx.x] = t[threadIdx.x] + 1; }
void freed(const float *x, float *o, int n) {
  float *t = nullptr;
  cudaMalloc(&t, n * sizeof(float));
  produce<<<1, 32>>>(x, t, n);
  consume<<<1, 32>>>(t, o, n);
  cudaFree(t);
}
void never_used(const float *x, float *o, int n) {
  float *t;
  cudaMalloc(&t, n * sizeof(float));
  produce<<<1, 32>>>(x, t, n);
  consume<<<1, 32>>>(t, o, n);
}
void read_after(const float *x, float *o, float *h, int n) {
  float *t;
  cudaMalloc(&t, n * sizeof(float));
  produce<<<1, 32>>>(x, t, n);
  consume<<<1, 32>>>(t, o, n);
  cudaMemcpy(h, t, sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(t);
}
void param_buffer(const float *x, float *t, float *o, int n) {
  produce<<<1, 32>>>(x, t, n);
  consume<<<1, 32>>>(t, o, n);
}
float *returned(const float *x, float *o, int n) {
  float *t;
  cudaMalloc(&t, n * sizeof(float));
  produce<<<1, 32>>>(x, t, n);
  consume<<<1, 32>>>(t, o, n);
  return t;
}
void copied(const float *x, float *o, float *h, int n) {
  float *t;
  cudaMalloc(&t, n * sizeof(float));
  float *u = t;
  produce<<<1, 32>>>(x, t, n);
  consume<<<1, 32>>>(t, o, n);
  cudaMemcpy(h, u, sizeof(float), cudaMemcpyDeviceToHost);
}
void in_loop(const float *x, float *o, int n, int iters) {
  float *t;
  cudaMalloc(&t, n * sizeof(float));
  for (int i = 0; i < iters; ++i) {
    produce<<<1, 32>>>(x, t, n);
    consume<<<1, 32>>>(t, o, n);
  }
  cudaFree(t);
}
