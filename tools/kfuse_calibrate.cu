/* kfuse-calibrate: measures on the current GPU the numbers of the planner's
 * device profile (bandwidth, launch overhead, occupancy knee, FP32 rate) and
 * writes them in the profile format of docs/plan.md; with --psi, also the psi
 * tables of the seed paper's routines (see docs/calibrate.md). */
#include "common.h"

#include "calibrate_fit.h"
#include "psi_routines.cuh"

#include <cstdarg>
#include <ctime>
#include <map>
#include <string>

namespace {

__device__ inline unsigned sm_id()
{
  unsigned id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

__device__ inline unsigned long long global_ns()
{
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

/* Word j (4 bytes) of the source array holds pattern(j), whatever the width
 * a kernel reads it with, so a copy is checked word by word and a sum of all
 * words (mod 2^32, exact in any order) against the host's. */
__host__ __device__ inline unsigned pattern(size_t j)
{
  return (unsigned)j * 2654435761u + 12345u;
}

/* What the write kernels store, in every word. */
constexpr unsigned kFillWord = 0x3f800000u; /* 1.0f */

__device__ inline unsigned lane_sum(unsigned v) { return v; }
__device__ inline unsigned lane_sum(uint2 v) { return v.x + v.y; }
__device__ inline unsigned lane_sum(uint4 v) { return v.x + v.y + v.z + v.w; }

template <typename V> __device__ inline V splat(unsigned x);
template <> __device__ inline unsigned splat<unsigned>(unsigned x) { return x; }
template <> __device__ inline uint2 splat<uint2>(unsigned x) { return make_uint2(x, x); }
template <> __device__ inline uint4 splat<uint4>(unsigned x) { return make_uint4(x, x, x, x); }

/* Where and when a block of a stream kernel ran: the host checks that the
 * blocks ran blocks_per_sm to an SM, all at once (the latest start before the
 * earliest end), so that the occupancy is the one intended. */
struct BlockRecord {
  unsigned long long start, end; /* globaltimer, ns */
  unsigned sm;
};

__device__ inline void record_block(BlockRecord *log, unsigned long long start)
{
  if (threadIdx.x == 0)
    log[blockIdx.x] = {start, global_ns(), sm_id()};
}

/* The stream kernels run a grid-stride loop over n elements of V with one
 * access in flight per thread (no unrolling), as a map kernel with one
 * element per thread has: the occupancy curve is then the one the cost model
 * scales by. */
template <typename V>
__global__ void read_stream(const V *__restrict__ src, size_t n, unsigned *block_sum,
                            BlockRecord *log)
{
  __shared__ unsigned warp_sum[32];
  unsigned long long start = global_ns();
  unsigned acc = 0;
  size_t stride = (size_t)gridDim.x * blockDim.x;
#pragma unroll 1
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    acc += lane_sum(src[i]);
  for (int d = 16; d > 0; d /= 2)
    acc += __shfl_xor_sync(0xffffffffu, acc, d);
  if (threadIdx.x % 32 == 0)
    warp_sum[threadIdx.x / 32] = acc;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned s = 0;
    for (unsigned w = 0; w < blockDim.x / 32; w++)
      s += warp_sum[w];
    block_sum[blockIdx.x] = s;
  }
  record_block(log, start);
}

template <typename V>
__global__ void write_stream(V *__restrict__ dst, size_t n, unsigned word, BlockRecord *log)
{
  unsigned long long start = global_ns();
  V v = splat<V>(word);
  size_t stride = (size_t)gridDim.x * blockDim.x;
#pragma unroll 1
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    dst[i] = v;
  record_block(log, start);
}

template <typename V>
__global__ void copy_stream(const V *__restrict__ src, V *__restrict__ dst, size_t n,
                            BlockRecord *log)
{
  unsigned long long start = global_ns();
  size_t stride = (size_t)gridDim.x * blockDim.x;
#pragma unroll 1
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    dst[i] = src[i];
  record_block(log, start);
}

/* The copy as a kfuse map kernel is written: one element per thread, as many
 * blocks as it takes, the hardware deciding the occupancy. */
__global__ void copy_map(const unsigned *__restrict__ src, unsigned *__restrict__ dst, size_t n)
{
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    dst[i] = src[i];
}

__global__ void fill_pattern(unsigned *p, size_t n)
{
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += stride)
    p[j] = pattern(j);
}

/* Counts the words of p that are not pattern(j) (want_pattern) or word. */
__global__ void count_wrong(const unsigned *p, size_t n, bool want_pattern, unsigned word,
                            unsigned long long *wrong)
{
  unsigned long long bad = 0;
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += stride)
    bad += p[j] != (want_pattern ? pattern(j) : word);
  if (bad)
    atomicAdd(wrong, bad);
}

__global__ void empty_kernel() {}

/* A small map kernel: one element per thread. */
__global__ void tiny_kernel(const float *__restrict__ x, float *__restrict__ y)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] = x[i] + 1.0f;
}

/* FP32 throughput: kFmaChains independent FMA chains per thread (enough to
 * cover the FMA latency), kFmaUnroll steps per loop trip (so that loop
 * overhead takes few issue slots). x <- a*x + b converges to b/(1-a), so
 * the values stay finite and the result is checkable. Thread 0 of each block
 * also measures the SM clock: clock64 cycles over globaltimer nanoseconds. */
constexpr int kFmaChains = 8, kFmaUnroll = 16, kFmaBlock = 256;

__global__ void fma_chain(float a, float b, int iters, float *out, unsigned long long *cycles,
                          unsigned long long *ns)
{
  float x[kFmaChains];
#pragma unroll
  for (int k = 0; k < kFmaChains; k++)
    x[k] = (float)(threadIdx.x % 64 + k);
  __syncthreads();
  long long c0 = clock64();
  unsigned long long t0 = global_ns();
#pragma unroll 1
  for (int i = 0; i < iters; i++) {
#pragma unroll
    for (int u = 0; u < kFmaUnroll; u++) {
#pragma unroll
      for (int k = 0; k < kFmaChains; k++)
        x[k] = fmaf(x[k], a, b);
    }
  }
  float s = 0;
#pragma unroll
  for (int k = 0; k < kFmaChains; k++)
    s += x[k];
  out[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = s;
  /* Every thread's result is stored before the clocks are read again. */
  __syncthreads();
  if (threadIdx.x == 0) {
    cycles[blockIdx.x] = (unsigned long long)(clock64() - c0);
    ns[blockIdx.x] = global_ns() - t0;
  }
}

const char *const kProg = "kfuse-calibrate";

[[noreturn]] void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void die(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "%s: ", kProg);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(1);
}

struct Options {
  std::string out, csv, name, psi;
  bool quick = false, psi_only = false, psi_context = false;
  int device = 0;
  int reps = 0;         /* 0: 20, or 5 with --quick */
  long long array_mib = 0; /* 0: max(4 x L2, 1 GiB), 256 MiB with --quick */
  long long instances = 0; /* psi tables: instances per launch; 0: kPsiInstances */
  int psi_block = -1;      /* psi tables' block; -1: kPsiBlock, 0: ipb x threads per instance */
};

/* The psi tables' default instance count: 2^20, so that the 5x5 arrays
 * (100 MB) are larger than an H100's 50 MiB L2. */
constexpr long long kPsiInstances = 1 << 20;
/* The psi tables' default block: the threads of kfuse's fused kernels
 * across granularities (pass/llvm/FusionCandidate.h GranBlock). */
constexpr int kPsiBlock = 256;

