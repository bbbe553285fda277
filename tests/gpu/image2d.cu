/* image2d: a pitched 2-D image pipeline written the usual way: dim3 grid
 * and block, `y * pitch + x` under `x < w && y < h` (or an early return),
 * rows padded to a pitch wider than the image.
 *
 *   t1 = in * gain + bias          (brighten)
 *   t2 = (t1 - 0.5) * contrast + 0.5
 *   t3 = clamp(t2, 0, 1)           (early return outside the image)
 *   out = t3 * alpha + other * (1 - alpha)
 *
 * The four launches fuse into one kernel with t1..t3 in registers; the
 * manifest's `le` guard checks that the image's width does not exceed the
 * pitch (rows of different threads never overlap).
 *
 * A second sequence on 16x16 blocks reads other threads' pixels of the same
 * block: s = in * 2; a = s transposed within each block; b = s mirrored in
 * x within each block. It fuses through a shared-memory tile indexed by the
 * pixel's in-block coordinates, with barriers; `le` guards require square
 * blocks. A pixel whose partner lies outside the image is left alone. --n is the pixel count:
 * the image is W = 3001 wide, ceil(n / W) rows, pitch 3072 floats.
 * Fused and unfused must agree bit for bit (tools/gpu-check); the padding
 * stays as poisoned. */
#include "common.h"
#include "kfuse_example.h"

#define XY                                                                                   \
  int x = blockIdx.x * blockDim.x + threadIdx.x;                                             \
  int y = blockIdx.y * blockDim.y + threadIdx.y

__global__ KFUSE_MAP void brighten(const float *in, float *t1, int w, int h, int pitch, float gain,
                                  float bias)
{
  XY;
  if (x < w && y < h)
    t1[y * pitch + x] = in[y * pitch + x] * gain + bias;
}

__global__ KFUSE_MAP void contrast(const float *t1, float *t2, int w, int h, int pitch, float c)
{
  XY;
  if (x < w && y < h)
    t2[y * pitch + x] = (t1[y * pitch + x] - 0.5f) * c + 0.5f;
}

__global__ KFUSE_MAP void clamp01(const float *t2, float *t3, int w, int h, int pitch)
{
  XY;
  if (x >= w || y >= h)
    return;
  float v = t2[y * pitch + x];
  t3[y * pitch + x] = v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v);
}

__global__ KFUSE_MAP void blend(const float *t3, const float *other, float *out, int w, int h,
                               int pitch, float alpha)
{
  XY;
  if (x < w && y < h) {
    size_t i = (size_t)y * pitch + x;
    out[i] = t3[i] * alpha + other[i] * (1.0f - alpha);
  }
}

__global__ KFUSE_MAP void twice(const float *in, float *t, int w, int h, int pitch)
{
  XY;
  if (x < w && y < h)
    t[y * pitch + x] = in[y * pitch + x] * 2.0f;
}

__global__ KFUSE_MAP void block_transpose(const float *t, float *a, int w, int h, int pitch)
{
  int x = blockIdx.x * blockDim.x + threadIdx.y, y = blockIdx.y * blockDim.y + threadIdx.x;
  int ox = blockIdx.x * blockDim.x + threadIdx.x, oy = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h && ox < w && oy < h)
    a[oy * pitch + ox] = t[y * pitch + x];
}

__global__ KFUSE_MAP void block_mirror(const float *t, float *b, int w, int h, int pitch)
{
  int x = blockIdx.x * blockDim.x + (blockDim.x - 1 - threadIdx.x);
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int ox = blockIdx.x * blockDim.x + threadIdx.x;
  if (x < w && y < h && ox < w)
    b[y * pitch + ox] = t[y * pitch + x];
}

static void tiles(const float *in, float *t, float *a, float *b, int w, int h, int pitch,
                  cudaStream_t s)
{
  dim3 block(16, 16), grid((w + 15) / 16, (h + 15) / 16);
  twice<<<grid, block, 0, s>>>(in, t, w, h, pitch);
  block_transpose<<<grid, block, 0, s>>>(t, a, w, h, pitch);
  block_mirror<<<grid, block, 0, s>>>(t, b, w, h, pitch);
}

static void pipeline(const float *in, const float *other, float *t1, float *t2, float *t3,
                     float *out, int w, int h, int pitch, cudaStream_t s)
{
  dim3 block(32, 8);
  dim3 grid((w + block.x - 1) / block.x, (h + block.y - 1) / block.y);
  brighten<<<grid, block, 0, s>>>(in, t1, w, h, pitch, 1.25f, -0.1f);
  contrast<<<grid, block, 0, s>>>(t1, t2, w, h, pitch, 1.5f);
  clamp01<<<grid, block, 0, s>>>(t2, t3, w, h, pitch);
  blend<<<grid, block, 0, s>>>(t3, other, out, w, h, pitch, 0.75f);
}

