/* guards: launch sequences that a fused kernel must NOT run, one per runtime
 * guard (rt.h's fallback reasons). Each case checks its results against a CPU
 * reference; tools/gpu-check checks that KFUSE_STATS names the reason.
 *
 * How a guard is made to fire: each fused group is bound to its own
 * sequence's site (the manifest's `at` line), so a guard fires when the
 * values a site passes at run time break what its own group assumes.
 * kfg_control launches scale then add with one intermediate, one n, one
 * stream and one shape, and runs fused. kfg_overlap and kfg_overlap_ldg are
 * the same code as their controls, called with aliasing buffers: their own
 * groups' `disjoint` guards must refuse them on every call. The other cases
 * pass different variables where the control passes one, which the
 * compiler sees: wiring's launches (scale into t1, add from t2) share no
 * buffer and fuse horizontally, which runs fused when t1 and t2 are apart
 * and must fall back with `overlap` when they are one array
 * (wiring_alias, the same code); it declines stream and shape, which then
 * stay plain launches that never reach the runtime ("plain": no stats
 * line), and fuses scalar its own way (its group has no `equal` for n;
 * "own": any outcome but `no-match`). No site is ever offered another
 * site's group. Results must equal the
 * unfused build's bit for bit in every case. control_ldg and overlap_ldg do
 * the same with add_ldg, which reads its second input through __ldg, in
 * place of add.
 *
 * No call may appear between a case's two launches: the host pass ends a run
 * at any call, and a site it does not rewrite never reaches the runtime.
 * `tools/gpu-check --check-sites` checks, without a GPU, that every kfg_*
 * site is handed to the runtime and that the control's group has the guards
 * these cases break. */
#include "common.h"
#include "map_kernels.h"

/* Each case runs one two-launch sequence and returns the source line of its
 * first launch. The functions are extern "C" and not inlined so that the
 * site's function name (KFUSE_STATS "<where>": "kfg_<case> launch 0" without
 * debug info, "guards.cu:<line>:<col> kfg_<case>" with it) is the case's. */
#define KFG_CASE extern "C" __attribute__((noinline)) int

/* Control: nothing wrong, the sequence runs fused. Keep it first. */
KFG_CASE kfg_control(const float *x, float *t, const float *y, float *o, float a, int n,
                     int block, cudaStream_t s)
{
  unsigned grid = kfx::grid_for(n, block);
  const int line = __LINE__ + 1;
  scale<<<grid, block, 0, s>>>(x, t, a, n);
  add<<<grid, block, 0, s>>>(t, y, o, n);
  return line;
}

/* wiring: launch 0 writes t1, launch 1 reads t2: nothing flows between the
 * launches as written, and they fuse horizontally, with `disjoint` on t1
 * and t2. */
KFG_CASE kfg_wiring(const float *x, float *t1, const float *t2, const float *y, float *o,
                    float a, int n, int block, cudaStream_t s)
{
  unsigned grid = kfx::grid_for(n, block);
  const int line = __LINE__ + 1;
  scale<<<grid, block, 0, s>>>(x, t1, a, n);
  add<<<grid, block, 0, s>>>(t2, y, o, n);
  return line;
}

/* wiring_alias: wiring's code, called with t2 = t1: add must read what
 * scale wrote (every element, not only its own thread's), which the
 * horizontal group's `disjoint` guard must see. */
KFG_CASE kfg_wiring_alias(const float *x, float *t1, const float *t2, const float *y, float *o,
                          float a, int n, int block, cudaStream_t s)
{
  unsigned grid = kfx::grid_for(n, block);
  const int line = __LINE__ + 1;
  scale<<<grid, block, 0, s>>>(x, t1, a, n);
  add<<<grid, block, 0, s>>>(t2, y, o, n);
  return line;
}

/* overlap: the same code as the control, called with o inside x's
 * allocation (o = x + 1): fused, thread i would write o[i] = x[i+1] while
 * thread i+1 reads it. Unfused, launch 0 has read all of x first. */
KFG_CASE kfg_overlap(const float *x, float *t, const float *y, float *o, float a, int n,
                     int block, cudaStream_t s)
{
  unsigned grid = kfx::grid_for(n, block);
  const int line = __LINE__ + 1;
  scale<<<grid, block, 0, s>>>(x, t, a, n);
  add<<<grid, block, 0, s>>>(t, y, o, n);
  return line;
}

