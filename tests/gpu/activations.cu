/* activations: chains of transcendental math, the CUDA math library and
 * libdevice, in float and in double, fused in registers.
 *
 * Sequence `floats` (4 launches): t = gelu(x) (erff, in an inlined
 * __device__ helper); u = tanhf(t)·sinf(t) + cosf(t); v = softplus(u)
 * (expf, log1pf, in a __noinline__ __device__ helper that stays a call in
 * the fused kernel); o = powf(|v|, 1.3) + __fdividef(v, 3) + rsqrtf(1 + v²)
 * + __saturatef(v).
 * Sequence `doubles` (3 launches): t = exp(x)·sin(1e6·x) (the argument
 * takes libdevice's slow trigonometric reduction, a call of
 * __internal_trig_reduction_slowpathd); u = pow(|t|, 0.75) + cos(t);
 * o = tanh(u) + a __noinline__ helper (log1p).
 *
 * Fused and unfused runs must agree bit for bit (tools/gpu-check). The CPU
 * reference computes the same formulas in double (long double for the
 * double chain); the device functions have errors of a few ulp, the fast
 * intrinsics more, so the float outputs are checked to 1e-4 and the double
 * ones to 1e-12 (relative to each output's scale, kfx::compare). */
#include "common.h"
#include "kfuse_example.h"

#include <cmath>

__device__ float gelu(float x) { return 0.5f * x * (1.0f + erff(x * 0.70710678f)); }
__device__ __noinline__ float softplus(float u) { return u > 20.0f ? u : log1pf(expf(u)); }
__device__ __noinline__ double log1p_abs(double u) { return log1p(fabs(u)); }

__global__ KFUSE_MAP void act_gelu(const float *x, float *t, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    t[i] = gelu(x[i]);
}

__global__ KFUSE_MAP void act_trig(const float *t, float *u, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    u[i] = tanhf(t[i]) * sinf(t[i]) + cosf(t[i]);
}

__global__ KFUSE_MAP void act_softplus(const float *u, float *v, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    v[i] = softplus(u[i]);
}

__global__ KFUSE_MAP void act_pow(const float *v, float *o, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float a = v[i];
    o[i] = powf(fabsf(a), 1.3f) + __fdividef(a, 3.0f) + rsqrtf(1.0f + a * a) + __saturatef(a);
  }
}

__global__ KFUSE_MAP void dact_expsin(const double *x, double *t, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    t[i] = exp(x[i]) * sin(1e6 * x[i]);
}

__global__ KFUSE_MAP void dact_powcos(const double *t, double *u, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    u[i] = pow(fabs(t[i]), 0.75) + cos(t[i]);
}

__global__ KFUSE_MAP void dact_tanh(const double *u, double *o, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    o[i] = tanh(u[i]) + log1p_abs(u[i]);
}

static void floats_seq(const float *x, float *t, float *u, float *v, float *o, int n, int block,
                       cudaStream_t s)
{
  unsigned grid = kfx::grid_for(n, block);
  act_gelu<<<grid, block, 0, s>>>(x, t, n);
  act_trig<<<grid, block, 0, s>>>(t, u, n);
  act_softplus<<<grid, block, 0, s>>>(u, v, n);
  act_pow<<<grid, block, 0, s>>>(v, o, n);
}

static void doubles_seq(const double *x, double *t, double *u, double *o, int n, int block,
                        cudaStream_t s)
{
  unsigned grid = kfx::grid_for(n, block);
  dact_expsin<<<grid, block, 0, s>>>(x, t, n);
  dact_powcos<<<grid, block, 0, s>>>(t, u, n);
  dact_tanh<<<grid, block, 0, s>>>(u, o, n);
}

int main(int argc, char **argv)
{
  kfx::Args a = kfx::parse_args(argc, argv, "activations", 1 << 22);
  kfx::require_device("activations");
  const size_t n = (size_t)a.n;
  kfx::Buf<float> x(n), t(n), u(n), v(n), o(n);
  kfx::Buf<double> dx(n), dt(n), du(n), dout(n);
  kfx::fill_uniform(x.h, a.seed, 1, -3.0, 3.0);
  kfx::fill_uniform(dx.h, a.seed, 2, -2.0, 2.0);
  x.upload();
  dx.upload();
  cudaStream_t s;
  KFX_CHECK(cudaStreamCreate(&s));

  auto check = [&] {
    std::vector<double> rt(n), ru(n), rv(n), ro(n);
    std::vector<long double> rdt(n), rdu(n), rdo(n);
    for (size_t i = 0; i < n; i++) {
      /* Each stage from the device's own input, so that one stage's error is
       * not amplified by the next and the tolerance stays per stage. */
      double xi = x.h[i];
      rt[i] = 0.5 * xi * (1.0 + erf(xi * 0.70710678));
      double ti = t.h[i];
      ru[i] = tanh(ti) * sin(ti) + cos(ti);
      double ui = u.h[i];
      rv[i] = ui > 20.0 ? ui : log1p(exp(ui));
      double vi = v.h[i];
      ro[i] = pow(fabs(vi), 1.3) + vi / 3.0 + 1.0 / sqrt(1.0 + vi * vi) +
              (vi < 0.0 ? 0.0 : vi > 1.0 ? 1.0 : vi);
      long double dxi = dx.h[i];
      rdt[i] = expl(dxi) * sinl((double)(1e6 * dx.h[i])); /* the device's rounded argument */
      long double dti = dt.h[i];
      rdu[i] = powl(fabsl(dti), 0.75L) + cosl(dti);
      long double dui = du.h[i];
      rdo[i] = tanhl(dui) + log1pl(fabsl(dui));
    }
    bool ok = kfx::check_close("t", t.h.data(), rt.data(), n, 1e-4);
    ok = kfx::check_close("u", u.h.data(), ru.data(), n, 1e-4) && ok;
    ok = kfx::check_close("v", v.h.data(), rv.data(), n, 1e-4) && ok;
    ok = kfx::check_close("o", o.h.data(), ro.data(), n, 1e-4) && ok;
    ok = kfx::check_close("dt", dt.h.data(), rdt.data(), n, 1e-12) && ok;
    ok = kfx::check_close("du", du.h.data(), rdu.data(), n, 1e-12) && ok;
    return kfx::check_close("do", dout.h.data(), rdo.data(), n, 1e-12) && ok;
  };
  int rc = kfx::run_and_report(
      "activations", a, s, 5.0 * n * sizeof(float) + 4.0 * n * sizeof(double),
      [&] {
        floats_seq(x.d, t.d, u.d, v.d, o.d, (int)n, a.block, s);
        doubles_seq(dx.d, dt.d, du.d, dout.d, (int)n, a.block, s);
      },
      check, t, u, v, o, dt, du, dout);
  KFX_CHECK(cudaStreamDestroy(s));
  return rc;
}
