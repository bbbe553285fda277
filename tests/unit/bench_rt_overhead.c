/* Host cost of kf_rt_launch_seq() per call, against the fake CUDA table with
 * no-op launches: the float chain2/4/8 sites of kfuse-bench with the
 * manifest the device pass emits for them (bench_rt_manifest.h).
 *
 *   bench_rt_overhead [iterations]     (default 200000)
 *
 * Prints, per chain length k and argument pattern:
 *   RESULT bench=rt_overhead launches=<k> args=<same|alternating> ns_per_call=<x> raw_ns=<y>
 * raw_ns is k no-op cudaLaunchKernel calls made directly. "same" repeats one
 * set of arguments (a loop over fixed buffers); "alternating" swaps between
 * two buffer sets every call (ping-pong buffers).
 * Exits 1 when a call did not run exactly one fused launch, or when the
 * guards called the driver (every footprint is known, so they must not).
 * CTest runs it with few iterations as a smoke test; its timings are not
 * checked. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kfuse/rt.h"
#include "runtime/cuda_api.h"
#include "runtime/site.h"
#include "tests/unit/bench_rt_manifest.h"
#include "tests/unit/fake_cuda.h"

enum { NELEM = 65536, BLOCK = 256, MAXK = 8, NPARAM = 5 };

static const char stub_axpb, stub_mad;
static const uint32_t sizes[NPARAM] = {8, 8, 8, 4, 4};

static uint64_t n_orig, n_fused;

static cudaError_t noop_cudaLaunchKernel(const void *f, dim3 g, dim3 b, void **args, size_t shmem, cudaStream_t s)
{
  (void)f, (void)g, (void)b, (void)args, (void)shmem, (void)s;
  n_orig++;
  return cudaSuccess;
}

static CUresult noop_cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                    unsigned bz, unsigned shmem, CUstream s, void **params, void **extra)
{
  (void)f, (void)gx, (void)gy, (void)gz, (void)bx, (void)by, (void)bz, (void)shmem, (void)s, (void)params,
      (void)extra;
  n_fused++;
  return CUDA_SUCCESS;
}

/* One call's launches, laid out as the host pass lays them out: argument
 * values in locals, pointers to them in per-launch arrays. */
typedef struct chain {
  const float *in[MAXK], *side[MAXK];
  float *out[MAXK];
  float coef[MAXK];
  int n[MAXK];
  void *args[MAXK][NPARAM];
  kf_launch_t l[MAXK];
} chain_t;

/* Buffers x y z t0..t7 of one set. */
typedef struct bufs {
  float *x, *y, *z, *t[MAXK];
} bufs_t;

static void chain_set(chain_t *c, uint32_t k, const bufs_t *b)
{
  for (uint32_t j = 0; j < k; j++) {
    c->in[j] = j == 0 ? b->x : b->t[j - 1];
    c->side[j] = j % 2 == 0 ? b->y : b->z;
    c->out[j] = b->t[j];
  }
}

static void chain_init(chain_t *c, uint32_t k, const bufs_t *b)
{
  memset(c, 0, sizeof *c);
  for (uint32_t j = 0; j < k; j++) {
    kf_launch_t *l = &c->l[j];
    c->coef[j] = 1.0f + (float)j;
    c->n[j] = NELEM;
    c->args[j][0] = &c->in[j];
    c->args[j][1] = &c->side[j];
    c->args[j][2] = &c->out[j];
    c->args[j][3] = &c->coef[j];
    c->args[j][4] = &c->n[j];
    l->func = j % 2 == 0 ? (const void *)&stub_axpb : (const void *)&stub_mad;
    l->grid[0] = NELEM / BLOCK, l->grid[1] = 1, l->grid[2] = 1;
    l->block[0] = BLOCK, l->block[1] = 1, l->block[2] = 1;
    l->stream = (void *)0x5;
    l->args = c->args[j];
    l->arg_sizes = sizes;
    l->nargs = NPARAM;
  }
  chain_set(c, k, b);
}

static void bufs_alloc(bufs_t *b)
{
  float **all[3 + MAXK] = {&b->x, &b->y, &b->z};
  for (int i = 0; i < MAXK; i++)
    all[3 + i] = &b->t[i];
  for (int i = 0; i < 3 + MAXK; i++) {
    if ((*all[i] = calloc(NELEM, sizeof(float))) == NULL) {
      fprintf(stderr, "bench_rt_overhead: out of memory\n");
      exit(1);
    }
    fake_alloc(*all[i], NELEM * sizeof(float));
  }
}

