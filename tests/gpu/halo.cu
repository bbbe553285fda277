/* halo: one step of a 1-D conservation law, u_t + (u^2/2)_x = 0, as such
 * codes write it, one kernel per operation:
 *
 *   F  = u * u / 2                                   flux
 *   un = (u[i-1] + u[i+1]) / 2 - c * (F[i+1] - F[i-1])  Lax-Friedrichs update
 *                                                     (boundaries copy u)
 *   o  = min(max(un, lo), hi)                         clipping
 *   g  = (F[i-2] - 8 F[i-1] + 8 F[i+1] - F[i+2]) / 12  fourth-order flux
 *                                                     gradient, a diagnostic
 *   sg = (g[i-1] + 2 g[i] + g[i+1]) / 4                the gradient smoothed
 *
 * The update and the gradient read the flux of neighbouring elements,
 * which threads of the neighbouring blocks compute: the four launches fuse
 * with halo recomputation (lit e2e/halo.cu). Each fused block computes the
 * flux of its own elements and of the three before and after them into a
 * shared tile, synchronises, runs the update, the clipping and the gradient
 * from the tile (the gradient also for one element on each side, into a
 * tile of its own: the halo grows through the stencils), synchronises, and
 * smooths; un reaches the clipping in a register. Fused and
 * unfused must agree bit for bit (tools/gpu-check), at sizes that are no
 * multiple of the block; F exactly against the host, the others within one
 * rounding per operation (the device may contract a product and a sum). */
#include "common.h"
#include "kfuse_example.h"

#define IDX int i = blockIdx.x * blockDim.x + threadIdx.x

__global__ KFUSE_MAP void flux(const float *u, float *F, int n)
{
  IDX;
  if (i < n)
    F[i] = 0.5f * u[i] * u[i];
}

__global__ KFUSE_MAP void lax_friedrichs(const float *u, const float *F, float *un, float c, int n)
{
  IDX;
  if (i >= n)
    return;
  if (i == 0 || i == n - 1)
    un[i] = u[i];
  else
    un[i] = 0.5f * (u[i - 1] + u[i + 1]) - c * (F[i + 1] - F[i - 1]);
}

__global__ KFUSE_MAP void clip(const float *un, float *o, float lo, float hi, int n)
{
  IDX;
  if (i < n)
    o[i] = fminf(fmaxf(un[i], lo), hi);
}

__global__ KFUSE_MAP void gradient4(const float *F, float *g, int n)
{
  IDX;
  if (i >= n)
    return;
  if (i < 2 || i >= n - 2)
    g[i] = 0.0f;
  else
    g[i] = (F[i - 2] - 8.0f * F[i - 1] + 8.0f * F[i + 1] - F[i + 2]) * (1.0f / 12.0f);
}

__global__ KFUSE_MAP void smooth(const float *g, float *sg, int n)
{
  IDX;
  if (i >= n)
    return;
  if (i == 0 || i == n - 1)
    sg[i] = g[i];
  else
    sg[i] = 0.25f * (g[i - 1] + 2.0f * g[i] + g[i + 1]);
}

int main(int argc, char **argv)
{
  kfx::Args a = kfx::parse_args(argc, argv, "halo", 1 << 24);
  kfx::require_device("halo");
  const int n = (int)a.n;
  const float c = 0.125f, lo = -0.75f, hi = 0.75f;
  kfx::Buf<float> u(n), F(n), un(n), o(n), g(n), sg(n);
  kfx::fill_uniform(u.h, a.seed, 1, -1.0, 1.0);
  u.upload();
  cudaStream_t s;
  KFX_CHECK(cudaStreamCreate(&s));
  const unsigned grid = (unsigned)((n + a.block - 1) / a.block);

  auto check = [&] {
    std::vector<double> rF(n), run(n), ro(n), rg(n), rs(n);
    std::vector<float> hF(n);
    for (int i = 0; i < n; i++) {
      hF[i] = 0.5f * u.h[i] * u.h[i];
      rF[i] = hF[i];
    }
    for (int i = 0; i < n; i++) {
      if (i == 0 || i == n - 1)
        run[i] = u.h[i];
      else
        run[i] = 0.5 * ((double)u.h[i - 1] + u.h[i + 1]) - (double)c * ((double)hF[i + 1] - hF[i - 1]);
      ro[i] = std::fmin(std::fmax((float)run[i], lo), hi);
      rg[i] = (i < 2 || i >= n - 2)
                  ? 0.0
                  : ((double)hF[i - 2] - 8.0 * hF[i - 1] + 8.0 * hF[i + 1] - hF[i + 2]) / 12.0;
    }
    for (int i = 0; i < n; i++) /* from the device's g: the smoothing alone */
      rs[i] = (i == 0 || i == n - 1)
                  ? g.h[i]
                  : 0.25 * ((double)g.h[i - 1] + 2.0 * g.h[i] + g.h[i + 1]);
    bool ok = kfx::check_close("F", F.h.data(), rF.data(), n, 0);
    ok = kfx::check_close("sg", sg.h.data(), rs.data(), n, 1e-5) && ok;
    ok = kfx::check_close("un", un.h.data(), run.data(), n, 1e-5) && ok;
    ok = kfx::check_close("o", o.h.data(), ro.data(), n, 1e-5) && ok;
    return kfx::check_close("g", g.h.data(), rg.data(), n, 1e-5) && ok;
  };
  int rc = kfx::run_and_report(
      "halo", a, s, 7.0 * n * sizeof(float),
      [&] {
        flux<<<grid, a.block, 0, s>>>(u.d, F.d, n);
        lax_friedrichs<<<grid, a.block, 0, s>>>(u.d, F.d, un.d, c, n);
        clip<<<grid, a.block, 0, s>>>(un.d, o.d, lo, hi, n);
        gradient4<<<grid, a.block, 0, s>>>(F.d, g.d, n);
        smooth<<<grid, a.block, 0, s>>>(g.d, sg.d, n);
      },
      check, F, un, o, g, sg);
  KFX_CHECK(cudaStreamDestroy(s));
  std::printf("SITES all-fused count=1\n");
  return rc;
}
