/* epilogue: the element-wise tail of a dense layer, as frameworks launch it:
 * bias add (per column) -> GELU (erf form) -> scale -> residual add. */
#include "common.h"
#include <kfuse/kfuse.h>
#include "epilogue_kernels.h"
#include "map_kernels.h"

static void epilogue(const float *x, const float *bias, const float *r, float *h1, float *h2,
                     float *h3, float *o, float s_, int cols, int n, int block, cudaStream_t s)
{
  unsigned grid = kfx::grid_for(n, block);
  bias_add<<<grid, block, 0, s>>>(x, bias, h1, cols, n);
  gelu<<<grid, block, 0, s>>>(h1, h2, n);
  scale<<<grid, block, 0, s>>>(h2, h3, s_, n);
  add<<<grid, block, 0, s>>>(h3, r, o, n);
}

int main(int argc, char **argv)
{
  kfx::Args a = kfx::parse_args(argc, argv, "epilogue", 1 << 25);
  kfx::require_device("epilogue");
  size_t n = (size_t)a.n;
  const int cols = 4096;
  const size_t nb = std::min(n, (size_t)cols);
  const float sc = 0.5f;
  kfx::Buf<float> x(n), bias(nb), r(n), h1(n), h2(n), h3(n), o(n);
  kfx::fill_uniform(x.h, a.seed, 1, -3.0, 3.0);
  kfx::fill_uniform(bias.h, a.seed, 2, -0.5, 0.5);
  /* GELU is above -0.17, so after the 0.5 scale a residual of at least 0.5
   * keeps the last add free of cancellation. */
  kfx::fill_uniform(r.h, a.seed, 3, 0.5, 1.5);
  x.upload();
  bias.upload();
  r.upload();
  cudaStream_t s;
  KFX_CHECK(cudaStreamCreate(&s));

  auto check = [&] {
    std::vector<double> r1(n), r2(n), r3(n), ro(n);
    for (size_t i = 0; i < n; i++) {
      r1[i] = (double)x.h[i] + bias.h[i % cols];
      r2[i] = 0.5 * r1[i] * (1.0 + erf(r1[i] / sqrt(2.0)));
      r3[i] = (double)sc * r2[i];
      ro[i] = r3[i] + r.h[i];
    }
    /* erff is within 2 ulp; 1 + erf(v/sqrt 2) cancels for negative v, which
     * makes the GELU's error absolute (a few 1e-7) rather than relative:
     * the check's floor (the mean magnitude) covers that. */
    bool ok = kfx::check_close("h1", h1.h.data(), r1.data(), n, 2e-6);
    ok = kfx::check_close("h2", h2.h.data(), r2.data(), n, 2e-6) && ok;
    ok = kfx::check_close("h3", h3.h.data(), r3.data(), n, 2e-6) && ok;
    return kfx::check_close("o", o.h.data(), ro.data(), n, 2e-6) && ok;
  };
  int rc = kfx::run_and_report(
      "epilogue", a, s, 6.0 * n * sizeof(float) + (double)nb * sizeof(float),
      [&] { epilogue(x.d, bias.d, r.d, h1.d, h2.d, h3.d, o.d, sc, cols, (int)n, a.block, s); },
      check, h1, h2, h3, o);
  KFX_CHECK(cudaStreamDestroy(s));
  return rc;
}
