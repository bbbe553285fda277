/* Host-side helpers shared by the kfuse example and GPU test programs:
 * arguments, seeded inputs, poisoning, CPU-reference checks, event timing. */
#ifndef KFUSE_EXAMPLES_COMMON_H
#define KFUSE_EXAMPLES_COMMON_H

#include <cuda_runtime.h>

#include <algorithm>
#include <cerrno>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <vector>

/* Exit status of a program that found no usable CUDA device: the harness
 * (tools/gpu-check) tells "could not run" from "ran and failed" by it. */
#define KFX_EXIT_NO_DEVICE 77
/* Exit status for a bad command line. */
#define KFX_EXIT_USAGE 2

/* Checks a CUDA runtime call; on error prints where and exits non-zero. */
#define KFX_CHECK(call) kfx::check_cuda((call), #call, __FILE__, __LINE__)
/* After a launch sequence: the launch errors, then the execution errors. */
#define KFX_CHECK_LAUNCH() KFX_CHECK(cudaGetLastError())

namespace kfx {

inline void check_cuda(cudaError_t e, const char *what, const char *file, int line)
{
  if (e == cudaSuccess)
    return;
  fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", file, line, what, cudaGetErrorName(e),
          cudaGetErrorString(e));
  if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver)
    exit(KFX_EXIT_NO_DEVICE);
  exit(1);
}

/* Exits with KFX_EXIT_NO_DEVICE and a clear message when there is no GPU (or
 * no driver), so that a run on a machine without one is not a "failure". */
inline void require_device(const char *prog)
{
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    fprintf(stderr, "%s: no CUDA device: %s\n", prog,
            e != cudaSuccess ? cudaGetErrorString(e) : "the driver reports 0 devices");
    exit(KFX_EXIT_NO_DEVICE);
  }
  cudaDeviceProp p;
  KFX_CHECK(cudaGetDeviceProperties(&p, 0));
  KFX_CHECK(cudaSetDevice(0));
  printf("# device: %s (sm_%d%d, %d SMs, %.1f GiB)\n", p.name, p.major, p.minor,
         p.multiProcessorCount, (double)p.totalGlobalMem / (1u << 30));
}

/* The command line every program accepts. */
struct Args {
  uint64_t seed = 1;
  long long n = 0;
  int reps = 20;
  int warmup = 3;
  int block = 256;
  const char *out = nullptr;
};

inline void usage(FILE *f, const char *prog, long long default_n)
{
  fprintf(f,
          "usage: %s [--seed S] [--n N] [--reps R] [--warmup W] [--block B] [--out FILE]\n"
          "  --seed S    inputs are drawn from this seed (default 1)\n"
          "  --n N       elements per array (default %lld)\n"
          "  --reps R    timed repetitions; the median is reported (default 20)\n"
          "  --warmup W  untimed repetitions first (default 3)\n"
          "  --block B   threads per block, a multiple of 32 up to 1024 (default 256)\n"
          "  --out FILE  write every output buffer, raw, to FILE (for bitwise comparison)\n"
          "Prints 'RESULT name=... n=... median_ms=... gbps=... check=ok|FAIL'; exits 0 when the\n"
          "check passed, 1 when it failed, %d on a bad command line, %d without a CUDA device.\n",
          prog, default_n, KFX_EXIT_USAGE, KFX_EXIT_NO_DEVICE);
}

inline bool parse_ll(const char *s, long long lo, long long hi, long long *v)
{
  char *end = nullptr;
  errno = 0;
  long long x = strtoll(s, &end, 0);
  if (errno != 0 || end == s || *end != '\0' || x < lo || x > hi)
    return false;
  *v = x;
  return true;
}

/* The option argv[*i] as a name and a value: "--opt=V" splits at the '=',
 * "--opt V" takes the next argument as the value (and advances *i). The
 * name goes to name[0..cap) (empty if it does not fit); returns the value,
 * or nullptr if there is none. */
inline const char *option_value(int argc, char **argv, int *i, char *name, size_t cap)
{
  const char *opt = argv[*i], *eq = strchr(opt, '=');
  size_t len = eq ? (size_t)(eq - opt) : strlen(opt);
  if (len >= cap) {
    name[0] = '\0';
    return nullptr;
  }
  memcpy(name, opt, len);
  name[len] = '\0';
  if (eq)
    return eq + 1;
  return *i + 1 < argc ? argv[++*i] : nullptr;
}

