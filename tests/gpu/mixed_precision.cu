/* mixed_precision: a chain in __half and __nv_bfloat16 arithmetic with
 * conversions to and from float, every operation the inline asm of
 * cuda_fp16.h / cuda_bf16.h, fused in registers.
 *
 * Sequence `chain` (4 launches): t = x·x + y in half (__hmul then __hadd:
 * the forwarded product of the next line must not be contracted with its
 * consumer's add); u = half(float(t)·0.5 + 1) ; b = bf16(float(u))·bf16(w)
 * (__hmul on bf16); o = float(fma(b, b, b)) (__hfma on bf16) + float(t).
 * Sequence `products` (2 launches): p = x·y in half; q = p + y in half: the
 * product crosses the old boundary straight into an add, where a contracted
 * fma would round once instead of twice.
 * Sequence `pairs` (2 launches): s2 = x2·a in __half2 (a, a __half2 passed
 * by value, which the host ABI passes by address: the host pass copies its
 * bytes for the deferred launch); r2 = max(s2, 0) in __half2.
 * Sequence `scaled` (2 launches): v = x·half(k) in half, then z = v +
 * half(e^k): the scalars are converted in the launches' own arguments, so
 * __float2half and expf run between the two launches, as in code that
 * passes a float coefficient to a half kernel; the host pass looks into the
 * conversion (it writes only its own and its caller's locals) and knows
 * expf writes errno and nothing else, and hands both launches over.
 * Sequence `shifted` (2 launches): v2 = x + half(k), z2 = v2 + c with
 * `const __half c = __float2half(2k)` a statement between the launches (a
 * call of a function defined in the file, its argument by value). The
 * program prints `SITES all-fused count=5`: each of the five sequences
 * must run fused on every call (tools/gpu-check).
 *
 * Fused and unfused runs must agree bit for bit (tools/gpu-check). The CPU
 * reference rounds each step to half or bfloat16 exactly as the device does
 * (a product or sum of two halves or bfloat16s is exact in double, rounded
 * once), so u, b, p and q are checked exactly; t to 1e-3, since ptxas may
 * contract t's __hmul and __hadd inside the producer (in both builds alike);
 * o, whose float sum rounds once more, to 1e-6. */
#include "common.h"
#include "kfuse_example.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdio>

__global__ KFUSE_MAP void mp_square_add(const __half *x, const __half *y, __half *t, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    t[i] = __hadd(__hmul(x[i], x[i]), y[i]);
}

__global__ KFUSE_MAP void mp_rescale(const __half *t, __half *u, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    u[i] = __float2half(__half2float(t[i]) * 0.5f + 1.0f);
}

__global__ KFUSE_MAP void mp_to_bf16(const __half *u, const float *w, __nv_bfloat16 *b, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    b[i] = __hmul(__float2bfloat16(__half2float(u[i])), __float2bfloat16(w[i]));
}

__global__ KFUSE_MAP void mp_fma_out(const __nv_bfloat16 *b, const __half *t, float *o, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    o[i] = __bfloat162float(__hfma(b[i], b[i], b[i])) + __half2float(t[i]);
}

__global__ KFUSE_MAP void mp_product(const __half *x, const __half *y, __half *p, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = __hmul(x[i], y[i]);
}

__global__ KFUSE_MAP void mp_add(const __half *p, const __half *y, __half *q, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    q[i] = __hadd(p[i], y[i]);
}

__global__ KFUSE_MAP void mp2_scale(const __half2 *x2, __half2 *s2, __half2 a, int n2)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n2)
    s2[i] = __hmul2(x2[i], a);
}

__global__ KFUSE_MAP void mp2_relu(const __half2 *s2, __half2 *r2, int n2)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n2)
    r2[i] = __hmax2(s2[i], __float2half2_rn(0.0f));
}

__global__ KFUSE_MAP void mp_scale(const __half *x, __half *v, __half k, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    v[i] = __hmul(x[i], k);
}

__global__ KFUSE_MAP void mp_shift(const __half *v, __half *z, __half c, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    z[i] = __hadd(v[i], c);
}

