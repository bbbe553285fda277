/* heat2d: one explicit step of the 2-D heat equation on a pitched grid and
 * its diagnostics, as such codes write them, one kernel per operation,
 * dim3 grid and block, `y * pitch + x` under an early return outside the
 * grid, Dirichlet boundaries copied:
 *
 *   un  = u + k * (u[W] + u[E] + u[S] + u[N] - 4 u)          heat step
 *   lap = 9-point Laplacian of un (edges and corners)       diagnostic
 *   sl  = (lap[N] + 2 lap + lap[S]) / 4                      lap smoothed in y
 *   r   = un + dt * lap                                     a relaxed state
 *   dx  = (un[x+2] - un[x-2]) / 4                            a wide x gradient
 *
 * The Laplacian and the gradient read un at neighbouring cells, and the
 * smoothing lap, which threads of the neighbouring blocks compute: the five
 * launches fuse with 2-D halo recomputation (lit e2e/halo2d.cu), the halo
 * growing through the two stencils. Each fused block computes the heat
 * step for its 32 x 8 cells and for a frame of 2 cells on every side into
 * a shared tile, synchronises, computes the Laplacian for its cells and one
 * row above and below into a second tile, synchronises, and runs the rest
 * from the tiles; un and lap are never read from memory. The manifest
 * checks the width does not exceed the pitch and the launch has a thread
 * per cell. --n is the cell count: the grid is W = 3001 wide, ceil(n / W)
 * rows, pitch 3072 floats. Fused and unfused must agree bit for bit
 * (tools/gpu-check); un exactly against the host up to one rounding per
 * operation; the padding keeps its poison. */
#include "common.h"
#include "kfuse_example.h"

#define XY                                                                                   \
  int x = blockIdx.x * blockDim.x + threadIdx.x;                                             \
  int y = blockIdx.y * blockDim.y + threadIdx.y;                                             \
  if (x >= w || y >= h)                                                                      \
    return;                                                                                  \
  int i = y * pitch + x

__global__ KFUSE_MAP void heat(const float *u, float *un, float k, int w, int h, int pitch)
{
  XY;
  if (x == 0 || y == 0 || x == w - 1 || y == h - 1)
    un[i] = u[i];
  else
    un[i] = u[i] + k * (u[i - 1] + u[i + 1] + u[i - pitch] + u[i + pitch] - 4.0f * u[i]);
}

__global__ KFUSE_MAP void laplacian9(const float *un, float *lap, int w, int h, int pitch)
{
  XY;
  if (x == 0 || y == 0 || x == w - 1 || y == h - 1) {
    lap[i] = 0.0f;
    return;
  }
  float edges = un[i - 1] + un[i + 1] + un[i - pitch] + un[i + pitch];
  float corners = un[i - pitch - 1] + un[i - pitch + 1] + un[i + pitch - 1] + un[i + pitch + 1];
  lap[i] = (4.0f * edges + corners - 20.0f * un[i]) * (1.0f / 6.0f);
}

__global__ KFUSE_MAP void smooth_y(const float *lap, float *sl, int w, int h, int pitch)
{
  XY;
  if (y == 0 || y == h - 1)
    sl[i] = lap[i];
  else
    sl[i] = 0.25f * (lap[i - pitch] + 2.0f * lap[i] + lap[i + pitch]);
}

__global__ KFUSE_MAP void relax(const float *un, const float *lap, float *r, float dt, int w,
                                int h, int pitch)
{
  XY;
  r[i] = un[i] + dt * lap[i];
}

__global__ KFUSE_MAP void gradient_x(const float *un, float *dx, int w, int h, int pitch)
{
  XY;
  if (x < 2 || x >= w - 2)
    dx[i] = 0.0f;
  else
    dx[i] = (un[i + 2] - un[i - 2]) * 0.25f;
}

/* A second sequence, in 3-D: a field q over a w3 x h3 x d3 box and its
 * x-z divergence from the neighbouring cells in x and in z (planes of w3 *
 * h3 cells), on 32 x 2 x 4 blocks: q's tile is widened in x and z, its
 * frame recomputed plane by plane. Checked against the host: q within a
 * rounding, the divergence of the device's q exactly. */