/* Parses argv (both "--opt V" and "--opt=V"); exits on --help or an error. */
inline Args parse_args(int argc, char **argv, const char *prog, long long default_n)
{
  Args a;
  a.n = default_n;
  for (int i = 1; i < argc; i++) {
    const char *opt = argv[i];
    char name[32];
    if (!strcmp(opt, "-h") || !strcmp(opt, "--help")) {
      usage(stdout, prog, default_n);
      exit(0);
    }
    const char *val = option_value(argc, argv, &i, name, sizeof name);
    long long v = 0;
    bool ok = val != nullptr;
    if (!strcmp(name, "--seed") && ok) {
      ok = parse_ll(val, 0, LLONG_MAX, &v);
      a.seed = (uint64_t)v;
    } else if (!strcmp(name, "--n") && ok) {
      ok = parse_ll(val, 1, INT_MAX, &v);
      a.n = v;
    } else if (!strcmp(name, "--reps") && ok) {
      ok = parse_ll(val, 1, 100000, &v);
      a.reps = (int)v;
    } else if (!strcmp(name, "--warmup") && ok) {
      ok = parse_ll(val, 0, 100000, &v);
      a.warmup = (int)v;
    } else if (!strcmp(name, "--block") && ok) {
      ok = parse_ll(val, 32, 1024, &v) && v % 32 == 0;
      a.block = (int)v;
    } else if (!strcmp(name, "--out") && ok) {
      ok = *val != '\0';
      a.out = val;
    } else {
      ok = false;
    }
    if (!ok) {
      fprintf(stderr, "%s: bad argument '%s'%s%s\n", prog, opt, val ? " " : "", val ? val : "");
      usage(stderr, prog, default_n);
      exit(KFX_EXIT_USAGE);
    }
  }
  return a;
}

/* splitmix64: a counter-based generator, so each element depends only on
 * (seed, buffer tag, index) and both builds of a program draw the same data. */
