; The interim plan grows a group while it stays legal: scale+axpy fuse,
; gather reads o at an unknown index (o[idx[i]]) and stays alone.
; RUN: llvm-link %S/Inputs/kernels.ll %s -S \
; RUN:   | %opt -load-pass-plugin=%kfuse_llvm_plugin -passes=kfuse-device -S -pass-remarks=kfuse -pass-remarks-missed=kfuse -pass-remarks-analysis=kfuse 2>&1 | FileCheck %s
; CHECK: launches 0..2 ({{.*}}) of sequence 0 at {{.*}} not fused: buffer 'o'
; CHECK: fused launches 0..1 (scale, axpy) of sequence 0 into __kfuse_fused_{{[0-9a-f]+}}_0_0_1
; CHECK-NOT: __kfuse_fused_{{[0-9a-f]+}}_0_0_2
; CHECK: define ptx_kernel void @__kfuse_fused_{{[0-9a-f]+}}_0_0_1(

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@__kfuse_seq_0 = internal addrspace(1) global i8 0, align 1
@.kfseq.0 = private unnamed_addr constant [469 x i8] c"kfuse.seq 1\0Asite app.cu:12:3 _Z3runv\0Alaunch 0 _Z5scalePKfPffi grid=0 block=1 shmem=2 stream=3 args=4,5,6,7\0Alaunch 1 _Z4axpyPKfS0_Pfi grid=0 block=1 shmem=2 stream=3 args=5,8,9,7\0Alaunch 2 _Z6gatherPKiPKfPfi grid=0 block=1 shmem=2 stream=3 args=12,9,10,7\0Avalue 0 other g\0Avalue 1 other b\0Avalue 2 int 0\0Avalue 3 other s\0Avalue 4 ptr x\0Avalue 5 ptr t\0Avalue 6 float 2.0f\0Avalue 7 int n\0Avalue 8 ptr y\0Avalue 9 ptr o\0Avalue 10 ptr u\0Avalue 11 ptr w\0Avalue 12 ptr idx\0Avalue 13 other b2\00", section "llvm.metadata"
@.kffile = private unnamed_addr constant [5 x i8] c"t.cu\00", section "llvm.metadata"
@llvm.global.annotations = appending global [1 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr addrspacecast (ptr addrspace(1) @__kfuse_seq_0 to ptr), ptr @.kfseq.0, ptr @.kffile, i32 9, ptr null }], section "llvm.metadata"