/* The overlap guard once more, with launch 1 reading its second input
 * through the read-only data cache: __ldg(&v[i]) loads through a cast of the
 * address to the global space, which the device pass must see through to
 * give y the footprint of all n elements (it once came out as y[0] alone,
 * so the guard passed the overlap below and the pair ran fused). add_ldg's first site, control_ldg, runs fused
 * and gives the group every (scale, add_ldg) site matches; overlap_ldg is
 * called with y one element before t in one allocation (y[i] = t[i-1]):
 * fused, thread i would read t[i-1] while thread i-1 writes it. */
__global__ KFUSE_MAP void add_ldg(const float *u, const float *v, float *o, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    o[i] = u[i] + __ldg(&v[i]);
}

KFG_CASE kfg_control_ldg(const float *x, float *t, const float *y, float *o, float a, int n,
                         int block, cudaStream_t s)
{
  unsigned grid = kfx::grid_for(n, block);
  const int line = __LINE__ + 1;
  scale<<<grid, block, 0, s>>>(x, t, a, n);
  add_ldg<<<grid, block, 0, s>>>(t, y, o, n);
  return line;
}

KFG_CASE kfg_overlap_ldg(const float *x, float *t, const float *y, float *o, float a, int n,
                         int block, cudaStream_t s)
{
  unsigned grid = kfx::grid_for(n, block);
  const int line = __LINE__ + 1;
  scale<<<grid, block, 0, s>>>(x, t, a, n);
  add_ldg<<<grid, block, 0, s>>>(t, y, o, n);
  return line;
}

/* scalar: n differs between the launches (n1 for scale, n2 < n1 for add). */
KFG_CASE kfg_scalar(const float *x, float *t, const float *y, float *o, float a, int n1,
                    int n2, int block, cudaStream_t s)
{
  unsigned grid = kfx::grid_for(n1, block);
  const int line = __LINE__ + 1;
  scale<<<grid, block, 0, s>>>(x, t, a, n1);
  add<<<grid, block, 0, s>>>(t, y, o, n2);
  return line;
}

/* stream: launch 0 on s1 (a blocking stream), launch 1 on s2 (the legacy
 * default stream, which waits for it, so the unfused order is defined). */
KFG_CASE kfg_stream(const float *x, float *t, const float *y, float *o, float a, int n,
                    int block, cudaStream_t s1, cudaStream_t s2)
{
  unsigned grid = kfx::grid_for(n, block);
  const int line = __LINE__ + 1;
  scale<<<grid, block, 0, s1>>>(x, t, a, n);
  add<<<grid, block, 0, s2>>>(t, y, o, n);
  return line;
}

/* shape: the block size differs (b1, b2), each grid covering n. */
KFG_CASE kfg_shape(const float *x, float *t, const float *y, float *o, float a, int n, int b1,
                   int b2, cudaStream_t s)
{
  unsigned g1 = kfx::grid_for(n, b1), g2 = kfx::grid_for(n, b2);
  const int line = __LINE__ + 1;
  scale<<<g1, b1, 0, s>>>(x, t, a, n);
  add<<<g2, b2, 0, s>>>(t, y, o, n);
  return line;
}

/* records: each thread scales and adds the 16 consecutive floats of its
 * own (64-byte records), which the fused kernel moves through shared memory
 * in 16-byte words, the `align` guard checking every staged buffer's start
 * 16-byte aligned. kfg_records runs fused on cudaMalloc's buffers;
 * kfg_records_align is the same code, called with x one float past a
 * 16-byte boundary: the guard must refuse it (layout). */
enum { REC = 16 };
__global__ KFUSE_MAP void rec_scale(const float *x, float *t, float a, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    for (int k = 0; k < REC; k++)
      t[REC * i + k] = a * x[REC * i + k];
}
__global__ KFUSE_MAP void rec_add(const float *t, const float *y, float *o, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    for (int k = 0; k < REC; k++)
      o[REC * i + k] = t[REC * i + k] + y[REC * i + k];
}

KFG_CASE kfg_records(const float *x, float *t, const float *y, float *o, float a, int n,
                     int block, cudaStream_t s)
{
  unsigned grid = kfx::grid_for(n, block);
  const int line = __LINE__ + 1;
  rec_scale<<<grid, block, 0, s>>>(x, t, a, n);
  rec_add<<<grid, block, 0, s>>>(t, y, o, n);
  return line;
}

KFG_CASE kfg_records_align(const float *x, float *t, const float *y, float *o, float a, int n,
                           int block, cudaStream_t s)
{
  unsigned grid = kfx::grid_for(n, block);
  const int line = __LINE__ + 1;
  rec_scale<<<grid, block, 0, s>>>(x, t, a, n);
  rec_add<<<grid, block, 0, s>>>(t, y, o, n);
  return line;
}

