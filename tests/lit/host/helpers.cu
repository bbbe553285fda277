// Launch helpers (one launch each, docs/annotations.md) called in a row are
// inlined into the caller, so their launches form one run and reach the
// runtime as one kf_rt_launch_seq call, at -O0 and -O2. A helper called on
// its own, and a function with more than one launch, are left as they are.
// REQUIRES: cuda
// RUN: %clang_cuda --cuda-host-only -O2 -fpass-plugin=%kfuse_llvm_plugin \
// RUN:   -Rpass=kfuse -S -emit-llvm %s -o %t.ll 2> %t.remarks
// RUN: FileCheck %s < %t.ll
// RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
// RUN: FileCheck --check-prefix=WHERE %s < %t.ll
// RUN: %clang_cuda --cuda-host-only -O0 -fpass-plugin=%kfuse_llvm_plugin \
// RUN:   -Rpass=kfuse -S -emit-llvm %s -o %t0.ll 2> %t0.remarks
// RUN: FileCheck --check-prefix=O0 %s < %t0.ll
// RUN: FileCheck --check-prefix=REMARK %s < %t0.remarks
// RUN: FileCheck --check-prefix=WHERE %s < %t0.ll

#include "Inputs/scale-axpy.cuh"

void launch_scale(const float *x, float *t, float a, int n, cudaStream_t s) {
  scale<<<(n + 255) / 256, 256, 0, s>>>(x, t, a, n);
}
void launch_axpy(const float *t, const float *y, float *o, int n, cudaStream_t s) {
  axpy<<<(n + 255) / 256, 256, 0, s>>>(t, y, o, n);
}
void two_launches(const float *x, float *t, const float *y, float *o, int n, cudaStream_t s) {
  // REMARK-DAG: helpers.cu:[[@LINE+1]]:3: remark: handed 2 launches (scale, axpy) to the runtime, which runs them fused where the device code has a fused kernel for them, else one by one [-Rpass=kfuse]
  scale<<<(n + 255) / 256, 256, 0, s>>>(x, t, 2.0f, n);
  axpy<<<(n + 255) / 256, 256, 0, s>>>(t, y, o, n);
}

// CHECK-LABEL: define {{.*}}void @_Z12launch_scalePKfPffiP11CUstream_st(
// CHECK-NOT: kf_rt_launch_seq
// CHECK: call {{.*}}@cudaLaunchKernel(
// CHECK-NOT: kf_rt_launch_seq
// CHECK: ret void

// CHECK-LABEL: define {{.*}}void @_Z3runPKfPfS0_S1_iP11CUstream_st(
// CHECK-NOT: call {{.*}}@_Z12launch_scale
// CHECK-NOT: call {{.*}}@_Z11launch_axpy
// CHECK-NOT: call {{.*}}__device_stub__
// CHECK: call void @kf_rt_launch_seq(ptr nonnull @kfuse.site{{.*}}, ptr nonnull %{{[0-9]+}}, i32 2)
// CHECK-NEXT: ret void
// O0-LABEL: define {{.*}}void @_Z3runPKfPfS0_S1_iP11CUstream_st(
// O0-NOT: call {{.*}}@_Z12launch_scale
// O0: call void @kf_rt_launch_seq(
// O0-NOT: call {{.*}}@_Z11launch_axpy
// O0: ret void
// The run is named after the first helper call, in the remark and in the
// site's `where`.
// WHERE: @kfuse.where{{[.0-9]*}} = {{.*}}helpers.cu:[[#@LINE+3]]:3 _Z3runPKfPfS0_S1_iP11CUstream_st
void run(const float *x, float *t, const float *y, float *o, int n, cudaStream_t s) {
  // REMARK-DAG: helpers.cu:[[@LINE+1]]:3: remark: handed 2 launches (scale, axpy) to the runtime, which runs them fused where the device code has a fused kernel for them, else one by one [-Rpass=kfuse]
  launch_scale(x, t, 2.0f, n, s);
  launch_axpy(t, y, o, n, s);
}

// CHECK-LABEL: define {{.*}}void @_Z4lonePKfPfiP11CUstream_st(
// CHECK-NOT: kf_rt_launch_seq
// CHECK: ret void
// O0-LABEL: define {{.*}}void @_Z4lonePKfPfiP11CUstream_st(
// O0: call void @_Z12launch_scalePKfPffiP11CUstream_st(
// O0-NOT: kf_rt_launch_seq
// O0: ret void
void lone(const float *x, float *t, int n, cudaStream_t s) {
  launch_scale(x, t, 2.0f, n, s);
}

// two_launches is no helper: calling it twice inlines nothing before the
// runs are formed (at -O2 the inliner copies its own run twice later).
// CHECK-LABEL: define {{.*}}void @_Z5twicePKfPfS0_S1_iP11CUstream_st(
// CHECK: call void @kf_rt_launch_seq(ptr nonnull @kfuse.site, ptr nonnull %{{[0-9]+}}, i32 2)
// CHECK: call void @kf_rt_launch_seq(ptr nonnull @kfuse.site, ptr nonnull %{{[0-9]+}}, i32 2)
// O0-LABEL: define {{.*}}void @_Z5twicePKfPfS0_S1_iP11CUstream_st(
// O0: call void @_Z12two_launchesPKfPfS0_S1_iP11CUstream_st(
// O0: call void @_Z12two_launchesPKfPfS0_S1_iP11CUstream_st(
void twice(const float *x, float *t, const float *y, float *o, int n, cudaStream_t s) {
  two_launches(x, t, y, o, n, s);
  two_launches(x, t, y, o, n, s);
}

// A function with one launch and a synchronisation is no helper: nothing is
// inlined into its caller (its launch could not join a run anyway).
void launch_and_sync(const float *x, float *t, int n, cudaStream_t s) {
  scale<<<(n + 255) / 256, 256, 0, s>>>(x, t, 2.0f, n);
  cudaStreamSynchronize(s);
}
// O0-LABEL: define {{.*}}void @_Z9with_syncPKfPfS0_S1_iP11CUstream_st(
// O0: call void @_Z15launch_and_syncPKfPfiP11CUstream_st(
// O0: call void @_Z11launch_axpyPKfS0_PfiP11CUstream_st(
// O0-NOT: kf_rt_launch_seq
// O0: ret void
void with_sync(const float *x, float *t, const float *y, float *o, int n, cudaStream_t s) {
  launch_and_sync(x, t, n, s);
  launch_axpy(t, y, o, n, s);
}