void usage(FILE *f)
{
  fprintf(f,
          "usage: kfuse-calibrate [-o FILE] [--csv FILE] [--quick] [--reps R] [--device N]\n"
          "                       [--array-mib M] [--name TEXT]\n"
          "                       [--psi FILE [--psi-only] [--instances N] [--psi-block B]\n"
          "                        [--psi-context]]\n"
          "Measures the current GPU and writes a kfuse device profile (docs/calibrate.md).\n"
          "  -o, --output FILE  write the profile to FILE (default: stdout); it is read back\n"
          "                     with kf_profile_load and must parse\n"
          "  --csv FILE         also write every raw measurement, one CSV row each\n"
          "  --quick            a short run: 5 repetitions, smaller arrays (a few seconds)\n"
          "  --reps R           timed repetitions of each bandwidth and launch measurement,\n"
          "                     median used (default 20)\n"
          "  --device N         CUDA device ordinal (default 0)\n"
          "  --array-mib M      MiB per array of the bandwidth runs (default max(4 x L2, 1024),\n"
          "                     256 with --quick; at least 4 x the L2 size)\n"
          "  --name TEXT        the profile's name (default: the device's name)\n"
          "  --psi FILE         also measure the psi tables of the routines of\n"
          "                     examples/plans/mapped-f.plan and write them to FILE as\n"
          "                     problem-file 'psi ROUTINE IPB EXTRA_SHARED SECONDS' lines\n"
          "  --psi-only         measure only the psi tables (no profile; -o not allowed)\n"
          "  --instances N      instances per launch of the psi runs (default %lld)\n"
          "  --psi-block B      threads per block of the psi runs (default %d, kfuse's fused\n"
          "                     blocks: a routine with more threads loops over them); 0: the\n"
          "                     seed paper's blocks of instances x threads per instance\n"
          "  --psi-context      time compute routines between a load of their operands and a\n"
          "                     store of their result (what they add to a memory-bound fused\n"
          "                     kernel) instead of alone\n"
          "Progress and a summary go to stderr. Exit status: 0 profile (and psi tables)\n"
          "written, 1 a measurement, check or write failed, %d bad usage, %d no CUDA device.\n",
          kPsiInstances, kPsiBlock, KFX_EXIT_USAGE, KFX_EXIT_NO_DEVICE);
}

Options parse(int argc, char **argv)
{
  Options o;
  for (int i = 1; i < argc; i++) {
    std::string opt = argv[i], val;
    int at = i;
    if (opt == "-h" || opt == "--help") {
      usage(stdout);
      exit(0);
    }
    if (opt == "--quick" || opt == "--psi-only" || opt == "--psi-context") {
      (opt == "--quick" ? o.quick : opt == "--psi-only" ? o.psi_only : o.psi_context) = true;
      continue;
    }
    char name[64];
    const char *value = kfx::option_value(argc, argv, &i, name, sizeof name);
    opt = name;
    val = value ? value : "";
    bool has = value != nullptr;
    long long v = 0;
    bool ok = has;
    if ((opt == "-o" || opt == "--output") && ok) {
      ok = !val.empty();
      o.out = val;
    } else if (opt == "--csv" && ok) {
      ok = !val.empty();
      o.csv = val;
    } else if (opt == "--name" && ok) {
      ok = !val.empty();
      o.name = val;
    } else if (opt == "--reps" && ok) {
      ok = kfx::parse_ll(val.c_str(), 1, 100000, &v);
      o.reps = (int)v;
    } else if (opt == "--device" && ok) {
      ok = kfx::parse_ll(val.c_str(), 0, 1024, &v);
      o.device = (int)v;
    } else if (opt == "--array-mib" && ok) {
      ok = kfx::parse_ll(val.c_str(), 1, 1 << 20, &v);
      o.array_mib = v;
    } else if (opt == "--psi" && ok) {
      ok = !val.empty();
      o.psi = val;
    } else if (opt == "--instances" && ok) {
      /* 2^26 instances: 6.7 GB per 5x5 array; the grid stays far below 2^31. */
      ok = kfx::parse_ll(val.c_str(), 1, 1 << 26, &v);
      o.instances = v;
    } else if (opt == "--psi-block" && ok) {
      /* the device's limit is checked once it is known */
      ok = kfx::parse_ll(val.c_str(), 0, 1024, &v);
      o.psi_block = (int)v;
    } else {
      ok = false;
    }
    if (!ok) {
      fprintf(stderr, "%s: bad argument '%s'%s%s\n", kProg, argv[at], i > at ? " " : "",
              i > at ? argv[i] : "");
      usage(stderr);
      exit(KFX_EXIT_USAGE);
    }
  }
  const char *conflict = o.psi_only && o.psi.empty()   ? "--psi-only needs --psi FILE"
                         : o.psi_only && !o.out.empty() ? "--psi-only writes no profile: no -o"
                         : o.instances && o.psi.empty() ? "--instances needs --psi FILE"
                         : o.psi_block >= 0 && o.psi.empty() ? "--psi-block needs --psi FILE"
                         : o.psi_context && o.psi.empty() ? "--psi-context needs --psi FILE"
                                                        : nullptr;
  if (conflict) {
    fprintf(stderr, "%s: %s\n", kProg, conflict);
    usage(stderr);
    exit(KFX_EXIT_USAGE);
  }
  return o;
}

/* What the runtime reports about the device. */
struct Device {
  int id = 0;
  cudaDeviceProp prop;
  int sm_count, shared_per_sm, shared_per_block, reserved_shared_per_block, regs_per_sm,
      max_threads_per_sm, max_blocks_per_sm, max_threads_per_block, l2_bytes;
  int clock_khz, mem_clock_khz, bus_bits; /* 0 when not reported */
  int driver = 0, runtime = 0;
};

int attr(cudaDeviceAttr a, int dev)
{
  int v = 0;
  KFX_CHECK(cudaDeviceGetAttribute(&v, a, dev));
  return v;
}

/* For numbers the profile does not need: 0 when the runtime does not have them. */
int attr_or_0(cudaDeviceAttr a, int dev)
{
  int v = 0;
  if (cudaDeviceGetAttribute(&v, a, dev) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return v;
}

Device query_device(int id)
{
  Device d;
  d.id = id;
  KFX_CHECK(cudaGetDeviceProperties(&d.prop, id));
  d.sm_count = attr(cudaDevAttrMultiProcessorCount, id);
  d.shared_per_sm = attr(cudaDevAttrMaxSharedMemoryPerMultiprocessor, id);
  d.shared_per_block = attr(cudaDevAttrMaxSharedMemoryPerBlockOptin, id);
  d.reserved_shared_per_block = attr_or_0(cudaDevAttrReservedSharedMemoryPerBlock, id);
  d.regs_per_sm = attr(cudaDevAttrMaxRegistersPerMultiprocessor, id);
  d.max_threads_per_sm = attr(cudaDevAttrMaxThreadsPerMultiProcessor, id);
  d.max_blocks_per_sm = attr(cudaDevAttrMaxBlocksPerMultiprocessor, id);
  d.max_threads_per_block = attr(cudaDevAttrMaxThreadsPerBlock, id);
  d.l2_bytes = attr(cudaDevAttrL2CacheSize, id);
  d.clock_khz = attr_or_0(cudaDevAttrClockRate, id);
  d.mem_clock_khz = attr_or_0(cudaDevAttrMemoryClockRate, id);
  d.bus_bits = attr_or_0(cudaDevAttrGlobalMemoryBusWidth, id);
  KFX_CHECK(cudaDriverGetVersion(&d.driver));
  KFX_CHECK(cudaRuntimeGetVersion(&d.runtime));
  return d;
}

/* An occupancy level of the stream kernels: `warps` resident warps per SM,
 * as blocks_per_sm blocks of `block` threads. */
struct Level {
  int warps, block, blocks_per_sm;
  double occupancy;
};

/* Occupancies 1/32 .. 1 of the SM's thread capacity, in 32nds. The block is
 * the largest of 256, 128, 64, 32 threads dividing the level. */
std::vector<Level> occupancy_levels(const Device &d)
{
  static const int in32nds[] = {1, 2, 4, 6, 8, 10, 12, 16, 20, 24, 32};
  int max_warps = d.max_threads_per_sm / 32;
  std::vector<Level> lv;
  for (int f : in32nds) {
    int warps = std::max(1, (max_warps * f + 16) / 32);
    if (!lv.empty() && warps <= lv.back().warps)
      continue;
    int threads = warps * 32, block = 256;
    while (block > 32 && (threads % block != 0 || block > d.max_threads_per_block))
      block /= 2;
    if (threads / block > d.max_blocks_per_sm)
      continue;
    lv.push_back({warps, block, threads / block, (double)threads / d.max_threads_per_sm});
  }
  return lv;
}

/* Every kernel of the occupancy levels may take the device's largest dynamic
 * shared memory and prefers shared memory over L1, the same split at every
 * level (the padding below is what sets the number of resident blocks). */
template <typename K> int prepare_padded(K *kernel, const Device &d)
{
  cudaFuncAttributes a;
  KFX_CHECK(cudaFuncGetAttributes(&a, kernel));
  int max_dyn = d.shared_per_block - (int)a.sharedSizeBytes;
  KFX_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, max_dyn));
  KFX_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                 (int)cudaSharedmemCarveoutMaxShared));
  return max_dyn;
}

