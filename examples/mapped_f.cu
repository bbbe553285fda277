/* mapped_f: the mapped function of Fousek, Filipovic and Madzin,
 *   F = ||A.B.v||_2 . (C.D + C),
 * over 2^20 independent instances (A, B 3x3, v a 3-vector, C, D 5x5), as six
 * map kernels with one thread per instance (mapped_f_kernels.h). Every
 * intermediate is a per-instance record of 1 to 25 floats; fused, each
 * crosses to the next kernel in registers, one per float. */
#include "common.h"
#include <kfuse/kfuse.h>
#include "mapped_f_kernels.h"

#include <cmath>

/* The reference, in double: r = a . b for row-major m x m matrices. */
static void ref_matmul(const float *a, const float *b, double *r, int m)
{
  for (int i = 0; i < m; i++)
    for (int j = 0; j < m; j++) {
      double s = 0;
      for (int k = 0; k < m; k++)
        s += (double)a[m * i + k] * b[m * k + j];
      r[m * i + j] = s;
    }
}

int main(int argc, char **argv)
{
  kfx::Args a = kfx::parse_args(argc, argv, "mapped_f", 1 << 20);
  kfx::require_device("mapped_f");
  size_t n = (size_t)a.n;
  kfx::Buf<float> A(9 * n), B(9 * n), v(3 * n), C(25 * n), D(25 * n);
  kfx::Buf<float> AB(9 * n), ABv(3 * n), nrm(n), CD(25 * n), CDC(25 * n), F(25 * n);
  /* Positive inputs: no cancellation, so every output is within a few float
   * roundings of the exact value in relative terms. */
  kfx::fill_uniform(A.h, a.seed, 1, 0.5, 1.5);
  kfx::fill_uniform(B.h, a.seed, 2, 0.5, 1.5);
  kfx::fill_uniform(v.h, a.seed, 3, 0.5, 1.5);
  kfx::fill_uniform(C.h, a.seed, 4, 0.5, 1.5);
  kfx::fill_uniform(D.h, a.seed, 5, 0.5, 1.5);
  for (auto *b : {&A, &B, &v, &C, &D})
    b->upload();
  cudaStream_t s;
  KFX_CHECK(cudaStreamCreate(&s));

  auto check = [&] {
    std::vector<double> rAB(9 * n), rABv(3 * n), rn(n), rCD(25 * n), rCDC(25 * n), rF(25 * n);
    for (size_t i = 0; i < n; i++) {
      ref_matmul(&A.h[9 * i], &B.h[9 * i], &rAB[9 * i], 3);
      double q = 0;
      for (int r = 0; r < 3; r++) {
        double y = 0;
        for (int k = 0; k < 3; k++)
          y += rAB[9 * i + 3 * r + k] * v.h[3 * i + k];
        rABv[3 * i + r] = y;
        q += y * y;
      }
      rn[i] = std::sqrt(q);
      ref_matmul(&C.h[25 * i], &D.h[25 * i], &rCD[25 * i], 5);
      for (int k = 0; k < 25; k++) {
        rCDC[25 * i + k] = rCD[25 * i + k] + C.h[25 * i + k];
        rF[25 * i + k] = rn[i] * rCDC[25 * i + k];
      }
    }
    /* At most a dozen float roundings along any path (2^-24 each). */
    bool ok = kfx::check_close("AB", AB.h.data(), rAB.data(), 9 * n, 4e-6);
    ok = kfx::check_close("ABv", ABv.h.data(), rABv.data(), 3 * n, 4e-6) && ok;
    ok = kfx::check_close("nrm", nrm.h.data(), rn.data(), n, 4e-6) && ok;
    ok = kfx::check_close("CD", CD.h.data(), rCD.data(), 25 * n, 4e-6) && ok;
    ok = kfx::check_close("CDC", CDC.h.data(), rCDC.data(), 25 * n, 4e-6) && ok;
    return kfx::check_close("F", F.h.data(), rF.data(), 25 * n, 8e-6) && ok;
  };
  int rc = kfx::run_and_report(
      "mapped_f", a, s, (71.0 + 88.0) * sizeof(float) * n,
      [&] {
        mf_launch(A.d, B.d, v.d, C.d, D.d, AB.d, ABv.d, nrm.d, CD.d, CDC.d, F.d, (int)n, a.block,
                  s);
      },
      check, AB, ABv, nrm, CD, CDC, F);
  KFX_CHECK(cudaStreamDestroy(s));
  return rc;
}
