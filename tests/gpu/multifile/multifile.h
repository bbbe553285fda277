/* The multi-file GPU programs: multifile2 (mf_a.cu, mf_b.cu, main.cu) and
 * multifile3 (and mf_c.cu), each built as whole-program device code (one
 * module per file) and with -fgpu-rdc (every file's device code linked into
 * one image), fused and unfused; tools/gpu-check compares the fused and
 * unfused outputs bit for bit, and main.cu checks them against the host.
 *
 * Each file defines `static` kernels scale and add and an anonymous-namespace
 * kernel bump under the same names as the other files, with different
 * arithmetic, so a fused kernel bound to another file's kernels gives wrong
 * numbers. Each file also launches the template pair below the same way:
 * its fused kernels are identical in every file, and under -fgpu-rdc they
 * must not clash. */
#ifndef KFUSE_TESTS_GPU_MULTIFILE_H
#define KFUSE_TESTS_GPU_MULTIFILE_H

#include <cuda_runtime.h>

#include <kfuse/kfuse.h>

template <typename T>
__global__ KFUSE_MAP void mf_shift(const T *x, T *w, T d, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    w[i] = x[i] + d;
}

template <typename T>
__global__ KFUSE_MAP void mf_mul(const T *w, const T *y, T *v, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    v[i] = w[i] * y[i];
}

/* One file's outputs: t, o, u from its own kernels, w, v from the template
 * pair. */
struct MfOut {
  float *t, *o, *u, *w, *v;
};

/* File a: t = 2x, o = t + y, u = o + 1; file b: t = 3x, o = t - y,
 * u = o + 2; file c: t = 4x, o = t * y, u = o + 3. Every file: w = x + 0.5,
 * v = w * y. */
void mf_run_a(const float *x, const float *y, MfOut out, int n, int block, cudaStream_t s);
void mf_run_b(const float *x, const float *y, MfOut out, int n, int block, cudaStream_t s);
void mf_run_c(const float *x, const float *y, MfOut out, int n, int block, cudaStream_t s);

#endif