static void chain_seq(const __half *x, const __half *y, const float *w, __half *t, __half *u,
                      __nv_bfloat16 *b, float *o, int n, int block, cudaStream_t s)
{
  unsigned grid = kfx::grid_for(n, block);
  mp_square_add<<<grid, block, 0, s>>>(x, y, t, n);
  mp_rescale<<<grid, block, 0, s>>>(t, u, n);
  mp_to_bf16<<<grid, block, 0, s>>>(u, w, b, n);
  mp_fma_out<<<grid, block, 0, s>>>(b, t, o, n);
}

static void products_seq(const __half *x, const __half *y, __half *p, __half *q, int n, int block,
                         cudaStream_t s)
{
  unsigned grid = kfx::grid_for(n, block);
  mp_product<<<grid, block, 0, s>>>(x, y, p, n);
  mp_add<<<grid, block, 0, s>>>(p, y, q, n);
}

static void pairs_seq(const __half2 *x2, __half2 *s2, __half2 *r2, int n2, int block,
                      cudaStream_t s)
{
  unsigned grid = kfx::grid_for(n2, block);
  mp2_scale<<<grid, block, 0, s>>>(x2, s2, __float2half2_rn(0.5f), n2);
  mp2_relu<<<grid, block, 0, s>>>(s2, r2, n2);
}

static void scaled_seq(const __half *x, __half *v, __half *z, float k, int n, int block,
                       cudaStream_t s)
{
  unsigned grid = kfx::grid_for(n, block);
  mp_scale<<<grid, block, 0, s>>>(x, v, __float2half(k), n);
  mp_shift<<<grid, block, 0, s>>>(v, z, __float2half(expf(k)), n);
}

static void shifted_seq(const __half *x, __half *v2, __half *z2, float k, int n, int block,
                        cudaStream_t s)
{
  unsigned grid = kfx::grid_for(n, block);
  mp_shift<<<grid, block, 0, s>>>(x, v2, __float2half(k), n);
  const __half c = __float2half(2.0f * k);
  mp_shift<<<grid, block, 0, s>>>(v2, z2, c, n);
}

/* Round a double to half or bfloat16 on the host, once, through the
 * headers' own conversions (round to nearest even). */
static float rh(double v) { return __half2float(__double2half(v)); }
static float rb(double v) { return __bfloat162float(__double2bfloat16(v)); }

