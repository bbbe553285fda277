// <kfuse/kfuse.h>: KFUSE_MAP is the kfuse_map attribute under the Clang
// plugin and nothing without it, so one source builds both ways with no
// "unknown attribute" warning; KFUSE_ENABLED says which build this is.
// Without the plugin: no diagnostic at all, in either compilation, in CUDA,
// C++ and C.
// RUN: %clang_cuda --cuda-device-only -fsyntax-only %kfuse_cuda_sdk -I%kfuse_src_root/include -Wall -Wextra -Xclang -verify %s
// RUN: %clang_cuda --cuda-host-only -fsyntax-only -I%kfuse_src_root/include -Wall -Wextra -Xclang -verify %s
// RUN: %clang_cuda --cuda-device-only -fsyntax-only %kfuse_cuda_sdk -I%kfuse_src_root/include -Wall -Wextra -Xclang -verify -DEXPECT_ENABLED=0 %s
// RUN: clang -x c -std=c11 -fsyntax-only -I%kfuse_src_root/include -Wall -Wextra -Xclang -verify -DEXPECT_ENABLED=0 %S/Inputs/kfuse-header.c
// With the plugin: the kernel carries the mark in both modules.
// RUN: %clang_cuda --cuda-device-only -O0 -S -emit-llvm %kfuse_cuda_sdk -fplugin=%kfuse_clang_plugin -I%kfuse_src_root/include -Wall -Wextra -DEXPECT_ENABLED=1 %s -o %t.dev.ll 2>%t.dev.err
// RUN: count 0 < %t.dev.err
// RUN: %clang_cuda --cuda-host-only -O0 -S -emit-llvm %kfuse_cuda_sdk -fplugin=%kfuse_clang_plugin -I%kfuse_src_root/include -Wall -Wextra -DEXPECT_ENABLED=1 %s -o %t.host.ll 2>%t.host.err
// RUN: cat %t.dev.ll %t.host.ll | FileCheck %s --check-prefixes=DEV,HOST
// RUN: count 0 < %t.host.err
// RUN: FileCheck %s --check-prefix=IMPL < %t.dev.ll
// expected-no-diagnostics

#include <kfuse/kfuse.h>

#if defined(EXPECT_ENABLED) && KFUSE_ENABLED != EXPECT_ENABLED
#error "KFUSE_ENABLED is wrong"
#endif

__global__ KFUSE_MAP void scale(const float *x, float *t, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    t[i] = a * x[i];
}
__global__ void plain(float *p) { *p = 0; }
// A second implementation of scale's function, three threads per element.
__global__ KFUSE_IMPL("scale", 3) void scale3(const float *x, float *t, float a, int m) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < m && j % 3 == 0)
    t[j / 3] = a * x[j / 3];
}

// The translation unit's key, the same in both compilations (the passes
// read it and erase @__kfuse_tu; here no pass runs).
// DEV: @{{.*}} = private unnamed_addr constant [26 x i8] c"kfuse.tu [[KEY:[0-9a-f]{16}]]\00"
// IMPL: c"kfuse_impl scale 3\00"
// IMPL: { ptr @_Z6scale3PKfPffi, ptr @{{.*}}, ptr @{{.*}}, i32 {{[0-9]+}}, ptr null }
// DEV: @llvm.global.annotations = appending global [6 x
// DEV-SAME: { ptr addrspacecast (ptr addrspace(1) @__kfuse_tu to ptr), ptr @{{.*}}, ptr @{{.*}}, i32 1, ptr null }
// DEV-SAME: { ptr @_Z5scalePKfPffi, ptr @{{.*}}, ptr @{{.*}}, i32 {{[0-9]+}}, ptr null }
// The host compilation's @__kfuse_tu also says that the plugin turned on
// location tracking (no -g here), so that the host pass strips it.
// HOST: @{{.*}} = private unnamed_addr constant [26 x i8] c"kfuse.tu [[KEY]]\00"
// HOST: @llvm.global.annotations = appending global [7 x
// HOST-SAME: { ptr @__kfuse_tu, ptr @{{[.a-z0-9]+}}, ptr @{{[.a-z0-9]+}}, i32 1, ptr null }
// HOST-SAME: { ptr @__kfuse_tu, ptr @{{[.a-z0-9]+}}, ptr @{{[.a-z0-9]+}}, i32 1, ptr null }
// HOST-SAME: { ptr @_Z20__device_stub__scalePKfPffi, ptr @{{.*}}, ptr @{{.*}}, i32 {{[0-9]+}}, ptr null }
