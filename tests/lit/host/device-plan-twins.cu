// Two sequences of the same kernels, each fused for its own wiring. Each
// group's `at` line binds it to its own sequence's site (host function,
// line and column of the first launch), so each run is handed to the
// runtime with its own fused kernel; neither is bound to the other's.
// REQUIRES: ptxas
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk -O2 -c -Rpass=kfuse %s -o %t.o 2> %t.remarks
// RUN: FileCheck %s < %t.remarks

#define KMAP __global__ __attribute__((kfuse_map))
#define IDX int i = blockIdx.x * blockDim.x + threadIdx.x

KMAP void scale(const float *x, float *t, int n) { IDX; if (i < n) t[i] = 2.0f * x[i]; }
KMAP void add(const float *a, const float *b, float *o, int n) { IDX; if (i < n) o[i] = a[i] + b[i]; }

// CHECK-DAG: remark: fused launches 0..1 (scale, add) of sequence 0 into __kfuse_fused_{{[0-9a-f]+}}_0_0_1
// CHECK-DAG: remark: fused launches 0..1 (scale, add) of sequence 1 into __kfuse_fused_{{[0-9a-f]+}}_1_0_1
void first(const float *x, float *t, const float *y, float *o, int n) {
  // CHECK: device-plan-twins.cu:[[@LINE+1]]:3: remark: handed 2 launches (scale, add) to the runtime, which runs launches 0..1 as __kfuse_fused_{{[0-9a-f]+}}_0_0_1 when the guards hold at run time, else one by one [-Rpass=kfuse]
  scale<<<(n + 255) / 256, 256>>>(x, t, n);
  add<<<(n + 255) / 256, 256>>>(t, y, o, n);
}
void second(const float *x, float *t, const float *y, float *o, int n) {
  // CHECK: device-plan-twins.cu:[[@LINE+1]]:3: remark: handed 2 launches (scale, add) to the runtime, which runs launches 0..1 as __kfuse_fused_{{[0-9a-f]+}}_1_0_1 when the guards hold at run time, else one by one [-Rpass=kfuse]
  scale<<<(n + 255) / 256, 256>>>(x, t, n);
  add<<<(n + 255) / 256, 256>>>(y, t, o, n);
}
