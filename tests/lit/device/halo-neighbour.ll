; shift reads t[i+1], written by the next thread, which for the block's last
; thread is the first thread of the next block: halo recomputation. The
; fused block runs scale for its own elements and, in thread 0, once more as
; thread 0 of block ctaid.x+1 (where that block exists), into a tile of
; ntid.x+1 elements; shift reads the tile after the barrier.
;
; RUN: llvm-link %S/Inputs/kernels.ll %s -S \
; RUN:   | %opt -load-pass-plugin=%kfuse_llvm_plugin -passes=kfuse-device -S -pass-remarks=kfuse -pass-remarks-missed=kfuse -pass-remarks-analysis=kfuse 2>%t.remarks | FileCheck %s --check-prefix=IR
; RUN: FileCheck %s < %t.remarks

; shift reads t[i+1] only under `i + 1 < n`, and scale stores t[i] for
; every i < n: every element shift reads is one scale stores, so the tile
; needs no written flags and shift never reads t from memory (given one
; thread per element below n: the guard `le 0 s3 bx*gx`).
; IR-DAG: @[[TILE:__kfuse_fused_[0-9a-f]+_0_0_1.v5.tile]] = internal addrspace(3) global [4100 x i8] poison, align 16
; IR-NOT: written
; The recomputing threads (one) must fit in the block.
; IR-DAG: @__kfuse_manifest_{{[0-9a-f]+}} = {{.*}}\0Ale 0 1 bx\0Ale 0 s3 bx*gx\0A{{.*}}\0Afootprint 1.0 r 4 min(4*bx*gx+4,4*s2)\0A{{.*}}\0Adead 0 0.1 covered\0A
; IR-LABEL: define ptx_kernel void @__kfuse_fused_{{[0-9a-f]+}}_0_0_1(
; IR: body.kept:
; The block's own elements: tile and memory.
; IR: %[[TID:[0-9]+]] = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
; IR: store float %kfuse.fence{{.*}}, ptr addrspace(3)
; IR-NEXT: store float
; The halo: thread 0, as thread 0 of the next block where there is one,
; fills the tile's last slot and stores nothing to memory.
; IR: %[[NEXT:[0-9]+]] = add nuw nsw i32 %{{[0-9]+}}, 1
; IR: %[[EXISTS:[0-9]+]] = icmp samesign ult i32 %[[NEXT]], %{{[0-9]+}}
; IR: %[[IS0:[0-9]+]] = icmp eq i32 %[[TID]], 0
; IR: %kfuse.halo.run.kept = and i1 %[[IS0]], %[[EXISTS]]
; IR: br i1 %kfuse.halo.run.kept, label %kfuse.halo.kept, label %kfuse.halo.join.kept
; IR: kfuse.halo.kept:
; IR: mul i32 %[[NEXT]],
; IR-NOT: store float {{.*}}, ptr %
; IR: store float %kfuse.fence.kept, ptr addrspace(3)
; IR: kfuse.halo.join.kept:
; IR-NEXT: call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
; shift's load of t[i+1] reads the tile, never memory.
; IR-NOT: load float, ptr %
; IR: load float, ptr addrspace(3)
; IR-NOT: load float, ptr %
; IR: ret void

; CHECK: remark: {{.*}}fused launches 0..1 (scale, shift) of sequence 0 into __kfuse_fused_{{[0-9a-f]+}}_0_0_1: t through shared memory with a halo of 0 elements before and 1 after each block's, recomputed by launch 0 (scale), with barriers; saves 4 bytes per element
; CHECK: remark: {{.*}}__kfuse_fused_{{[0-9a-f]+}}_0_0_1: 16 bytes per element unfused, 12 fused (8 where the dead buffers' stores are skipped), 1 flops per element, 4100 bytes of shared memory per block

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@__kfuse_seq_0 = internal addrspace(1) global i8 0, align 1
@.kfseq.0 = private unnamed_addr constant [390 x i8] c"kfuse.seq 1\0Asite app.cu:12:3 _Z3runv\0Alaunch 0 _Z5scalePKfPffi grid=0 block=1 shmem=2 stream=3 args=4,5,6,7\0Alaunch 1 _Z5shiftPKfPfi grid=0 block=1 shmem=2 stream=3 args=5,9,7\0Avalue 0 other g\0Avalue 1 other b\0Avalue 2 int 0\0Avalue 3 other s\0Avalue 4 ptr x\0Avalue 5 ptr t\0Avalue 6 float 2.0f\0Avalue 7 int n\0Avalue 8 ptr y\0Avalue 9 ptr o\0Avalue 10 ptr u\0Avalue 11 ptr w\0Avalue 12 ptr idx\0Avalue 13 other b2\00", section "llvm.metadata"
@.kffile = private unnamed_addr constant [5 x i8] c"t.cu\00", section "llvm.metadata"
@llvm.global.annotations = appending global [1 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr addrspacecast (ptr addrspace(1) @__kfuse_seq_0 to ptr), ptr @.kfseq.0, ptr @.kffile, i32 9, ptr null }], section "llvm.metadata"
