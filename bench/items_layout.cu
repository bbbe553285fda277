// Experiment (not a test): how fast can kfuse-bench's `items` workload run,
// by layout of its per-thread records. Each of n threads owns 16 consecutive
// floats of x, y and o and computes t = exp(-x*x/2), o = t*y + t. Variants:
//   scalar   the hand-fused loop (`#pragma unroll 1`, one float at a time)
//   v4       each thread moves its 64-byte record as four 16-byte vectors
//   staged   the block copies its records through a padded shared tile with
//            consecutive threads (what kfuse's record staging does), 4-byte
//            words
//   staged16 the same with 16-byte words in the block copy
// and a device-to-device copy of one array in the same run. "of copy" is the
// kernel's GB/s on its ideal bytes (x and y read, o written) over the copy's.
// Build: clang++-22 -x cuda --cuda-gpu-arch=sm_90 -O2 bench/items_layout.cu \
//          -L/usr/local/cuda/lib64 -lcudart_static -ldl -lrt -lpthread
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

#include "experiment.h"

constexpr int K = 16, B = 256;

__device__ __forceinline__ float f(float x, float y)
{
  float t = expf(-0.5f * x * x);
  return t * y + t;
}

__global__ void scalar(const float *x, const float *y, float *o, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
#pragma unroll 1
  for (int k = 0; k < K; k++)
    o[K * i + k] = f(x[K * i + k], y[K * i + k]);
}

__global__ void v4(const float4 *x, const float4 *y, float4 *o, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float4 a[K / 4], b[K / 4];
#pragma unroll
  for (int k = 0; k < K / 4; k++) {
    a[k] = x[K / 4 * i + k];
    b[k] = y[K / 4 * i + k];
  }
#pragma unroll
  for (int k = 0; k < K / 4; k++)
    o[K / 4 * i + k] = make_float4(f(a[k].x, b[k].x), f(a[k].y, b[k].y), f(a[k].z, b[k].z),
                                   f(a[k].w, b[k].w));
}

// Word W floats; the tile holds B records of K floats, each padded by one
// word so that threads copying their own record hit different banks.
template <int W> __device__ void to_tile(float *tile, const float *g, int base, int n)
{
  constexpr int words = K / W, stride = K + W;
  for (int e = threadIdx.x; e < B * words; e += B) {
    int r = e / words, w = e % words;
    if (base + r < n) {
      if (W == 4)
        *(float4 *)&tile[r * stride + w * 4] = *(const float4 *)&g[(size_t)(base + r) * K + w * 4];
      else
        tile[r * stride + w] = g[(size_t)(base + r) * K + w];
    }
  }
}
template <int W> __device__ void from_tile(float *g, const float *tile, int base, int n)
{
  constexpr int words = K / W, stride = K + W;
  for (int e = threadIdx.x; e < B * words; e += B) {
    int r = e / words, w = e % words;
    if (base + r < n) {
      if (W == 4)
        *(float4 *)&g[(size_t)(base + r) * K + w * 4] = *(const float4 *)&tile[r * stride + w * 4];
      else
        g[(size_t)(base + r) * K + w] = tile[r * stride + w];
    }
  }
}

// A thread's own record out of the tile, in words of W floats.
template <int W> __device__ __forceinline__ void own(float *v, const float *rec)
{
#pragma unroll
  for (int k = 0; k < K; k += W)
    if (W == 4)
      *(float4 *)&v[k] = *(const float4 *)&rec[k];
    else
      v[k] = rec[k];
}

template <int W> __global__ void staged(const float *x, const float *y, float *o, int n)
{
  __shared__ __align__(16) float tile[B * (K + W)];
  constexpr int stride = K + W;
  int base = blockIdx.x * B, t = threadIdx.x;
  float a[K], b[K];
  to_tile<W>(tile, x, base, n);
  __syncthreads();
  own<W>(a, tile + t * stride);
  __syncthreads();
  to_tile<W>(tile, y, base, n);
  __syncthreads();
  own<W>(b, tile + t * stride);
  __syncthreads();
#pragma unroll
  for (int k = 0; k < K; k++)
    tile[t * stride + k] = f(a[k], b[k]);
  __syncthreads();
  from_tile<W>(o, tile, base, n);
}

int main(int argc, char **argv)
{
  int n = argc > 1 ? atoi(argv[1]) : 1 << 21;
  size_t bytes = (size_t)n * K * sizeof(float);
  float *x, *y, *o, *r;
  CK(cudaMalloc(&x, bytes));
  CK(cudaMalloc(&y, bytes));
  CK(cudaMalloc(&o, bytes));
  CK(cudaMalloc(&r, bytes));
  std::vector<float> h((size_t)n * K);
  for (size_t i = 0; i < h.size(); i++)
    h[i] = (float)((i * 2654435761u) % 1000) / 250.0f - 2.0f;
  CK(cudaMemcpy(x, h.data(), bytes, cudaMemcpyHostToDevice));
  for (size_t i = 0; i < h.size(); i++)
    h[i] = (float)((i * 40503u) % 997) / 500.0f;
  CK(cudaMemcpy(y, h.data(), bytes, cudaMemcpyHostToDevice));
  int g = (n + B - 1) / B;
  double copy = median_ms([&] { CK(cudaMemcpyAsync(o, x, bytes, cudaMemcpyDeviceToDevice)); });
  double copy_gbps = 2.0 * bytes / copy / 1e6;
  CK(cudaDeviceSynchronize());
  scalar<<<g, B>>>(x, y, r, n);
  CK(cudaDeviceSynchronize());
  std::vector<float> ref((size_t)n * K), out((size_t)n * K);
  CK(cudaMemcpy(ref.data(), r, bytes, cudaMemcpyDeviceToHost));
  printf("n %d threads x %d floats, %.1f MiB per array; copy %.4f ms, %.1f GB/s\n", n, K,
         bytes / 1048576.0, copy, copy_gbps);
  auto row = [&](const char *name, auto launch) {
    CK(cudaMemset(o, 0, bytes));
    double ms = median_ms(launch);
    CK(cudaMemcpy(out.data(), o, bytes, cudaMemcpyDeviceToHost));
    bool same = memcmp(out.data(), ref.data(), bytes) == 0;
    double gbps = 3.0 * bytes / ms / 1e6;
    printf("%-9s %.4f ms  %7.1f GB/s  %.3f of copy  %s\n", name, ms, gbps, gbps / copy_gbps,
           same ? "bit-identical" : "DIFFERENT");
  };
  row("scalar", [&] { scalar<<<g, B>>>(x, y, o, n); });
  row("v4", [&] { v4<<<g, B>>>((const float4 *)x, (const float4 *)y, (float4 *)o, n); });
  row("staged", [&] { staged<1><<<g, B>>>(x, y, o, n); });
  row("staged16", [&] { staged<4><<<g, B>>>(x, y, o, n); });
  return 0;
}
