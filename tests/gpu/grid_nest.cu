/* grid_nest: 2-D and 3-D codes that loop over their elements in a nest of
 * grid-stride loops on a fixed grid, one loop per dimension:
 *
 *   for (y = blockIdx.y * blockDim.y + threadIdx.y; y < h; y += blockDim.y * gridDim.y)
 *     for (x = blockIdx.x * blockDim.x + threadIdx.x; x < w; x += blockDim.x * gridDim.x)
 *
 * 1. A pitched image (3001 wide, pitch 3072 floats, size_t variables):
 *      t1 = in * 1.25 - 0.1;  t2 = t1 / (1 + |t1|);  out = 0.75 t2 + 0.25 other
 *    t1 and t2 are temporaries of the call (cudaMallocAsync'd, freed after):
 *    one fused nest, both in registers, not stored. The padding keeps its
 *    poison.
 * 2. Planes of 4096 doubles, z outside and x inside, `unsigned` variables:
 *      p = 2 u0 + 1 (a temporary);  v = p * p - u0
 * 3. A column-major matrix (`int` variables, element (y, x) at x * h + y):
 *      s = 3 in (a temporary);  c = s * in - s
 *
 * 4. Per-row gains g[y] through `__restrict__` pointers (the optimiser loads
 *    g[y] once a row, outside the inner loop), `int` variables, rows of
 *    cw cells: r1 = g[y] in + 0.5;  r2 = g[y] r1 + 0.5 (r1 in registers).
 *
 * The program prints `SITES all-fused count=4`: every sequence must run
 * fused on every call. --n is the element count of each sequence. Fused and
 * unfused must agree bit for bit (tools/gpu-check). */
#include "common.h"
#include "kfuse_example.h"

#include <cstdint>
#include <cstdio>
#include <cstring>

#define ROWS(T, V, N)                                                                        \
  for (T V = blockIdx.y * blockDim.y + threadIdx.y; V < (N); V += blockDim.y * gridDim.y)
#define PLANES(T, V, N)                                                                      \
  for (T V = blockIdx.z * blockDim.z + threadIdx.z; V < (N); V += blockDim.z * gridDim.z)
#define COLS(T, V, N)                                                                        \
  for (T V = blockIdx.x * blockDim.x + threadIdx.x; V < (N); V += blockDim.x * gridDim.x)

__global__ KFUSE_MAP void brighten(const float *in, float *t1, size_t w, size_t h, size_t pitch)
{
  ROWS(size_t, y, h) COLS(size_t, x, w) t1[y * pitch + x] = in[y * pitch + x] * 1.25f - 0.1f;
}

__global__ KFUSE_MAP void soft(const float *t1, float *t2, size_t w, size_t h, size_t pitch)
{
  ROWS(size_t, y, h) COLS(size_t, x, w)
  {
    float v = t1[y * pitch + x];
    t2[y * pitch + x] = v / (1.0f + fabsf(v));
  }
}

__global__ KFUSE_MAP void blend(const float *t2, const float *other, float *out, size_t w,
                               size_t h, size_t pitch)
{
  ROWS(size_t, y, h) COLS(size_t, x, w)
  out[y * pitch + x] = 0.75f * t2[y * pitch + x] + 0.25f * other[y * pitch + x];
}

__global__ KFUSE_MAP void plane_affine(const double *u0, double *p, unsigned w, unsigned d)
{
  PLANES(unsigned, z, d) COLS(unsigned, x, w) p[z * w + x] = 2.0 * u0[z * w + x] + 1.0;
}

__global__ KFUSE_MAP void plane_square(const double *p, const double *u0, double *v, unsigned w,
                                      unsigned d)
{
  PLANES(unsigned, z, d) COLS(unsigned, x, w) v[z * w + x] = p[z * w + x] * p[z * w + x] - u0[z * w + x];
}

__global__ KFUSE_MAP void col_scale(const float *in, float *s, int w, int h)
{
  ROWS(int, y, h) COLS(int, x, w) s[x * h + y] = 3.0f * in[x * h + y];
}

