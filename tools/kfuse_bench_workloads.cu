/* kfuse-bench workloads: map-kernel launch sequences, compiled twice into
 * one binary, as namespace KB_NS = kb_fused (kfuse plugins) and kb_unfused
 * (KFUSE_NO_PLUGINS=1). Only the driver's hand-fused kernels live elsewhere. */
#include "kfuse_bench.h"
#include "kfuse_example.h"

#include <cooperative_groups.h>
#include <cuda_fp16.h>

#ifndef KB_NS
#error "compile with -DKB_NS=kb_fused, kb_small or kb_unfused"
#endif

namespace KB_NS {

/* o = a*u + v */
template <typename T>
__global__ KFUSE_MAP void axpb(const T *u, const T *v, T *o, T a, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    o[i] = a * u[i] + v[i];
}

/* o = u*v + b */
template <typename T>
__global__ KFUSE_MAP void mad(const T *u, const T *v, T *o, T b, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    o[i] = u[i] * v[i] + b;
}

/* o = alpha*u + beta*v */
template <typename T>
__global__ KFUSE_MAP void waxpby(const T *u, const T *v, T *o, T alpha, T beta, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    o[i] = alpha * u[i] + beta * v[i];
}

/* o = s*u */
template <typename T> __global__ KFUSE_MAP void scal(const T *u, T *o, T s, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    o[i] = s * u[i];
}

/* o = u + v */
template <typename T> __global__ KFUSE_MAP void add(const T *u, const T *v, T *o, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    o[i] = u[i] + v[i];
}

/* A memory-bandwidth benchmark's five kernels, as it writes them. */
template <typename T> __global__ KFUSE_MAP void st_copy(const T *a, T *c, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i];
}
template <typename T> __global__ KFUSE_MAP void st_mul(T *b, const T *c, T s, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    b[i] = s * c[i];
}
template <typename T> __global__ KFUSE_MAP void st_add(const T *a, const T *b, T *c, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}
template <typename T> __global__ KFUSE_MAP void st_triad(T *a, const T *b, const T *c, T s, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    a[i] = b[i] + s * c[i];
}
template <typename T> __global__ KFUSE_MAP void st_nstream(T *a, const T *b, const T *c, T s, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    a[i] += b[i] + s * c[i];
}

#include "epilogue_kernels.h"
#include "mapped_f_kernels.h"

static unsigned grid_for(int n, int block) { return (unsigned)((n + block - 1) / block); }

/* Element-wise chains of length 2, 4, 8 over inputs x, y, z: step j is
 * t_j = c_j * t_{j-1} + y (j even) or t_j = t_{j-1} * z + c_j (j odd), t_{-1} = x.
 * The sequences are spelled out (not loops): kfuse fuses straight-line launches. */
#define KB_CHAINS(T, SUF)                                                                     \
  static void chain2_##SUF(void *const *in, void *const *out, int n, int block,              \
                           cudaStream_t s)                                                   \
  {                                                                                          \
    const T *x = (const T *)in[0], *y = (const T *)in[1], *z = (const T *)in[2];             \
    T *t0 = (T *)out[0], *t1 = (T *)out[1];                                                  \
    unsigned g = grid_for(n, block);                                                         \
    axpb<T><<<g, block, 0, s>>>(x, y, t0, (T)kb_coef[0], n);                                 \
    mad<T><<<g, block, 0, s>>>(t0, z, t1, (T)kb_coef[1], n);                                 \
  }                                                                                          \
  static void chain4_##SUF(void *const *in, void *const *out, int n, int block,              \
                           cudaStream_t s)                                                   \
  {                                                                                          \
    const T *x = (const T *)in[0], *y = (const T *)in[1], *z = (const T *)in[2];             \
    T *t0 = (T *)out[0], *t1 = (T *)out[1], *t2 = (T *)out[2], *t3 = (T *)out[3];            \
    unsigned g = grid_for(n, block);                                                         \
    axpb<T><<<g, block, 0, s>>>(x, y, t0, (T)kb_coef[0], n);                                 \
    mad<T><<<g, block, 0, s>>>(t0, z, t1, (T)kb_coef[1], n);                                 \
    axpb<T><<<g, block, 0, s>>>(t1, y, t2, (T)kb_coef[2], n);                                \
    mad<T><<<g, block, 0, s>>>(t2, z, t3, (T)kb_coef[3], n);                                 \
  }                                                                                          \
  static void chain8_##SUF(void *const *in, void *const *out, int n, int block,              \
                           cudaStream_t s)                                                   \
  {                                                                                          \
    const T *x = (const T *)in[0], *y = (const T *)in[1], *z = (const T *)in[2];             \
    T *t0 = (T *)out[0], *t1 = (T *)out[1], *t2 = (T *)out[2], *t3 = (T *)out[3];            \
    T *t4 = (T *)out[4], *t5 = (T *)out[5], *t6 = (T *)out[6], *t7 = (T *)out[7];            \
    unsigned g = grid_for(n, block);                                                         \
    axpb<T><<<g, block, 0, s>>>(x, y, t0, (T)kb_coef[0], n);                                 \
    mad<T><<<g, block, 0, s>>>(t0, z, t1, (T)kb_coef[1], n);                                 \
    axpb<T><<<g, block, 0, s>>>(t1, y, t2, (T)kb_coef[2], n);                                \
    mad<T><<<g, block, 0, s>>>(t2, z, t3, (T)kb_coef[3], n);                                 \
    axpb<T><<<g, block, 0, s>>>(t3, y, t4, (T)kb_coef[4], n);                                \
    mad<T><<<g, block, 0, s>>>(t4, z, t5, (T)kb_coef[5], n);                                 \
    axpb<T><<<g, block, 0, s>>>(t5, y, t6, (T)kb_coef[6], n);                                \
    mad<T><<<g, block, 0, s>>>(t6, z, t7, (T)kb_coef[7], n);                                 \
  }

KB_CHAINS(float, f32)
KB_CHAINS(double, f64)

/* BLAS-1 in double: AXPY -> WAXPBY -> SCAL over x, y, z. */
static void blas1_f64(void *const *in, void *const *out, int n, int block, cudaStream_t s)
{
  const double *x = (const double *)in[0], *y = (const double *)in[1], *z = (const double *)in[2];
  double *w1 = (double *)out[0], *w2 = (double *)out[1], *o = (double *)out[2];
  unsigned g = grid_for(n, block);
  axpb<double><<<g, block, 0, s>>>(x, y, w1, kb_blas_a, n);
  waxpby<double><<<g, block, 0, s>>>(w1, z, w2, kb_blas_alpha, kb_blas_beta, n);
  scal<double><<<g, block, 0, s>>>(w2, o, kb_blas_s, n);
}

/* DL epilogue in float: bias add -> GELU -> scale -> residual add; inputs x,
 * r, bias (only the first kb_epi_cols elements of bias are read). */
static void epilogue_f32(void *const *in, void *const *out, int n, int block, cudaStream_t s)
{
  const float *x = (const float *)in[0], *r = (const float *)in[1], *bias = (const float *)in[2];
  float *h1 = (float *)out[0], *h2 = (float *)out[1], *h3 = (float *)out[2], *o = (float *)out[3];
  unsigned g = grid_for(n, block);
  bias_add<<<g, block, 0, s>>>(x, bias, h1, kb_epi_cols, n);
  gelu<<<g, block, 0, s>>>(h1, h2, n);
  scal<float><<<g, block, 0, s>>>(h2, h3, kb_epi_s, n);
  add<float><<<g, block, 0, s>>>(h3, r, o, n);
}

/* The mapped function F (its sequence is mf_launch, mapped_f_kernels.h). */
static void mapped_f32(void *const *in, void *const *out, int n, int block, cudaStream_t s)
{
  const float *const *i = (const float *const *)in;
  float *const *o = (float *const *)out;
  mf_launch(i[0], i[1], i[2], i[3], i[4], o[0], o[1], o[2], o[3], o[4], o[5], n, block, s);
}

