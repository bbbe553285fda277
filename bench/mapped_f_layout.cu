// Experiment (not a test): the word of the block copies in the mapped
// function F = |A.B.v| (C.D + C) of Fousek, Filipovic and Madzin, fused by
// hand with one thread per instance (kfuse-bench's mapped_f_temps_hand: the
// block's records of A, B (3x3), v (3), C, D (5x5) and F (5x5) between
// global memory and shared arrays with consecutive threads, the products in
// registers), its copies moving 4-byte words (as written) or 16-byte words
// (a block's records are one contiguous, 16-byte aligned range: 128
// instances of 36, 12 or 100 bytes), at 2^21 instances, against a
// device-to-device copy of the same bytes in the same run.
// Build: clang++-22 -x cuda --cuda-gpu-arch=sm_90 -O2 -Iexamples \
//          -Iinclude bench/mapped_f_layout.cu -L/usr/local/cuda/lib64 -lcudart_static -ldl -lrt -lpthread
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

#include "experiment.h"

#include "mapped_f_kernels.h"

constexpr int B = 128;

// Floats [0, m) of g into s, W floats a word; m is the block's count of
// floats, the last partial word by floats.
template <int W> __device__ void load(float *s, const float *g, int m)
{
  const int t = threadIdx.x, full = m / W * W;
  if (W == 4)
    for (int e = 4 * t; e < full; e += 4 * B)
      *(float4 *)&s[e] = *(const float4 *)&g[e];
  else
    for (int e = t; e < full; e += B)
      s[e] = g[e];
  for (int e = full + t; e < m; e += B)
    s[e] = g[e];
}
template <int W> __device__ void store(float *g, const float *s, int m)
{
  const int t = threadIdx.x, full = m / W * W;
  if (W == 4)
    for (int e = 4 * t; e < full; e += 4 * B)
      *(float4 *)&g[e] = *(const float4 *)&s[e];
  else
    for (int e = t; e < full; e += B)
      g[e] = s[e];
  for (int e = full + t; e < m; e += B)
    g[e] = s[e];
}

template <int W>
__global__ void __launch_bounds__(B) mf(const float *A, const float *Bm, const float *v,
                                        const float *C, const float *D, float *F, int n)
{
  __shared__ __align__(16) float sA[9 * B], sB[9 * B], sv[3 * B], sC[25 * B], sD[25 * B];
  const int t = threadIdx.x;
  const size_t base = (size_t)blockIdx.x * B;
  const int cnt = (int)min((size_t)B, (size_t)n - base);
  load<W>(sA, A + 9 * base, 9 * cnt);
  load<W>(sB, Bm + 9 * base, 9 * cnt);
  load<W>(sv, v + 3 * base, 3 * cnt);
  load<W>(sC, C + 25 * base, 25 * cnt);
  load<W>(sD, D + 25 * base, 25 * cnt);
  __syncthreads();
  float f[25];
  if (t < cnt) {
    float a[9], b[9], ab[9], c[25], d[25], cd[25];
#pragma unroll
    for (int k = 0; k < 9; k++)
      a[k] = sA[9 * t + k], b[k] = sB[9 * t + k];
    mf_matmul<3>(a, b, ab);
    float y[3];
#pragma unroll
    for (int r = 0; r < 3; r++)
      y[r] = ab[3 * r] * sv[3 * t] + ab[3 * r + 1] * sv[3 * t + 1] + ab[3 * r + 2] * sv[3 * t + 2];
    float s = sqrtf(y[0] * y[0] + y[1] * y[1] + y[2] * y[2]);
#pragma unroll
    for (int k = 0; k < 25; k++)
      c[k] = sC[25 * t + k], d[k] = sD[25 * t + k];
    mf_matmul<5>(c, d, cd);
#pragma unroll
    for (int k = 0; k < 25; k++)
      f[k] = (cd[k] + c[k]) * s;
  }
  __syncthreads();
  if (t < cnt)
#pragma unroll
    for (int k = 0; k < 25; k++)
      sC[25 * t + k] = f[k];
  __syncthreads();
  store<W>(F + 25 * base, sC, 25 * cnt);
}

int main(int argc, char **argv)
{
  const int n = argc > 1 ? atoi(argv[1]) : 1 << 21;
  const size_t floats_in = (size_t)n * (9 + 9 + 3 + 25 + 25), floats_out = (size_t)n * 25;
  float *in, *out, *ref, *copy;
  CK(cudaMalloc(&in, floats_in * 4));
  CK(cudaMalloc(&out, floats_out * 4));
  CK(cudaMalloc(&ref, floats_out * 4));
  CK(cudaMalloc(&copy, (floats_in + floats_out) * 4));
  std::vector<float> h(floats_in);
  for (size_t i = 0; i < h.size(); i++)
    h[i] = (float)((i * 2654435761u) % 2001) / 1000.0f - 1.0f;
  CK(cudaMemcpy(in, h.data(), floats_in * 4, cudaMemcpyHostToDevice));
  const float *A = in, *Bm = A + 9 * (size_t)n, *v = Bm + 9 * (size_t)n, *C = v + 3 * (size_t)n,
              *D = C + 25 * (size_t)n;
  const size_t bytes = (floats_in + floats_out) * 4; // read once + written once
  const int g = (n + B - 1) / B;
  // A copy of half the bytes reads and writes them all.
  double cms = median_ms([&] {
    CK(cudaMemcpyAsync(copy, copy + (floats_in + floats_out) / 2, bytes / 2,
                       cudaMemcpyDeviceToDevice));
  });
  double copy_gbps = (double)bytes / cms / 1e6;
  mf<1><<<g, B>>>(A, Bm, v, C, D, ref, n);
  CK(cudaDeviceSynchronize());
  std::vector<float> r(floats_out), o(floats_out);
  CK(cudaMemcpy(r.data(), ref, floats_out * 4, cudaMemcpyDeviceToHost));
  printf("n %d instances, %.1f MiB moved; copy %.4f ms, %.1f GB/s\n", n, bytes / 1048576.0, cms,
         copy_gbps);
  auto row = [&](const char *name, auto launch) {
    CK(cudaMemset(out, 0, floats_out * 4));
    double ms = median_ms(launch);
    CK(cudaMemcpy(o.data(), out, floats_out * 4, cudaMemcpyDeviceToHost));
    double gbps = (double)bytes / ms / 1e6;
    printf("%-8s %.4f ms  %7.1f GB/s  %.3f of copy  %s\n", name, ms, gbps, gbps / copy_gbps,
           memcmp(o.data(), r.data(), floats_out * 4) == 0 ? "bit-identical" : "DIFFERENT");
  };
  row("words4", [&] { mf<1><<<g, B>>>(A, Bm, v, C, D, out, n); });
  row("words16", [&] { mf<4><<<g, B>>>(A, Bm, v, C, D, out, n); });
  return 0;
}
