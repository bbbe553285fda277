; Two intermediates with dead bits, t and u: the fused kernel holds its
; stages twice (versionOnDead): for both bits set, without t's and u's
; stores, and for any other mask, a mask of 0 or one bit alone, with every
; store and no test of a bit. A third copy that tests each bit before its
; store, for the masks with some bits set, cost half as much again in
; compilation and was within noise of two on the GPU (bench/HISTORY.md,
; GPU runs 54 and 57); the tested body alone ran shallow_water 10 % slower
; with every bit set (more registers).
; RUN: llvm-link %S/Inputs/kernels.ll %s -S \
; RUN:   | %opt -load-pass-plugin=%kfuse_llvm_plugin -passes=kfuse-device -S | FileCheck %s

; CHECK: \0Adead 0 0.1 covered\0Adead 1 1.1 covered\0A
; CHECK-LABEL: define ptx_kernel void @__kfuse_fused_{{[0-9a-f]+}}_0_0_2(
; CHECK-NEXT: entry:
; CHECK-NEXT: %kfuse.alldead = icmp eq i64 %dead, 3
; CHECK-NEXT: br i1 %kfuse.alldead, label %body.dead, label %body.kept
; CHECK-NOT: %dead
; CHECK: body.kept:
; CHECK-NOT: %dead
; CHECK: store float
; CHECK: store float
; CHECK: store float
; CHECK: body.dead:
; CHECK-NOT: %dead
; o has no dead bit: its store is the one left.
; CHECK: store float
; CHECK-NOT: store
; CHECK: }

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@__kfuse_seq_0 = internal addrspace(1) global i8 0, align 1
@.kfseq.0 = private unnamed_addr constant [394 x i8] c"kfuse.seq 1\0Asite app.cu:12:3 _Z3runv\0Alaunch 0 _Z5scalePKfPffi grid=0 block=1 shmem=2 stream=3 args=4,5,6,7\0Alaunch 1 _Z6addonePKfPfi grid=0 block=1 shmem=2 stream=3 args=5,8,7\0Alaunch 2 _Z6addonePKfPfi grid=0 block=1 shmem=2 stream=3 args=8,9,7\0Avalue 0 other g\0Avalue 1 other b\0Avalue 2 int 0\0Avalue 3 other s\0Avalue 4 ptr x\0Avalue 5 ptr t\0Avalue 6 float 2.0f\0Avalue 7 int n\0Avalue 8 ptr u\0Avalue 9 ptr o\00", section "llvm.metadata"
@.kffile = private unnamed_addr constant [5 x i8] c"t.cu\00", section "llvm.metadata"
@llvm.global.annotations = appending global [1 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr addrspacecast (ptr addrspace(1) @__kfuse_seq_0 to ptr), ptr @.kfseq.0, ptr @.kffile, i32 9, ptr null }], section "llvm.metadata"