/* A pitched 2-D image pipeline in float (width kb_img_w, n / kb_img_w rows,
 * pitch = width): brighten -> contrast -> clamp, dim3 grid and block. */
#define KB_XY                                                                                \
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y
__global__ KFUSE_MAP void img_brighten(const float *in, float *t, int w, int h, int pitch)
{
  KB_XY;
  if (x < w && y < h)
    t[y * pitch + x] = in[y * pitch + x] * 1.25f - 0.1f;
}
__global__ KFUSE_MAP void img_contrast(const float *t, float *u, int w, int h, int pitch)
{
  KB_XY;
  if (x < w && y < h)
    u[y * pitch + x] = (t[y * pitch + x] - 0.5f) * 1.5f + 0.5f;
}
__global__ KFUSE_MAP void img_clamp(const float *u, float *o, int w, int h, int pitch)
{
  KB_XY;
  if (x >= w || y >= h)
    return;
  float v = u[y * pitch + x];
  o[y * pitch + x] = v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v);
}
static void image2d_f32(void *const *in, void *const *out, int n, int block, cudaStream_t s)
{
  int w = kb_img_w, h = n / kb_img_w;
  dim3 b(32, 8), g((w + 31) / 32, (h + 7) / 8);
  (void)block;
  img_brighten<<<g, b, 0, s>>>((const float *)in[0], (float *)out[0], w, h, w);
  img_contrast<<<g, b, 0, s>>>((const float *)out[0], (float *)out[1], w, h, w);
  img_clamp<<<g, b, 0, s>>>((const float *)out[1], (float *)out[2], w, h, w);
}

/* A 3-D field update in double (kb_fld_nx x kb_fld_ny x n / (nx * ny)). */
#define KB_IJK                                                                               \
  int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y,    \
      k = blockIdx.z * blockDim.z + threadIdx.z
__global__ KFUSE_MAP void fld_rate(const double *u, double *r, int nx, int ny, int nz)
{
  KB_IJK;
  if (i < nx && j < ny && k < nz) {
    size_t c = ((size_t)k * ny + j) * nx + i;
    r[c] = 2.5 * u[c] * (1.0 - u[c]);
  }
}
__global__ KFUSE_MAP void fld_update(const double *u, const double *r, const double *v,
                                    double *u1, int nx, int ny, int nz)
{
  KB_IJK;
  if (i < nx && j < ny && k < nz) {
    size_t c = ((size_t)k * ny + j) * nx + i;
    u1[c] = u[c] + 0.01 * (r[c] - 0.75 * v[c]);
  }
}
static void field3d_f64(void *const *in, void *const *out, int n, int block, cudaStream_t s)
{
  int nx = kb_fld_nx, ny = kb_fld_ny, nz = n / (kb_fld_nx * kb_fld_ny);
  dim3 b(32, 4, 2), g((nx + 31) / 32, (ny + 3) / 4, (nz + 1) / 2);
  (void)block;
  const double *u = (const double *)in[0], *v = (const double *)in[1];
  fld_rate<<<g, b, 0, s>>>(u, (double *)out[0], nx, ny, nz);
  fld_update<<<g, b, 0, s>>>(u, (const double *)out[0], v, (double *)out[1], nx, ny, nz);
}

/* Grid-stride loops on a fixed grid of kb_gs_blocks_per_sm blocks per SM:
 * t = a*x + y; o = t*y + b; p = o*o. */
#define KB_GRID_STRIDE(i, n)                                                                 \
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)
__global__ KFUSE_MAP void gs_axpb(const float *x, const float *y, float *t, int n)
{
  KB_GRID_STRIDE(i, n) t[i] = (float)kb_coef[0] * x[i] + y[i];
}
__global__ KFUSE_MAP void gs_mad(const float *t, const float *y, float *o, int n)
{
  KB_GRID_STRIDE(i, n) o[i] = t[i] * y[i] + (float)kb_coef[1];
}
__global__ KFUSE_MAP void gs_sq(const float *o, float *p, int n)
{
  KB_GRID_STRIDE(i, n) p[i] = o[i] * o[i];
}
static void gridstride_f32(void *const *in, void *const *out, int n, int block, cudaStream_t s)
{
  unsigned g = kb_grid_stride_blocks();
  const float *x = (const float *)in[0], *y = (const float *)in[1];
  gs_axpb<<<g, block, 0, s>>>(x, y, (float *)out[0], n);
  gs_mad<<<g, block, 0, s>>>((const float *)out[0], y, (float *)out[1], n);
  gs_sq<<<g, block, 0, s>>>((const float *)out[1], (float *)out[2], n);
}

/* The same loops as bandwidth benchmarks write them: size_t indices and
 * `#pragma unroll 4` (BabelStream's for_each_kernel). */
#define KB_GRID_STRIDE_UNROLLED(i, n)                                                        \
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;                                  \
  _Pragma("unroll 4") for (; i < (size_t)(n); i += (size_t)blockDim.x * gridDim.x)
__global__ KFUSE_MAP void gsu_axpb(const float *x, const float *y, float *t, int n)
{
  KB_GRID_STRIDE_UNROLLED(i, n) t[i] = (float)kb_coef[0] * x[i] + y[i];
}
__global__ KFUSE_MAP void gsu_mad(const float *t, const float *y, float *o, int n)
{
  KB_GRID_STRIDE_UNROLLED(i, n) o[i] = t[i] * y[i] + (float)kb_coef[1];
}
__global__ KFUSE_MAP void gsu_sq(const float *o, float *p, int n)
{
  KB_GRID_STRIDE_UNROLLED(i, n) p[i] = o[i] * o[i];
}
static void gridstride_unroll_f32(void *const *in, void *const *out, int n, int block,
                                  cudaStream_t s)
{
  unsigned g = kb_grid_stride_blocks();
  const float *x = (const float *)in[0], *y = (const float *)in[1];
  gsu_axpb<<<g, block, 0, s>>>(x, y, (float *)out[0], n);
  gsu_mad<<<g, block, 0, s>>>((const float *)out[0], y, (float *)out[1], n);
  gsu_sq<<<g, block, 0, s>>>((const float *)out[1], (float *)out[2], n);
}

/* The same loops over cooperative groups' grid rank, as codes built on
 * cooperative groups write them (`i += grid.size()`). */
#define KB_GRID_STRIDE_CG(i, n)                                                              \
  cooperative_groups::grid_group grid = cooperative_groups::this_grid();                     \
  for (unsigned long long i = grid.thread_rank(); i < (unsigned long long)(n); i += grid.size())
__global__ KFUSE_MAP void gsc_axpb(const float *x, const float *y, float *t, int n)
{
  KB_GRID_STRIDE_CG(i, n) t[i] = (float)kb_coef[0] * x[i] + y[i];
}
__global__ KFUSE_MAP void gsc_mad(const float *t, const float *y, float *o, int n)
{
  KB_GRID_STRIDE_CG(i, n) o[i] = t[i] * y[i] + (float)kb_coef[1];
}
__global__ KFUSE_MAP void gsc_sq(const float *o, float *p, int n)
{
  KB_GRID_STRIDE_CG(i, n) p[i] = o[i] * o[i];
}
static void gridstride_cg_f32(void *const *in, void *const *out, int n, int block, cudaStream_t s)
{
  unsigned g = kb_grid_stride_blocks();
  const float *x = (const float *)in[0], *y = (const float *)in[1];
  gsc_axpb<<<g, block, 0, s>>>(x, y, (float *)out[0], n);
  gsc_mad<<<g, block, 0, s>>>((const float *)out[0], y, (float *)out[1], n);
  gsc_sq<<<g, block, 0, s>>>((const float *)out[1], (float *)out[2], n);
}

