/* set: three chains of an atmospheric step alternating, each family with a
 * grid and block of its own:
 *
 *   s1 = 0.5 s0 + 1         (surface, n / 3 + 1 cells, 128-thread blocks)
 *   f1 = f0 * f0 - 0.25     (field, n cells, 256-thread blocks)
 *   c1 = c0 - 0.25 c0       (column, n / 7 + 3 cells, 64-thread blocks)
 *   s2 = 0.75 s1 + 1
 *   f2 = f1 * f1 - 0.5
 *   c2 = c1 - 0.5 c1
 *   s3, f3, c3 likewise
 *
 * No two neighbours can fuse. kfuse fuses each family's three launches
 * into one kernel and runs the three groups one after the other (a set of
 * three, manifest `part`): the surface group, then the field group, then
 * the column group, each leaving the other families' launches in its span
 * to their own groups (`other` riders). A second call, made once before
 * the timed runs, passes one buffer h as the first output of both the
 * field and the column chain: in program order the column's write lands on
 * the field's, and the second field launch reads the column's values where
 * they overlap, which running the field group before the column group
 * would not give. The set's disjointness guards send that call back to
 * program order, whose result the check expects. Every operation is
 * correctly rounded in the written order (fmaf), so the host computes the
 * same bits. */
#include "common.h"
#include "kfuse_example.h"

__global__ KFUSE_MAP void surf(const float *x, float *y, float a, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = fmaf(a, x[i], 1.0f);
}

__global__ KFUSE_MAP void field(const float *x, float *y, float a, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = fmaf(x[i], x[i], -a);
}

__global__ KFUSE_MAP void column(const float *x, float *y, float a, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = fmaf(-a, x[i], x[i]);
}

static void step(const float *s0, float *s1, float *s2, float *s3, const float *f0, float *f1,
                 float *f2, float *f3, const float *c0, float *c1, float *c2, float *c3, int n,
                 int n2, int n3, cudaStream_t st)
{
  unsigned g = (n + 255) / 256, g2 = (n2 + 127) / 128, g3 = (n3 + 63) / 64;
  surf<<<g2, 128, 0, st>>>(s0, s1, 0.5f, n2);
  field<<<g, 256, 0, st>>>(f0, f1, 0.25f, n);
  column<<<g3, 64, 0, st>>>(c0, c1, 0.25f, n3);
  surf<<<g2, 128, 0, st>>>(s1, s2, 0.75f, n2);
  field<<<g, 256, 0, st>>>(f1, f2, 0.5f, n);
  column<<<g3, 64, 0, st>>>(c1, c2, 0.5f, n3);
  surf<<<g2, 128, 0, st>>>(s2, s3, 1.25f, n2);
  field<<<g, 256, 0, st>>>(f2, f3, 0.75f, n);
  column<<<g3, 64, 0, st>>>(c2, c3, 0.75f, n3);
}

