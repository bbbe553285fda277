/* shallow_water: one time step of the 2-D shallow-water equations on a
 * doubly bounded grid, written as weather and ocean codes write them: one
 * small kernel per operation, 21 launches per step, maps and stencils.
 *
 *   fluxes      mx = h u, my = h v, p = g h^2 / 2,
 *               fxx = mx u + p, fxy = mx v, fyy = my v + p      (6 maps)
 *   update      Lax-Friedrichs: each of h, mx, my becomes the mean of its
 *               four neighbours minus the flux differences         (3 stencils)
 *   sources     bottom drag, then Coriolis on each momentum        (4 maps)
 *   state       a floor on the depth, u = mx / h, v = my / h       (3 maps)
 *   diagnostics relative vorticity and divergence                   (2 stencils),
 *               energy, potential vorticity, the CFL number         (3 maps)
 *
 * Boundary cells keep their values (the stencils copy them) and their
 * diagnostics are 0. The thirteen intermediates are temporaries of the
 * step (allocated and freed in it, stream-ordered); the new state and the
 * five diagnostics are the outputs. kfuse fuses the step into a few
 * kernels: the maps into the stencils that read them with 2-D halos (a
 * flux is recomputed for the frame around each block, and the fluxes'
 * inputs grow with them), the sources and state in registers.
 * --n is the cell count: the grid is 2048 wide, n / 2048 rows. */
#include "common.h"
#include <kfuse/kfuse.h>

#define CELL                                                                                 \
  int x = blockIdx.x * blockDim.x + threadIdx.x;                                             \
  int y = blockIdx.y * blockDim.y + threadIdx.y;                                             \
  if (x >= w || y >= h)                                                                      \
    return;                                                                                  \
  int i = y * w + x
#define EDGE (x == 0 || y == 0 || x == w - 1 || y == h - 1)

struct Params {
  float g, c, drag, fdt, hmin, f0, dtdx;
};

__global__ KFUSE_MAP void sw_momx(const float *d, const float *u, float *mx, int w, int h)
{ CELL; mx[i] = d[i] * u[i]; }
__global__ KFUSE_MAP void sw_momy(const float *d, const float *v, float *my, int w, int h)
{ CELL; my[i] = d[i] * v[i]; }
__global__ KFUSE_MAP void sw_pres(const float *d, float *p, float g, int w, int h)
{ CELL; p[i] = 0.5f * g * d[i] * d[i]; }
__global__ KFUSE_MAP void sw_fxx(const float *mx, const float *u, const float *p, float *f, int w, int h)
{ CELL; f[i] = mx[i] * u[i] + p[i]; }
__global__ KFUSE_MAP void sw_fxy(const float *mx, const float *v, float *f, int w, int h)
{ CELL; f[i] = mx[i] * v[i]; }
__global__ KFUSE_MAP void sw_fyy(const float *my, const float *v, const float *p, float *f, int w, int h)
{ CELL; f[i] = my[i] * v[i] + p[i]; }

/* q_new = mean of q's four neighbours - c (fx[E] - fx[W]) - c (fy[N] - fy[S]). */
__global__ KFUSE_MAP void sw_lax(const float *q, const float *fx, const float *fy, float *qn,
                                 float c, int w, int h)
{
  CELL;
  if (EDGE)
    qn[i] = q[i];
  else
    qn[i] = 0.25f * (q[i - 1] + q[i + 1] + q[i - w] + q[i + w]) - c * (fx[i + 1] - fx[i - 1]) -
            c * (fy[i + w] - fy[i - w]);
}

__global__ KFUSE_MAP void sw_drag(const float *m, float *mf, float drag, int w, int h)
{ CELL; mf[i] = m[i] * (1.0f - drag); }
__global__ KFUSE_MAP void sw_corx(const float *mx, const float *my, float *mc, float fdt, int w, int h)
{ CELL; mc[i] = mx[i] + fdt * my[i]; }
__global__ KFUSE_MAP void sw_cory(const float *mx, const float *my, float *mc, float fdt, int w, int h)
{ CELL; mc[i] = my[i] - fdt * mx[i]; }
__global__ KFUSE_MAP void sw_floor(const float *d, float *dc, float hmin, int w, int h)
{ CELL; dc[i] = fmaxf(d[i], hmin); }
__global__ KFUSE_MAP void sw_vel(const float *m, const float *d, float *vel, int w, int h)
{ CELL; vel[i] = m[i] / d[i]; }

