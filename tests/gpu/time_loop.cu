/* time_loop: an explicit time loop whose temporaries live in a small class
 * that owns them, as solvers write it:
 *
 *   for step in 0..7:
 *     a = 0.5 * u + f              (temporary a)
 *     b = a * a - 0.25 * u         (temporary b)
 *     u = u + dt * b               (in place)
 *
 * a and b are members of an object on the stack, allocated once; only the
 * next step reads them, after writing them. Where step() is inlined into
 * the loop the fused kernel skips their stores (the records' rerun bits,
 * the manifest's `covered`); here step() has two callers and stays a call,
 * so they are stored: the host pass's remarks say so. A second loop copies
 * a to the host every fourth step, which must keep a stored in any case.
 * A third loop holds a and b in locals and steps through a lambda, which is
 * inlined: there the stores of a and b are skipped. The outputs are u after
 * each loop and
 * the host copies; fused and unfused must agree bit for bit (tools/gpu-check). */
#include "common.h"
#include "kfuse_example.h"

#include <vector>

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

class Stepper {
public:
  Stepper(int n, int block) : n_(n), block_(block)
  {
    KFX_CHECK(cudaMalloc(&a_, n * sizeof(float)));
    KFX_CHECK(cudaMalloc(&b_, n * sizeof(float)));
  }
  ~Stepper()
  {
    cudaFree(a_);
    cudaFree(b_);
  }
  Stepper(const Stepper &) = delete;
  Stepper &operator=(const Stepper &) = delete;

  void step(float *u, const float *f, cudaStream_t s)
  {
    unsigned g = (unsigned)((n_ + block_ - 1) / block_);
    source<<<g, block_, 0, s>>>(u, f, a_, n_);
    react<<<g, block_, 0, s>>>(a_, u, b_, n_);
    advance<<<g, block_, 0, s>>>(u, b_, 0.125f, n_);
  }
  const float *a() const { return a_; }

private:
  float *a_, *b_;
  int n_, block_;
};

static const int kSteps = 8;

/* Eight steps; nothing but the next step reads the temporaries. */
static void run_quiet(float *u, const float *f, int n, int block, cudaStream_t s)
{
  Stepper st(n, block);
  for (int t = 0; t < kSteps; t++)
    st.step(u, f, s);
}

/* Eight steps, a copied to the host every fourth step. */
static void run_watched(float *u, const float *f, float *seen, int n, int block, cudaStream_t s)
{
  Stepper st(n, block);
  for (int t = 0; t < kSteps; t++) {
    st.step(u, f, s);
    if (t % 4 == 0)
      KFX_CHECK(cudaMemcpyAsync(seen + (size_t)(t / 4) * n, st.a(), n * sizeof(float),
                                cudaMemcpyDeviceToHost, s));
  }
}

/* Eight steps through a lambda; a and b stream-ordered locals. */
static void run_lambda(float *u, const float *f, int n, int block, cudaStream_t s)
{
  float *a, *b;
  KFX_CHECK(cudaMallocAsync(&a, n * sizeof(float), s));
  KFX_CHECK(cudaMallocAsync(&b, n * sizeof(float), s));
  unsigned g = (unsigned)((n + block - 1) / block);
  auto step = [&] {
    source<<<g, block, 0, s>>>(u, f, a, n);
    react<<<g, block, 0, s>>>(a, u, b, n);
    advance<<<g, block, 0, s>>>(u, b, 0.125f, n);
  };
  for (int t = 0; t < kSteps; t++)
    step();
  KFX_CHECK(cudaFreeAsync(a, s));
  KFX_CHECK(cudaFreeAsync(b, s));
}

int main(int argc, char **argv)
{
  kfx::Args a = kfx::parse_args(argc, argv, "time_loop", 1 << 24);
  kfx::require_device("time_loop");
  const int n = a.n;
  kfx::Buf<float> u0(n), f(n), u(n), w(n), l(n), seen(2 * (size_t)n);
  kfx::fill_uniform(u0.h, a.seed, 1, -1.0, 1.0);
  kfx::fill_uniform(f.h, a.seed, 2, -0.5, 0.5);
  u0.upload();
  f.upload();
  std::vector<float> host_seen(2 * (size_t)n);
  float *pinned = nullptr;
  KFX_CHECK(cudaMallocHost(&pinned, 2 * (size_t)n * sizeof(float)));
  cudaStream_t s;
  KFX_CHECK(cudaStreamCreate(&s));

  auto check = [&] {
    std::vector<long double> ru(n), rs(2 * (size_t)n);
    for (int i = 0; i < n; i++) {
      long double x = u0.h[i], fa = f.h[i];
      for (int t = 0; t < kSteps; t++) {
        long double av = 0.5L * x + fa, bv = av * av - 0.25L * x;
        if (t % 4 == 0)
          rs[(size_t)(t / 4) * n + i] = av;
        x = x + 0.125L * bv;
      }
      ru[i] = x;
    }
    bool ok = kfx::check_close("u", u.h.data(), ru.data(), n, 1e-5);
    ok = kfx::check_close("w", w.h.data(), ru.data(), n, 1e-5) && ok;
    ok = kfx::check_close("l", l.h.data(), ru.data(), n, 1e-5) && ok;
    return kfx::check_close("seen", seen.h.data(), rs.data(), 2 * (size_t)n, 1e-5) && ok;
  };
  int rc = kfx::run_and_report(
      "time_loop", a, s, (3.0 + 3 * kSteps * 3.0) * n * sizeof(float),
      [&] {
        KFX_CHECK(cudaMemcpyAsync(u.d, u0.d, u0.bytes(), cudaMemcpyDeviceToDevice, s));
        KFX_CHECK(cudaMemcpyAsync(w.d, u0.d, u0.bytes(), cudaMemcpyDeviceToDevice, s));
        KFX_CHECK(cudaMemcpyAsync(l.d, u0.d, u0.bytes(), cudaMemcpyDeviceToDevice, s));
        run_quiet(u.d, f.d, n, a.block, s);
        run_watched(w.d, f.d, pinned, n, a.block, s);
        run_lambda(l.d, f.d, n, a.block, s);
        KFX_CHECK(cudaMemcpyAsync(seen.d, pinned, seen.bytes(), cudaMemcpyHostToDevice, s));
      },
      check, u, w, l, seen);
  KFX_CHECK(cudaStreamDestroy(s));
  KFX_CHECK(cudaFreeHost(pinned));
  return rc;
}