static double now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* The `where` of the site of the chain of @p k launches: the header's
 * groups are bound by their `at` lines to "<line>:<col> <function>" of
 * their own sequence's first launch, which the site must name. */
static void site_where(uint32_t k, char *buf, size_t size)
{
  char prefix[32];
  const char *at;
  size_t n;
  snprintf(prefix, sizeof prefix, "\nat 0 %u ", (unsigned)k);
  at = strstr(bench_manifest, prefix);
  if (at == NULL) {
    snprintf(buf, size, "bench_rt_overhead.c:1:1 chain");
    return;
  }
  at += strlen(prefix);
  n = strcspn(at, "\n");
  snprintf(buf, size, "kfuse_bench_workloads.cu:%.*s", (int)n, at);
}

int main(int argc, char **argv)
{
  static const uint32_t ks[] = {2, 4, 8};
  long iters = argc > 1 ? strtol(argv[1], NULL, 10) : 200000;
  bufs_t set[2];
  int failed = 0;
  if (iters <= 0) {
    fprintf(stderr, "usage: bench_rt_overhead [iterations]\n");
    return 2;
  }
  unsetenv("KFUSE_DISABLE");
  unsetenv("KFUSE_VERIFY");
  unsetenv("KFUSE_STATS");
  unsetenv("KFUSE_LOG");
  fake_reset();
  fake_kernel(&stub_axpb, "_ZN8kb_fused4axpbIfEEvPKT_S3_PS1_S1_i", NULL);
  fake_kernel(&stub_mad, "_ZN8kb_fused3madIfEEvPKT_S3_PS1_S1_i", NULL);
  fake_fused("__kfuse_fused_1_0_1", 2 * NPARAM, NULL);
  fake_fused("__kfuse_fused_2_0_3", 4 * NPARAM, NULL);
  fake_fused("__kfuse_fused_3_0_7", 8 * NPARAM, NULL);
  fake.manifest = bench_manifest;
  bufs_alloc(&set[0]);
  bufs_alloc(&set[1]);
  /* Launches become no-ops that only count. */
  kf__cuda[KF__CU_cudaLaunchKernel] = (void *)noop_cudaLaunchKernel;
  kf__cuda[KF__CU_cuLaunchKernel] = (void *)noop_cuLaunchKernel;

  for (int alternating = 0; alternating < 2; alternating++)
    for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++) {
      uint32_t k = ks[ki];
      char where[256];
      kf_site_t site = {where, NULL, k, 0, NULL, NULL, NULL, 0, NULL};
      chain_t c;
      double t0, t1, t2;
      __typeof__(&cudaLaunchKernel) raw = KF__CU(cudaLaunchKernel);
      site_where(k, where, sizeof where);
      chain_init(&c, k, &set[0]);
      kf_rt_launch_seq(&site, c.l, k); /* discovery, outside the timing */
      n_orig = n_fused = 0;
      fake.calls_range = 0;
      t0 = now_ns();
      for (long i = 0; i < iters; i++) {
        if (alternating)
          chain_set(&c, k, &set[i & 1]);
        kf_rt_launch_seq(&site, c.l, k);
      }
      t1 = now_ns();
      if (n_fused != (uint64_t)iters || n_orig != 0 || fake.calls_range != 0) {
        fprintf(stderr,
                "bench_rt_overhead: launches=%u: %ld calls gave %llu fused and %llu original launches, "
                "%d cuMemGetAddressRange calls\n",
                k, iters, (unsigned long long)n_fused, (unsigned long long)n_orig, fake.calls_range);
        failed = 1;
      }
      for (long i = 0; i < iters; i++) {
        if (alternating)
          chain_set(&c, k, &set[i & 1]);
        for (uint32_t j = 0; j < k; j++) {
          dim3 g = {c.l[j].grid[0], c.l[j].grid[1], c.l[j].grid[2]};
          dim3 b = {c.l[j].block[0], c.l[j].block[1], c.l[j].block[2]};
          (void)raw(c.l[j].func, g, b, c.l[j].args, c.l[j].shmem, (cudaStream_t)c.l[j].stream);
        }
      }
      t2 = now_ns();
      printf("RESULT bench=rt_overhead launches=%u args=%s ns_per_call=%.1f raw_ns=%.1f\n", k,
             alternating ? "alternating" : "same", (t1 - t0) / (double)iters, (t2 - t1) / (double)iters);
      kf__rt_test_reset(); /* the site is a local: forget its state */
    }
  return failed;
}
