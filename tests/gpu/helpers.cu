/* helpers: launches written as calls of launch helpers, host functions whose
 * whole body is one launch (docs/annotations.md). The Clang plugin reads
 * such calls as the launches they make, and the host pass inlines the
 * helpers before it looks for runs, so these fuse like launches written in
 * place.
 *
 *   pair      scale_into(x, t); add_into(t, y, o): t forwarded in registers
 *   chain     three helpers, the grid computed in each from n, on a stream
 *   template  helper templates, the block size a template argument
 *   lengths   the same helpers called with two lengths (equal at run time,
 *             different expressions: the device pass does not fuse them)
 *   given     a launch template given the kernel and its arguments (a
 *             pack), the way generic launch wrappers are written
 *   lambda    a generic lambda given the kernel, capturing grid and stream
 *
 * Fused and unfused runs must agree bit for bit (tools/gpu-check), and with
 * the host reference below. */
#include "common.h"
#include "kfuse_example.h"
#include "map_kernels.h"

#define IDX int i = blockIdx.x * blockDim.x + threadIdx.x

__global__ KFUSE_MAP void square(const float *t, float *o, int n)
{
  IDX;
  if (i < n)
    o[i] = t[i] * t[i];
}

static void scale_into(const float *x, float *t, float a, int n, int block, cudaStream_t s)
{
  scale<<<(n + block - 1) / block, block, 0, s>>>(x, t, a, n);
}

static void add_into(const float *t, const float *y, float *o, int n, int block, cudaStream_t s)
{
  add<<<(n + block - 1) / block, block, 0, s>>>(t, y, o, n);
}

static void square_into(const float *t, float *o, int n, int block, cudaStream_t s)
{
  square<<<(n + block - 1) / block, block, 0, s>>>(t, o, n);
}

template <int Block>
static void scale_fixed(const float *x, float *t, float a, int n, cudaStream_t s)
{
  scale<<<(n + Block - 1) / Block, Block, 0, s>>>(x, t, a, n);
}

template <int Block>
static void square_fixed(const float *t, float *o, int n, cudaStream_t s)
{
  square<<<(n + Block - 1) / Block, Block, 0, s>>>(t, o, n);
}

/* A generic launch wrapper: the kernel, then its arguments but the length. */
template <typename Kernel, typename... Args>
static void launch_on(cudaStream_t s, int n, int block, Kernel kernel, Args... args)
{
  kernel<<<(n + block - 1) / block, block, 0, s>>>(args..., n);
}

int main(int argc, char **argv)
{
  kfx::Args a = kfx::parse_args(argc, argv, "helpers", 1 << 24);
  kfx::require_device("helpers");
  const size_t n = (size_t)a.n;
  kfx::Buf<float> x(n), y(n), t1(n), o1(n), t2(n), u2(n), o2(n), t3(n), o3(n), t4(n), o4(n);
  kfx::Buf<float> t5(n), o5(n), t6(n), o6(n);
  kfx::fill_uniform(x.h, a.seed, 1, -2.0, 2.0);
  kfx::fill_uniform(y.h, a.seed, 2, -2.0, 2.0);
  x.upload();
  y.upload();
  cudaStream_t s;
  KFX_CHECK(cudaStreamCreate(&s));
  const int len = (int)n, len2 = (int)n;

  /* Each value is one or two float operations on float inputs, computed on
   * the host exactly as on the device (the product is rounded before the
   * sum in both builds: values keep their rounding across fused kernels). */
  auto check = [&] {
    std::vector<float> rt(n), ro(n), ru(n), rq(n), rs(n);
    for (size_t i = 0; i < n; i++) {
      rt[i] = 2.0f * x.h[i];
      ro[i] = rt[i] + y.h[i];
      ru[i] = 0.5f * x.h[i];
      rq[i] = ru[i] * ru[i];
      rs[i] = 3.0f * x.h[i];
    }
    bool ok = kfx::check_close("t1", t1.h.data(), rt.data(), n, 0);
    ok = kfx::check_close("o1", o1.h.data(), ro.data(), n, 0) && ok;
    ok = kfx::check_close("t2", t2.h.data(), rt.data(), n, 0) && ok;
    std::vector<float> ru2(n), ro2(n);
    for (size_t i = 0; i < n; i++) {
      ru2[i] = ro[i] * ro[i];
      ro2[i] = ru2[i] + y.h[i];
    }
    ok = kfx::check_close("u2", u2.h.data(), ru2.data(), n, 0) && ok;
    ok = kfx::check_close("o2", o2.h.data(), ro2.data(), n, 0) && ok;
    ok = kfx::check_close("t3", t3.h.data(), ru.data(), n, 0) && ok;
    ok = kfx::check_close("o3", o3.h.data(), rq.data(), n, 0) && ok;
    ok = kfx::check_close("t4", t4.h.data(), rs.data(), n, 0) && ok;
    std::vector<float> ro4(n), rt5(n), ro5(n), rt6(n), ro6(n);
    for (size_t i = 0; i < n; i++) {
      ro4[i] = rs[i] * rs[i];
      rt5[i] = 1.5f * x.h[i];
      ro5[i] = rt5[i] * rt5[i];
      rt6[i] = 0.25f * x.h[i];
      ro6[i] = rt6[i] + y.h[i];
    }
    ok = kfx::check_close("o4", o4.h.data(), ro4.data(), n, 0) && ok;
    ok = kfx::check_close("t5", t5.h.data(), rt5.data(), n, 0) && ok;
    ok = kfx::check_close("o5", o5.h.data(), ro5.data(), n, 0) && ok;
    ok = kfx::check_close("t6", t6.h.data(), rt6.data(), n, 0) && ok;
    return kfx::check_close("o6", o6.h.data(), ro6.data(), n, 0) && ok;
  };
  const int grid = (len + a.block - 1) / a.block;
  auto with = [&](auto kernel, auto... args) { kernel<<<grid, a.block, 0, s>>>(args..., len); };
  int rc = kfx::run_and_report(
      "helpers", a, s, 23.0 * n * sizeof(float),
      [&] {
        // pair
        scale_into(x.d, t1.d, 2.0f, len, a.block, s);
        add_into(t1.d, y.d, o1.d, len, a.block, s);
        // chain: t2 = 2x; u2 = (t2 + y)^2 through o1's buffer shape; o2 = u2 + y
        scale_into(x.d, t2.d, 2.0f, len, a.block, s);
        add_into(t2.d, y.d, o2.d, len, a.block, s);
        square_into(o2.d, u2.d, len, a.block, s);
        add_into(u2.d, y.d, o2.d, len, a.block, s);
        // template
        scale_fixed<128>(x.d, t3.d, 0.5f, len, s);
        square_fixed<128>(t3.d, o3.d, len, s);
        // lengths
        scale_into(x.d, t4.d, 3.0f, len, a.block, s);
        square_into(t4.d, o4.d, len2, a.block, s);
        // given
        launch_on(s, len, a.block, scale, (const float *)x.d, t5.d, 1.5f);
        launch_on(s, len, a.block, square, (const float *)t5.d, o5.d);
        // lambda
        with(scale, (const float *)x.d, t6.d, 0.25f);
        with(add, (const float *)t6.d, (const float *)y.d, o6.d);
      },
      check, t1, o1, t2, u2, o2, t3, o3, t4, o4, t5, o5, t6, o6);
  KFX_CHECK(cudaStreamDestroy(s));
  return rc;
}
