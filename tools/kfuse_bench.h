/* kfuse-bench: the workload interface shared by the workload file (compiled
 * twice: with the kfuse plugins and without) and the driver (hand-fused
 * kernels, timing, report). */
#ifndef KFUSE_BENCH_H
#define KFUSE_BENCH_H

#include <cuda_runtime.h>

/* Runs one workload's launch sequence over n instances: `in` and `out` are
 * the workload's nin input and nout output device arrays, in order, each of
 * n x its width elements (one element per instance for element-wise
 * workloads). */
typedef void (*kb_seq_fn)(void *const *in, void *const *out, int n, int block, cudaStream_t s);

struct kb_workload {
  const char *name;
  const char *fn;         /* the function that launches the sequence (remarks name it) */
  const char *dtype;      /* "f16", "f32" or "f64" */
  int elem;               /* bytes per element */
  int nin, nout;          /* input and output arrays (at most KB_MAXIN, KB_MAXOUT) */
  int launches;           /* kernels in the sequence */
  double bytes_per_elem;  /* fewest bytes moved per instance: inputs read once, outputs written once */
  kb_seq_fn run;
  /* Elements per instance of each array, inputs then outputs; NULL: 1 each. */
  const unsigned char *width;
  /* The main table runs n / n_div instances of it (0: n), so that wide
   * records stay within memory; --plans runs the count its plans were made for. */
  int n_div;
  /* The first `inout` outputs start as the first `inout` inputs in the
   * checked runs (the sequence reads them before it writes them); the timed
   * runs keep what the previous run left. */
  int inout;
};

#define KB_MAXIN 5
#define KB_MAXOUT 8

/* Coefficients of the element-wise chains (step j uses kb_coef[j]); the
 * hand-fused kernels use the same ones. */
static constexpr double kb_coef[8] = {0.75, 1.125, 0.875, 1.0625, 0.625, 0.9375, 1.25, 0.8125};
/* The stream benchmark's scalar. */
static constexpr double kb_stream_s = 0.4;
/* BLAS-1 sequence: w1 = a*x + y; w2 = alpha*w1 + beta*z; o = s*w2. */
static constexpr double kb_blas_a = 1.5, kb_blas_alpha = 0.625, kb_blas_beta = 1.375,
                        kb_blas_s = 0.8125;
/* DL epilogue: h1 = x + bias[i % cols]; h2 = gelu(h1); h3 = s*h2; o = h3 + r. */
static constexpr int kb_epi_cols = 4096;
static constexpr float kb_epi_s = 0.5f;
/* The mapped function F = ||A.B.v||_2 . (C.D + C) (examples/mapped_f_kernels.h):
 * floats per instance of A, B, v, C, D, then AB, ABv, nrm, CD, CDC, F. */
static constexpr unsigned char kb_mapped_f_width[11] = {9, 9, 3, 25, 25, 9, 3, 1, 25, 25, 25};
/* The same with its intermediates temporaries: A, B, v, C, D, then F. */
static constexpr unsigned char kb_mapped_f_temps_width[6] = {9, 9, 3, 25, 25, 25};

/* The 2-D image is kb_img_w wide, the 3-D field kb_fld_nx x kb_fld_ny in
 * its planes (n must be a multiple of each); the grid-stride workload runs
 * kb_grid_stride_blocks() blocks, 32 per SM: the grid NVIDIA's grid-stride
 * advice gives (a multiple of the SM count); with 4 per SM a 256-thread block
 * keeps half the SM's threads and neither the unfused, the fused nor the
 * hand-fused kernel gets past 80 % of the copy bandwidth. */
/* Steps of the time loop in each call of the temporaries workloads. */
static constexpr int kb_temp_steps = 8;
static constexpr int kb_img_w = 4096, kb_fld_nx = 256, kb_fld_ny = 256;
inline unsigned kb_grid_stride_blocks()
{
  static unsigned blocks = [] {
    int dev = 0, sms = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
      sms = 132;
    return 32u * (unsigned)sms;
  }();
  return blocks;
}

/* The grid of the nest workload: blocks of 32 x 8, 16 across (512 threads
 * to a row of kb_img_w) and 2 per SM down, 32 blocks per SM as
 * kb_grid_stride_blocks. */
inline dim3 kb_grid_nest_blocks()
{
  return dim3(16, kb_grid_stride_blocks() / 16);
}

/* The split workload: floats per instance of u, v, w, then un, vn, wn (v and
 * vn hold the 2n faces of n cells). */
static constexpr unsigned char kb_split_width[6] = {1, 2, 1, 1, 2, 1};

/* The mixed-granularity 3x3 chain: A, B, then S, t; S = alpha * A.B. */
static constexpr unsigned char kb_gran33_width[4] = {9, 9, 9, 1};
static constexpr float kb_gran_alpha = 0.75f;

/* The items workload: each thread owns kb_items consecutive values of x, y
 * and o (a blocked arrangement), in loops the compiler keeps. */
static constexpr int kb_items = 16;
static constexpr unsigned char kb_items_width[3] = {kb_items, kb_items, kb_items};

#define KB_NWORKLOADS 37

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
