/* guards: launch sequences that a fused kernel must NOT run, one per runtime
 * guard (rt.h's fallback reasons). Each case checks its results against a CPU
 * reference; tools/gpu-check checks that KFUSE_STATS names the reason.
 *
 * The "promised" cases pass an argument through a call expression such as
 * pick_t(): both launches spell it the same, so the compile-time analysis may
 * take it as one value, but the calls return different values at run time;
 * only the runtime guard can catch that. The "natural" cases differ in the
 * source already; the compiler may decline to fuse them at all. */
#include "common.h"
#include "map_kernels.h"

namespace {

/* Each call returns the other of two values, starting with the first. */
template <typename T> struct Alternate {
  T v[2];
  int k = 0;
  T next() { return v[k++ & 1]; }
};

Alternate<float *> g_t;
Alternate<int> g_n;
Alternate<unsigned> g_grid, g_block;
Alternate<cudaStream_t> g_stream;

float *pick_t() { return g_t.next(); }
int pick_n() { return g_n.next(); }
unsigned pick_grid() { return g_grid.next(); }
unsigned pick_block() { return g_block.next(); }
cudaStream_t pick_stream() { return g_stream.next(); }

} // namespace

/* Each case runs one two-launch sequence and returns the source line of its
 * first launch, which is where KFUSE_STATS reports the site. The functions
 * are extern "C" and not inlined so that the site's function name is exactly
 * the case's. */
#define KFG_CASE extern "C" __attribute__((noinline)) int

/* Control: nothing wrong, the sequence should run fused. */
KFG_CASE kfg_control(const float *x, const float *y, float *t, float *o, float a, int n, int block,
                     cudaStream_t s)
{
  unsigned grid = kfx::grid_for(n, block);
  const int line = __LINE__ + 1;
  scale<<<grid, block, 0, s>>>(x, t, a, n);
  add<<<grid, block, 0, s>>>(t, y, o, n);
  return line;
}

/* wiring: the intermediate launch 0 writes is not the one launch 1 reads. */
KFG_CASE kfg_wiring(const float *x, const float *y, float *o, float a, int n, int block,
                    cudaStream_t s)
{
  unsigned grid = kfx::grid_for(n, block);
  const int line = __LINE__ + 1;
  scale<<<grid, block, 0, s>>>(x, pick_t(), a, n);
  add<<<grid, block, 0, s>>>(pick_t(), y, o, n);
  return line;
}

/* overlap: launch 1 writes buf[shift .. shift+n), which launch 0 reads as x
 * (one allocation, two offsets). Unfused, launch 0 has read all of x first. */
KFG_CASE kfg_overlap(float *buf, const float *y, float *t, float a, int shift, int n, int block,
                     cudaStream_t s)
{
  unsigned grid = kfx::grid_for(n, block);
  const int line = __LINE__ + 1;
  scale<<<grid, block, 0, s>>>(buf, t, a, n);
  add<<<grid, block, 0, s>>>(t, y, buf + shift, n);
  return line;
}

/* scalar: n differs between the launches (promised equal). */
KFG_CASE kfg_scalar(const float *x, const float *y, float *t, float *o, float a, int n, int block,
                    cudaStream_t s)
{
  unsigned grid = kfx::grid_for(n, block);
  const int line = __LINE__ + 1;
  scale<<<grid, block, 0, s>>>(x, t, a, pick_n());
  add<<<grid, block, 0, s>>>(t, y, o, pick_n());
  return line;
}

/* scalar, natural: n and m are different variables. */
KFG_CASE kfg_scalar_natural(const float *x, const float *y, float *t, float *o, float a, int n,
                            int m, int block, cudaStream_t s)
{
  unsigned grid = kfx::grid_for(n, block);
  const int line = __LINE__ + 1;
  scale<<<grid, block, 0, s>>>(x, t, a, n);
  add<<<grid, block, 0, s>>>(t, y, o, m);
  return line;
}

/* stream: launch 0 on a blocking stream, launch 1 on the legacy default
 * stream, which waits for it (so the unfused order is well defined). */
KFG_CASE kfg_stream(const float *x, const float *y, float *t, float *o, float a, int n, int block)
{
  unsigned grid = kfx::grid_for(n, block);
  const int line = __LINE__ + 1;
  scale<<<grid, block, 0, pick_stream()>>>(x, t, a, n);
  add<<<grid, block, 0, pick_stream()>>>(t, y, o, n);
  return line;
}

KFG_CASE kfg_stream_natural(const float *x, const float *y, float *t, float *o, float a, int n,
                            int block, cudaStream_t s1, cudaStream_t s2)
{
  unsigned grid = kfx::grid_for(n, block);
  const int line = __LINE__ + 1;
  scale<<<grid, block, 0, s1>>>(x, t, a, n);
  add<<<grid, block, 0, s2>>>(t, y, o, n);
  return line;
}

