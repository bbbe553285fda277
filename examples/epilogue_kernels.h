/* The two kernels of a dense layer's element-wise tail that are not plain
 * arithmetic: bias add (per column) and the exact GELU. Without a namespace
 * of its own: kfuse-bench includes it inside the namespace of each of its
 * builds. */
#ifndef KFUSE_EXAMPLES_EPILOGUE_KERNELS_H
#define KFUSE_EXAMPLES_EPILOGUE_KERNELS_H

#include <kfuse/kfuse.h>

/* h = x + bias[column], row-major with `cols` columns */
__global__ KFUSE_MAP void bias_add(const float *x, const float *bias, float *h, int cols, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    h[i] = x[i] + bias[i % cols];
}

/* The exact GELU, 0.5 x (1 + erf(x / sqrt 2)), not the tanh approximation. */
__global__ KFUSE_MAP void gelu(const float *h, float *g, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = h[i];
    g[i] = 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
  }
}

#endif
