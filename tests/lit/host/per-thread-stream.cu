// Stubs that launch through cudaLaunchKernel_ptsz (a host compiled for the
// per-thread default stream) mean the per-thread default stream by a null
// stream. The runtime launches with the plain entry points (null: the legacy
// stream, which can never be captured into a graph and breaks any capture of
// a blocking stream), so the records carry cudaStreamPerThread (0x2) in
// place of a null stream; another stream passes unchanged. clang 22 itself
// emits stubs that call cudaLaunchKernel, even with
// -fgpu-default-stream=per-thread: the test renames the call in its output.
// Stubs that call cudaLaunchKernel keep the stream as written.
// REQUIRES: cuda
// RUN: %clang_cuda --cuda-host-only -O0 -Xclang -disable-O0-optnone -S -emit-llvm %s -o %t.ll
// RUN: sed 's/@cudaLaunchKernel(/@cudaLaunchKernel_ptsz(/' %t.ll > %t.ptsz.ll
// RUN: %opt -load-pass-plugin=%kfuse_llvm_plugin -passes=kfuse-host -S %t.ptsz.ll -o %t.out.ll
// RUN: FileCheck %s < %t.out.ll
// RUN: %opt -load-pass-plugin=%kfuse_llvm_plugin -passes=kfuse-host -S %t.ll -o %t.legacy.ll
// RUN: FileCheck --check-prefix=LEGACY %s < %t.legacy.ll

#include "Inputs/scale-axpy.cuh"

// CHECK: call {{.*}}@cudaLaunchKernel_ptsz(
// CHECK-LABEL: define {{.*}}void @_Z3runPKfPfS0_S1_iP11CUstream_st(
// CHECK: %[[NULL:[0-9]+]] = icmp eq ptr %[[S:[0-9]+]], null
// CHECK-NEXT: %[[STREAM:kfuse.stream[0-9]*]] = select i1 %[[NULL]], ptr inttoptr (i64 2 to ptr), ptr %[[S]]
// CHECK-NEXT: getelementptr
// CHECK-NEXT: store volatile ptr %[[STREAM]], ptr
// CHECK: %[[NULL2:[0-9]+]] = icmp eq ptr %[[S2:[0-9]+]], null
// CHECK-NEXT: %[[STREAM2:kfuse.stream[0-9]*]] = select i1 %[[NULL2]], ptr inttoptr (i64 2 to ptr), ptr %[[S2]]
// CHECK-NEXT: getelementptr
// CHECK-NEXT: store volatile ptr %[[STREAM2]], ptr
// CHECK: call void @kf_rt_launch_seq(
// LEGACY-LABEL: define {{.*}}void @_Z3runPKfPfS0_S1_iP11CUstream_st(
// LEGACY-NOT: inttoptr (i64 2
// LEGACY: call void @kf_rt_launch_seq(
void run(const float *x, float *t, const float *y, float *o, int n, cudaStream_t s) {
  scale<<<(n + 255) / 256, 256, 0, s>>>(x, t, 2.0f, n);
  axpy<<<(n + 255) / 256, 256, 0, s>>>(t, y, o, n);
}

// Launches on the default stream: the constant null becomes the handle.
// CHECK-LABEL: define {{.*}}void @_Z11run_defaultPKfPfS0_S1_i(
// CHECK-NOT: call void @kf_rt_launch_seq
// CHECK-COUNT-2: store volatile ptr inttoptr (i64 2 to ptr), ptr
// CHECK: call void @kf_rt_launch_seq(
// LEGACY-LABEL: define {{.*}}void @_Z11run_defaultPKfPfS0_S1_i(
// LEGACY-NOT: inttoptr (i64 2
// LEGACY: call void @kf_rt_launch_seq(
void run_default(const float *x, float *t, const float *y, float *o, int n) {
  scale<<<(n + 255) / 256, 256>>>(x, t, 2.0f, n);
  axpy<<<(n + 255) / 256, 256>>>(t, y, o, n);
}
