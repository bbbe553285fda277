/* chain4: four element-wise kernels over 32M-float arrays (128 MB each), with
 * three intermediates; the last kernel also reads the first intermediate. */
#include "common.h"
#include <kfuse/kfuse.h>
#include "map_kernels.h"

__global__ KFUSE_MAP void axpy(const float *t3, const float *t1, float *o, float b, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    o[i] = b * t3[i] + t1[i];
}

static void chain4(const float *x, const float *y, const float *z, float *t1, float *t2,
                   float *t3, float *o, float a, float b, int n, int block, cudaStream_t s)
{
  unsigned grid = kfx::grid_for(n, block);
  scale<<<grid, block, 0, s>>>(x, t1, a, n);
  add<<<grid, block, 0, s>>>(t1, y, t2, n);
  mul<<<grid, block, 0, s>>>(t2, z, t3, n);
  axpy<<<grid, block, 0, s>>>(t3, t1, o, b, n);
}

int main(int argc, char **argv)
{
  kfx::Args a = kfx::parse_args(argc, argv, "chain4", 1 << 25);
  kfx::require_device("chain4");
  size_t n = (size_t)a.n;
  const float alpha = 1.25f, beta = 0.75f;
  kfx::Buf<float> x(n), y(n), z(n), t1(n), t2(n), t3(n), o(n);
  /* Positive inputs and coefficients: no cancellation, so each output is
   * within a few roundings of the exact value in relative terms. */
  kfx::fill_uniform(x.h, a.seed, 1, 0.5, 1.5);
  kfx::fill_uniform(y.h, a.seed, 2, 0.5, 1.5);
  kfx::fill_uniform(z.h, a.seed, 3, 0.5, 1.5);
  x.upload();
  y.upload();
  z.upload();
  cudaStream_t s;
  KFX_CHECK(cudaStreamCreate(&s));

  auto check = [&] {
    std::vector<double> r1(n), r2(n), r3(n), ro(n);
    for (size_t i = 0; i < n; i++) {
      r1[i] = (double)alpha * x.h[i];
      r2[i] = r1[i] + y.h[i];
      r3[i] = r2[i] * z.h[i];
      ro[i] = (double)beta * r3[i] + r1[i];
    }
    /* At most five float roundings along any path (2^-24 each). */
    bool ok = kfx::check_close("t1", t1.h.data(), r1.data(), n, 2e-6);
    ok = kfx::check_close("t2", t2.h.data(), r2.data(), n, 2e-6) && ok;
    ok = kfx::check_close("t3", t3.h.data(), r3.data(), n, 2e-6) && ok;
    return kfx::check_close("o", o.h.data(), ro.data(), n, 2e-6) && ok;
  };
  int rc = kfx::run_and_report(
      "chain4", a, s, 7.0 * n * sizeof(float),
      [&] { chain4(x.d, y.d, z.d, t1.d, t2.d, t3.d, o.d, alpha, beta, (int)n, a.block, s); },
      check, t1, t2, t3, o);
  KFX_CHECK(cudaStreamDestroy(s));
  return rc;
}
