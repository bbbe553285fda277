/* reorder: one step of a 1-D conservation law as such codes write it, two
 * half steps of flux and update, with work on other arrays between them:
 *
 *   f   = u^2 / 2                    n cells   (temporary)
 *   g   = max(g0, 0)                 nb ghost cells, a grid of their own
 *   v   = u - dt * f                 n cells
 *   f2  = v^2 / 2                    n cells   (temporary)
 *   d   = (double) f2                the first m cells, a grid-stride monitor
 *                                    on a fixed grid
 *   src = s0 / 4                     n cells, a grid-stride source term on a
 *                                    fixed grid (temporary)
 *   w   = v - dt * f2 + src          n cells
 *
 * The ghost update, the monitor and the source cannot join the cell kernels
 * (other grids), so no two neighbours fuse. kfuse fuses the four cell
 * launches and moves the three others out of the group (riders): the ghost
 * update, which shares nothing with the step, and the monitor, which reads
 * f2 that an earlier member writes and a later one only reads, run after
 * the fused kernel; the source, whose src the last member reads, runs
 * before it (it shares nothing with the members before it, nor with the
 * monitor, with which it changes places). Because the monitor reads f2, the
 * runtime keeps f2's stores although the host pass proved the temporary
 * dead after the step. A second call, made once before the timed runs,
 * passes the ghost update an output that overlaps w: the runtime's
 * disjointness guard sends that call back to program order, whose result
 * (w written last) is what the check expects. Fused and unfused agree bit
 * for bit (tools/gpu-check); dt is a power of two, so the host computes the
 * same bits. The bytes reported are what the step must move: u and s0
 * read, v, w, g and d written. */
#include "common.h"
#include "kfuse_example.h"

__global__ KFUSE_MAP void flux(const float *u, float *f, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    f[i] = 0.5f * u[i] * u[i];
}

__global__ KFUSE_MAP void ghosts(const float *g0, float *g, int nb)
{
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < nb)
    g[k] = fmaxf(g0[k], 0.0f);
}

__global__ KFUSE_MAP void update(const float *u, const float *f, float *v, float dt, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    v[i] = u[i] - dt * f[i];
}

__global__ KFUSE_MAP void monitor(const float *f, double *d, int m)
{
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < m; i += blockDim.x * gridDim.x)
    d[i] = (double)f[i];
}

__global__ KFUSE_MAP void source(const float *s0, float *src, int n)
{
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    src[i] = 0.25f * s0[i];
}

__global__ KFUSE_MAP void relax(const float *v, const float *f, const float *src, float *w, float dt,
                                int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    w[i] = v[i] - dt * f[i] + src[i];
}

/* One step: u -> w, with the ghost update into g and the monitor into d. */
static void step(const float *u, float *v, float *w, const float *g0, float *g, double *d,
                 const float *s0, int n, int nb, int m, unsigned bs, unsigned fixed_blocks,
                 cudaStream_t s)
{
  const float dt = 0.125f;
  float *f, *f2, *src;
  KFX_CHECK(cudaMallocAsync(&f, n * sizeof(float), s));
  KFX_CHECK(cudaMallocAsync(&f2, n * sizeof(float), s));
  KFX_CHECK(cudaMallocAsync(&src, n * sizeof(float), s));
  unsigned grid = (n + bs - 1) / bs;
  flux<<<grid, bs, 0, s>>>(u, f, n);
  ghosts<<<(nb + 31) / 32, 32, 0, s>>>(g0, g, nb);
  update<<<grid, bs, 0, s>>>(u, f, v, dt, n);
  flux<<<grid, bs, 0, s>>>(v, f2, n);
  monitor<<<fixed_blocks, 128, 0, s>>>(f2, d, m);
  source<<<fixed_blocks, 128, 0, s>>>(s0, src, n);
  relax<<<grid, bs, 0, s>>>(v, f2, src, w, dt, n);
  KFX_CHECK(cudaFreeAsync(f, s));
  KFX_CHECK(cudaFreeAsync(f2, s));
  KFX_CHECK(cudaFreeAsync(src, s));
}

int main(int argc, char **argv)
{
  kfx::Args a = kfx::parse_args(argc, argv, "reorder", 1 << 22);
  kfx::require_device("reorder");
  const int n = (int)a.n, nb = 40, m = n / 4 > 0 ? n / 4 : 1;
  kfx::Buf<float> u(n), v(n), w(n), g0(nb), g(nb), v2(n), w2(n), s0(n);
  kfx::Buf<double> d(m);
  kfx::fill_uniform(u.h, a.seed, 1, -2.0, 2.0);
  kfx::fill_uniform(g0.h, a.seed, 2, -2.0, 2.0);
  kfx::fill_uniform(s0.h, a.seed, 3, -2.0, 2.0);
  u.upload();
  g0.upload();
  s0.upload();
  int sms = 0;
  KFX_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaStream_t st;
  KFX_CHECK(cudaStreamCreate(&st));
  const unsigned bs = (unsigned)a.block;
  bool overlapped = false;
  auto check = [&] {
    std::vector<float> rv(n), rw(n), rg(nb);
    std::vector<double> rd(m);
    for (int i = 0; i < n; i++) {
      float f = 0.5f * u.h[i] * u.h[i];
      rv[i] = u.h[i] - 0.125f * f;
      float f2 = 0.5f * rv[i] * rv[i];
      rw[i] = rv[i] - 0.125f * f2 + 0.25f * s0.h[i];
      if (i < m)
        rd[i] = (double)f2;
    }
    for (int k = 0; k < nb; k++)
      rg[k] = std::fmax(g0.h[k], 0.0f);
    bool ok = kfx::check_close("v", v.h.data(), rv.data(), n, 0);
    ok = kfx::check_close("w", w.h.data(), rw.data(), n, 0) && ok;
    ok = kfx::check_close("g", g.h.data(), rg.data(), nb, 0) && ok;
    ok = kfx::check_close("d", d.h.data(), rd.data(), m, 0) && ok;
    /* The second call: the ghost update wrote w2's first cells before the
     * step's last update overwrote all of w2. */
    ok = kfx::check_close("v2", v2.h.data(), rv.data(), n, 0) && ok;
    return kfx::check_close("w2", w2.h.data(), rw.data(), n, 0) && ok;
  };
  int rc = kfx::run_and_report(
      "reorder", a, st, 4.0 * n * sizeof(float) + 2.0 * nb * sizeof(float) + 1.5 * m * sizeof(double),
      [&] {
        step(u.d, v.d, w.d, g0.d, g.d, d.d, s0.d, n, nb, m, bs, 2 * sms, st);
        /* The overlapping call once, before the timed runs. */
        if (!overlapped) {
          step(u.d, v2.d, w2.d, g0.d, w2.d, d.d, s0.d, n, nb, m, bs, 2 * sms, st);
          overlapped = true;
        }
      },
      check, v, w, g, d, v2, w2);
  KFX_CHECK(cudaStreamDestroy(st));
  return rc;
}
