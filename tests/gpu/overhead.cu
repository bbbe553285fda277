/* overhead: host time per launch sequence, the cost kf_rt_launch_seq adds
 * over the raw launches it replaces. Chains of 2, 4 and 8 trivial map
 * launches on a small n, each issued 500 x --reps times (10000 by default;
 * --reps 1 under compute-sanitizer); the clock runs around the issuing only
 * (a cudaStreamSynchronize every 1000 calls keeps the queue from filling;
 * the time it waits is not counted). --warmup 0 skips the 1000 warm-up calls
 * but one. The unfused build
 * measures the raw launches, the fused build the same source through kfuse:
 *   RESULT name=overhead launches=<k> host_us_per_call=<x>
 * Then each chain runs once on --n elements, checked against a CPU
 * reference; --out gets every chain's outputs (for tools/gpu-check's bitwise
 * fused/unfused comparison). Exits 0, 1 when a check fails, 77 without a
 * CUDA device. */
#include <chrono>

#include "common.h"
#include "map_kernels.h"

#define KFO_CHAIN extern "C" __attribute__((noinline)) void

/* t[j] for step j: j = 0 scales x, odd steps add y, even steps multiply by y. */
KFO_CHAIN kfo_chain2(const float *x, const float *y, float *const *t, float a, int n, int block,
                     cudaStream_t s)
{
  unsigned grid = kfx::grid_for(n, block);
  scale<<<grid, block, 0, s>>>(x, t[0], a, n);
  add<<<grid, block, 0, s>>>(t[0], y, t[1], n);
}

KFO_CHAIN kfo_chain4(const float *x, const float *y, float *const *t, float a, int n, int block,
                     cudaStream_t s)
{
  unsigned grid = kfx::grid_for(n, block);
  scale<<<grid, block, 0, s>>>(x, t[0], a, n);
  add<<<grid, block, 0, s>>>(t[0], y, t[1], n);
  mul<<<grid, block, 0, s>>>(t[1], y, t[2], n);
  add<<<grid, block, 0, s>>>(t[2], y, t[3], n);
}

KFO_CHAIN kfo_chain8(const float *x, const float *y, float *const *t, float a, int n, int block,
                     cudaStream_t s)
{
  unsigned grid = kfx::grid_for(n, block);
  scale<<<grid, block, 0, s>>>(x, t[0], a, n);
  add<<<grid, block, 0, s>>>(t[0], y, t[1], n);
  mul<<<grid, block, 0, s>>>(t[1], y, t[2], n);
  add<<<grid, block, 0, s>>>(t[2], y, t[3], n);
  mul<<<grid, block, 0, s>>>(t[3], y, t[4], n);
  add<<<grid, block, 0, s>>>(t[4], y, t[5], n);
  mul<<<grid, block, 0, s>>>(t[5], y, t[6], n);
  add<<<grid, block, 0, s>>>(t[6], y, t[7], n);
}

namespace {

typedef void (*chain_fn)(const float *, const float *, float *const *, float, int, int, cudaStream_t);

struct Chain {
  int k;
  chain_fn fn;
};

const Chain kChains[] = {{2, kfo_chain2}, {4, kfo_chain4}, {8, kfo_chain8}};

const int kCallsPerRep = 500, kSyncEvery = 1000, kTimeN = 1024;

/* Host microseconds per call of @p c on @p n elements over @p iters calls,
 * after a warm-up (@p warm calls, at least one: it lets the runtime discover
 * the site). */
double host_us_per_call(const Chain &c, const float *x, const float *y, float *const *t, int n, int block,
                        cudaStream_t s, int iters, int warm)
{
  using clk = std::chrono::steady_clock;
  for (int i = 0; i < std::max(warm, 1); i++)
    c.fn(x, y, t, 1.5f, n, block, s);
  KFX_CHECK(cudaStreamSynchronize(s));
  KFX_CHECK_LAUNCH();
  clk::duration spent{};
  for (int done = 0; done < iters; done += kSyncEvery) {
    int batch = std::min(kSyncEvery, iters - done);
    clk::time_point t0 = clk::now();
    for (int i = 0; i < batch; i++)
      c.fn(x, y, t, 1.5f, n, block, s);
    spent += clk::now() - t0;
    KFX_CHECK(cudaStreamSynchronize(s));
  }
  KFX_CHECK_LAUNCH();
  return std::chrono::duration<double, std::micro>(spent).count() / iters;
}

} // namespace

