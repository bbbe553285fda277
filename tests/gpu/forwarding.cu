/* forwarding: register forwarding where the producer's store does not
 * always happen, or happens twice, or the consumer writes the buffer too.
 * The fused kernel must then forward the value the thread stored last and
 * read memory where no stage of the thread stored; t is prefilled with
 * random values, so an element nobody writes keeps its own.
 *
 * Sequence `two_stores`: t[i] = 2x if x > 0.5, then t[i] = x - 3 if
 * x < -0.5 (neither for x in [-0.5, 0.5]); then t[i] += y[i] where y > 0,
 * reading t first; then o1 = t / 2.
 * Sequence `self_read`: the same producer into t2; then t2[i] = y[i] where
 * y < 0, and o2 = t2 + 1 read after that store.
 * Sequence `early_exit`: t3[i] = x[i] unless x < 0 (return first); o3 = t3/2.
 * Sequence `even`: t4[i] = 3x for even i only; o4 = t4 / 2.
 * Sequence `through_copy`: the producer writes through a local copy of t5
 * (`float *out = t5;`), the consumer reads t5: the same buffer to the
 * Clang plugin, so t5 is forwarded (the runtime's `equal` guard holds).
 * Sequence `coarse`: each thread handles four elements a block's width
 * apart, as thread-coarsened kernels do (t6 = 1.5x, o6 = t6 + y): each
 * element's value stays in the register of the thread that made it,
 * including the partial last block of elements.
 * Sequence `by_value`: both kernels take their scale, shift and length in a
 * struct passed by value (t7 = x·scale, o7 = t7 + shift): the fused kernel
 * takes each struct by value too.
 *
 * Fused and unfused runs must agree bit for bit (tools/gpu-check), and with
 * the host reference below. */
#include "common.h"
#include "kfuse_example.h"

__global__ KFUSE_MAP void two_stores(const float *x, float *t, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    if (v > 0.5f)
      t[i] = v * 2.0f;
    if (v < -0.5f)
      t[i] = v - 3.0f;
  }
}

__global__ KFUSE_MAP void add_where_positive(float *t, const float *y, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float a = t[i];
    if (y[i] > 0.0f)
      t[i] = a + y[i];
  }
}

__global__ KFUSE_MAP void half(const float *t, float *o, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    o[i] = t[i] * 0.5f;
}

__global__ KFUSE_MAP void store_then_read(float *t, const float *y, float *o, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    if (y[i] < 0.0f)
      t[i] = y[i];
    o[i] = t[i] + 1.0f;
  }
}

__global__ KFUSE_MAP void copy_nonnegative(const float *x, float *t, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  if (x[i] < 0.0f)
    return;
  t[i] = x[i];
}

__global__ KFUSE_MAP void triple_even(const float *x, float *t, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && (i & 1) == 0)
    t[i] = 3.0f * x[i];
}

constexpr int kItems = 4;

__global__ KFUSE_MAP void coarse_scale(const float *x, float *t, int n)
{
  int base = blockIdx.x * blockDim.x * kItems + threadIdx.x;
#pragma unroll
  for (int k = 0; k < kItems; k++) {
    int j = base + k * blockDim.x;
    if (j < n)
      t[j] = 1.5f * x[j];
  }
}

__global__ KFUSE_MAP void coarse_add(const float *t, const float *y, float *o, int n)
{
  int base = blockIdx.x * blockDim.x * kItems + threadIdx.x;
#pragma unroll
  for (int k = 0; k < kItems; k++) {
    int j = base + k * blockDim.x;
    if (j < n)
      o[j] = t[j] + y[j];
  }
}

static void coarse_seq(const float *x, const float *y, float *t6, float *o6, int n, int block,
                       cudaStream_t s)
{
  unsigned grid = kfx::grid_for(n, block * kItems);
  coarse_scale<<<grid, block, 0, s>>>(x, t6, n);
  coarse_add<<<grid, block, 0, s>>>(t6, y, o6, n);
}

struct Step {
  float scale, shift;
  int n;
};

__global__ KFUSE_MAP void step_scale(const float *x, float *t, Step p)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < p.n)
    t[i] = x[i] * p.scale;
}

__global__ KFUSE_MAP void step_shift(const float *t, float *o, Step p)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < p.n)
    o[i] = t[i] + p.shift;
}

static void by_value_seq(const float *x, float *t7, float *o7, Step p, int block, cudaStream_t s)
{
  unsigned grid = kfx::grid_for(p.n, block);
  step_scale<<<grid, block, 0, s>>>(x, t7, p);
  step_shift<<<grid, block, 0, s>>>(t7, o7, p);
}

static void two_stores_seq(const float *x, const float *y, float *t1, float *o1, int n, int block,
                           cudaStream_t s)
{
  unsigned grid = kfx::grid_for(n, block);
  two_stores<<<grid, block, 0, s>>>(x, t1, n);
  add_where_positive<<<grid, block, 0, s>>>(t1, y, n);
  half<<<grid, block, 0, s>>>(t1, o1, n);
}

static void self_read_seq(const float *x, const float *y, float *t2, float *o2, int n, int block,
                          cudaStream_t s)
{
  unsigned grid = kfx::grid_for(n, block);
  two_stores<<<grid, block, 0, s>>>(x, t2, n);
  store_then_read<<<grid, block, 0, s>>>(t2, y, o2, n);
}

static void early_exit_seq(const float *x, float *t3, float *o3, int n, int block, cudaStream_t s)
{
  unsigned grid = kfx::grid_for(n, block);
  copy_nonnegative<<<grid, block, 0, s>>>(x, t3, n);
  half<<<grid, block, 0, s>>>(t3, o3, n);
}

