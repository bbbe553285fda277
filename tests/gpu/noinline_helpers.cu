/* noinline_helpers: map kernels that hand their pointers to `__noinline__`
 * device functions, as codes with a library of element helpers write them:
 *
 *   t = 1.5 * (a * x + 0.5)     prod() returns a * x[i]; store_mul() stores
 *   o = 3 * t + x               the kernel multiplies, add_to() adds and stores
 *   w = 0.25 * o - o            prod() again, the kernel subtracts
 *
 * Each product and sum sits on the other side of a call from the operation
 * that consumes it, so an FMA formed across the call would change the
 * bits. The device pass analyses each kernel through a copy with its
 * helpers inlined, fences every value that crossed a call and recomputes
 * the products among them with mul.rn, which ptxas never contracts (with
 * fences alone it formed an FFMA across the call: GPU run 25); the three
 * launches fuse into one kernel, t and o in registers, while each kernel
 * launched alone keeps its calls. Fused and unfused must agree bit for bit
 * (tools/gpu-check). */
#include "common.h"
#include "kfuse_example.h"

__device__ __noinline__ float prod(const float *x, float a, int i) { return a * x[i]; }
__device__ __noinline__ void store_mul(float *t, float a, float v, int i) { t[i] = a * v; }
__device__ __noinline__ void add_to(float *o, const float *x, float p, int i) { o[i] = p + x[i]; }

__global__ KFUSE_MAP void make_t(const float *x, float *t, float a, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    store_mul(t, 1.5f, prod(x, a, i) + 0.5f, i);
}

__global__ KFUSE_MAP void make_o(const float *t, const float *x, float *o, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    add_to(o, x, 3.0f * t[i], i);
}

__global__ KFUSE_MAP void make_w(const float *o, float *w, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    w[i] = prod(o, 0.25f, i) - o[i];
}

int main(int argc, char **argv)
{
  kfx::Args a = kfx::parse_args(argc, argv, "noinline_helpers", 1 << 24);
  kfx::require_device("noinline_helpers");
  const int n = (int)a.n;
  const float alpha = 1.25f;
  kfx::Buf<float> x(n), t(n), o(n), w(n);
  kfx::fill_uniform(x.h, a.seed, 1, -1.0f, 1.0f);
  x.upload();
  cudaStream_t s;
  KFX_CHECK(cudaStreamCreate(&s));
  const unsigned grid = (unsigned)((n + a.block - 1) / a.block);

  auto check = [&] {
    std::vector<long double> rt(n), ro(n), rw(n);
    for (int i = 0; i < n; i++) {
      long double v = (long double)alpha * x.h[i] + 0.5L;
      rt[i] = 1.5L * v;
      ro[i] = 3.0L * rt[i] + x.h[i];
      rw[i] = 0.25L * ro[i] - ro[i];
    }
    bool ok = kfx::check_close("t", t.h.data(), rt.data(), n, 1e-5);
    ok = kfx::check_close("o", o.h.data(), ro.data(), n, 1e-5) && ok;
    return kfx::check_close("w", w.h.data(), rw.data(), n, 1e-5) && ok;
  };
  int rc = kfx::run_and_report(
      "noinline_helpers", a, s, 7.0 * n * sizeof(float),
      [&] {
        make_t<<<grid, a.block, 0, s>>>(x.d, t.d, alpha, n);
        make_o<<<grid, a.block, 0, s>>>(t.d, x.d, o.d, n);
        make_w<<<grid, a.block, 0, s>>>(o.d, w.d, n);
      },
      check, t, o, w);
  KFX_CHECK(cudaStreamDestroy(s));
  return rc;
}