#define XYZ                                                                                  \
  int x = blockIdx.x * blockDim.x + threadIdx.x;                                             \
  int y = blockIdx.y * blockDim.y + threadIdx.y;                                             \
  int z = blockIdx.z * blockDim.z + threadIdx.z;                                             \
  if (x >= w || y >= h || z >= d)                                                            \
    return;                                                                                  \
  int i = (z * h + y) * w + x

__global__ KFUSE_MAP void field(const float *a, float *q, int w, int h, int d)
{
  XYZ;
  q[i] = a[i] * a[i] + 0.5f;
}

__global__ KFUSE_MAP void divergence_xz(const float *q, float *o, int w, int h, int d)
{
  XYZ;
  if (x == 0 || x == w - 1 || z == 0 || z == d - 1)
    o[i] = q[i];
  else
    o[i] = (q[i + 1] - q[i - 1]) + (q[i + w * h] - q[i - w * h]);
}

static void step2d(const float *u, float *un, float *lap, float *sl, float *r, float *dx, float k,
                   float dt, int w, int h, int pitch, cudaStream_t s)
{
  dim3 block(32, 8), grid((w + 31) / 32, (h + 7) / 8);
  heat<<<grid, block, 0, s>>>(u, un, k, w, h, pitch);
  laplacian9<<<grid, block, 0, s>>>(un, lap, w, h, pitch);
  smooth_y<<<grid, block, 0, s>>>(lap, sl, w, h, pitch);
  relax<<<grid, block, 0, s>>>(un, lap, r, dt, w, h, pitch);
  gradient_x<<<grid, block, 0, s>>>(un, dx, w, h, pitch);
}

static void step3d(const float *a, float *q, float *o, int w, int h, int d, cudaStream_t s)
{
  dim3 block(32, 2, 4), grid((w + 31) / 32, (h + 1) / 2, (d + 3) / 4);
  field<<<grid, block, 0, s>>>(a, q, w, h, d);
  divergence_xz<<<grid, block, 0, s>>>(q, o, w, h, d);
}

