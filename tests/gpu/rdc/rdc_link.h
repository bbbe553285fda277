/* rdc_link: the launch sequence of chain.cu, called from main.cu. */
#ifndef KFUSE_GPU_RDC_LINK_H
#define KFUSE_GPU_RDC_LINK_H

#include <cuda_runtime.h>

/* t = a * x; o = t + y (fused); p = rdc_bias(o), a __device__ function of
 * main.cu. */
void rdc_chain(const float *x, const float *y, float *t, float *o, float *p, float a, int n,
               int block, cudaStream_t s);

#endif