int main(int argc, char **argv)
{
  kfx::Args a = kfx::parse_args(argc, argv, "image2d", 1 << 24);
  kfx::require_device("image2d");
  const int w = 3001, pitch = 3072;
  const int h = (int)((a.n + w - 1) / w);
  const size_t cells = (size_t)pitch * h;
  kfx::Buf<float> in(cells), other(cells), t1(cells), t2(cells), t3(cells), out(cells), st(cells),
      ta(cells), tb(cells);
  kfx::fill_uniform(in.h, a.seed, 1, 0.0, 1.0);
  kfx::fill_uniform(other.h, a.seed, 2, 0.0, 1.0);
  in.upload();
  other.upload();
  cudaStream_t s;
  KFX_CHECK(cudaStreamCreate(&s));

  /* Against a double reference over the image's pixels; the padding must
   * still hold the poison (all-ones bytes). */
  auto check = [&] {
    std::vector<double> r1, r2, r3, ro;
    std::vector<float> g1, g2, g3, go;
    size_t untouched = 0;
    for (int y = 0; y < h; y++)
      for (int x = 0; x < pitch; x++) {
        size_t i = (size_t)y * pitch + x;
        if (x >= w) {
          uint32_t b;
          memcpy(&b, &out.h[i], 4);
          untouched += b == 0xffffffffu;
          continue;
        }
        double v1 = (double)in.h[i] * 1.25 - 0.1, v2 = ((double)(float)v1 - 0.5) * 1.5 + 0.5;
        double v3 = v2 < 0 ? 0 : (v2 > 1 ? 1 : v2);
        r1.push_back(v1), r2.push_back(v2), r3.push_back(v3);
        ro.push_back(v3 * 0.75 + (double)other.h[i] * 0.25);
        g1.push_back(t1.h[i]), g2.push_back(t2.h[i]), g3.push_back(t3.h[i]), go.push_back(out.h[i]);
      }
    size_t n = r1.size();
    bool ok = kfx::check_close("t1", g1.data(), r1.data(), n, 1e-6);
    ok = kfx::check_close("t2", g2.data(), r2.data(), n, 1e-6) && ok;
    ok = kfx::check_close("t3", g3.data(), r3.data(), n, 1e-6) && ok;
    ok = kfx::check_close("out", go.data(), ro.data(), n, 1e-6) && ok;
    size_t padding = (size_t)(pitch - w) * h;
    printf("check padding untouched=%zu of %zu %s\n", untouched, padding,
           untouched == padding ? "ok" : "FAIL");
    // The tiles sequence, exactly: a copy, a transpose and a mirror of
    // floats; a pixel no thread writes keeps the poison's bits.
    const uint32_t poison = 0xffffffffu;
    size_t wrong = 0;
    auto bits = [](float f) {
      uint32_t b;
      memcpy(&b, &f, 4);
      return b;
    };
    for (int y = 0; y < h; y++)
      for (int x = 0; x < pitch; x++) {
        size_t i = (size_t)y * pitch + x;
        uint32_t ws = x < w ? bits(in.h[i] * 2.0f) : poison, wa = poison, wb = poison;
        int bx0 = x / 16 * 16, by0 = y / 16 * 16, tx = x - bx0, ty = y - by0;
        int sx = bx0 + ty, sy = by0 + tx; // a[y][x] = s[sy][sx]
        if (x < w && sx < w && sy < h)
          wa = bits(in.h[(size_t)sy * pitch + sx] * 2.0f);
        int mx = bx0 + 15 - tx;
        if (x < w && mx < w)
          wb = bits(in.h[(size_t)y * pitch + mx] * 2.0f);
        wrong += bits(st.h[i]) != ws;
        wrong += bits(ta.h[i]) != wa;
        wrong += bits(tb.h[i]) != wb;
      }
    printf("check tiles wrong=%zu %s\n", wrong, wrong ? "FAIL" : "ok");
    return ok && untouched == padding && wrong == 0;
  };
  int rc = kfx::run_and_report(
      "image2d", a, s, 10.0 * w * h * sizeof(float),
      [&] {
        pipeline(in.d, other.d, t1.d, t2.d, t3.d, out.d, w, h, pitch, s);
        tiles(in.d, st.d, ta.d, tb.d, w, h, pitch, s);
      },
      check, t1, t2, t3, out, st, ta, tb);
  KFX_CHECK(cudaStreamDestroy(s));
  return rc;
}