int main(int argc, char **argv)
{
  kfx::Args a = kfx::parse_args(argc, argv, "heat2d", 1 << 24);
  kfx::require_device("heat2d");
  const int w = 3001, pitch = 3072;
  const int h = (int)((a.n + w - 1) / w);
  const size_t cells = (size_t)pitch * h;
  const float k = 0.2f, dt = 0.05f;
  kfx::Buf<float> u(cells), un(cells), lap(cells), sl(cells), r(cells), dx(cells);
  kfx::fill_uniform(u.h, a.seed, 1, 0.0, 1.0);
  u.upload();
  const int w3 = 125, h3 = 50, d3 = (int)((a.n + w3 * h3 - 1) / (w3 * h3));
  const size_t vol = (size_t)w3 * h3 * d3;
  kfx::Buf<float> fa(vol), fq(vol), fo(vol);
  kfx::fill_uniform(fa.h, a.seed, 2, -1.0, 1.0);
  fa.upload();
  cudaStream_t s;
  KFX_CHECK(cudaStreamCreate(&s));

  /* Against a double reference from the device's un (each stencil alone);
   * the padding must still hold the poison (all-ones bytes). */
  auto check = [&] {
    std::vector<double> rn, rl, rr, rd, rs;
    std::vector<float> gn, gl, gr, gd, gs;
    size_t untouched = 0;
    auto U = [&](int yy, int xx) { return (double)u.h[(size_t)yy * pitch + xx]; };
    auto N = [&](int yy, int xx) { return (double)un.h[(size_t)yy * pitch + xx]; };
    for (int y = 0; y < h; y++)
      for (int x = 0; x < pitch; x++) {
        size_t i = (size_t)y * pitch + x;
        if (x >= w) {
          uint32_t b[5];
          memcpy(&b[0], &un.h[i], 4), memcpy(&b[1], &lap.h[i], 4);
          memcpy(&b[2], &r.h[i], 4), memcpy(&b[3], &dx.h[i], 4), memcpy(&b[4], &sl.h[i], 4);
          untouched += b[0] == 0xffffffffu && b[1] == 0xffffffffu && b[2] == 0xffffffffu &&
                       b[3] == 0xffffffffu && b[4] == 0xffffffffu;
          continue;
        }
        bool edge = x == 0 || y == 0 || x == w - 1 || y == h - 1;
        rn.push_back(edge ? U(y, x)
                          : U(y, x) + (double)k * (U(y, x - 1) + U(y, x + 1) + U(y - 1, x) +
                                                   U(y + 1, x) - 4.0 * U(y, x)));
        double l = edge ? 0.0
                        : (4.0 * (N(y, x - 1) + N(y, x + 1) + N(y - 1, x) + N(y + 1, x)) +
                           N(y - 1, x - 1) + N(y - 1, x + 1) + N(y + 1, x - 1) + N(y + 1, x + 1) -
                           20.0 * N(y, x)) / 6.0;
        rl.push_back(l);
        rr.push_back(N(y, x) + (double)dt * lap.h[i]);
        rd.push_back(x < 2 || x >= w - 2 ? 0.0 : (N(y, x + 2) - N(y, x - 2)) * 0.25);
        auto Lp = [&](int yy) { return (double)lap.h[(size_t)yy * pitch + x]; };
        rs.push_back(y == 0 || y == h - 1 ? Lp(y) : 0.25 * (Lp(y - 1) + 2.0 * Lp(y) + Lp(y + 1)));
        gs.push_back(sl.h[i]);
        gn.push_back(un.h[i]), gl.push_back(lap.h[i]), gr.push_back(r.h[i]), gd.push_back(dx.h[i]);
      }
    size_t n = rn.size();
    bool ok = kfx::check_close("un", gn.data(), rn.data(), n, 1e-5);
    ok = kfx::check_close("lap", gl.data(), rl.data(), n, 1e-4) && ok;
    ok = kfx::check_close("r", gr.data(), rr.data(), n, 1e-5) && ok;
    ok = kfx::check_close("dx", gd.data(), rd.data(), n, 1e-5) && ok;
    ok = kfx::check_close("sl", gs.data(), rs.data(), n, 1e-5) && ok;
    size_t padding = (size_t)(pitch - w) * h;
    printf("check padding untouched=%zu of %zu %s\n", untouched, padding,
           untouched == padding ? "ok" : "FAIL");
    // The 3-D sequence: q from a within a rounding (the device may contract
    // a * a + 0.5), the divergence from the device's q exactly.
    auto bits = [](float f) {
      uint32_t b;
      memcpy(&b, &f, 4);
      return b;
    };
    size_t wrong = 0, plane = (size_t)w3 * h3;
    for (int z = 0; z < d3; z++)
      for (int y = 0; y < h3; y++)
        for (int x = 0; x < w3; x++) {
          size_t i = (z * plane) + (size_t)y * w3 + x;
          double q = (double)fa.h[i] * fa.h[i] + 0.5;
          float o = (x == 0 || x == w3 - 1 || z == 0 || z == d3 - 1)
                        ? fq.h[i]
                        : (fq.h[i + 1] - fq.h[i - 1]) + (fq.h[i + plane] - fq.h[i - plane]);
          wrong += std::fabs(fq.h[i] - q) > 1e-6 * std::fabs(q);
          wrong += bits(fo.h[i]) != bits(o);
        }
    printf("check field3 wrong=%zu %s\n", wrong, wrong ? "FAIL" : "ok");
    return ok && untouched == padding && wrong == 0;
  };
  int rc = kfx::run_and_report(
      "heat2d", a, s, 6.0 * w * h * sizeof(float),
      [&] {
        step2d(u.d, un.d, lap.d, sl.d, r.d, dx.d, k, dt, w, h, pitch, s);
        step3d(fa.d, fq.d, fo.d, w3, h3, d3, s);
      },
      check, un, lap, sl, r, dx, fq, fo);
  KFX_CHECK(cudaStreamDestroy(s));
  std::printf("SITES all-fused count=2\n");
  return rc;
}
