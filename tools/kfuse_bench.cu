/* kfuse-bench: for each workload, in one run, times the unfused launches,
 * the kfuse-fused launches, a hand-fused kernel and a device-to-device copy
 * of the same bytes (the bandwidth ceiling), after checking the results.
 * With --plans, times every plan the device pass built (-kfuse-plans=K)
 * against the cost model's prediction for it. */
#include "common.h"

#include <cuda_fp16.h>
#include "kfuse_bench.h"
#include "mapped_f_kernels.h"
#ifndef KB_NO_RT
#include "kfuse/rt.h"
#endif

#include <fstream>
#include <map>
#include <string>

namespace {

/* Hand-fused versions: one kernel per workload, computing every output the
 * launch sequence writes (intermediates included), with the same arithmetic. */
template <typename T> struct Outs {
  T *t[8];
};

template <typename T, int L>
__global__ void chain_hand(const T *x, const T *y, const T *z, Outs<T> o, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  T yv = y[i], zv = z[i], v = x[i];
#pragma unroll
  for (int j = 0; j < L; j++) {
    v = j % 2 == 0 ? (T)kb_coef[j] * v + yv : v * zv + (T)kb_coef[j];
    o.t[j][i] = v;
  }
}

__global__ void blas1_hand(const double *x, const double *y, const double *z, double *w1,
                           double *w2, double *o, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  double a = kb_blas_a * x[i] + y[i];
  double b = kb_blas_alpha * a + kb_blas_beta * z[i];
  w1[i] = a;
  w2[i] = b;
  o[i] = kb_blas_s * b;
}

__global__ void epilogue_hand(const float *x, const float *r, const float *bias, float *h1,
                              float *h2, float *h3, float *o, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = x[i] + bias[i % kb_epi_cols];
  float g = 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
  float h = kb_epi_s * g;
  h1[i] = v;
  h2[i] = g;
  h3[i] = h;
  o[i] = h + r[i];
}

template <typename T, int L>
void chain_hand_run(void *const *in, void *const *out, int n, int block, cudaStream_t s)
{
  Outs<T> o = {};
  for (int j = 0; j < L; j++)
    o.t[j] = (T *)out[j];
  chain_hand<T, L><<<kfx::grid_for(n, block), block, 0, s>>>((const T *)in[0], (const T *)in[1],
                                                             (const T *)in[2], o, n);
}

void blas1_hand_run(void *const *in, void *const *out, int n, int block, cudaStream_t s)
{
  blas1_hand<<<kfx::grid_for(n, block), block, 0, s>>>(
      (const double *)in[0], (const double *)in[1], (const double *)in[2], (double *)out[0],
      (double *)out[1], (double *)out[2], n);
}

void epilogue_hand_run(void *const *in, void *const *out, int n, int block, cudaStream_t s)
{
  epilogue_hand<<<kfx::grid_for(n, block), block, 0, s>>>(
      (const float *)in[0], (const float *)in[1], (const float *)in[2], (float *)out[0],
      (float *)out[1], (float *)out[2], (float *)out[3], n);
}

/* The mapped function in one kernel: every operand and result in registers. */
__global__ void mapped_f_hand(const float *A, const float *B, const float *v, const float *C,
                              const float *D, float *AB, float *ABv, float *nrm, float *CD,
                              float *CDC, float *F, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float a[9], b[9], ab[9], x[3], y[3];
  mf_load<9>(A, i, a);
  mf_load<9>(B, i, b);
  mf_matmul<3>(a, b, ab);
  mf_store<9>(AB, i, ab);
  mf_load<3>(v, i, x);
#pragma unroll
  for (int r = 0; r < 3; r++)
    y[r] = ab[3 * r] * x[0] + ab[3 * r + 1] * x[1] + ab[3 * r + 2] * x[2];
  mf_store<3>(ABv, i, y);
  float s = sqrtf(y[0] * y[0] + y[1] * y[1] + y[2] * y[2]);
  nrm[i] = s;
  float c[25], d[25], cd[25];
  mf_load<25>(C, i, c);
  mf_load<25>(D, i, d);
  mf_matmul<5>(c, d, cd);
  mf_store<25>(CD, i, cd);
#pragma unroll
  for (int k = 0; k < 25; k++)
    cd[k] += c[k];
  mf_store<25>(CDC, i, cd);
#pragma unroll
  for (int k = 0; k < 25; k++)
    cd[k] *= s;
  mf_store<25>(F, i, cd);
}

void mapped_f_hand_run(void *const *in, void *const *out, int n, int block, cudaStream_t s)
{
  const float *const *i = (const float *const *)in;
  float *const *o = (float *const *)out;
  mapped_f_hand<<<kfx::grid_for(n, block), block, 0, s>>>(i[0], i[1], i[2], i[3], i[4], o[0],
                                                           o[1], o[2], o[3], o[4], o[5], n);
}

/* The image, field, grid-stride and activation workloads by hand: one
 * kernel each, in the same shape as the workload's (dim3 launches, a
 * grid-stride loop), writing every output. */
__global__ void image2d_hand(const float *in, float *t, float *u, float *o, int w, int h)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h)
    return;
  size_t c = (size_t)y * w + x;
  float a = in[c] * 1.25f - 0.1f, b = (a - 0.5f) * 1.5f + 0.5f;
  t[c] = a;
  u[c] = b;
  o[c] = b < 0.0f ? 0.0f : (b > 1.0f ? 1.0f : b);
}

void image2d_hand_run(void *const *in, void *const *out, int n, int block, cudaStream_t s)
{
  int w = kb_img_w, h = n / kb_img_w;
  dim3 b(32, 8), g((w + 31) / 32, (h + 7) / 8);
  (void)block;
  image2d_hand<<<g, b, 0, s>>>((const float *)in[0], (float *)out[0], (float *)out[1],
                               (float *)out[2], w, h);
}

__global__ void field3d_hand(const double *u, const double *v, double *r, double *u1, int nx,
                             int ny, int nz)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y,
      k = blockIdx.z * blockDim.z + threadIdx.z;
  if (i >= nx || j >= ny || k >= nz)
    return;
  size_t c = ((size_t)k * ny + j) * nx + i;
  double x = u[c], q = 2.5 * x * (1.0 - x);
  r[c] = q;
  u1[c] = x + 0.01 * (q - 0.75 * v[c]);
}