/* The dynamic shared memory (a multiple of 256 bytes) that leaves exactly r
 * blocks of `block` threads resident per SM: the largest padding at which r
 * still fit, so that r + 1 do not. False when no padding gives exactly r. */
template <typename K> bool padding_for(K *kernel, int block, int r, int max_dyn, size_t *dyn)
{
  auto resident = [&](size_t s) {
    int b = 0;
    KFX_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, kernel, block, s));
    return b;
  };
  const size_t step = 256;
  if (resident(0) < r)
    return false;
  size_t lo = 0, hi = (size_t)max_dyn / step;
  while (lo < hi) {
    size_t mid = (lo + hi + 1) / 2;
    if (resident(mid * step) >= r)
      lo = mid;
    else
      hi = mid - 1;
  }
  *dyn = lo * step;
  return resident(*dyn) == r;
}

struct Timing {
  double median = 0, min = 0, max = 0; /* seconds */
  int reps = 0;
};

/* Times launch() (work queued on s) reps times, one event pair each, after
 * `warmup` untimed calls. */
template <typename F> Timing time_runs(F &&launch, int warmup, int reps, cudaStream_t s)
{
  std::vector<float> ms = kfx::time_each_ms(launch, warmup, reps, s);
  std::vector<double> sec(ms.begin(), ms.end());
  for (double &x : sec)
    x *= 1e-3;
  Timing t;
  t.reps = reps;
  if (kf_cal_median(sec.data(), sec.size(), &t.median) != 0)
    die("a timing was not a number");
  t.min = sec.front(); /* kf_cal_median sorted them */
  t.max = sec.back();
  return t;
}

/* One raw measurement: a row of --csv, a number of the profile's header. */
struct Row {
  std::string kind;
  int width = 0;        /* bytes per access; 0: not a stream kernel */
  double occupancy = 0; /* 0: not set by the tool */
  int block = 0, blocks_per_sm = 0;
  size_t dyn_shared = 0;
  double bytes = 0, launches = 0, flops = 0, clock_hz = 0;
  bool placed = true; /* blocks ran blocks_per_sm to each SM, all at once */
  Timing t;
  /* psi rows: the routine, its configuration, the harness's time, psi, and
   * why a configuration was skipped (then nothing was timed). */
  std::string routine, note;
  int ipb = 0, tpi = 0, extra_shared = 0;
  Timing harness;
  double psi = 0;

  double rate() const { return bytes > 0 ? bytes / t.median : 0; }
};

struct Ctx {
  Options o;
  std::string command; /* the command line, for the psi file's header */
  double psi_launch = 0; /* an empty <<<1, 32>>> launch in the psi batches, seconds */
  Device d;
  cudaStream_t s;
  int reps, warmup;
  size_t array_bytes, words;
  unsigned *src, *dst, *block_sum;
  BlockRecord *block_log;
  unsigned long long *wrong;
  unsigned expected_sum;
  std::vector<Level> levels;
  std::vector<Row> rows;
};

unsigned long long wrong_words(Ctx &c, bool want_pattern, unsigned word)
{
  KFX_CHECK(cudaMemsetAsync(c.wrong, 0, sizeof *c.wrong, c.s));
  count_wrong<<<c.d.sm_count * 4, 256, 0, c.s>>>(c.dst, c.words, want_pattern, word, c.wrong);
  KFX_CHECK_LAUNCH();
  unsigned long long bad = 0;
  KFX_CHECK(cudaMemcpyAsync(&bad, c.wrong, sizeof bad, cudaMemcpyDeviceToHost, c.s));
  KFX_CHECK(cudaStreamSynchronize(c.s));
  return bad;
}

/* True when the last launch's `grid` blocks ran r to an SM on sm_count SMs,
 * all resident at once. */
bool placed_evenly(Ctx &c, int grid, int r)
{
  std::vector<BlockRecord> log((size_t)grid);
  KFX_CHECK(cudaMemcpy(log.data(), c.block_log, log.size() * sizeof(BlockRecord),
                       cudaMemcpyDeviceToHost));
  std::map<unsigned, int> per_sm;
  unsigned long long last_start = 0, first_end = ULLONG_MAX;
  for (const BlockRecord &b : log) {
    per_sm[b.sm]++;
    last_start = std::max(last_start, b.start);
    first_end = std::min(first_end, b.end);
  }
  if ((int)per_sm.size() != c.d.sm_count || last_start >= first_end)
    return false;
  for (auto &e : per_sm)
    if (e.second != r)
      return false;
  return true;
}

/* The read, write and copy kernels with accesses of sizeof(V) bytes at every
 * occupancy level; each result is checked after its timed runs. */
template <typename V> void measure_streams(Ctx &c)
{
  const int width = (int)sizeof(V);
  const size_t n = c.array_bytes / sizeof(V);
  const V *src = (const V *)c.src;
  V *dst = (V *)c.dst;
  int max_dyn_r = prepare_padded(read_stream<V>, c.d);
  int max_dyn_w = prepare_padded(write_stream<V>, c.d);
  int max_dyn_c = prepare_padded(copy_stream<V>, c.d);
  for (const Level &L : c.levels) {
    int grid = L.blocks_per_sm * c.d.sm_count;
    for (int kind = 0; kind < 3; kind++) {
      Row r;
      r.kind = kind == 0 ? "read" : kind == 1 ? "write" : "copy";
      r.width = width;
      r.occupancy = L.occupancy;
      r.block = L.block;
      r.blocks_per_sm = L.blocks_per_sm;
      r.bytes = (kind == 2 ? 2.0 : 1.0) * (double)c.array_bytes;
      bool padded = kind == 0   ? padding_for(read_stream<V>, L.block, L.blocks_per_sm,
                                              max_dyn_r, &r.dyn_shared)
                    : kind == 1 ? padding_for(write_stream<V>, L.block, L.blocks_per_sm,
                                              max_dyn_w, &r.dyn_shared)
                                : padding_for(copy_stream<V>, L.block, L.blocks_per_sm,
                                              max_dyn_c, &r.dyn_shared);
      if (!padded) {
        fprintf(stderr, "%s: warning: no shared-memory padding leaves exactly %d blocks of %d "
                        "threads per SM (%s.%d); occupancy %.4g not measured\n",
                kProg, L.blocks_per_sm, L.block, r.kind.c_str(), width, L.occupancy);
        continue;
      }
      size_t dyn = r.dyn_shared;
      if (kind == 0) {
        r.t = time_runs(
            [&] {
              read_stream<V><<<grid, L.block, dyn, c.s>>>(src, n, c.block_sum, c.block_log);
            },
            c.warmup, c.reps, c.s);
        std::vector<unsigned> part((size_t)grid);
        KFX_CHECK(cudaMemcpy(part.data(), c.block_sum, part.size() * sizeof(unsigned),
                             cudaMemcpyDeviceToHost));
        unsigned sum = 0;
        for (unsigned p : part)
          sum += p;
        if (sum != c.expected_sum)
          die("read.%d at occupancy %.4g: sum of the array is %u, expected %u", width,
              L.occupancy, sum, c.expected_sum);
      } else if (kind == 1) {
        KFX_CHECK(cudaMemsetAsync(c.dst, 0, c.array_bytes, c.s));
        r.t = time_runs(
            [&] {
              write_stream<V><<<grid, L.block, dyn, c.s>>>(dst, n, kFillWord, c.block_log);
            },
            c.warmup, c.reps, c.s);
        if (unsigned long long bad = wrong_words(c, false, kFillWord))
          die("write.%d at occupancy %.4g: %llu words not written", width, L.occupancy, bad);
      } else {
        KFX_CHECK(cudaMemsetAsync(c.dst, 0, c.array_bytes, c.s));
        r.t = time_runs(
            [&] { copy_stream<V><<<grid, L.block, dyn, c.s>>>(src, dst, n, c.block_log); },
            c.warmup, c.reps, c.s);
        if (unsigned long long bad = wrong_words(c, true, 0))
          die("copy.%d at occupancy %.4g: %llu words differ from the source", width,
              L.occupancy, bad);
      }
      r.placed = placed_evenly(c, grid, L.blocks_per_sm);
      if (!r.placed)
        fprintf(stderr, "%s: warning: %s.%d at occupancy %.4g: blocks not %d to each of %d "
                        "SMs all at once; left out of the occupancy curve\n",
                kProg, r.kind.c_str(), width, L.occupancy, L.blocks_per_sm, c.d.sm_count);
      c.rows.push_back(r);
    }
  }
}