__global__ KFUSE_MAP void col_mix(const float *s, const float *in, float *c, int w, int h)
{
  ROWS(int, y, h) COLS(int, x, w) c[x * h + y] = s[x * h + y] * in[x * h + y] - s[x * h + y];
}

/* Per-row gains through `__restrict__` pointers: the optimiser loads g[y]
 * once a row, outside the inner loop. */
__global__ KFUSE_MAP void row_gain(const float *__restrict__ in, const float *__restrict__ g,
                                  float *__restrict__ out, int w, int h)
{
  ROWS(int, y, h) COLS(int, x, w) out[y * w + x] = g[y] * in[y * w + x] + 0.5f;
}

static void gains(const float *in, const float *g, float *r1, float *r2, int w, int h,
                  dim3 grid, cudaStream_t s)
{
  dim3 block(32, 8);
  row_gain<<<grid, block, 0, s>>>(in, g, r1, w, h);
  row_gain<<<grid, block, 0, s>>>(r1, g, r2, w, h);
}

static void image(const float *in, const float *other, float *out, size_t w, size_t h,
                  size_t pitch, dim3 grid, cudaStream_t s)
{
  float *t1, *t2;
  KFX_CHECK(cudaMallocAsync(&t1, sizeof(float) * pitch * h, s));
  KFX_CHECK(cudaMallocAsync(&t2, sizeof(float) * pitch * h, s));
  dim3 block(32, 8);
  brighten<<<grid, block, 0, s>>>(in, t1, w, h, pitch);
  soft<<<grid, block, 0, s>>>(t1, t2, w, h, pitch);
  blend<<<grid, block, 0, s>>>(t2, other, out, w, h, pitch);
  KFX_CHECK(cudaFreeAsync(t1, s));
  KFX_CHECK(cudaFreeAsync(t2, s));
}

static void planes(const double *u0, double *v, unsigned w, unsigned d, dim3 grid,
                   cudaStream_t s)
{
  double *p;
  KFX_CHECK(cudaMallocAsync(&p, sizeof(double) * w * d, s));
  dim3 block(128, 1, 2);
  plane_affine<<<grid, block, 0, s>>>(u0, p, w, d);
  plane_square<<<grid, block, 0, s>>>(p, u0, v, w, d);
  KFX_CHECK(cudaFreeAsync(p, s));
}

static void columns(const float *in, float *c, int w, int h, cudaStream_t s)
{
  float *t;
  KFX_CHECK(cudaMallocAsync(&t, sizeof(float) * w * h, s));
  dim3 grid(16, 16), block(32, 8);
  col_scale<<<grid, block, 0, s>>>(in, t, w, h);
  col_mix<<<grid, block, 0, s>>>(t, in, c, w, h);
  KFX_CHECK(cudaFreeAsync(t, s));
}

