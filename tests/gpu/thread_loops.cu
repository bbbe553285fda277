/* thread_loops: kernels whose thread loops over elements of its own a
 * constant number of times, in loops the compiler keeps (a large body, or
 * `#pragma unroll 1` where the author limits code size), as codes that
 * give each thread several items or an element's quadrature points write
 * them:
 *
 *   blocked   each thread owns ITEMS consecutive values (a blocked
 *             arrangement): t = exp(-x^2 / 2) * w[k], then o = t * y + t,
 *             item by item; t forwarded in registers
 *   element   hexahedral elements, 8 nodal values each: the integral of
 *             the trilinear interpolant over 2 x 2 x 2 Gauss points (two
 *             nested loops, the weights a small read-only array), then
 *             scaled by the element's Jacobian; the integral forwarded
 *   vectors   a grid-stride loop over points, 3 components each in an
 *             inner loop: v = a * p + q, then |v|^2 per point
 *
 * kfuse analyses and fuses each through a copy with its loops unrolled
 * (ThreadLoops.h); launched alone, or where a guard fails, the kernels keep
 * their loops. Fused and unfused runs must agree bit for bit
 * (tools/gpu-check), and with the host reference below within rounding
 * (the device contracts products and sums into FMAs, expf differs). */
#include "common.h"
#include "kfuse_example.h"

#include <cmath>

enum { ITEMS = 16, NODES = 8, GAUSS = 2 };

#define IDX const int i = blockIdx.x * blockDim.x + threadIdx.x

__global__ KFUSE_MAP void bell(const float *x, const float *w, float *t, int n)
{
  IDX;
  if (i >= n)
    return;
  const int base = ITEMS * i;
#pragma unroll 1
  for (int k = 0; k < ITEMS; ++k) {
    const float v = x[base + k];
    t[base + k] = expf(-0.5f * v * v) * w[k];
  }
}

__global__ KFUSE_MAP void blend(const float *t, const float *y, float *o, int n)
{
  IDX;
  if (i >= n)
    return;
  const int base = ITEMS * i;
#pragma unroll 1
  for (int k = 0; k < ITEMS; ++k)
    o[base + k] = t[base + k] * y[base + k] + t[base + k];
}

/* The trilinear shape function of node a at reference point (xi, eta, zeta). */
__device__ inline float shape(int a, float xi, float eta, float zeta)
{
  const float sx = (a & 1) ? 1.0f : -1.0f, sy = (a & 2) ? 1.0f : -1.0f,
              sz = (a & 4) ? 1.0f : -1.0f;
  return 0.125f * (1.0f + sx * xi) * (1.0f + sy * eta) * (1.0f + sz * zeta);
}

/* gp[q]: the Gauss points' coordinate, gw[q] their weights. */
__global__ KFUSE_MAP void integrate(const float *u, const float *gp, const float *gw, float *s,
                                   int ne)
{
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= ne)
    return;
  float acc = 0.0f;
#pragma unroll 1
  for (int q = 0; q < GAUSS * GAUSS * GAUSS; ++q) {
    const float xi = gp[q % GAUSS], eta = gp[q / GAUSS % GAUSS], zeta = gp[q / (GAUSS * GAUSS)];
    const float wq = gw[q % GAUSS] * gw[q / GAUSS % GAUSS] * gw[q / (GAUSS * GAUSS)];
    float uq = 0.0f;
#pragma unroll 1
    for (int a = 0; a < NODES; ++a)
      uq += shape(a, xi, eta, zeta) * u[NODES * e + a];
    acc += wq * uq;
  }
  s[e] = acc;
}

__global__ KFUSE_MAP void scale_by_jacobian(const float *s, const float *detj, float *r, int ne)
{
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e < ne)
    r[e] = s[e] * detj[e];
}

#define GRID_STRIDE(i, n)                                                                    \
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)

__global__ KFUSE_MAP void axpy3(const float *p, const float *q, float *v, float a, int np)
{
  GRID_STRIDE(i, np)
#pragma unroll 1
  for (int c = 0; c < 3; ++c)
    v[3 * i + c] = a * p[3 * i + c] + q[3 * i + c];
}

__global__ KFUSE_MAP void norm2(const float *v, float *m, int np)
{
  GRID_STRIDE(i, np)
  {
    float s = 0.0f;
#pragma unroll 1
    for (int c = 0; c < 3; ++c)
      s += v[3 * i + c] * v[3 * i + c];
    m[i] = s;
  }
}