/* The same chain as 2-D codes loop over an image on a fixed grid: rows of
 * kb_img_w, a nest of grid-stride loops, y outside and x inside. */
#define KB_GRID_NEST(R, C, w, h)                                                              \
  for (int R = blockIdx.y * blockDim.y + threadIdx.y; R < (h); R += blockDim.y * gridDim.y) \
    for (int C = blockIdx.x * blockDim.x + threadIdx.x; C < (w); C += blockDim.x * gridDim.x)
__global__ KFUSE_MAP void gsn_axpb(const float *x, const float *y, float *t, int w, int h)
{
  KB_GRID_NEST(r, c, w, h) t[r * w + c] = (float)kb_coef[0] * x[r * w + c] + y[r * w + c];
}
__global__ KFUSE_MAP void gsn_mad(const float *t, const float *y, float *o, int w, int h)
{
  KB_GRID_NEST(r, c, w, h) o[r * w + c] = t[r * w + c] * y[r * w + c] + (float)kb_coef[1];
}
__global__ KFUSE_MAP void gsn_sq(const float *o, float *p, int w, int h)
{
  KB_GRID_NEST(r, c, w, h) p[r * w + c] = o[r * w + c] * o[r * w + c];
}
static void gridnest_f32(void *const *in, void *const *out, int n, int block, cudaStream_t s)
{
  int w = kb_img_w, h = n / kb_img_w;
  dim3 b(32, 8), g = kb_grid_nest_blocks();
  (void)block;
  const float *x = (const float *)in[0], *y = (const float *)in[1];
  gsn_axpb<<<g, b, 0, s>>>(x, y, (float *)out[0], w, h);
  gsn_mad<<<g, b, 0, s>>>((const float *)out[0], y, (float *)out[1], w, h);
  gsn_sq<<<g, b, 0, s>>>((const float *)out[1], (float *)out[2], w, h);
}

/* Transcendental activations in float: h1 = sin(x) * 0.5 + x; h2 = tanh(h1);
 * o = exp(h2) * x. */
__global__ KFUSE_MAP void act_sin(const float *x, float *h, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    h[i] = sinf(x[i]) * 0.5f + x[i];
}
__global__ KFUSE_MAP void act_tanh(const float *h, float *g, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    g[i] = tanhf(h[i]);
}
__global__ KFUSE_MAP void act_exp(const float *g, const float *x, float *o, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    o[i] = expf(g[i]) * x[i];
}
static void activation_f32(void *const *in, void *const *out, int n, int block, cudaStream_t s)
{
  unsigned g = grid_for(n, block);
  const float *x = (const float *)in[0];
  act_sin<<<g, block, 0, s>>>(x, (float *)out[0], n);
  act_tanh<<<g, block, 0, s>>>((const float *)out[0], (float *)out[1], n);
  act_exp<<<g, block, 0, s>>>((const float *)out[1], x, (float *)out[2], n);
}

/* Half precision through cuda_fp16.h, two values per thread as half codes
 * are written (__half2; a thread per __half moves 2 bytes per access and
 * stays near 80 % of the copy bandwidth, fused or not): t = fma(x, 2, y);
 * u = t * x; o = u + y. n is even. */
__global__ KFUSE_MAP void h_fma(const __half2 *x, const __half2 *y, __half2 *t, int n2)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n2)
    t[i] = __hfma2(x[i], __float2half2_rn(2.0f), y[i]);
}
__global__ KFUSE_MAP void h_mul(const __half2 *t, const __half2 *x, __half2 *u, int n2)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n2)
    u[i] = __hmul2(t[i], x[i]);
}
__global__ KFUSE_MAP void h_add(const __half2 *u, const __half2 *y, __half2 *o, int n2)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n2)
    o[i] = __hadd2(u[i], y[i]);
}
static void half_f16(void *const *in, void *const *out, int n, int block, cudaStream_t s)
{
  int n2 = n / 2;
  unsigned g = grid_for(n2, block);
  const __half2 *x = (const __half2 *)in[0], *y = (const __half2 *)in[1];
  h_fma<<<g, block, 0, s>>>(x, y, (__half2 *)out[0], n2);
  h_mul<<<g, block, 0, s>>>((const __half2 *)out[0], x, (__half2 *)out[1], n2);
  h_add<<<g, block, 0, s>>>((const __half2 *)out[1], y, (__half2 *)out[2], n2);
}

/* Independent updates of three fields, as a time step writes them: the
 * launches share no buffer and fuse horizontally (one launch, each thread
 * running the three bodies): un = c * u; vn = v + b; wn = w * w. */
__global__ KFUSE_MAP void hz_damp(const float *u, float *un, float c, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    un[i] = c * u[i];
}
__global__ KFUSE_MAP void hz_shift(const float *v, float *vn, float b, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    vn[i] = v[i] + b;
}
__global__ KFUSE_MAP void hz_square(const float *w, float *wn, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    wn[i] = w[i] * w[i];
}
static void horizontal_f32(void *const *in, void *const *out, int n, int block, cudaStream_t s)
{
  unsigned g = grid_for(n, block);
  hz_damp<<<g, block, 0, s>>>((const float *)in[0], (float *)out[0], (float)kb_coef[0], n);
  hz_shift<<<g, block, 0, s>>>((const float *)in[1], (float *)out[1], (float)kb_coef[1], n);
  hz_square<<<g, block, 0, s>>>((const float *)in[2], (float *)out[2], n);
}

/* Independent updates of arrays of different lengths, as a finite-volume
 * step writes them: un = c * u over n cells, vn = v + b over their 2n
 * faces, and wn = w * w over n by a grid-stride loop on a fixed grid. The
 * grids differ; the launches fuse side by side, each in blocks of its own
 * (`shape split`). */
__global__ KFUSE_MAP void sp_damp(const float *u, float *un, float c, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    un[i] = c * u[i];
}
__global__ KFUSE_MAP void sp_shift(const float *v, float *vn, float b, int m)
{
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < m)
    vn[j] = v[j] + b;
}
__global__ KFUSE_MAP void sp_square(const float *w, float *wn, int n)
{
  KB_GRID_STRIDE(i, n) wn[i] = w[i] * w[i];
}
static void split_f32(void *const *in, void *const *out, int n, int block, cudaStream_t s)
{
  unsigned g = kb_grid_stride_blocks(); // a host call between launches would end the run
  sp_damp<<<grid_for(n, block), block, 0, s>>>((const float *)in[0], (float *)out[0],
                                                (float)kb_coef[0], n);
  sp_shift<<<grid_for(2 * n, block), block, 0, s>>>((const float *)in[1], (float *)out[1],
                                                    (float)kb_coef[1], 2 * n);
  sp_square<<<g, block, 0, s>>>((const float *)in[2], (float *)out[2], n);
}

/* The stream benchmark's kernels back to back on a (out[0], which starts as
 * in[0]), b and c: a read once and the three written once is the least
 * any code moves. */
static void stream_f64(void *const *in, void *const *out, int n, int block, cudaStream_t s)
{
  (void)in;
  double *a = (double *)out[0], *b = (double *)out[1], *c = (double *)out[2];
  unsigned g = grid_for(n, block);
  st_copy<double><<<g, block, 0, s>>>(a, c, n);
  st_mul<double><<<g, block, 0, s>>>(b, c, kb_stream_s, n);
  st_add<double><<<g, block, 0, s>>>(a, b, c, n);
  st_triad<double><<<g, block, 0, s>>>(a, b, c, kb_stream_s, n);
  st_nstream<double><<<g, block, 0, s>>>(a, b, c, kb_stream_s, n);
}

/* The chains and BLAS-1 as programs write them: the intermediates are
 * temporaries, allocated once (stream-ordered), and the sequence runs in a
 * time loop of kb_temp_steps steps; only the last value is an output. */
