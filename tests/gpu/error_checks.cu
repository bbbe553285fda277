/* error_checks: launch sequences with an error check after every launch, in
 * the forms programs write them (pass/llvm/HostChecks.h):
 *
 *   `macro`:    CHECK(cudaGetLastError()), a do/while(0) macro that prints,
 *               resets the device and exits;
 *   `samples`:  getLastCudaError("..."), the CUDA samples' helper, which
 *               asks for the error itself;
 *   `errchk`:   gpuErrchk(cudaPeekAtLastError()), whose gpuAssert exits
 *               when its defaulted `abort` is true;
 *   `asserted`: assert(cudaGetLastError() == cudaSuccess);
 *   `assigned`: err = cudaGetLastError(); if (err != cudaSuccess) {...}
 *
 * over one chain, t = 2x + 1, u = t t - x, y = u + t / 2 (three launches;
 * `samples` and `errchk` the first two, `asserted` and `assigned` the last
 * two). Each check ends the program on an error and another follows the
 * last launch, so the launches fuse across them, t (and u) in registers.
 * The program prints `SITES all-fused count=5`: each sequence must run
 * fused on every call (tools/gpu-check). Fused and unfused must agree bit
 * for bit.
 *
 * `error_checks --bad-launch` runs `macro` with blocks of 2048 threads: the
 * first launch fails, and the program must end with exit status 1 and the
 * same runtime error, fused or not (unfused, from the check after the
 * first launch; fused, the fused launch fails, the runtime falls back to the
 * original launches and the check after the last reports the first one's
 * error). tools/gpu-check runs it.
 *
 * `error_checks --pending-error` first makes a runtime call fail (a device
 * that does not exist) and reads nothing, then runs `tail_check`, the chain
 * with one check after its last launch: the error is still pending when the
 * run reaches the runtime (a check between launches would read it first,
 * as unfused). The runtime must leave it to the program (docs/runtime.md,
 * `pending-error`): both builds end with exit status 1 and that error from
 * the same check, the fused one with its sequence run as written
 * (KFUSE_STATS `pending-error=1`). */
#include "common.h"
#include "kfuse_example.h"

#include <cassert>
#include <cstdio>
#include <cstdlib>
#include <cstring>

__global__ KFUSE_MAP void ec_affine(const float *x, float *t, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    t[i] = 2.0f * x[i] + 1.0f;
}

__global__ KFUSE_MAP void ec_square(const float *t, const float *x, float *u, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    u[i] = t[i] * t[i] - x[i];
}

__global__ KFUSE_MAP void ec_mix(const float *u, const float *t, float *y, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = u[i] + 0.5f * t[i];
}

#define GRID(n, b) ((n) + (b) - 1) / (b), (b)

#define CHECK(call)                                                                          \
  do {                                                                                       \
    cudaError_t e_ = (call);                                                                 \
    if (e_ != cudaSuccess) {                                                                 \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));           \
      cudaDeviceReset();                                                                     \
      exit(1);                                                                               \
    }                                                                                        \
  } while (0)

#define getLastCudaError(msg) ec_last_error(msg, __FILE__, __LINE__)
inline void ec_last_error(const char *what, const char *file, const int line)
{
  cudaError_t err = cudaGetLastError();
  if (cudaSuccess != err) {
    fprintf(stderr, "%s(%i) : getLastCudaError() CUDA error : %s : (%d) %s.\n", file, line, what,
            (int)err, cudaGetErrorString(err));
    exit(EXIT_FAILURE);
  }
}

#define gpuErrchk(ans) { gpuAssert((ans), __FILE__, __LINE__); }
inline void gpuAssert(cudaError_t code, const char *file, int line, bool abort = true)
{
  if (code != cudaSuccess) {
    fprintf(stderr, "GPUassert: %s %s %d\n", cudaGetErrorString(code), file, line);
    if (abort)
      exit(code);
  }
}

static void macro(const float *x, float *t, float *u, float *y, int n, int b, cudaStream_t s)
{
  ec_affine<<<GRID(n, b), 0, s>>>(x, t, n);
  CHECK(cudaGetLastError());
  ec_square<<<GRID(n, b), 0, s>>>(t, x, u, n);
  CHECK(cudaGetLastError());
  ec_mix<<<GRID(n, b), 0, s>>>(u, t, y, n);
  CHECK(cudaGetLastError());
}

static void samples(const float *x, float *t, float *u, int n, int b, cudaStream_t s)
{
  ec_affine<<<GRID(n, b), 0, s>>>(x, t, n);
  getLastCudaError("ec_affine failed");
  ec_square<<<GRID(n, b), 0, s>>>(t, x, u, n);
  getLastCudaError("ec_square failed");
}

static void errchk(const float *x, float *t, float *u, int n, int b, cudaStream_t s)
{
  ec_affine<<<GRID(n, b), 0, s>>>(x, t, n);
  gpuErrchk(cudaPeekAtLastError());
  ec_square<<<GRID(n, b), 0, s>>>(t, x, u, n);
  gpuErrchk(cudaPeekAtLastError());
}

static void asserted(const float *t, const float *x, float *u, float *y, int n, int b, cudaStream_t s)
{
  ec_square<<<GRID(n, b), 0, s>>>(t, x, u, n);
  assert(cudaGetLastError() == cudaSuccess);
  ec_mix<<<GRID(n, b), 0, s>>>(u, t, y, n);
  assert(cudaGetLastError() == cudaSuccess);
}

