/* cache_hints: chains whose kernels load and store through the cache-hint
 * functions, as bandwidth-bound codes write them (streaming inputs with
 * __ldcs, results with __stwt, float4 for 16-byte accesses).
 *
 * Sequence `scalars`: t = 2 * __ldcs(x), stored with __stwt; o = __ldcg(t)
 * + __ldg(y).
 * Sequence `vectors`, on float4: t4 = 2 * __ldcs(x4), stored with __stwt;
 * o4 = __ldcs(t4) + __ldcg(y4), stored with __stwt; p4 = o4 + 1, plain.
 * The analysis sees each float4 cache-hint access as four scalar ones; the
 * fused kernel forwards t4 and o4 lane by lane and keeps 16-byte accesses.
 * Sequence `scratch`: the vector chain into a temporary that is freed after
 * the run, so the fused kernel's copy without t's and o's stores runs.
 *
 * Every value is one float operation on float inputs: the host reference
 * is exact. Fused and unfused runs must agree bit for bit (tools/gpu-check). */
#include "common.h"
#include "kfuse_example.h"

__global__ KFUSE_MAP void ldcs_scale(const float *x, float *t, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    __stwt(&t[i], 2.0f * __ldcs(&x[i]));
}

__global__ KFUSE_MAP void ldcg_add(const float *t, const float *y, float *o, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    o[i] = __ldcg(&t[i]) + __ldg(&y[i]);
}

__global__ KFUSE_MAP void vec_scale(const float4 *x, float4 *t, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float4 a = __ldcs(&x[i]);
    __stwt(&t[i], make_float4(2.0f * a.x, 2.0f * a.y, 2.0f * a.z, 2.0f * a.w));
  }
}

__global__ KFUSE_MAP void vec_add(const float4 *t, const float4 *y, float4 *o, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float4 a = __ldcs(&t[i]), b = __ldcg(&y[i]);
    __stwt(&o[i], make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w));
  }
}

__global__ KFUSE_MAP void vec_bias(const float4 *o, float4 *p, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float4 a = o[i];
    p[i] = make_float4(a.x + 1.0f, a.y + 1.0f, a.z + 1.0f, a.w + 1.0f);
  }
}

static void scalars(const float *x, const float *y, float *t, float *o, int n, int block, cudaStream_t s)
{
  unsigned grid = kfx::grid_for(n, block);
  ldcs_scale<<<grid, block, 0, s>>>(x, t, n);
  ldcg_add<<<grid, block, 0, s>>>(t, y, o, n);
}

static void vectors(const float4 *x, const float4 *y, float4 *t, float4 *o, float4 *p, int n, int block,
                    cudaStream_t s)
{
  unsigned grid = kfx::grid_for(n, block);
  vec_scale<<<grid, block, 0, s>>>(x, t, n);
  vec_add<<<grid, block, 0, s>>>(t, y, o, n);
  vec_bias<<<grid, block, 0, s>>>(o, p, n);
}

/* t and o are temporaries here, freed after the run: dead. */
static void scratch(const float4 *x, const float4 *y, float4 *p, int n, int block, cudaStream_t s)
{
  unsigned grid = kfx::grid_for(n, block);
  float4 *t = nullptr, *o = nullptr;
  KFX_CHECK(cudaMalloc(&t, (size_t)n * sizeof(float4)));
  KFX_CHECK(cudaMalloc(&o, (size_t)n * sizeof(float4)));
  vec_scale<<<grid, block, 0, s>>>(x, t, n);
  vec_add<<<grid, block, 0, s>>>(t, y, o, n);
  vec_bias<<<grid, block, 0, s>>>(o, p, n);
  KFX_CHECK(cudaFree(t));
  KFX_CHECK(cudaFree(o));
}

int main(int argc, char **argv)
{
  kfx::Args a = kfx::parse_args(argc, argv, "cache_hints", 1 << 24);
  kfx::require_device("cache_hints");
  const size_t n = (size_t)a.n, n4 = n / 4, m = 4 * n4;
  kfx::Buf<float> x(n), y(n), t(n), o(n), t4(m), o4(m), p4(m), q4(m);
  kfx::fill_uniform(x.h, a.seed, 1, -2.0, 2.0);
  kfx::fill_uniform(y.h, a.seed, 2, -2.0, 2.0);
  x.upload();
  y.upload();
  cudaStream_t s;
  KFX_CHECK(cudaStreamCreate(&s));
  auto v4 = [](float *p) { return reinterpret_cast<float4 *>(p); };
  auto check = [&] {
    std::vector<double> rt(n), ro(n), rp(m);
    for (size_t i = 0; i < n; i++) {
      float tt = 2.0f * x.h[i], oo = tt + y.h[i];
      rt[i] = tt;
      ro[i] = oo;
      if (i < m)
        rp[i] = oo + 1.0f;
    }
    bool ok = kfx::check_close("t", t.h.data(), rt.data(), n, 0);
    ok = kfx::check_close("o", o.h.data(), ro.data(), n, 0) && ok;
    ok = kfx::check_close("t4", t4.h.data(), rt.data(), m, 0) && ok;
    ok = kfx::check_close("o4", o4.h.data(), ro.data(), m, 0) && ok;
    ok = kfx::check_close("p4", p4.h.data(), rp.data(), m, 0) && ok;
    return kfx::check_close("q4", q4.h.data(), rp.data(), m, 0) && ok;
  };
  int rc = kfx::run_and_report(
      "cache_hints", a, s, 7.0 * n * sizeof(float),
      [&] {
        scalars(x.d, y.d, t.d, o.d, (int)n, a.block, s);
        vectors(v4(x.d), v4(y.d), v4(t4.d), v4(o4.d), v4(p4.d), (int)n4, a.block, s);
        scratch(v4(x.d), v4(y.d), v4(q4.d), (int)n4, a.block, s);
      },
      check, t, o, t4, o4, p4, q4);
  KFX_CHECK(cudaStreamDestroy(s));
  /* The three sites, each fused on every call (tools/gpu-check). */
  std::printf("SITES all-fused count=3\n");
  return rc;
}
