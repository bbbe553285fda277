/* struct_params: kernels that take their sizes and coefficients in a struct
 * passed by value, as codes that keep a run's parameters together write
 * them:
 *
 *   struct Grid { int nx, ny, pitch; float dt, nu; };
 *
 * Sequence `field` (3 launches, dim3 grid and block of 32 x 8): on an
 * nx x ny field stored with a row pitch of g.pitch elements (padding
 * columns never touched), f = u + dt * nu * u, h = f * f - u, o = h + 0.5 f,
 * every index y * g.pitch + x under `x < g.nx && y < g.ny`. The indices and
 * bounds name the struct's fields, which the manifest reads from the launch's
 * argument bytes (`s0.8.4`): f and h in registers.
 * Sequence `flat` (2 launches, 1-D): t = dt * u, r = t + nu, under
 * `i < g.nx * g.ny`.
 * Sequence `strided` (2 launches of 4 blocks per SM): grid-stride loops
 * `for (size_t i = ...; i < e.n; i += blockDim.x * gridDim.x)` over the
 * field `n` of `struct Extent { size_t n; float a, b; }`: v = a * u,
 * w = v * v + b, the loops one loop in the fused kernel, v in registers.
 * Sequence `spanned`: the same over `struct Span { size_t n; float s; }`,
 * whose last 4 bytes are padding (y = s * u + 1, z = y * y - s): passed in
 * two registers, the struct is put back together around uninitialised
 * padding, so the runtime compares its fields alone (`equal ... 0-11`).
 * The program prints `SITES all-fused count=4`: every sequence must run
 * fused on every call (tools/gpu-check). Fused and unfused must agree bit
 * for bit. */
#include "common.h"
#include "kfuse_example.h"

#include <cstdio>
#include <cstring>

struct Grid {
  int nx, ny, pitch;
  float dt, nu;
};

__global__ KFUSE_MAP void sp_step(Grid g, const float *u, float *f)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < g.nx && y < g.ny)
    f[y * g.pitch + x] = u[y * g.pitch + x] + g.dt * g.nu * u[y * g.pitch + x];
}

__global__ KFUSE_MAP void sp_square(Grid g, const float *f, const float *u, float *h)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < g.nx && y < g.ny)
    h[y * g.pitch + x] = f[y * g.pitch + x] * f[y * g.pitch + x] - u[y * g.pitch + x];
}

__global__ KFUSE_MAP void sp_mix(Grid g, const float *h, const float *f, float *o)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < g.nx && y < g.ny)
    o[y * g.pitch + x] = h[y * g.pitch + x] + 0.5f * f[y * g.pitch + x];
}

__global__ KFUSE_MAP void sp_scale(Grid g, const float *u, float *t)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < g.nx * g.ny)
    t[i] = g.dt * u[i];
}

__global__ KFUSE_MAP void sp_shift(Grid g, const float *t, float *r)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < g.nx * g.ny)
    r[i] = t[i] + g.nu;
}

struct Extent {
  size_t n;
  float a, b;
};

__global__ KFUSE_MAP void sp_gscale(Extent e, const float *u, float *v)
{
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < e.n;
       i += (size_t)blockDim.x * gridDim.x)
    v[i] = e.a * u[i];
}

__global__ KFUSE_MAP void sp_gsquare(Extent e, const float *v, float *w)
{
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < e.n;
       i += (size_t)blockDim.x * gridDim.x)
    w[i] = v[i] * v[i] + e.b;
}

struct Span {
  size_t n;
  float s;
};

__global__ KFUSE_MAP void sp_sscale(Span p, const float *u, float *y)
{
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < p.n;
       i += (size_t)blockDim.x * gridDim.x)
    y[i] = p.s * u[i] + 1.0f;
}

__global__ KFUSE_MAP void sp_ssquare(Span p, const float *y, float *z)
{
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < p.n;
       i += (size_t)blockDim.x * gridDim.x)
    z[i] = y[i] * y[i] - p.s;
}

static void spanned(Span p, const float *u, float *y, float *z, int blocks, int b, cudaStream_t s)
{
  sp_sscale<<<blocks, b, 0, s>>>(p, u, y);
  sp_ssquare<<<blocks, b, 0, s>>>(p, y, z);
}

static void strided(const Extent &e, const float *u, float *v, float *w, int blocks, int b,
                    cudaStream_t s)
{
  sp_gscale<<<blocks, b, 0, s>>>(e, u, v);
  sp_gsquare<<<blocks, b, 0, s>>>(e, v, w);
}

static void field(const Grid &g, const float *u, float *f, float *h, float *o, cudaStream_t s)
{
  dim3 block(32, 8), grid((g.nx + 31) / 32, (g.ny + 7) / 8);
  sp_step<<<grid, block, 0, s>>>(g, u, f);
  sp_square<<<grid, block, 0, s>>>(g, f, u, h);
  sp_mix<<<grid, block, 0, s>>>(g, h, f, o);
}

