/* granularity: map kernels over the same instances written at different
 * granularities, as small-matrix codes mix them: one thread per instance
 * for a product, one per element or per row for element-wise work, one per
 * instance again for a reduction. The fused kernels run several threads
 * per instance for some stages and one for others, and pass the
 * intermediates through shared memory (the Fused remark's "across
 * granularities"):
 *
 *   - a 3x3 chain: a product with one thread per matrix, a scaling with
 *     one thread per element (9n threads, its own grid and block), a trace
 *     with one thread per matrix; the product is a stream-ordered
 *     temporary, dead after the chain;
 *   - the same chain with the scaling stopping 4 elements short of 9n: the
 *     trace's last instance reads an element no thread wrote, from memory;
 *     the sizes no longer describe the same instances, so the runtime's
 *     guards fall back to the original launches (KFUSE_STATS: layout);
 *   - a 5x5 chain: an outer product with one thread per matrix, row sums
 *     with one thread per row (five per matrix), the largest row sum with
 *     one thread per matrix;
 *   - a per-instance scalar with one thread per instance, read by 25
 *     threads of each 5x5 matrix (`s[j / 25]`) scaling it element-wise;
 *   - pairs: a map with one thread per element over 2n elements, then one
 *     thread per pair summing them.
 *
 * n need not be a multiple of any block. Fused and unfused must agree bit
 * for bit (tools/gpu-check). */
#include "common.h"
#include "kfuse_example.h"

#include <algorithm>
#include <cmath>
#include <vector>

/* C = A . B, one thread per 3x3 matrix. */
__global__ KFUSE_MAP void g_mmul33(const float *A, const float *B, float *C, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float a[9], b[9];
#pragma unroll
  for (int k = 0; k < 9; k++) {
    a[k] = A[9 * i + k];
    b[k] = B[9 * i + k];
  }
#pragma unroll
  for (int r = 0; r < 3; r++)
#pragma unroll
    for (int c = 0; c < 3; c++)
      C[9 * i + 3 * r + c] = a[3 * r] * b[c] + a[3 * r + 1] * b[3 + c] + a[3 * r + 2] * b[6 + c];
}

/* S = alpha * C, one thread per element. */
__global__ KFUSE_MAP void g_scale(const float *C, float *S, float alpha, int m)
{
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < m)
    S[j] = alpha * C[j];
}

/* t = trace(S), one thread per matrix. */
__global__ KFUSE_MAP void g_trace(const float *S, float *t, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    t[i] = S[9 * i] + S[9 * i + 4] + S[9 * i + 8];
}

/* M = u . w^T for 5-vectors, one thread per 5x5 matrix. */
__global__ KFUSE_MAP void g_outer55(const float *u, const float *w, float *M, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float x[5], y[5];
#pragma unroll
  for (int k = 0; k < 5; k++) {
    x[k] = u[5 * i + k];
    y[k] = w[5 * i + k];
  }
#pragma unroll
  for (int r = 0; r < 5; r++)
#pragma unroll
    for (int c = 0; c < 5; c++)
      M[25 * i + 5 * r + c] = x[r] * y[c] - 0.25f;
}

/* rs[j] = sum |M row j|, one thread per row. */
__global__ KFUSE_MAP void g_rowsum(const float *M, float *rs, int rows)
{
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= rows)
    return;
  float s = 0;
#pragma unroll
  for (int k = 0; k < 5; k++)
    s += fabsf(M[5 * j + k]);
  rs[j] = s;
}

/* nrm[i] = max of matrix i's row sums (its infinity norm), one thread per matrix. */
__global__ KFUSE_MAP void g_maxrow(const float *rs, float *nrm, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float m = rs[5 * i];
#pragma unroll
  for (int k = 1; k < 5; k++)
    m = fmaxf(m, rs[5 * i + k]);
  nrm[i] = m;
}

/* w[j] = x[j]^2 + 1, one thread per element. */
__global__ KFUSE_MAP void g_square(const float *x, float *w, int m)
{
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < m)
    w[j] = x[j] * x[j] + 1.0f;
}