int main(int argc, char **argv)
{
  kfx::Args a = kfx::parse_args(argc, argv, "thread_loops", 1 << 21);
  kfx::require_device("thread_loops");
  const size_t n = (size_t)a.n;
  const int len = (int)n;
  int dev = 0, sms = 0;
  KFX_CHECK(cudaGetDevice(&dev));
  KFX_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  const unsigned fixed = 4u * (unsigned)sms;

  kfx::Buf<float> x(ITEMS * n), w(ITEMS), y(ITEMS * n), t(ITEMS * n), o(ITEMS * n);
  kfx::Buf<float> u(NODES * n), gp(GAUSS), gw(GAUSS), s(n), detj(n), r(n);
  kfx::Buf<float> p(3 * n), q(3 * n), v(3 * n), m(n);
  kfx::fill_uniform(x.h, a.seed, 1, -3.0, 3.0);
  kfx::fill_uniform(w.h, a.seed, 2, 0.5, 1.5);
  kfx::fill_uniform(y.h, a.seed, 3, -1.0, 1.0);
  kfx::fill_uniform(u.h, a.seed, 4, -1.0, 1.0);
  kfx::fill_uniform(detj.h, a.seed, 5, 0.1, 2.0);
  kfx::fill_uniform(p.h, a.seed, 6, -2.0, 2.0);
  kfx::fill_uniform(q.h, a.seed, 7, -2.0, 2.0);
  gp.h = {-0.57735026918962576f, 0.57735026918962576f};
  gw.h = {1.0f, 1.0f};
  for (auto *b : {&x, &w, &y, &u, &gp, &gw, &detj, &p, &q})
    b->upload();
  cudaStream_t st;
  KFX_CHECK(cudaStreamCreate(&st));
  const int grid = (len + a.block - 1) / a.block;

  auto check = [&] {
    std::vector<double> rt(ITEMS * n), ro(ITEMS * n), rr(n), rv(3 * n), rm(n);
    for (size_t i = 0; i < ITEMS * n; i++) {
      const double xv = x.h[i];
      rt[i] = std::exp(-0.5 * xv * xv) * w.h[i % ITEMS];
      ro[i] = rt[i] * y.h[i] + rt[i];
    }
    for (size_t e = 0; e < n; e++) {
      double acc = 0;
      for (int qq = 0; qq < GAUSS * GAUSS * GAUSS; qq++) {
        const double xi = gp.h[qq % GAUSS], eta = gp.h[qq / GAUSS % GAUSS],
                     zeta = gp.h[qq / (GAUSS * GAUSS)];
        double uq = 0;
        for (int aa = 0; aa < NODES; aa++)
          uq += 0.125 * (1 + ((aa & 1) ? xi : -xi)) * (1 + ((aa & 2) ? eta : -eta)) *
                (1 + ((aa & 4) ? zeta : -zeta)) * u.h[NODES * e + aa];
        acc += uq;
      }
      rr[e] = acc * detj.h[e];
      double sum = 0;
      for (int c = 0; c < 3; c++) {
        rv[3 * e + c] = 1.25 * p.h[3 * e + c] + q.h[3 * e + c];
        sum += rv[3 * e + c] * rv[3 * e + c];
      }
      rm[e] = sum;
    }
    bool ok = kfx::check_close("t", t.h.data(), rt.data(), ITEMS * n, 1e-5);
    ok = kfx::check_close("o", o.h.data(), ro.data(), ITEMS * n, 1e-4) && ok;
    ok = kfx::check_close("r", r.h.data(), rr.data(), n, 1e-4) && ok;
    ok = kfx::check_close("v", v.h.data(), rv.data(), 3 * n, 1e-5) && ok;
    return kfx::check_close("m", m.h.data(), rm.data(), n, 1e-4) && ok;
  };
  const double bytes = 4.0 * n * (ITEMS * 5 + NODES + 4 + 3 * 4 + 1);
  int rc = kfx::run_and_report(
      "thread_loops", a, st, bytes,
      [&] {
        bell<<<grid, a.block, 0, st>>>(x.d, w.d, t.d, len);
        blend<<<grid, a.block, 0, st>>>(t.d, y.d, o.d, len);
        integrate<<<grid, a.block, 0, st>>>(u.d, gp.d, gw.d, s.d, len);
        scale_by_jacobian<<<grid, a.block, 0, st>>>(s.d, detj.d, r.d, len);
        axpy3<<<fixed, a.block, 0, st>>>(p.d, q.d, v.d, 1.25f, len);
        norm2<<<fixed, a.block, 0, st>>>(v.d, m.d, len);
      },
      check, t, o, s, r, v, m);
  KFX_CHECK(cudaStreamDestroy(st));
  return rc;
}