/* The rows of one stream series, in increasing occupancy. */
std::vector<const Row *> series(const Ctx &c, const char *kind, int width)
{
  std::vector<const Row *> v;
  for (const Row &r : c.rows)
    if (r.kind == kind && r.width == width)
      v.push_back(&r);
  return v;
}

const Row *find_row(const Ctx &c, const char *kind)
{
  for (const Row &r : c.rows)
    if (r.kind == kind)
      return &r;
  return nullptr;
}

/* hide_occupancy of one series by the documented rule; <0 with err set. */
double hide_of(const Ctx &c, const char *kind, int width, char *err, size_t errlen)
{
  std::vector<kf_cal_point_t> pts;
  for (const Row *r : series(c, kind, width))
    if (r->placed)
      pts.push_back({r->occupancy, r->rate()});
  double h = -1;
  if (kf_cal_hide_occupancy(pts.data(), pts.size(), KF_CAL_HIDE_FRACTION, &h, err, errlen) != 0)
    return -1;
  return h;
}

std::string fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
std::string fmt(const char *f, ...)
{
  char b[512];
  va_list ap;
  va_start(ap, f);
  vsnprintf(b, sizeof b, f, ap);
  va_end(ap);
  return b;
}

std::string version(int v) { return fmt("%d.%d", v / 1000, v % 1000 / 10); }

void write_csv(const Ctx &c, FILE *f)
{
  fprintf(f, "kind,width,occupancy,block,blocks_per_sm,dyn_shared,bytes,launches,flops,reps,"
             "median_s,min_s,max_s,gbps,gflops,clock_hz,placed,routine,ipb,tpi,extra_shared,"
             "harness_s,psi_s,note\n");
  for (const Row &r : c.rows) {
    bool psi = r.kind == "psi", timed = r.t.reps > 0;
    std::string occ = r.occupancy > 0 ? fmt("%.6g", r.occupancy) : "";
    std::string blk = r.block ? fmt("%d", r.block) : "";
    std::string bps = r.blocks_per_sm ? fmt("%d", r.blocks_per_sm) : "";
    std::string wid = r.width ? fmt("%d", r.width) : "";
    std::string placed = psi ? "" : fmt("%d", r.placed ? 1 : 0);
    std::string cfg = psi ? fmt("%d,%d,%d", r.ipb, r.tpi, r.extra_shared) : ",,";
    std::string res = psi && timed ? fmt("%.6e,%.6e", r.harness.median, r.psi) : ",";
    fprintf(f,
            "%s,%s,%s,%s,%s,%zu,%.0f,%.0f,%.0f,%d,%.6e,%.6e,%.6e,%.3f,%.3f,%.6g,%s,%s,%s,%s,%s\n",
            r.kind.c_str(), wid.c_str(), occ.c_str(), blk.c_str(), bps.c_str(), r.dyn_shared,
            r.bytes, r.launches, r.flops, r.t.reps, r.t.median, r.t.min, r.t.max,
            r.bytes > 0 && timed ? r.bytes / r.t.median / 1e9 : 0.0,
            r.flops > 0 && timed ? r.flops / r.t.median / 1e9 : 0.0, r.clock_hz, placed.c_str(),
            r.routine.c_str(), cfg.c_str(), res.c_str(), r.note.c_str());
  }
}

/* Writes len bytes of text to path, or dies. */
void write_file(const std::string &path, const char *text, size_t len)
{
  FILE *f = fopen(path.c_str(), "w");
  if (!f)
    die("cannot write %s: %s", path.c_str(), strerror(errno));
  bool ok = fwrite(text, 1, len, f) == len;
  if (fclose(f) != 0 || !ok)
    die("cannot write %s", path.c_str());
}

std::string utc_now()
{
  time_t now = time(nullptr);
  struct tm tm;
  char b[32];
  gmtime_r(&now, &tm);
  strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return b;
}

/* The device profile: every measurement of docs/calibrate.md, the profile
 * written to -o (or stdout) and read back. */