/* o[i] = w[2i] + w[2i+1], one thread per pair. */
__global__ KFUSE_MAP void g_pairsum(const float *w, float *o, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    o[i] = w[2 * i] + w[2 * i + 1];
}

/* s[i] = |v_i|^2, one thread per instance. */
__global__ KFUSE_MAP void g_sumsq(const float *v, float *s, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    s[i] = v[3 * i] * v[3 * i] + v[3 * i + 1] * v[3 * i + 1] + v[3 * i + 2] * v[3 * i + 2];
}

/* F = s_i . X_i for 5x5 matrices, one thread per element, each reading its
 * instance's scalar s[j / 25]. */
__global__ KFUSE_MAP void g_smul25(const float *s, const float *X, float *F, int m)
{
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < m)
    F[j] = s[j / 25] * X[j];
}

static void chain33(const float *A, const float *B, float *S, float *t, int n, int m, int block,
                    cudaStream_t s)
{
  float *C;
  KFX_CHECK(cudaMallocAsync(&C, sizeof(float) * 9 * (size_t)n, s));
  g_mmul33<<<kfx::grid_for(n, block), block, 0, s>>>(A, B, C, n);
  g_scale<<<kfx::grid_for(m, 256), 256, 0, s>>>(C, S, 0.75f, m);
  g_trace<<<kfx::grid_for(n, block), block, 0, s>>>(S, t, n);
  KFX_CHECK(cudaFreeAsync(C, s));
}

static void chain55(const float *u, const float *w, float *M, float *rs, float *nrm, int n,
                    int block, cudaStream_t s)
{
  g_outer55<<<kfx::grid_for(n, block), block, 0, s>>>(u, w, M, n);
  g_rowsum<<<kfx::grid_for(5LL * n, 128), 128, 0, s>>>(M, rs, 5 * n);
  g_maxrow<<<kfx::grid_for(n, block), block, 0, s>>>(rs, nrm, n);
}

static void scaled(const float *v, float *sq, const float *X, float *F, int n, int block,
                   cudaStream_t s)
{
  g_sumsq<<<kfx::grid_for(n, block), block, 0, s>>>(v, sq, n);
  g_smul25<<<kfx::grid_for(25LL * n, 256), 256, 0, s>>>(sq, X, F, 25 * n);
}

static void pairs(const float *x, float *w, float *o, int n, int block, cudaStream_t s)
{
  g_square<<<kfx::grid_for(2LL * n, block), block, 0, s>>>(x, w, 2 * n);
  g_pairsum<<<kfx::grid_for(n, block), block, 0, s>>>(w, o, n);
}

