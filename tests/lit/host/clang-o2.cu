// The host pass under clang -O2: it runs at pipeline start, before inlining,
// and the rest of the pipeline optimises around the runtime call. The two
// launches become one kf_rt_launch_seq call; the dim3 constructors, pushes and
// skip branches are gone, so the function is a single block of record stores
// and the call, and the stubs stay (the records and the registration name
// them).
// REQUIRES: cuda
// RUN: %clang_cuda --cuda-host-only -O2 -fpass-plugin=%kfuse_llvm_plugin \
// RUN:   -Rpass=kfuse -S -emit-llvm %s -o %t.ll 2> %t.remarks
// RUN: FileCheck %s < %t.ll
// RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

#include "Inputs/scale-axpy.cuh"

// CHECK: define {{.*}}void @_Z20__device_stub__scalePKfPffi(
// CHECK-LABEL: define {{.*}}void @_Z3runPKfPfS0_S1_iP11CUstream_st(
// CHECK-SAME: ptr noundef %[[X:[0-9]+]], ptr noundef %[[T:[0-9]+]], ptr noundef %{{[0-9]+}}, ptr noundef %{{[0-9]+}}, i32 noundef %[[N:[0-9]+]], ptr noundef %[[S:[0-9]+]])
// CHECK-NOT: {{^[0-9]+:}}
// CHECK-NOT: call {{.*}}@_ZN4dim3
// CHECK-NOT: __cudaPushCallConfiguration
// CHECK-NOT: call {{.*}}__device_stub__
// Argument slots hold the function's parameters directly once SROA ran.
// CHECK: store ptr %[[X]], ptr
// CHECK: store ptr %[[T]], ptr
// The stream parameter lands in both records.
// CHECK: store ptr %[[S]], ptr
// CHECK: store ptr %[[S]], ptr
// CHECK: call void @kf_rt_launch_seq(ptr nonnull @kfuse.site, ptr nonnull %{{[0-9]+}}, i32 2)
// CHECK-NEXT: ret void
void run(const float *x, float *t, const float *y, float *o, int n, cudaStream_t s) {
  // REMARK: clang-o2.cu:[[@LINE+1]]:3: remark: handed 2 launches (scale, axpy) to the runtime, which runs them fused where the device code has a fused kernel for them, else one by one [-Rpass=kfuse]
  scale<<<(n + 255) / 256, 256, 0, s>>>(x, t, 2.0f, n);
  axpy<<<(n + 255) / 256, 256, 0, s>>>(t, y, o, n);
}

// CHECK: declare void @kf_rt_launch_seq(ptr, ptr, i32)