void measure_profile(Ctx &c)
{
  const Device &d = c.d;
  /* Arrays of at least 4 x L2, so that every pass streams from DRAM. */
  size_t mib = 1 << 20, min_bytes = 4 * (size_t)d.l2_bytes;
  size_t want = c.o.array_mib ? (size_t)c.o.array_mib * mib
                              : std::max(min_bytes, (size_t)(c.o.quick ? 256 : 1024) * mib);
  if (want < min_bytes)
    die("--array-mib %lld is below 4 x the L2 size (%zu MiB)", c.o.array_mib,
        (min_bytes + mib - 1) / mib);
  c.array_bytes = (want + 2 * mib - 1) / (2 * mib) * (2 * mib);
  c.words = c.array_bytes / 4;
  size_t free_b = 0, total_b = 0;
  KFX_CHECK(cudaMemGetInfo(&free_b, &total_b));
  if (2 * c.array_bytes + 256 * mib > free_b)
    die("two arrays of %zu MiB do not fit in the %zu MiB free; use a smaller --array-mib",
        c.array_bytes / mib, free_b / mib);
  fprintf(stderr, "%s: %s (sm_%d%d, %d SMs, L2 %d MiB), arrays of %zu MiB, %d reps\n", kProg,
          d.prop.name, d.prop.major, d.prop.minor, d.sm_count, d.l2_bytes >> 20,
          c.array_bytes / mib, c.reps);

  int max_grid = d.max_blocks_per_sm * d.sm_count;
  KFX_CHECK(cudaMalloc(&c.src, c.array_bytes));
  KFX_CHECK(cudaMalloc(&c.dst, c.array_bytes));
  KFX_CHECK(cudaMalloc(&c.block_sum, (size_t)max_grid * sizeof(unsigned)));
  KFX_CHECK(cudaMalloc(&c.block_log, (size_t)max_grid * sizeof(BlockRecord)));
  KFX_CHECK(cudaMalloc(&c.wrong, sizeof *c.wrong));
  fill_pattern<<<d.sm_count * 4, 256, 0, c.s>>>(c.src, c.words);
  KFX_CHECK_LAUNCH();
  c.expected_sum = 0;
  for (size_t j = 0; j < c.words; j++)
    c.expected_sum += pattern(j);
  KFX_CHECK(cudaStreamSynchronize(c.s));

  /* The reference ceiling: the driver's device-to-device copy. */
  {
    Row r;
    r.kind = "memcpy_d2d";
    r.bytes = 2.0 * (double)c.array_bytes;
    KFX_CHECK(cudaMemsetAsync(c.dst, 0, c.array_bytes, c.s));
    r.t = time_runs(
        [&] {
          KFX_CHECK(cudaMemcpyAsync(c.dst, c.src, c.array_bytes, cudaMemcpyDeviceToDevice, c.s));
        },
        c.warmup, c.reps, c.s);
    if (unsigned long long bad = wrong_words(c, true, 0))
      die("cudaMemcpyAsync: %llu words differ from the source", bad);
    c.rows.push_back(r);
    fprintf(stderr, "%s: memcpy d2d %.1f GB/s\n", kProg, r.rate() / 1e9);
  }

  c.levels = occupancy_levels(d);
  measure_streams<unsigned>(c);
  measure_streams<uint2>(c);
  measure_streams<uint4>(c);
  for (const char *k : {"read", "write", "copy"})
    for (int w : {4, 8, 16}) {
      std::string line;
      for (const Row *r : series(c, k, w))
        line += fmt(" %.0f%s", r->rate() / 1e9, r->placed ? "" : "?");
      fprintf(stderr, "%s: %-5s %2d B GB/s:%s\n", kProg, k, w, line.c_str());
    }

  /* The copy as map kernels are written, for comparison with the padded one. */
  {
    Row r;
    r.kind = "copy_map";
    r.width = 4;
    r.block = 256;
    r.bytes = 2.0 * (double)c.array_bytes;
    unsigned grid = (unsigned)((c.words + 255) / 256);
    KFX_CHECK(cudaMemsetAsync(c.dst, 0, c.array_bytes, c.s));
    r.t = time_runs([&] { copy_map<<<grid, 256, 0, c.s>>>(c.src, c.dst, c.words); }, c.warmup,
                    c.reps, c.s);
    if (unsigned long long bad = wrong_words(c, true, 0))
      die("copy_map: %llu words differ from the source", bad);
    c.rows.push_back(r);
    fprintf(stderr, "%s: copy_map (one element per thread) %.1f GB/s\n", kProg, r.rate() / 1e9);
  }

  /* Launch overhead: per launch, over batches of back-to-back launches.
   * A batch stays below the driver's queue of pending launches (about a
   * thousand): past it every launch waits for a free slot, which is not what
   * a program's short sequences see. */
  const int batch = 500;
  float *tiny_x, *tiny_y;
  const int tiny_n = d.sm_count * 256;
  KFX_CHECK(cudaMalloc(&tiny_x, (size_t)tiny_n * sizeof(float)));
  KFX_CHECK(cudaMalloc(&tiny_y, (size_t)tiny_n * sizeof(float)));
  KFX_CHECK(cudaMemsetAsync(tiny_x, 0, (size_t)tiny_n * sizeof(float), c.s));
  for (int kind = 0; kind < 2; kind++) {
    Row r;
    r.kind = kind == 0 ? "launch_empty" : "launch_tiny";
    r.launches = batch;
    r.block = kind == 0 ? 32 : 256;
    r.t = time_runs(
        [&] {
          for (int i = 0; i < batch; i++)
            if (kind == 0)
              empty_kernel<<<1, 32, 0, c.s>>>();
            else
              tiny_kernel<<<d.sm_count, 256, 0, c.s>>>(tiny_x, tiny_y);
        },
        1, c.reps, c.s);
    r.t.median /= batch;
    r.t.min /= batch;
    r.t.max /= batch;
    c.rows.push_back(r);
    fprintf(stderr, "%s: %s %.3f us per launch\n", kProg, r.kind.c_str(), r.t.median * 1e6);
  }
  {
    std::vector<float> y((size_t)tiny_n);
    KFX_CHECK(cudaMemcpy(y.data(), tiny_y, y.size() * sizeof(float), cudaMemcpyDeviceToHost));
    for (float v : y)
      if (v != 1.0f)
        die("tiny kernel: wrong result %g", (double)v);
  }

  /* FP32 rate and SM clock: one full wave of FMA chains. */
  {
    int per_sm = 0;
    KFX_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fma_chain, kFmaBlock, 0));
    if (per_sm < 1)
      die("the FMA kernel does not fit on an SM");
    int grid = per_sm * d.sm_count, iters = c.o.quick ? 4096 : 16384;
    size_t threads = (size_t)grid * kFmaBlock;
    float *out;
    unsigned long long *cyc, *ns;
    KFX_CHECK(cudaMalloc(&out, threads * sizeof(float)));
    KFX_CHECK(cudaMalloc(&cyc, (size_t)grid * sizeof *cyc));
    KFX_CHECK(cudaMalloc(&ns, (size_t)grid * sizeof *ns));
    Row r;
    r.kind = "fma";
    r.block = kFmaBlock;
    r.blocks_per_sm = per_sm;
    r.occupancy = (double)per_sm * kFmaBlock / d.max_threads_per_sm;
    r.flops = (double)threads * iters * kFmaUnroll * kFmaChains * 2.0;
    r.t = time_runs(
        [&] { fma_chain<<<grid, kFmaBlock, 0, c.s>>>(0.999f, 0.001f, iters, out, cyc, ns); }, 1,
        c.o.quick ? 3 : 7, c.s);
    std::vector<float> h(threads);
    std::vector<unsigned long long> hc((size_t)grid), hn((size_t)grid);
    KFX_CHECK(cudaMemcpy(h.data(), out, threads * sizeof(float), cudaMemcpyDeviceToHost));
    KFX_CHECK(cudaMemcpy(hc.data(), cyc, hc.size() * sizeof *cyc, cudaMemcpyDeviceToHost));
    KFX_CHECK(cudaMemcpy(hn.data(), ns, hn.size() * sizeof *ns, cudaMemcpyDeviceToHost));
    /* Each chain converges to b/(1-a) = 1: the sum of kFmaChains is 8. */
    for (float v : h)
      if (!(fabsf(v - (float)kFmaChains) < 0.01f))
        die("FMA kernel: wrong result %g (want about %d)", (double)v, kFmaChains);
    std::vector<double> hz;
    for (size_t b = 0; b < hc.size(); b++)
      if (hn[b] > 0)
        hz.push_back((double)hc[b] / (double)hn[b] * 1e9);
    if (hz.empty() || kf_cal_median(hz.data(), hz.size(), &r.clock_hz) != 0)
      r.clock_hz = 0;
    KFX_CHECK(cudaFree(out));
    KFX_CHECK(cudaFree(cyc));
    KFX_CHECK(cudaFree(ns));
    c.rows.push_back(r);
    fprintf(stderr, "%s: fma %.1f GFLOP/s, SM clock %.0f MHz measured, %.0f MHz reported\n",
            kProg, r.flops / r.t.median / 1e9, r.clock_hz / 1e6, d.clock_khz / 1e3);
  }

  /* The profile. */
  char err[256] = "";
  kf_profile_t p;
  kf_profile_default(&p);
  snprintf(p.name, sizeof p.name, "%s", c.o.name.empty() ? d.prop.name : c.o.name.c_str());
  std::vector<const Row *> curve = series(c, "copy", 4);
  if (curve.empty() || !curve.back()->placed || curve.back()->occupancy != 1.0)
    die("no copy measurement at full occupancy");
  p.hide_occupancy = hide_of(c, "copy", 4, err, sizeof err);
  if (p.hide_occupancy < 0)
    die("hide_occupancy: %s", err);
  const Row *tiny = find_row(c, "launch_tiny"), *empty = find_row(c, "launch_empty");
  const Row *fma = find_row(c, "fma"), *memcpy_row = find_row(c, "memcpy_d2d");
  const Row *map = find_row(c, "copy_map");
  /* The device-to-device copy's rate: map kernels that read and write
   * several arrays keep enough bytes in flight to reach it (measured on an
   * H100: the kfuse-bench f64 chains run at 0.96-1.02 of it), where a copy
   * with one 4-byte access per thread does not. */
  p.bandwidth = memcpy_row->rate();
  p.launch_overhead = tiny->t.median;
  p.sm_count = d.sm_count;
  p.shared_per_sm = d.shared_per_sm;
  p.shared_per_block = d.shared_per_block;
  p.regs_per_sm = d.regs_per_sm;
  p.max_threads_per_sm = d.max_threads_per_sm;
  p.max_blocks_per_sm = d.max_blocks_per_sm;
  p.max_threads_per_block = d.max_threads_per_block;
  p.l2_bytes = d.l2_bytes;
  bool clock_measured = fma->clock_hz >= 1e6;
  p.clock_hz = clock_measured ? fma->clock_hz : d.clock_khz * 1e3;
  if (kf_cal_flops_per_cycle(fma->flops, fma->t.median, d.sm_count, p.clock_hz,
                             &p.flops_per_cycle_per_sm) != 0)
    die("no FP32 rate: the FMA kernel's time or the clock is missing");

  /* The header: where the numbers come from, each raw value. */
  std::string h;
  h += "kfuse device profile measured by kfuse-calibrate (docs/calibrate.md)\n";
  h += fmt("device %d: %s, sm_%d%d, %d SMs, %.1f GiB\n", d.id, d.prop.name, d.prop.major,
           d.prop.minor, d.sm_count, (double)d.prop.totalGlobalMem / (1 << 30));
  h += fmt("date: %s; driver %s, runtime %s\n", utc_now().c_str(), version(d.driver).c_str(),
           version(d.runtime).c_str());
  h += fmt("run: %s, arrays of %zu MiB (L2 %d MiB), median of %d timed runs after %d warm-up\n",
           c.o.quick ? "--quick" : "full", c.array_bytes >> 20, d.l2_bytes >> 20, c.reps,
           c.warmup);
  h += "\nbandwidth, bytes/s (bytes read + bytes written, over the median time):\n";
  if (d.mem_clock_khz && d.bus_bits)
    h += fmt("  DRAM nominal            %.4g (2 x %d MHz x %d bit)\n",
             2.0 * d.mem_clock_khz * 1e3 * d.bus_bits / 8, d.mem_clock_khz / 1000, d.bus_bits);
  h += fmt("  memcpy d2d              %.4g (cudaMemcpyAsync) -> bandwidth\n", p.bandwidth);
  h += fmt("  copy, 4 B, occupancy 1  %.4g (one 4-byte access in flight per thread)\n",
           curve.back()->rate());
  h += fmt("  copy_map, 4 B           %.4g (one element per thread, no padding)\n", map->rate());
  h += "\nstream kernels, GB/s by occupancy (resident threads / max_threads_per_sm);\n";
  h += "blocks pinned per SM by shared-memory padding; '?' = placement check failed:\n";
  std::string occ_line = "  occupancy ";
  for (const Level &L : c.levels)
    occ_line += fmt(" %6.4g", L.occupancy);
  h += occ_line + "\n";
  for (const char *k : {"read", "write", "copy"})
    for (int w : {4, 8, 16}) {
      std::string line = fmt("  %-5s %2d B", k, w);
      for (const Level &L : c.levels) {
        const Row *hit = nullptr;
        for (const Row *r : series(c, k, w))
          if (r->occupancy == L.occupancy)
            hit = r;
        line += hit ? fmt(" %5.0f%s", hit->rate() / 1e9, hit->placed ? " " : "?") : "      -";
      }
      h += line + "\n";
    }
  h += fmt("hide_occupancy: the smallest occupancy from which on every level reaches %g %% of\n"
           "the full-occupancy bandwidth, for copy 4 B -> %g; the others:",
           KF_CAL_HIDE_FRACTION * 100, p.hide_occupancy);
  for (const char *k : {"read", "write", "copy"})
    for (int w : {4, 8, 16}) {
      double hv = hide_of(c, k, w, err, sizeof err);
      h += hv > 0 ? fmt(" %s.%d %g", k, w, hv) : fmt(" %s.%d -", k, w);
    }
  h += "\n\n";
  h += fmt("launch_overhead: per launch over %d back-to-back launches on one stream:\n", batch);
  h += fmt("  empty kernel <<<1, 32>>> %.4g s; tiny kernel <<<%d, 256>>> (y = x + 1) %.4g s "
           "-> launch_overhead\n",
           empty->t.median, d.sm_count, tiny->t.median);
  h += fmt("fp32: %.4g flop/s (FMA chains, %d blocks of %d per SM, occupancy %g)\n",
           fma->flops / fma->t.median, fma->blocks_per_sm, fma->block, fma->occupancy);
  h += fmt("  SM clock %.4g Hz %s (device reports %.4g Hz peak) -> clock_hz\n", p.clock_hz,
           clock_measured ? "measured during it (clock64 / globaltimer)" : "NOT measured, reported",
           d.clock_khz * 1e3);
  h += fmt("  flop/s / (sm_count x clock_hz) = %.4g -> flops_per_cycle_per_sm\n",
           p.flops_per_cycle_per_sm);
  h += "The rest: device attributes (cudaDeviceGetAttribute).\n";

  std::vector<char> text(64 * 1024);
  size_t len = 0;
  if (kf_cal_format_profile(&p, h.c_str(), text.data(), text.size(), &len, err, sizeof err) != 0)
    die("%s", err);
  if (c.o.out.empty()) {
    if (fwrite(text.data(), 1, len, stdout) != len || fflush(stdout) != 0)
      die("cannot write the profile to stdout");
  } else {
    write_file(c.o.out, text.data(), len);
    kf_profile_t file, mem;
    if (kf_profile_load(&file, c.o.out.c_str(), err, sizeof err) != 0)
      die("%s does not parse back: %s", c.o.out.c_str(), err);
    char what[32];
    if (kf_profile_parse(&mem, text.data(), len, err, sizeof err) != 0 ||
        kf_cal_profile_diff(&file, &mem, 0, what, sizeof what) != 0)
      die("%s reads back differently from what was written", c.o.out.c_str());
    fprintf(stderr, "%s: wrote %s (read back with kf_profile_load)\n", kProg, c.o.out.c_str());
  }
  fprintf(stderr,
          "%s: bandwidth %.4g B/s, launch_overhead %.4g s, hide_occupancy %g, clock_hz %.4g, "
          "flops_per_cycle_per_sm %.4g\n",
          kProg, p.bandwidth, p.launch_overhead, p.hide_occupancy, p.clock_hz,
          p.flops_per_cycle_per_sm);
  KFX_CHECK(cudaFree(tiny_x));
  KFX_CHECK(cudaFree(tiny_y));
  KFX_CHECK(cudaFree(c.src));
  KFX_CHECK(cudaFree(c.dst));
  KFX_CHECK(cudaFree(c.block_sum));
  KFX_CHECK(cudaFree(c.block_log));
  KFX_CHECK(cudaFree(c.wrong));
}