/* shape: the block size (and so the grid) differs; both cover n. */
KFG_CASE kfg_shape(const float *x, const float *y, float *t, float *o, float a, int n,
                   cudaStream_t s)
{
  const int line = __LINE__ + 1;
  scale<<<pick_grid(), pick_block(), 0, s>>>(x, t, a, n);
  add<<<pick_grid(), pick_block(), 0, s>>>(t, y, o, n);
  return line;
}

KFG_CASE kfg_shape_natural(const float *x, const float *y, float *t, float *o, float a, int n,
                           int b1, int b2, cudaStream_t s)
{
  unsigned g1 = kfx::grid_for(n, b1), g2 = kfx::grid_for(n, b2);
  const int line = __LINE__ + 1;
  scale<<<g1, b1, 0, s>>>(x, t, a, n);
  add<<<g2, b2, 0, s>>>(t, y, o, n);
  return line;
}

namespace {

/* One case: name, what KFUSE_STATS should report for its site ("fused", a
 * fallback reason, or "-" for correctness only), how to reset its buffers,
 * run it, and check it. */
struct Case {
  const char *name;
  const char *func;
  const char *expect;
};

struct Suite {
  const kfx::Args &a;
  FILE *out = nullptr;
  int failures = 0;
  double total_ms = 0;

  /* Runs the case reps times from the same initial state; checks the first
   * run against the reference and every later run bit for bit against it. */
  template <typename Setup, typename Run, typename Check, typename... B>
  void run(const Case &c, Setup &&setup, Run &&launch, Check &&check, B &...outs)
  {
    printf("== case %s (%s)\n", c.name, c.func);
    int line = 0;
    bool ok = true;
    kfx::Snapshot first;
    cudaEvent_t e0, e1;
    KFX_CHECK(cudaEventCreate(&e0));
    KFX_CHECK(cudaEventCreate(&e1));
    for (int r = 0; r < a.reps; r++) {
      setup();
      KFX_CHECK(cudaDeviceSynchronize());
      KFX_CHECK(cudaEventRecord(e0, 0));
      line = launch();
      KFX_CHECK_LAUNCH();
      KFX_CHECK(cudaEventRecord(e1, 0));
      KFX_CHECK(cudaDeviceSynchronize());
      float ms = 0;
      KFX_CHECK(cudaEventElapsedTime(&ms, e0, e1));
      total_ms += ms;
      (outs.download(), ...);
      if (r == 0) {
        ok = check();
        first = kfx::snapshot(outs...);
        if (out)
          ((ok = fwrite(outs.h.data(), 1, outs.bytes(), out) == outs.bytes() && ok), ...);
      } else if (kfx::snapshot(outs...).bytes != first.bytes) {
        printf("check rerun  FAIL (run %d differs from run 0)\n", r);
        ok = false;
      }
    }
    KFX_CHECK(cudaEventDestroy(e0));
    KFX_CHECK(cudaEventDestroy(e1));
    printf("CASE name=%s func=%s line=%d expect=%s check=%s\n", c.name, c.func, line, c.expect,
           ok ? "ok" : "FAIL");
    fflush(stdout);
    failures += !ok;
  }
};

} // namespace

