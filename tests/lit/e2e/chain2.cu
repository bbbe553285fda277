// Two map kernels launched back to back, compiled by clang with both
// plugins: the device compilation fuses them, the PTX keeps the originals
// next to the fused kernel, and ptxas accepts it.
// REQUIRES: ptxas
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -Rpass=kfuse -Rpass-missed=kfuse -Rpass-analysis=kfuse %s -o %t.ptx 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin

__global__ __attribute__((kfuse_map)) void scale(const float *x, float *t, float a, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) t[i] = a * x[i]; }
__global__ __attribute__((kfuse_map)) void axpy(const float *t, const float *y, float *o, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) o[i] = t[i] + y[i]; }

void run(const float *x, float *t, const float *y, float *o, int n, cudaStream_t s) {
  dim3 g((n + 255) / 256), b(256);
  scale<<<g, b, 0, s>>>(x, t, 2.0f, n);
  axpy<<<g, b, 0, s>>>(t, y, o, n);
}

// REMARK: chain2.cu:{{[0-9]+}}:1: remark: kernel 'scale(float const*, float*, float, int)': 8 bytes and 1 flops per element
// REMARK: chain2.cu:{{[0-9]+}}:1: remark: kernel 'axpy(float const*, float const*, float*, int)': 12 bytes and 1 flops per element
// REMARK: chain2.cu:{{[0-9]+}}:1: remark: fused launches 0..1 (scale, axpy) of sequence 0 into __kfuse_fused_{{[0-9a-f]+}}_0_0_1: t in registers; saves 4 bytes per element [-Rpass=kfuse]
// REMARK: remark: __kfuse_fused_{{[0-9a-f]+}}_0_0_1: 20 bytes per element unfused, 16 fused
// REMARK-NOT: not fused

// CHECK: .visible .global .align 1 .b8 __kfuse_manifest_{{[0-9a-f]+}}[
// CHECK: .visible .entry _Z5scalePKfPffi(
// CHECK: .visible .entry _Z4axpyPKfS0_Pfi(
// The product crosses the old boundary as mul.rn, which ptxas never contracts.
// CHECK-LABEL: .visible .entry __kfuse_fused_{{[0-9a-f]+}}_0_0_1(
// CHECK-COUNT-9: {{^}}{{[[:space:]]}}.param
// CHECK-NEXT: ){{ *}}// @__kfuse_fused_{{[0-9a-f]+}}_0_0_1
// CHECK: mul.rn.f32
// CHECK: ret;