/* The psi runs' settings: instances per launch, the extra shared memory per
 * block, and the timing (batches of back-to-back launches). */
struct PsiSettings {
  long long n;
  int block; /* threads per block; 0: ipb x threads per instance (memory: max(32, ipb)) */
  bool context; /* compute routines between a load and a store (compute_ctx_kernel) */
  std::vector<int> extras;
  int launches, batches, warmup;
};

PsiSettings psi_settings(const Options &o)
{
  PsiSettings p;
  p.n = o.instances ? o.instances : kPsiInstances;
  p.block = o.psi_block >= 0 ? o.psi_block : kPsiBlock;
  p.context = o.psi_context;
  p.extras = o.quick ? std::vector<int>{0, 32768} : std::vector<int>{0, 8192, 16384, 32768};
  p.launches = o.quick ? 10 : 20;
  p.batches = o.quick ? 3 : 7;
  p.warmup = 1;
  return p;
}

/* Lets `kernel` take `dyn` bytes of dynamic shared memory (the opt-in above
 * 48 KiB) and finds how many blocks of `block` threads are resident per SM.
 * Returns why it cannot run, or an empty string. */
std::string psi_fit(const void *kernel, int block, size_t dyn, const Device &d, int *per_sm)
{
  const size_t default_dyn = 48 * 1024;
  cudaFuncAttributes fa;
  KFX_CHECK(cudaFuncGetAttributes(&fa, kernel));
  if (dyn + fa.sharedSizeBytes > (size_t)d.shared_per_block)
    return fmt("%zu bytes of shared memory per block; the device allows %d", dyn,
               d.shared_per_block);
  if (dyn > default_dyn) {
    cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)dyn);
    if (e != cudaSuccess) {
      cudaGetLastError();
      return fmt("cudaFuncSetAttribute(MaxDynamicSharedMemorySize; %zu): %s", dyn,
                 cudaGetErrorString(e));
    }
  }
  cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(per_sm, kernel, block, dyn);
  if (e != cudaSuccess) {
    cudaGetLastError();
    return fmt("occupancy query: %s", cudaGetErrorString(e));
  }
  if (*per_sm < 1)
    return fmt("no block of %d threads with %zu bytes of shared memory fits on an SM", block,
               dyn);
  return "";
}