#define KB_TEMP(t) cudaMallocAsync(&t, bytes, s)
static void temps2_f32(void *const *in, void *const *out, int n, int block, cudaStream_t s)
{
  const float *x = (const float *)in[0], *y = (const float *)in[1], *z = (const float *)in[2];
  float *o = (float *)out[0], *t0;
  size_t bytes = (size_t)n * sizeof(float);
  unsigned g = grid_for(n, block);
  KB_TEMP(t0);
  for (int step = 0; step < kb_temp_steps; step++) {
    axpb<float><<<g, block, 0, s>>>(x, y, t0, (float)kb_coef[0], n);
    mad<float><<<g, block, 0, s>>>(t0, z, o, (float)kb_coef[1], n);
  }
  cudaFreeAsync(t0, s);
}
static void temps4_f32(void *const *in, void *const *out, int n, int block, cudaStream_t s)
{
  const float *x = (const float *)in[0], *y = (const float *)in[1], *z = (const float *)in[2];
  float *o = (float *)out[0], *t0, *t1, *t2;
  size_t bytes = (size_t)n * sizeof(float);
  unsigned g = grid_for(n, block);
  KB_TEMP(t0), KB_TEMP(t1), KB_TEMP(t2);
  for (int step = 0; step < kb_temp_steps; step++) {
    axpb<float><<<g, block, 0, s>>>(x, y, t0, (float)kb_coef[0], n);
    mad<float><<<g, block, 0, s>>>(t0, z, t1, (float)kb_coef[1], n);
    axpb<float><<<g, block, 0, s>>>(t1, y, t2, (float)kb_coef[2], n);
    mad<float><<<g, block, 0, s>>>(t2, z, o, (float)kb_coef[3], n);
  }
  cudaFreeAsync(t0, s), cudaFreeAsync(t1, s), cudaFreeAsync(t2, s);
}
/* The issue's 5-kernel chain: four temporaries, the step a lambda that
 * captures them by reference, as a time loop in an application reads. */
static void temps5_f32(void *const *in, void *const *out, int n, int block, cudaStream_t s)
{
  const float *x = (const float *)in[0], *y = (const float *)in[1], *z = (const float *)in[2];
  float *o = (float *)out[0], *t0, *t1, *t2, *t3;
  size_t bytes = (size_t)n * sizeof(float);
  unsigned g = grid_for(n, block);
  KB_TEMP(t0), KB_TEMP(t1), KB_TEMP(t2), KB_TEMP(t3);
  auto step = [&]() {
    axpb<float><<<g, block, 0, s>>>(x, y, t0, (float)kb_coef[0], n);
    mad<float><<<g, block, 0, s>>>(t0, z, t1, (float)kb_coef[1], n);
    axpb<float><<<g, block, 0, s>>>(t1, y, t2, (float)kb_coef[2], n);
    mad<float><<<g, block, 0, s>>>(t2, z, t3, (float)kb_coef[3], n);
    axpb<float><<<g, block, 0, s>>>(t3, y, o, (float)kb_coef[4], n);
  };
  for (int k = 0; k < kb_temp_steps; k++)
    step();
  cudaFreeAsync(t0, s), cudaFreeAsync(t1, s), cudaFreeAsync(t2, s), cudaFreeAsync(t3, s);
}
static void temps8_f32(void *const *in, void *const *out, int n, int block, cudaStream_t s)
{
  const float *x = (const float *)in[0], *y = (const float *)in[1], *z = (const float *)in[2];
  float *o = (float *)out[0], *t0, *t1, *t2, *t3, *t4, *t5, *t6;
  size_t bytes = (size_t)n * sizeof(float);
  unsigned g = grid_for(n, block);
  KB_TEMP(t0), KB_TEMP(t1), KB_TEMP(t2), KB_TEMP(t3), KB_TEMP(t4), KB_TEMP(t5), KB_TEMP(t6);
  for (int step = 0; step < kb_temp_steps; step++) {
    axpb<float><<<g, block, 0, s>>>(x, y, t0, (float)kb_coef[0], n);
    mad<float><<<g, block, 0, s>>>(t0, z, t1, (float)kb_coef[1], n);
    axpb<float><<<g, block, 0, s>>>(t1, y, t2, (float)kb_coef[2], n);
    mad<float><<<g, block, 0, s>>>(t2, z, t3, (float)kb_coef[3], n);
    axpb<float><<<g, block, 0, s>>>(t3, y, t4, (float)kb_coef[4], n);
    mad<float><<<g, block, 0, s>>>(t4, z, t5, (float)kb_coef[5], n);
    axpb<float><<<g, block, 0, s>>>(t5, y, t6, (float)kb_coef[6], n);
    mad<float><<<g, block, 0, s>>>(t6, z, o, (float)kb_coef[7], n);
  }
  cudaFreeAsync(t0, s), cudaFreeAsync(t1, s), cudaFreeAsync(t2, s), cudaFreeAsync(t3, s);
  cudaFreeAsync(t4, s), cudaFreeAsync(t5, s), cudaFreeAsync(t6, s);
}
/* temps4 as codes built on a `forall` write it: each step a lambda that
 * captures the temporaries it uses, launched through a kernel template. */
template <class F> __global__ KFUSE_MAP void forall_kernel(int n, F body)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    body(i);
}
template <class F> static void forall(int n, int block, cudaStream_t s, F body)
{
  forall_kernel<<<grid_for(n, block), block, 0, s>>>(n, body);
}
static void lambda4_f32(void *const *in, void *const *out, int n, int block, cudaStream_t s)
{
  const float *x = (const float *)in[0], *y = (const float *)in[1], *z = (const float *)in[2];
  float *o = (float *)out[0], *t0, *t1, *t2;
  size_t bytes = (size_t)n * sizeof(float);
  const float a = (float)kb_coef[0], b = (float)kb_coef[1], c = (float)kb_coef[2],
              d = (float)kb_coef[3];
  KB_TEMP(t0), KB_TEMP(t1), KB_TEMP(t2);
  for (int step = 0; step < kb_temp_steps; step++) {
    forall(n, block, s, [=] __device__(int i) { t0[i] = a * x[i] + y[i]; });
    forall(n, block, s, [=] __device__(int i) { t1[i] = t0[i] * z[i] + b; });
    forall(n, block, s, [=] __device__(int i) { t2[i] = c * t1[i] + y[i]; });
    forall(n, block, s, [=] __device__(int i) { o[i] = t2[i] * z[i] + d; });
  }
  cudaFreeAsync(t0, s), cudaFreeAsync(t1, s), cudaFreeAsync(t2, s);
}
/* temps4 with the arrays in a struct passed by value to every kernel. */
struct kb_fields {
  const float *x, *y, *z;
  float *t0, *t1, *t2, *o;
  float a, b, c, d;
  int n;
};
__global__ KFUSE_MAP void fs_axpb0(kb_fields f)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < f.n)
    f.t0[i] = f.a * f.x[i] + f.y[i];
}
__global__ KFUSE_MAP void fs_mad1(kb_fields f)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < f.n)
    f.t1[i] = f.t0[i] * f.z[i] + f.b;
}
__global__ KFUSE_MAP void fs_axpb2(kb_fields f)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < f.n)
    f.t2[i] = f.c * f.t1[i] + f.y[i];
}
__global__ KFUSE_MAP void fs_mad3(kb_fields f)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < f.n)
    f.o[i] = f.t2[i] * f.z[i] + f.d;
}
static void struct4_f32(void *const *in, void *const *out, int n, int block, cudaStream_t s)
{
  float *t0, *t1, *t2;
  size_t bytes = (size_t)n * sizeof(float);
  unsigned g = grid_for(n, block);
  KB_TEMP(t0), KB_TEMP(t1), KB_TEMP(t2);
  kb_fields f{(const float *)in[0], (const float *)in[1], (const float *)in[2], t0, t1, t2,
              (float *)out[0], (float)kb_coef[0], (float)kb_coef[1], (float)kb_coef[2],
              (float)kb_coef[3], n};
  for (int step = 0; step < kb_temp_steps; step++) {
    fs_axpb0<<<g, block, 0, s>>>(f);
    fs_mad1<<<g, block, 0, s>>>(f);
    fs_axpb2<<<g, block, 0, s>>>(f);
    fs_mad3<<<g, block, 0, s>>>(f);
  }
  cudaFreeAsync(t0, s), cudaFreeAsync(t1, s), cudaFreeAsync(t2, s);
}
static void temps_blas1_f64(void *const *in, void *const *out, int n, int block,
                            cudaStream_t s)
{
  const double *x = (const double *)in[0], *y = (const double *)in[1], *z = (const double *)in[2];
  double *o = (double *)out[0], *w1, *w2;
  size_t bytes = (size_t)n * sizeof(double);
  unsigned g = grid_for(n, block);
  KB_TEMP(w1), KB_TEMP(w2);
  for (int step = 0; step < kb_temp_steps; step++) {
    axpb<double><<<g, block, 0, s>>>(x, y, w1, kb_blas_a, n);
    waxpby<double><<<g, block, 0, s>>>(w1, z, w2, kb_blas_alpha, kb_blas_beta, n);
    scal<double><<<g, block, 0, s>>>(w2, o, kb_blas_s, n);
  }
  cudaFreeAsync(w1, s), cudaFreeAsync(w2, s);
}