/* records9: 36-byte records (9 floats), which the block copies as one range
 * of 16-byte words per round; every round starts 16-byte aligned only where
 * the block's threads are a multiple of 4 (manifest `le 0 bx-(bx/4)*4 0`).
 * kfg_records9 runs fused with the program's block size; kfg_records9_block
 * is the same code launched with blocks of 30 threads: the guard must refuse
 * it (layout). */
enum { REC9 = 9 };
__global__ KFUSE_MAP void rec9_scale(const float *x, float *t, float a, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    for (int k = 0; k < REC9; k++)
      t[REC9 * i + k] = a * x[REC9 * i + k];
}
__global__ KFUSE_MAP void rec9_add(const float *t, const float *y, float *o, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    for (int k = 0; k < REC9; k++)
      o[REC9 * i + k] = t[REC9 * i + k] + y[REC9 * i + k];
}

KFG_CASE kfg_records9(const float *x, float *t, const float *y, float *o, float a, int n,
                      int block, cudaStream_t s)
{
  unsigned grid = kfx::grid_for(n, block);
  const int line = __LINE__ + 1;
  rec9_scale<<<grid, block, 0, s>>>(x, t, a, n);
  rec9_add<<<grid, block, 0, s>>>(t, y, o, n);
  return line;
}

KFG_CASE kfg_records9_block(const float *x, float *t, const float *y, float *o, float a, int n,
                            int block, cudaStream_t s)
{
  unsigned grid = kfx::grid_for(n, block);
  const int line = __LINE__ + 1;
  rec9_scale<<<grid, block, 0, s>>>(x, t, a, n);
  rec9_add<<<grid, block, 0, s>>>(t, y, o, n);
  return line;
}

/* nest: scale then add, each in a nest of grid-stride loops over an image
 * of w x h with rows `pitch` floats apart (tests/gpu/grid_nest.cu's form),
 * on a fixed grid; the manifest guards that rows do not overlap, 4 * (w -
 * 1) + 4 <= |4 * pitch|. kfg_nest runs fused with pitch = w + 3;
 * kfg_nest_rows is the same code called with pitch = w - 3, rows that
 * overlap (threads of two rows write one element, the same value): the
 * guard must refuse it (layout). */
#define KFG_ROWS(V, N)                                                                       \
  for (int V = blockIdx.y * blockDim.y + threadIdx.y; V < (N); V += blockDim.y * gridDim.y)
#define KFG_COLS(V, N)                                                                       \
  for (int V = blockIdx.x * blockDim.x + threadIdx.x; V < (N); V += blockDim.x * gridDim.x)
__global__ KFUSE_MAP void nest_scale(const float *x, float *t, float a, int w, int h, int pitch)
{
  KFG_ROWS(r, h) KFG_COLS(c, w) t[r * pitch + c] = a * x[r * pitch + c];
}
__global__ KFUSE_MAP void nest_add(const float *t, const float *y, float *o, int w, int h,
                                   int pitch)
{
  KFG_ROWS(r, h) KFG_COLS(c, w) o[r * pitch + c] = t[r * pitch + c] + y[r * pitch + c];
}

KFG_CASE kfg_nest(const float *x, float *t, const float *y, float *o, float a, int w, int h,
                  int pitch, cudaStream_t s)
{
  dim3 grid(8, 16), block(32, 8);
  const int line = __LINE__ + 1;
  nest_scale<<<grid, block, 0, s>>>(x, t, a, w, h, pitch);
  nest_add<<<grid, block, 0, s>>>(t, y, o, w, h, pitch);
  return line;
}

KFG_CASE kfg_nest_rows(const float *x, float *t, const float *y, float *o, float a, int w, int h,
                       int pitch, cudaStream_t s)
{
  dim3 grid(8, 16), block(32, 8);
  const int line = __LINE__ + 1;
  nest_scale<<<grid, block, 0, s>>>(x, t, a, w, h, pitch);
  nest_add<<<grid, block, 0, s>>>(t, y, o, w, h, pitch);
  return line;
}

