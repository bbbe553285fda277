/* grid_stride: a time loop in double over grid-stride kernels, as codes
 * written for a fixed grid (a few blocks per SM) have it:
 *
 *   for step in 0..3:
 *     r = k1 * u * (1 - u)                  (rate)
 *     u = u + dt * (r - k2 * v)             (in place)
 *     v = v + dt * (u - v) * k3             (reads the new u)
 *
 * Every kernel loops `for (size_t i = blockIdx.x * blockDim.x + threadIdx.x;
 * i < n; i += blockDim.x * gridDim.x)` on a grid of 4 blocks per SM. The
 * three launches of a step fuse into one kernel with one loop, r and u in
 * registers within an iteration. Each timed run starts again from u0, v0.
 *
 * A second sequence writes the loop as many codes do, with an int variable
 * against the size_t n (the loop tests sext(i) < n): w = 2 u0 + 1, z = w w.
 * Its two loops fuse into one, w in a register. A third loops over a plane
 * of nx * ny cells stored flat, `for (int i = ...; i < nx * ny; ...)` with
 * int nx, ny: p = u0 / 2 + 1/4, q = p u0 - p, p a temporary of the call in
 * registers, not stored. A fourth passes its coefficients through
 * `__restrict__` pointers, y1 = c0 u0 + c1, y2 = c2 y1 + c3: the optimiser
 * loads them before the loop, and the loops are still one, y1 in
 * registers. A fifth runs its second loop only under a flag of its own
 * (g1 = 2 u0, then g2 = g1 + 1 if the flag is set), called with the flag 0
 * on y2, which must keep its values, and with 1 on g2: its loops stay two.
 * The program prints `SITES all-fused count=5`: every sequence must run
 * fused on every call.
 * Fused and unfused must agree bit for bit (tools/gpu-check). */
#include "common.h"
#include "kfuse_example.h"

#include <cstdio>

#define GRID_STRIDE(i, n)                                                                    \
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < (n);                    \
       i += (size_t)blockDim.x * gridDim.x)

__global__ KFUSE_MAP void rate(const double *u, double *r, size_t n, double k1)
{
  GRID_STRIDE(i, n) r[i] = k1 * u[i] * (1.0 - u[i]);
}

__global__ KFUSE_MAP void update_u(double *u, const double *r, const double *v, size_t n,
                                  double dt, double k2)
{
  GRID_STRIDE(i, n) u[i] = u[i] + dt * (r[i] - k2 * v[i]);
}

__global__ KFUSE_MAP void update_v(const double *u, double *v, size_t n, double dt, double k3)
{
  GRID_STRIDE(i, n) v[i] = v[i] + dt * (u[i] - v[i]) * k3;
}

/* The int against the size_t is the point: the warning it draws is known. */
#pragma clang diagnostic ignored "-Wsign-compare"
#define GRID_STRIDE_INT(i, n)                                                                \
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)

__global__ KFUSE_MAP void affine(const double *x, double *w, size_t n)
{
  GRID_STRIDE_INT(i, n) w[i] = 2.0 * x[i] + 1.0;
}

__global__ KFUSE_MAP void square(const double *w, double *z, size_t n)
{
  GRID_STRIDE_INT(i, n) z[i] = w[i] * w[i];
}

__global__ KFUSE_MAP void plane_relax(const double *x, double *p, int nx, int ny)
{
  GRID_STRIDE_INT(i, nx * ny) p[i] = 0.5 * x[i] + 0.25;
}

__global__ KFUSE_MAP void plane_mix(const double *p, const double *x, double *q, int nx, int ny)
{
  GRID_STRIDE_INT(i, nx * ny) q[i] = p[i] * x[i] - p[i];
}

static void plane(const double *x, double *q, int nx, int ny, unsigned grid, int block,
                  cudaStream_t s)
{
  double *p;
  KFX_CHECK(cudaMallocAsync(&p, sizeof(double) * nx * ny, s));
  plane_relax<<<grid, block, 0, s>>>(x, p, nx, ny);
  plane_mix<<<grid, block, 0, s>>>(p, x, q, nx, ny);
  KFX_CHECK(cudaFreeAsync(p, s));
}

/* The coefficients through `__restrict__` pointers, as performance code
 * passes them: the optimiser reads them once, before the loop. */
__global__ KFUSE_MAP void coef_affine(const double *__restrict__ x, const double *__restrict__ c,
                                      double *__restrict__ y, size_t n)
{
  GRID_STRIDE(i, n) y[i] = c[0] * x[i] + c[1];
}

static void coefs(const double *x, const double *c, double *y1, double *y2, size_t n,
                  unsigned grid, int block, cudaStream_t s)
{
  coef_affine<<<grid, block, 0, s>>>(x, c, y1, n);
  coef_affine<<<grid, block, 0, s>>>(y1, c + 2, y2, n);
}

/* A loop that runs only under a flag of its own: the fused kernel must not
 * run its body when the flag is 0 (the loops then stay two). */
__global__ KFUSE_MAP void gate_twice(const double *x, double *t, size_t n)
{
  GRID_STRIDE(i, n) t[i] = 2.0 * x[i];
}

__global__ KFUSE_MAP void gate_add(const double *t, double *o, size_t n, int flag)
{
  if (flag)
    GRID_STRIDE(i, n) o[i] = t[i] + 1.0;
}

static void gated(const double *x, double *t, double *o, size_t n, int flag, unsigned grid,
                  int block, cudaStream_t s)
{
  gate_twice<<<grid, block, 0, s>>>(x, t, n);
  gate_add<<<grid, block, 0, s>>>(t, o, n, flag);
}

