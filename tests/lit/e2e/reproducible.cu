// The compiler's output does not depend on time or load: the same file
// compiled idle and under a CPU load of busy loops gives byte-identical PTX
// (fused kernels and manifest) and object (the host's launch runs with the
// embedded device code), the four best plans of a chain of twelve launches
// that all read one coefficient array included.
// REQUIRES: ptxas, fatbinary
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -mllvm -kfuse-plans=4 -Rpass=kfuse %s -o %t/out.ptx 2>%t/remarks
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk -O2 -c -mllvm -kfuse-plans=4 %s -o %t/out.o
// RUN: mv %t/out.ptx %t/idle.ptx && mv %t/out.o %t/idle.o
// RUN: sh %S/Inputs/under-load.sh -n 6 %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -mllvm -kfuse-plans=4 %s -o %t/out.ptx
// RUN: cmp %t/idle.ptx %t/out.ptx
// RUN: sh %S/Inputs/under-load.sh -n 6 %clang_cuda %kfuse_plugins %kfuse_cuda_sdk -O2 -c -mllvm -kfuse-plans=4 %s -o %t/out.o
// RUN: cmp %t/idle.o %t/out.o
// A tiny work limit changes nothing either: the launches are all alike, so
// only consecutive groups are posed, which are planned exactly by dynamic
// programming.
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -mllvm -kfuse-plans=4 -mllvm -kfuse-plan-work-limit=1 %s -o %t/out.ptx
// RUN: cmp %t/idle.ptx %t/out.ptx
// RUN: FileCheck %s --check-prefix=REMARK < %t/remarks
// RUN: FileCheck %s < %t/idle.ptx

// Plans of equal predicted time come in one order, every time.
// REMARK: fused launches 0..4 (step, step, step, step, step) of sequence 0 into __kfuse_fused_{{[0-9a-f]+}}_0_0_4
// REMARK: fused launches 5..11 {{.*}} into __kfuse_fused_{{[0-9a-f]+}}_0_5_11
// CHECK: .entry __kfuse_fused_{{[0-9a-f]+}}_0_0_4(
// CHECK: .entry __kfuse_fused_{{[0-9a-f]+}}_0_5_11(

__global__ __attribute__((kfuse_map)) void step(const float *c, const float *x, float *y, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = c[i] * x[i] + 1.0f; }

void run(const float *c, float *t, int n, cudaStream_t s) {
  dim3 g((n + 255) / 256), b(256);
  int m = n;
  step<<<g, b, 0, s>>>(c, t + 0 * m, t + 1 * m, n);
  step<<<g, b, 0, s>>>(c, t + 1 * m, t + 2 * m, n);
  step<<<g, b, 0, s>>>(c, t + 2 * m, t + 3 * m, n);
  step<<<g, b, 0, s>>>(c, t + 3 * m, t + 4 * m, n);
  step<<<g, b, 0, s>>>(c, t + 4 * m, t + 5 * m, n);
  step<<<g, b, 0, s>>>(c, t + 5 * m, t + 6 * m, n);
  step<<<g, b, 0, s>>>(c, t + 6 * m, t + 7 * m, n);
  step<<<g, b, 0, s>>>(c, t + 7 * m, t + 8 * m, n);
  step<<<g, b, 0, s>>>(c, t + 8 * m, t + 9 * m, n);
  step<<<g, b, 0, s>>>(c, t + 9 * m, t + 10 * m, n);
  step<<<g, b, 0, s>>>(c, t + 10 * m, t + 11 * m, n);
  step<<<g, b, 0, s>>>(c, t + 11 * m, t + 12 * m, n);
}