void field3d_hand_run(void *const *in, void *const *out, int n, int block, cudaStream_t s)
{
  int nx = kb_fld_nx, ny = kb_fld_ny, nz = n / (kb_fld_nx * kb_fld_ny);
  dim3 b(32, 4, 2), g((nx + 31) / 32, (ny + 3) / 4, (nz + 1) / 2);
  (void)block;
  field3d_hand<<<g, b, 0, s>>>((const double *)in[0], (const double *)in[1], (double *)out[0],
                               (double *)out[1], nx, ny, nz);
}

__global__ void gridstride_hand(const float *x, const float *y, float *t, float *o, float *p,
                                int n)
{
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    float yv = y[i], a = (float)kb_coef[0] * x[i] + yv, b = a * yv + (float)kb_coef[1];
    t[i] = a;
    o[i] = b;
    p[i] = b * b;
  }
}

void gridstride_hand_run(void *const *in, void *const *out, int n, int block, cudaStream_t s)
{
  gridstride_hand<<<kb_grid_stride_blocks(), block, 0, s>>>(
      (const float *)in[0], (const float *)in[1], (float *)out[0], (float *)out[1],
      (float *)out[2], n);
}

/* gridnest fused by hand: one nest, the three values of an element at once. */
__global__ void gridnest_hand(const float *x, const float *y, float *t, float *o, float *p, int w,
                              int h)
{
  for (int r = blockIdx.y * blockDim.y + threadIdx.y; r < h; r += blockDim.y * gridDim.y)
    for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < w; c += blockDim.x * gridDim.x) {
      int i = r * w + c;
      float yv = y[i], a = (float)kb_coef[0] * x[i] + yv, b = a * yv + (float)kb_coef[1];
      t[i] = a;
      o[i] = b;
      p[i] = b * b;
    }
}

void gridnest_hand_run(void *const *in, void *const *out, int n, int block, cudaStream_t s)
{
  (void)block;
  gridnest_hand<<<kb_grid_nest_blocks(), dim3(32, 8), 0, s>>>(
      (const float *)in[0], (const float *)in[1], (float *)out[0], (float *)out[1],
      (float *)out[2], kb_img_w, n / kb_img_w);
}

/* The same fused by hand as its program writes its loops, unrolled 4 times. */
__global__ void gridstride_unroll_hand(const float *x, const float *y, float *t, float *o,
                                       float *p, int n)
{
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
#pragma unroll 4
  for (; i < (size_t)n; i += (size_t)blockDim.x * gridDim.x) {
    float yv = y[i], a = (float)kb_coef[0] * x[i] + yv, b = a * yv + (float)kb_coef[1];
    t[i] = a;
    o[i] = b;
    p[i] = b * b;
  }
}

void gridstride_unroll_hand_run(void *const *in, void *const *out, int n, int block,
                                cudaStream_t s)
{
  gridstride_unroll_hand<<<kb_grid_stride_blocks(), block, 0, s>>>(
      (const float *)in[0], (const float *)in[1], (float *)out[0], (float *)out[1],
      (float *)out[2], n);
}

__global__ void half_hand(const __half2 *x, const __half2 *y, __half2 *t, __half2 *u,
                          __half2 *o, int n2)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n2)
    return;
  __half2 xv = x[i], yv = y[i], a = __hfma2(xv, __float2half2_rn(2.0f), yv), b = __hmul2(a, xv);
  t[i] = a;
  u[i] = b;
  o[i] = __hadd2(b, yv);
}

void half_hand_run(void *const *in, void *const *out, int n, int block, cudaStream_t s)
{
  int n2 = n / 2;
  half_hand<<<kfx::grid_for(n2, block), block, 0, s>>>(
      (const __half2 *)in[0], (const __half2 *)in[1], (__half2 *)out[0], (__half2 *)out[1],
      (__half2 *)out[2], n2);
}

__global__ void activation_hand(const float *x, float *h, float *g, float *o, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float xv = x[i], a = sinf(xv) * 0.5f + xv, b = tanhf(a);
  h[i] = a;
  g[i] = b;
  o[i] = expf(b) * xv;
}

void activation_hand_run(void *const *in, void *const *out, int n, int block, cudaStream_t s)
{
  activation_hand<<<kfx::grid_for(n, block), block, 0, s>>>(
      (const float *)in[0], (float *)out[0], (float *)out[1], (float *)out[2], n);
}

/* The true hand-fused kernels of the temporaries workloads: what a
 * programmer writes, the intermediates in registers and never stored. */
template <int L>
__global__ void temps_hand(const float *x, const float *y, const float *z, float *o, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float yv = y[i], zv = z[i], v = x[i];
#pragma unroll
  for (int j = 0; j < L; j++)
    v = j % 2 == 0 ? (float)kb_coef[j] * v + yv : v * zv + (float)kb_coef[j];
  o[i] = v;
}

template <int L>
void temps_hand_run(void *const *in, void *const *out, int n, int block, cudaStream_t s)
{
  for (int step = 0; step < kb_temp_steps; step++)
    temps_hand<L><<<kfx::grid_for(n, block), block, 0, s>>>(
        (const float *)in[0], (const float *)in[1], (const float *)in[2], (float *)out[0], n);
}

__global__ void temps_blas1_hand(const double *x, const double *y, const double *z, double *o,
                                 int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  double a = kb_blas_a * x[i] + y[i];
  double b = kb_blas_alpha * a + kb_blas_beta * z[i];
  o[i] = kb_blas_s * b;
}

void temps_blas1_hand_run(void *const *in, void *const *out, int n, int block, cudaStream_t s)
{
  for (int step = 0; step < kb_temp_steps; step++)
    temps_blas1_hand<<<kfx::grid_for(n, block), block, 0, s>>>(
        (const double *)in[0], (const double *)in[1], (const double *)in[2], (double *)out[0], n);
}

/* The stream kernels as one: a read, c, b and a written once. */
__global__ void stream_hand(double *A, double *B, double *C, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  double a = A[i], c = a, b = kb_stream_s * c;
  c = a + b;
  a = b + kb_stream_s * c;
  a += b + kb_stream_s * c;
  A[i] = a, B[i] = b, C[i] = c;
}

void stream_hand_run(void *const *in, void *const *out, int n, int block, cudaStream_t s)
{
  (void)in;
  stream_hand<<<kfx::grid_for(n, block), block, 0, s>>>((double *)out[0], (double *)out[1],
                                                          (double *)out[2], n);
}

