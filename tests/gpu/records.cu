/* records: map kernels over per-instance records, as particle and
 * small-matrix codes write them, whose fused kernels move the records
 * through shared memory (the RecordsStaged remark):
 *
 *   - the mapped function F = ||A.B.v||_2 . (C.D + C) with its
 *     intermediates stream-ordered temporaries, freed after the sequence:
 *     the fused kernel stores F alone, and stages A, B, v, C, D and F;
 *   - a particle step over an array of structs (7 floats, 28 bytes) and
 *     forces as float3 (12 bytes): kick writes a temporary particle array,
 *     drift reads it and writes the result;
 *   - a record written in part (two of a float4's four lanes): its stores
 *     are not staged, and the lanes not written keep their old values.
 *
 * Sizes that are not multiples of the block, blocks larger than a staging
 * round (the records of F need several rounds of 64 instances in a block of
 * 256) and the caller's block size all go through the same code. Fused and
 * unfused must agree bit for bit (tools/gpu-check). */
#include "common.h"
#include "kfuse_example.h"
#include "mapped_f_kernels.h"

#include <cmath>
#include <vector>

struct Particle {
  float x, y, z, vx, vy, vz, m;
};

__global__ KFUSE_MAP void kick(const Particle *p, const float3 *f, Particle *q, float dt, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  Particle a = p[i];
  float3 g = f[i];
  float s = dt / a.m;
  a.vx += s * g.x;
  a.vy += s * g.y;
  a.vz += s * g.z;
  q[i] = a;
}

__global__ KFUSE_MAP void drift(const Particle *q, Particle *r, float dt, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    Particle a = q[i];
    a.x += dt * a.vx;
    a.y += dt * a.vy;
    a.z += dt * a.vz;
    r[i] = a;
  }
}

/* Writes lanes x and y of each float4 of w, reads all of u. */
__global__ KFUSE_MAP void half_write(const float4 *u, float4 *w, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float4 a = u[i];
    w[i].x = a.x + a.w;
    w[i].y = a.y * a.z;
  }
}

__global__ KFUSE_MAP void scale4(const float4 *w, float4 *o, float s, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float4 a = w[i];
    o[i] = make_float4(s * a.x, s * a.y, s * a.z, s * a.w);
  }
}

static void mapped_f_temps(const float *A, const float *B, const float *v, const float *C,
                           const float *D, float *F, int n, int block, cudaStream_t s)
{
  float *AB, *ABv, *nrm, *CD, *CDC;
  KFX_CHECK(cudaMallocAsync(&AB, 9 * sizeof(float) * n, s));
  KFX_CHECK(cudaMallocAsync(&ABv, 3 * sizeof(float) * n, s));
  KFX_CHECK(cudaMallocAsync(&nrm, sizeof(float) * n, s));
  KFX_CHECK(cudaMallocAsync(&CD, 25 * sizeof(float) * n, s));
  KFX_CHECK(cudaMallocAsync(&CDC, 25 * sizeof(float) * n, s));
  /* mf_launch's launches, here: that helper has another caller and stays a
   * call, so its temporaries would not be dead. */
  unsigned g = (unsigned)((n + block - 1) / block);
  mf_mmul33<<<g, block, 0, s>>>(A, B, AB, n);
  mf_mvmul33<<<g, block, 0, s>>>(AB, v, ABv, n);
  mf_norm3<<<g, block, 0, s>>>(ABv, nrm, n);
  mf_mmul55<<<g, block, 0, s>>>(C, D, CD, n);
  mf_madd55<<<g, block, 0, s>>>(CD, C, CDC, n);
  mf_smmul55<<<g, block, 0, s>>>(nrm, CDC, F, n);
  KFX_CHECK(cudaFreeAsync(AB, s));
  KFX_CHECK(cudaFreeAsync(ABv, s));
  KFX_CHECK(cudaFreeAsync(nrm, s));
  KFX_CHECK(cudaFreeAsync(CD, s));
  KFX_CHECK(cudaFreeAsync(CDC, s));
}

static void particles(const Particle *p, const float3 *f, Particle *r, int n, int block,
                      cudaStream_t s)
{
  Particle *q;
  KFX_CHECK(cudaMallocAsync(&q, sizeof(Particle) * n, s));
  unsigned g = (unsigned)((n + block - 1) / block);
  kick<<<g, block, 0, s>>>(p, f, q, 0.01f, n);
  drift<<<g, block, 0, s>>>(q, r, 0.01f, n);
  KFX_CHECK(cudaFreeAsync(q, s));
}

static void partial(const float4 *u, float4 *w, float4 *o, int n, int block, cudaStream_t s)
{
  unsigned g = (unsigned)((n + block - 1) / block);
  half_write<<<g, block, 0, s>>>(u, w, n);
  scale4<<<g, block, 0, s>>>(w, o, 1.5f, n);
}

