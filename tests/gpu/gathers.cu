/* gathers: loads at a bounded but non-affine index, next to fusable maps.
 *
 * Sequence `masked`: t = a*x, then o1[i] = t[i & 15]. The second kernel reads
 * what other threads of the first wrote, so the two must not be fused with t
 * in registers (the device pass once took `t[i & 15]` for `t[i]`); the pass
 * rejects the pair and both launches run as written.
 *
 * Sequence `tables`: h = x + bias[i % cols] (signed remainder by a scalar),
 * g = h * tab[i % 5u] (unsigned remainder by a constant), o2 = g + y. Bias
 * and tab are read-only, so all three fuse; their footprints are the first
 * |cols| and 5 floats, so the runtime's guards stay in arithmetic.
 *
 * Fused and unfused runs must agree bit for bit (tools/gpu-check), and with
 * the host reference below. */
#include "common.h"
#include "kfuse_example.h"
#include "map_kernels.h"

__global__ KFUSE_MAP void mask_read(const float *t, float *o, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    o[i] = t[i & 15];
}

__global__ KFUSE_MAP void bias_mod(const float *x, const float *bias, float *h, int cols, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    h[i] = x[i] + bias[i % cols];
}

__global__ KFUSE_MAP void table_u5(const float *h, const float *tab, float *g, unsigned n)
{
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    g[i] = h[i] * tab[i % 5u];
}

static void masked(const float *x, float *t, float *o1, float a, int n, int block, cudaStream_t s)
{
  unsigned grid = kfx::grid_for(n, block);
  scale<<<grid, block, 0, s>>>(x, t, a, n);
  mask_read<<<grid, block, 0, s>>>(t, o1, n);
}

static void tables(const float *x, const float *bias, const float *tab, const float *y, float *h,
                   float *g, float *o2, int cols, int n, int block, cudaStream_t s)
{
  unsigned grid = kfx::grid_for(n, block);
  bias_mod<<<grid, block, 0, s>>>(x, bias, h, cols, n);
  table_u5<<<grid, block, 0, s>>>(h, tab, g, (unsigned)n);
  add<<<grid, block, 0, s>>>(g, y, o2, n);
}

int main(int argc, char **argv)
{
  kfx::Args a = kfx::parse_args(argc, argv, "gathers", 1 << 24);
  kfx::require_device("gathers");
  size_t n = (size_t)a.n;
  const float alpha = 1.75f;
  const int cols = 1000;
  kfx::Buf<float> x(n), y(n), bias(cols), tab(5), t(n), o1(n), h(n), g(n), o2(n);
  kfx::fill_uniform(x.h, a.seed, 1, -2.0, 2.0);
  kfx::fill_uniform(y.h, a.seed, 2, -2.0, 2.0);
  kfx::fill_uniform(bias.h, a.seed, 3, -1.0, 1.0);
  kfx::fill_uniform(tab.h, a.seed, 4, 0.5, 1.5);
  x.upload();
  y.upload();
  bias.upload();
  tab.upload();
  cudaStream_t s;
  KFX_CHECK(cudaStreamCreate(&s));

  auto check = [&] {
    std::vector<double> rt(n), ro1(n), rh(n), rg(n), ro2(n);
    for (size_t i = 0; i < n; i++) {
      rt[i] = (double)alpha * x.h[i];
      rh[i] = (double)x.h[i] + bias.h[i % cols];
      rg[i] = rh[i] * tab.h[i % 5];
      ro2[i] = rg[i] + y.h[i];
    }
    for (size_t i = 0; i < n; i++)
      ro1[i] = rt[i & 15];
    /* At most three float roundings of values below 8: under 1e-5 of the
     * output's scale. */
    bool ok = kfx::check_close("t", t.h.data(), rt.data(), n, 1e-6);
    ok = kfx::check_close("o1", o1.h.data(), ro1.data(), n, 1e-6) && ok;
    ok = kfx::check_close("h", h.h.data(), rh.data(), n, 1e-6) && ok;
    ok = kfx::check_close("g", g.h.data(), rg.data(), n, 1e-5) && ok;
    return kfx::check_close("o2", o2.h.data(), ro2.data(), n, 1e-5) && ok;
  };
  int rc = kfx::run_and_report(
      "gathers", a, s, (3.0 + 5.0) * n * sizeof(float),
      [&] {
        masked(x.d, t.d, o1.d, alpha, (int)n, a.block, s);
        tables(x.d, bias.d, tab.d, y.d, h.d, g.d, o2.d, cols, (int)n, a.block, s);
      },
      check, t, o1, h, g, o2);
  KFX_CHECK(cudaStreamDestroy(s));
  return rc;
}