/* In the order of the workload table (kfuse_bench_workloads.cu). */
__global__ void horizontal_hand(const float *u, const float *v, const float *w, float *un,
                                float *vn, float *wn, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float wv = w[i];
  un[i] = (float)kb_coef[0] * u[i];
  vn[i] = v[i] + (float)kb_coef[1];
  wn[i] = wv * wv;
}

void horizontal_hand_run(void *const *in, void *const *out, int n, int block, cudaStream_t s)
{
  horizontal_hand<<<kfx::grid_for(n, block), block, 0, s>>>(
      (const float *)in[0], (const float *)in[1], (const float *)in[2], (float *)out[0],
      (float *)out[1], (float *)out[2], n);
}

/* The split workload written by hand: one thread per face, which also
 * updates its cell where there is one. */
__global__ void split_hand(const float *u, const float *v, const float *w, float *un, float *vn,
                           float *wn, int n)
{
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= 2 * n)
    return;
  vn[j] = v[j] + (float)kb_coef[1];
  if (j < n) {
    un[j] = (float)kb_coef[0] * u[j];
    wn[j] = w[j] * w[j];
  }
}

void split_hand_run(void *const *in, void *const *out, int n, int block, cudaStream_t s)
{
  split_hand<<<kfx::grid_for(2 * n, block), block, 0, s>>>(
      (const float *)in[0], (const float *)in[1], (const float *)in[2], (float *)out[0],
      (float *)out[1], (float *)out[2], n);
}

/* The halo workload written by hand: each thread computes the flux of its
 * neighbours itself, and nothing but o reaches memory. */
__global__ void halo_hand(const float *u, float *o, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const float c = (float)kb_coef[0], hi = (float)kb_coef[1];
  float w;
  if (i == 0 || i == n - 1) {
    w = u[i];
  } else {
    float ul = u[i - 1], ur = u[i + 1];
    float fl = 0.5f * ul * ul, fr = 0.5f * ur * ur;
    w = 0.5f * (ul + ur) - c * (fr - fl);
  }
  o[i] = fminf(fmaxf(w, -hi), hi);
}

void halo_hand_run(void *const *in, void *const *out, int n, int block, cudaStream_t s)
{
  for (int step = 0; step < kb_temp_steps; step++)
    halo_hand<<<kfx::grid_for(n, block), block, 0, s>>>((const float *)in[0], (float *)out[0], n);
}

/* The heat2d workload written by hand, as a CUDA programmer fuses a
 * stencil of a stencil: each thread computes the heat step of its cell and
 * of its four neighbours itself (the 13 cells of u they read, from the
 * caches), and nothing but o reaches memory. */
__device__ static float heat_hand_un(const float *u, int x, int y, int w, int h)
{
  int i = y * w + x;
  if (x == 0 || y == 0 || x == w - 1 || y == h - 1)
    return u[i];
  return u[i] + (float)kb_coef[4] * 0.25f * (u[i - 1] + u[i + 1] + u[i - w] + u[i + w] - 4.0f * u[i]);
}
__global__ void heat2d_hand(const float *u, float *o, int w, int h)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h)
    return;
  float c = heat_hand_un(u, x, y, w, h), lap = 0.0f;
  if (!(x == 0 || y == 0 || x == w - 1 || y == h - 1))
    lap = heat_hand_un(u, x - 1, y, w, h) + heat_hand_un(u, x + 1, y, w, h) +
          heat_hand_un(u, x, y - 1, w, h) + heat_hand_un(u, x, y + 1, w, h) - 4.0f * c;
  o[y * w + x] = c + 0.125f * lap;
}

void heat2d_hand_run(void *const *in, void *const *out, int n, int block, cudaStream_t s)
{
  int w = kb_img_w, h = n / kb_img_w;
  dim3 b(32, 8), g((w + 31) / 32, (h + 7) / 8);
  (void)block;
  for (int step = 0; step < kb_temp_steps; step++)
    heat2d_hand<<<g, b, 0, s>>>((const float *)in[0], (float *)out[0], w, h);
}

/* The reorder workload written by hand: one kernel computes the update and
 * the monitor of each cell, the flux and the source in registers. */
__global__ void reorder_hand(const float *u, const float *s0, float *o, float *m, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float x = u[i], t = 0.5f * x * x;
  o[i] = x - 0.125f * t + 0.25f * s0[i];
  m[i] = fabsf(x);
}

void reorder_hand_run(void *const *in, void *const *out, int n, int block, cudaStream_t s)
{
  reorder_hand<<<kfx::grid_for(n, block), block, 0, s>>>(
      (const float *)in[0], (const float *)in[1], (float *)out[0], (float *)out[1], n);
}

/* The mapped function with temporaries as a performance programmer writes
 * it: one thread per instance, 128 per block, the block's records loaded
 * and stored with consecutive threads through shared memory, the products
 * from registers. */
constexpr int kb_mf_block = 128;
__global__ void __launch_bounds__(kb_mf_block)
    mapped_f_temps_hand(const float *A, const float *B, const float *v, const float *C,
                        const float *D, float *F, int n)
{
  __shared__ float sA[9 * kb_mf_block], sB[9 * kb_mf_block], sv[3 * kb_mf_block];
  __shared__ float sC[25 * kb_mf_block], sD[25 * kb_mf_block];
  const int t = threadIdx.x;
  const size_t base = (size_t)blockIdx.x * kb_mf_block;
  const int cnt = (int)min((size_t)kb_mf_block, (size_t)n - base);
  for (int e = t; e < 9 * cnt; e += kb_mf_block)
    sA[e] = A[9 * base + e], sB[e] = B[9 * base + e];
  for (int e = t; e < 3 * cnt; e += kb_mf_block)
    sv[e] = v[3 * base + e];
  for (int e = t; e < 25 * cnt; e += kb_mf_block)
    sC[e] = C[25 * base + e], sD[e] = D[25 * base + e];
  __syncthreads();
  float f[25];
  if (t < cnt) {
    float a[9], b[9], ab[9], c[25], d[25], cd[25];
#pragma unroll
    for (int k = 0; k < 9; k++)
      a[k] = sA[9 * t + k], b[k] = sB[9 * t + k];
    mf_matmul<3>(a, b, ab);
    float y[3];
#pragma unroll
    for (int r = 0; r < 3; r++)
      y[r] = ab[3 * r] * sv[3 * t] + ab[3 * r + 1] * sv[3 * t + 1] + ab[3 * r + 2] * sv[3 * t + 2];
    float s = sqrtf(y[0] * y[0] + y[1] * y[1] + y[2] * y[2]);
#pragma unroll
    for (int k = 0; k < 25; k++)
      c[k] = sC[25 * t + k], d[k] = sD[25 * t + k];
    mf_matmul<5>(c, d, cd);
#pragma unroll
    for (int k = 0; k < 25; k++)
      f[k] = (cd[k] + c[k]) * s;
  }
  __syncthreads();
  if (t < cnt)
#pragma unroll
    for (int k = 0; k < 25; k++)
      sC[25 * t + k] = f[k];
  __syncthreads();
  for (int e = t; e < 25 * cnt; e += kb_mf_block)
    F[25 * base + e] = sC[e];
}

