/* The routines of the seed paper's mapped function F = ||A.B.v||_2 . (C.D + C)
 * (examples/plans/mapped-f.plan) as kernels that kfuse-calibrate times for the
 * psi tables of the table cost model (docs/calibrate.md, "psi tables").
 *
 * Fousek, Filipovic and Madzin write each elementary function as load
 * routines (global -> on-chip), a compute routine (on-chip -> on-chip, with a
 * given number of threads per instance) and store routines (on-chip ->
 * global), so that a fusion is the concatenation of its functions' routines
 * and its time can be predicted from the routines' times. Here:
 *
 * - Data is instance-major: instance i's 3x3 matrix is floats [9i, 9i + 9)
 *   of its array, row-major; a 3-vector [3i, 3i + 3), a scalar [i], a 5x5
 *   matrix [25i, 25i + 25).
 * - A block processes `ipb` consecutive instances (the last block fewer). Its
 *   staging area in dynamic shared memory holds, per operand, the block's
 *   instances in the same instance-major layout.
 * - A memory routine moves the block's contiguous chunk between global memory
 *   and its staging area with all threads of the block, consecutive threads
 *   on consecutive floats (coalesced).
 * - A compute routine with G threads per instance runs on virtual thread
 *   coordinates (instance = thread / G, part = thread % G; the block's
 *   threads loop over them where there are more), reads its
 *   operands from staging, writes its result to staging, and ends with a
 *   barrier so that the next routine may read any of it.
 *
 * Each timed kernel runs one routine for all instances, and has a twin, the
 * harness, which is the same kernel without the routine: psi is the
 * difference of their times, so that neither the launch nor the harness's
 * own work (initialising the inputs, the result check) is counted. */
#ifndef KFUSE_PSI_ROUTINES_CUH
#define KFUSE_PSI_ROUTINES_CUH

#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