int main(int argc, char **argv)
{
  kfx::Args a = kfx::parse_args(argc, argv, "guards", 1 << 20);
  if (a.reps > 5)
    a.reps = 5; /* a correctness test: a few reruns find a racy result */
  kfx::require_device("guards");
  const int n = (int)a.n, block = a.block;
  const size_t un = (size_t)n;
  const float alpha = 1.5f;
  /* m < n for the scalar cases: launch 1 computes a prefix only. */
  const int m = n > 1 ? n - std::max(1, n / 7) : n;

  kfx::Buf<float> x(un), y(un), t(un), t2(un), o(un), o_init(un), buf(un + 64);
  kfx::fill_uniform(x.h, a.seed, 1, -2.0, 2.0);
  kfx::fill_uniform(y.h, a.seed, 2, -2.0, 2.0);
  kfx::fill_uniform(t2.h, a.seed, 3, -2.0, 2.0);
  kfx::fill_uniform(o_init.h, a.seed, 4, -2.0, 2.0);
  kfx::fill_uniform(buf.h, a.seed, 5, -2.0, 2.0);
  x.upload();
  y.upload();
  o_init.upload();
  std::vector<float> buf0 = buf.h, t20 = t2.h;
  cudaStream_t s, s_other;
  KFX_CHECK(cudaStreamCreate(&s));
  KFX_CHECK(cudaStreamCreate(&s_other));

  Suite suite{a};
  if (a.out && !(suite.out = fopen(a.out, "wb"))) {
    fprintf(stderr, "cannot write %s: %s\n", a.out, strerror(errno));
    return 1;
  }

  /* The references. o = a*x + y elementwise, with the output prefilled from
   * o_init (not poisoned: the scalar cases leave a tail unwritten on purpose). */
  std::vector<double> rt(un), ro(un);
  for (size_t i = 0; i < un; i++) {
    rt[i] = (double)alpha * x.h[i];
    ro[i] = rt[i] + y.h[i];
  }
  auto setup_to = [&] {
    t.poison();
    KFX_CHECK(cudaMemcpy(o.d, o_init.d, o.bytes(), cudaMemcpyDeviceToDevice));
  };
  auto check_to = [&](int upto) {
    std::vector<double> want(ro);
    for (size_t i = (size_t)upto; i < un; i++)
      want[i] = o_init.h[i];
    bool ok = kfx::check_close("t", t.h.data(), rt.data(), un, 1e-6);
    return kfx::check_close("o", o.h.data(), want.data(), un, 1e-6) && ok;
  };

  suite.run({"control", "kfg_control", "fused"}, setup_to,
            [&] { return kfg_control(x.d, y.d, t.d, o.d, alpha, n, block, s); },
            [&] { return check_to(n); }, t, o);

  /* wiring: launch 0 writes t, launch 1 reads t2 (random data), so
   * o = t2 + y, never a*x + y. */
  suite.run(
      {"wiring", "kfg_wiring", "wiring"},
      [&] {
        setup_to();
        t2.h = t20;
        t2.upload();
        g_t = Alternate<float *>{{t.d, t2.d}};
      },
      [&] { return kfg_wiring(x.d, y.d, o.d, alpha, n, block, s); },
      [&] {
        std::vector<double> want(un);
        for (size_t i = 0; i < un; i++)
          want[i] = (double)t20[i] + y.h[i];
        bool ok = kfx::check_close("t", t.h.data(), rt.data(), un, 1e-6);
        return kfx::check_close("o", o.h.data(), want.data(), un, 1e-6) && ok;
      },
      t, o);

  /* overlap: x is buf[0..n), the output buf[shift..shift+n). */
  const int shift = 1;
  suite.run(
      {"overlap", "kfg_overlap", "overlap"},
      [&] {
        t.poison();
        buf.h = buf0;
        buf.upload();
      },
      [&] { return kfg_overlap(buf.d, y.d, t.d, alpha, shift, n, block, s); },
      [&] {
        std::vector<double> wt(un), wb(buf0.begin(), buf0.end());
        for (size_t i = 0; i < un; i++) {
          wt[i] = (double)alpha * buf0[i];
          wb[i + shift] = wt[i] + y.h[i];
        }
        bool ok = kfx::check_close("t", t.h.data(), wt.data(), un, 1e-6);
        return kfx::check_close("buf", buf.h.data(), wb.data(), buf.size(), 1e-6) && ok;
      },
      t, buf);

  suite.run(
      {"scalar", "kfg_scalar", "scalar"},
      [&] {
        setup_to();
        g_n = Alternate<int>{{n, m}};
      },
      [&] { return kfg_scalar(x.d, y.d, t.d, o.d, alpha, n, block, s); },
      [&] { return check_to(m); }, t, o);

  suite.run({"scalar_natural", "kfg_scalar_natural", "-"}, setup_to,
            [&] { return kfg_scalar_natural(x.d, y.d, t.d, o.d, alpha, n, m, block, s); },
            [&] { return check_to(m); }, t, o);

  suite.run(
      {"stream", "kfg_stream", "stream"},
      [&] {
        setup_to();
        g_stream = Alternate<cudaStream_t>{{s_other, nullptr}};
      },
      [&] { return kfg_stream(x.d, y.d, t.d, o.d, alpha, n, block); },
      [&] { return check_to(n); }, t, o);

  suite.run({"stream_natural", "kfg_stream_natural", "-"}, setup_to,
            [&] { return kfg_stream_natural(x.d, y.d, t.d, o.d, alpha, n, block, s_other, nullptr); },
            [&] { return check_to(n); }, t, o);

  const int b2 = block >= 64 ? block / 2 : block * 2;
  suite.run(
      {"shape", "kfg_shape", "shape"},
      [&] {
        setup_to();
        g_grid = Alternate<unsigned>{{kfx::grid_for(n, block), kfx::grid_for(n, b2)}};
        g_block = Alternate<unsigned>{{(unsigned)block, (unsigned)b2}};
      },
      [&] { return kfg_shape(x.d, y.d, t.d, o.d, alpha, n, s); },
      [&] { return check_to(n); }, t, o);

  suite.run({"shape_natural", "kfg_shape_natural", "-"}, setup_to,
            [&] { return kfg_shape_natural(x.d, y.d, t.d, o.d, alpha, n, block, b2, s); },
            [&] { return check_to(n); }, t, o);

  if (suite.out && fclose(suite.out) != 0) {
    fprintf(stderr, "cannot write %s\n", a.out);
    suite.failures++;
  }
  KFX_CHECK(cudaStreamDestroy(s));
  KFX_CHECK(cudaStreamDestroy(s_other));
  /* Bytes: the control case's x, y read and t, o written, for every case. */
  kfx::print_result("guards", a.n, suite.total_ms / (9.0 * a.reps), 4.0 * un * sizeof(float),
                    suite.failures == 0);
  return suite.failures == 0 ? 0 : 1;
}