void mapped_f_temps_hand_run(void *const *in, void *const *out, int n, int block,
                             cudaStream_t s)
{
  (void)block;
  const float *const *i = (const float *const *)in;
  mapped_f_temps_hand<<<kfx::grid_for(n, kb_mf_block), kb_mf_block, 0, s>>>(
      i[0], i[1], i[2], i[3], i[4], (float *)out[0], n);
}

/* The mixed-granularity 3x3 chain as a performance programmer writes it at
 * the paper's medium grain: 28 matrices per block of 252 threads, A and B
 * read with consecutive threads into shared memory, one thread per element
 * of the product and of S (stored coalesced), one per matrix for the trace
 * from shared memory. */
constexpr int kb_g33_ipb = 28;
__global__ void __launch_bounds__(9 * kb_g33_ipb)
    gran33_hand(const float *A, const float *B, float *S, float *t, int n)
{
  __shared__ float sA[9 * kb_g33_ipb], sB[9 * kb_g33_ipb], sS[9 * kb_g33_ipb];
  const int e = threadIdx.x;
  const size_t base = (size_t)blockIdx.x * kb_g33_ipb;
  const int cnt = (int)min((size_t)kb_g33_ipb, (size_t)n - base);
  if (e < 9 * cnt)
    sA[e] = A[9 * base + e], sB[e] = B[9 * base + e];
  __syncthreads();
  if (e < 9 * cnt) {
    int i = e / 9, r = e % 9 / 3, c = e % 3;
    const float *a = &sA[9 * i + 3 * r], *b = &sB[9 * i + c];
    float v = kb_gran_alpha * (a[0] * b[0] + a[1] * b[3] + a[2] * b[6]);
    S[9 * base + e] = v;
    sS[e] = v;
  }
  __syncthreads();
  if (e < cnt)
    t[base + e] = sS[9 * e] + sS[9 * e + 4] + sS[9 * e + 8];
}

void gran33_hand_run(void *const *in, void *const *out, int n, int block, cudaStream_t s)
{
  (void)block;
  gran33_hand<<<kfx::grid_for(n, kb_g33_ipb), 9 * kb_g33_ipb, 0, s>>>(
      (const float *)in[0], (const float *)in[1], (float *)out[0], (float *)out[1], n);
}

/* items fused by hand, as its author would: one loop over the thread's
 * values, t in a register. */
__global__ void items_hand(const float *x, const float *y, float *o, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
#pragma unroll 1
  for (int k = 0; k < kb_items; k++) {
    float v = x[kb_items * i + k], t = expf(-0.5f * v * v);
    o[kb_items * i + k] = t * y[kb_items * i + k] + t;
  }
}

void items_hand_run(void *const *in, void *const *out, int n, int block, cudaStream_t s)
{
  items_hand<<<kfx::grid_for(n, block), block, 0, s>>>((const float *)in[0],
                                                       (const float *)in[1], (float *)out[0], n);
}

const kb_seq_fn hand_runs[KB_NWORKLOADS] = {
    chain_hand_run<float, 2>,  chain_hand_run<float, 4>,  chain_hand_run<float, 8>,
    chain_hand_run<double, 2>, chain_hand_run<double, 4>, chain_hand_run<double, 8>,
    blas1_hand_run,            epilogue_hand_run,         mapped_f_hand_run,
    image2d_hand_run,          field3d_hand_run,          gridstride_hand_run,
    activation_hand_run,       half_hand_run,             temps_hand_run<2>,
    temps_hand_run<4>,         temps_hand_run<5>,         temps_hand_run<8>,
    temps_blas1_hand_run,      stream_hand_run,           horizontal_hand_run,
    split_hand_run,            halo_hand_run,             heat2d_hand_run,
    reorder_hand_run,          mapped_f_temps_hand_run,   gran33_hand_run,
    mapped_f_temps_hand_run,   mapped_f_temps_hand_run,   mapped_f_temps_hand_run,
    mapped_f_temps_hand_run,   items_hand_run,            temps_hand_run<4>,
    temps_hand_run<4>,         gridstride_unroll_hand_run, gridstride_hand_run,
    gridnest_hand_run,
};

/* Instances of w the main table runs for n. */
size_t instances(const kb_workload &w, long long n)
{
  return (size_t)(w.n_div > 1 ? n / w.n_div : n);
}

/* Where the arrays of w over n instances lie: element offsets of the inputs
 * from the input base and of the outputs from the output base, back to
 * back; in[nin] and out[nout] are the totals. */
struct Layout {
  size_t in[KB_MAXIN + 1], out[KB_MAXOUT + 1];
};

Layout layout(const kb_workload &w, size_t n)
{
  Layout L = {};
  for (int j = 0; j < w.nin; j++)
    L.in[j + 1] = L.in[j] + n * (w.width ? w.width[j] : 1);
  for (int k = 0; k < w.nout; k++)
    L.out[k + 1] = L.out[k] + n * (w.width ? w.width[w.nin + k] : 1);
  return L;
}

/* Input ranges per workload kind: positive data keeps the chains free of
 * cancellation; the epilogue gets GELU's interesting range. */
template <typename T>
__global__ void fill_kernel(T *p, size_t n, uint64_t base, double lo, double hi)
{
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = kfx::uniform_at<T>(base, i, lo, hi);
}

__global__ void fill_half_kernel(__half *p, size_t n, uint64_t base, double lo, double hi)
{
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = __float2half(kfx::uniform_at<float>(base, i, lo, hi));
}

void fill(const kb_workload &w, void *p, size_t n, uint64_t seed, int tag, bool epilogue)
{
  double lo = epilogue && tag == 0 ? -3.0 : 0.5, hi = epilogue && tag == 0 ? 3.0 : 1.5;
  uint64_t base = kfx::uniform_base(seed, (uint64_t)tag);
  unsigned grid = (unsigned)((n + 255) / 256);
  if (w.elem == 2)
    fill_half_kernel<<<grid, 256>>>((__half *)p, n, base, lo, hi);
  else if (w.elem == 4)
    fill_kernel<float><<<grid, 256>>>((float *)p, n, base, lo, hi);
  else
    fill_kernel<double><<<grid, 256>>>((double *)p, n, base, lo, hi);
  KFX_CHECK_LAUNCH();
}

