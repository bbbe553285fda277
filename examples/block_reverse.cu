/* block_reverse: the consumer reads the producer's output mirrored within
 * each block, so a fused kernel must stage it in shared memory (a barrier
 * between the stages), not forward it in a register. */
#include "common.h"
#include <kfuse/kfuse.h>

__global__ KFUSE_MAP void affine(const float *x, float *t, float a, float b, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    t[i] = a * x[i] + b;
}

/* Reads only elements its own block's threads produced; in a partial last
 * block the mirrored index can fall past n, and those elements read 0. */
__global__ KFUSE_MAP void reverse_mul(const float *t, const float *y, float *o, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int j = blockIdx.x * blockDim.x + (blockDim.x - 1 - threadIdx.x);
    float v = j < n ? t[j] : 0.0f;
    o[i] = v * y[i];
  }
}

static void block_reverse(const float *x, const float *y, float *t, float *o, float a, float b,
                          int n, int block, cudaStream_t s)
{
  unsigned grid = kfx::grid_for(n, block);
  affine<<<grid, block, 0, s>>>(x, t, a, b, n);
  reverse_mul<<<grid, block, 0, s>>>(t, y, o, n);
}

int main(int argc, char **argv)
{
  kfx::Args a = kfx::parse_args(argc, argv, "block_reverse", 1 << 24);
  kfx::require_device("block_reverse");
  size_t n = (size_t)a.n;
  const float ca = 1.5f, cb = 0.25f;
  kfx::Buf<float> x(n), y(n), t(n), o(n);
  kfx::fill_uniform(x.h, a.seed, 1, -1.0, 1.0);
  kfx::fill_uniform(y.h, a.seed, 2, 0.5, 1.5);
  x.upload();
  y.upload();
  cudaStream_t s;
  KFX_CHECK(cudaStreamCreate(&s));

  auto check = [&] {
    std::vector<double> rt(n), ro(n);
    for (size_t i = 0; i < n; i++)
      rt[i] = (double)ca * x.h[i] + cb;
    for (size_t i = 0; i < n; i++) {
      size_t base = i / (size_t)a.block * (size_t)a.block;
      size_t j = base + ((size_t)a.block - 1 - (i - base));
      ro[i] = (j < n ? rt[j] : 0.0) * y.h[i];
    }
    /* a*x + b may cancel near zero (absolute error about 1e-7, within the
     * floor); the product adds one rounding. */
    bool ok = kfx::check_close("t", t.h.data(), rt.data(), n, 1e-6);
    return kfx::check_close("o", o.h.data(), ro.data(), n, 1e-6) && ok;
  };
  int rc = kfx::run_and_report(
      "block_reverse", a, s, 4.0 * n * sizeof(float),
      [&] { block_reverse(x.d, y.d, t.d, o.d, ca, cb, (int)n, a.block, s); }, check, t, o);
  KFX_CHECK(cudaStreamDestroy(s));
  return rc;
}