/* Measures psi for every routine of psi::routines(), instances per block and
 * extra shared memory (docs/calibrate.md, "psi tables"); one row each in
 * c.rows, kind "psi". A configuration that cannot launch is a row with a note
 * and no time. Every run's results are checked. */
void measure_psi(Ctx &c, const PsiSettings &ps)
{
  const Device &d = c.d;
  const std::vector<psi::Routine> rs = psi::routines();
  const size_t n = (size_t)ps.n;

  /* The memory routines read and write a pool of at least 4 x L2 and two of
   * the largest array, one array after the other: a launch never finds its
   * array in L2 from an earlier launch, as the first access of a fusion's
   * input does not. Arrays start at multiples of 256 bytes (64 floats, so that
   * value_at of the pool index is value_at of the array index). */
  size_t largest = 0;
  for (const psi::Routine &r : rs)
    largest = std::max(largest, n * (ps.context ? std::max(r.global, r.ctx_global) : r.global) *
                                    sizeof(float));
  const size_t mib = 1 << 20;
  size_t pool_bytes = std::max(4 * (size_t)d.l2_bytes, 2 * ((largest + 255) / 256 * 256));
  pool_bytes = (pool_bytes + 2 * mib - 1) / (2 * mib) * (2 * mib);
  size_t free_b = 0, total_b = 0;
  KFX_CHECK(cudaMemGetInfo(&free_b, &total_b));
  if (pool_bytes + 256 * mib > free_b)
    die("psi: a pool of %zu MiB does not fit in the %zu MiB free; use fewer --instances",
        pool_bytes / mib, free_b / mib);
  float *pool;
  unsigned *sentinel;
  unsigned long long *wrong;
  KFX_CHECK(cudaMalloc(&pool, pool_bytes));
  KFX_CHECK(cudaMalloc(&sentinel, sizeof *sentinel));
  KFX_CHECK(cudaMalloc(&wrong, sizeof *wrong));
  KFX_CHECK(cudaMemsetAsync(sentinel, 0, sizeof *sentinel, c.s));
  psi::fill_values<<<d.sm_count * 4, 256, 0, c.s>>>(pool, pool_bytes / sizeof(float));
  KFX_CHECK_LAUNCH();

  if (ps.block > d.max_threads_per_block)
    die("psi: --psi-block %d is more than the device's %d threads per block", ps.block,
        d.max_threads_per_block);
  /* The instances per block of one routine. */
  auto ipb_set = [&](const psi::Routine &r, int *out, size_t cap) {
    return ps.block ? kf_cal_psi_ipb_set_fused(ps.block, out, cap)
                    : kf_cal_psi_ipb_set(r.tpi, r.kind == psi::Kind::kCompute ? 1 : 32,
                                         d.max_threads_per_block, out, cap);
  };
  size_t configs = 0;
  for (const psi::Routine &r : rs)
    configs += (size_t)std::max(0, ipb_set(r, nullptr, 0)) * ps.extras.size();
  fprintf(stderr,
          "%s: psi: %zu routines, %zu configurations, %lld instances per launch, median of %d "
          "batches of %d launches, pool of %zu MiB\n",
          kProg, rs.size(), configs, ps.n, ps.batches, ps.launches, pool_bytes / mib);

  /* For reference (header and CSV): a launch alone, timed as the routines are.
   * A routine's time minus this one keeps its blocks' dispatch, which psi,
   * the difference to the harness of the same grid, leaves out. */
  {
    Row r;
    r.kind = "psi_launch";
    r.block = 32;
    r.launches = ps.launches;
    r.t = time_runs(
        [&] {
          for (int i = 0; i < ps.launches; i++)
            empty_kernel<<<1, 32, 0, c.s>>>();
        },
        ps.warmup, ps.batches, c.s);
    r.t.median /= ps.launches;
    r.t.min /= ps.launches;
    r.t.max /= ps.launches;
    c.psi_launch = r.t.median;
    c.rows.push_back(r);
  }

  for (const psi::Routine &R : rs) {
    const bool memory = R.kind != psi::Kind::kCompute;
    /* In context a compute routine reads and writes the pool too. */
    const bool pooled = memory || ps.context;
    const void *kernel = memory || !ps.context ? R.kernel : R.ctx_kernel;
    const void *harness = memory || !ps.context ? R.harness : R.ctx_harness;
    int ipbs[16];
    int nipb = ipb_set(R, ipbs, 16);
    if (nipb <= 0)
      die("psi %s: no instances per block fit a block of %d threads", R.name,
          d.max_threads_per_block);
    nipb = std::min(nipb, 16);
    /* The memory routine's arrays, one after the other in the pool. */
    const size_t array_floats = n * (memory || !ps.context ? R.global : R.ctx_global);
    const size_t stride = (array_floats + 63) / 64 * 64;
    const size_t slots = pooled ? pool_bytes / sizeof(float) / stride : 1;
    size_t next_slot = 0, last_slot = 0;
    double lo = INFINITY, hi = 0;
    int measured = 0;
    for (int k = 0; k < nipb; k++)
      for (int extra : ps.extras) {
        Row r;
        r.kind = "psi";
        r.routine = R.name;
        r.ipb = ipbs[k];
        r.tpi = R.tpi;
        r.extra_shared = extra;
        r.block = ps.block ? ps.block : memory ? std::max(32, r.ipb) : r.ipb * R.tpi;
        r.dyn_shared = (size_t)r.ipb * R.staging * sizeof(float) + extra;
        r.launches = ps.launches;
        r.bytes = pooled ? (double)array_floats * sizeof(float) : 0;
        r.flops = R.flops * (double)n;
        const unsigned grid = (unsigned)((n + r.ipb - 1) / r.ipb);
        int per_sm = 0, per_sm_h = 0;
        std::string why = psi_fit(kernel, r.block, r.dyn_shared, d, &per_sm);
        if (why.empty())
          why = psi_fit(harness, r.block, r.dyn_shared, d, &per_sm_h);
        if (!why.empty()) {
          for (char &ch : why)
            ch = ch == ',' ? ';' : ch;
          r.note = "skipped: " + why;
          fprintf(stderr, "%s: warning: psi %s ipb %d extra %d not measured: %s\n", kProg,
                  R.name, r.ipb, extra, why.c_str());
          c.rows.push_back(r);
          continue;
        }
        r.blocks_per_sm = per_sm;
        r.occupancy = (double)per_sm * r.block / d.max_threads_per_sm;
        if (R.kind == psi::Kind::kStore)
          KFX_CHECK(cudaMemsetAsync(pool, 0xff, pool_bytes, c.s)); /* NaN everywhere */
        /* One batch: `launches` launches back to back, each memory launch on
         * the next array of the pool. */
        auto batch = [&](const void *kernel, bool routine) {
          for (int i = 0; i < ps.launches; i++) {
            size_t slot = pooled ? next_slot++ % slots : 0;
            psi::Args a = {pooled ? pool + slot * stride : nullptr, ps.n, r.ipb, sentinel};
            void *args[] = {&a};
            KFX_CHECK(cudaLaunchKernel(kernel, dim3(grid), dim3((unsigned)r.block), args,
                                       r.dyn_shared, c.s));
            if (routine)
              last_slot = slot;
          }
        };
        r.t = time_runs([&] { batch(kernel, true); }, ps.warmup, ps.batches, c.s);
        r.harness = time_runs([&] { batch(harness, false); }, ps.warmup, ps.batches, c.s);
        for (Timing *t : {&r.t, &r.harness}) {
          t->median /= ps.launches;
          t->min /= ps.launches;
          t->max /= ps.launches;
        }
        if (kf_cal_psi_seconds(r.t.median, r.harness.median, &r.psi) != 0)
          die("psi %s ipb %d extra %d: a time is not a number", R.name, r.ipb, extra);
        unsigned hits = 0;
        KFX_CHECK(cudaMemcpyAsync(&hits, sentinel, sizeof hits, cudaMemcpyDeviceToHost, c.s));
        KFX_CHECK(cudaStreamSynchronize(c.s));
        if (hits)
          die("psi %s ipb %d extra %d: %u results were the impossible value %g", R.name, r.ipb,
              extra, hits, (double)psi::kSentinel);
        if (R.kind == psi::Kind::kStore) {
          KFX_CHECK(cudaMemsetAsync(wrong, 0, sizeof *wrong, c.s));
          psi::count_wrong_values<<<d.sm_count * 4, 256, 0, c.s>>>(pool + last_slot * stride,
                                                                  array_floats, wrong);
          KFX_CHECK_LAUNCH();
          unsigned long long bad = 0;
          KFX_CHECK(cudaMemcpyAsync(&bad, wrong, sizeof bad, cudaMemcpyDeviceToHost, c.s));
          KFX_CHECK(cudaStreamSynchronize(c.s));
          if (bad)
            die("psi %s ipb %d extra %d: %llu of %zu floats stored wrong", R.name, r.ipb, extra,
                bad, array_floats);
        }
        lo = std::min(lo, r.psi);
        hi = std::max(hi, r.psi);
        measured++;
        c.rows.push_back(r);
      }
    if (measured)
      fprintf(stderr, "%s: psi %-11s ipb %d..%d: %.3g..%.3g us\n", kProg, R.name, ipbs[0],
              ipbs[nipb - 1], lo * 1e6, hi * 1e6);
  }
  KFX_CHECK(cudaFree(pool));
  KFX_CHECK(cudaFree(sentinel));
  KFX_CHECK(cudaFree(wrong));
}