/* Points in[] and out[] at w's arrays and fills the inputs. */
void place(const kb_workload &w, const Layout &L, void *in_base, void *out_base, uint64_t seed,
           void **in, void **out)
{
  for (int j = 0; j < w.nin; j++) {
    in[j] = (char *)in_base + L.in[j] * w.elem;
    fill(w, in[j], L.in[j + 1] - L.in[j], seed, j, !strcmp(w.name, "epilogue"));
  }
  for (int k = 0; k < w.nout; k++)
    out[k] = (char *)out_base + L.out[k] * w.elem;
}

struct Options {
  long long n = 1 << 25;
  long long small_n = 1 << 16;
  int reps = 30;
  int warmup = 5;
  int block = 256;
  uint64_t seed = 1;
  bool n_given = false;
  std::string csv, only;
  std::vector<std::string> plans;
};

void usage(FILE *f)
{
  fprintf(f,
          "usage: kfuse-bench [--n N] [--small-n N] [--reps R] [--warmup W] [--block B]\n"
          "                   [--seed S] [--only NAME] [--csv FILE] [--plans REMARKS]\n"
          "  --n N        elements of the large runs (default 33554432: 128 MiB per f32 array;\n"
          "               image2d, field3d and half use the elements of whole rows, planes\n"
          "               and __half2 pairs)\n"
          "  --small-n N  elements of the launch-bound runs (default 65536; 0: skip them)\n"
          "  --reps R     timed repetitions, median reported (default 30, at least 20 advised)\n"
          "  --only NAME  only workloads whose name-dtype contains NAME (or one of\n"
          "               a comma-separated list of names)\n"
          "  --csv FILE   also write one CSV row per workload, size and variant\n"
          "  --plans REMARKS  instead, run every plan of each workload listed in REMARKS\n"
          "               (the -Rpass-analysis=kfuse output of a -kfuse-plans=K build:\n"
          "               kfuse-bench.plans, planned for 2^24 elements, and\n"
          "               kfuse-bench-64k.plans, for 2^16, next to this program; may be\n"
          "               repeated): check each bit for bit against unfused and time it;\n"
          "               n is the planned size unless --n\n"
          "Exits 1 when a check failed (kfuse vs unfused must be bit-identical), %d without a GPU.\n",
          KFX_EXIT_NO_DEVICE);
}

Options parse(int argc, char **argv)
{
  Options o;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
      usage(stdout);
      exit(0);
    }
    char name[64];
    const char *value = kfx::option_value(argc, argv, &i, name, sizeof name);
    std::string opt = name, val = value ? value : "";
    bool has = value != nullptr;
    long long v = 0;
    bool ok = has;
    if (opt == "--n" && ok) {
      ok = kfx::parse_ll(val.c_str(), 1, INT_MAX, &v);
      o.n = v;
      o.n_given = true;
    } else if (opt == "--small-n" && ok) {
      ok = kfx::parse_ll(val.c_str(), 0, INT_MAX, &v);
      o.small_n = v;
    } else if (opt == "--reps" && ok) {
      ok = kfx::parse_ll(val.c_str(), 1, 100000, &v);
      o.reps = (int)v;
    } else if (opt == "--warmup" && ok) {
      ok = kfx::parse_ll(val.c_str(), 0, 100000, &v);
      o.warmup = (int)v;
    } else if (opt == "--block" && ok) {
      ok = kfx::parse_ll(val.c_str(), 32, 1024, &v) && v % 32 == 0;
      o.block = (int)v;
    } else if (opt == "--seed" && ok) {
      ok = kfx::parse_ll(val.c_str(), 0, LLONG_MAX, &v);
      o.seed = (uint64_t)v;
    } else if (opt == "--csv" && ok && !val.empty()) {
      o.csv = val;
    } else if (opt == "--plans" && ok && !val.empty()) {
      o.plans.push_back(val);
    } else if (opt == "--only" && ok && !val.empty()) {
      o.only = val;
    } else {
      ok = false;
    }
    if (!ok) {
      fprintf(stderr, "kfuse-bench: bad argument '%s'\n", opt.c_str());
      usage(stderr);
      exit(KFX_EXIT_USAGE);
    }
  }
  return o;
}

/* Device buffers for the largest workload, allocated once. */
struct Arena {
  void *in = nullptr, *out = nullptr, *copy_src = nullptr, *copy_dst = nullptr;
  size_t in_bytes = 0, out_bytes = 0, copy_bytes = 0;
  std::vector<unsigned char> ref, got;

  Arena(size_t in_b, size_t out_b, size_t copy_b)
      : in_bytes(in_b), out_bytes(out_b), copy_bytes(copy_b), ref(out_b), got(out_b)
  {
    KFX_CHECK(cudaMalloc(&in, in_b));
    KFX_CHECK(cudaMalloc(&out, out_b));
    KFX_CHECK(cudaMalloc(&copy_src, copy_b));
    KFX_CHECK(cudaMalloc(&copy_dst, copy_b));
    KFX_CHECK(cudaMemset(copy_src, 0x3c, copy_b));
  }
  ~Arena()
  {
    cudaFree(in);
    cudaFree(out);
    cudaFree(copy_src);
    cudaFree(copy_dst);
  }
};

/* Runs seq once on poisoned outputs and copies all outputs to host. */
/* The outputs before a checked run: NaN bytes, the inout ones their inputs. */
void reset_outputs(const kb_workload &w, const Layout &L, void *const *in, void *const *out,
                   void *out_base, size_t out_bytes, cudaStream_t s)
{
  KFX_CHECK(cudaMemsetAsync(out_base, 0xff, out_bytes, s));
  for (int k = 0; k < w.inout; k++)
    KFX_CHECK(cudaMemcpyAsync(out[k], in[k], (L.in[k + 1] - L.in[k]) * w.elem,
                              cudaMemcpyDeviceToDevice, s));
}

