/* blas1: a BLAS-1 sequence in double, AXPY -> WAXPBY -> SCAL, each result
 * consumed by the next routine (the Fousek et al. setting). */
#include "common.h"
#include <kfuse/kfuse.h>

__global__ KFUSE_MAP void daxpy(const double *x, const double *y, double *w, double a, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    w[i] = a * x[i] + y[i];
}

__global__ KFUSE_MAP void dwaxpby(const double *x, const double *y, double *w, double alpha,
                                  double beta, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    w[i] = alpha * x[i] + beta * y[i];
}

__global__ KFUSE_MAP void dscal(const double *x, double *o, double s, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    o[i] = s * x[i];
}

static void blas1(const double *x, const double *y, const double *z, double *w1, double *w2,
                  double *o, double a, double alpha, double beta, double sc, int n, int block,
                  cudaStream_t s)
{
  unsigned grid = kfx::grid_for(n, block);
  daxpy<<<grid, block, 0, s>>>(x, y, w1, a, n);
  dwaxpby<<<grid, block, 0, s>>>(w1, z, w2, alpha, beta, n);
  dscal<<<grid, block, 0, s>>>(w2, o, sc, n);
}

int main(int argc, char **argv)
{
  kfx::Args a = kfx::parse_args(argc, argv, "blas1", 1 << 24);
  kfx::require_device("blas1");
  size_t n = (size_t)a.n;
  const double ca = 1.5, alpha = 0.625, beta = 1.375, sc = 0.8125;
  kfx::Buf<double> x(n), y(n), z(n), w1(n), w2(n), o(n);
  kfx::fill_uniform(x.h, a.seed, 1, 0.5, 1.5);
  kfx::fill_uniform(y.h, a.seed, 2, 0.5, 1.5);
  kfx::fill_uniform(z.h, a.seed, 3, 0.5, 1.5);
  x.upload();
  y.upload();
  z.upload();
  cudaStream_t s;
  KFX_CHECK(cudaStreamCreate(&s));

  auto check = [&] {
    std::vector<long double> r1(n), r2(n), ro(n);
    for (size_t i = 0; i < n; i++) {
      r1[i] = (long double)ca * x.h[i] + y.h[i];
      r2[i] = (long double)alpha * r1[i] + (long double)beta * z.h[i];
      ro[i] = (long double)sc * r2[i];
    }
    /* Positive terms only; at most six double roundings (2^-53 each). */
    bool ok = kfx::check_close("w1", w1.h.data(), r1.data(), n, 1e-14);
    ok = kfx::check_close("w2", w2.h.data(), r2.data(), n, 1e-14) && ok;
    return kfx::check_close("o", o.h.data(), ro.data(), n, 1e-14) && ok;
  };
  int rc = kfx::run_and_report(
      "blas1", a, s, 6.0 * n * sizeof(double),
      [&] { blas1(x.d, y.d, z.d, w1.d, w2.d, o.d, ca, alpha, beta, sc, (int)n, a.block, s); },
      check, w1, w2, o);
  KFX_CHECK(cudaStreamDestroy(s));
  return rc;
}
