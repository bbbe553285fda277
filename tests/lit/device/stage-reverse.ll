; rev reads t reversed within each block: t goes through a shared tile, with
; a barrier after the flag clearing and one between the stages, each outside
; the stages' bounds checks.
; RUN: llvm-link %S/Inputs/kernels.ll %s -S \
; RUN:   | %opt -load-pass-plugin=%kfuse_llvm_plugin -passes=kfuse-device -S -pass-remarks=kfuse -pass-remarks-missed=kfuse -pass-remarks-analysis=kfuse 2>&1 | FileCheck %s

; CHECK: fused launches 0..1 (scale, rev) of sequence 0 into __kfuse_fused_{{[0-9a-f]+}}_0_0_1: t through shared memory, with barriers; saves 4 bytes per element
; CHECK: 5120 bytes of shared memory per block
; CHECK: @__kfuse_fused_{{[0-9a-f]+}}_0_0_1.v5.tile = internal addrspace(3) global [4096 x i8] poison, align 16
; CHECK: @__kfuse_fused_{{[0-9a-f]+}}_0_0_1.v5.written = internal addrspace(3) global [1024 x i8] poison
; CHECK-LABEL: define ptx_kernel void @__kfuse_fused_{{[0-9a-f]+}}_0_0_1(ptr noalias %l0.p0, ptr noalias %l0.p1, float %l0.p2, i32 %l0.p3, ptr noalias %l1.p0, ptr noalias %l1.p1, i32 %l1.p2, i64 %dead)
; CHECK-NEXT: entry:
; The stages twice, each after the shared set-up: for a dead mask of 0 with
; t's global store, and for t dead without it; no test of the bit anywhere.
; CHECK-NEXT: %kfuse.alldead = icmp eq i64 %dead, 1
; CHECK-NEXT: br i1 %kfuse.alldead, label %body.dead, label %body.kept
; CHECK-NOT: kfuse.keep
; CHECK: body.kept:
; CHECK: store i8 0, ptr addrspace(3)
; CHECK-NEXT: call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
; CHECK: icmp slt i32 {{.*}}, %l0.p3
; CHECK: br i1 {{.*}}, label {{.*}}, label %[[EXIT1:.*stage0.exit.kept]]
; CHECK: store float %kfuse.fence.kept, ptr addrspace(3)
; CHECK: store i8 1, ptr addrspace(3)
; CHECK: store float {{.*}}, ptr %
; CHECK-NEXT: br label %[[EXIT1]]
; CHECK: [[EXIT1]]:
; CHECK-NEXT: call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
; CHECK: icmp slt i32 {{.*}}, %l0.p3
; CHECK: load i8, ptr addrspace(3)
; CHECK: %kfuse.tile.kept = load float, ptr addrspace(3)
; CHECK: common.ret:
; CHECK-NEXT: ret void
; CHECK: body.dead:
; CHECK: store i8 0, ptr addrspace(3)
; CHECK-NEXT: call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
; CHECK: store float %kfuse.fence.dead, ptr addrspace(3)
; CHECK-NEXT: and i64
; CHECK-NEXT: getelementptr
; CHECK-NEXT: store i8 1, ptr addrspace(3)
; CHECK-NEXT: br label %[[EXIT2:.*stage0.exit.dead]]
; CHECK: [[EXIT2]]:
; CHECK-NEXT: call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
; CHECK: %kfuse.tile.dead = load float, ptr addrspace(3)
; CHECK: }

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@__kfuse_seq_0 = internal addrspace(1) global i8 0, align 1
@.kfseq.0 = private unnamed_addr constant [388 x i8] c"kfuse.seq 1\0Asite app.cu:12:3 _Z3runv\0Alaunch 0 _Z5scalePKfPffi grid=0 block=1 shmem=2 stream=3 args=4,5,6,7\0Alaunch 1 _Z3revPKfPfi grid=0 block=1 shmem=2 stream=3 args=5,9,7\0Avalue 0 other g\0Avalue 1 other b\0Avalue 2 int 0\0Avalue 3 other s\0Avalue 4 ptr x\0Avalue 5 ptr t\0Avalue 6 float 2.0f\0Avalue 7 int n\0Avalue 8 ptr y\0Avalue 9 ptr o\0Avalue 10 ptr u\0Avalue 11 ptr w\0Avalue 12 ptr idx\0Avalue 13 other b2\00", section "llvm.metadata"
@.kffile = private unnamed_addr constant [5 x i8] c"t.cu\00", section "llvm.metadata"
@llvm.global.annotations = appending global [1 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr addrspacecast (ptr addrspace(1) @__kfuse_seq_0 to ptr), ptr @.kfseq.0, ptr @.kffile, i32 9, ptr null }], section "llvm.metadata"