void run_once(const kb_workload &w, const Layout &L, kb_seq_fn seq, void *const *in,
              void *const *out, size_t out_bytes, int n, int block, cudaStream_t s,
              void *out_base, unsigned char *host)
{
  reset_outputs(w, L, in, out, out_base, out_bytes, s);
  seq(in, out, n, block, s);
  KFX_CHECK_LAUNCH();
  KFX_CHECK(cudaStreamSynchronize(s));
  KFX_CHECK(cudaMemcpy(host, out_base, out_bytes, cudaMemcpyDeviceToHost));
}

/* Hand-fused against unfused: as close as two float (double) evaluations of
 * the same expressions can be; they are usually bit-identical. */
bool hand_close(const kb_workload &w, const unsigned char *got, const unsigned char *ref,
                const Layout &L)
{
  bool ok = true;
  for (int k = 0; k < w.nout; k++) {
    size_t at = L.out[k], n = L.out[k + 1] - at;
    if (w.elem == 2) { // half: as floats, within a half's rounding
      std::vector<float> g(n), r(n);
      for (size_t i = 0; i < n; i++) {
        g[i] = __half2float(((const __half *)got)[at + i]);
        r[i] = __half2float(((const __half *)ref)[at + i]);
      }
      kfx::Closeness c = kfx::compare(g.data(), r.data(), n, 2e-3);
      if (c.bad) {
        printf("#   hand-fused output %d: %zu elements off (max_rel_err %.3e)\n", k, c.bad,
               c.max_rel);
        ok = false;
      }
      continue;
    }
    kfx::Closeness c =
        w.elem == 4
            ? kfx::compare((const float *)got + at, (const float *)ref + at, n, 1e-5)
            : kfx::compare((const double *)got + at, (const double *)ref + at, n, 1e-12);
    if (c.bad) {
      printf("#   hand-fused output %d: %zu elements off (max_rel_err %.3e)\n", k, c.bad,
             c.max_rel);
      ok = false;
    }
  }
  return ok;
}

struct Row {
  std::string workload;
  long long n;
  int launches;
  double bytes;
  double unfused, fused, hand, copy; /* median ms per sequence */
  bool bitwise, hand_ok;
};

void csv_rows(FILE *f, const Row &r, const char *dtype)
{
  double copy_gbps = r.bytes / (r.copy * 1e6);
  struct {
    const char *variant;
    double ms;
  } v[] = {{"unfused", r.unfused}, {"kfuse", r.fused}, {"hand", r.hand}, {"copy", r.copy}};
  for (auto &x : v) {
    double gbps = r.bytes / (x.ms * 1e6);
    fprintf(f, "%s,%s,%lld,%d,%.0f,%s,%.5f,%.1f,%.3f,%.3f,%.3f,%s\n", r.workload.c_str(), dtype,
            r.n, r.launches, r.bytes, x.variant, x.ms, gbps, gbps / copy_gbps, r.unfused / x.ms,
            x.ms / r.hand, r.bitwise && r.hand_ok ? "ok" : "FAIL");
  }
  fflush(f);
}

/* One plan of a sequence, from the device pass's PlanAlternative remark:
 * "sequence S at SITE FN: plan R of K: predicted P ns: 0..1 2 3..7". */
struct PlanRow {
  std::string fn, spans;
  int rank = 0, count = 0;
  double predicted_ns = 0, elements = 0;
};

/* Reads the plan remarks of @p path; the element count the plans were made
 * for comes from the sequence's "planned N launches for E elements" line. */
bool read_plans(const std::string &path, std::vector<PlanRow> &rows)
{
  std::ifstream in(path);
  if (!in) {
    fprintf(stderr, "kfuse-bench: cannot read %s: %s\n", path.c_str(), strerror(errno));
    return false;
  }
  std::map<std::string, double> elements; /* by "SITE FN" */
  std::string line;
  while (std::getline(in, line)) {
    size_t at = line.find("sequence "), colon;
    if (at == std::string::npos || (at = line.find(" at ", at)) == std::string::npos ||
        (colon = line.find(": ", at)) == std::string::npos)
      continue;
    std::string where = line.substr(at + 4, colon - at - 4), rest = line.substr(colon + 2);
    double e;
    int r, k;
    char pred[32];
    if (sscanf(rest.c_str(), "planned %*d launches for %lf elements", &e) == 1) {
      elements[where] = e;
    } else if (sscanf(rest.c_str(), "plan %d of %d: predicted %31s ns: ", &r, &k, pred) == 3) {
      PlanRow p;
      size_t sp = where.rfind(' '), spans = rest.find(" ns: ");
      p.fn = sp == std::string::npos ? where : where.substr(sp + 1);
      p.rank = r;
      p.count = k;
      p.predicted_ns = atof(pred);
      p.spans = rest.substr(spans + 5);
      size_t tag = p.spans.find(" [-R");
      if (tag != std::string::npos)
        p.spans.erase(tag);
      auto it = elements.find(where);
      p.elements = it == elements.end() ? 0 : it->second;
      rows.push_back(p);
    }
  }
  if (rows.empty())
    fprintf(stderr, "kfuse-bench: %s holds no 'plan R of K' remarks (build with "
                    "-mllvm -kfuse-plans=K -Rpass-analysis=kfuse)\n", path.c_str());
  return !rows.empty();
}

/* Counts the 32-bit words where a and b differ. */
__global__ void diff_words(const uint32_t *a, const uint32_t *b, size_t n, unsigned long long *bad)
{
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && a[i] != b[i])
    atomicAdd(bad, 1ull);
}

/* Whether --only selects workload "name-dtype" \p name. */
bool selected(const Options &o, const std::string &name)
{
  if (o.only.empty())
    return true;
  for (size_t at = 0;;) {
    size_t end = o.only.find(',', at);
    std::string part = o.only.substr(at, end == std::string::npos ? end : end - at);
    if (!part.empty() && name.find(part) != std::string::npos)
      return true;
    if (end == std::string::npos)
      return false;
    at = end + 1;
  }
}

/* The temporaries workloads allocate stream-ordered, as applications do;
 * keep the pool's memory between calls, as applications that allocate in a
 * loop set it, so that each call does not pay for mapping fresh pages
 * (about 0.18 ms per 128 MiB buffer on an H100, the same for every variant
 * that allocates, and none for the hand-fused kernels, which need no
 * temporaries). */
void keep_pool_memory()
{
  int dev;
  cudaMemPool_t pool;
  uint64_t keep = UINT64_MAX;
  KFX_CHECK(cudaGetDevice(&dev));
  KFX_CHECK(cudaDeviceGetDefaultMemPool(&pool, dev));
  KFX_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
}