namespace {

/* One case: its name, its function, and what KFUSE_STATS must report for its
 * site: "fused", a fallback reason (rt.h's KF_FALLBACK_MAP text) on every
 * call, "plain" (no site: the launches stay plain) or "own" (a site of its
 * own group, never `no-match`). */
struct Case {
  const char *name;
  const char *func;
  const char *expect;
};

struct Suite {
  const kfx::Args &a;
  FILE *out = nullptr;
  int failures = 0, cases = 0;
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
    cases++;
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
  /* m < n for the scalar case: launch 1 computes a prefix only. */
  const int m = n > 1 ? n - std::max(1, n / 7) : n;
  /* The other block size of the shape case. */
  const int b2 = block >= 64 ? block / 2 : block * 2;

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
   * o_init (not poisoned: the scalar case leaves a tail unwritten on purpose). */
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
            [&] { return kfg_control(x.d, t.d, y.d, o.d, alpha, n, block, s); },
            [&] { return check_to(n); }, t, o);

  /* wiring: launch 0 writes t, launch 1 reads t2 (random data, left as it
   * is), so o = t2 + y, never a*x + y; fused horizontally. */
  suite.run(
      {"wiring", "kfg_wiring", "fused"},
      [&] {
        setup_to();
        t2.h = t20;
        t2.upload();
      },
      [&] { return kfg_wiring(x.d, t.d, t2.d, y.d, o.d, alpha, n, block, s); },
      [&] {
        std::vector<double> want(un);
        for (size_t i = 0; i < un; i++)
          want[i] = (double)t20[i] + y.h[i];
        bool ok = kfx::check_close("t", t.h.data(), rt.data(), un, 1e-6);
        return kfx::check_close("o", o.h.data(), want.data(), un, 1e-6) && ok;
      },
      t, o);

  /* wiring_alias: t1 = t2 = t, so o = a*x + y as in the control; the
   * horizontal group (each thread reading t[i] after writing only its own
   * element) must not run. */
  suite.run({"wiring_alias", "kfg_wiring_alias", "overlap"}, setup_to,
            [&] { return kfg_wiring_alias(x.d, t.d, t.d, y.d, o.d, alpha, n, block, s); },
            [&] { return check_to(n); }, t, o);

