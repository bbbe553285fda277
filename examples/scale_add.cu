/* scale_add: the smallest fusable chain, t = a*x then o = t + y (kernels in
 * map_kernels.h). The second launch reads the first one's output at the same
 * index: register forwarding. */
#include "common.h"
#include <kfuse/kfuse.h>
#include "map_kernels.h"

/* The launch sequence: adjacent launches, same grid, block and stream. */
static void scale_add(const float *x, const float *y, float *t, float *o, float a, int n,
                      int block, cudaStream_t s)
{
  unsigned grid = kfx::grid_for(n, block);
  scale<<<grid, block, 0, s>>>(x, t, a, n);
  add<<<grid, block, 0, s>>>(t, y, o, n);
}

int main(int argc, char **argv)
{
  kfx::Args a = kfx::parse_args(argc, argv, "scale_add", 1 << 24);
  kfx::require_device("scale_add");
  size_t n = (size_t)a.n;
  const float alpha = 1.75f;
  kfx::Buf<float> x(n), y(n), t(n), o(n);
  kfx::fill_uniform(x.h, a.seed, 1, -2.0, 2.0);
  kfx::fill_uniform(y.h, a.seed, 2, -2.0, 2.0);
  x.upload();
  y.upload();
  cudaStream_t s;
  KFX_CHECK(cudaStreamCreate(&s));

  auto check = [&] {
    std::vector<double> rt(n), ro(n);
    for (size_t i = 0; i < n; i++) {
      rt[i] = (double)alpha * x.h[i];
      ro[i] = rt[i] + y.h[i];
    }
    /* Two float roundings at most (t, then o), each 2^-24 relative to values
     * no larger than 4, so under 1e-6 of the output's scale. */
    bool ok = kfx::check_close("t", t.h.data(), rt.data(), n, 1e-6);
    return kfx::check_close("o", o.h.data(), ro.data(), n, 1e-6) && ok;
  };
  int rc = kfx::run_and_report(
      "scale_add", a, s, 4.0 * n * sizeof(float),
      [&] { scale_add(x.d, y.d, t.d, o.d, alpha, (int)n, a.block, s); }, check, t, o);
  KFX_CHECK(cudaStreamDestroy(s));
  return rc;
}
