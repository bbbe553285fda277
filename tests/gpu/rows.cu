/* rows: a hydrodynamics step indexed as CloverLeaf's CUDA kernels index
 * their fields, rows and columns taken from the linear thread index by / and
 * %, and the arrays one element wider than the rows the grid counts reached
 * at glob_id + row (the offset is not a polynomial: the row is not put back
 * together with the column):
 *
 *   glob_id = threadIdx.x + blockIdx.x * blockDim.x;
 *   row = glob_id / (x_max + 4);  column = glob_id % (x_max + 4);
 *   THARR2D(x, y, big_row) = glob_id + x + y * (x_max + 4) + big_row * (row + y)
 *
 * Sequence `step` (4 launches over the cells of a (x_max + 4) x (y_max + 4)
 * grid, double): pressure = (gamma - 1) rho e; pre_vol = volume + flux(x+1)
 * - flux(x) on the wider arrays; post_vol = pre_vol - flux(x); e' = e -
 * pressure (post_vol - pre_vol) / volume. pre_vol and post_vol are
 * temporaries of the call (cudaMallocAsync, cudaFreeAsync), forwarded in
 * registers and not stored; pressure is an output.
 * The program prints `SITES all-fused count=1`: the sequence must run fused
 * on every call (tools/gpu-check). Fused and unfused must agree bit for
 * bit. */
#include "common.h"
#include "kfuse_example.h"

#include <algorithm>
#include <cstdio>

#define RW_INDEXES                                                             \
  const int glob_id = threadIdx.x + blockIdx.x * blockDim.x;                   \
  const int row = glob_id / (x_max + 4);                                       \
  const int column = glob_id % (x_max + 4);                                   \
  (void)column;
#define THARR2D(x, y, big_row) (glob_id + (x) + (y) * (x_max + 4) + (big_row) * (row + (y)))
#define RW_INSIDE (row <= y_max + 3) /* every cell; not the last block's spare threads */

__global__ KFUSE_MAP void rw_ideal_gas(int x_max, int y_max, const double *density,
                                       const double *energy, double *pressure)
{
  RW_INDEXES
  if (RW_INSIDE)
    pressure[THARR2D(0, 0, 0)] = (1.4 - 1.0) * density[THARR2D(0, 0, 0)] * energy[THARR2D(0, 0, 0)];
}

__global__ KFUSE_MAP void rw_pre_vol(int x_max, int y_max, const double *volume,
                                     const double *vol_flux_x, double *pre_vol)
{
  RW_INDEXES
  if (RW_INSIDE)
    pre_vol[THARR2D(0, 0, 1)] =
        volume[THARR2D(0, 0, 0)] + vol_flux_x[THARR2D(1, 0, 1)] - vol_flux_x[THARR2D(0, 0, 1)];
}

__global__ KFUSE_MAP void rw_post_vol(int x_max, int y_max, const double *pre_vol,
                                      const double *vol_flux_x, double *post_vol)
{
  RW_INDEXES
  if (RW_INSIDE)
    post_vol[THARR2D(0, 0, 1)] = pre_vol[THARR2D(0, 0, 1)] - vol_flux_x[THARR2D(0, 0, 1)];
}

__global__ KFUSE_MAP void rw_energy(int x_max, int y_max, const double *energy,
                                    const double *pressure, const double *volume,
                                    const double *pre_vol, const double *post_vol,
                                    double *energy1)
{
  RW_INDEXES
  if (RW_INSIDE)
    energy1[THARR2D(0, 0, 0)] =
        energy[THARR2D(0, 0, 0)] - pressure[THARR2D(0, 0, 0)] *
                                       (post_vol[THARR2D(0, 0, 1)] - pre_vol[THARR2D(0, 0, 1)]) /
                                       volume[THARR2D(0, 0, 0)];
}

static void step(int x_max, int y_max, const double *density, const double *energy,
                 const double *volume, const double *flux, double *pressure, double *energy1,
                 size_t wide, cudaStream_t s)
{
  double *pre, *post;
  KFX_CHECK(cudaMallocAsync(&pre, sizeof(double) * wide, s));
  KFX_CHECK(cudaMallocAsync(&post, sizeof(double) * wide, s));
  const int cells = (x_max + 4) * (y_max + 4);
  const int blocks = (cells + 255) / 256;
  rw_ideal_gas<<<blocks, 256, 0, s>>>(x_max, y_max, density, energy, pressure);
  rw_pre_vol<<<blocks, 256, 0, s>>>(x_max, y_max, volume, flux, pre);
  rw_post_vol<<<blocks, 256, 0, s>>>(x_max, y_max, pre, flux, post);
  rw_energy<<<blocks, 256, 0, s>>>(x_max, y_max, energy, pressure, volume, pre, post, energy1);
  KFX_CHECK(cudaFreeAsync(pre, s));
  KFX_CHECK(cudaFreeAsync(post, s));
}

int main(int argc, char **argv)
{
  kfx::Args a = kfx::parse_args(argc, argv, "rows", 1 << 24);
  kfx::require_device("rows");
  /* Rows of 2048 cells (x_max + 4), as many as n allows. */
  const int x_max = 2044;
  const int y_max = std::max<int>(1, int(a.n / 2048) - 5);
  const size_t cells = size_t(x_max + 4) * (y_max + 4);
  const size_t wide = size_t(x_max + 5) * (y_max + 5);
  kfx::Buf<double> density(cells), energy(cells), volume(cells), pressure(cells),
      energy1(cells), flux(wide);
  kfx::fill_uniform(density.h, a.seed, 1, 0.5, 2.0);
  kfx::fill_uniform(energy.h, a.seed, 2, 1.0, 3.0);
  kfx::fill_uniform(volume.h, a.seed, 3, 0.5, 1.5);
  kfx::fill_uniform(flux.h, a.seed, 4, -0.1, 0.1);
  density.upload(), energy.upload(), volume.upload(), flux.upload();
  cudaStream_t s;
  KFX_CHECK(cudaStreamCreate(&s));
  /* For tools/gpu-check: the sequence runs fused on every call. */
  std::printf("SITES all-fused count=1\n");

  auto check = [&] {
    std::vector<double> rp(cells), re(cells);
    for (size_t g = 0; g < cells; g++) {
      const size_t w = g + g / (x_max + 4);
      const double pre = volume.h[g] + flux.h[w + 1] - flux.h[w];
      const double post = pre - flux.h[w];
      rp[g] = (1.4 - 1.0) * density.h[g] * energy.h[g];
      re[g] = energy.h[g] - rp[g] * (post - pre) / volume.h[g];
    }
    bool ok = kfx::check_close("pressure", pressure.h.data(), rp.data(), cells, 1e-12);
    ok = kfx::check_close("energy1", energy1.h.data(), re.data(), cells, 1e-9) && ok;
    return ok;
  };
  int rc = kfx::run_and_report(
      "rows", a, s, (6.0 * cells + 1.0 * wide) * sizeof(double),
      [&] {
        step(x_max, y_max, density.d, energy.d, volume.d, flux.d, pressure.d, energy1.d, wide, s);
      },
      check, pressure, energy1);
  KFX_CHECK(cudaStreamDestroy(s));
  return rc;
}