static void even_seq(const float *x, float *t4, float *o4, int n, int block, cudaStream_t s)
{
  unsigned grid = kfx::grid_for(n, block);
  triple_even<<<grid, block, 0, s>>>(x, t4, n);
  half<<<grid, block, 0, s>>>(t4, o4, n);
}

static void through_copy_seq(const float *x, float *t5, float *o5, int n, int block,
                             cudaStream_t s)
{
  unsigned grid = kfx::grid_for(n, block);
  float *out = t5;
  triple_even<<<grid, block, 0, s>>>(x, out, n);
  half<<<grid, block, 0, s>>>(t5, o5, n);
}

int main(int argc, char **argv)
{
  kfx::Args a = kfx::parse_args(argc, argv, "forwarding", 1 << 24);
  kfx::require_device("forwarding");
  const size_t n = (size_t)a.n;
  kfx::Buf<float> x(n), y(n), t_init(n), t1(n), o1(n), t2(n), o2(n), t3(n), o3(n), t4(n), o4(n),
      t5(n), o5(n), t6(n), o6(n), t7(n), o7(n);
  kfx::fill_uniform(x.h, a.seed, 1, -2.0, 2.0);
  kfx::fill_uniform(y.h, a.seed, 2, -2.0, 2.0);
  kfx::fill_uniform(t_init.h, a.seed, 3, -2.0, 2.0);
  x.upload();
  y.upload();
  t_init.upload();
  cudaStream_t s;
  KFX_CHECK(cudaStreamCreate(&s));

  /* Every value below is one float operation on float inputs, so the host
   * computes it exactly as the device does: the checks are exact. */
  auto check = [&] {
    std::vector<double> r1(n), ro1(n), r2(n), ro2(n), r3(n), ro3(n), r4(n), ro4(n), r6(n),
        ro6(n), r7(n), ro7(n);
    for (size_t i = 0; i < n; i++) {
      const float v = x.h[i], w = y.h[i], t0 = t_init.h[i];
      float p = t0;
      if (v > 0.5f)
        p = v * 2.0f;
      if (v < -0.5f)
        p = v - 3.0f;
      float q = w > 0.0f ? p + w : p;
      r1[i] = q;
      ro1[i] = q * 0.5f;
      float u = w < 0.0f ? w : p;
      r2[i] = u;
      ro2[i] = u + 1.0f;
      float c = v < 0.0f ? t0 : v;
      r3[i] = c;
      ro3[i] = c * 0.5f;
      float e = (i & 1) == 0 ? 3.0f * v : t0;
      r4[i] = e;
      ro4[i] = e * 0.5f;
      const float g = 1.5f * v;
      r6[i] = g;
      ro6[i] = g + w;
      const float h = v * 0.75f;
      r7[i] = h;
      ro7[i] = h + 0.125f;
    }
    bool ok = kfx::check_close("t1", t1.h.data(), r1.data(), n, 0);
    ok = kfx::check_close("o1", o1.h.data(), ro1.data(), n, 0) && ok;
    ok = kfx::check_close("t2", t2.h.data(), r2.data(), n, 0) && ok;
    ok = kfx::check_close("o2", o2.h.data(), ro2.data(), n, 0) && ok;
    ok = kfx::check_close("t3", t3.h.data(), r3.data(), n, 0) && ok;
    ok = kfx::check_close("o3", o3.h.data(), ro3.data(), n, 0) && ok;
    ok = kfx::check_close("t4", t4.h.data(), r4.data(), n, 0) && ok;
    ok = kfx::check_close("o4", o4.h.data(), ro4.data(), n, 0) && ok;
    ok = kfx::check_close("t5", t5.h.data(), r4.data(), n, 0) && ok;
    ok = kfx::check_close("o5", o5.h.data(), ro4.data(), n, 0) && ok;
    ok = kfx::check_close("t6", t6.h.data(), r6.data(), n, 0) && ok;
    ok = kfx::check_close("o6", o6.h.data(), ro6.data(), n, 0) && ok;
    ok = kfx::check_close("t7", t7.h.data(), r7.data(), n, 0) && ok;
    return kfx::check_close("o7", o7.h.data(), ro7.data(), n, 0) && ok;
  };
  int rc = kfx::run_and_report(
      "forwarding", a, s, 26.0 * n * sizeof(float),
      [&] {
        for (kfx::Buf<float> *t : {&t1, &t2, &t3, &t4, &t5})
          KFX_CHECK(cudaMemcpyAsync(t->d, t_init.d, t_init.bytes(), cudaMemcpyDeviceToDevice, s));
        two_stores_seq(x.d, y.d, t1.d, o1.d, (int)n, a.block, s);
        self_read_seq(x.d, y.d, t2.d, o2.d, (int)n, a.block, s);
        early_exit_seq(x.d, t3.d, o3.d, (int)n, a.block, s);
        even_seq(x.d, t4.d, o4.d, (int)n, a.block, s);
        through_copy_seq(x.d, t5.d, o5.d, (int)n, a.block, s);
        coarse_seq(x.d, y.d, t6.d, o6.d, (int)n, a.block, s);
        by_value_seq(x.d, t7.d, o7.d, Step{0.75f, 0.125f, (int)n}, a.block, s);
      },
      check, t1, o1, t2, o2, t3, o3, t4, o4, t5, o5, t6, o6, t7, o7);
  KFX_CHECK(cudaStreamDestroy(s));
  return rc;
}
