// Launches written as calls of one-launch helper functions, compiled by
// clang with both plugins: the device compilation fuses them (the grids
// computed in the helpers from the same n are one value), the host
// compilation inlines the helpers and hands the two launches to the runtime.
// A helper call and a launch written in place with the same computed grid
// fuse too, and so do helpers that launch the kernel they are passed (a
// function template's parameter, a generic lambda's); different lengths do
// not.
// REQUIRES: ptxas
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -Rpass=kfuse -Rpass-missed=kfuse %s -o %t.ptx 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-host-only -O2 -S -emit-llvm -Rpass=kfuse %s -o %t.host.ll 2>%t.host.remarks
// RUN: FileCheck %s --check-prefix=HOST < %t.host.remarks
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-host-only -O2 -S -emit-llvm %s -o - | FileCheck %s --check-prefix=PLACED

__global__ __attribute__((kfuse_map)) void scale(const float *x, float *t, float a, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) t[i] = a * x[i]; }
__global__ __attribute__((kfuse_map)) void axpy(const float *t, const float *y, float *o, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) o[i] = t[i] + y[i]; }

static void launch_scale(const float *x, float *t, float a, int n, cudaStream_t s)
{ scale<<<(n + 255) / 256, 256, 0, s>>>(x, t, a, n); }
static void launch_axpy(const float *t, const float *y, float *o, int len, cudaStream_t s)
{ axpy<<<(len + 255) / 256, 256, 0, s>>>(t, y, o, len); }

void run(const float *x, float *t, const float *y, float *o, int n, cudaStream_t s) {
  launch_scale(x, t, 2.0f, n, s);
  launch_axpy(t, y, o, n, s);
}
void mixed(const float *x, float *t, const float *y, float *o, int n, cudaStream_t s) {
  launch_scale(x, t, 2.0f, n, s);
  axpy<<<(n + 255) / 256, 256, 0, s>>>(t, y, o, n);
}
void lengths(const float *x, float *t, const float *y, float *o, int n, int m, cudaStream_t s) {
  launch_scale(x, t, 2.0f, n, s);
  launch_axpy(t, y, o, m, s);
}
// Helpers given the kernel: a template with the arguments as a pack, and a
// generic lambda. Inlined, each launches the kernel the call names.
template <typename K, typename... A> void launch_on(cudaStream_t s, int n, K kernel, A... a) {
  kernel<<<(n + 255) / 256, 256, 0, s>>>(a..., n);
}
void generic(const float *x, float *t, const float *y, float *o, int n, cudaStream_t s) {
  launch_on(s, n, scale, x, t, 2.0f);
  launch_on(s, n, &axpy, (const float *)t, y, o);
}
void lambda(const float *x, float *t, const float *y, float *o, int n, cudaStream_t s) {
  auto run = [&](auto kernel, auto... a) { kernel<<<(n + 255) / 256, 256, 0, s>>>(a..., n); };
  run(scale, x, t, 2.0f);
  run(axpy, (const float *)t, y, o);
}

// REMARK: remark: fused launches 0..1 (scale, axpy) of sequence 0 into __kfuse_fused_{{[0-9a-f]+}}_0_0_1: t in registers
// REMARK: remark: fused launches 0..1 (scale, axpy) of sequence 1 into __kfuse_fused_{{[0-9a-f]+}}_1_0_1: t in registers
// REMARK: remark: launches 0..1 (scale, axpy) of sequence 2 at {{.*}}helpers.cu:{{[0-9]+}}:3 in 'lengths' not fused: launches 0 and 1 differ in launch configuration
// REMARK: remark: fused launches 0..1 (scale, axpy) of sequence 3 into __kfuse_fused_{{[0-9a-f]+}}_3_0_1: t in registers
// REMARK: remark: fused launches 0..1 (scale, axpy) of sequence 4 into __kfuse_fused_{{[0-9a-f]+}}_4_0_1: t in registers
// CHECK: .entry __kfuse_fused_{{[0-9a-f]+}}_0_0_1(
// CHECK: .entry __kfuse_fused_{{[0-9a-f]+}}_1_0_1(
// CHECK-NOT: .entry __kfuse_fused_{{[0-9a-f]+}}_2
// CHECK: .entry __kfuse_fused_{{[0-9a-f]+}}_3_0_1(
// CHECK: .entry __kfuse_fused_{{[0-9a-f]+}}_4_0_1(
// HOST-COUNT-5: remark: handed 2 launches (scale, axpy) to the runtime, which runs them fused where the device code has a fused kernel for them
// HOST-NOT: remark
// Without remarks the launches are bound by the positions the Clang plugin
// lists (a lambda's call among them); each run is handed over alike.
// PLACED-COUNT-5: call void @kf_rt_launch_seq(
// PLACED-NOT: call void @kf_rt_launch_seq(