int main(int argc, char **argv)
{
  kfx::Args a = kfx::parse_args(argc, argv, "mixed_precision", 1 << 22);
  kfx::require_device("mixed_precision");
  const size_t n = (size_t)a.n;
  kfx::Buf<float> xf(n), yf(n), w(n), o(n);
  kfx::Buf<__half> x(n), y(n), t(n), u(n), p(n), q(n), v(n), z(n), v2(n), z2(n);
  kfx::Buf<__nv_bfloat16> b(n);
  const size_t n2 = n / 2;
  kfx::Buf<__half2> s2(n2), r2(n2);
  kfx::fill_uniform(xf.h, a.seed, 1, -4.0, 4.0);
  kfx::fill_uniform(yf.h, a.seed, 2, -4.0, 4.0);
  kfx::fill_uniform(w.h, a.seed, 3, -2.0, 2.0);
  for (size_t i = 0; i < n; i++) {
    x.h[i] = __float2half_rn(xf.h[i]);
    y.h[i] = __float2half_rn(yf.h[i]);
  }
  x.upload();
  y.upload();
  w.upload();
  cudaStream_t s;
  KFX_CHECK(cudaStreamCreate(&s));
  const float k = 0.75f;
  /* For tools/gpu-check: every sequence of this program runs fused on every call. */
  std::printf("SITES all-fused count=5\n");

  auto check = [&] {
    std::vector<float> gt(n), gu(n), gb(n), gp(n), gq(n);
    std::vector<double> rt(n), ru(n), rb_(n), ro(n), rp(n), rq(n);
    for (size_t i = 0; i < n; i++) {
      gt[i] = __half2float(t.h[i]);
      gu[i] = __half2float(u.h[i]);
      gb[i] = __bfloat162float(b.h[i]);
      gp[i] = __half2float(p.h[i]);
      gq[i] = __half2float(q.h[i]);
      double xi = __half2float(x.h[i]), yi = __half2float(y.h[i]);
      /* Each stage from the device's own input (the checks stay per stage). */
      rt[i] = rh(rh(xi * xi) + yi);
      ru[i] = rh((double)gt[i] * 0.5 + 1.0); /* the device rounds to float first, never across a half tie */
      rb_[i] = rb(rb(gu[i]) * (double)rb(w.h[i]));
      ro[i] = (double)rb((double)gb[i] * gb[i] + gb[i]) + gt[i];
      rp[i] = rh(xi * yi);
      rq[i] = rh((double)gp[i] + yi);
    }
    std::vector<float> gs(2 * n2), gr(2 * n2);
    std::vector<double> rs(2 * n2), rr(2 * n2);
    for (size_t i = 0; i < n2; i++) {
      float2 sv = __half22float2(s2.h[i]), rv = __half22float2(r2.h[i]);
      gs[2 * i] = sv.x, gs[2 * i + 1] = sv.y, gr[2 * i] = rv.x, gr[2 * i + 1] = rv.y;
    }
    for (size_t k = 0; k < 2 * n2; k++) {
      rs[k] = rh(0.5 * __half2float(x.h[k]));
      rr[k] = rs[k] > 0.0 ? rs[k] : 0.0;
    }
    /* v and z: a product and a sum of two halves, exact in double. */
    const double hk = __half2float(__float2half(k)), hc = __half2float(__float2half(expf(k)));
    std::vector<float> gv(n), gz(n);
    std::vector<double> rv(n), rz(n);
    for (size_t i = 0; i < n; i++) {
      gv[i] = __half2float(v.h[i]);
      gz[i] = __half2float(z.h[i]);
      rv[i] = rh(__half2float(x.h[i]) * hk);
      rz[i] = rh((double)gv[i] + hc);
    }
    /* v2 and z2: sums of two halves, exact in double. */
    const double h2k = __half2float(__float2half(2.0f * k));
    std::vector<float> gv2(n), gz2(n);
    std::vector<double> rv2(n), rz2(n);
    for (size_t i = 0; i < n; i++) {
      gv2[i] = __half2float(v2.h[i]);
      gz2[i] = __half2float(z2.h[i]);
      rv2[i] = rh(__half2float(x.h[i]) + hk);
      rz2[i] = rh((double)gv2[i] + h2k);
    }
    bool ok = kfx::check_close("t", gt.data(), rt.data(), n, 1e-3);
    ok = kfx::check_close("v2", gv2.data(), rv2.data(), n, 0) && ok;
    ok = kfx::check_close("z2", gz2.data(), rz2.data(), n, 0) && ok;
    ok = kfx::check_close("v", gv.data(), rv.data(), n, 0) && ok;
    ok = kfx::check_close("z", gz.data(), rz.data(), n, 0) && ok;
    ok = kfx::check_close("s2", gs.data(), rs.data(), 2 * n2, 0) && ok;
    ok = kfx::check_close("r2", gr.data(), rr.data(), 2 * n2, 0) && ok;
    ok = kfx::check_close("u", gu.data(), ru.data(), n, 0) && ok;
    ok = kfx::check_close("b", gb.data(), rb_.data(), n, 0) && ok;
    ok = kfx::check_close("o", o.h.data(), ro.data(), n, 1e-6) && ok;
    ok = kfx::check_close("p", gp.data(), rp.data(), n, 0) && ok;
    return kfx::check_close("q", gq.data(), rq.data(), n, 0) && ok;
  };
  int rc = kfx::run_and_report(
      "mixed_precision", a, s, (7.0 * 2 + 2.0 * 4) * n + 3.0 * 4 * n2 + 8.0 * 2 * n,
      [&] {
        chain_seq(x.d, y.d, w.d, t.d, u.d, b.d, o.d, (int)n, a.block, s);
        products_seq(x.d, y.d, p.d, q.d, (int)n, a.block, s);
        pairs_seq((const __half2 *)x.d, s2.d, r2.d, (int)n2, a.block, s);
        scaled_seq(x.d, v.d, z.d, k, (int)n, a.block, s);
        shifted_seq(x.d, v2.d, z2.d, k, (int)n, a.block, s);
      },
      check, t, u, b, o, p, q, s2, r2, v, z, v2, z2);
  KFX_CHECK(cudaStreamDestroy(s));
  return rc;
}
