/* lambdas: buffers reached through a device lambda's captures and through
 * the fields of a struct passed by value, as codes built on a `forall`
 * (a kernel template that calls a lambda per index) and on structs of
 * field pointers write them:
 *
 *   template <class F> __global__ void forall_kernel(int n, F body);
 *   forall(n, [=] __device__ (int i) { t[i] = a * x[i] + y[i]; }, s);
 *
 * Sequence `chain` (3 foralls, float): t = a x + y, u = t t - x,
 * o = u + t / 2, each lambda capturing the pointers it uses; t and u in
 * registers.
 * Sequence `state` (3 launches, double): struct State { const double *h, *q;
 * double *p, *qn; int n; double g, dt; } passed whole to p = g h h / 2 and
 * qn = q - dt p, then its field p passed alone to a kernel of plain
 * pointers, w = p + h; p in registers.
 * Sequence `captured` (2 foralls, float): lambdas declared as locals, the
 * second between the launches, capturing a struct of pointers whole
 * (`Span v{x, t, n}`, the closure's fields are the struct's): t = 3 x - 1,
 * r = t / 4 + x; t in registers.
 * t, u and p are temporaries of each call (cudaMallocAsync, cudaFreeAsync):
 * the host pass proves the pointers the closures and the struct hold dead
 * after the run, and the fused kernels do not store them.
 * The program prints `SITES all-fused count=3`: every sequence must run
 * fused on every call (tools/gpu-check). Fused and unfused must agree bit
 * for bit. */
#include "common.h"
#include "kfuse_example.h"

#include <cstdio>

template <class F> __global__ KFUSE_MAP void forall_kernel(int n, F body)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    body(i);
}

template <class F> static void forall(int n, int b, cudaStream_t s, F body)
{
  forall_kernel<<<(n + b - 1) / b, b, 0, s>>>(n, body);
}

static void chain(const float *x, const float *y, float *o, float a, int n, int b, cudaStream_t s)
{
  float *t, *u;
  KFX_CHECK(cudaMallocAsync(&t, sizeof(float) * n, s));
  KFX_CHECK(cudaMallocAsync(&u, sizeof(float) * n, s));
  forall(n, b, s, [=] __device__(int i) { t[i] = a * x[i] + y[i]; });
  forall(n, b, s, [=] __device__(int i) { u[i] = t[i] * t[i] - x[i]; });
  forall(n, b, s, [=] __device__(int i) { o[i] = u[i] + 0.5f * t[i]; });
  KFX_CHECK(cudaFreeAsync(t, s));
  KFX_CHECK(cudaFreeAsync(u, s));
}

struct State {
  const double *h, *q;
  double *p, *qn;
  int n;
  double g, dt;
};

__global__ KFUSE_MAP void la_pressure(State st)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < st.n)
    st.p[i] = 0.5 * st.g * st.h[i] * st.h[i];
}

__global__ KFUSE_MAP void la_momentum(State st)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < st.n)
    st.qn[i] = st.q[i] - st.dt * st.p[i];
}

__global__ KFUSE_MAP void la_total(const double *p, const double *h, double *w, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    w[i] = p[i] + h[i];
}

static void state(const double *h, const double *q, double *qn, double *w, int n, int b,
                  cudaStream_t s)
{
  double *p;
  KFX_CHECK(cudaMallocAsync(&p, sizeof(double) * n, s));
  State st{h, q, p, qn, n, 9.81, 0.001};
  int g = (st.n + b - 1) / b;
  la_pressure<<<g, b, 0, s>>>(st);
  la_momentum<<<g, b, 0, s>>>(st);
  la_total<<<g, b, 0, s>>>(st.p, st.h, w, st.n);
  KFX_CHECK(cudaFreeAsync(p, s));
}

struct Span {
  const float *x;
  float *t;
  int n;
};

static void captured(const float *x, float *r, int n, int b, cudaStream_t s)
{
  float *t;
  KFX_CHECK(cudaMallocAsync(&t, sizeof(float) * n, s));
  Span v{x, t, n};
  auto first = [=] __device__(int i) { v.t[i] = 3.0f * v.x[i] - 1.0f; };
  forall(n, b, s, first);
  auto second = [=] __device__(int i) { r[i] = v.t[i] / 4.0f + v.x[i]; };
  forall(n, b, s, second);
  KFX_CHECK(cudaFreeAsync(t, s));
}

int main(int argc, char **argv)
{
  kfx::Args a = kfx::parse_args(argc, argv, "lambdas", 1 << 24);
  kfx::require_device("lambdas");
  const int n = (int)a.n;
  const float k = 1.5f;
  kfx::Buf<float> x(n), y(n), o(n), r(n);
  kfx::Buf<double> h(n), q(n), qn(n), w(n);
  kfx::fill_uniform(x.h, a.seed, 1, -1.0, 1.0);
  kfx::fill_uniform(y.h, a.seed, 2, -1.0, 1.0);
  kfx::fill_uniform(h.h, a.seed, 3, 0.5, 1.5);
  kfx::fill_uniform(q.h, a.seed, 4, -0.5, 0.5);
  x.upload(), y.upload(), h.upload(), q.upload();
  const double g = 9.81, dt = 0.001;
  cudaStream_t s;
  KFX_CHECK(cudaStreamCreate(&s));
  /* For tools/gpu-check: every sequence runs fused on every call. */
  std::printf("SITES all-fused count=3\n");

  auto check = [&] {
    std::vector<float> rt(n), ru(n), ro(n), rt2(n), rr(n);
    std::vector<double> rp(n), rq(n), rw(n);
    for (int i = 0; i < n; i++) {
      rt[i] = k * x.h[i] + y.h[i];
      ru[i] = rt[i] * rt[i] - x.h[i];
      ro[i] = ru[i] + 0.5f * rt[i];
      rt2[i] = 3.0f * x.h[i] - 1.0f;
      rr[i] = rt2[i] / 4.0f + x.h[i];
      rp[i] = 0.5 * g * h.h[i] * h.h[i];
      rq[i] = q.h[i] - dt * rp[i];
      rw[i] = rp[i] + h.h[i];
    }
    bool ok = kfx::check_close("o", o.h.data(), ro.data(), n, 1e-5);
    ok = kfx::check_close("r", r.h.data(), rr.data(), n, 1e-6) && ok;
    ok = kfx::check_close("qn", qn.h.data(), rq.data(), n, 1e-12) && ok;
    ok = kfx::check_close("w", w.h.data(), rw.data(), n, 1e-12) && ok;
    return ok;
  };
  int rc = kfx::run_and_report(
      "lambdas", a, s, (5.0 * n) * sizeof(float) + (4.0 * n) * sizeof(double),
      [&] {
        chain(x.d, y.d, o.d, k, n, a.block, s);
        state(h.d, q.d, qn.d, w.d, n, a.block, s);
        captured(x.d, r.d, n, a.block, s);
      },
      check, o, r, qn, w);
  KFX_CHECK(cudaStreamDestroy(s));
  return rc;
}
