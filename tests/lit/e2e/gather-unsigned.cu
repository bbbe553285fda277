// Unsigned remainders by a parameter and masks, read-only: fused, with a
// bounded footprint. ScalarEvolution spells i % c (unsigned) as
// i - (i /u c) * c; the bound is min(i + 1, c) - 1, with c read as unsigned
// (a c of 2^31 or more reads negative in the manifest and bounds nothing).
// REQUIRES: cuda
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -emit-llvm -Rpass=kfuse -Rpass-analysis=kfuse %s -o %t.ll 2> %t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: grep '^@__kfuse_manifest' %t.ll | sed -e 's/\\0A/\n/g' | FileCheck %s --check-prefix=MANIFEST

#define KMAP __global__ __attribute__((kfuse_map))
KMAP void tab_mod(const float *x, const float *b, float *h, unsigned c, unsigned n)
{ unsigned i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) h[i] = x[i] + b[i % c]; }
KMAP void tab_mask(const float *h, const float *b, float *o, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) o[i] = h[i] * b[i & 15]; }
void run(const float *x, const float *b, float *h, float *o, unsigned c, int n, cudaStream_t s) {
  tab_mod<<<n / 256, 256, 0, s>>>(x, b, h, c, n);
  tab_mask<<<n / 256, 256, 0, s>>>(h, b, o, n);
}
// REMARK: kernel 'tab_mod(float const*, float const*, float*, unsigned int, unsigned int)': 12 bytes and 1 flops per element; gathers through parameter 2 ('b') within bytes [0, 4*(max(min(blockDim.x*gridDim.x-1+1,c),min(blockDim.x*gridDim.x-1+1,-c*(blockDim.x*gridDim.x-1+1)))-1)+4)
// REMARK: kernel 'tab_mask(float const*, float const*, float*, int)': 12 bytes and 1 flops per element; gathers through parameter 2 ('b') within bytes [0, 64)
// REMARK: fused launches 0..1 (tab_mod, tab_mask) of sequence 0 into __kfuse_fused_0_0_1: h in registers

// MANIFEST: footprint 0.1 r 0 4*(max(min(bx*gx-1+1,s3),min(bx*gx-1+1,-s3*(bx*gx-1+1)))-1)+4{{$}}
// MANIFEST: footprint 1.1 r 0 64{{$}}
