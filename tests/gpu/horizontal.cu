/* horizontal: independent updates of separate fields, launched one after
 * another as a time step writes them (each kernel reads and writes its own
 * arrays, nothing flows between them):
 *
 *   un = c * u                      damping
 *   vn = v + w * (1 - v)            relaxation towards 1
 *   pn = min(max(p, lo), hi)        clipping
 *
 * The three launches share no buffer; they fuse horizontally into one
 * launch in which each thread runs all three bodies (lit e2e/horizontal.cu),
 * saving two launches per step. The runtime's guards check that the
 * buffers do not overlap. Fused and unfused must agree bit for bit
 * (tools/gpu-check); with the host, un and pn exactly and vn within one
 * rounding. */
#include "common.h"
#include "kfuse_example.h"

#define IDX int i = blockIdx.x * blockDim.x + threadIdx.x

__global__ KFUSE_MAP void damp(const float *u, float *un, float c, int n)
{
  IDX;
  if (i < n)
    un[i] = c * u[i];
}

__global__ KFUSE_MAP void relax(const float *v, float *vn, float w, int n)
{
  IDX;
  if (i < n) {
    float d = 1.0f - v[i];
    vn[i] = v[i] + w * d;
  }
}

__global__ KFUSE_MAP void clip(const float *p, float *pn, float lo, float hi, int n)
{
  IDX;
  if (i < n)
    pn[i] = fminf(fmaxf(p[i], lo), hi);
}

int main(int argc, char **argv)
{
  kfx::Args a = kfx::parse_args(argc, argv, "horizontal", 1 << 24);
  kfx::require_device("horizontal");
  const int n = (int)a.n;
  const float c = 0.96875f, w = 0.3f, lo = -0.5f, hi = 0.75f;
  kfx::Buf<float> u(n), v(n), p(n), un(n), vn(n), pn(n);
  kfx::fill_uniform(u.h, a.seed, 1, -2.0, 2.0);
  kfx::fill_uniform(v.h, a.seed, 2, -2.0, 2.0);
  kfx::fill_uniform(p.h, a.seed, 3, -2.0, 2.0);
  u.upload();
  v.upload();
  p.upload();
  cudaStream_t s;
  KFX_CHECK(cudaStreamCreate(&s));
  const unsigned grid = (unsigned)((n + a.block - 1) / a.block);

  /* The device may contract w * d + v into one FMA in relax (both sides of
   * the comparison run the same relax body, fused or not); the reference
   * allows for either rounding of that one operation. */
  auto check = [&] {
    std::vector<double> ru(n), rv(n), rp(n);
    for (int i = 0; i < n; i++) {
      ru[i] = c * u.h[i];
      rv[i] = (double)v.h[i] + (double)w * (double)(1.0f - v.h[i]);
      rp[i] = std::fmin(std::fmax(p.h[i], lo), hi);
    }
    bool ok = kfx::check_close("un", un.h.data(), ru.data(), n, 0);
    ok = kfx::check_close("vn", vn.h.data(), rv.data(), n, 1e-6) && ok;
    return kfx::check_close("pn", pn.h.data(), rp.data(), n, 0) && ok;
  };
  int rc = kfx::run_and_report(
      "horizontal", a, s, 6.0 * n * sizeof(float),
      [&] {
        damp<<<grid, a.block, 0, s>>>(u.d, un.d, c, n);
        relax<<<grid, a.block, 0, s>>>(v.d, vn.d, w, n);
        clip<<<grid, a.block, 0, s>>>(p.d, pn.d, lo, hi, n);
      },
      check, un, vn, pn);
  KFX_CHECK(cudaStreamDestroy(s));
  std::printf("SITES all-fused count=1\n");
  return rc;
}
