; The rolled-loops pass (pass/llvm/RolledLoops.h) copies a kfuse_map kernel
; whose loop asks to be unrolled (`#pragma unroll 4`) and has no constant
; trip count: the copy's loop has unrolling disabled and keeps its other
; properties, llvm.compiler.used keeps the copy, and the unroller then
; unrolls the kernel and leaves the copy. A loop of constant trip count,
; `#pragma unroll 1`, and a kernel without kfuse_map get no copy. The
; device pass takes the copies out of llvm.compiler.used and erases them.
; RUN: %opt -load-pass-plugin=%kfuse_llvm_plugin -passes=kfuse-rolled-loops %s -S | FileCheck %s --check-prefix=COPY
; RUN: %opt -load-pass-plugin=%kfuse_llvm_plugin -passes='kfuse-rolled-loops,function(loop-unroll)' %s -S | FileCheck %s --check-prefix=UNROLL
; RUN: %opt -load-pass-plugin=%kfuse_llvm_plugin -passes='kfuse-rolled-loops,kfuse-device' %s -S | FileCheck %s --check-prefix=DEVICE

; COPY: @llvm.compiler.used = appending global [1 x ptr] [ptr @gs.kfuse.rolled], section "llvm.metadata"
; COPY-LABEL: define ptx_kernel void @gs(
; COPY: br i1 %more, label %loop, label %exit, !llvm.loop [[KEEP:![0-9]+]]
; COPY-LABEL: define internal ptx_kernel void @gs.kfuse.rolled(
; COPY: br i1 %more, label %loop, label %exit, !llvm.loop [[ROLLED:![0-9]+]]
; COPY-NOT: kfuse.rolled
; COPY: [[KEEP]] = distinct !{[[KEEP]], [[PROGRESS:![0-9]+]], [[COUNT:![0-9]+]]}
; COPY: [[PROGRESS]] = !{!"llvm.loop.mustprogress"}
; COPY: [[COUNT]] = !{!"llvm.loop.unroll.count", i32 4}
; COPY: [[DISABLE:![0-9]+]] = !{!"llvm.loop.unroll.disable"}
; COPY: [[ROLLED]] = distinct !{[[ROLLED]], [[PROGRESS]], [[DISABLE]]}

; UNROLL-LABEL: define ptx_kernel void @gs(
; UNROLL-COUNT-4: store float
; UNROLL: ret void
; UNROLL-LABEL: define internal ptx_kernel void @gs.kfuse.rolled(
; UNROLL: store float
; UNROLL-NOT: store
; UNROLL: ret void

; DEVICE-NOT: kfuse.rolled
; DEVICE-NOT: llvm.compiler.used
; DEVICE-LABEL: define ptx_kernel void @gs(

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@.map = private unnamed_addr constant [10 x i8] c"kfuse_map\00", section "llvm.metadata"
@.file = private unnamed_addr constant [5 x i8] c"t.cu\00", section "llvm.metadata"
@llvm.global.annotations = appending global [3 x { ptr, ptr, ptr, i32, ptr }] [
  { ptr, ptr, ptr, i32, ptr } { ptr @gs, ptr @.map, ptr @.file, i32 1, ptr null },
  { ptr, ptr, ptr, i32, ptr } { ptr @const, ptr @.map, ptr @.file, i32 2, ptr null },
  { ptr, ptr, ptr, i32, ptr } { ptr @once, ptr @.map, ptr @.file, i32 3, ptr null }], section "llvm.metadata"

; for (i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
define ptx_kernel void @gs(ptr %x, ptr %y, i64 %n) {
entry:
  %start = call i64 @start()
  %stride = call i64 @stride()
  %go = icmp ult i64 %start, %n
  br i1 %go, label %loop, label %exit
loop:
  %i = phi i64 [ %start, %entry ], [ %next, %loop ]
  %px = getelementptr inbounds float, ptr %x, i64 %i
  %v = load float, ptr %px, align 4
  %w = fmul float %v, 2.0
  %py = getelementptr inbounds float, ptr %y, i64 %i
  store float %w, ptr %py, align 4
  %next = add i64 %i, %stride
  %more = icmp ult i64 %next, %n
  br i1 %more, label %loop, label %exit, !llvm.loop !0
exit:
  ret void
}

; The same loop without kfuse_map.
define ptx_kernel void @plain(ptr %x, ptr %y, i64 %n) {
entry:
  %start = call i64 @start()
  %stride = call i64 @stride()
  %go = icmp ult i64 %start, %n
  br i1 %go, label %loop, label %exit
loop:
  %i = phi i64 [ %start, %entry ], [ %next, %loop ]
  %px = getelementptr inbounds float, ptr %x, i64 %i
  %v = load float, ptr %px, align 4
  %py = getelementptr inbounds float, ptr %y, i64 %i
  store float %v, ptr %py, align 4
  %next = add i64 %i, %stride
  %more = icmp ult i64 %next, %n
  br i1 %more, label %loop, label %exit, !llvm.loop !3
exit:
  ret void
}

; Eight trips, `#pragma unroll 4`.
define ptx_kernel void @const(ptr %x, ptr %y) {
entry:
  %start = call i64 @start()
  %base = mul i64 %start, 8
  br label %loop
loop:
  %k = phi i64 [ 0, %entry ], [ %next, %loop ]
  %j = add i64 %base, %k
  %px = getelementptr inbounds float, ptr %x, i64 %j
  %v = load float, ptr %px, align 4
  %py = getelementptr inbounds float, ptr %y, i64 %j
  store float %v, ptr %py, align 4
  %next = add i64 %k, 1
  %more = icmp ult i64 %next, 8
  br i1 %more, label %loop, label %exit, !llvm.loop !4
exit:
  ret void
}

; `#pragma unroll 1`.
define ptx_kernel void @once(ptr %x, ptr %y, i64 %n) {
entry:
  %start = call i64 @start()
  %stride = call i64 @stride()
  %go = icmp ult i64 %start, %n
  br i1 %go, label %loop, label %exit
loop:
  %i = phi i64 [ %start, %entry ], [ %next, %loop ]
  %px = getelementptr inbounds float, ptr %x, i64 %i
  %v = load float, ptr %px, align 4
  %py = getelementptr inbounds float, ptr %y, i64 %i
  store float %v, ptr %py, align 4
  %next = add i64 %i, %stride
  %more = icmp ult i64 %next, %n
  br i1 %more, label %loop, label %exit, !llvm.loop !5
exit:
  ret void
}

define internal i64 @start() alwaysinline {
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %t = zext i32 %tid to i64
  %nt = zext i32 %ntid to i64
  %c = zext i32 %ctaid to i64
  %bc = mul i64 %nt, %c
  %s = add i64 %bc, %t
  ret i64 %s
}

define internal i64 @stride() alwaysinline {
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %nctaid = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %nt = zext i32 %ntid to i64
  %nc = zext i32 %nctaid to i64
  %s = mul i64 %nc, %nt
  ret i64 %s
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()

!0 = distinct !{!0, !1, !2}
!1 = !{!"llvm.loop.mustprogress"}
!2 = !{!"llvm.loop.unroll.count", i32 4}
!3 = distinct !{!3, !1, !2}
!4 = distinct !{!4, !1, !2}
!5 = distinct !{!5, !1, !6}
!6 = !{!"llvm.loop.unroll.disable"}
