/* unrolled_loops: grid-stride loops under an unroll pragma, as bandwidth
 * benchmarks and for_each helpers over device lambdas write them
 * (BabelStream's CUDA kernels since its version 5):
 *
 *   template <int U, class F> __global__ void for_each_kernel(size_t n, F f)
 *   { size_t i = ...; #pragma unroll U
 *     for (; i < n; i += (size_t)gridDim.x * blockDim.x) f(i); }
 *
 * LLVM unrolls such a loop behind a computed trip count; kfuse analyses and
 * fuses a copy of each kernel made before the unroller ran (one element a
 * trip) and the kernels launched alone keep their unrolled loops.
 * Sequence `stream` (4 for_each launches, double, unrolled 4 times): the
 * STREAM kernels in BabelStream's order, c = a, b = s c, c = a + b,
 * a = b + s c, on persistent arrays (every store kept; the fused kernel
 * reads each array once).
 * Sequence `temps` (3 kernels of their own, float, unrolled 4, 2 and 8
 * times, int loop variables): t = a x + y, u = t t, o = u - t; t and u
 * temporaries of the call (cudaMallocAsync, cudaFreeAsync), not stored.
 * Both run on a fixed grid of 1024 blocks, so every thread loops.
 * Sequence `components` (2 kernels, double, a thread per point looping over
 * its ncomp components, ncomp = 3 passed at run time, a loop LLVM unrolls
 * four times by itself): v = s u, o = v + w; v stays in memory, each thread
 * reading back its own components.
 * The program prints `SITES all-fused count=3`: every sequence must run
 * fused on every call (tools/gpu-check). Fused and unfused must agree bit
 * for bit. */
#include "common.h"
#include "kfuse_example.h"

#include <cstdio>

constexpr unsigned UlGrid = 1024;

template <int Unroll, class F> __global__ KFUSE_MAP void for_each_kernel(size_t n, F f)
{
  size_t i = (size_t)threadIdx.x + (size_t)blockDim.x * blockIdx.x;
#pragma unroll Unroll
  for (; i < n; i += (size_t)gridDim.x * blockDim.x)
    f(i);
}

template <class F> static void for_each(size_t n, int b, cudaStream_t s, F f)
{
  for_each_kernel<4><<<UlGrid, b, 0, s>>>(n, f);
}

static void stream(double *a, double *b, double *c, double k, size_t n, int bs, cudaStream_t s)
{
  for_each(n, bs, s, [a, c] __device__(size_t i) { c[i] = a[i]; });
  for_each(n, bs, s, [b, c, k] __device__(size_t i) { b[i] = k * c[i]; });
  for_each(n, bs, s, [a, b, c] __device__(size_t i) { c[i] = a[i] + b[i]; });
  for_each(n, bs, s, [a, b, c, k] __device__(size_t i) { a[i] = b[i] + k * c[i]; });
}

__global__ KFUSE_MAP void ul_axpy(const float *x, const float *y, float *t, float a, int n)
{
#pragma unroll 4
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    t[i] = a * x[i] + y[i];
}

__global__ KFUSE_MAP void ul_square(const float *t, float *u, int n)
{
#pragma unroll 2
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    u[i] = t[i] * t[i];
}

__global__ KFUSE_MAP void ul_diff(const float *u, const float *t, float *o, int n)
{
#pragma unroll 8
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    o[i] = u[i] - t[i];
}

static void temps(const float *x, const float *y, float *o, float a, int n, int b, cudaStream_t s)
{
  float *t, *u;
  KFX_CHECK(cudaMallocAsync(&t, sizeof(float) * n, s));
  KFX_CHECK(cudaMallocAsync(&u, sizeof(float) * n, s));
  ul_axpy<<<UlGrid, b, 0, s>>>(x, y, t, a, n);
  ul_square<<<UlGrid, b, 0, s>>>(t, u, n);
  ul_diff<<<UlGrid, b, 0, s>>>(u, t, o, n);
  KFX_CHECK(cudaFreeAsync(t, s));
  KFX_CHECK(cudaFreeAsync(u, s));
}

__global__ KFUSE_MAP void ul_comp_scale(const double *u, double *v, double k, int n, int ncomp)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    for (int c = 0; c < ncomp; c++)
      v[i * ncomp + c] = k * u[i * ncomp + c];
}