/* Writes the psi rows of c.rows to --psi FILE as problem-file psi lines with
 * a header that says what they are, and checks that they parse. */
void write_psi(const Ctx &c, const PsiSettings &ps)
{
  const Device &d = c.d;
  std::vector<kf_cal_psi_t> entries;
  int skipped = 0;
  for (const Row &r : c.rows) {
    if (r.kind != "psi")
      continue;
    if (!r.note.empty())
      skipped++;
    else
      entries.push_back({r.routine.c_str(), r.ipb, r.extra_shared, r.psi});
  }
  if (entries.empty())
    die("psi: no configuration could be measured");
  /* Block dispatch, per (IPB, extra shared): the cheapest harness of that
   * configuration minus a lone launch. psi leaves it out of every routine;
   * the model charges it once per group, overlapped with the work. */
  std::map<std::pair<int, int>, double> harness;
  for (const Row &r : c.rows)
    if (r.kind == "psi" && r.note.empty()) {
      auto key = std::make_pair(r.ipb, r.extra_shared);
      auto it = harness.find(key);
      if (it == harness.end() || r.harness.median < it->second)
        harness[key] = r.harness.median;
    }
  for (auto &[key, h_s] : harness) {
    double s = 0;
    if (kf_cal_psi_seconds(h_s, c.psi_launch, &s) != 0)
      die("psi dispatch ipb %d extra %d: a time is not a number", key.first, key.second);
    entries.push_back({"dispatch", key.first, key.second, s});
  }
  std::string h;
  h += "kfuse psi tables measured by kfuse-calibrate (docs/calibrate.md, \"psi tables\")\n";
  h += fmt("device %d: %s, sm_%d%d, %d SMs, L2 %d MiB\n", d.id, d.prop.name, d.prop.major,
           d.prop.minor, d.sm_count, d.l2_bytes >> 20);
  h += fmt("date: %s; driver %s, runtime %s\n", utc_now().c_str(), version(d.driver).c_str(),
           version(d.runtime).c_str());
  h += "command: " + c.command + "\n";
  h += fmt("instances: %lld per launch; a problem file using this table should say\n"
           "`instances %lld`: psi is the time of all of them, not per instance\n",
           ps.n, ps.n);
  h += "psi ROUTINE IPB EXTRA_SHARED SECONDS: one launch of the routine over all instances\n"
       "minus the same launch of its harness (the kernel without the routine), clamped at 0;\n"
       "no launch overhead (the psi model adds the profile's launch_overhead per group)\n"
       "psi dispatch IPB EXTRA_SHARED SECONDS: the blocks' dispatch, which the above leave out:\n"
       "the cheapest harness of that configuration minus a lone <<<1, 32>>> launch; the\n"
       "model takes max(memory, compute, dispatch) per group\n";
  if (ps.block)
    h += fmt("IPB: instances per block, in blocks of %d threads (fused-block below: kfuse's\n"
             "fused kernels across granularities), a compute routine with more threads\n"
             "(IPB x threads per instance) looping over them; EXTRA_SHARED: bytes of dynamic\n"
             "shared memory per block allocated beyond the routine's own staging, unused\n",
             ps.block);
  else
    h += "IPB: instances per block; compute routines run IPB x (threads per instance) threads\n"
         "per block, memory routines max(32, IPB) (the seed paper's blocks); EXTRA_SHARED:\n"
         "bytes of dynamic shared memory per block allocated beyond the routine's own\n"
         "staging, unused\n";
  if (ps.context)
    h += "compute routines in context (--psi-context): each between a load of its operands\n"
         "from global memory and a store of its result, its harness the same copies without\n"
         "it: psi is what the routine adds to a fused kernel bound by memory\n";
  h += fmt("run: %s, median of %d batches of %d launches after %d warm-up batch; an empty\n"
           "<<<1, 32>>> launch took %.4g s in such batches\n",
           c.o.quick ? "--quick" : "full", ps.batches, ps.launches, ps.warmup, c.psi_launch);
  h += fmt("configurations not measured (could not launch): %d%s\n", skipped,
           skipped ? ", listed on stderr and in the --csv note column" : "");
  std::vector<char> text(256 * 1024 + entries.size() * 128);
  size_t len = 0;
  char err[256] = "";
  if (kf_cal_format_psi(entries.data(), entries.size(), h.c_str(), ps.block, text.data(),
                        text.size(), &len, err, sizeof err) != 0)
    die("psi table: %s", err);
  write_file(c.o.psi, text.data(), len);
  fprintf(stderr, "%s: wrote %s (%zu psi entries, parsed back as a problem file)\n", kProg,
          c.o.psi.c_str(), entries.size());
}

} // namespace

int main(int argc, char **argv)
{
  Ctx c;
  c.o = parse(argc, argv);
  for (int i = 0; i < argc; i++)
    c.command += (i ? " " : "") + std::string(argv[i]);
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    fprintf(stderr, "%s: no CUDA device: %s\n", kProg,
            e != cudaSuccess ? cudaGetErrorString(e) : "the driver reports 0 devices");
    return KFX_EXIT_NO_DEVICE;
  }
  if (c.o.device >= count) {
    fprintf(stderr, "%s: no CUDA device %d (%d present)\n", kProg, c.o.device, count);
    return KFX_EXIT_USAGE;
  }
  KFX_CHECK(cudaSetDevice(c.o.device));
  c.d = query_device(c.o.device);
  c.reps = c.o.reps ? c.o.reps : c.o.quick ? 5 : 20;
  c.warmup = c.o.quick ? 1 : 3;

  FILE *csv = nullptr;
  if (!c.o.csv.empty() && !(csv = fopen(c.o.csv.c_str(), "w")))
    die("cannot write %s: %s", c.o.csv.c_str(), strerror(errno));
  KFX_CHECK(cudaStreamCreateWithFlags(&c.s, cudaStreamNonBlocking));

  if (!c.o.psi_only)
    measure_profile(c);
  if (!c.o.psi.empty()) {
    PsiSettings ps = psi_settings(c.o);
    measure_psi(c, ps);
    write_psi(c, ps);
  }
  if (csv) {
    write_csv(c, csv);
    if (fclose(csv) != 0)
      die("cannot write %s", c.o.csv.c_str());
  }
  KFX_CHECK(cudaStreamDestroy(c.s));
  return 0;
}
