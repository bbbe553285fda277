; A chain of four kernels forwards three intermediates in registers.
; RUN: llvm-link %S/Inputs/kernels.ll %s -S \
; RUN:   | %opt -load-pass-plugin=%kfuse_llvm_plugin -passes=kfuse-device -S -pass-remarks=kfuse -pass-remarks-missed=kfuse -pass-remarks-analysis=kfuse 2>&1 | FileCheck %s

; CHECK: fused launches 0..3 (scale, addone, addone, axpy) of sequence 0 into __kfuse_fused_{{[0-9a-f]+}}_0_0_3: t in registers, u in registers, w in registers; saves 12 bytes per element
; CHECK: c"kfuse-manifest 1\0Agroup __kfuse_fused_{{[0-9a-f]+}}_0_0_3 4\0Akernel 0 _Z5scalePKfPffi 4\0Akernel 1 _Z6addonePKfPfi 3\0Akernel 2 _Z6addonePKfPfi 3\0Akernel 3 _Z4axpyPKfS0_Pfi 4\0A
; CHECK-SAME: dead 0 0.1 covered\0Adead 1 1.1 covered\0Adead 2 2.1 covered\0A
; CHECK-LABEL: define ptx_kernel void @__kfuse_fused_{{[0-9a-f]+}}_0_0_3(
; CHECK-COUNT-3: call float @llvm.arithmetic.fence.f32
; CHECK-NOT: barrier
; CHECK: ret void

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@__kfuse_seq_0 = internal addrspace(1) global i8 0, align 1
@.kfseq.0 = private unnamed_addr constant [534 x i8] c"kfuse.seq 1\0Asite app.cu:12:3 _Z3runv\0Alaunch 0 _Z5scalePKfPffi grid=0 block=1 shmem=2 stream=3 args=4,5,6,7\0Alaunch 1 _Z6addonePKfPfi grid=0 block=1 shmem=2 stream=3 args=5,10,7\0Alaunch 2 _Z6addonePKfPfi grid=0 block=1 shmem=2 stream=3 args=10,11,7\0Alaunch 3 _Z4axpyPKfS0_Pfi grid=0 block=1 shmem=2 stream=3 args=11,8,9,7\0Avalue 0 other g\0Avalue 1 other b\0Avalue 2 int 0\0Avalue 3 other s\0Avalue 4 ptr x\0Avalue 5 ptr t\0Avalue 6 float 2.0f\0Avalue 7 int n\0Avalue 8 ptr y\0Avalue 9 ptr o\0Avalue 10 ptr u\0Avalue 11 ptr w\0Avalue 12 ptr idx\0Avalue 13 other b2\00", section "llvm.metadata"
@.kffile = private unnamed_addr constant [5 x i8] c"t.cu\00", section "llvm.metadata"
@llvm.global.annotations = appending global [1 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr addrspacecast (ptr addrspace(1) @__kfuse_seq_0 to ptr), ptr @.kfseq.0, ptr @.kffile, i32 9, ptr null }], section "llvm.metadata"
