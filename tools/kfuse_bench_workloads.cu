/* kfuse-bench workloads: map-kernel launch sequences, compiled twice into
 * one binary, as namespace KB_NS = kb_fused (kfuse plugins) and kb_unfused
 * (KFUSE_NO_PLUGINS=1). Only the driver's hand-fused kernels live elsewhere. */
#include "kfuse_bench.h"
#include "kfuse_example.h"

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

/* A host function, not a namespace-scope table: clang would also emit a
 * constant-initialised global for the device, where host function addresses
 * do not exist. */
const kb_workload *workloads()
{
  static const kb_workload table[KB_NWORKLOADS] = {
      {"chain2", "chain2_f32", "f32", 4, 3, 2, 2, 4 * 5.0, chain2_f32, nullptr, 0},
      {"chain4", "chain4_f32", "f32", 4, 3, 4, 4, 4 * 7.0, chain4_f32, nullptr, 0},
      {"chain8", "chain8_f32", "f32", 4, 3, 8, 8, 4 * 11.0, chain8_f32, nullptr, 0},
      {"chain2", "chain2_f64", "f64", 8, 3, 2, 2, 8 * 5.0, chain2_f64, nullptr, 0},
      {"chain4", "chain4_f64", "f64", 8, 3, 4, 4, 8 * 7.0, chain4_f64, nullptr, 0},
      {"chain8", "chain8_f64", "f64", 8, 3, 8, 8, 8 * 11.0, chain8_f64, nullptr, 0},
      {"blas1", "blas1_f64", "f64", 8, 3, 3, 3, 8 * 6.0, blas1_f64, nullptr, 0},
      {"epilogue", "epilogue_f32", "f32", 4, 3, 4, 4, 4 * 6.0, epilogue_f32, nullptr, 0},
      {"mapped-f", "mf_launch", "f32", 4, 5, 6, 6, 4 * (71.0 + 88.0), mapped_f32,
       kb_mapped_f_width, 16},
  };
  return table;
}

} // namespace KB_NS