__global__ KFUSE_MAP void sw_vort(const float *u, const float *v, float *z, int w, int h)
{ CELL; z[i] = EDGE ? 0.0f : 0.5f * ((v[i + 1] - v[i - 1]) - (u[i + w] - u[i - w])); }
__global__ KFUSE_MAP void sw_div(const float *u, const float *v, float *dv, int w, int h)
{ CELL; dv[i] = EDGE ? 0.0f : 0.5f * ((u[i + 1] - u[i - 1]) + (v[i + w] - v[i - w])); }
__global__ KFUSE_MAP void sw_energy(const float *d, const float *u, const float *v, float *e,
                                    float g, int w, int h)
{ CELL; e[i] = 0.5f * d[i] * (u[i] * u[i] + v[i] * v[i]) + 0.5f * g * d[i] * d[i]; }
__global__ KFUSE_MAP void sw_pv(const float *z, const float *d, float *pv, float f0, int w, int h)
{ CELL; pv[i] = (z[i] + f0) / d[i]; }
__global__ KFUSE_MAP void sw_cfl(const float *d, const float *u, const float *v, float *cfl,
                                 float g, float dtdx, int w, int h)
{ CELL; cfl[i] = (sqrtf(u[i] * u[i] + v[i] * v[i]) + sqrtf(g * d[i])) * dtdx; }

/* The outputs: the new depth and velocities, then the diagnostics. */
struct Out {
  float *d, *u, *v, *zeta, *div, *e, *pv, *cfl;
};

static void step(const float *d, const float *u, const float *v, Out o, const Params &k, int w,
                 int h, cudaStream_t s)
{
  dim3 block(32, 8), grid((w + 31) / 32, (h + 7) / 8);
  size_t bytes = (size_t)w * h * sizeof(float);
  float *mx, *my, *p, *fxx, *fxy, *fyy, *dn, *mxn, *myn, *mxf, *myf, *mxc, *myc;
  for (float **t : {&mx, &my, &p, &fxx, &fxy, &fyy, &dn, &mxn, &myn, &mxf, &myf, &mxc, &myc})
    KFX_CHECK(cudaMallocAsync(t, bytes, s));
  sw_momx<<<grid, block, 0, s>>>(d, u, mx, w, h);
  sw_momy<<<grid, block, 0, s>>>(d, v, my, w, h);
  sw_pres<<<grid, block, 0, s>>>(d, p, k.g, w, h);
  sw_fxx<<<grid, block, 0, s>>>(mx, u, p, fxx, w, h);
  sw_fxy<<<grid, block, 0, s>>>(mx, v, fxy, w, h);
  sw_fyy<<<grid, block, 0, s>>>(my, v, p, fyy, w, h);
  sw_lax<<<grid, block, 0, s>>>(d, mx, my, dn, k.c, w, h);
  sw_lax<<<grid, block, 0, s>>>(mx, fxx, fxy, mxn, k.c, w, h);
  sw_lax<<<grid, block, 0, s>>>(my, fxy, fyy, myn, k.c, w, h);
  sw_drag<<<grid, block, 0, s>>>(mxn, mxf, k.drag, w, h);
  sw_drag<<<grid, block, 0, s>>>(myn, myf, k.drag, w, h);
  sw_corx<<<grid, block, 0, s>>>(mxf, myf, mxc, k.fdt, w, h);
  sw_cory<<<grid, block, 0, s>>>(mxf, myf, myc, k.fdt, w, h);
  sw_floor<<<grid, block, 0, s>>>(dn, o.d, k.hmin, w, h);
  sw_vel<<<grid, block, 0, s>>>(mxc, o.d, o.u, w, h);
  sw_vel<<<grid, block, 0, s>>>(myc, o.d, o.v, w, h);
  sw_vort<<<grid, block, 0, s>>>(o.u, o.v, o.zeta, w, h);
  sw_div<<<grid, block, 0, s>>>(o.u, o.v, o.div, w, h);
  sw_energy<<<grid, block, 0, s>>>(o.d, o.u, o.v, o.e, k.g, w, h);
  sw_pv<<<grid, block, 0, s>>>(o.zeta, o.d, o.pv, k.f0, w, h);
  sw_cfl<<<grid, block, 0, s>>>(o.d, o.u, o.v, o.cfl, k.g, k.dtdx, w, h);
  for (float *t : {mx, my, p, fxx, fxy, fyy, dn, mxn, myn, mxf, myf, mxc, myc})
    KFX_CHECK(cudaFreeAsync(t, s));
}

