/* impl: several implementations of one function (kfuse_impl), launched as
 * a program writes them, with one thread per instance, and fused with the
 * implementations the planner chooses (the table of tests/gpu/impl.psi
 * forces its choice; tests/gpu/CMakeLists.txt passes it):
 *
 *   - the mapped function of Fousek, Filipovic and Madzin,
 *     F = ||A.B.v||_2 . (C.D + C), launched with one thread per instance
 *     and fused at 9, 3, 1, 5, 25 and 25 threads per instance;
 *   - a 3x3 chain whose product the program launches with nine threads
 *     per matrix and the fused kernel runs with one;
 *   - the same chain with the product's grid too small for its n: the
 *     runtime's `impl` check fails (KFUSE_STATS: layout), the originals run
 *     and compute what the program asked, the product of the instances its
 *     threads reach;
 *   - the mapped function again, its routines written with one thread per
 *     instance alone: the device pass derives their implementations with
 *     more threads per instance, and the table chooses 9, 3, 1, 5, 25, 25
 *     for one copy of it and 3, 3, 1, 5, 5, 5 for another;
 *   - the mapped function written with loops the compiler keeps: derived
 *     from the kernels' copies with their loops unrolled, at 3, 3, 1, 25,
 *     5 and 25;
 *   - a scaling per element, then a transpose per matrix whose 36-byte
 *     records the fused block stores from shared memory with consecutive
 *     threads (the Fused remark's "stores the records of").
 *
 * The implementations of each function compute each value with the same
 * operations in the same order, so fused and unfused agree bit for bit
 * (tools/gpu-check). n need not be a multiple of any block. */
#include "common.h"
#include "kfuse_example.h"
#include "mapped_f_kernels.h"

#include <cmath>
#include <vector>

/* The 3x3 product's element j % 9 of instance j / 9, by one of nine
 * threads: the same operations in the same order as mf_mmul33_at's for it. */
__device__ inline void product33_element(const float *A, const float *B, float *AB, int j)
{
  int i = j / 9, r = j % 9 / 3, c = j % 3;
  const float *a = &A[9 * i + 3 * r], *b = &B[9 * i + c];
  AB[j] = a[0] * b[0] + a[1] * b[3] + a[2] * b[6];
}

/* One thread per instance. */
__global__ KFUSE_IMPL("mmul33", 1) void i_mmul33(const float *A, const float *B, float *AB, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    mf_mmul33_at(A, B, AB, i);
}
__global__ KFUSE_IMPL("mvmul33", 1) void i_mvmul33(const float *AB, const float *v, float *ABv, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    mf_mvmul33_at(AB, v, ABv, i);
}
__global__ KFUSE_IMPL("norm3", 1) void i_norm3(const float *ABv, float *nrm, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    mf_norm3_at(ABv, nrm, i);
}
__global__ KFUSE_IMPL("mmul55", 1) void i_mmul55(const float *C, const float *D, float *CD, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    mf_mmul55_at(C, D, CD, i);
}
__global__ KFUSE_IMPL("madd55", 1) void i_madd55(const float *CD, const float *C, float *CDC, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    mf_madd55_at(CD, C, CDC, i);
}
__global__ KFUSE_IMPL("smmul55", 1) void i_smmul55(const float *nrm, const float *CDC, float *F, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    mf_smmul55_at(nrm, CDC, F, i);
}

/* Medium grain: a thread per element, row or vector component; each size
 * m counts the kernel's threads. */
__global__ KFUSE_IMPL("mmul33", 9) void i_mmul33_9(const float *A, const float *B, float *AB, int m)
{
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < m)
    product33_element(A, B, AB, j);
}
__global__ KFUSE_IMPL("mvmul33", 3) void i_mvmul33_3(const float *AB, const float *v, float *ABv, int m)
{
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= m)
    return;
  int i = j / 3;
  ABv[j] = AB[3 * j] * v[3 * i] + AB[3 * j + 1] * v[3 * i + 1] + AB[3 * j + 2] * v[3 * i + 2];
}
__global__ KFUSE_IMPL("mmul55", 5) void i_mmul55_5(const float *C, const float *D, float *CD, int m)
{
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= m)
    return;
  int i = j / 5;
  float c[5];