__global__ KFUSE_MAP void ul_comp_add(const double *v, const double *w, double *o, int n,
                                      int ncomp)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    for (int c = 0; c < ncomp; c++)
      o[i * ncomp + c] = v[i * ncomp + c] + w[i * ncomp + c];
}

static void components(const double *u, double *v, const double *w, double *o, double k, int n,
                       int ncomp, int b, cudaStream_t s)
{
  ul_comp_scale<<<(n + b - 1) / b, b, 0, s>>>(u, v, k, n, ncomp);
  ul_comp_add<<<(n + b - 1) / b, b, 0, s>>>(v, w, o, n, ncomp);
}

int main(int argc, char **argv)
{
  kfx::Args a = kfx::parse_args(argc, argv, "unrolled_loops", 1 << 24);
  kfx::require_device("unrolled_loops");
  const int n = (int)a.n;
  const double k = 0.4;
  const float ka = 1.5f;
  kfx::Buf<double> da(n), db(n), dc(n), a0(n);
  kfx::Buf<float> x(n), y(n), o(n);
  /* Points of three components each, a third as many as n. */
  const int np = n / 3, nc = 3;
  kfx::Buf<double> cu(size_t(np) * nc), cv(size_t(np) * nc), cw(size_t(np) * nc),
      co(size_t(np) * nc);
  kfx::fill_uniform(a0.h, a.seed, 1, -1.0, 1.0);
  kfx::fill_uniform(x.h, a.seed, 2, -1.0, 1.0);
  kfx::fill_uniform(y.h, a.seed, 3, -1.0, 1.0);
  kfx::fill_uniform(cu.h, a.seed, 4, -1.0, 1.0);
  kfx::fill_uniform(cw.h, a.seed, 5, -1.0, 1.0);
  cudaStream_t s;
  KFX_CHECK(cudaStreamCreate(&s));
  /* For tools/gpu-check: every sequence runs fused on every call. */
  std::printf("SITES all-fused count=3\n");

  /* Each run starts the STREAM arrays afresh, so that every call computes
   * the same values whatever the repetition count. */
  auto reset = [&] {
    KFX_CHECK(cudaMemcpyAsync(da.d, a0.d, sizeof(double) * n, cudaMemcpyDeviceToDevice, s));
  };
  auto check = [&] {
    std::vector<double> ra(n), rb(n), rc(n);
    std::vector<float> ro(n);
    for (int i = 0; i < n; i++) {
      double c = a0.h[i];
      double b = k * c;
      c = a0.h[i] + b;
      ra[i] = b + k * c;
      rb[i] = b;
      rc[i] = c;
      float t = ka * x.h[i] + y.h[i];
      float u = t * t;
      ro[i] = u - t;
    }
    bool ok = kfx::check_close("a", da.h.data(), ra.data(), n, 1e-12);
    ok = kfx::check_close("b", db.h.data(), rb.data(), n, 1e-12) && ok;
    ok = kfx::check_close("c", dc.h.data(), rc.data(), n, 1e-12) && ok;
    ok = kfx::check_close("o", o.h.data(), ro.data(), n, 1e-5) && ok;
    std::vector<double> rv(size_t(np) * nc), rco(size_t(np) * nc);
    for (size_t j = 0; j < rv.size(); j++) {
      rv[j] = k * cu.h[j];
      rco[j] = rv[j] + cw.h[j];
    }
    ok = kfx::check_close("v", cv.h.data(), rv.data(), rv.size(), 1e-12) && ok;
    ok = kfx::check_close("co", co.h.data(), rco.data(), rco.size(), 1e-12) && ok;
    return ok;
  };
  a0.upload(), x.upload(), y.upload(), cu.upload(), cw.upload();
  int rc = kfx::run_and_report(
      "unrolled_loops", a, s, (12.0 * n + 4.0 * np * nc) * sizeof(double) + (3.0 * n) * sizeof(float),
      [&] {
        reset();
        stream(da.d, db.d, dc.d, k, (size_t)n, a.block, s);
        temps(x.d, y.d, o.d, ka, n, a.block, s);
        components(cu.d, cv.d, cw.d, co.d, k, np, nc, a.block, s);
      },
      check, da, db, dc, o, cv, co);
  KFX_CHECK(cudaStreamDestroy(s));
  return rc;
}
