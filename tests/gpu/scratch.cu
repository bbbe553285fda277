/* scratch: temporaries the compiler cannot prove dead, declared scratch.
 *
 *   for step in 0..7:
 *     a = 0.5 * u + f         (temporary a)
 *     b = a * a - 0.25 * u    (temporary b)
 *     u = u + dt * b          (in place)
 *
 * The temporaries come from another function (alloc_elsewhere, not
 * inlined: another translation unit as far as the host pass can tell) and
 * the step is a function of its own that gets them through a struct
 * reference, so no proof reaches them. kfg_declared holds them in fields
 * declared KFUSE_SCRATCH; kfg_registered gets raw pointers and declares the
 * ranges with kf_rt_scratch(). Both keep the promise: only the next step
 * reads a and b, after writing them. The fused runs skip their stores
 * (KFUSE_STATS: scratch=<calls>; tools/gpu-check checks the SCRATCH lines
 * this program prints) and the output, u after each loop, is bit-identical
 * to the unfused build. */
#include "common.h"
#include "kfuse_example.h"

#include <cstdio>
#if KFUSE_ENABLED
#include <kfuse/rt.h>
#endif

__global__ KFUSE_MAP void source(const float *u, const float *f, float *a, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    a[i] = 0.5f * u[i] + f[i];
}

__global__ KFUSE_MAP void react(const float *a, const float *u, float *b, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    b[i] = a[i] * a[i] - 0.25f * u[i];
}

__global__ KFUSE_MAP void advance(float *u, const float *b, float dt, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    u[i] = u[i] + dt * b[i];
}

static const int kSteps = 8;

extern "C" __attribute__((noinline)) float *alloc_elsewhere(int n)
{
  float *p = nullptr;
  KFX_CHECK(cudaMalloc(&p, (size_t)n * sizeof(float)));
  return p;
}

struct Work {
  float *a KFUSE_SCRATCH;
  float *b KFUSE_SCRATCH;
  int n, block;
};

/* The step, through declared fields. */
extern "C" __attribute__((noinline)) void kfg_declared(Work &w, float *u, const float *f, cudaStream_t s)
{
  unsigned g = (unsigned)((w.n + w.block - 1) / w.block);
  source<<<g, w.block, 0, s>>>(u, f, w.a, w.n);
  react<<<g, w.block, 0, s>>>(w.a, u, w.b, w.n);
  advance<<<g, w.block, 0, s>>>(u, w.b, 0.125f, w.n);
}

/* The step, through raw pointers that kf_rt_scratch() declared. */
extern "C" __attribute__((noinline)) void kfg_registered(float *a, float *b, float *u, const float *f, int n,
                                                        int block, cudaStream_t s)
{
  unsigned g = (unsigned)((n + block - 1) / block);
  source<<<g, block, 0, s>>>(u, f, a, n);
  react<<<g, block, 0, s>>>(a, u, b, n);
  advance<<<g, block, 0, s>>>(u, b, 0.125f, n);
}

static void run_declared(float *u, const float *f, int n, int block, cudaStream_t s)
{
  Work w{alloc_elsewhere(n), alloc_elsewhere(n), n, block};
  for (int t = 0; t < kSteps; t++)
    kfg_declared(w, u, f, s);
  KFX_CHECK(cudaStreamSynchronize(s));
  cudaFree(w.a);
  cudaFree(w.b);
}

static void run_registered(float *u, const float *f, int n, int block, cudaStream_t s)
{
  float *a = alloc_elsewhere(n), *b = alloc_elsewhere(n);
#if KFUSE_ENABLED
  if (kf_rt_scratch(a, (size_t)n * sizeof(float)) != 0 || kf_rt_scratch(b, (size_t)n * sizeof(float)) != 0) {
    std::fprintf(stderr, "scratch: kf_rt_scratch failed\n");
    std::exit(1);
  }
#endif
  for (int t = 0; t < kSteps; t++)
    kfg_registered(a, b, u, f, n, block, s);
  KFX_CHECK(cudaStreamSynchronize(s));
#if KFUSE_ENABLED
  kf_rt_scratch_end(a);
  kf_rt_scratch_end(b);
#endif
  cudaFree(a);
  cudaFree(b);
}

int main(int argc, char **argv)
{
  kfx::Args a = kfx::parse_args(argc, argv, "scratch", 1 << 24);
  kfx::require_device("scratch");
  const int n = a.n;
  kfx::Buf<float> u0(n), f(n), u(n), r(n);
  kfx::fill_uniform(u0.h, a.seed, 1, -1.0, 1.0);
  kfx::fill_uniform(f.h, a.seed, 2, -0.5, 0.5);
  u0.upload();
  f.upload();
  cudaStream_t s;
  KFX_CHECK(cudaStreamCreate(&s));
  /* For tools/gpu-check: these sites must run fused, skipping stores on the declarations. */
  std::printf("SCRATCH func=kfg_declared\nSCRATCH func=kfg_registered\n");

  auto check = [&] {
    std::vector<long double> ru(n);
    for (int i = 0; i < n; i++) {
      long double x = u0.h[i], fa = f.h[i];
      for (int t = 0; t < kSteps; t++) {
        long double av = 0.5L * x + fa, bv = av * av - 0.25L * x;
        x = x + 0.125L * bv;
      }
      ru[i] = x;
    }
    bool ok = kfx::check_close("u", u.h.data(), ru.data(), n, 1e-5);
    return kfx::check_close("r", r.h.data(), ru.data(), n, 1e-5) && ok;
  };
  int rc = kfx::run_and_report(
      "scratch", a, s, (2.0 + 2 * kSteps * 3.0) * n * sizeof(float),
      [&] {
        KFX_CHECK(cudaMemcpyAsync(u.d, u0.d, u0.bytes(), cudaMemcpyDeviceToDevice, s));
        KFX_CHECK(cudaMemcpyAsync(r.d, u0.d, u0.bytes(), cudaMemcpyDeviceToDevice, s));
        run_declared(u.d, f.d, n, a.block, s);
        run_registered(r.d, f.d, n, a.block, s);
      },
      check, u, r);
  KFX_CHECK(cudaStreamDestroy(s));
  return rc;
}