static void assigned(const float *t, const float *x, float *u, float *y, int n, int b, cudaStream_t s)
{
  cudaError_t err = cudaSuccess;
  ec_square<<<GRID(n, b), 0, s>>>(t, x, u, n);
  err = cudaGetLastError();
  if (err != cudaSuccess) {
    fprintf(stderr, "ec_square: %s\n", cudaGetErrorString(err));
    exit(EXIT_FAILURE);
  }
  ec_mix<<<GRID(n, b), 0, s>>>(u, t, y, n);
  err = cudaGetLastError();
  if (err != cudaSuccess) {
    fprintf(stderr, "ec_mix: %s\n", cudaGetErrorString(err));
    exit(EXIT_FAILURE);
  }
}

/* `macro` with blocks of 2048 threads, more than any device allows. Returns
 * only if no check ended the program. */
static int bad_launch()
{
  const int n = 4096;
  float *x, *t, *u, *y;
  KFX_CHECK(cudaMalloc((void **)&x, 4 * n * sizeof(float)));
  KFX_CHECK(cudaMemset(x, 0, 4 * n * sizeof(float)));
  t = x + n, u = t + n, y = u + n;
  macro(x, t, u, y, n, 2048, 0);
  KFX_CHECK(cudaDeviceSynchronize());
  fprintf(stderr, "error_checks: the launch error was not reported\n");
  return 2;
}

/* The chain with one check, after its last launch. */
static void tail_check(const float *x, float *t, float *u, float *y, int n, int b, cudaStream_t s)
{
  ec_affine<<<GRID(n, b), 0, s>>>(x, t, n);
  ec_square<<<GRID(n, b), 0, s>>>(t, x, u, n);
  ec_mix<<<GRID(n, b), 0, s>>>(u, t, y, n);
  CHECK(cudaGetLastError());
}

/* `tail_check` with an error of the program's own pending. Returns only if
 * no check ended the program. */
static int pending_error()
{
  const int n = 4096;
  float *x, *t, *u, *y;
  int count = 0;
  KFX_CHECK(cudaMalloc((void **)&x, 4 * n * sizeof(float)));
  KFX_CHECK(cudaMemset(x, 0, 4 * n * sizeof(float)));
  t = x + n, u = t + n, y = u + n;
  KFX_CHECK(cudaGetDeviceCount(&count));
  if (cudaSetDevice(count) == cudaSuccess) {
    fprintf(stderr, "error_checks: cudaSetDevice(%d) did not fail\n", count);
    return 2;
  }
  tail_check(x, t, u, y, n, 256, 0);
  KFX_CHECK(cudaDeviceSynchronize());
  fprintf(stderr, "error_checks: the pending error was not reported\n");
  return 2;
}

int main(int argc, char **argv)
{
  if (argc == 2 && !strcmp(argv[1], "--bad-launch"))
    return bad_launch();
  if (argc == 2 && !strcmp(argv[1], "--pending-error"))
    return pending_error();
  kfx::Args a = kfx::parse_args(argc, argv, "error_checks", 1 << 24);
  kfx::require_device("error_checks");
  const int n = (int)a.n;
  kfx::Buf<float> x(n), t(n), u(n), y(n), t2(n), u2(n), u3(n), y3(n), u4(n), y4(n);
  kfx::fill_uniform(x.h, a.seed, 1, -2.0, 2.0);
  x.upload();
  cudaStream_t s;
  KFX_CHECK(cudaStreamCreate(&s));
  /* For tools/gpu-check: every sequence runs fused on every call. */
  std::printf("SITES all-fused count=5\n");

  auto check = [&] {
    std::vector<float> rt(n), ru(n), ry(n);
    for (int i = 0; i < n; i++) {
      rt[i] = 2.0f * x.h[i] + 1.0f;
      ru[i] = rt[i] * rt[i] - x.h[i];
      ry[i] = ru[i] + 0.5f * rt[i];
    }
    bool ok = kfx::check_close("t", t.h.data(), rt.data(), n, 1e-6);
    ok = kfx::check_close("u", u.h.data(), ru.data(), n, 1e-5) && ok;
    ok = kfx::check_close("y", y.h.data(), ry.data(), n, 1e-5) && ok;
    ok = kfx::check_close("t2", t2.h.data(), rt.data(), n, 1e-6) && ok;
    ok = kfx::check_close("u2", u2.h.data(), ru.data(), n, 1e-5) && ok;
    ok = kfx::check_close("u3", u3.h.data(), ru.data(), n, 1e-5) && ok;
    ok = kfx::check_close("y3", y3.h.data(), ry.data(), n, 1e-5) && ok;
    ok = kfx::check_close("u4", u4.h.data(), ru.data(), n, 1e-5) && ok;
    return kfx::check_close("y4", y4.h.data(), ry.data(), n, 1e-5) && ok;
  };
  int rc = kfx::run_and_report(
      "error_checks", a, s, 10.0 * n * sizeof(float),
      [&] {
        macro(x.d, t.d, u.d, y.d, n, a.block, s);
        samples(x.d, t2.d, u2.d, n, a.block, s);
        errchk(x.d, t2.d, u2.d, n, a.block, s);
        asserted(t.d, x.d, u3.d, y3.d, n, a.block, s);
        assigned(t.d, x.d, u4.d, y4.d, n, a.block, s);
      },
      check, t, u, y, t2, u2, u3, y3, u4, y4);
  KFX_CHECK(cudaStreamDestroy(s));
  return rc;
}