int main(int argc, char **argv)
{
  kfx::Args a = kfx::parse_args(argc, argv, "granularity", 1000003);
  kfx::require_device("granularity");
  const size_t n = (size_t)a.n;
  kfx::Buf<float> A(9 * n), B(9 * n), S(9 * n), S0(9 * n), T(n), S2(9 * n), T2(n);
  kfx::Buf<float> U(5 * n), W(5 * n), M(25 * n), RS(5 * n), N(n), X(2 * n), Y(2 * n), O(n);
  kfx::Buf<float> V3(3 * n), SQ(n), X25(25 * n), F25(25 * n);
  kfx::fill_uniform(A.h, a.seed, 1, -1.0, 1.0);
  kfx::fill_uniform(B.h, a.seed, 2, -1.0, 1.0);
  kfx::fill_uniform(S0.h, a.seed, 3, -1.0, 1.0);
  kfx::fill_uniform(U.h, a.seed, 4, -1.0, 1.0);
  kfx::fill_uniform(W.h, a.seed, 5, -1.0, 1.0);
  kfx::fill_uniform(X.h, a.seed, 6, -2.0, 2.0);
  kfx::fill_uniform(V3.h, a.seed, 7, -1.0, 1.0);
  kfx::fill_uniform(X25.h, a.seed, 8, -1.0, 1.0);
  for (auto *b : {&A, &B, &S0, &U, &W, &X, &V3, &X25})
    b->upload();
  cudaStream_t s;
  KFX_CHECK(cudaStreamCreate(&s));
  const int short_m = (int)(9 * n) - 4;

  auto check = [&] {
    std::vector<double> rS(9 * n), rT(n), rS2(9 * n), rT2(n), rM(25 * n), rRS(5 * n), rN(n),
        rY(2 * n), rO(n), rSQ(n), rF25(25 * n);
    for (size_t i = 0; i < n; i++) {
      for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) {
          double v = 0;
          for (int k = 0; k < 3; k++)
            v += (double)A.h[9 * i + 3 * r + k] * B.h[9 * i + 3 * k + c];
          rS[9 * i + 3 * r + c] = 0.75 * v;
          size_t j = 9 * i + 3 * r + c;
          rS2[j] = j < (size_t)short_m ? 0.75 * v : S0.h[j];
        }
      rT[i] = rS[9 * i] + rS[9 * i + 4] + rS[9 * i + 8];
      rT2[i] = rS2[9 * i] + rS2[9 * i + 4] + rS2[9 * i + 8];
      double mx = 0;
      for (int r = 0; r < 5; r++) {
        double sum = 0;
        for (int c = 0; c < 5; c++) {
          double v = (double)U.h[5 * i + r] * W.h[5 * i + c] - 0.25;
          rM[25 * i + 5 * r + c] = v;
          sum += std::fabs(v);
        }
        rRS[5 * i + r] = sum;
        mx = r ? std::max(mx, sum) : sum;
      }
      rN[i] = mx;
      for (int k = 0; k < 2; k++) {
        double x = X.h[2 * i + k];
        rY[2 * i + k] = x * x + 1;
      }
      rO[i] = rY[2 * i] + rY[2 * i + 1];
      double q = 0;
      for (int k = 0; k < 3; k++)
        q += (double)V3.h[3 * i + k] * V3.h[3 * i + k];
      rSQ[i] = q;
      for (int k = 0; k < 25; k++)
        rF25[25 * i + k] = q * X25.h[25 * i + k];
    }
    bool ok = kfx::check_close("S", S.h.data(), rS.data(), 9 * n, 4e-6);
    ok = kfx::check_close("t", T.h.data(), rT.data(), n, 1e-4) && ok;
    ok = kfx::check_close("S short", S2.h.data(), rS2.data(), 9 * n, 4e-6) && ok;
    ok = kfx::check_close("t short", T2.h.data(), rT2.data(), n, 1e-4) && ok;
    ok = kfx::check_close("M", M.h.data(), rM.data(), 25 * n, 4e-6) && ok;
    ok = kfx::check_close("rs", RS.h.data(), rRS.data(), 5 * n, 4e-6) && ok;
    ok = kfx::check_close("nrm", N.h.data(), rN.data(), n, 4e-6) && ok;
    ok = kfx::check_close("w", Y.h.data(), rY.data(), 2 * n, 4e-6) && ok;
    ok = kfx::check_close("sq", SQ.h.data(), rSQ.data(), n, 4e-6) && ok;
    ok = kfx::check_close("F25", F25.h.data(), rF25.data(), 25 * n, 8e-6) && ok;
    return kfx::check_close("o", O.h.data(), rO.data(), n, 4e-6) && ok;
  };
  int rc = kfx::run_and_report(
      "granularity", a, s,
      (18.0 + 9 + 9 + 1 + 18 + 9 + 9 + 1 + 10 + 25 + 5 + 1 + 3 + 1 + 25 + 25 + 2 + 2 + 1) *
          sizeof(float) * n,
      [&] {
        KFX_CHECK(cudaMemcpyAsync(S2.d, S0.d, S0.bytes(), cudaMemcpyDeviceToDevice, s));
        chain33(A.d, B.d, S.d, T.d, (int)n, (int)(9 * n), a.block, s);
        chain33(A.d, B.d, S2.d, T2.d, (int)n, short_m, a.block, s);
        chain55(U.d, W.d, M.d, RS.d, N.d, (int)n, a.block, s);
        scaled(V3.d, SQ.d, X25.d, F25.d, (int)n, a.block, s);
        pairs(X.d, Y.d, O.d, (int)n, a.block, s);
      },
      check, S, T, S2, T2, M, RS, N, Y, O, SQ, F25);
  KFX_CHECK(cudaStreamDestroy(s));
  return rc;
}