/* One step of a 1-D conservation law, u_t + (u^2/2)_x = 0, kb_temp_steps
 * times: the flux F = u^2/2, the Lax-Friedrichs update from the flux of the
 * neighbouring elements into a temporary, clipped into o. The update reads
 * F[i-1] and F[i+1], which threads of the neighbouring blocks compute: the
 * three launches fuse with halo recomputation, F and the update's result
 * temporaries that never reach memory fused. */
__global__ KFUSE_MAP void hl_flux(const float *u, float *F, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    F[i] = 0.5f * u[i] * u[i];
}
__global__ KFUSE_MAP void hl_update(const float *u, const float *F, float *w, float c, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  if (i == 0 || i == n - 1)
    w[i] = u[i];
  else
    w[i] = 0.5f * (u[i - 1] + u[i + 1]) - c * (F[i + 1] - F[i - 1]);
}
__global__ KFUSE_MAP void hl_clip(const float *w, float *o, float lo, float hi, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    o[i] = fminf(fmaxf(w[i], lo), hi);
}
static void halo_f32(void *const *in, void *const *out, int n, int block, cudaStream_t s)
{
  const float *u = (const float *)in[0];
  float *o = (float *)out[0], *F, *w;
  size_t bytes = (size_t)n * sizeof(float);
  unsigned g = grid_for(n, block);
  KB_TEMP(F), KB_TEMP(w);
  for (int step = 0; step < kb_temp_steps; step++) {
    hl_flux<<<g, block, 0, s>>>(u, F, n);
    hl_update<<<g, block, 0, s>>>(u, F, w, (float)kb_coef[0], n);
    hl_clip<<<g, block, 0, s>>>(w, o, -(float)kb_coef[1], (float)kb_coef[1], n);
  }
  cudaFreeAsync(F, s), cudaFreeAsync(w, s);
}

/* One step of the 2-D heat equation on a kb_img_w-wide grid, kb_temp_steps
 * times: un = u + k * (5-point Laplacian of u), the 5-point Laplacian of
 * un, and o = un + dt * lap, Dirichlet boundaries copied (0 for lap). The
 * Laplacian reads un at neighbouring cells, which threads of neighbouring
 * blocks compute: the three launches fuse with 2-D halo recomputation, un
 * and lap temporaries that never reach memory fused. */
#define HT_XY                                                                                \
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y; \
  if (x >= w || y >= h)                                                                      \
    return;                                                                                  \
  int i = y * w + x
__global__ KFUSE_MAP void ht_step(const float *u, float *un, int w, int h)
{
  HT_XY;
  bool edge = x == 0 || y == 0 || x == w - 1 || y == h - 1;
  un[i] = edge ? u[i]
               : u[i] + (float)kb_coef[4] * 0.25f *
                            (u[i - 1] + u[i + 1] + u[i - w] + u[i + w] - 4.0f * u[i]);
}
__global__ KFUSE_MAP void ht_lap(const float *un, float *lap, int w, int h)
{
  HT_XY;
  bool edge = x == 0 || y == 0 || x == w - 1 || y == h - 1;
  lap[i] = edge ? 0.0f : un[i - 1] + un[i + 1] + un[i - w] + un[i + w] - 4.0f * un[i];
}
__global__ KFUSE_MAP void ht_relax(const float *un, const float *lap, float *o, int w, int h)
{
  HT_XY;
  o[i] = un[i] + 0.125f * lap[i];
}
#undef HT_XY
static void heat2d_f32(void *const *in, void *const *out, int n, int block, cudaStream_t s)
{
  const float *u = (const float *)in[0];
  float *o = (float *)out[0], *un, *lap;
  int w = kb_img_w, h = n / kb_img_w;
  size_t bytes = (size_t)w * h * sizeof(float);
  dim3 b(32, 8), g((w + 31) / 32, (h + 7) / 8);
  (void)block;
  KB_TEMP(un), KB_TEMP(lap);
  for (int step = 0; step < kb_temp_steps; step++) {
    ht_step<<<g, b, 0, s>>>(u, un, w, h);
    ht_lap<<<g, b, 0, s>>>(un, lap, w, h);
    ht_relax<<<g, b, 0, s>>>(un, lap, o, w, h);
  }
  cudaFreeAsync(un, s), cudaFreeAsync(lap, s);
}
/* A step whose cell kernels are separated by launches on another grid, as
 * codes write them: the flux of each cell (a temporary), a source term and
 * a monitor by grid-stride loops on a fixed grid, and the update, which
 * reads the flux and the source (a temporary). The grid-stride launches
 * cannot join the cell kernels; kfuse fuses flux and update and moves the
 * source before the fused kernel (the update reads it) and the monitor
 * after it (riders, launched on their own). */
__global__ KFUSE_MAP void rd_flux(const float *u, float *t, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    t[i] = 0.5f * u[i] * u[i];
}
__global__ KFUSE_MAP void rd_source(const float *s0, float *src, int n)
{
  KB_GRID_STRIDE(i, n) src[i] = 0.25f * s0[i];
}
__global__ KFUSE_MAP void rd_monitor(const float *u, float *m, int n)
{
  KB_GRID_STRIDE(i, n) m[i] = fabsf(u[i]);
}
__global__ KFUSE_MAP void rd_update(const float *u, const float *t, const float *src, float *o,
                                    int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    o[i] = u[i] - 0.125f * t[i] + src[i];
}
static void reorder_f32(void *const *in, void *const *out, int n, int block, cudaStream_t s)
{
  const float *u = (const float *)in[0], *s0 = (const float *)in[1];
  float *o = (float *)out[0], *m = (float *)out[1], *t, *src;
  size_t bytes = (size_t)n * sizeof(float);
  unsigned g = grid_for(n, block), gs = kb_grid_stride_blocks();
  KB_TEMP(t), KB_TEMP(src);
  rd_flux<<<g, block, 0, s>>>(u, t, n);
  rd_source<<<gs, 128, 0, s>>>(s0, src, n);
  rd_monitor<<<gs, 128, 0, s>>>(u, m, n);
  rd_update<<<g, block, 0, s>>>(u, t, src, o, n);
  cudaFreeAsync(t, s), cudaFreeAsync(src, s);
}
/* The mapped function's intermediates, stream-ordered temporaries of the
 * function that launches the sequence (a macro, not a helper: the host pass
 * proves them dead from their allocation and free in that function). */