static void flat(const Grid &g, const float *u, float *t, float *r, int b, cudaStream_t s)
{
  int n = g.nx * g.ny;
  sp_scale<<<(n + b - 1) / b, b, 0, s>>>(g, u, t);
  sp_shift<<<(n + b - 1) / b, b, 0, s>>>(g, t, r);
}

int main(int argc, char **argv)
{
  kfx::Args a = kfx::parse_args(argc, argv, "struct_params", 1 << 24);
  kfx::require_device("struct_params");
  /* n elements as rows of 4093 (the last row shorter is not a field: the
   * rows are whole, at least one), each padded to a pitch of 4096. */
  Grid g;
  g.nx = 4093;
  g.ny = (int)((a.n + g.nx - 1) / g.nx);
  g.pitch = 4096;
  g.dt = 0.01f;
  g.nu = 0.75f;
  const size_t cells = (size_t)g.ny * g.pitch, n = (size_t)g.nx * g.ny;
  kfx::Buf<float> u(cells), f(cells), h(cells), o(cells), t(n), r(n), v(n), w(n), y(n), z(n);
  Extent e;
  e.n = n;
  e.a = 1.25f;
  e.b = -0.5f;
  Span sp;
  sp.n = n;
  sp.s = 0.625f;
  int sms = 0;
  KFX_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  kfx::fill_uniform(u.h, a.seed, 1, -1.0, 1.0);
  u.upload();
  cudaStream_t s;
  KFX_CHECK(cudaStreamCreate(&s));
  /* For tools/gpu-check: every sequence runs fused on every call. */
  std::printf("SITES all-fused count=4\n");

  auto check = [&] {
    /* The field's cells against the host, gathered row by row; the padding
     * columns must still hold the poison the outputs started with. */
    std::vector<float> rf(n), rh(n), ro(n), gf(n), gh(n), go(n), rt(n), rr(n), rv(n), rw(n), ry(n),
        rz(n);
    size_t touched = 0;
    for (int y = 0; y < g.ny; y++) {
      for (int x = 0; x < g.nx; x++) {
        size_t k = (size_t)y * g.pitch + x, c = (size_t)y * g.nx + x;
        rf[c] = u.h[k] + g.dt * g.nu * u.h[k];
        rh[c] = rf[c] * rf[c] - u.h[k];
        ro[c] = rh[c] + 0.5f * rf[c];
        gf[c] = f.h[k], gh[c] = h.h[k], go[c] = o.h[k];
      }
      for (int x = g.nx; x < g.pitch; x++) {
        size_t k = (size_t)y * g.pitch + x;
        for (const kfx::Buf<float> *b : {&f, &h, &o}) {
          uint32_t bits;
          memcpy(&bits, &b->h[k], 4);
          touched += bits != 0xffffffffu;
        }
      }
    }
    for (size_t i = 0; i < n; i++) {
      rt[i] = g.dt * u.h[i];
      rr[i] = rt[i] + g.nu;
      rv[i] = e.a * u.h[i];
      rw[i] = rv[i] * rv[i] + e.b;
      ry[i] = sp.s * u.h[i] + 1.0f;
      rz[i] = ry[i] * ry[i] - sp.s;
    }
    bool ok = kfx::check_close("f", gf.data(), rf.data(), n, 1e-6);
    ok = kfx::check_close("h", gh.data(), rh.data(), n, 1e-5) && ok;
    ok = kfx::check_close("o", go.data(), ro.data(), n, 1e-5) && ok;
    ok = kfx::check_close("t", t.h.data(), rt.data(), n, 1e-6) && ok;
    ok = kfx::check_close("r", r.h.data(), rr.data(), n, 1e-6) && ok;
    ok = kfx::check_close("v", v.h.data(), rv.data(), n, 1e-6) && ok;
    ok = kfx::check_close("w", w.h.data(), rw.data(), n, 1e-5) && ok;
    ok = kfx::check_close("y", y.h.data(), ry.data(), n, 1e-6) && ok;
    ok = kfx::check_close("z", z.h.data(), rz.data(), n, 1e-5) && ok;
    std::printf("check pad    %zu padding cells written %s\n", touched, touched ? "FAIL" : "ok");
    return ok && touched == 0;
  };
  int rc = kfx::run_and_report(
      "struct_params", a, s, (4.0 * cells + 9.0 * n) * sizeof(float),
      [&] {
        field(g, u.d, f.d, h.d, o.d, s);
        flat(g, u.d, t.d, r.d, a.block, s);
        strided(e, u.d, v.d, w.d, 4 * sms, a.block, s);
        spanned(sp, u.d, y.d, z.d, 4 * sms, a.block, s);
      },
      check, f, h, o, t, r, v, w, y, z);
  KFX_CHECK(cudaStreamDestroy(s));
  return rc;
}
