/* main of the multi-file programs (multifile.h): MF_FILES (2 or 3) files'
 * runs back to back on one stream, checked exactly against the host (every
 * value is one float operation on float inputs). MF_NAME names the program
 * in its RESULT line, and the SITES line asks tools/gpu-check for every
 * site fused on every call. */
#include "common.h"
#include "kfuse_example.h"
#include "multifile.h"

#include <cstdio>
#include <string>
#include <vector>

#ifndef MF_FILES
#define MF_FILES 2
#endif
#ifndef MF_NAME
#define MF_NAME "multifile"
#endif

namespace {
struct FileBufs {
  kfx::Buf<float> t, o, u, w, v;
  explicit FileBufs(size_t n) : t(n), o(n), u(n), w(n), v(n) {}
  MfOut out() { return {t.d, o.d, u.d, w.d, v.d}; }
  /* File k's arithmetic (multifile.h). */
  bool check(const char *file, int k, const std::vector<float> &x, const std::vector<float> &y)
  {
    size_t n = x.size();
    std::vector<double> rt(n), ro(n), ru(n), rw(n), rv(n);
    for (size_t i = 0; i < n; i++) {
      float tt = x[i] * (float)(k + 2);
      float oo = k == 0 ? tt + y[i] : k == 1 ? tt - y[i] : tt * y[i];
      float uu = oo + (float)(k + 1);
      float ww = x[i] + 0.5f;
      float vv = ww * y[i];
      rt[i] = tt, ro[i] = oo, ru[i] = uu, rw[i] = ww, rv[i] = vv;
    }
    std::string p(file);
    bool ok = kfx::check_close((p + ".t").c_str(), t.h.data(), rt.data(), n, 0);
    ok = kfx::check_close((p + ".o").c_str(), o.h.data(), ro.data(), n, 0) && ok;
    ok = kfx::check_close((p + ".u").c_str(), u.h.data(), ru.data(), n, 0) && ok;
    ok = kfx::check_close((p + ".w").c_str(), w.h.data(), rw.data(), n, 0) && ok;
    return kfx::check_close((p + ".v").c_str(), v.h.data(), rv.data(), n, 0) && ok;
  }
};
} // namespace

int main(int argc, char **argv)
{
  kfx::Args a = kfx::parse_args(argc, argv, MF_NAME, 1 << 22);
  kfx::require_device(MF_NAME);
  const size_t n = (size_t)a.n;
  kfx::Buf<float> x(n), y(n);
  kfx::fill_uniform(x.h, a.seed, 1, -2.0, 2.0);
  kfx::fill_uniform(y.h, a.seed, 2, -2.0, 2.0);
  x.upload();
  y.upload();
  FileBufs fa(n), fb(n);
#if MF_FILES >= 3
  FileBufs fc(n);
#endif
  cudaStream_t s;
  KFX_CHECK(cudaStreamCreate(&s));
  auto check = [&] {
    bool ok = fa.check("a", 0, x.h, y.h);
    ok = fb.check("b", 1, x.h, y.h) && ok;
#if MF_FILES >= 3
    ok = fc.check("c", 2, x.h, y.h) && ok;
#endif
    return ok;
  };
  auto launch = [&] {
    mf_run_a(x.d, y.d, fa.out(), (int)n, a.block, s);
    mf_run_b(x.d, y.d, fb.out(), (int)n, a.block, s);
#if MF_FILES >= 3
    mf_run_c(x.d, y.d, fc.out(), (int)n, a.block, s);
#endif
  };
  int rc = kfx::run_and_report(MF_NAME, a, s, 9.0 * MF_FILES * n * sizeof(float), launch, check,
                               fa.t, fa.o, fa.u, fa.w, fa.v, fb.t, fb.o, fb.u, fb.w, fb.v
#if MF_FILES >= 3
                               , fc.t, fc.o, fc.u, fc.w, fc.v
#endif
  );
  KFX_CHECK(cudaStreamDestroy(s));
  /* Two sites per file (its scale, add, bump run and its template pair),
   * each fused on every call (tools/gpu-check): in a whole-program build
   * the pair's stubs are one file's after linking, and every other file's
   * pair site still finds its own module (kf_site_t.anchor). */
  std::printf("SITES all-fused count=%d\n", 2 * MF_FILES);
  return rc;
}