#define KB_MF_TEMPS_ALLOC                                                                      \
  float *AB, *ABv, *nrm, *CD, *CDC;                                                            \
  size_t bytes = (size_t)n * sizeof(float);                                                    \
  cudaMallocAsync(&AB, 9 * bytes, s), cudaMallocAsync(&ABv, 3 * bytes, s);                     \
  cudaMallocAsync(&nrm, bytes, s), cudaMallocAsync(&CD, 25 * bytes, s);                        \
  cudaMallocAsync(&CDC, 25 * bytes, s)
#define KB_MF_TEMPS_FREE                                                                       \
  cudaFreeAsync(AB, s), cudaFreeAsync(ABv, s), cudaFreeAsync(nrm, s);                          \
  cudaFreeAsync(CD, s), cudaFreeAsync(CDC, s)
/* The mapped function as a program computes it: the intermediates are
 * temporaries, F the only result. */
static void mapped_f_temps_f32(void *const *in, void *const *out, int n, int block,
                               cudaStream_t s)
{
  const float *const *i = (const float *const *)in;
  KB_MF_TEMPS_ALLOC;
  /* The launches of mf_launch, here: a helper with two callers stays a
   * call, and its temporaries come from its caller. */
  unsigned g = grid_for(n, block);
  mf_mmul33<<<g, block, 0, s>>>(i[0], i[1], AB, n);
  mf_mvmul33<<<g, block, 0, s>>>(AB, i[2], ABv, n);
  mf_norm3<<<g, block, 0, s>>>(ABv, nrm, n);
  mf_mmul55<<<g, block, 0, s>>>(i[3], i[4], CD, n);
  mf_madd55<<<g, block, 0, s>>>(CD, i[3], CDC, n);
  mf_smmul55<<<g, block, 0, s>>>(nrm, CDC, (float *)out[0], n);
  KB_MF_TEMPS_FREE;
}
/* 3x3 products at mixed granularity: the product with one thread per
 * matrix, the scaling with one per element (its own grid), the trace with
 * one per matrix; the product a temporary, S and t the results. */
__global__ KFUSE_MAP void g33_mmul(const float *A, const float *B, float *C, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float a[9], b[9];
#pragma unroll
  for (int k = 0; k < 9; k++)
    a[k] = A[9 * i + k], b[k] = B[9 * i + k];
#pragma unroll
  for (int r = 0; r < 3; r++)
#pragma unroll
    for (int c = 0; c < 3; c++)
      C[9 * i + 3 * r + c] = a[3 * r] * b[c] + a[3 * r + 1] * b[3 + c] + a[3 * r + 2] * b[6 + c];
}
__global__ KFUSE_MAP void g33_scale(const float *C, float *S, float alpha, int m)
{
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < m)
    S[j] = alpha * C[j];
}
__global__ KFUSE_MAP void g33_trace(const float *S, float *t, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    t[i] = S[9 * i] + S[9 * i + 4] + S[9 * i + 8];
}
static void gran33_f32(void *const *in, void *const *out, int n, int block, cudaStream_t s)
{
  float *C;
  cudaMallocAsync(&C, 9 * (size_t)n * sizeof(float), s);
  g33_mmul<<<grid_for(n, block), block, 0, s>>>((const float *)in[0], (const float *)in[1], C, n);
  g33_scale<<<grid_for(9 * n, block), block, 0, s>>>(C, (float *)out[0], kb_gran_alpha, 9 * n);
  g33_trace<<<grid_for(n, block), block, 0, s>>>((const float *)out[0], (float *)out[1], n);
  cudaFreeAsync(C, s);
}
/* The mapped function at the seed paper's medium grain: each routine with
 * the threads per instance its output has elements (a 3x3 product with
 * nine, a matrix-vector product with three, the norm with one, a 5x5
 * product with five (a row each), the sum and the scaling with 25); the
 * intermediates temporaries, F the result. Each routine's work for thread
 * j is a function of its own, so that the kernels as the bench launches
 * them (mfg_*) and the implementations mapped-f-impl marks (mfi_*) run the
 * same code. */
