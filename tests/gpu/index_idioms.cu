/* index_idioms: global indices written as codes write them besides
 * blockIdx.x * blockDim.x + threadIdx.x:
 *
 *   i = __mul24(blockIdx.x, blockDim.x) + threadIdx.x;      (older codes, the
 *   i = __umul24(blockIdx.x, blockDim.x) + threadIdx.x;      CUDA samples)
 *   i = cg::this_grid().thread_rank();                       (cooperative groups)
 *   i = blockIdx.x * blockDim.x + cg::this_thread_block().thread_rank();
 *   for (i = grid.thread_rank(); i < n; i += grid.size())     (grid-stride,
 *                                                 i unsigned long long or int)
 *
 * __mul24 reads the low 24 bits of the block index, which are the index
 * while the grid has at most 2^23 blocks (a guard); cooperative groups'
 * constructors leave asm whose values nothing uses, and their ranks count y
 * and z too, which launches of integer grids and blocks do not have.
 * Sequence `legacy` (float): t = a x + y with __mul24 (and an assert()),
 * o = t t - x with __umul24; t a temporary of the call in registers, not
 * stored.
 * Sequence `groups` (float): u = 2 x + 1 by the grid's rank, p = u y by the
 * block's; u a temporary in registers.
 * Sequence `grid_loops` (float): v = x / 2 - 1, q = v y + v in grid-stride
 * loops over the grid's rank, on a fixed grid of 4 blocks per SM; v a
 * temporary in registers, the two loops one.
 * Sequence `grid_loops_3d`: the same kernels on a 3-D grid of 3-D blocks
 * (r = v y + v), whose rank counts every coordinate.
 * Sequence `grid_loops_int`: w = 3 x - y, s = w w - x with `int i`, which
 * the optimiser keeps in 64 bits (the manifest guards n + the grid's
 * threads <= 2^31); w a temporary in registers, the loops one.
 * Sequence `grid_loops_unsigned`: the same with `unsigned i` (below 2^32),
 * into r2.
 * The program prints `SITES all-fused count=6`: every sequence must run
 * fused on every call (tools/gpu-check). Fused and unfused must agree bit
 * for bit. */
#include "common.h"
#include "kfuse_example.h"

#include <cassert>
#include <cooperative_groups.h>
#include <cstdio>

namespace cg = cooperative_groups;

__global__ KFUSE_MAP void ix_axpy(const float *x, const float *y, float *t, float a, int n)
{
  assert(n > 0); /* stays in the fused kernel (its failure aborts it) */
  int i = __mul24(blockIdx.x, blockDim.x) + threadIdx.x;
  if (i < n)
    t[i] = a * x[i] + y[i];
}

__global__ KFUSE_MAP void ix_square(const float *t, const float *x, float *o, int n)
{
  unsigned i = __umul24(blockIdx.x, blockDim.x) + threadIdx.x;
  if (i < (unsigned)n)
    o[i] = t[i] * t[i] - x[i];
}

__global__ KFUSE_MAP void ix_rank(const float *x, float *u, int n)
{
  unsigned long long i = cg::this_grid().thread_rank();
  if (i < (unsigned long long)n)
    u[i] = 2.0f * x[i] + 1.0f;
}

__global__ KFUSE_MAP void ix_block_rank(const float *u, const float *y, float *p, int n)
{
  cg::thread_block b = cg::this_thread_block();
  int i = blockIdx.x * blockDim.x + (int)b.thread_rank();
  if (i < n)
    p[i] = u[i] * y[i];
}

__global__ KFUSE_MAP void ix_grid_scale(const float *x, float *v, int n)
{
  cg::grid_group g = cg::this_grid();
  for (unsigned long long i = g.thread_rank(); i < (unsigned long long)n; i += g.size())
    v[i] = 0.5f * x[i] - 1.0f;
}

__global__ KFUSE_MAP void ix_grid_mul(const float *v, const float *y, float *q, int n)
{
  auto g = cg::this_grid();
  for (auto i = g.thread_rank(); i < (unsigned long long)n; i += g.num_threads())
    q[i] = v[i] * y[i] + v[i];
}

__global__ KFUSE_MAP void ix_int_axpy(const float *x, const float *y, float *w, int n)
{
  cg::grid_group g = cg::this_grid();
  for (int i = g.thread_rank(); i < n; i += g.size())
    w[i] = 3.0f * x[i] - y[i];
}

__global__ KFUSE_MAP void ix_int_square(const float *w, const float *x, float *q, int n)
{
  cg::grid_group g = cg::this_grid();
  for (int i = g.thread_rank(); i < n; i += g.size())
    q[i] = w[i] * w[i] - x[i];
}

__global__ KFUSE_MAP void ix_uint_axpy(const float *x, const float *y, float *w, int n)
{
  cg::grid_group g = cg::this_grid();
  for (unsigned i = g.thread_rank(); i < (unsigned)n; i += g.size())
    w[i] = 3.0f * x[i] - y[i];
}

__global__ KFUSE_MAP void ix_uint_square(const float *w, const float *x, float *q, int n)
{
  cg::grid_group g = cg::this_grid();
  for (unsigned i = g.thread_rank(); i < (unsigned)n; i += g.size())
    q[i] = w[i] * w[i] - x[i];
}

static void legacy(const float *x, const float *y, float *o, float a, int n, int b, cudaStream_t s)
{
  float *t;
  KFX_CHECK(cudaMallocAsync(&t, sizeof(float) * n, s));
  ix_axpy<<<(n + b - 1) / b, b, 0, s>>>(x, y, t, a, n);
  ix_square<<<(n + b - 1) / b, b, 0, s>>>(t, x, o, n);
  KFX_CHECK(cudaFreeAsync(t, s));
}

