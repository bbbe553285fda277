// Accesses through the global address space: __ldg(&t[i]) loads through
// `addrspacecast (gep t, i)`, and a cast to a global pointer stores through
// one. ScalarEvolution takes the cast for a base of its own, so its offset is
// taken through it; the offset used to come out as 0 for every thread, which
// made a read-only input's footprint one element wide and its `disjoint`
// guard blind to a real overlap, and hid the index from the legality check.
// REQUIRES: cuda
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -emit-llvm -Rpass=kfuse -Rpass-missed=kfuse -Rpass-analysis=kfuse %s -o %t.ll 2> %t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: grep '^@__kfuse_manifest' %t.ll | sed -e 's/\\0A/\n/g' | FileCheck %s --check-prefix=MANIFEST

#define KMAP __global__ __attribute__((kfuse_map))
#define IDX int i = blockIdx.x * blockDim.x + threadIdx.x
typedef __attribute__((address_space(1))) float gfloat;

KMAP void scale_g(const float *x, float *t, int n) { IDX; if (i < n) *(gfloat *)&t[i] = 3.0f * x[i]; }
KMAP void add_ldg(const float *t, const float *u, float *o, int n) { IDX; if (i < n) o[i] = __ldg(&t[i]) + __ldg(&u[i]); }
KMAP void next_ldg(const float *t, float *o, int n) { IDX; if (i + 1 < n) o[i] = __ldg(&t[i + 1]); }
KMAP void shifted_store(const float *x, float *t, int n) { IDX; if (i + 1 < n) *(gfloat *)&t[i + 1] = x[i]; }
KMAP void bias_ldg(const float *x, const float *bias, float *h, int cols, int n)
{ IDX; if (i < n) h[i] = x[i] + __ldg(&bias[i % cols]); }
KMAP void rev_ldg(const float *t, float *o, int n)
{ int b = blockIdx.x * blockDim.x; int i = b + threadIdx.x; if (i < n) o[i] = __ldg(&t[b + blockDim.x - 1 - threadIdx.x]); }

// Forwarded through __ldg; u's footprint is the whole range the threads read.
void fwd(const float *x, float *t, const float *u, float *o, int n) {
  scale_g<<<n / 256, 256>>>(x, t, n);
  add_ldg<<<n / 256, 256>>>(t, u, o, n);
}
// A neighbour's element: staged with a halo of one element.
void next(const float *x, float *t, float *o, int n) {
  scale_g<<<n / 256, 256>>>(x, t, n);
  next_ldg<<<n / 256, 256>>>(t, o, n);
}
// Written one element on, read at the thread's own index.
void shifted(const float *x, float *t, float *o, int n) {
  shifted_store<<<n / 256, 256>>>(x, t, n);
  add_ldg<<<n / 256, 256>>>(t, x, o, n);
}
// A bounded gather through __ldg: the same footprint as without it.
void bias(const float *x, const float *b, float *h, float *o, int cols, int n) {
  bias_ldg<<<n / 256, 256>>>(x, b, h, cols, n);
  add_ldg<<<n / 256, 256>>>(h, x, o, n);
}
// Reversed within the block: staged in shared memory.
void rev(const float *x, float *t, float *o, int n) {
  scale_g<<<n / 256, 256>>>(x, t, n);
  rev_ldg<<<n / 256, 256>>>(t, o, n);
}

// REMARK-DAG: kernel 'add_ldg(float const*, float const*, float*, int)': 12 bytes and 1 flops per element{{$| }}
// REMARK-DAG: fused launches 0..1 (scale_g, add_ldg) of sequence 0 into __kfuse_fused_{{[0-9a-f]+}}_0_0_1: t in registers
// REMARK-DAG: fused launches 0..1 (scale_g, next_ldg) of sequence 1 into __kfuse_fused_{{[0-9a-f]+}}_1_0_1: t through shared memory with a halo of 0 elements before and 1 after each block's, recomputed by launch 0 (scale_g), with barriers
// REMARK-DAG: launches 0..1 (shifted_store, add_ldg) of sequence 2 at {{.*}} not fused: buffer 't': launch 0 (shifted_store) writes it at byte offset 4*blockDim.x*blockIdx.x+4*threadIdx.x+4 and launch 1 (add_ldg) reads it at byte offset 4*blockDim.x*blockIdx.x+4*threadIdx.x;
// REMARK-DAG: kernel 'bias_ldg(float const*, float const*, float*, int, int)': 12 bytes and 1 flops per element; gathers through parameter 2 ('bias') within bytes [0, 4*min(blockDim.x*gridDim.x-1,max(cols,-cols)-1)+4)
// REMARK-DAG: fused launches 0..1 (bias_ldg, add_ldg) of sequence 3 into __kfuse_fused_{{[0-9a-f]+}}_3_0_1: h in registers
// REMARK-DAG: fused launches 0..1 (scale_g, rev_ldg) of sequence 4 into __kfuse_fused_{{[0-9a-f]+}}_4_0_1: t through shared memory, with barriers

// MANIFEST: group __kfuse_fused_{{[0-9a-f]+}}_0_0_1 2
// MANIFEST: footprint 0.1 w 0 min(4*bx*gx,4*s2){{$}}
// MANIFEST-NEXT: footprint 1.0 r 0 min(4*bx*gx,4*s3){{$}}
// MANIFEST-NEXT: footprint 1.1 r 0 min(4*bx*gx,4*s3){{$}}
// MANIFEST: disjoint 0.1 1.1{{$}}
// MANIFEST: group __kfuse_fused_{{[0-9a-f]+}}_3_0_1 2
// MANIFEST: footprint 0.1 r 0 4*min(bx*gx-1,max(s3,-s3)-1)+4{{$}}
// MANIFEST: group __kfuse_fused_{{[0-9a-f]+}}_4_0_1 2