static void narrow(const double *x, double *w, double *z, size_t n, unsigned grid, int block,
                   cudaStream_t s)
{
  affine<<<grid, block, 0, s>>>(x, w, n);
  square<<<grid, block, 0, s>>>(w, z, n);
}

static void step(double *u, double *v, double *r, size_t n, unsigned grid, int block,
                 cudaStream_t s)
{
  const double dt = 0.01;
  rate<<<grid, block, 0, s>>>(u, r, n, 2.5);
  update_u<<<grid, block, 0, s>>>(u, r, v, n, dt, 0.75);
  update_v<<<grid, block, 0, s>>>(u, v, n, dt, 1.5);
}

int main(int argc, char **argv)
{
  kfx::Args a = kfx::parse_args(argc, argv, "grid_stride", 1 << 24);
  kfx::require_device("grid_stride");
  const size_t n = (size_t)a.n;
  const int steps = 4;
  int dev = 0, sms = 0;
  KFX_CHECK(cudaGetDevice(&dev));
  KFX_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  const unsigned grid = 4u * (unsigned)sms;
  /* The plane: rows of up to 1024 cells, as many as fit in n. */
  const int nx = (int)(n < 1024 ? n : 1024), ny = (int)(n / (size_t)nx);
  const size_t cells = (size_t)nx * ny;
  kfx::Buf<double> u0(n), v0(n), u(n), v(n), r(n), w(n), z(n), q(cells), y1(n), y2(n), c(4), g1(n), g2(n);
  c.h = {0.75, -0.25, 1.5, 0.125};
  c.upload();
  kfx::fill_uniform(u0.h, a.seed, 1, 0.0, 1.0);
  kfx::fill_uniform(v0.h, a.seed, 2, 0.0, 1.0);
  u0.upload();
  v0.upload();
  cudaStream_t s;
  KFX_CHECK(cudaStreamCreate(&s));
  /* For tools/gpu-check: every sequence runs fused on every call. */
  std::printf("SITES all-fused count=5\n");

  auto check = [&] {
    std::vector<long double> ru(n), rv(n), rr(n);
    for (size_t i = 0; i < n; i++) {
      long double x = u0.h[i], y = v0.h[i], q = 0;
      for (int t = 0; t < steps; t++) {
        q = 2.5L * x * (1.0L - x);
        x = x + 0.01L * (q - 0.75L * y);
        y = y + 0.01L * (x - y) * 1.5L;
      }
      ru[i] = x, rv[i] = y, rr[i] = q;
    }
    std::vector<long double> rw(n), rz(n);
    for (size_t i = 0; i < n; i++) {
      rw[i] = 2.0L * u0.h[i] + 1.0L;
      rz[i] = rw[i] * rw[i];
    }
    std::vector<long double> rq(cells);
    for (size_t i = 0; i < cells; i++) {
      long double p = 0.5L * u0.h[i] + 0.25L;
      rq[i] = p * u0.h[i] - p;
    }
    std::vector<long double> ry1(n), ry2(n);
    for (size_t i = 0; i < n; i++) {
      ry1[i] = 0.75L * u0.h[i] - 0.25L;
      ry2[i] = 1.5L * ry1[i] + 0.125L;
    }
    bool ok = kfx::check_close("u", u.h.data(), ru.data(), n, 1e-13);
    ok = kfx::check_close("y1", y1.h.data(), ry1.data(), n, 1e-15) && ok;
    ok = kfx::check_close("y2", y2.h.data(), ry2.data(), n, 1e-15) && ok;
    std::vector<long double> rg1(n), rg2(n);
    for (size_t i = 0; i < n; i++) {
      rg1[i] = 2.0L * u0.h[i];
      rg2[i] = rg1[i] + 1.0L;
    }
    ok = kfx::check_close("g1", g1.h.data(), rg1.data(), n, 1e-15) && ok;
    ok = kfx::check_close("g2", g2.h.data(), rg2.data(), n, 1e-15) && ok;
    ok = kfx::check_close("q", q.h.data(), rq.data(), cells, 1e-15) && ok;
    ok = kfx::check_close("w", w.h.data(), rw.data(), n, 1e-15) && ok;
    ok = kfx::check_close("z", z.h.data(), rz.data(), n, 1e-15) && ok;
    ok = kfx::check_close("v", v.h.data(), rv.data(), n, 1e-13) && ok;
    return kfx::check_close("r", r.h.data(), rr.data(), n, 1e-13) && ok;
  };
  int rc = kfx::run_and_report(
      "grid_stride", a, s,
      (2.0 + steps * 5.0 + 3.0 + 3.0 + 6.0) * n * sizeof(double) + 2.0 * cells * sizeof(double),
      [&] {
        KFX_CHECK(cudaMemcpyAsync(u.d, u0.d, u0.bytes(), cudaMemcpyDeviceToDevice, s));
        KFX_CHECK(cudaMemcpyAsync(v.d, v0.d, v0.bytes(), cudaMemcpyDeviceToDevice, s));
        for (int t = 0; t < steps; t++)
          step(u.d, v.d, r.d, n, grid, a.block, s);
        narrow(u0.d, w.d, z.d, n, grid, a.block, s);
        plane(u0.d, q.d, nx, ny, grid, a.block, s);
        coefs(u0.d, c.d, y1.d, y2.d, n, grid, a.block, s);
        /* flag 0: y2 keeps coefs' values; flag 1: g2 = g1 + 1. */
        gated(u0.d, g1.d, y2.d, n, 0, grid, a.block, s);
        gated(u0.d, g1.d, g2.d, n, 1, grid, a.block, s);
      },
      check, u, v, r, w, z, q, y1, y2, g1, g2);
  KFX_CHECK(cudaStreamDestroy(s));
  return rc;
}
