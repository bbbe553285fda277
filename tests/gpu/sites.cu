/* sites: many launch sites of the same two kernels, scale then add, each
 * wired its own way, in the forms the Clang plugin and the host pass once
 * saw differently. Every group the device pass makes is bound to its own
 * sequence's site (the manifest's `at` line), so every site runs its own
 * fused kernel on every call: no site may fall back, `no-match` least of
 * all (tools/gpu-check checks the `SITES all-fused` line this program
 * prints: every KFUSE_STATS line with fused=calls and fallback=0).
 *
 *   two       two sequences in one function, t and then u as intermediate
 *   swapped   add(y, t) where the others add(t, y)
 *   tmpl<B>   one template instantiated for two block sizes
 *   lambda    a sequence in a lambda
 *   over      two overloads of one name
 *   cased     under a case label
 *   comma     k1<<<>>>(), k2<<<>>>()
 *   returned  return (void)k2<<<>>>()
 *   helpers   a helper with a local, one with a reference parameter
 *   member    member functions that do not read their object
 *   capped    each grid written std::min(blocks, cap) in the launch
 *             itself: a temporary handed by reference between the launches
 *   bounded   kernels with launch bounds, __launch_bounds__(256) and
 *             (256, 4), launched in blocks of 256 whatever --block says:
 *             the fused kernel keeps .maxntid 256 and .minnctapersm 4
 *
 * Each output is 2x + y (or y + 2x): fused and unfused agree bit for bit. */
#include "common.h"
#include "kfuse_example.h"
#include "map_kernels.h"

#include <algorithm>
#include <cstdio>

#define GRID(n, b) ((n) + (b) - 1) / (b)

static void two(const float *x, float *t, float *u, const float *y, float *o1, float *o2, int n, int b)
{
  scale<<<GRID(n, b), b>>>(x, t, 2.0f, n);
  add<<<GRID(n, b), b>>>(t, y, o1, n);
  KFX_CHECK(cudaGetLastError());
  scale<<<GRID(n, b), b>>>(x, u, 2.0f, n);
  add<<<GRID(n, b), b>>>(u, y, o2, n);
}

static void swapped(const float *x, float *t, const float *y, float *o, int n, int b)
{
  scale<<<GRID(n, b), b>>>(x, t, 2.0f, n);
  add<<<GRID(n, b), b>>>(y, t, o, n);
}

template <int B> static void tmpl(const float *x, float *t, const float *y, float *o, int n)
{
  scale<<<GRID(n, B), B>>>(x, t, 2.0f, n);
  add<<<GRID(n, B), B>>>(t, y, o, n);
}

static void lambda(const float *x, float *t, const float *y, float *o, int n, int b)
{
  auto f = [&](int m) {
    scale<<<GRID(m, b), b>>>(x, t, 2.0f, m);
    add<<<GRID(m, b), b>>>(t, y, o, m);
  };
  f(n);
}

static void over(const float *x, float *t, const float *y, float *o, int n, int b)
{
  scale<<<GRID(n, b), b>>>(x, t, 2.0f, n);
  add<<<GRID(n, b), b>>>(t, y, o, n);
}
static void over(const float *x, float *t, const float *y, float *o, long n, int b)
{
  scale<<<GRID((int)n, b), b>>>(x, t, 2.0f, (int)n);
  add<<<GRID((int)n, b), b>>>(y, t, o, (int)n);
}

static void cased(int mode, const float *x, float *t, const float *y, float *o, int n, int b)
{
  switch (mode) {
  case 1:
    scale<<<GRID(n, b), b>>>(x, t, 2.0f, n);
    add<<<GRID(n, b), b>>>(t, y, o, n);
    break;
  default:
    break;
  }
}

static void comma(const float *x, float *t, const float *y, float *o, int n, int b)
{
  scale<<<GRID(n, b), b>>>(x, t, 2.0f, n), add<<<GRID(n, b), b>>>(t, y, o, n);
}

static void returned(const float *x, float *t, const float *y, float *o, int n, int b)
{
  scale<<<GRID(n, b), b>>>(x, t, 2.0f, n);
  return (void)add<<<GRID(n, b), b>>>(t, y, o, n);
}

static void scale_local(const float *x, float *t, int n, int b)
{
  int g = GRID(n, b);
  scale<<<g, b>>>(x, t, 2.0f, n);
}
static void add_ref(const float *t, const float *y, float *o, const int &n, const int &b)
{
  add<<<GRID(n, b), b>>>(t, y, o, n);
}
static void helpers(const float *x, float *t, const float *y, float *o, int n, int b)
{
  scale_local(x, t, n, b);
  add_ref(t, y, o, n, b);
}