int main(int argc, char **argv)
{
  kfx::Args a = kfx::parse_args(argc, argv, "shallow_water", 1 << 24);
  kfx::require_device("shallow_water");
  const int w = 2048, h = (int)(a.n / w);
  const size_t n = (size_t)w * h;
  const Params k = {9.81f, 0.05f, 0.001f, 0.01f, 0.1f, 0.0001f, 0.02f};
  kfx::Buf<float> d(n), u(n), v(n), dc(n), un(n), vn(n), zeta(n), div(n), e(n), pv(n), cfl(n);
  kfx::fill_uniform(d.h, a.seed, 1, 0.5, 1.5);
  kfx::fill_uniform(u.h, a.seed, 2, -0.5, 0.5);
  kfx::fill_uniform(v.h, a.seed, 3, -0.5, 0.5);
  d.upload();
  u.upload();
  v.upload();
  cudaStream_t s;
  KFX_CHECK(cudaStreamCreate(&s));
  /* The step's temporaries come from the stream-ordered pool each step;
   * as models do, keep the pool's memory between steps. */
  cudaMemPool_t pool;
  uint64_t keep = UINT64_MAX;
  KFX_CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
  KFX_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
  Out o = {dc.d, un.d, vn.d, zeta.d, div.d, e.d, pv.d, cfl.d};

  /* Against a double reference of the step; the diagnostics from the
   * device's new state, each alone. */
  auto check = [&] {
    std::vector<double> rd(n), ru(n), rv(n), rz(n), rdv(n), re(n), rpv(n), rc(n);
    auto at = [&](const std::vector<float> &q, int yy, int xx) { return (double)q[(size_t)yy * w + xx]; };
    auto mx = [&](int yy, int xx) { return at(d.h, yy, xx) * at(u.h, yy, xx); };
    auto my = [&](int yy, int xx) { return at(d.h, yy, xx) * at(v.h, yy, xx); };
    auto pr = [&](int yy, int xx) { return 0.5 * k.g * at(d.h, yy, xx) * at(d.h, yy, xx); };
    auto fxx = [&](int yy, int xx) { return mx(yy, xx) * at(u.h, yy, xx) + pr(yy, xx); };
    auto fxy = [&](int yy, int xx) { return mx(yy, xx) * at(v.h, yy, xx); };
    auto fyy = [&](int yy, int xx) { return my(yy, xx) * at(v.h, yy, xx) + pr(yy, xx); };
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        size_t i = (size_t)y * w + x;
        bool edge = x == 0 || y == 0 || x == w - 1 || y == h - 1;
        auto lax = [&](auto q, auto fx, auto fy) {
          return edge ? q(y, x)
                      : 0.25 * (q(y, x - 1) + q(y, x + 1) + q(y - 1, x) + q(y + 1, x)) -
                            k.c * (fx(y, x + 1) - fx(y, x - 1)) - k.c * (fy(y + 1, x) - fy(y - 1, x));
        };
        auto dd = [&](int yy, int xx) { return at(d.h, yy, xx); };
        double dn = lax(dd, mx, my), mxn = lax(mx, fxx, fxy), myn = lax(my, fxy, fyy);
        double mxf = mxn * (1.0 - k.drag), myf = myn * (1.0 - k.drag);
        double mxc = mxf + k.fdt * myf, myc = myf - k.fdt * mxf;
        rd[i] = std::fmax(dn, k.hmin);
        ru[i] = mxc / rd[i];
        rv[i] = myc / rd[i];
      }
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        size_t i = (size_t)y * w + x;
        bool edge = x == 0 || y == 0 || x == w - 1 || y == h - 1;
        double D = dc.h[i], U = un.h[i], V = vn.h[i];
        rz[i] = edge ? 0.0 : 0.5 * ((at(vn.h, y, x + 1) - at(vn.h, y, x - 1)) - (at(un.h, y + 1, x) - at(un.h, y - 1, x)));
        rdv[i] = edge ? 0.0 : 0.5 * ((at(un.h, y, x + 1) - at(un.h, y, x - 1)) + (at(vn.h, y + 1, x) - at(vn.h, y - 1, x)));
        re[i] = 0.5 * D * (U * U + V * V) + 0.5 * k.g * D * D;
        rpv[i] = ((double)zeta.h[i] + k.f0) / D;
        rc[i] = (std::sqrt(U * U + V * V) + std::sqrt(k.g * D)) * k.dtdx;
      }
    bool ok = kfx::check_close("d", dc.h.data(), rd.data(), n, 1e-5);
    ok = kfx::check_close("u", un.h.data(), ru.data(), n, 1e-4) && ok;
    ok = kfx::check_close("v", vn.h.data(), rv.data(), n, 1e-4) && ok;
    ok = kfx::check_close("zeta", zeta.h.data(), rz.data(), n, 1e-4) && ok;
    ok = kfx::check_close("div", div.h.data(), rdv.data(), n, 1e-4) && ok;
    ok = kfx::check_close("e", e.h.data(), re.data(), n, 1e-5) && ok;
    ok = kfx::check_close("pv", pv.h.data(), rpv.data(), n, 1e-5) && ok;
    return kfx::check_close("cfl", cfl.h.data(), rc.data(), n, 1e-5) && ok;
  };
  /* Bytes of the step as one kernel: d, u, v read, eight outputs written. */
  int rc = kfx::run_and_report(
      "shallow_water", a, s, 11.0 * n * sizeof(float), [&] { step(d.d, u.d, v.d, o, k, w, h, s); },
      check, dc, un, vn, zeta, div, e, pv, cfl);
  KFX_CHECK(cudaStreamDestroy(s));
  return rc;
}