int main(int argc, char **argv)
{
  kfx::Args a = kfx::parse_args(argc, argv, "grid_nest", 1 << 24);
  kfx::require_device("grid_nest");
  int dev = 0, sms = 0;
  KFX_CHECK(cudaGetDevice(&dev));
  KFX_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  /* The image: 3001 wide, rows padded to 3072, as many rows as n needs. */
  const size_t w = 3001, pitch = 3072, h = ((size_t)a.n + w - 1) / w, cells = pitch * h;
  /* Planes of 4096 (fewer where n is smaller), as many as fit in n. */
  const unsigned pw = (unsigned)(a.n < 4096 ? a.n : 4096), pd = (unsigned)(a.n / pw);
  const size_t pn = (size_t)pw * pd;
  /* The column-major matrix: 1000 rows (fewer where n is smaller). */
  const int ch = (int)(a.n < 1000 ? a.n : 1000), cw = (int)(a.n / ch);
  const size_t cn = (size_t)ch * cw;
  kfx::Buf<float> in(cells), other(cells), out(cells), cin(cn), c(cn), gain(ch), r1(cn), r2(cn);
  kfx::fill_uniform(gain.h, a.seed, 5, 0.5, 1.5);
  gain.upload();
  kfx::Buf<double> u0(pn), v(pn);
  kfx::fill_uniform(in.h, a.seed, 1, -1.0, 1.0);
  kfx::fill_uniform(other.h, a.seed, 2, 0.0, 1.0);
  kfx::fill_uniform(u0.h, a.seed, 3, 0.0, 1.0);
  kfx::fill_uniform(cin.h, a.seed, 4, -2.0, 2.0);
  in.upload();
  other.upload();
  u0.upload();
  cin.upload();
  cudaStream_t s;
  KFX_CHECK(cudaStreamCreate(&s));
  /* A fixed grid, a few blocks per SM. */
  const dim3 igrid(16, (unsigned)(sms / 2 > 0 ? sms / 2 : 1));
  const dim3 pgrid(8, 1, (unsigned)(2 * sms));
  /* For tools/gpu-check: every sequence runs fused on every call. */
  std::printf("SITES all-fused count=4\n");

  auto check = [&] {
    std::vector<double> ro, go;
    size_t untouched = 0;
    for (size_t y = 0; y < h; y++)
      for (size_t x = 0; x < pitch; x++) {
        size_t i = y * pitch + x;
        if (x >= w) {
          uint32_t b;
          std::memcpy(&b, &out.h[i], 4);
          untouched += b == 0xffffffffu;
          continue;
        }
        double t1 = (double)in.h[i] * 1.25 - 0.1, t2 = t1 / (1.0 + (t1 < 0 ? -t1 : t1));
        ro.push_back(0.75 * t2 + 0.25 * (double)other.h[i]);
        go.push_back(out.h[i]);
      }
    bool ok = kfx::check_close("out", go.data(), ro.data(), ro.size(), 1e-5);
    size_t padding = (pitch - w) * h;
    std::printf("check padding untouched=%zu of %zu %s\n", untouched, padding,
                untouched == padding ? "ok" : "FAIL");
    ok = untouched == padding && ok;
    std::vector<long double> rv(pn);
    for (size_t i = 0; i < pn; i++) {
      long double p = 2.0L * u0.h[i] + 1.0L;
      rv[i] = p * p - u0.h[i];
    }
    ok = kfx::check_close("v", v.h.data(), rv.data(), pn, 1e-14) && ok;
    std::vector<double> rc(cn);
    for (size_t i = 0; i < cn; i++) {
      double t = 3.0 * (double)cin.h[i];
      rc[i] = t * cin.h[i] - t;
    }
    ok = kfx::check_close("c", c.h.data(), rc.data(), cn, 1e-5) && ok;
    std::vector<double> rr1(cn), rr2(cn);
    for (size_t i = 0; i < cn; i++) {
      double gy = gain.h[i / (size_t)cw];
      rr1[i] = gy * cin.h[i] + 0.5;
      rr2[i] = gy * (double)(float)rr1[i] + 0.5;
    }
    ok = kfx::check_close("r1", r1.h.data(), rr1.data(), cn, 1e-5) && ok;
    return kfx::check_close("r2", r2.h.data(), rr2.data(), cn, 1e-5) && ok;
  };
  int rc = kfx::run_and_report(
      "grid_nest", a, s,
      3.0 * w * h * sizeof(float) + 2.0 * pn * sizeof(double) + 5.0 * cn * sizeof(float),
      [&] {
        image(in.d, other.d, out.d, w, h, pitch, igrid, s);
        planes(u0.d, v.d, pw, pd, pgrid, s);
        columns(cin.d, c.d, cw, ch, s);
        gains(cin.d, gain.d, r1.d, r2.d, cw, ch, igrid, s);
      },
      check, out, v, c, r1, r2);
  KFX_CHECK(cudaStreamDestroy(s));
  return rc;
}
