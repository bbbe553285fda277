/* The mapped function of Fousek, Filipovic and Madzin,
 *   F = ||A.B.v||_2 . (C.D + C),
 * as six map kernels with one thread per instance: A, B are 3x3 matrices, v
 * a 3-vector, C, D 5x5 matrices, single precision, stored instance by
 * instance (instance i's 3x3 matrix is floats [9i, 9i+9), row-major). Each
 * kernel reads its operands into registers first, so it loads every input
 * once. mf_launch() launches them in the order of
 * examples/plans/mapped-f.plan.
 *
 * Without a namespace of its own: kfuse-bench includes it inside the
 * namespace of each of its builds. */
#ifndef KFUSE_EXAMPLES_MAPPED_F_KERNELS_H
#define KFUSE_EXAMPLES_MAPPED_F_KERNELS_H

#include <kfuse/kfuse.h>

/* Floats per instance of each array. */
enum { MF_M33 = 9, MF_V3 = 3, MF_M55 = 25 };

/* ab = a . b for row-major n x n matrices in registers. */
template <int N> __device__ inline void mf_matmul(const float *a, const float *b, float *ab)
{
#pragma unroll
  for (int r = 0; r < N; r++)
#pragma unroll
    for (int c = 0; c < N; c++) {
      float s = a[N * r] * b[c];
#pragma unroll
      for (int k = 1; k < N; k++)
        s += a[N * r + k] * b[N * k + c];
      ab[N * r + c] = s;
    }
}

/* Loads instance i's m floats of p into registers. */
template <int M> __device__ inline void mf_load(const float *p, int i, float *r)
{
#pragma unroll
  for (int k = 0; k < M; k++)
    r[k] = p[(size_t)M * i + k];
}

template <int M> __device__ inline void mf_store(float *p, int i, const float *r)
{
#pragma unroll
  for (int k = 0; k < M; k++)
    p[(size_t)M * i + k] = r[k];
}

/* Instance i's work of each routine, by one thread: the kernels below, and
 * the programs that mark implementations of their own (tests/gpu/impl.cu,
 * kfuse-bench's mapped-f-impl), run these. */

/* AB = A . B */
__device__ inline void mf_mmul33_at(const float *A, const float *B, float *AB, int i)
{
  float a[9], b[9], ab[9];
  mf_load<9>(A, i, a);
  mf_load<9>(B, i, b);
  mf_matmul<3>(a, b, ab);
  mf_store<9>(AB, i, ab);
}

/* ABv = AB . v */
__device__ inline void mf_mvmul33_at(const float *AB, const float *v, float *ABv, int i)
{
  float m[9], x[3], y[3];
  mf_load<9>(AB, i, m);
  mf_load<3>(v, i, x);
#pragma unroll
  for (int r = 0; r < 3; r++)
    y[r] = m[3 * r] * x[0] + m[3 * r + 1] * x[1] + m[3 * r + 2] * x[2];
  mf_store<3>(ABv, i, y);
}

/* nrm = ||ABv||_2 */
__device__ inline void mf_norm3_at(const float *ABv, float *nrm, int i)
{
  float x[3];
  mf_load<3>(ABv, i, x);
  nrm[i] = sqrtf(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
}

/* CD = C . D */
__device__ inline void mf_mmul55_at(const float *C, const float *D, float *CD, int i)
{
  float c[25], d[25], cd[25];
  mf_load<25>(C, i, c);
  mf_load<25>(D, i, d);
  mf_matmul<5>(c, d, cd);
  mf_store<25>(CD, i, cd);
}

/* CDC = CD + C */
__device__ inline void mf_madd55_at(const float *CD, const float *C, float *CDC, int i)
{
  float x[25], c[25];
  mf_load<25>(CD, i, x);
  mf_load<25>(C, i, c);
#pragma unroll
  for (int k = 0; k < 25; k++)
    x[k] += c[k];
  mf_store<25>(CDC, i, x);
}

/* F = nrm . CDC */
__device__ inline void mf_smmul55_at(const float *nrm, const float *CDC, float *F, int i)
{
  float x[25];
  mf_load<25>(CDC, i, x);
  float s = nrm[i];
#pragma unroll
  for (int k = 0; k < 25; k++)
    x[k] *= s;
  mf_store<25>(F, i, x);
}

/* The six kernels, thread i < n on instance i. */
__global__ KFUSE_MAP void mf_mmul33(const float *A, const float *B, float *AB, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  mf_mmul33_at(A, B, AB, i);
}
__global__ KFUSE_MAP void mf_mvmul33(const float *AB, const float *v, float *ABv, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  mf_mvmul33_at(AB, v, ABv, i);
}
__global__ KFUSE_MAP void mf_norm3(const float *ABv, float *nrm, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  mf_norm3_at(ABv, nrm, i);
}
__global__ KFUSE_MAP void mf_mmul55(const float *C, const float *D, float *CD, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  mf_mmul55_at(C, D, CD, i);
}
__global__ KFUSE_MAP void mf_madd55(const float *CD, const float *C, float *CDC, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  mf_madd55_at(CD, C, CDC, i);
}
__global__ KFUSE_MAP void mf_smmul55(const float *nrm, const float *CDC, float *F, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  mf_smmul55_at(nrm, CDC, F, i);
}

/* The sequence, one thread per instance: what kfuse fuses. Static, so the
 * remarks name it per includer (and per namespace, in kfuse-bench). */
static inline void mf_launch(const float *A, const float *B, const float *v, const float *C,
                             const float *D, float *AB, float *ABv, float *nrm, float *CD,
                             float *CDC, float *F, int n, int block, cudaStream_t s)
{
  unsigned g = (unsigned)((n + block - 1) / block);
  mf_mmul33<<<g, block, 0, s>>>(A, B, AB, n);
  mf_mvmul33<<<g, block, 0, s>>>(AB, v, ABv, n);
  mf_norm3<<<g, block, 0, s>>>(ABv, nrm, n);
  mf_mmul55<<<g, block, 0, s>>>(C, D, CD, n);
  mf_madd55<<<g, block, 0, s>>>(CD, C, CDC, n);
  mf_smmul55<<<g, block, 0, s>>>(nrm, CDC, F, n);
}

#endif
