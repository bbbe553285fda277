// Built with the fused kernels of several plans (-kfuse-plans), the runtime
// runs the plan KFUSE_PLAN selects: the host pass describes plan 0 and says
// that other plans cover the run differently.
// REQUIRES: ptxas
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk -O2 -c -mllvm -kfuse-plans=4 -Rpass=kfuse %s -o %t.o 2> %t.remarks
// RUN: FileCheck %s < %t.remarks

#define KMAP __global__ __attribute__((kfuse_map))
#define IDX int i = blockIdx.x * blockDim.x + threadIdx.x

KMAP void scale(const float *x, float *t, int n) { IDX; if (i < n) t[i] = 2.0f * x[i]; }
KMAP void add(const float *t, const float *y, float *u, int n) { IDX; if (i < n) u[i] = t[i] + y[i]; }
KMAP void square(const float *u, float *o, int n) { IDX; if (i < n) o[i] = u[i] * u[i]; }

void run(const float *x, float *t, const float *y, float *u, float *o, int n) {
  // CHECK: device-plan-plans.cu:[[@LINE+1]]:3: remark: handed 3 launches (scale, add, square) to the runtime, which runs launches 0..2 as __kfuse_fused_{{[0-9a-f]+}}_0_0_2 when the guards hold at run time, else one by one (plan 0; other architectures or plans cover them differently) [-Rpass=kfuse]
  scale<<<(n + 255) / 256, 256>>>(x, t, n);
  add<<<(n + 255) / 256, 256>>>(t, y, u, n);
  square<<<(n + 255) / 256, 256>>>(u, o, n);
}
