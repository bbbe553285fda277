/* kfuse-bench: the workload interface shared by the workload file (compiled
 * twice: with the kfuse plugins and without) and the driver (hand-fused
 * kernels, timing, report). */
#ifndef KFUSE_BENCH_H
#define KFUSE_BENCH_H

#include <cuda_runtime.h>

/* Runs one workload's launch sequence: `in` and `out` are device arrays of n
 * elements each (the workload's nin inputs and nout outputs, in order). */
typedef void (*kb_seq_fn)(void *const *in, void *const *out, int n, int block, cudaStream_t s);

struct kb_workload {
  const char *name;
  const char *fn;         /* the function that launches the sequence (remarks name it) */
  const char *dtype;      /* "f32" or "f64" */
  int elem;               /* bytes per element */
  int nin, nout;          /* input and output arrays, n elements each */
  int launches;           /* kernels in the sequence */
  double bytes_per_elem;  /* fewest bytes moved per element: inputs read once, outputs written once */
  kb_seq_fn run;
};

/* Coefficients of the element-wise chains (step j uses kb_coef[j]); the
 * hand-fused kernels use the same ones. */
static constexpr double kb_coef[8] = {0.75, 1.125, 0.875, 1.0625, 0.625, 0.9375, 1.25, 0.8125};
/* BLAS-1 sequence: w1 = a*x + y; w2 = alpha*w1 + beta*z; o = s*w2. */
static constexpr double kb_blas_a = 1.5, kb_blas_alpha = 0.625, kb_blas_beta = 1.375,
                        kb_blas_s = 0.8125;
/* DL epilogue: h1 = x + bias[i % cols]; h2 = gelu(h1); h3 = s*h2; o = h3 + r. */
static constexpr int kb_epi_cols = 4096;
static constexpr float kb_epi_s = 0.5f;

#define KB_NWORKLOADS 8

/* The same table of KB_NWORKLOADS entries, compiled twice; the entries
 * differ only in `run`. */
namespace kb_fused {
const kb_workload *workloads();
}
namespace kb_unfused {
const kb_workload *workloads();
}
/* The fused build again, planned for 2^16 elements per launch
 * (-kfuse-elements=65536): the plans of launch-bound sizes, for --plans. */
namespace kb_small {
const kb_workload *workloads();
}

#endif
