// At -O0 clang marks every function optnone; the device pass does not
// optimise them to see through the parameter allocas, and says why instead
// of fusing. It must not crash, the records must still go, and the PTX has
// no fused kernel; its manifest has no group, only the reason, for the host
// pass's remark.
// REQUIRES: ptxas
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O0 -S -Rpass=kfuse -Rpass-missed=kfuse %s -o %t.ptx 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O0 -S -emit-llvm %s -o - | FileCheck %s --check-prefix=IR

#define KMAP __global__ __attribute__((kfuse_map))
#define IDX int i = blockIdx.x * blockDim.x + threadIdx.x
KMAP void scale(const float *x, float *y, float a, int n) { IDX; if (i < n) y[i] = a * x[i]; }
KMAP void add(const float *x, const float *y, float *o, int n) { IDX; if (i < n) o[i] = x[i] + y[i]; }

void run(const float *x, float *t, const float *y, float *o, int n) {
  scale<<<n / 128, 128>>>(x, t, 2.0f, n);
  add<<<n / 128, 128>>>(t, y, o, n);
}

// REMARK: remark: kernel 'scale(float const*, float*, float, int)' cannot be fused: is compiled without optimisation (optnone, -O0); kfuse fuses at -O1 and above
// REMARK: remark: kernel 'add(float const*, float const*, float*, int)' cannot be fused: is compiled without optimisation (optnone, -O0)
// REMARK: remark: launches 0..1 (scale, add) of sequence 0 at {{.*}}o0.cu:{{[0-9]+}}:{{[0-9]+}} in 'run' not fused: kernel 'scale' cannot be fused: is compiled without optimisation
// REMARK-NOT: fused launches

// CHECK-NOT: __kfuse_fused
// CHECK: .visible .global .align 1 .b8 __kfuse_manifest_{{[0-9a-f]+}}[
// CHECK-NOT: __kfuse_fused
// CHECK: .visible .entry _Z5scalePKfPffi(
// CHECK: .visible .entry _Z3addPKfS0_Pfi(
// CHECK-NOT: __kfuse_fused

// IR-NOT: __kfuse_seq_
// IR-NOT: __kfuse_fused
// IR: @__kfuse_manifest_{{[0-9a-f]+}} = {{.*}} c"kfuse-manifest 1\0Amissed _Z3runPKfPfS0_S1_i {{[0-9]+}} 2 0 1 kernel 'scale' cannot be fused: is compiled without optimisation (optnone, -O0); kfuse fuses at -O1 and above\0A\00"
// IR-NOT: __kfuse_seq_
// IR-NOT: __kfuse_fused