int run_plans(const Options &o)
{
#ifdef KB_NO_RT
  (void)o;
  fprintf(stderr, "kfuse-bench: --plans needs a build with libkfuse_rt\n");
  return 1;
#else
  std::vector<PlanRow> rows;
  for (const std::string &f : o.plans)
    if (!read_plans(f, rows))
      return 1;
  /* The two fused builds; a remark names the host function as the source
   * does, in quotes, its namespace telling the build. */
  struct Build {
    const kb_workload *w;
    const char *tag;
  } builds[] = {{kb_fused::workloads(), "'kb_fused::"}, {kb_small::workloads(), "'kb_small::"}};
  const kb_workload *uw = kb_unfused::workloads();
  cudaStream_t s;
  KFX_CHECK(cudaStreamCreate(&s));
  keep_pool_memory();
  FILE *csv = nullptr;
  if (!o.csv.empty() && !(csv = fopen(o.csv.c_str(), "w"))) {
    fprintf(stderr, "kfuse-bench: cannot write %s: %s\n", o.csv.c_str(), strerror(errno));
    return 1;
  }
  if (csv)
    fprintf(csv, "workload,dtype,n,launches,rank,plans,groups,predicted_ms,measured_ms,"
                 "pass_spread,check\n");
  printf("# every plan of each workload, checked bit for bit against unfused; measured_ms is the\n"
         "# faster of two passes' medians (%d reps after %d warm-up), spread how much slower the other was\n",
         o.reps, o.warmup);
  printf("%-14s %9s %4s %5s %12s %12s %7s  %-24s %s\n", "workload", "n", "rank", "plans",
         "predicted_ms", "measured_ms", "spread", "groups", "check");
  bool all_ok = true;
  size_t ntimed = 0;
  unsigned long long *bad;
  KFX_CHECK(cudaMalloc(&bad, sizeof *bad));
  for (const Build &b : builds)
  for (int k = 0; k < KB_NWORKLOADS; k++) {
    const kb_workload &w = uw[k];
    std::string name = std::string(w.name) + "-" + w.dtype;
    if (!selected(o, name))
      continue;
    std::vector<PlanRow> mine;
    for (const PlanRow &p : rows)
      if (p.fn == std::string(b.tag) + w.fn + "'")
        mine.push_back(p);
    if (mine.empty())
      continue;
    /* The instance count the plans were predicted for, unless --n says. */
    long long n = o.n_given ? (long long)instances(w, o.n) : (long long)mine[0].elements;
    if (n < 1 || n > INT_MAX) {
      printf("# %s: no element count for its plans; give --n\n", name.c_str());
      all_ok = false;
      continue;
    }
    size_t un = (size_t)n;
    Layout L = layout(w, un);
    size_t ob = L.out[w.nout] * w.elem;
    void *inb, *outb, *refb;
    KFX_CHECK(cudaMalloc(&inb, L.in[w.nin] * w.elem));
    KFX_CHECK(cudaMalloc(&outb, ob));
    KFX_CHECK(cudaMalloc(&refb, ob));
    void *in[KB_MAXIN], *out[KB_MAXOUT];
    place(w, L, inb, outb, o.seed, in, out);
    reset_outputs(w, L, in, out, outb, ob, s);
    w.run(in, out, (int)n, o.block, s);
    KFX_CHECK_LAUNCH();
    KFX_CHECK(cudaMemcpyAsync(refb, outb, ob, cudaMemcpyDeviceToDevice, s));
    /* Launch-bound sizes: time a batch of sequences per event pair. */
    int iters = n < (1 << 20) ? 100 : 1;
    /* Two passes over the plans, each timed in both, the faster median
     * kept: a transient slowdown of the machine (at small sizes the host's
     * launch rate is the clock) then cannot make one plan look slow. */
    std::vector<double> best(mine.size(), INFINITY), worst(mine.size(), 0);
    std::vector<unsigned long long> nbad(mine.size(), 0);
    for (int pass = 0; pass < 2; pass++)
      for (size_t q = 0; q < mine.size(); q++) {
        kf_rt_select_plan((unsigned)mine[q].rank);
        if (pass == 0) {
          reset_outputs(w, L, in, out, outb, ob, s);
          KFX_CHECK(cudaMemsetAsync(bad, 0, sizeof *bad, s));
          b.w[k].run(in, out, (int)n, o.block, s);
          KFX_CHECK_LAUNCH();
          size_t words = ob / 4;
          diff_words<<<(unsigned)((words + 255) / 256), 256, 0, s>>>(
              (const uint32_t *)outb, (const uint32_t *)refb, words, bad);
          KFX_CHECK_LAUNCH();
          KFX_CHECK(cudaMemcpyAsync(&nbad[q], bad, sizeof nbad[q], cudaMemcpyDeviceToHost, s));
          KFX_CHECK(cudaStreamSynchronize(s));
        }
        double ms = kfx::time_median_ms(
                        [&] {
                          for (int it = 0; it < iters; it++)
                            b.w[k].run(in, out, (int)n, o.block, s);
                        },
                        o.warmup, o.reps, s) /
                    iters;
        best[q] = std::min(best[q], ms);
        worst[q] = std::max(worst[q], ms);
      }
    for (size_t q = 0; q < mine.size(); q++) {
      const PlanRow &p = mine[q];
      ++ntimed;
      all_ok = all_ok && nbad[q] == 0;
      char check[48];
      snprintf(check, sizeof check, nbad[q] ? "FAIL(%llu words differ)" : "ok", nbad[q]);
      printf("%-14s %9lld %4d %5d %12.5f %12.5f %6.1f%%  %-24s %s\n", name.c_str(), n, p.rank,
             p.count, p.predicted_ns * 1e-6, best[q], 100 * (worst[q] / best[q] - 1),
             p.spans.c_str(), check);
      if (csv)
        fprintf(csv, "%s,%s,%lld,%d,%d,%d,%s,%.6f,%.6f,%.4f,%s\n", w.name, w.dtype, n,
                w.launches, p.rank, p.count, p.spans.c_str(), p.predicted_ns * 1e-6, best[q],
                worst[q] / best[q] - 1, nbad[q] ? "FAIL" : "ok");
    }
    kf_rt_select_plan(0);
    KFX_CHECK(cudaStreamSynchronize(s));
    cudaFree(inb);
    cudaFree(outb);
    cudaFree(refb);
  }
  cudaFree(bad);
  if (csv && fclose(csv) != 0) {
    fprintf(stderr, "kfuse-bench: cannot write %s\n", o.csv.c_str());
    all_ok = false;
  }
  KFX_CHECK(cudaStreamDestroy(s));
  if (ntimed == 0) {
    fprintf(stderr, "kfuse-bench: no plan of the remark files matches a workload\n");
    all_ok = false;
  }
  printf("kfuse-bench: %s\n", all_ok ? "every plan bit-identical to unfused" : "CHECK FAILED");
  return all_ok ? 0 : 1;
#endif
}

} // namespace

