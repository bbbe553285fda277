// A four-kernel chain (bias gather, activation, scale, residual add: the
// epilogue of a dense layer; the lit flags have -nocudalib, so the
// activation is plain arithmetic rather than erff) fuses into one kernel with three buffers forwarded in
// registers; the bias is gathered at i % cols, which is bounded by |cols|.
// REQUIRES: ptxas
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -Rpass=kfuse -Rpass-missed=kfuse %s -o %t.ptx 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// The manifest in the IR: the bias's footprint is its first min(n', |cols|)
// floats (n' the grid's threads), and it is disjoint from every buffer the
// group writes.
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -emit-llvm %s -o - \
// RUN:   | grep '^@__kfuse_manifest' | sed -e 's/\\0A/\n/g' | FileCheck %s --check-prefix=MANIFEST

#define KMAP __global__ __attribute__((kfuse_map))
#define IDX int i = blockIdx.x * blockDim.x + threadIdx.x
KMAP void bias_add(const float *x, const float *b, float *h, int cols, int n)
{ IDX; if (i < n) h[i] = x[i] + b[i % cols]; }
KMAP void act(const float *h, float *g, int n)
{ IDX; if (i < n) { float v = h[i]; g[i] = v > 0.0f ? v : 0.01f * v * (1.0f + 0.5f * v); } }
KMAP void scale(const float *x, float *y, float a, int n) { IDX; if (i < n) y[i] = a * x[i]; }
KMAP void add(const float *x, const float *y, float *o, int n) { IDX; if (i < n) o[i] = x[i] + y[i]; }

void epilogue(const float *x, const float *b, const float *r, float *h1, float *h2, float *h3,
              float *o, float a, int cols, int n, cudaStream_t s) {
  unsigned g = (n + 255) / 256;
  bias_add<<<g, 256, 0, s>>>(x, b, h1, cols, n);
  act<<<g, 256, 0, s>>>(h1, h2, n);
  scale<<<g, 256, 0, s>>>(h2, h3, a, n);
  add<<<g, 256, 0, s>>>(h3, r, o, n);
}

// REMARK-NOT: not fused
// REMARK: remark: fused launches 0..3 (bias_add, act, scale, add) of sequence 0 into __kfuse_fused_{{[0-9a-f]+}}_0_0_3: h1 in registers, h2 in registers, h3 in registers; saves 12 bytes per element
// REMARK-NOT: not fused

// CHECK-LABEL: .visible .entry __kfuse_fused_{{[0-9a-f]+}}_0_0_3(
// CHECK-COUNT-17: {{^}}{{[[:space:]]}}.param
// CHECK-NEXT: ){{ *}}// @__kfuse_fused_{{[0-9a-f]+}}_0_0_3
// CHECK: ret;

// MANIFEST: group __kfuse_fused_{{[0-9a-f]+}}_0_0_3 4
// MANIFEST: footprint 0.0 r
// MANIFEST-NEXT: footprint 0.1 r 0 4*min(bx*gx-1,max(s3,-s3)-1)+4{{$}}
// MANIFEST: footprint 0.2 w
// MANIFEST: disjoint 0.1 0.2
// MANIFEST: disjoint 0.1 1.1
// MANIFEST: disjoint 0.1 2.1
// MANIFEST: disjoint 0.1 3.2
// MANIFEST: dead 0 0.2
// MANIFEST: dead 1 1.1
// MANIFEST: dead 2 2.1
// MANIFEST: end
