// A fused kernel keeps its members' launch bounds where it runs in their
// block (one granularity): the fewest threads per block a member allows,
// the most blocks per SM one asks for, the fewest registers one allows, as
// a kernel fused by hand would carry them. Across granularities the fused
// block is a block of its own, 256 threads here, which the members'
// bounds do not describe: it keeps none. ptxas accepts every kernel.
// REQUIRES: ptxas
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -Rpass=kfuse %s -o %t.ptx 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin

#define MAP __attribute__((kfuse_map))

__global__ MAP __launch_bounds__(256) void b256(const float *x, float *t, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) t[i] = 2.0f * x[i]; }
__global__ MAP __launch_bounds__(256, 4) void b256x4(const float *t, float *y, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = t[i] + 1.0f; }
__global__ MAP __launch_bounds__(128) void b128(const float *x, float *t, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) t[i] = x[i] * x[i]; }
__global__ MAP void plain(const float *t, float *y, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = t[i] - 0.5f; }
// Two threads per instance, then one: fused across granularities.
__global__ MAP __launch_bounds__(128, 2) void square(const float *x, float *w, int m)
{ int j = blockIdx.x * blockDim.x + threadIdx.x; if (j < m) w[j] = x[j] * x[j] + 1.0f; }
__global__ MAP __launch_bounds__(128, 2) void pairsum(const float *w, float *o, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) o[i] = w[2 * i] + w[2 * i + 1]; }

void both(const float *x, float *t, float *y, int n) {
  b256<<<(n + 255) / 256, 256>>>(x, t, n);
  b256x4<<<(n + 255) / 256, 256>>>(t, y, n);
}
void one(const float *x, float *t, float *y, int n) {
  b128<<<(n + 127) / 128, 128>>>(x, t, n);
  plain<<<(n + 127) / 128, 128>>>(t, y, n);
}
void pairs(const float *x, float *w, float *o, int n) {
  square<<<(2 * n + 127) / 128, 128>>>(x, w, 2 * n);
  pairsum<<<(n + 127) / 128, 128>>>(w, o, n);
}

// REMARK: remark: fused launches 0..1 (b256, b256x4) of sequence 0 into __kfuse_fused_{{[0-9a-f]+}}_0_0_1
// REMARK: remark: fused launches 0..1 (b128, plain) of sequence 1 into __kfuse_fused_{{[0-9a-f]+}}_1_0_1
// REMARK: remark: fused launches 0..1 (square, pairsum) of sequence 2 into __kfuse_fused_{{[0-9a-f]+}}_2_0_1: {{.*}}across granularities, threads per instance 2, 1

// CHECK: .entry {{__kfuse_fused_[0-9a-f]+_0_0_1}}(
// CHECK: )
// CHECK-NEXT: .maxntid 256
// CHECK-NEXT: .minnctapersm 4
// CHECK-NEXT: {
// CHECK: .entry {{__kfuse_fused_[0-9a-f]+_1_0_1}}(
// CHECK: )
// CHECK-NEXT: .maxntid 128
// CHECK-NEXT: {
// CHECK: .entry {{__kfuse_fused_[0-9a-f]+_2_0_1}}(
// CHECK: )
// CHECK-NEXT: {