struct Stages {
  void first(const float *x, float *t, int n, int b) { scale<<<GRID(n, b), b>>>(x, t, 2.0f, n); }
  void second(const float *t, const float *y, float *o, int n, int b) { add<<<GRID(n, b), b>>>(t, y, o, n); }
};
static void member(Stages &st, const float *x, float *t, const float *y, float *o, int n, int b)
{
  st.first(x, t, n, b);
  st.second(t, y, o, n, b);
}

__global__ KFUSE_MAP __launch_bounds__(256) void scale_lb(const float *x, float *t, float a, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    t[i] = a * x[i];
}
__global__ KFUSE_MAP __launch_bounds__(256, 4) void add_lb(const float *u, const float *v, float *o, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    o[i] = u[i] + v[i];
}
static void capped(const float *x, float *t, const float *y, float *o, int n, int b)
{
  scale<<<std::min(GRID(n, b), 1 << 30), b>>>(x, t, 2.0f, n);
  add<<<std::min(GRID(n, b), 1 << 30), b>>>(t, y, o, n);
}

static void bounded(const float *x, float *t, const float *y, float *o, int n)
{
  scale_lb<<<GRID(n, 256), 256>>>(x, t, 2.0f, n);
  add_lb<<<GRID(n, 256), 256>>>(t, y, o, n);
}

int main(int argc, char **argv)
{
  kfx::Args a = kfx::parse_args(argc, argv, "sites", 1 << 22);
  kfx::require_device("sites");
  const int n = a.n, b = a.block;
  const size_t un = (size_t)n;
  kfx::Buf<float> x(un), y(un), t(un), u(un);
  kfx::Buf<float> o0(un), o1(un), o2(un), o3(un), o4(un), o5(un), o6(un), o7(un), o8(un), o9(un), o10(un),
      o11(un), o12(un), o13(un), o14(un), o15(un);
  kfx::fill_uniform(x.h, a.seed, 1, -2.0, 2.0);
  kfx::fill_uniform(y.h, a.seed, 2, -2.0, 2.0);
  x.upload();
  y.upload();
  Stages st;
  cudaStream_t s = nullptr; /* every site launches on the legacy default stream */
  /* For tools/gpu-check: every site of this program runs fused on every call. */
  std::printf("SITES all-fused count=15\n");

  auto check = [&] {
    std::vector<float> r(un), rs(un);
    for (size_t i = 0; i < un; i++) {
      float v = 2.0f * x.h[i];
      r[i] = v + y.h[i];
      rs[i] = y.h[i] + v;
    }
    bool ok = true;
    kfx::Buf<float> *outs[] = {&o0, &o1, &o3, &o4, &o5, &o6, &o9, &o10, &o11, &o12, &o13, &o14, &o15};
    for (kfx::Buf<float> *o : outs)
      ok = kfx::check_close("o", o->h.data(), r.data(), un, 0) && ok;
    ok = kfx::check_close("o2 (swapped)", o2.h.data(), rs.data(), un, 0) && ok;
    ok = kfx::check_close("o7 (over long)", o7.h.data(), rs.data(), un, 0) && ok;
    ok = kfx::check_close("o8 (over int)", o8.h.data(), r.data(), un, 0) && ok;
    return ok;
  };
  int rc = kfx::run_and_report(
      "sites", a, s, 16.0 * 4.0 * un * sizeof(float),
      [&] {
        two(x.d, t.d, u.d, y.d, o0.d, o1.d, n, b);
        swapped(x.d, t.d, y.d, o2.d, n, b);
        tmpl<128>(x.d, t.d, y.d, o3.d, n);
        tmpl<256>(x.d, u.d, y.d, o4.d, n);
        lambda(x.d, t.d, y.d, o5.d, n, b);
        comma(x.d, u.d, y.d, o6.d, n, b);
        over(x.d, t.d, y.d, o7.d, (long)n, b);
        over(x.d, u.d, y.d, o8.d, n, b);
        cased(1, x.d, t.d, y.d, o9.d, n, b);
        returned(x.d, u.d, y.d, o10.d, n, b);
        helpers(x.d, t.d, y.d, o11.d, n, b);
        member(st, x.d, u.d, y.d, o12.d, n, b);
        tmpl<128>(x.d, u.d, y.d, o13.d, n);
        bounded(x.d, t.d, y.d, o14.d, n);
        capped(x.d, u.d, y.d, o15.d, n, b);
      },
      check, o0, o1, o2, o3, o4, o5, o6, o7, o8, o9, o10, o11, o12, o13, o14, o15);
  return rc;
}