#pragma unroll
  for (int k = 0; k < 5; k++)
    c[k] = C[5 * j + k];
#pragma unroll
  for (int col = 0; col < 5; col++) {
    float s = c[0] * D[25 * i + col];
#pragma unroll
    for (int k = 1; k < 5; k++)
      s += c[k] * D[25 * i + 5 * k + col];
    CD[5 * j + col] = s;
  }
}
__global__ KFUSE_IMPL("madd55", 25) void i_madd55_25(const float *CD, const float *C, float *CDC, int m)
{
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < m)
    CDC[j] = CD[j] + C[j];
}
__global__ KFUSE_IMPL("smmul55", 25) void i_smmul55_25(const float *nrm, const float *CDC, float *F, int m)
{
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < m)
    F[j] = CDC[j] * nrm[j / 25];
}

/* The 3x3 chain: a product launched with nine threads per matrix (and its
 * one-thread implementation), a scaling per element, a trace per matrix. */
__global__ KFUSE_IMPL("prod33", 9) void i_prod33_9(const float *A, const float *B, float *C, int m)
{
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < m)
    product33_element(A, B, C, j);
}
__global__ KFUSE_IMPL("prod33", 1) void i_prod33(const float *A, const float *B, float *C, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    mf_mmul33_at(A, B, C, i);
}
__global__ KFUSE_IMPL("scale33", 9) void i_scale(const float *C, float *S, float alpha, int m)
{
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < m)
    S[j] = alpha * C[j];
}
__global__ KFUSE_IMPL("trace33", 1) void i_trace(const float *S, float *t, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    t[i] = S[9 * i] + S[9 * i + 4] + S[9 * i + 8];
}

/* The mapped function F of its six kernels P_mmul33 ... P_smmul55, each
 * with one thread per instance, its intermediates temporaries. */
#define MAPPED_F(P)                                                                             \
  static void P##_mapped_f(const float *A, const float *B, const float *v, const float *C,      \
                           const float *D, float *F, int n, int block, cudaStream_t s)          \
  {                                                                                             \
    float *AB, *ABv, *nrm, *CD, *CDC;                                                           \
    size_t bytes = (size_t)n * sizeof(float);                                                   \
    KFX_CHECK(cudaMallocAsync(&AB, 9 * bytes, s));                                              \
    KFX_CHECK(cudaMallocAsync(&ABv, 3 * bytes, s));                                             \
    KFX_CHECK(cudaMallocAsync(&nrm, bytes, s));                                                 \
    KFX_CHECK(cudaMallocAsync(&CD, 25 * bytes, s));                                             \
    KFX_CHECK(cudaMallocAsync(&CDC, 25 * bytes, s));                                            \
    unsigned g = kfx::grid_for(n, block);                                                       \
    P##_mmul33<<<g, block, 0, s>>>(A, B, AB, n);                                                \
    P##_mvmul33<<<g, block, 0, s>>>(AB, v, ABv, n);                                             \
    P##_norm3<<<g, block, 0, s>>>(ABv, nrm, n);                                                 \
    P##_mmul55<<<g, block, 0, s>>>(C, D, CD, n);                                                \
    P##_madd55<<<g, block, 0, s>>>(CD, C, CDC, n);                                              \
    P##_smmul55<<<g, block, 0, s>>>(nrm, CDC, F, n);                                            \
    KFX_CHECK(cudaFreeAsync(AB, s));                                                            \
    KFX_CHECK(cudaFreeAsync(ABv, s));                                                           \
    KFX_CHECK(cudaFreeAsync(nrm, s));                                                           \
    KFX_CHECK(cudaFreeAsync(CD, s));                                                            \
    KFX_CHECK(cudaFreeAsync(CDC, s));                                                           \
  }
MAPPED_F(i)