namespace psi {

/* The kernels' one argument (one struct, so that the host can launch any of
 * them through cudaLaunchKernel from a table). */
struct Args {
  float *data;        /* memory routines: the global array of the launch */
  long long n;        /* instances */
  int ipb;            /* instances per block */
  unsigned *sentinel; /* counts results equal to kSentinel: must stay 0 */
};

/* Every value the kernels create is value_at(j) for some index j, in [1, 2);
 * every result of the routines is then positive, so a result equal to
 * kSentinel would mean a wrong computation. The check keeps each routine's
 * result live without a store per instance. */
constexpr float kSentinel = -1.0f;

__host__ __device__ inline float value_at(size_t j) { return 1.0f + (float)(j & 7) * 0.125f; }

__device__ inline void check_result(const Args &a, float v)
{
  if (v == kSentinel)
    atomicAdd(a.sentinel, 1u);
}

/* The block's first instance and how many it has (ipb, or fewer in the last). */
__device__ inline size_t first_instance(const Args &a) { return (size_t)blockIdx.x * a.ipb; }

__device__ inline int block_instances(const Args &a)
{
  long long left = a.n - (long long)first_instance(a);
  return left < a.ipb ? (int)left : a.ipb;
}

/* The memory routines: S floats per instance, the block's chunk of count * S
 * floats, all threads, consecutive threads on consecutive floats. Each thread
 * issues kInFlight accesses before it waits for any (a plain strided loop
 * has one in flight: every trip may be the last), as straight-line load code
 * for a few elements per thread would. */
constexpr int kInFlight = 4;

__device__ inline void copy_chunk(float *__restrict__ dst, const float *__restrict__ src, int n)
{
  const int step = blockDim.x;
  for (int k0 = threadIdx.x; k0 < n; k0 += kInFlight * step) {
    float v[kInFlight];
#pragma unroll
    for (int j = 0; j < kInFlight; j++)
      if (k0 + j * step < n)
        v[j] = src[k0 + j * step];
#pragma unroll
    for (int j = 0; j < kInFlight; j++)
      if (k0 + j * step < n)
        dst[k0 + j * step] = v[j];
  }
}

/* global g -> staging s */
template <int S> __device__ inline void load_routine(const float *g, float *s, int count)
{
  copy_chunk(s, g, count * S);
}

/* staging s -> global g */
template <int S> __device__ inline void store_routine(float *g, const float *s, int count)
{
  copy_chunk(g, s, count * S);
}

/* Which elements of a DxD result the thread with part `p` of G computes
 * (G = 1: all, row-major; G = D: row p; G = D*D: element p). The i-th of its
 * D*D/G elements is at row(p, i), col(p, i). */
template <int D, int G> struct Grain {
  static_assert(G == 1 || G == D || G == D * D, "1, D or D*D threads per instance");
  static constexpr int kPer = D * D / G;
  __device__ static int row(int p, int i) { return G == 1 ? i / D : G == D ? p : p / D; }
  __device__ static int col(int p, int i) { return G == 1 ? i % D : G == D ? i : p % D; }
};

/* The compute routines. Each names its threads per instance (kTpi), the
 * floats per instance of its two operands (kIn0, kIn1; 0 when it has one)
 * and of its result (kOut), its flops per instance, and run(x, y, out, p):
 * one instance's operands and result in staging, p the thread's part. */

/* out = x . y, DxD matrices (mmul33_c1/c3/c9, mmul55_c1/c5/c25). */
template <int D, int G> struct Mmul {
  static constexpr int kTpi = G, kIn0 = D * D, kIn1 = D * D, kOut = D * D;
  static constexpr double kFlops = D * D * (2.0 * D - 1);
  __device__ static void run(const float *x, const float *y, float *out, int p)
  {
#pragma unroll
    for (int i = 0; i < Grain<D, G>::kPer; i++) {
      int r = Grain<D, G>::row(p, i), c = Grain<D, G>::col(p, i);
      float s = x[r * D] * y[c];
#pragma unroll
      for (int k = 1; k < D; k++)
        s += x[r * D + k] * y[k * D + c];
      out[r * D + c] = s;
    }
  }
};

/* out = x + y, DxD matrices (madd55_c1/c5/c25). */
template <int D, int G> struct Madd {
  static constexpr int kTpi = G, kIn0 = D * D, kIn1 = D * D, kOut = D * D;
  static constexpr double kFlops = D * D;
  __device__ static void run(const float *x, const float *y, float *out, int p)
  {
#pragma unroll
    for (int i = 0; i < Grain<D, G>::kPer; i++) {
      int e = Grain<D, G>::row(p, i) * D + Grain<D, G>::col(p, i);
      out[e] = x[e] + y[e];
    }
  }
};

/* out = x . y, x a scalar, y a DxD matrix (smmul55_c1/c5/c25). */
template <int D, int G> struct Smmul {
  static constexpr int kTpi = G, kIn0 = 1, kIn1 = D * D, kOut = D * D;
  static constexpr double kFlops = D * D;
  __device__ static void run(const float *x, const float *y, float *out, int p)
  {
    const float s = x[0];
#pragma unroll
    for (int i = 0; i < Grain<D, G>::kPer; i++) {
      int e = Grain<D, G>::row(p, i) * D + Grain<D, G>::col(p, i);
      out[e] = s * y[e];
    }
  }
};

/* out = x . y, x a DxD matrix, y a D-vector (mvmul33_c1/c3): G = 1 computes
 * every row, G = D row p. */
template <int D, int G> struct Mvmul {
  static_assert(G == 1 || G == D, "1 or D threads per instance");
  static constexpr int kTpi = G, kIn0 = D * D, kIn1 = D, kOut = D;
  static constexpr double kFlops = D * (2.0 * D - 1);
  __device__ static void run(const float *x, const float *y, float *out, int p)
  {
#pragma unroll
    for (int i = 0; i < D / G; i++) {
      int r = G == 1 ? i : p;
      float s = x[r * D] * y[0];
#pragma unroll
      for (int k = 1; k < D; k++)
        s += x[r * D + k] * y[k];
      out[r] = s;
    }
  }
};

/* out = ||x||_2, x a D-vector (norm3_c1): D multiplies, D - 1 adds, a root. */
template <int D> struct Norm {
  static constexpr int kTpi = 1, kIn0 = D, kIn1 = 0, kOut = 1;
  static constexpr double kFlops = 2.0 * D;
  __device__ static void run(const float *x, const float *, float *out, int)
  {
    float s = x[0] * x[0];
#pragma unroll
    for (int k = 1; k < D; k++)
      s += x[k] * x[k];
    out[0] = sqrtf(s);
  }
};

/* The timed kernels. kRoutine false gives the harness: the same kernel, same
 * launch and shared memory, without the routine. */

/* A load routine: global -> staging, then a barrier (the next routine of a
 * fusion reads the staging), then each thread checks one loaded value. The
 * harness is an empty kernel: a load has no set-up. */
template <int S, bool kRoutine> __global__ void load_kernel(Args a)
{
  extern __shared__ float staging[];
  if (!kRoutine)
    return;
  const int count = block_instances(a);
  load_routine<S>(a.data + first_instance(a) * S, staging, count);
  __syncthreads();
  if ((int)threadIdx.x < count * S)
    check_result(a, staging[threadIdx.x]);
}

/* A store routine: the staging area is initialised from the global index
 * (value_at, as a preceding compute routine would leave it), a barrier, then
 * staging -> global. Each thread checks one staged value in both variants. */
template <int S, bool kRoutine> __global__ void store_kernel(Args a)
{
  extern __shared__ float staging[];
  const int count = block_instances(a);
  const size_t base = first_instance(a) * S;
  for (int k = threadIdx.x; k < count * S; k += blockDim.x)
    staging[k] = value_at(base + k);
  __syncthreads();
  if (kRoutine)
    store_routine<S>(a.data + base, staging, count);
  if ((int)threadIdx.x < count * S)
    check_result(a, staging[threadIdx.x]);
}

/* Runs routine R on the block's count instances in staging (operands x and
 * y, result out), its count x kTpi virtual threads over the block's threads
 * (one trip in blocks of ipb x kTpi; more in kfuse's fused blocks), then
 * its barrier. Returns out. */
template <class R>
__device__ inline const float *run_routine(const float *x, const float *y, float *out, int count)
{
  for (int v = threadIdx.x; v < count * R::kTpi; v += blockDim.x) {
    const int inst = v / R::kTpi, part = v % R::kTpi;
    R::run(x + inst * R::kIn0, y + inst * R::kIn1, out + inst * R::kOut, part);
  }
  __syncthreads();
  return out;
}

/* A compute routine: both operands' staging initialised from the index, a
 * barrier, the routine on its virtual thread coordinates (looping over the
 * block's threads where it has more; threads of instances past the last
 * idle), the routine's barrier, then each thread
 * checks one value of the result (the harness: of the operands). Staging:
 * operand 0 of all ipb instances, operand 1 of all, then the result. */
template <class R, bool kRoutine> __global__ void compute_kernel(Args a)
{
  extern __shared__ float staging[];
  const int ipb = a.ipb, count = block_instances(a);
  float *x = staging, *y = x + ipb * R::kIn0, *out = y + ipb * R::kIn1;
  const size_t base = first_instance(a) * (R::kIn0 + R::kIn1);
  for (int k = threadIdx.x; k < ipb * (R::kIn0 + R::kIn1); k += blockDim.x)
    x[k] = value_at(base + k);
  __syncthreads();
  const float *result = x;
  if (kRoutine)
    result = run_routine<R>(x, y, out, count);
  if ((int)threadIdx.x < count * R::kOut)
    check_result(a, result[threadIdx.x]);
}

/* A compute routine in context (kfuse-calibrate --psi-context): its
 * operands loaded from global memory into staging by the block's threads,
 * a barrier, the routine, its barrier, its result stored to global memory,
 * as in a fused kernel that is bound by memory; the harness moves the same
 * bytes without the routine (it stores the first operand's floats). ψ is
 * then what the routine adds to such a kernel: none of its work where the
 * memory traffic hides it, its latency where it holds the block. The launch's
 * array (a.data) is the instances' operands and results, one after the
 * other: n * kIn0 floats, n * kIn1, n * kOut. */
template <class R, bool kRoutine> __global__ void compute_ctx_kernel(Args a)
{
  extern __shared__ float staging[];
  const int ipb = a.ipb, count = block_instances(a);
  float *x = staging, *y = x + ipb * R::kIn0, *out = y + ipb * R::kIn1;
  const size_t first = first_instance(a);
  const float *gx = a.data, *gy = gx + (size_t)a.n * R::kIn0;
  float *gout = a.data + (size_t)a.n * (R::kIn0 + R::kIn1);
  copy_chunk(x, gx + first * R::kIn0, count * R::kIn0);
  if (R::kIn1)
    copy_chunk(y, gy + first * R::kIn1, count * R::kIn1);
  __syncthreads();
  const float *result = x;
  if (kRoutine)
    result = run_routine<R>(x, y, out, count);
  copy_chunk(gout + first * R::kOut, result, count * R::kOut);
}

/* Fills a memory routine's array: float j holds value_at(j). */
__global__ void fill_values(float *p, size_t n)
{
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += stride)
    p[j] = value_at(j);
}