static void groups(const float *x, const float *y, float *p, int n, int b, cudaStream_t s)
{
  float *u;
  KFX_CHECK(cudaMallocAsync(&u, sizeof(float) * n, s));
  ix_rank<<<(n + b - 1) / b, b, 0, s>>>(x, u, n);
  ix_block_rank<<<(n + b - 1) / b, b, 0, s>>>(u, y, p, n);
  KFX_CHECK(cudaFreeAsync(u, s));
}

static void grid_loops(const float *x, const float *y, float *q, int n, unsigned grid, int b,
                       cudaStream_t s)
{
  float *v;
  KFX_CHECK(cudaMallocAsync(&v, sizeof(float) * n, s));
  ix_grid_scale<<<grid, b, 0, s>>>(x, v, n);
  ix_grid_mul<<<grid, b, 0, s>>>(v, y, q, n);
  KFX_CHECK(cudaFreeAsync(v, s));
}

static void grid_loops_3d(const float *x, const float *y, float *r, int n, dim3 grid, dim3 block,
                          cudaStream_t s)
{
  float *v;
  KFX_CHECK(cudaMallocAsync(&v, sizeof(float) * n, s));
  ix_grid_scale<<<grid, block, 0, s>>>(x, v, n);
  ix_grid_mul<<<grid, block, 0, s>>>(v, y, r, n);
  KFX_CHECK(cudaFreeAsync(v, s));
}

static void grid_loops_int(const float *x, const float *y, float *q, int n, unsigned grid,
                           int b, cudaStream_t s)
{
  float *w;
  KFX_CHECK(cudaMallocAsync(&w, sizeof(float) * n, s));
  ix_int_axpy<<<grid, b, 0, s>>>(x, y, w, n);
  ix_int_square<<<grid, b, 0, s>>>(w, x, q, n);
  KFX_CHECK(cudaFreeAsync(w, s));
}

static void grid_loops_unsigned(const float *x, const float *y, float *q, int n, unsigned grid,
                                int b, cudaStream_t s)
{
  float *w;
  KFX_CHECK(cudaMallocAsync(&w, sizeof(float) * n, s));
  ix_uint_axpy<<<grid, b, 0, s>>>(x, y, w, n);
  ix_uint_square<<<grid, b, 0, s>>>(w, x, q, n);
  KFX_CHECK(cudaFreeAsync(w, s));
}

int main(int argc, char **argv)
{
  kfx::Args a = kfx::parse_args(argc, argv, "index_idioms", 1 << 24);
  kfx::require_device("index_idioms");
  const int n = (int)a.n;
  const float k = 1.5f;
  int dev = 0, sms = 0;
  KFX_CHECK(cudaGetDevice(&dev));
  KFX_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  const unsigned grid = 4u * (unsigned)sms;
  const dim3 grid3((unsigned)sms, 2, 2), block3(32, 4, 2);
  kfx::Buf<float> x(n), y(n), o(n), p(n), q(n), r(n), u(n), r2(n);
  kfx::fill_uniform(x.h, a.seed, 1, -1.0, 1.0);
  kfx::fill_uniform(y.h, a.seed, 2, -1.0, 1.0);
  x.upload(), y.upload();
  cudaStream_t s;
  KFX_CHECK(cudaStreamCreate(&s));
  /* For tools/gpu-check: every sequence runs fused on every call. */
  std::printf("SITES all-fused count=6\n");

  auto check = [&] {
    std::vector<float> ro(n), rp(n), rq(n), ru(n);
    for (int i = 0; i < n; i++) {
      float t = k * x.h[i] + y.h[i];
      ro[i] = t * t - x.h[i];
      rp[i] = (2.0f * x.h[i] + 1.0f) * y.h[i];
      float v = 0.5f * x.h[i] - 1.0f;
      rq[i] = v * y.h[i] + v;
      float w = 3.0f * x.h[i] - y.h[i];
      ru[i] = w * w - x.h[i];
    }
    bool ok = kfx::check_close("o", o.h.data(), ro.data(), n, 1e-5);
    ok = kfx::check_close("p", p.h.data(), rp.data(), n, 1e-6) && ok;
    ok = kfx::check_close("q", q.h.data(), rq.data(), n, 1e-6) && ok;
    ok = kfx::check_close("r", r.h.data(), rq.data(), n, 1e-6) && ok;
    ok = kfx::check_close("u", u.h.data(), ru.data(), n, 1e-5) && ok;
    ok = kfx::check_close("r2", r2.h.data(), ru.data(), n, 1e-5) && ok;
    return ok;
  };
  int rc = kfx::run_and_report(
      "index_idioms", a, s, (18.0 * n) * sizeof(float),
      [&] {
        legacy(x.d, y.d, o.d, k, n, a.block, s);
        groups(x.d, y.d, p.d, n, a.block, s);
        grid_loops(x.d, y.d, q.d, n, grid, a.block, s);
        grid_loops_3d(x.d, y.d, r.d, n, grid3, block3, s);
        grid_loops_int(x.d, y.d, u.d, n, grid, a.block, s);
        grid_loops_unsigned(x.d, y.d, r2.d, n, grid, a.block, s);
      },
      check, o, p, q, r, u, r2);
  KFX_CHECK(cudaStreamDestroy(s));
  return rc;
}
