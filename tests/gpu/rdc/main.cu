/* rdc_link: a program of two files, each compiled with kfuse-clang++
 * -fgpu-rdc -c and linked by kfuse-clang++, which runs clang's device link.
 * chain.cu's scale and add launches fuse; its bias kernel calls rdc_bias(),
 * defined here. The fused build must find its manifest in the device-linked
 * module (KFUSE_STATS shows the site fused), and a link that left the device
 * code out would run no kernel at all: the poisoned outputs fail the check. */
#include "common.h"
#include "rdc_link.h"

__device__ float rdc_bias(float v) { return 0.5f * v + 1.0f; }

int main(int argc, char **argv)
{
  kfx::Args a = kfx::parse_args(argc, argv, "rdc_link", 1 << 24);
  kfx::require_device("rdc_link");
  size_t n = (size_t)a.n;
  const float alpha = 1.75f;
  kfx::Buf<float> x(n), y(n), t(n), o(n), p(n);
  kfx::fill_uniform(x.h, a.seed, 1, -2.0, 2.0);
  kfx::fill_uniform(y.h, a.seed, 2, -2.0, 2.0);
  x.upload();
  y.upload();
  cudaStream_t s;
  KFX_CHECK(cudaStreamCreate(&s));

  auto check = [&] {
    std::vector<double> rt(n), ro(n), rp(n);
    for (size_t i = 0; i < n; i++) {
      rt[i] = (double)alpha * x.h[i];
      ro[i] = rt[i] + y.h[i];
      rp[i] = 0.5 * ro[i] + 1.0;
    }
    /* A few float roundings of values no larger than 4: under 1e-6 of the
     * outputs' scale. */
    bool ok = kfx::check_close("t", t.h.data(), rt.data(), n, 1e-6);
    ok = kfx::check_close("o", o.h.data(), ro.data(), n, 1e-6) && ok;
    return kfx::check_close("p", p.h.data(), rp.data(), n, 1e-6) && ok;
  };
  int rc = kfx::run_and_report(
      "rdc_link", a, s, 5.0 * n * sizeof(float),
      [&] { rdc_chain(x.d, y.d, t.d, o.d, p.d, alpha, (int)n, a.block, s); }, check, t, o, p);
  KFX_CHECK(cudaStreamDestroy(s));
  return rc;
}
