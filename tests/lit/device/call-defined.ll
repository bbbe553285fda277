; callk calls helper(), a __noinline__ device function defined in the module
; that only computes: the analysis looks through it, the launches fuse and the
; fused kernel keeps the call.
; RUN: llvm-link %S/Inputs/kernels.ll %s -S \
; RUN:   | %opt -load-pass-plugin=%kfuse_llvm_plugin -passes=kfuse-device -S -pass-remarks=kfuse -pass-remarks-missed=kfuse -pass-remarks-analysis=kfuse 2>%t.remarks | FileCheck %s --check-prefix=IR
; RUN: FileCheck %s < %t.remarks
; IR-LABEL: define ptx_kernel void @__kfuse_fused_{{[0-9a-f]+}}_0_0_1(
; IR: call {{.*}}float @_Z6helperf(
; CHECK-NOT: _Z5callkPKfPfi cannot be fused
; CHECK: kernel 'callk(float const*, float*, int)': 8 bytes and 2 flops per element
; CHECK: fused launches 0..1 (scale, callk) of sequence 0 into __kfuse_fused_{{[0-9a-f]+}}_0_0_1: t in registers

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@__kfuse_seq_0 = internal addrspace(1) global i8 0, align 1
@.kfseq.0 = private unnamed_addr constant [390 x i8] c"kfuse.seq 1\0Asite app.cu:12:3 _Z3runv\0Alaunch 0 _Z5scalePKfPffi grid=0 block=1 shmem=2 stream=3 args=4,5,6,7\0Alaunch 1 _Z5callkPKfPfi grid=0 block=1 shmem=2 stream=3 args=5,9,7\0Avalue 0 other g\0Avalue 1 other b\0Avalue 2 int 0\0Avalue 3 other s\0Avalue 4 ptr x\0Avalue 5 ptr t\0Avalue 6 float 2.0f\0Avalue 7 int n\0Avalue 8 ptr y\0Avalue 9 ptr o\0Avalue 10 ptr u\0Avalue 11 ptr w\0Avalue 12 ptr idx\0Avalue 13 other b2\00", section "llvm.metadata"
@.kffile = private unnamed_addr constant [5 x i8] c"t.cu\00", section "llvm.metadata"
@llvm.global.annotations = appending global [1 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr addrspacecast (ptr addrspace(1) @__kfuse_seq_0 to ptr), ptr @.kfseq.0, ptr @.kffile, i32 9, ptr null }], section "llvm.metadata"
