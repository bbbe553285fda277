/* global_space: accesses through the global address space, fused.
 *
 * `__ldg(&t[i])` loads through a cast of the address to the global space,
 * and so does a store through a `__attribute__((address_space(1)))`
 * pointer. The device pass takes their offsets through the cast (it once
 * read them all as t[0]).
 *
 * Sequence `forwarded`: t = a*x stored through a global-space pointer, then
 * o1 = __ldg(t) + __ldg(y): t is forwarded in registers.
 * Sequence `reversed`: u = a*x, then o2[i] = __ldg(u[the mirror of i in its
 * block]): u is staged in shared memory, with barriers; the last, partial
 * block reads the elements no thread wrote from memory (u is prefilled).
 *
 * Fused and unfused runs must agree bit for bit (tools/gpu-check), and with
 * the host reference below. */
#include "common.h"
#include "kfuse_example.h"

typedef __attribute__((address_space(1))) float global_float;

__global__ KFUSE_MAP void scale_global(const float *x, float *t, float a, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    *(global_float *)&t[i] = a * x[i];
}

__global__ KFUSE_MAP void add_ldg(const float *u, const float *v, float *o, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    o[i] = __ldg(&u[i]) + __ldg(&v[i]);
}

__global__ KFUSE_MAP void mirror_ldg(const float *u, float *o, int n)
{
  int b = blockIdx.x * blockDim.x, i = b + threadIdx.x;
  if (i < n)
    o[i] = __ldg(&u[b + blockDim.x - 1 - threadIdx.x]);
}

static void forwarded(const float *x, const float *y, float *t, float *o1, float a, int n,
                      int block, cudaStream_t s)
{
  unsigned grid = kfx::grid_for(n, block);
  scale_global<<<grid, block, 0, s>>>(x, t, a, n);
  add_ldg<<<grid, block, 0, s>>>(t, y, o1, n);
}

static void reversed(const float *x, float *u, float *o2, float a, int n, int block,
                     cudaStream_t s)
{
  unsigned grid = kfx::grid_for(n, block);
  scale_global<<<grid, block, 0, s>>>(x, u, a, n);
  mirror_ldg<<<grid, block, 0, s>>>(u, o2, n);
}

int main(int argc, char **argv)
{
  kfx::Args a = kfx::parse_args(argc, argv, "global_space", 1 << 24);
  kfx::require_device("global_space");
  const size_t n = (size_t)a.n, block = (size_t)a.block;
  /* u spans whole blocks: the mirror of an element of the last, partial
   * block may lie past n. */
  const size_t nu = (n + block - 1) / block * block;
  const float alpha = 1.25f;
  kfx::Buf<float> x(n), y(n), t(n), o1(n), u(nu), u_init(nu), o2(n);
  kfx::fill_uniform(x.h, a.seed, 1, -2.0, 2.0);
  kfx::fill_uniform(y.h, a.seed, 2, -2.0, 2.0);
  kfx::fill_uniform(u_init.h, a.seed, 3, -2.0, 2.0);
  x.upload();
  y.upload();
  u_init.upload();
  const std::vector<float> &u0 = u_init.h;
  cudaStream_t s;
  KFX_CHECK(cudaStreamCreate(&s));

  auto check = [&] {
    std::vector<double> rt(n), ro1(n), ru(u0.begin(), u0.end()), ro2(n);
    for (size_t i = 0; i < n; i++) {
      rt[i] = (double)(float)(alpha * x.h[i]);
      ro1[i] = rt[i] + y.h[i];
      ru[i] = rt[i];
    }
    for (size_t i = 0; i < n; i++) {
      size_t b = i / block * block;
      ro2[i] = ru[b + block - 1 - (i - b)];
    }
    bool ok = kfx::check_close("t", t.h.data(), rt.data(), n, 1e-6);
    ok = kfx::check_close("o1", o1.h.data(), ro1.data(), n, 1e-6) && ok;
    ok = kfx::check_close("u", u.h.data(), ru.data(), nu, 0) && ok;
    return kfx::check_close("o2", o2.h.data(), ro2.data(), n, 0) && ok;
  };
  int rc = kfx::run_and_report(
      "global_space", a, s, (4.0 + 3.0 + 2.0) * n * sizeof(float),
      [&] {
        KFX_CHECK(cudaMemcpyAsync(u.d, u_init.d, u.bytes(), cudaMemcpyDeviceToDevice, s));
        forwarded(x.d, y.d, t.d, o1.d, alpha, (int)n, a.block, s);
        reversed(x.d, u.d, o2.d, alpha, (int)n, a.block, s);
      },
      check, t, o1, u, o2);
  KFX_CHECK(cudaStreamDestroy(s));
  return rc;
}