__device__ inline void mfg_mmul33_at(const float *A, const float *B, float *AB, int j)
{
  int i = j / 9, r = j % 9 / 3, c = j % 3;
  const float *a = &A[9 * i + 3 * r], *b = &B[9 * i + c];
  AB[j] = a[0] * b[0] + a[1] * b[3] + a[2] * b[6];
}
__device__ inline void mfg_mvmul33_at(const float *AB, const float *v, float *ABv, int j)
{
  int i = j / 3;
  ABv[j] = AB[3 * j] * v[3 * i] + AB[3 * j + 1] * v[3 * i + 1] + AB[3 * j + 2] * v[3 * i + 2];
}
__device__ inline void mfg_mmul55_at(const float *C, const float *D, float *CD, int j)
{
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
__device__ inline void mfg_madd55_at(const float *CD, const float *C, float *CDC, int j)
{
  CDC[j] = CD[j] + C[j];
}
__device__ inline void mfg_smmul55_at(const float *nrm, const float *CDC, float *F, int j)
{
  F[j] = nrm[j / 25] * CDC[j];
}
/* The sum and the scaling with five threads per instance, a row each. */
__device__ inline void mfg5_madd55_at(const float *CD, const float *C, float *CDC, int j)
{
#pragma unroll
  for (int k = 0; k < 5; k++)
    CDC[5 * j + k] = CD[5 * j + k] + C[5 * j + k];
}
__device__ inline void mfg5_smmul55_at(const float *nrm, const float *CDC, float *F, int j)
{
  float s = nrm[j / 5];
#pragma unroll
  for (int k = 0; k < 5; k++)
    F[5 * j + k] = s * CDC[5 * j + k];
}
/* A kernel of thread j < m over routine ROUTINE's work, marked MARK. */
#define KB_MFG_KERNEL(MARK, NAME, ROUTINE, T0, T1, T2)                                        \
  __global__ MARK void NAME(const float *x0, T1 x1, T2 *x2, int m)                            \
  {                                                                                            \
    int j = blockIdx.x * blockDim.x + threadIdx.x;                                             \
    if (j < m)                                                                                 \
      ROUTINE(x0, x1, x2, j);                                                                  \
  }
KB_MFG_KERNEL(KFUSE_MAP, mfg_mmul33, mfg_mmul33_at, float, const float *, float)
KB_MFG_KERNEL(KFUSE_MAP, mfg_mvmul33, mfg_mvmul33_at, float, const float *, float)
__global__ KFUSE_MAP void mfg_norm3(const float *ABv, float *nrm, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float x = ABv[3 * i], y = ABv[3 * i + 1], z = ABv[3 * i + 2];
  nrm[i] = sqrtf(x * x + y * y + z * z);
}
KB_MFG_KERNEL(KFUSE_MAP, mfg_mmul55, mfg_mmul55_at, float, const float *, float)
KB_MFG_KERNEL(KFUSE_MAP, mfg_madd55, mfg_madd55_at, float, const float *, float)
KB_MFG_KERNEL(KFUSE_MAP, mfg_smmul55, mfg_smmul55_at, float, const float *, float)
static void mapped_f_gran_f32(void *const *in, void *const *out, int n, int block,
                              cudaStream_t s)
{
  const float *const *i = (const float *const *)in;
  KB_MF_TEMPS_ALLOC;
  mfg_mmul33<<<grid_for(9 * n, block), block, 0, s>>>(i[0], i[1], AB, 9 * n);
  mfg_mvmul33<<<grid_for(3 * n, block), block, 0, s>>>(AB, i[2], ABv, 3 * n);
  mfg_norm3<<<grid_for(n, block), block, 0, s>>>(ABv, nrm, n);
  mfg_mmul55<<<grid_for(5 * n, block), block, 0, s>>>(i[3], i[4], CD, 5 * n);
  mfg_madd55<<<grid_for(25 * n, block), block, 0, s>>>(CD, i[3], CDC, 25 * n);
  mfg_smmul55<<<grid_for(25 * n, block), block, 0, s>>>(nrm, CDC, (float *)out[0], 25 * n);
  KB_MF_TEMPS_FREE;
}
/* The mapped function with its 5x5 routines at five threads per instance
 * (a row each) where mapped-f-gran has 25: the sum and the scaling of
 * each row by one thread, so that the widest stage is the 3x3 product's
 * nine threads and a block holds 28 instances instead of 10. */
KB_MFG_KERNEL(KFUSE_MAP, mfg5_madd55, mfg5_madd55_at, float, const float *, float)
KB_MFG_KERNEL(KFUSE_MAP, mfg5_smmul55, mfg5_smmul55_at, float, const float *, float)
static void mapped_f_gran5_f32(void *const *in, void *const *out, int n, int block,
                               cudaStream_t s)
{
  const float *const *i = (const float *const *)in;
  KB_MF_TEMPS_ALLOC;
  mfg_mmul33<<<grid_for(9 * n, block), block, 0, s>>>(i[0], i[1], AB, 9 * n);
  mfg_mvmul33<<<grid_for(3 * n, block), block, 0, s>>>(AB, i[2], ABv, 3 * n);
  mfg_norm3<<<grid_for(n, block), block, 0, s>>>(ABv, nrm, n);
  mfg_mmul55<<<grid_for(5 * n, block), block, 0, s>>>(i[3], i[4], CD, 5 * n);
  mfg5_madd55<<<grid_for(5 * n, block), block, 0, s>>>(CD, i[3], CDC, 5 * n);
  mfg5_smmul55<<<grid_for(5 * n, block), block, 0, s>>>(nrm, CDC, (float *)out[0], 5 * n);
  KB_MF_TEMPS_FREE;
}
/* The mapped function as a program writes it, one thread per instance, with
 * every routine's implementations marked (kfuse_impl): the launches name
 * the one-thread kernels, and the fused kernel runs the implementations the
 * planner chooses with the psi tables (-kfuse-psi, KB_PSI in
 * tools/CMakeLists.txt). The one-thread kernels compute each value as the
 * medium-grained ones do, with the indices a one-thread kernel writes
 * (nrm[i], not nrm[j / 5] of j = 5 * i + r, which the analysis would take
 * for a gather). */
__global__ KFUSE_IMPL("mmul33", 1) void mfi_mmul33(const float *A, const float *B, float *AB, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  mf_mmul33_at(A, B, AB, i);
}
__global__ KFUSE_IMPL("mvmul33", 1) void mfi_mvmul33(const float *AB, const float *v, float *ABv,
                                                    int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
#pragma unroll
  for (int r = 0; r < 3; r++)
    ABv[3 * i + r] = AB[9 * i + 3 * r] * v[3 * i] + AB[9 * i + 3 * r + 1] * v[3 * i + 1] +
                     AB[9 * i + 3 * r + 2] * v[3 * i + 2];
}
__global__ KFUSE_IMPL("norm3", 1) void mfi_norm3(const float *ABv, float *nrm, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float x = ABv[3 * i], y = ABv[3 * i + 1], z = ABv[3 * i + 2];
  nrm[i] = sqrtf(x * x + y * y + z * z);
}
__global__ KFUSE_IMPL("mmul55", 1) void mfi_mmul55(const float *C, const float *D, float *CD, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  mf_mmul55_at(C, D, CD, i);
}
__global__ KFUSE_IMPL("madd55", 1) void mfi_madd55(const float *CD, const float *C, float *CDC, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
#pragma unroll
  for (int r = 0; r < 5; r++)
    mfg5_madd55_at(CD, C, CDC, 5 * i + r);
}
__global__ KFUSE_IMPL("smmul55", 1) void mfi_smmul55(const float *nrm, const float *CDC, float *F,
                                                    int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float x = nrm[i];
#pragma unroll
  for (int k = 0; k < 25; k++)
    F[25 * i + k] = x * CDC[25 * i + k];
}
KB_MFG_KERNEL(KFUSE_IMPL("mmul33", 9), mfi_mmul33_9, mfg_mmul33_at, float, const float *, float)
KB_MFG_KERNEL(KFUSE_IMPL("mvmul33", 3), mfi_mvmul33_3, mfg_mvmul33_at, float, const float *, float)
KB_MFG_KERNEL(KFUSE_IMPL("mmul55", 5), mfi_mmul55_5, mfg_mmul55_at, float, const float *, float)
KB_MFG_KERNEL(KFUSE_IMPL("madd55", 5), mfi_madd55_5, mfg5_madd55_at, float, const float *, float)
KB_MFG_KERNEL(KFUSE_IMPL("madd55", 25), mfi_madd55_25, mfg_madd55_at, float, const float *, float)
KB_MFG_KERNEL(KFUSE_IMPL("smmul55", 5), mfi_smmul55_5, mfg5_smmul55_at, float, const float *, float)
KB_MFG_KERNEL(KFUSE_IMPL("smmul55", 25), mfi_smmul55_25, mfg_smmul55_at, float, const float *, float)
/* kfuse_bench_derived.cu */
void mapped_f_derived_f32(void *const *in, void *const *out, int n, int block, cudaStream_t s);
static void mapped_f_impl_f32(void *const *in, void *const *out, int n, int block, cudaStream_t s)
{
  const float *const *i = (const float *const *)in;
  KB_MF_TEMPS_ALLOC;
  unsigned g = grid_for(n, block);
  mfi_mmul33<<<g, block, 0, s>>>(i[0], i[1], AB, n);
  mfi_mvmul33<<<g, block, 0, s>>>(AB, i[2], ABv, n);
  mfi_norm3<<<g, block, 0, s>>>(ABv, nrm, n);
  mfi_mmul55<<<g, block, 0, s>>>(i[3], i[4], CD, n);
  mfi_madd55<<<g, block, 0, s>>>(CD, i[3], CDC, n);
  mfi_smmul55<<<g, block, 0, s>>>(nrm, CDC, (float *)out[0], n);
  KB_MF_TEMPS_FREE;
}
#undef KB_MFG_KERNEL
#undef KB_TEMP
#undef KB_MF_TEMPS_ALLOC
#undef KB_MF_TEMPS_FREE

/* Each thread owns kb_items consecutive values and loops over them in a
 * loop the compiler keeps (`#pragma unroll 1`, as code written to limit its
 * size has it): t = exp(-x^2 / 2); o = t * y + t; t a temporary. kfuse
 * fuses the two through copies with the loops unrolled (ThreadLoops.h). */
__global__ KFUSE_MAP void it_bell(const float *x, float *t, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
#pragma unroll 1
  for (int k = 0; k < kb_items; k++) {
    float v = x[kb_items * i + k];
    t[kb_items * i + k] = expf(-0.5f * v * v);
  }
}
__global__ KFUSE_MAP void it_blend(const float *t, const float *y, float *o, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
#pragma unroll 1
  for (int k = 0; k < kb_items; k++)
    o[kb_items * i + k] = t[kb_items * i + k] * y[kb_items * i + k] + t[kb_items * i + k];
}
static void items_f32(void *const *in, void *const *out, int n, int block, cudaStream_t s)
{
  float *t;
  cudaMallocAsync(&t, (size_t)n * kb_items * sizeof(float), s);
  unsigned g = grid_for(n, block);
  it_bell<<<g, block, 0, s>>>((const float *)in[0], t, n);
  it_blend<<<g, block, 0, s>>>(t, (const float *)in[1], (float *)out[0], n);
  cudaFreeAsync(t, s);
}

/* A host function, not a namespace-scope table: clang would also emit a
 * constant-initialised global for the device, where host function addresses
 * do not exist. */
const kb_workload *workloads()
{
  static const kb_workload table[KB_NWORKLOADS] = {
      {"chain2", "chain2_f32", "f32", 4, 3, 2, 2, 4 * 5.0, chain2_f32, nullptr, 0, 0},
      {"chain4", "chain4_f32", "f32", 4, 3, 4, 4, 4 * 7.0, chain4_f32, nullptr, 0, 0},
      {"chain8", "chain8_f32", "f32", 4, 3, 8, 8, 4 * 11.0, chain8_f32, nullptr, 0, 0},
      {"chain2", "chain2_f64", "f64", 8, 3, 2, 2, 8 * 5.0, chain2_f64, nullptr, 0, 0},
      {"chain4", "chain4_f64", "f64", 8, 3, 4, 4, 8 * 7.0, chain4_f64, nullptr, 0, 0},
      {"chain8", "chain8_f64", "f64", 8, 3, 8, 8, 8 * 11.0, chain8_f64, nullptr, 0, 0},
      {"blas1", "blas1_f64", "f64", 8, 3, 3, 3, 8 * 6.0, blas1_f64, nullptr, 0, 0},
      {"epilogue", "epilogue_f32", "f32", 4, 3, 4, 4, 4 * 6.0, epilogue_f32, nullptr, 0, 0},
      {"mapped-f", "mf_launch", "f32", 4, 5, 6, 6, 4 * (71.0 + 88.0), mapped_f32,
       kb_mapped_f_width, 16, 0},
      {"image2d", "image2d_f32", "f32", 4, 1, 3, 3, 4 * 4.0, image2d_f32, nullptr, 0, 0},
      {"field3d", "field3d_f64", "f64", 8, 2, 2, 2, 8 * 4.0, field3d_f64, nullptr, 0, 0},
      {"gridstride", "gridstride_f32", "f32", 4, 2, 3, 3, 4 * 5.0, gridstride_f32, nullptr, 0, 0},
      {"activation", "activation_f32", "f32", 4, 1, 3, 3, 4 * 4.0, activation_f32, nullptr, 0, 0},
      {"half", "half_f16", "f16", 2, 2, 3, 3, 2 * 5.0, half_f16, nullptr, 0, 0},
      /* Per call kb_temp_steps steps, each reading x, y, z and writing o. */
      {"temps2", "temps2_f32", "f32", 4, 3, 1, 2, kb_temp_steps * 4 * 4.0, temps2_f32, nullptr,
       0, 0},
      {"temps4", "temps4_f32", "f32", 4, 3, 1, 4, kb_temp_steps * 4 * 4.0, temps4_f32, nullptr,
       0, 0},
      {"temps5", "temps5_f32", "f32", 4, 3, 1, 5, kb_temp_steps * 4 * 4.0, temps5_f32, nullptr,
       0, 0},
      {"temps8", "temps8_f32", "f32", 4, 3, 1, 8, kb_temp_steps * 4 * 4.0, temps8_f32, nullptr,
       0, 0},
      {"tempsblas1", "temps_blas1_f64", "f64", 8, 3, 1, 3, kb_temp_steps * 8 * 4.0,
       temps_blas1_f64, nullptr, 0, 0},
      /* a read, a, b and c written; a starts as the input (inout). */
      {"stream", "stream_f64", "f64", 8, 1, 3, 5, 8 * 4.0, stream_f64, nullptr, 0, 1},
      /* Three inputs read and three outputs written, nothing shared. */
      {"horizontal", "horizontal_f32", "f32", 4, 3, 3, 3, 4 * 6.0, horizontal_f32, nullptr, 0, 0},
      /* Three inputs read and three outputs written, v and vn twice as long. */
      {"split", "split_f32", "f32", 4, 3, 3, 3, 4 * 8.0, split_f32, kb_split_width, 0, 0},
      /* Per call kb_temp_steps steps, each reading u and writing o. */
      {"halo", "halo_f32", "f32", 4, 1, 1, 3, kb_temp_steps * 4 * 2.0, halo_f32, nullptr, 0, 0},
      /* Per call kb_temp_steps steps on a 2-D grid, each reading u and writing o. */
      {"heat2d", "heat2d_f32", "f32", 4, 1, 1, 3, kb_temp_steps * 4 * 2.0, heat2d_f32, nullptr,
       0, 0},
      /* u and s0 read, o and m written; the flux and the source temporaries. */
      {"reorder", "reorder_f32", "f32", 4, 2, 2, 4, 4 * 4.0, reorder_f32, nullptr, 0, 0},
      /* The mapped function with temporaries: A, B, v, C, D read, F written. */
      {"mapped-f-temps", "mf_launch", "f32", 4, 5, 1, 6, 4 * (71.0 + 25.0), mapped_f_temps_f32,
       kb_mapped_f_temps_width, 16, 0},
      /* A and B read, S and t written; the product a temporary. */
      {"gran33", "gran33_f32", "f32", 4, 2, 2, 3, 4 * (18.0 + 10.0), gran33_f32, kb_gran33_width,
       4, 0},
      /* The mapped function at medium grain: A, B, v, C, D read, F written. */
      {"mapped-f-gran", "mapped_f_gran_f32", "f32", 4, 5, 1, 6, 4 * (71.0 + 25.0),
       mapped_f_gran_f32, kb_mapped_f_temps_width, 16, 0},
      /* The same with the 5x5 routines at five threads per instance. */
      {"mapped-f-gran5", "mapped_f_gran5_f32", "f32", 4, 5, 1, 6, 4 * (71.0 + 25.0),
       mapped_f_gran5_f32, kb_mapped_f_temps_width, 16, 0},
      {"mapped-f-impl", "mapped_f_impl_f32", "f32", 4, 5, 1, 6, 4 * (71.0 + 25.0),
       mapped_f_impl_f32, kb_mapped_f_temps_width, 16, 0},
      /* The same with only the one-thread kernels written: the device pass
       * derives the others (kfuse_bench_derived.cu). */
      {"mapped-f-derived", "mapped_f_derived_f32", "f32", 4, 5, 1, 6, 4 * (71.0 + 25.0),
       mapped_f_derived_f32, kb_mapped_f_temps_width, 16, 0},
      /* x and y read, o written, kb_items values of each per thread; t a temporary. */
      {"items", "items_f32", "f32", 4, 2, 1, 2, 4 * 3.0 * kb_items, items_f32, kb_items_width,
       kb_items, 0},
      /* temps4 through lambdas, and through a struct of pointers. */
      {"lambda4", "lambda4_f32", "f32", 4, 3, 1, 4, kb_temp_steps * 4 * 4.0, lambda4_f32, nullptr,
       0, 0},
      {"struct4", "struct4_f32", "f32", 4, 3, 1, 4, kb_temp_steps * 4 * 4.0, struct4_f32, nullptr,
       0, 0},
      /* gridstride with size_t loops under `#pragma unroll 4`. */
      {"gridstride-unroll", "gridstride_unroll_f32", "f32", 4, 2, 3, 3, 4 * 5.0,
       gridstride_unroll_f32, nullptr, 0, 0},
      /* gridstride over cooperative groups' grid rank. */
      {"gridstride-cg", "gridstride_cg_f32", "f32", 4, 2, 3, 3, 4 * 5.0, gridstride_cg_f32,
       nullptr, 0, 0},
      /* gridstride over an image in a nest of grid-stride loops. */
      {"gridnest", "gridnest_f32", "f32", 4, 2, 3, 3, 4 * 5.0, gridnest_f32, nullptr, 0, 0},
  };
  return table;
}

} // namespace KB_NS
