// A chain in a loop body is a sequence of its own (the loop body is its
// compound statement); the loop itself stays on the host.
// REQUIRES: ptxas
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -Rpass=kfuse -Rpass-missed=kfuse %s -o %t.ptx 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin

#define KMAP __global__ __attribute__((kfuse_map))
#define IDX int i = blockIdx.x * blockDim.x + threadIdx.x
KMAP void scale(const float *x, float *y, float a, int n) { IDX; if (i < n) y[i] = a * x[i]; }
KMAP void add(const float *x, const float *y, float *o, int n) { IDX; if (i < n) o[i] = x[i] + y[i]; }

void iterate(float *x, float *t, int n, int steps, cudaStream_t s) {
  for (int k = 0; k < steps; ++k) {
    scale<<<(n + 127) / 128, 128, 0, s>>>(x, t, 0.5f, n);
    add<<<(n + 127) / 128, 128, 0, s>>>(t, x, x, n);
  }
}

// REMARK: remark: fused launches 0..1 (scale, add) of sequence 0 into __kfuse_fused_{{[0-9a-f]+}}_0_0_1: t in registers
// REMARK-NOT: not fused

// CHECK: .visible .entry __kfuse_fused_{{[0-9a-f]+}}_0_0_1(