int main(int argc, char **argv)
{
  kfx::Args a = kfx::parse_args(argc, argv, "records", 1000003);
  kfx::require_device("records");
  const size_t n = (size_t)a.n;
  kfx::Buf<float> A(9 * n), B(9 * n), v(3 * n), C(25 * n), D(25 * n), F(25 * n);
  kfx::Buf<float> P(7 * n), Fo(3 * n), R(7 * n), U(4 * n), W(4 * n), W0(4 * n), O(4 * n);
  kfx::fill_uniform(A.h, a.seed, 1, 0.5, 1.5);
  kfx::fill_uniform(B.h, a.seed, 2, 0.5, 1.5);
  kfx::fill_uniform(v.h, a.seed, 3, 0.5, 1.5);
  kfx::fill_uniform(C.h, a.seed, 4, 0.5, 1.5);
  kfx::fill_uniform(D.h, a.seed, 5, 0.5, 1.5);
  kfx::fill_uniform(P.h, a.seed, 6, 0.5, 1.5);
  kfx::fill_uniform(Fo.h, a.seed, 7, -1.0, 1.0);
  kfx::fill_uniform(U.h, a.seed, 8, -1.0, 1.0);
  kfx::fill_uniform(W0.h, a.seed, 9, -1.0, 1.0);
  for (auto *b : {&A, &B, &v, &C, &D, &P, &Fo, &U, &W0})
    b->upload();
  cudaStream_t s;
  KFX_CHECK(cudaStreamCreate(&s));

  auto check = [&] {
    std::vector<double> rF(25 * n), rR(7 * n), rW(4 * n), rO(4 * n);
    for (size_t i = 0; i < n; i++) {
      double ab[9], cd[25], q = 0;
      for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) {
          double t = 0;
          for (int k = 0; k < 3; k++)
            t += (double)A.h[9 * i + 3 * r + k] * B.h[9 * i + 3 * k + c];
          ab[3 * r + c] = t;
        }
      for (int r = 0; r < 3; r++) {
        double y = 0;
        for (int k = 0; k < 3; k++)
          y += ab[3 * r + k] * v.h[3 * i + k];
        q += y * y;
      }
      for (int r = 0; r < 5; r++)
        for (int c = 0; c < 5; c++) {
          double t = 0;
          for (int k = 0; k < 5; k++)
            t += (double)C.h[25 * i + 5 * r + k] * D.h[25 * i + 5 * k + c];
          cd[5 * r + c] = t;
        }
      for (int k = 0; k < 25; k++)
        rF[25 * i + k] = std::sqrt(q) * (cd[k] + C.h[25 * i + k]);
      const float *p = &P.h[7 * i];
      double s = 0.01 / p[6];
      double vel[3] = {p[3] + s * Fo.h[3 * i], p[4] + s * Fo.h[3 * i + 1],
                       p[5] + s * Fo.h[3 * i + 2]};
      for (int k = 0; k < 3; k++) {
        rR[7 * i + k] = p[k] + 0.01 * vel[k];
        rR[7 * i + 3 + k] = vel[k];
      }
      rR[7 * i + 6] = p[6];
      const float *u = &U.h[4 * i];
      rW[4 * i] = (double)u[0] + u[3];
      rW[4 * i + 1] = (double)u[1] * u[2];
      rW[4 * i + 2] = W0.h[4 * i + 2];
      rW[4 * i + 3] = W0.h[4 * i + 3];
      for (int k = 0; k < 4; k++)
        rO[4 * i + k] = 1.5 * rW[4 * i + k];
    }
    bool ok = kfx::check_close("F", F.h.data(), rF.data(), 25 * n, 8e-6);
    ok = kfx::check_close("R", R.h.data(), rR.data(), 7 * n, 4e-6) && ok;
    ok = kfx::check_close("W", W.h.data(), rW.data(), 4 * n, 4e-6) && ok;
    return kfx::check_close("O", O.h.data(), rO.data(), 4 * n, 4e-6) && ok;
  };
  int rc = kfx::run_and_report(
      "records", a, s, (96.0 + 7 + 3 + 7 + 4 + 2 * 4 + 4) * sizeof(float) * n,
      [&] {
        KFX_CHECK(cudaMemcpyAsync(W.d, W0.d, W0.bytes(), cudaMemcpyDeviceToDevice, s));
        mapped_f_temps(A.d, B.d, v.d, C.d, D.d, F.d, (int)n, a.block, s);
        particles((const Particle *)P.d, (const float3 *)Fo.d, (Particle *)R.d, (int)n,
                  a.block, s);
        partial((const float4 *)U.d, (float4 *)W.d, (float4 *)O.d, (int)n, a.block, s);
      },
      check, F, R, W, O);
  KFX_CHECK(cudaStreamDestroy(s));
  return rc;
}