__host__ __device__ inline uint64_t mix64(uint64_t z)
{
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* Element i of the stream (seed, tag): uniform in [lo, hi), never exactly
 * zero. Every buffer of a program uses a different tag. Host and device
 * compute the same values. */
__host__ __device__ inline uint64_t uniform_base(uint64_t seed, uint64_t tag)
{
  return mix64(seed ^ mix64(tag + 0x51ed27));
}

template <typename T>
__host__ __device__ inline T uniform_at(uint64_t base, uint64_t i, double lo, double hi)
{
  double u = (double)(mix64(base + i) >> 11) * 0x1.0p-53;
  T x = (T)(lo + (hi - lo) * u);
  return x != (T)0 ? x : (T)hi;
}

template <typename T>
void fill_uniform(std::vector<T> &v, uint64_t seed, uint64_t tag, double lo, double hi)
{
  uint64_t base = uniform_base(seed, tag);
  for (size_t i = 0; i < v.size(); i++)
    v[i] = uniform_at<T>(base, i, lo, hi);
}

/* A buffer on host and device. The device copy is freed on destruction. */
template <typename T> struct Buf {
  std::vector<T> h;
  T *d = nullptr;

  explicit Buf(size_t n) : h(n) { KFX_CHECK(cudaMalloc((void **)&d, bytes())); }
  ~Buf() { cudaFree(d); }
  Buf(const Buf &) = delete;
  Buf &operator=(const Buf &) = delete;

  size_t size() const { return h.size(); }
  size_t bytes() const { return h.size() * sizeof(T); }
  void upload() { KFX_CHECK(cudaMemcpy(d, h.data(), bytes(), cudaMemcpyHostToDevice)); }
  void download() { KFX_CHECK(cudaMemcpy(h.data(), d, bytes(), cudaMemcpyDeviceToHost)); }
  /* All-ones bytes are a NaN in float and double: an element the program
   * forgets to write fails the check. */
  void poison() { KFX_CHECK(cudaMemset(d, 0xff, bytes())); }
};

inline unsigned grid_for(long long n, int block) { return (unsigned)((n + block - 1) / block); }

/* How far got is from a reference: element i is within rtol when
 * |got - ref| <= rtol * (|ref| + mean|ref|): relative where the value is of
 * typical size, absolute (relative to the output's scale) near zero, where a
 * correctly rounded chain can still have a large relative error. NaN or Inf
 * where the reference is finite is never within. */
struct Closeness {
  double max_rel = 0, norm_rel = 0;
  size_t bad = 0, first_bad = 0;
};

template <typename T, typename R>
Closeness compare(const T *got, const R *ref, size_t n, double rtol)
{
  Closeness c;
  long double mean_abs = 0, err2 = 0, ref2 = 0;
  for (size_t i = 0; i < n; i++)
    mean_abs += fabsl((long double)ref[i]);
  mean_abs = n ? mean_abs / n : 0;
  for (size_t i = 0; i < n; i++) {
    long double r = ref[i], g = got[i];
    long double err = fabsl(g - r);
    double rel = (double)(err / (fabsl(r) + mean_abs + LDBL_MIN));
    if (!(rel <= rtol)) {
      if (c.bad++ == 0)
        c.first_bad = i;
      if (!std::isfinite(rel))
        rel = INFINITY;
    }
    if (!(rel <= c.max_rel))
      c.max_rel = rel;
    err2 += err * err;
    ref2 += r * r;
  }
  c.norm_rel = ref2 > 0 ? (double)sqrtl(err2 / ref2) : (double)sqrtl(err2);
  return c;
}

/* compare(), printed as one line; true when every element is within rtol. */
template <typename T, typename R>
bool check_close(const char *what, const T *got, const R *ref, size_t n, double rtol)
{
  Closeness c = compare(got, ref, n, rtol);
  printf("check %-6s max_rel_err=%.3e norm_rel_err=%.3e tol=%.1e %s", what, c.max_rel,
         c.norm_rel, rtol, c.bad ? "FAIL" : "ok");
  if (c.bad)
    printf(" (%zu bad; first [%zu] got %.9g want %.9g)", c.bad, c.first_bad,
           (double)got[c.first_bad], (double)ref[c.first_bad]);
  printf("\n");
  return c.bad == 0;
}

/* Snapshot of output buffers, to compare the results of a later run bit for
 * bit: a result that changes between identical runs is a race. */
struct Snapshot {
  std::vector<std::vector<unsigned char>> bytes;
};

template <typename... B> Snapshot snapshot(const B &...bufs)
{
  Snapshot s;
  (s.bytes.emplace_back((const unsigned char *)bufs.h.data(),
                        (const unsigned char *)bufs.h.data() + bufs.bytes()),
   ...);
  return s;
}

inline bool same_bits(const Snapshot &a, const Snapshot &b)
{
  bool same = a.bytes == b.bytes;
  printf("check rerun  %s\n", same ? "ok (bit-identical to the first run)"
                                   : "FAIL (results changed between identical runs)");
  return same;
}

/* Writes the raw bytes of each output buffer, in order, to path. */
template <typename... B> bool write_out(const char *path, const B &...bufs)
{
  if (!path)
    return true;
  FILE *f = fopen(path, "wb");
  bool ok = f != nullptr;
  if (ok)
    ((ok = ok && fwrite(bufs.h.data(), 1, bufs.bytes(), f) == bufs.bytes()), ...);
  if (f && fclose(f) != 0)
    ok = false;
  if (!ok)
    fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
  return ok;
}

/* The time in ms of each of `reps` calls of launch() (a launch sequence on
 * stream s), timed with events on s after `warmup` untimed calls. */
template <typename F>
std::vector<float> time_each_ms(F &&launch, int warmup, int reps, cudaStream_t s)
{
  for (int i = 0; i < warmup; i++) {
    launch();
    KFX_CHECK_LAUNCH();
  }
  KFX_CHECK(cudaStreamSynchronize(s));
  cudaEvent_t start, stop;
  KFX_CHECK(cudaEventCreate(&start));
  KFX_CHECK(cudaEventCreate(&stop));
  std::vector<float> ms((size_t)reps);
  for (int i = 0; i < reps; i++) {
    KFX_CHECK(cudaEventRecord(start, s));
    launch();
    KFX_CHECK_LAUNCH();
    KFX_CHECK(cudaEventRecord(stop, s));
    KFX_CHECK(cudaEventSynchronize(stop));
    KFX_CHECK(cudaEventElapsedTime(&ms[(size_t)i], start, stop));
  }
  KFX_CHECK(cudaEventDestroy(start));
  KFX_CHECK(cudaEventDestroy(stop));
  return ms;
}

/* Median of time_each_ms(). */
template <typename F> double time_median_ms(F &&launch, int warmup, int reps, cudaStream_t s)
{
  std::vector<float> ms = time_each_ms(launch, warmup, reps, s);
  std::sort(ms.begin(), ms.end());
  size_t m = ms.size() / 2;
  return ms.size() % 2 ? ms[m] : 0.5 * ((double)ms[m - 1] + ms[m]);
}

/* The one machine-readable line. bytes: the fewest bytes the program's
 * semantics move (each input read once, each output written once), the same
 * for the fused and unfused builds, so gbps compares them directly. */
inline void print_result(const char *name, long long n, double ms, double bytes, bool ok)
{
  printf("RESULT name=%s n=%lld median_ms=%.4f gbps=%.1f check=%s\n", name, n, ms,
         ms > 0 ? bytes / (ms * 1e6) : 0.0, ok ? "ok" : "FAIL");
  fflush(stdout);
}

/* The flow every program shares: poison the outputs, run the launch sequence
 * once, check it against the CPU reference (check() prints one line per
 * output), write --out, time the sequence, check that the timed runs left the
 * same bits, print the RESULT line. Returns the exit status. */
template <typename Launch, typename Check, typename... B>
int run_and_report(const char *name, const Args &a, cudaStream_t s, double bytes, Launch &&launch,
                   Check &&check, B &...outs)
{
  (outs.poison(), ...);
  KFX_CHECK(cudaDeviceSynchronize());
  launch();
  KFX_CHECK_LAUNCH();
  KFX_CHECK(cudaStreamSynchronize(s));
  (outs.download(), ...);
  bool ok = check();
  ok = write_out(a.out, outs...) && ok;
  Snapshot first = snapshot(outs...);
  double ms = time_median_ms(launch, a.warmup, a.reps, s);
  (outs.download(), ...);
  ok = same_bits(first, snapshot(outs...)) && ok;
  print_result(name, a.n, ms, bytes, ok);
  return ok ? 0 : 1;
}

} // namespace kfx

#endif
