// Experiment (not a test): kfuse-bench's gridstride workload fused by hand
// (t = a*x + y; o = t*y + b; p = o*o over a grid-stride loop on 32 blocks
// of 256 threads per SM), as written (one element a trip: two loads in
// flight per thread) and with the loop unrolled 2 and 4 times over buffers
// declared not to alias, so that the loads of later elements may be issued
// before the stores of earlier ones, and as one thread per element (no loop:
// the chain's own bound), against a device-to-device copy in the same run
// (2^25 floats a buffer).
// Build: clang++-22 -x cuda --cuda-gpu-arch=sm_90 -O2 bench/gridstride_unroll.cu \
//          -L/usr/local/cuda/lib64 -lcudart_static -ldl -lrt -lpthread
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

#include "experiment.h"

constexpr float A = 0.75f, Bc = 1.125f;

__global__ void plain(const float *x, const float *y, float *t, float *o, float *p, int n)
{
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    float yv = y[i], a = A * x[i] + yv, b = a * yv + Bc;
    t[i] = a;
    o[i] = b;
    p[i] = b * b;
  }
}

// U elements a trip, their loads first (the buffers do not alias), then a
// remainder loop of one element a trip.
template <int U>
__global__ void unrolled(const float *__restrict__ x, const float *__restrict__ y,
                         float *__restrict__ t, float *__restrict__ o, float *__restrict__ p,
                         int n)
{
  const int s = blockDim.x * gridDim.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (; i + (U - 1) * s < n; i += U * s) {
    float xv[U], yv[U];
#pragma unroll
    for (int k = 0; k < U; k++)
      xv[k] = x[i + k * s], yv[k] = y[i + k * s];
#pragma unroll
    for (int k = 0; k < U; k++) {
      float a = A * xv[k] + yv[k], b = a * yv[k] + Bc;
      t[i + k * s] = a;
      o[i + k * s] = b;
      p[i + k * s] = b * b;
    }
  }
  for (; i < n; i += s) {
    float yv = y[i], a = A * x[i] + yv, b = a * yv + Bc;
    t[i] = a;
    o[i] = b;
    p[i] = b * b;
  }
}

// One thread per element, on a grid that covers n.
__global__ void per_element(const float *__restrict__ x, const float *__restrict__ y,
                            float *__restrict__ t, float *__restrict__ o, float *__restrict__ p,
                            int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float yv = y[i], a = A * x[i] + yv, b = a * yv + Bc;
    t[i] = a;
    o[i] = b;
    p[i] = b * b;
  }
}

int main(int argc, char **argv)
{
  const int n = argc > 1 ? atoi(argv[1]) : 1 << 25;
  const size_t bytes = (size_t)n * sizeof(float);
  float *x, *y, *t, *o, *p;
  CK(cudaMalloc(&x, bytes));
  CK(cudaMalloc(&y, bytes));
  CK(cudaMalloc(&t, bytes));
  CK(cudaMalloc(&o, bytes));
  CK(cudaMalloc(&p, bytes));
  std::vector<float> h(n);
  for (size_t i = 0; i < h.size(); i++)
    h[i] = (float)((i * 2654435761u) % 1000) / 500.0f - 1.0f;
  CK(cudaMemcpy(x, h.data(), bytes, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(y, h.data() + 1, bytes - 4, cudaMemcpyHostToDevice));
  int dev = 0, sms = 0;
  CK(cudaGetDevice(&dev));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  const unsigned grid = 32u * (unsigned)sms, block = 256;
  double cms = median_ms([&] { CK(cudaMemcpyAsync(t, x, bytes, cudaMemcpyDeviceToDevice)); });
  double copy_gbps = 2.0 * bytes / cms / 1e6;
  std::vector<float> ref(3 * (size_t)n), out(3 * (size_t)n);
  auto fetch = [&](std::vector<float> &v) {
    CK(cudaMemcpy(v.data(), t, bytes, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(v.data() + n, o, bytes, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(v.data() + 2 * (size_t)n, p, bytes, cudaMemcpyDeviceToHost));
  };
  plain<<<grid, block>>>(x, y, t, o, p, n);
  CK(cudaDeviceSynchronize());
  fetch(ref);
  printf("n %d floats, %u blocks of %u; copy %.4f ms, %.1f GB/s\n", n, grid, block, cms,
         copy_gbps);
  auto row = [&](const char *name, auto launch) {
    CK(cudaMemset(t, 0, bytes));
    CK(cudaMemset(o, 0, bytes));
    CK(cudaMemset(p, 0, bytes));
    double ms = median_ms(launch);
    fetch(out);
    double gbps = 5.0 * bytes / ms / 1e6;
    printf("%-10s %.4f ms  %7.1f GB/s  %.3f of copy  %s\n", name, ms, gbps, gbps / copy_gbps,
           memcmp(out.data(), ref.data(), out.size() * 4) == 0 ? "bit-identical" : "DIFFERENT");
  };
  row("plain", [&] { plain<<<grid, block>>>(x, y, t, o, p, n); });
  row("unroll2", [&] { unrolled<2><<<grid, block>>>(x, y, t, o, p, n); });
  row("unroll4", [&] { unrolled<4><<<grid, block>>>(x, y, t, o, p, n); });
  row("element", [&] { per_element<<<(n + block - 1) / block, block>>>(x, y, t, o, p, n); });
  return 0;
}
