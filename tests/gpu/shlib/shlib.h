/* shlib: a launch sequence in a shared library (lib.cu, linked into
 * libshlib.so with kfuse-clang++ -fPIC -shared), called from a program that
 * has a fused sequence of its own (main.cu). */
#ifndef KFUSE_GPU_SHLIB_H
#define KFUSE_GPU_SHLIB_H

#include <cuda_runtime.h>

/* t = a * x; o = t + y: one site, fused in the library's own module. */
void shlib_chain(const float *x, const float *y, float *t, float *o, float a, int n, int block,
                 cudaStream_t s);

#endif
