/* shlib: a program linked with a shared library of fused kernels
 * (lib.cu), built as a user builds one:
 *
 *   kfuse-clang++ -fPIC -shared lib.cu -o lib/libshlib.so
 *   kfuse-clang++ main.cu lib/libshlib.so -Wl,-rpath,'$ORIGIN/lib' -o shlib
 *
 * (with -fgpu-rdc as well in shlib_rdc). The library's sequence
 * (t = a * x; o = t + y, static kernels) and the program's own (w = o * y;
 * v = 0.5 * w, with kernels of the same names) must both run fused on
 * every call, each from its own module, and agree exactly with the host:
 * every value is one float operation on float inputs. */
#include "common.h"
#include "kfuse_example.h"
#include "map_kernels.h"
#include "shlib.h"

#ifndef SHLIB_NAME
#define SHLIB_NAME "shlib"
#endif

int main(int argc, char **argv)
{
  kfx::Args a = kfx::parse_args(argc, argv, SHLIB_NAME, 1 << 24);
  kfx::require_device(SHLIB_NAME);
  const int n = (int)a.n;
  const float alpha = 1.75f;
  kfx::Buf<float> x(n), y(n), t(n), o(n), w(n), v(n);
  kfx::fill_uniform(x.h, a.seed, 1, -2.0, 2.0);
  kfx::fill_uniform(y.h, a.seed, 2, -2.0, 2.0);
  x.upload();
  y.upload();
  cudaStream_t s;
  KFX_CHECK(cudaStreamCreate(&s));
  const unsigned grid = (unsigned)((n + a.block - 1) / a.block);

  auto check = [&] {
    std::vector<double> rt(n), ro(n), rw(n), rv(n);
    for (int i = 0; i < n; i++) {
      float tt = alpha * x.h[i], oo = tt + y.h[i], ww = oo * y.h[i];
      rt[i] = tt, ro[i] = oo, rw[i] = ww, rv[i] = 0.5f * ww;
    }
    bool ok = kfx::check_close("t", t.h.data(), rt.data(), n, 0);
    ok = kfx::check_close("o", o.h.data(), ro.data(), n, 0) && ok;
    ok = kfx::check_close("w", w.h.data(), rw.data(), n, 0) && ok;
    return kfx::check_close("v", v.h.data(), rv.data(), n, 0) && ok;
  };
  int rc = kfx::run_and_report(
      SHLIB_NAME, a, s, 8.0 * n * sizeof(float),
      [&] {
        shlib_chain(x.d, y.d, t.d, o.d, alpha, n, a.block, s);
        mul<<<grid, a.block, 0, s>>>(o.d, y.d, w.d, n);
        scale<<<grid, a.block, 0, s>>>(w.d, v.d, 0.5f, n);
      },
      check, t, o, w, v);
  KFX_CHECK(cudaStreamDestroy(s));
  std::printf("SITES all-fused count=2\n");
  return rc;
}