int main(int argc, char **argv)
{
  kfx::Args a = kfx::parse_args(argc, argv, "set", 1 << 22);
  kfx::require_device("set");
  const int n = (int)a.n, n2 = n / 3 + 1, n3 = n / 7 + 3;
  kfx::Buf<float> s0(n2), s1(n2), s2(n2), s3(n2), f0(n), f1(n), f2(n), f3(n);
  kfx::Buf<float> c0(n3), c1(n3), c2(n3), c3(n3);
  kfx::Buf<float> h(n), v1(n2), v2(n2), v3(n2), e2(n), e3(n), m2(n3), m3(n3);
  kfx::fill_uniform(s0.h, a.seed, 1, -1.0, 1.0);
  kfx::fill_uniform(f0.h, a.seed, 2, -1.0, 1.0);
  kfx::fill_uniform(c0.h, a.seed, 3, -1.0, 1.0);
  s0.upload();
  f0.upload();
  c0.upload();
  cudaStream_t st;
  KFX_CHECK(cudaStreamCreate(&st));
  bool overlapped = false;
  auto check = [&] {
#pragma clang fp contract(off)
    std::vector<float> r1(n2), r2(n2), r3(n2), q1(n), q2(n), q3(n), p1(n3), p2(n3), p3(n3);
    for (int i = 0; i < n2; i++) {
      r1[i] = fmaf(0.5f, s0.h[i], 1.0f);
      r2[i] = fmaf(0.75f, r1[i], 1.0f);
      r3[i] = fmaf(1.25f, r2[i], 1.0f);
    }
    for (int i = 0; i < n; i++) {
      q1[i] = fmaf(f0.h[i], f0.h[i], -0.25f);
      q2[i] = fmaf(q1[i], q1[i], -0.5f);
      q3[i] = fmaf(q2[i], q2[i], -0.75f);
    }
    for (int i = 0; i < n3; i++) {
      p1[i] = fmaf(-0.25f, c0.h[i], c0.h[i]);
      p2[i] = fmaf(-0.5f, p1[i], p1[i]);
      p3[i] = fmaf(-0.75f, p2[i], p2[i]);
    }
    bool ok = kfx::check_close("s1", s1.h.data(), r1.data(), n2, 0);
    ok = kfx::check_close("s2", s2.h.data(), r2.data(), n2, 0) && ok;
    ok = kfx::check_close("s3", s3.h.data(), r3.data(), n2, 0) && ok;
    ok = kfx::check_close("f1", f1.h.data(), q1.data(), n, 0) && ok;
    ok = kfx::check_close("f2", f2.h.data(), q2.data(), n, 0) && ok;
    ok = kfx::check_close("f3", f3.h.data(), q3.data(), n, 0) && ok;
    ok = kfx::check_close("c1", c1.h.data(), p1.data(), n3, 0) && ok;
    ok = kfx::check_close("c2", c2.h.data(), p2.data(), n3, 0) && ok;
    ok = kfx::check_close("c3", c3.h.data(), p3.data(), n3, 0) && ok;
    /* The second call, in program order: the column's first launch wrote
     * h's first n3 cells over the field's, and the second field launch
     * read them. */
    std::vector<float> hh(q1), t2(n), t3(n);
    for (int i = 0; i < n3; i++)
      hh[i] = p1[i];
    for (int i = 0; i < n; i++) {
      t2[i] = fmaf(hh[i], hh[i], -0.5f);
      t3[i] = fmaf(t2[i], t2[i], -0.75f);
    }
    ok = kfx::check_close("v1", v1.h.data(), r1.data(), n2, 0) && ok;
    ok = kfx::check_close("v2", v2.h.data(), r2.data(), n2, 0) && ok;
    ok = kfx::check_close("v3", v3.h.data(), r3.data(), n2, 0) && ok;
    ok = kfx::check_close("h", h.h.data(), hh.data(), n, 0) && ok;
    ok = kfx::check_close("e2", e2.h.data(), t2.data(), n, 0) && ok;
    ok = kfx::check_close("e3", e3.h.data(), t3.data(), n, 0) && ok;
    ok = kfx::check_close("m2", m2.h.data(), p2.data(), n3, 0) && ok;
    return kfx::check_close("m3", m3.h.data(), p3.data(), n3, 0) && ok;
  };
  int rc = kfx::run_and_report(
      "set", a, st, 4.0 * (n + n2 + n3) * sizeof(float),
      [&] {
        step(s0.d, s1.d, s2.d, s3.d, f0.d, f1.d, f2.d, f3.d, c0.d, c1.d, c2.d, c3.d, n, n2, n3, st);
        if (!overlapped) {
          step(s0.d, v1.d, v2.d, v3.d, f0.d, h.d, e2.d, e3.d, c0.d, h.d, m2.d, m3.d, n, n2, n3, st);
          overlapped = true;
        }
      },
      check, s1, s2, s3, f1, f2, f3, c1, c2, c3, h, v1, v2, v3, e2, e3, m2, m3);
  KFX_CHECK(cudaStreamDestroy(st));
  return rc;
}