/* Counts the floats of p[0..n) that are not value_at(j) (after a store). */
__global__ void count_wrong_values(const float *p, size_t n, unsigned long long *wrong)
{
  unsigned long long bad = 0;
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += stride)
    bad += p[j] != value_at(j);
  if (bad)
    atomicAdd(wrong, bad);
}

enum class Kind { kLoad, kStore, kCompute };

/* One routine as the host measures it. */
struct Routine {
  const char *name; /* as a problem file's psi= names it */
  Kind kind;
  int tpi;          /* threads per instance; memory routines: 1, at least a warp per block */
  int staging;      /* floats of staging per instance: the routine's own shared memory */
  int global;       /* floats per instance moved to or from global memory (memory routines) */
  double flops;     /* per instance (compute routines) */
  const void *kernel, *harness;
  /* Compute routines: the kernels in context (compute_ctx_kernel) and the
   * floats per instance of their array (operands and result). */
  const void *ctx_kernel, *ctx_harness;
  int ctx_global;
};

template <int S> Routine load(const char *name)
{
  return {name, Kind::kLoad, 1, S, S, 0, (const void *)load_kernel<S, true>,
          (const void *)load_kernel<S, false>, nullptr, nullptr, 0};
}

template <int S> Routine store(const char *name)
{
  return {name, Kind::kStore, 1, S, S, 0, (const void *)store_kernel<S, true>,
          (const void *)store_kernel<S, false>, nullptr, nullptr, 0};
}

