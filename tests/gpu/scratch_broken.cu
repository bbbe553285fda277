/* scratch_broken: a program that breaks its scratch promise, for
 * KFUSE_VERIFY to catch.
 *
 *   kfg_produce:  t = 2 * x;  o = t + y      (t declared KFUSE_SCRATCH)
 *   kfg_misuse:   v = 2 * t;  junk = v + y   (reads t after the run: broken)
 *
 * t's stores are skipped in the fused build, so kfg_misuse reads stale
 * memory there; the program never outputs junk, so fused and unfused still
 * agree on the output (o), and the run phase of tools/gpu-check passes.
 * Under KFUSE_VERIFY (fused, or KFUSE_DISABLE=1 with KFUSE_VERIFY=scratch)
 * the runtime poisons t after kfg_produce and reports kfg_misuse's read;
 * the EXPECT-VERIFY lines below tell tools/gpu-check which report is
 * intended (a glob over the kfuse-verify line), so that only another
 * report fails its verify phase. */
#include "common.h"
#include "kfuse_example.h"

#include <cstdio>

__global__ KFUSE_MAP void twice(const float *x, float *t, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    t[i] = 2.0f * x[i];
}

__global__ KFUSE_MAP void plus(const float *t, const float *y, float *o, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    o[i] = t[i] + y[i];
}

struct Work {
  float *t KFUSE_SCRATCH;
  float *v, *junk;
  int n, block;
};

extern "C" __attribute__((noinline)) void kfg_produce(Work &w, const float *x, const float *y, float *o,
                                                     cudaStream_t s)
{
  unsigned g = (unsigned)((w.n + w.block - 1) / w.block);
  twice<<<g, w.block, 0, s>>>(x, w.t, w.n);
  plus<<<g, w.block, 0, s>>>(w.t, y, o, w.n);
}

/* The broken promise: t is read after kfg_produce's run, before anything writes it. */
extern "C" __attribute__((noinline)) void kfg_misuse(Work &w, const float *y, cudaStream_t s)
{
  unsigned g = (unsigned)((w.n + w.block - 1) / w.block);
  twice<<<g, w.block, 0, s>>>(w.t, w.v, w.n);
  plus<<<g, w.block, 0, s>>>(w.v, y, w.junk, w.n);
}

int main(int argc, char **argv)
{
  kfx::Args a = kfx::parse_args(argc, argv, "scratch_broken", 1 << 24);
  kfx::require_device("scratch_broken");
  const int n = a.n;
  kfx::Buf<float> x(n), y(n), o(n);
  kfx::fill_uniform(x.h, a.seed, 1, -1.0, 1.0);
  kfx::fill_uniform(y.h, a.seed, 2, -1.0, 1.0);
  x.upload();
  y.upload();
  Work w{nullptr, nullptr, nullptr, n, a.block};
  KFX_CHECK(cudaMalloc(&w.t, (size_t)n * sizeof(float)));
  KFX_CHECK(cudaMalloc(&w.v, (size_t)n * sizeof(float)));
  KFX_CHECK(cudaMalloc(&w.junk, (size_t)n * sizeof(float)));
  cudaStream_t s;
  KFX_CHECK(cudaStreamCreate(&s));
  std::printf("EXPECT-VERIFY scratch buffer 'Work::t' declared at *scratch_broken.cu:* is read by launch 0 (*) "
              "param 0 of *kfg_misuse* before it is written (poisoned after launch 0 (*) param 1 of "
              "*kfg_produce*\n");

  auto check = [&] {
    std::vector<long double> ro(n);
    for (int i = 0; i < n; i++)
      ro[i] = 2.0L * x.h[i] + y.h[i];
    return kfx::check_close("o", o.h.data(), ro.data(), n, 1e-6);
  };
  int rc = kfx::run_and_report(
      "scratch_broken", a, s, 3.0 * n * sizeof(float),
      [&] {
        kfg_produce(w, x.d, y.d, o.d, s);
        kfg_misuse(w, y.d, s);
      },
      check, o);
  KFX_CHECK(cudaStreamDestroy(s));
  cudaFree(w.t);
  cudaFree(w.v);
  cudaFree(w.junk);
  return rc;
}