  /* overlap: x is buf[0..n), the output buf[shift..shift+n), one allocation. */
  const int shift = 1;
  suite.run(
      {"overlap", "kfg_overlap", "overlap"},
      [&] {
        t.poison();
        buf.h = buf0;
        buf.upload();
      },
      [&] { return kfg_overlap(buf.d, t.d, y.d, buf.d + shift, alpha, n, block, s); },
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

  suite.run({"control_ldg", "kfg_control_ldg", "fused"}, setup_to,
            [&] { return kfg_control_ldg(x.d, t.d, y.d, o.d, alpha, n, block, s); },
            [&] { return check_to(n); }, t, o);

  /* overlap_ldg: y is buf[0..n), t is buf[1..n+1), one allocation, so
   * o[i] = a*x[i] + (i ? a*x[i-1] : buf[0]). */
  suite.run(
      {"overlap_ldg", "kfg_overlap_ldg", "overlap"},
      [&] {
        setup_to();
        buf.h = buf0;
        buf.upload();
      },
      [&] { return kfg_overlap_ldg(x.d, buf.d + 1, buf.d, o.d, alpha, n, block, s); },
      [&] {
        std::vector<double> wb(buf0.begin(), buf0.end()), wo(un);
        for (size_t i = 0; i < un; i++) {
          wb[i + 1] = (double)alpha * x.h[i];
          wo[i] = (double)(float)wb[i + 1] + (i ? (double)(float)wb[i] : (double)buf0[0]);
        }
        bool ok = kfx::check_close("buf", buf.h.data(), wb.data(), buf.size(), 1e-6);
        return kfx::check_close("o", o.h.data(), wo.data(), un, 1e-6) && ok;
      },
      buf, o);

  suite.run({"scalar", "kfg_scalar", "own"}, setup_to,
            [&] { return kfg_scalar(x.d, t.d, y.d, o.d, alpha, n, m, block, s); },
            [&] { return check_to(m); }, t, o);

  suite.run({"stream", "kfg_stream", "plain"}, setup_to,
            [&] { return kfg_stream(x.d, t.d, y.d, o.d, alpha, n, block, s_other, nullptr); },
            [&] { return check_to(n); }, t, o);

  suite.run({"shape", "kfg_shape", "plain"}, setup_to,
            [&] { return kfg_shape(x.d, t.d, y.d, o.d, alpha, n, block, b2, s); },
            [&] { return check_to(n); }, t, o);

  /* records: n / REC instances of REC floats, elementwise the control's
   * results; records_align reads x from buf + 1, 4 bytes past cudaMalloc's
   * alignment. */
  const int nrec = n / REC;
  const size_t urec = (size_t)nrec * REC;
  /* t = a*x and o = t + y on the first urec elements, o's tail as it was. */
  auto check_rec = [&](const float *xh) {
    std::vector<double> wt(urec), wo(un);
    for (size_t i = 0; i < un; i++) {
      if (i < urec)
        wt[i] = (double)alpha * xh[i];
      wo[i] = i < urec ? wt[i] + y.h[i] : (double)o_init.h[i];
    }
    bool ok = kfx::check_close("t", t.h.data(), wt.data(), urec, 1e-6);
    return kfx::check_close("o", o.h.data(), wo.data(), un, 1e-6) && ok;
  };
  suite.run({"records", "kfg_records", "fused"}, setup_to,
            [&] { return kfg_records(x.d, t.d, y.d, o.d, alpha, nrec, block, s); },
            [&] { return check_rec(x.h.data()); }, t, o);
  suite.run(
      {"records_align", "kfg_records_align", "layout"},
      [&] {
        setup_to();
        buf.h = buf0;
        buf.upload();
      },
      [&] { return kfg_records_align(buf.d + 1, t.d, y.d, o.d, alpha, nrec, block, s); },
      [&] { return check_rec(buf0.data() + 1); }, t, o);

  /* records9: n / REC9 instances of 9 floats; records9_block with blocks
   * of 30 threads. */
  const int nrec9 = n / REC9;
  const size_t urec9 = (size_t)nrec9 * REC9;
  auto check_rec9 = [&] {
    std::vector<double> wt(urec9), wo(un);
    for (size_t i = 0; i < un; i++) {
      if (i < urec9)
        wt[i] = (double)alpha * x.h[i];
      wo[i] = i < urec9 ? wt[i] + y.h[i] : (double)o_init.h[i];
    }
    bool ok = kfx::check_close("t", t.h.data(), wt.data(), urec9, 1e-6);
    return kfx::check_close("o", o.h.data(), wo.data(), un, 1e-6) && ok;
  };
  suite.run({"records9", "kfg_records9", "fused"}, setup_to,
            [&] { return kfg_records9(x.d, t.d, y.d, o.d, alpha, nrec9, block, s); },
            check_rec9, t, o);
  suite.run({"records9_block", "kfg_records9_block", "layout"}, setup_to,
            [&] { return kfg_records9_block(x.d, t.d, y.d, o.d, alpha, nrec9, 30, s); },
            check_rec9, t, o);

  /* nest: rows of nw floats, pitch nw + 3 (apart) or nw - 3 (overlapping),
   * as many rows as fit in n; t and o written where some (row, column)
   * lands, t's poison and o's initial values elsewhere. */
  const int nw = n >= 4000 ? 1000 : std::max(n / 4, 4);
  auto check_nest = [&](int pitch, int rows) {
    std::vector<char> hit(un, 0);
    for (int r = 0; r < rows; r++)
      for (int c = 0; c < nw; c++)
        hit[(size_t)r * pitch + c] = 1;
    std::vector<double> wt, gt, wo(un);
    for (size_t i = 0; i < un; i++) {
      wo[i] = hit[i] ? ro[i] : (double)o_init.h[i];
      if (hit[i])
        wt.push_back(rt[i]), gt.push_back(t.h[i]);
    }
    bool ok = kfx::check_close("t", gt.data(), wt.data(), wt.size(), 1e-6);
    return kfx::check_close("o", o.h.data(), wo.data(), un, 1e-6) && ok;
  };
  for (int apart = 1; apart >= 0; apart--) {
    const int pitch = apart ? nw + 3 : nw - 3, rows = (n - nw) / pitch + 1;
    suite.run({apart ? "nest" : "nest_rows", apart ? "kfg_nest" : "kfg_nest_rows",
               apart ? "fused" : "layout"},
              setup_to,
              [&] {
                return (apart ? kfg_nest : kfg_nest_rows)(x.d, t.d, y.d, o.d, alpha, nw, rows,
                                                          pitch, s);
              },
              [&] { return check_nest(pitch, rows); }, t, o);
  }

  if (suite.out && fclose(suite.out) != 0) {
    fprintf(stderr, "cannot write %s\n", a.out);
    suite.failures++;
  }
  KFX_CHECK(cudaStreamDestroy(s));
  KFX_CHECK(cudaStreamDestroy(s_other));
  /* Bytes: the control case's x, y read and t, o written, for every case. */
  kfx::print_result("guards", a.n, suite.total_ms / (suite.cases * (double)a.reps),
                    4.0 * un * sizeof(float), suite.failures == 0);
  return suite.failures == 0 ? 0 : 1;
}