int main(int argc, char **argv)
{
  Options o = parse(argc, argv);
  kfx::require_device("kfuse-bench");
  if (!o.plans.empty())
    return run_plans(o);
#ifdef KB_NO_RT
  printf("# note: built without libkfuse_rt: the kfuse column runs unfused code\n");
#endif
  const kb_workload *fw = kb_fused::workloads(), *uw = kb_unfused::workloads();
  size_t nmax = (size_t)std::max(o.n, o.small_n);
  size_t in_b = 0, out_b = 0, copy_b = 0;
  for (int k = 0; k < KB_NWORKLOADS; k++) {
    size_t ni = instances(uw[k], (long long)nmax);
    Layout L = layout(uw[k], ni);
    in_b = std::max(in_b, L.in[uw[k].nin] * uw[k].elem);
    out_b = std::max(out_b, L.out[uw[k].nout] * uw[k].elem);
    copy_b = std::max(copy_b, (size_t)(uw[k].bytes_per_elem * ni / 2));
  }
  Arena A(in_b, out_b, copy_b);
  cudaStream_t s;
  KFX_CHECK(cudaStreamCreate(&s));
  keep_pool_memory();

  FILE *csv = nullptr;
  if (!o.csv.empty()) {
    if (!(csv = fopen(o.csv.c_str(), "w"))) {
      fprintf(stderr, "kfuse-bench: cannot write %s: %s\n", o.csv.c_str(), strerror(errno));
      return 1;
    }
    fprintf(csv, "workload,dtype,n,launches,bytes,variant,median_ms,gbps,frac_copy,"
                 "speedup_vs_unfused,ratio_to_hand,check\n");
  }
  printf("# median of %d reps after %d warm-up; bytes = inputs read once + outputs written "
         "once;\n# GB/s on those bytes; of_copy = fraction of the D2D copy's GB/s; "
         "speedup = unfused/kfuse; vs_hand = kfuse/hand time\n",
         o.reps, o.warmup);
  printf("%-14s %9s %3s %10s %10s %10s %10s %8s %7s %7s %7s  %s\n", "workload", "n", "L",
         "unfused_ms", "kfuse_ms", "hand_ms", "copy_ms", "GB/s", "of_copy", "speedup", "vs_hand",
         "check");
  bool all_ok = true;
  long long sizes[2] = {o.n, o.small_n};
  for (long long n : sizes) {
    if (n <= 0)
      continue;
    /* Launch-bound sizes: time a batch of sequences per event pair. */
    int iters = n < (1 << 20) ? 100 : 1;
    for (int k = 0; k < KB_NWORKLOADS; k++) {
      const kb_workload &w = uw[k];
      std::string name = std::string(w.name) + "-" + w.dtype;
      if (!selected(o, name))
        continue;
      size_t un = instances(w, n);
      Layout L = layout(w, un);
      void *in[KB_MAXIN], *out[KB_MAXOUT];
      place(w, L, A.in, A.out, o.seed, in, out);
      size_t ob = L.out[w.nout] * w.elem;

      run_once(w, L, w.run, in, out, ob, (int)un, o.block, s, A.out, A.ref.data());
      run_once(w, L, fw[k].run, in, out, ob, (int)un, o.block, s, A.out, A.got.data());
      Row r{w.name, (long long)un, w.launches, w.bytes_per_elem * un, 0, 0, 0, 0, true, true};
      r.bitwise = memcmp(A.ref.data(), A.got.data(), ob) == 0;
      if (!r.bitwise) {
        size_t b = 0;
        while (A.ref[b] == A.got[b])
          b++;
        size_t e = b / w.elem, k2 = 0;
        while (k2 + 1 < (size_t)w.nout && e >= L.out[k2 + 1])
          k2++;
        printf("#   %s: kfuse output differs from unfused at byte %zu (output %zu, element %zu)\n",
               name.c_str(), b, k2, e - L.out[k2]);
      }
      run_once(w, L, hand_runs[k], in, out, ob, (int)un, o.block, s, A.out, A.got.data());
      r.hand_ok = hand_close(w, A.got.data(), A.ref.data(), L);

      auto timed = [&](kb_seq_fn f) {
        return kfx::time_median_ms(
                   [&] {
                     for (int it = 0; it < iters; it++)
                       f(in, out, (int)un, o.block, s);
                   },
                   o.warmup, o.reps, s) /
               iters;
      };
      r.unfused = timed(w.run);
      r.fused = timed(fw[k].run);
      r.hand = timed(hand_runs[k]);
      size_t cb = (size_t)(r.bytes / 2);
      r.copy = kfx::time_median_ms(
                   [&] {
                     for (int it = 0; it < iters; it++)
                       KFX_CHECK(cudaMemcpyAsync(A.copy_dst, A.copy_src, cb,
                                                 cudaMemcpyDeviceToDevice, s));
                   },
                   o.warmup, o.reps, s) /
               iters;
      bool ok = r.bitwise && r.hand_ok;
      all_ok = all_ok && ok;
      double gbps = r.bytes / (r.fused * 1e6), copy_gbps = r.bytes / (r.copy * 1e6);
      printf("%-14s %9zu %3d %10.4f %10.4f %10.4f %10.4f %8.1f %7.3f %7.2f %7.2f  %s\n",
             name.c_str(), un, w.launches, r.unfused, r.fused, r.hand, r.copy, gbps,
             gbps / copy_gbps, r.unfused / r.fused, r.fused / r.hand,
             ok ? "ok" : (!r.bitwise ? "FAIL(bitwise)" : "FAIL(hand)"));
      fflush(stdout);
      if (csv)
        csv_rows(csv, r, w.dtype);
    }
  }
  if (csv && fclose(csv) != 0) {
    fprintf(stderr, "kfuse-bench: cannot write %s\n", o.csv.c_str());
    all_ok = false;
  }
  KFX_CHECK(cudaStreamDestroy(s));
  printf("kfuse-bench: %s\n", all_ok ? "all checks ok" : "CHECK FAILED");
  return all_ok ? 0 : 1;
}