int main(int argc, char **argv)
{
  kfx::Args a = kfx::parse_args(argc, argv, "overhead", 1 << 16);
  kfx::require_device("overhead");
  const int n = (int)a.n, block = a.block;
  const size_t un = (size_t)n;
  const float alpha = 1.5f;
  cudaStream_t s;
  KFX_CHECK(cudaStreamCreate(&s));

  kfx::Buf<float> x(un), y(un);
  kfx::fill_uniform(x.h, a.seed, 1, -2.0, 2.0);
  kfx::fill_uniform(y.h, a.seed, 2, -2.0, 2.0);
  x.upload();
  y.upload();
  /* Separate buffers per step, so every disjointness guard holds. */
  std::vector<kfx::Buf<float> *> t;
  for (int j = 0; j < 8; j++)
    t.push_back(new kfx::Buf<float>(un));
  float *td[8];
  for (int j = 0; j < 8; j++)
    td[j] = t[j]->d;

  /* Timing on a small n (kTimeN, or n when smaller): launch-bound. */
  const int tn = std::min(n, kTimeN);
  for (const Chain &c : kChains) {
    double us = host_us_per_call(c, x.d, y.d, td, tn, block, s, kCallsPerRep * a.reps,
                                 a.warmup > 0 ? kSyncEvery : 1);
    printf("RESULT name=overhead launches=%d host_us_per_call=%.3f\n", c.k, us);
    fflush(stdout);
  }

  /* Correctness on --n elements, and the outputs for --out. */
  FILE *out = nullptr;
  if (a.out && !(out = fopen(a.out, "wb"))) {
    fprintf(stderr, "cannot write %s: %s\n", a.out, strerror(errno));
    return 1;
  }
  bool ok = true;
  std::vector<double> ref(un);
  for (const Chain &c : kChains) {
    for (int j = 0; j < c.k; j++)
      t[j]->poison();
    c.fn(x.d, y.d, td, alpha, n, block, s);
    KFX_CHECK_LAUNCH();
    KFX_CHECK(cudaStreamSynchronize(s));
    for (int j = 0; j < c.k; j++) {
      t[j]->download();
      for (size_t i = 0; i < un; i++) {
        float prev = j == 0 ? x.h[i] : t[j - 1]->h[i];
        /* Each step from the previous step's device result, in float as
         * the kernel computes it: a per-step check, exact up to rounding. */
        ref[i] = j == 0 ? (double)(alpha * prev) : (j % 2 ? (double)(prev + y.h[i]) : (double)(prev * y.h[i]));
      }
      char what[16];
      snprintf(what, sizeof what, "c%dt%d", c.k, j);
      ok = kfx::check_close(what, t[j]->h.data(), ref.data(), un, 1e-6) && ok;
      if (out && fwrite(t[j]->h.data(), sizeof(float), un, out) != un) {
        fprintf(stderr, "cannot write %s\n", a.out);
        return 1;
      }
    }
  }
  if (out && fclose(out) != 0) {
    fprintf(stderr, "cannot write %s\n", a.out);
    return 1;
  }
  for (kfx::Buf<float> *b : t)
    delete b;
  KFX_CHECK(cudaStreamDestroy(s));
  printf("RESULT name=overhead check=%s\n", ok ? "ok" : "FAIL");
  return ok ? 0 : 1;
}
