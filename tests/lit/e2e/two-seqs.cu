// Two launch sequences in two host functions of one file: two groups, one
// manifest holding both, in record order.
// REQUIRES: ptxas
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -Rpass=kfuse -Rpass-missed=kfuse %s -o %t.ptx 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -emit-llvm %s -o %t.ll
// RUN: grep -c '^@__kfuse_manifest' %t.ll | FileCheck %s --check-prefix=ONE
// RUN: grep '^@__kfuse_manifest' %t.ll | sed -e 's/\\0A/\n/g' | FileCheck %s
// RUN: FileCheck %s --check-prefix=IR < %t.ll

#define KMAP __global__ __attribute__((kfuse_map))
#define IDX int i = blockIdx.x * blockDim.x + threadIdx.x
KMAP void scale(const float *x, float *y, float a, int n) { IDX; if (i < n) y[i] = a * x[i]; }
KMAP void add(const float *x, const float *y, float *o, int n) { IDX; if (i < n) o[i] = x[i] + y[i]; }
KMAP void square(const float *x, float *y, int n) { IDX; if (i < n) y[i] = x[i] * x[i]; }

void first(const float *x, float *t, const float *y, float *o, int n) {
  scale<<<n / 128, 128>>>(x, t, 3.0f, n);
  add<<<n / 128, 128>>>(t, y, o, n);
}

void second(const float *x, float *t, float *u, int n) {
  square<<<n / 256, 256>>>(x, t, n);
  square<<<n / 256, 256>>>(t, u, n);
  scale<<<n / 256, 256>>>(u, t, 0.5f, n);
}

// REMARK-DAG: remark: fused launches 0..1 (scale, add) of sequence 0 into __kfuse_fused_{{[0-9a-f]+}}_0_0_1: t in registers
// REMARK-DAG: remark: fused launches 0..2 (square, square, scale) of sequence 1 into __kfuse_fused_{{[0-9a-f]+}}_1_0_2: t in registers, u in registers
// REMARK-NOT: not fused

// PTX-DAG: .visible .entry __kfuse_fused_{{[0-9a-f]+}}_0_0_1(
// PTX-DAG: .visible .entry __kfuse_fused_{{[0-9a-f]+}}_1_0_2(

// ONE: 1

// CHECK: kfuse-manifest 1
// CHECK-NEXT: group __kfuse_fused_{{[0-9a-f]+}}_0_0_1 2
// CHECK-NEXT: kernel 0 _Z5scalePKfPffi 4
// CHECK-NEXT: kernel 1 _Z3addPKfS0_Pfi 4
// CHECK: end
// CHECK-NEXT: group __kfuse_fused_{{[0-9a-f]+}}_1_0_2 3
// CHECK-NEXT: kernel 0 _Z6squarePKfPfi 3
// CHECK-NEXT: kernel 1 _Z6squarePKfPfi 3
// CHECK-NEXT: kernel 2 _Z5scalePKfPffi 4
// CHECK: end
// CHECK-NOT: group

// IR-NOT: __kfuse_seq_
// IR: define {{.*}}ptx_kernel void @__kfuse_fused_{{[0-9a-f]+}}_0_0_1(
// IR: define {{.*}}ptx_kernel void @__kfuse_fused_{{[0-9a-f]+}}_1_0_2(
