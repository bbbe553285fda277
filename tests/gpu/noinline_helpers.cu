/* noinline_helpers: map kernels that hand their pointers to `__noinline__`
 * device functions, as codes with a library of element helpers write them:
 *
 *   t = 1.5 * (x + 0.5)         the kernel adds, store_mul() multiplies and stores
 *   o = (t + 1) + x             the kernel adds, add_to() adds and stores
 *   w = (0.25 * o) * o          scaled() returns 0.25 * o[i], the kernel multiplies
 *   u = 3 * t                   a product the next stage adds to, through memory
 *   v = u + x
 *
 * The device pass analyses each kernel through a copy with its helpers
 * inlined; the launches fuse into one kernel, the intermediates in
 * registers, while each kernel launched alone keeps its calls. No product
 * crosses a call into an addition: in the kernel alone ptxas may inline a
 * helper and contract such a pair into an FFMA, or not (GPU runs 25 and
 * 28), and the device pass refuses those kernels (lit e2e/device-calls.cu).
 * Products that cross a kernel boundary (t, u) are rounded as in any fused
 * kernel. Fused and unfused must agree bit for bit (tools/gpu-check). */
#include "common.h"
#include "kfuse_example.h"

__device__ __noinline__ void store_mul(float *t, float a, float v, int i) { t[i] = a * v; }
__device__ __noinline__ void add_to(float *o, const float *x, float p, int i) { o[i] = p + x[i]; }
__device__ __noinline__ float scaled(const float *x, float a, int i) { return a * x[i]; }
__device__ __noinline__ void store_at(float *p, int i, float v) { p[i] = v; }

__global__ KFUSE_MAP void make_t(const float *x, float *t, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    store_mul(t, 1.5f, x[i] + 0.5f, i);
}

__global__ KFUSE_MAP void make_o(const float *t, const float *x, float *o, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    add_to(o, x, t[i] + 1.0f, i);
}

__global__ KFUSE_MAP void make_w(const float *o, float *w, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    w[i] = scaled(o, 0.25f, i) * o[i];
}

__global__ KFUSE_MAP void make_u(const float *t, float *u, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    store_at(u, i, 3.0f * t[i]);
}

__global__ KFUSE_MAP void make_v(const float *u, const float *x, float *v, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    store_at(v, i, u[i] + x[i]);
}

int main(int argc, char **argv)
{
  kfx::Args a = kfx::parse_args(argc, argv, "noinline_helpers", 1 << 24);
  kfx::require_device("noinline_helpers");
  const int n = (int)a.n;
  kfx::Buf<float> x(n), t(n), o(n), w(n), u(n), v(n);
  kfx::fill_uniform(x.h, a.seed, 1, -1.0f, 1.0f);
  x.upload();
  cudaStream_t s;
  KFX_CHECK(cudaStreamCreate(&s));
  const unsigned grid = (unsigned)((n + a.block - 1) / a.block);

  /* Every value is one float operation on float inputs, so the host
   * computes it exactly as the device does (no FMA anywhere). */
  auto check = [&] {
    std::vector<double> rt(n), ro(n), rw(n), ru(n), rv(n);
    for (int i = 0; i < n; i++) {
      float tt = 1.5f * (x.h[i] + 0.5f);
      float oo = (tt + 1.0f) + x.h[i];
      float uu = 3.0f * tt;
      rt[i] = tt;
      ro[i] = oo;
      rw[i] = (0.25f * oo) * oo;
      ru[i] = uu;
      rv[i] = uu + x.h[i];
    }
    bool ok = kfx::check_close("t", t.h.data(), rt.data(), n, 0);
    ok = kfx::check_close("o", o.h.data(), ro.data(), n, 0) && ok;
    ok = kfx::check_close("w", w.h.data(), rw.data(), n, 0) && ok;
    ok = kfx::check_close("u", u.h.data(), ru.data(), n, 0) && ok;
    return kfx::check_close("v", v.h.data(), rv.data(), n, 0) && ok;
  };
  int rc = kfx::run_and_report(
      "noinline_helpers", a, s, 11.0 * n * sizeof(float),
      [&] {
        make_t<<<grid, a.block, 0, s>>>(x.d, t.d, n);
        make_o<<<grid, a.block, 0, s>>>(t.d, x.d, o.d, n);
        make_w<<<grid, a.block, 0, s>>>(o.d, w.d, n);
        make_u<<<grid, a.block, 0, s>>>(t.d, u.d, n);
        make_v<<<grid, a.block, 0, s>>>(u.d, x.d, v.d, n);
      },
      check, t, o, w, u, v);
  KFX_CHECK(cudaStreamDestroy(s));
  std::printf("SITES all-fused count=1\n");
  return rc;
}