template <class R> Routine compute(const char *name)
{
  return {name, Kind::kCompute, R::kTpi, R::kIn0 + R::kIn1 + R::kOut, 0, R::kFlops,
          (const void *)compute_kernel<R, true>, (const void *)compute_kernel<R, false>,
          (const void *)compute_ctx_kernel<R, true>, (const void *)compute_ctx_kernel<R, false>,
          R::kIn0 + R::kIn1 + R::kOut};
}

/* Every routine of mapped-f.plan, memory routines first. */
inline std::vector<Routine> routines()
{
  return {
    load<9>("load33"),   store<9>("store33"),   load<3>("load3"),     store<3>("store3"),
    load<1>("load1"),    store<1>("store1"),    load<25>("load55"),   store<25>("store55"),
    compute<Mmul<3, 1>>("mmul33_c1"),   compute<Mmul<3, 3>>("mmul33_c3"),
    compute<Mmul<3, 9>>("mmul33_c9"),   compute<Mvmul<3, 1>>("mvmul33_c1"),
    compute<Mvmul<3, 3>>("mvmul33_c3"), compute<Norm<3>>("norm3_c1"),
    compute<Mmul<5, 1>>("mmul55_c1"),   compute<Mmul<5, 5>>("mmul55_c5"),
    compute<Mmul<5, 25>>("mmul55_c25"), compute<Madd<5, 1>>("madd55_c1"),
    compute<Madd<5, 5>>("madd55_c5"),   compute<Madd<5, 25>>("madd55_c25"),
    compute<Smmul<5, 1>>("smmul55_c1"), compute<Smmul<5, 5>>("smmul55_c5"),
    compute<Smmul<5, 25>>("smmul55_c25"),
  };
}

} // namespace psi

#endif
