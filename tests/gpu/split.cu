/* split: independent updates of arrays of different lengths in one step of a
 * 1-D finite-volume code, each kernel launched over its own array:
 *
 *   cells:  q[i]  = q0[i] + dt * s[i]            n cells
 *   faces:  f[j]  = 0.5 * (a[j] + b[j])          n + 1 faces
 *   bounds: g[k]  = fmax(g0[k], 0)               nb ghost cells (a few)
 *   norm:   r[i]  = w[i] * w[i] (grid-stride)    n cells, a fixed grid
 *
 * Nothing flows between them, and their grids differ, so the four
 * launches fuse side by side: the fused kernel gives each launch its own
 * blocks along x (`shape split`), with blockIdx.x and gridDim.x of its own
 * launch, saving three launches per step (lit e2e/horizontal.cu). The
 * grid-stride kernel runs with a fixed grid of a few blocks per SM, as such
 * kernels are launched. Fused and unfused must agree bit for bit
 * (tools/gpu-check), and agree exactly with the host (dt is a power of two,
 * so contracting dt * s + q0 changes nothing). */
#include "common.h"
#include "kfuse_example.h"

__global__ KFUSE_MAP void advance(const double *q0, const double *s, double *q, double dt, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    q[i] = q0[i] + dt * s[i];
}

__global__ KFUSE_MAP void faces(const float *a, const float *b, float *f, int nf)
{
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < nf)
    f[j] = 0.5f * (a[j] + b[j]);
}

__global__ KFUSE_MAP void ghosts(const float *g0, float *g, int nb)
{
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < nb)
    g[k] = fmaxf(g0[k], 0.0f);
}

__global__ KFUSE_MAP void norm(const float *w, float *r, int n)
{
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    r[i] = w[i] * w[i];
}

int main(int argc, char **argv)
{
  kfx::Args a = kfx::parse_args(argc, argv, "split", 1 << 22);
  kfx::require_device("split");
  const int n = (int)a.n, nf = n + 1, nb = 40;
  const double dt = 0.125;
  kfx::Buf<double> q0(n), s(n), q(n);
  kfx::Buf<float> fa(nf), fb(nf), f(nf), g0(nb), g(nb), w(n), r(n);
  kfx::fill_uniform(q0.h, a.seed, 1, -2.0, 2.0);
  kfx::fill_uniform(s.h, a.seed, 2, -2.0, 2.0);
  kfx::fill_uniform(fa.h, a.seed, 3, -2.0, 2.0);
  kfx::fill_uniform(fb.h, a.seed, 4, -2.0, 2.0);
  kfx::fill_uniform(g0.h, a.seed, 5, -2.0, 2.0);
  kfx::fill_uniform(w.h, a.seed, 6, -2.0, 2.0);
  q0.upload();
  s.upload();
  fa.upload();
  fb.upload();
  g0.upload();
  w.upload();
  int sms = 0;
  KFX_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaStream_t st;
  KFX_CHECK(cudaStreamCreate(&st));
  const unsigned bs = (unsigned)a.block;
  auto check = [&] {
    std::vector<double> rq(n), rf(nf), rg(nb), rr(n);
    for (int i = 0; i < n; i++) {
      rq[i] = q0.h[i] + dt * s.h[i];
      rr[i] = w.h[i] * w.h[i];
    }
    for (int j = 0; j < nf; j++)
      rf[j] = 0.5f * (fa.h[j] + fb.h[j]);
    for (int k = 0; k < nb; k++)
      rg[k] = std::fmax(g0.h[k], 0.0f);
    bool ok = kfx::check_close("q", q.h.data(), rq.data(), n, 0);
    ok = kfx::check_close("f", f.h.data(), rf.data(), nf, 0) && ok;
    ok = kfx::check_close("g", g.h.data(), rg.data(), nb, 0) && ok;
    return kfx::check_close("r", r.h.data(), rr.data(), n, 0) && ok;
  };
  int rc = kfx::run_and_report(
      "split", a, st, 3.0 * n * sizeof(double) + 3.0 * nf * sizeof(float) + 2.0 * nb * sizeof(float) +
                          2.0 * n * sizeof(float),
      [&] {
        advance<<<(n + bs - 1) / bs, bs, 0, st>>>(q0.d, s.d, q.d, dt, n);
        faces<<<(nf + bs - 1) / bs, bs, 0, st>>>(fa.d, fb.d, f.d, nf);
        ghosts<<<(nb + bs - 1) / bs, bs, 0, st>>>(g0.d, g.d, nb);
        norm<<<4 * sms, bs, 0, st>>>(w.d, r.d, n);
      },
      check, q, f, g, r);
  KFX_CHECK(cudaStreamDestroy(st));
  std::printf("SITES all-fused count=1\n");
  return rc;
}
