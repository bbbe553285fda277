/* field3d: a 3-D field update in double, written as a stencil-free time
 * step of a reaction model usually is: a 3-D grid and block, the cell index
 * `(k * ny + j) * nx + i` in 64 bits in one kernel and in int in another,
 * every launch checking i < nx, j < ny, k < nz.
 *
 *   r  = k1 * u * (1 - u)            (reaction rate)
 *   u1 = u + dt * (r - k2 * v)       (update)
 *   v1 = v + dt * (u1 - v) * k3      (reads the updated u1)
 *
 * The three launches fuse into one kernel with r and u1 in registers; the
 * manifest's `le` guards check that rows and planes do not overlap. --n is
 * the cell count: nx = 250, ny = 260, nz = ceil(n / (nx * ny)), so every
 * dimension ends in a partial block. Fused and unfused must agree bit for
 * bit (tools/gpu-check). */
#include "common.h"
#include "kfuse_example.h"

#define IJK                                                                                  \
  int i = blockIdx.x * blockDim.x + threadIdx.x;                                             \
  int j = blockIdx.y * blockDim.y + threadIdx.y;                                             \
  int k = blockIdx.z * blockDim.z + threadIdx.z

__global__ KFUSE_MAP void rate(const double *u, double *r, int nx, int ny, int nz, double k1)
{
  IJK;
  if (i < nx && j < ny && k < nz) {
    size_t c = ((size_t)k * ny + j) * nx + i;
    r[c] = k1 * u[c] * (1.0 - u[c]);
  }
}

__global__ KFUSE_MAP void update_u(const double *u, const double *r, const double *v, double *u1,
                                  int nx, int ny, int nz, double dt, double k2)
{
  IJK;
  if (i >= nx || j >= ny || k >= nz)
    return;
  int c = (k * ny + j) * nx + i;
  u1[c] = u[c] + dt * (r[c] - k2 * v[c]);
}

__global__ KFUSE_MAP void update_v(const double *u1, const double *v, double *v1, int nx, int ny,
                                  int nz, double dt, double k3)
{
  IJK;
  if (i < nx && j < ny && k < nz) {
    size_t c = ((size_t)k * ny + j) * nx + i;
    v1[c] = v[c] + dt * (u1[c] - v[c]) * k3;
  }
}

static void step(const double *u, const double *v, double *r, double *u1, double *v1, int nx,
                 int ny, int nz, cudaStream_t s)
{
  dim3 block(32, 4, 2);
  dim3 grid((nx + 31) / 32, (ny + 3) / 4, (nz + 1) / 2);
  const double dt = 0.01;
  rate<<<grid, block, 0, s>>>(u, r, nx, ny, nz, 2.5);
  update_u<<<grid, block, 0, s>>>(u, r, v, u1, nx, ny, nz, dt, 0.75);
  update_v<<<grid, block, 0, s>>>(u1, v, v1, nx, ny, nz, dt, 1.5);
}

int main(int argc, char **argv)
{
  kfx::Args a = kfx::parse_args(argc, argv, "field3d", 1 << 24);
  kfx::require_device("field3d");
  const int nx = 250, ny = 260;
  const int nz = (int)((a.n + (long long)nx * ny - 1) / ((long long)nx * ny));
  const size_t n = (size_t)nx * ny * nz;
  kfx::Buf<double> u(n), v(n), r(n), u1(n), v1(n);
  kfx::fill_uniform(u.h, a.seed, 1, 0.0, 1.0);
  kfx::fill_uniform(v.h, a.seed, 2, 0.0, 1.0);
  u.upload();
  v.upload();
  cudaStream_t s;
  KFX_CHECK(cudaStreamCreate(&s));

  auto check = [&] {
    std::vector<long double> rr(n), ru(n), rv(n);
    for (size_t c = 0; c < n; c++) {
      long double x = u.h[c], y = v.h[c];
      rr[c] = 2.5L * x * (1.0L - x);
      ru[c] = x + 0.01L * (rr[c] - 0.75L * y);
      rv[c] = y + 0.01L * (ru[c] - y) * 1.5L;
    }
    bool ok = kfx::check_close("r", r.h.data(), rr.data(), n, 1e-14);
    ok = kfx::check_close("u1", u1.h.data(), ru.data(), n, 1e-14) && ok;
    return kfx::check_close("v1", v1.h.data(), rv.data(), n, 1e-14) && ok;
  };
  int rc = kfx::run_and_report(
      "field3d", a, s, 5.0 * n * sizeof(double),
      [&] { step(u.d, v.d, r.d, u1.d, v1.d, nx, ny, nz, s); }, check, r, u1, v1);
  KFX_CHECK(cudaStreamDestroy(s));
  return rc;
}