/* The mapped function again, its routines written with one thread per
 * instance alone: the device pass derives their implementations with more
 * threads per instance (kfuse_impl kernels whose thread writes several
 * values computed alike), and impl.psi makes the planner choose 9, 3, 1,
 * 5, 25 and 25 for the d_ set and 3, 3, 1, 5, 5 and 5 for the e_ set. */
#define DERIVED_SET(P)                                                                          \
  __global__ KFUSE_IMPL(#P "mmul33", 1) void P##_mmul33(const float *A, const float *B,         \
                                                        float *AB, int n)                       \
  {                                                                                             \
    int i = blockIdx.x * blockDim.x + threadIdx.x;                                              \
    if (i < n)                                                                                  \
      mf_mmul33_at(A, B, AB, i);                                                                \
  }                                                                                             \
  __global__ KFUSE_IMPL(#P "mvmul33", 1) void P##_mvmul33(const float *AB, const float *v,      \
                                                          float *ABv, int n)                    \
  {                                                                                             \
    int i = blockIdx.x * blockDim.x + threadIdx.x;                                              \
    if (i < n)                                                                                  \
      mf_mvmul33_at(AB, v, ABv, i);                                                             \
  }                                                                                             \
  __global__ KFUSE_IMPL(#P "norm3", 1) void P##_norm3(const float *ABv, float *nrm, int n)      \
  {                                                                                             \
    int i = blockIdx.x * blockDim.x + threadIdx.x;                                              \
    if (i < n)                                                                                  \
      mf_norm3_at(ABv, nrm, i);                                                                 \
  }                                                                                             \
  __global__ KFUSE_IMPL(#P "mmul55", 1) void P##_mmul55(const float *C, const float *D,         \
                                                        float *CD, int n)                       \
  {                                                                                             \
    int i = blockIdx.x * blockDim.x + threadIdx.x;                                              \
    if (i < n)                                                                                  \
      mf_mmul55_at(C, D, CD, i);                                                                \
  }                                                                                             \
  __global__ KFUSE_IMPL(#P "madd55", 1) void P##_madd55(const float *CD, const float *C,        \
                                                        float *CDC, int n)                      \
  {                                                                                             \
    int i = blockIdx.x * blockDim.x + threadIdx.x;                                              \
    if (i < n)                                                                                  \
      mf_madd55_at(CD, C, CDC, i);                                                              \
  }                                                                                             \
  __global__ KFUSE_IMPL(#P "smmul55", 1) void P##_smmul55(const float *nrm, const float *CDC,   \
                                                          float *F, int n)                      \
  {                                                                                             \
    int i = blockIdx.x * blockDim.x + threadIdx.x;                                              \
    if (i < n)                                                                                  \
      mf_smmul55_at(nrm, CDC, F, i);                                                            \
  }                                                                                             \
  MAPPED_F(P)
DERIVED_SET(d)
DERIVED_SET(e)
#undef DERIVED_SET

/* The mapped function once more, each routine's thread looping over its
 * instance's values in a loop the compiler keeps (`#pragma unroll 1`, as
 * code written to limit its size has it): the device pass reads each
 * kernel through a copy with its loop unrolled (ThreadLoops.h), derives the
 * implementations from that copy, and impl.psi chooses 3, 3, 1, 25, 5 and
 * 25 threads per instance. */
template <int N>
__device__ inline void l_product(const float *X, const float *Y, float *Z, int i)
{
#pragma unroll 1
  for (int o = 0; o < N * N; o++) {
    const int r = o / N, c = o % N;
    float s = X[N * N * i + N * r] * Y[N * N * i + c];
#pragma unroll
    for (int k = 1; k < N; k++)
      s += X[N * N * i + N * r + k] * Y[N * N * i + N * k + c];
    Z[N * N * i + o] = s;
  }
}
__global__ KFUSE_IMPL("lmmul33", 1) void l_mmul33(const float *A, const float *B, float *AB, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    l_product<3>(A, B, AB, i);
}
__global__ KFUSE_IMPL("lmvmul33", 1) void l_mvmul33(const float *AB, const float *v, float *ABv,
                                                   int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
#pragma unroll 1
  for (int r = 0; r < 3; r++)
    ABv[3 * i + r] = AB[9 * i + 3 * r] * v[3 * i] + AB[9 * i + 3 * r + 1] * v[3 * i + 1] +
                     AB[9 * i + 3 * r + 2] * v[3 * i + 2];
}
__global__ KFUSE_IMPL("lnorm3", 1) void l_norm3(const float *ABv, float *nrm, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    mf_norm3_at(ABv, nrm, i);
}
__global__ KFUSE_IMPL("lmmul55", 1) void l_mmul55(const float *C, const float *D, float *CD, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    l_product<5>(C, D, CD, i);
}
__global__ KFUSE_IMPL("lmadd55", 1) void l_madd55(const float *CD, const float *C, float *CDC,
                                                 int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
#pragma unroll 1
  for (int k = 0; k < 25; k++)
    CDC[25 * i + k] = CD[25 * i + k] + C[25 * i + k];
}
__global__ KFUSE_IMPL("lsmmul55", 1) void l_smmul55(const float *nrm, const float *CDC, float *F,
                                                   int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const float a = nrm[i];
#pragma unroll 1
  for (int k = 0; k < 25; k++)
    F[25 * i + k] = a * CDC[25 * i + k];
}
MAPPED_F(l)

/* U_i = S_i^T, one thread per 3x3 matrix. */
__global__ KFUSE_MAP void i_transpose(const float *S, float *U, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
#pragma unroll
  for (int r = 0; r < 3; r++)
#pragma unroll
    for (int c = 0; c < 3; c++)
      U[9 * i + 3 * c + r] = S[9 * i + 3 * r + c];
}

static void transposed(const float *A, float *S, float *U, int n, cudaStream_t s)
{
  i_scale<<<kfx::grid_for(9LL * n, 256), 256, 0, s>>>(A, S, 0.5f, 9 * n);
  i_transpose<<<kfx::grid_for(n, 128), 128, 0, s>>>(S, U, n);
}

/* The product over `reach` threads of nine per matrix: 9n covers them all. */
static void chain33(const float *A, const float *B, float *C, float *S, float *t, int n,
                    long long reach, cudaStream_t s)
{
  i_prod33_9<<<kfx::grid_for(reach, 256), 256, 0, s>>>(A, B, C, 9 * n);
  i_scale<<<kfx::grid_for(9LL * n, 128), 128, 0, s>>>(C, S, 0.75f, 9 * n);
  i_trace<<<kfx::grid_for(n, 256), 256, 0, s>>>(S, t, n);
}

int main(int argc, char **argv)
{
  kfx::Args a = kfx::parse_args(argc, argv, "impl", 1000003);
  kfx::require_device("impl");
  const size_t n = (size_t)a.n;
  kfx::Buf<float> A(9 * n), B(9 * n), v(3 * n), C(25 * n), D(25 * n), F(25 * n);
  kfx::Buf<float> Fd(25 * n), Fe(25 * n), Fl(25 * n);
  kfx::Buf<float> P(9 * n), S(9 * n), T(n), P2(9 * n), S2(9 * n), T2(n), P0(9 * n);
  kfx::Buf<float> SA(9 * n), U(9 * n);
  kfx::fill_uniform(A.h, a.seed, 1, -1.0, 1.0);
  kfx::fill_uniform(B.h, a.seed, 2, -1.0, 1.0);
  kfx::fill_uniform(v.h, a.seed, 3, -1.0, 1.0);
  kfx::fill_uniform(C.h, a.seed, 4, -1.0, 1.0);
  kfx::fill_uniform(D.h, a.seed, 5, -1.0, 1.0);
  kfx::fill_uniform(P0.h, a.seed, 6, -1.0, 1.0);
  for (auto *b : {&A, &B, &v, &C, &D, &P0})
    b->upload();
  cudaStream_t s;
  KFX_CHECK(cudaStreamCreate(&s));
  /* The short product's threads, a multiple of its blocks of 256, reach
   * fewer than half its 9n elements. */
  const long long reach = 9LL * (long long)(n / 2) / 256 * 256;

  auto check = [&] {
    std::vector<double> rF(25 * n), rS(9 * n), rT(n), rS2(9 * n), rT2(n), rU(9 * n);
    for (size_t i = 0; i < n; i++) {
      for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
          rU[9 * i + 3 * c + r] = 0.5 * A.h[9 * i + 3 * r + c];
      double ab[9], y[3], q = 0;
      for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) {
          double x = 0;
          for (int k = 0; k < 3; k++)
            x += (double)A.h[9 * i + 3 * r + k] * B.h[9 * i + 3 * k + c];
          ab[3 * r + c] = x;
          size_t j = 9 * i + 3 * r + c;
          rS[j] = 0.75 * x;
          rS2[j] = (long long)j < reach ? 0.75 * x : 0.75 * P0.h[j];
        }
      for (int r = 0; r < 3; r++) {
        y[r] = ab[3 * r] * v.h[3 * i] + ab[3 * r + 1] * v.h[3 * i + 1] +
               ab[3 * r + 2] * v.h[3 * i + 2];
        q += y[r] * y[r];
      }
      double nrm = std::sqrt(q);
      for (int r = 0; r < 5; r++)
        for (int c = 0; c < 5; c++) {
          double x = 0;
          for (int k = 0; k < 5; k++)
            x += (double)C.h[25 * i + 5 * r + k] * D.h[25 * i + 5 * k + c];
          rF[25 * i + 5 * r + c] = nrm * (x + C.h[25 * i + 5 * r + c]);
        }
      rT[i] = rS[9 * i] + rS[9 * i + 4] + rS[9 * i + 8];
      rT2[i] = rS2[9 * i] + rS2[9 * i + 4] + rS2[9 * i + 8];
    }
    bool ok = kfx::check_close("F", F.h.data(), rF.data(), 25 * n, 2e-4);
    ok = kfx::check_close("F derived 9,3,1,5,25,25", Fd.h.data(), rF.data(), 25 * n, 2e-4) && ok;
    ok = kfx::check_close("F derived 3,3,1,5,5,5", Fe.h.data(), rF.data(), 25 * n, 2e-4) && ok;
    ok = kfx::check_close("F derived from loops 3,3,1,25,5,25", Fl.h.data(), rF.data(), 25 * n,
                          2e-4) && ok;
    ok = kfx::check_close("S", S.h.data(), rS.data(), 9 * n, 4e-6) && ok;
    ok = kfx::check_close("t", T.h.data(), rT.data(), n, 1e-4) && ok;
    ok = kfx::check_close("S short", S2.h.data(), rS2.data(), 9 * n, 4e-6) && ok;
    ok = kfx::check_close("U", U.h.data(), rU.data(), 9 * n, 4e-6) && ok;
    return kfx::check_close("t short", T2.h.data(), rT2.data(), n, 1e-4) && ok;
  };
  int rc = kfx::run_and_report(
      "impl", a, s,
      (3 * (18.0 + 3 + 50 + 25) + 18 + 9 + 9 + 1 + 18 + 9 + 9 + 1 + 9 + 9 + 9) * sizeof(float) * n,
      [&] {
        KFX_CHECK(cudaMemcpyAsync(P2.d, P0.d, P0.bytes(), cudaMemcpyDeviceToDevice, s));
        i_mapped_f(A.d, B.d, v.d, C.d, D.d, F.d, (int)n, a.block, s);
        d_mapped_f(A.d, B.d, v.d, C.d, D.d, Fd.d, (int)n, a.block, s);
        e_mapped_f(A.d, B.d, v.d, C.d, D.d, Fe.d, (int)n, a.block, s);
        l_mapped_f(A.d, B.d, v.d, C.d, D.d, Fl.d, (int)n, a.block, s);
        chain33(A.d, B.d, P.d, S.d, T.d, (int)n, 9LL * (long long)n, s);
        chain33(A.d, B.d, P2.d, S2.d, T2.d, (int)n, reach, s);
        transposed(A.d, SA.d, U.d, (int)n, s);
      },
      check, F, Fd, Fe, Fl, S, T, S2, T2, U);
  KFX_CHECK(cudaStreamDestroy(s));
  return rc;
}
