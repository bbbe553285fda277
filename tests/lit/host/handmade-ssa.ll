; Hand-written input in SSA form (as after mem2reg): the stream and the
; dynamic shared memory size are plain values, recorded as they are; the grid
; (x | y << 32, z) and block halves are decoded. A third launch, of a kernel
; whose stub has no body here, cannot be handed over (its argument layout is
; unknown): it ends the run and stays an ordinary launch.
;
; RUN: %opt -load-pass-plugin=%kfuse_llvm_plugin -passes=kfuse-host \
; RUN:   -pass-remarks=kfuse -pass-remarks-missed=kfuse -S %s -o %t.ll 2> %t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK --implicit-check-not="not handed" %s < %t.remarks

; REMARK-DAG: remark: <unknown>:0:0: launch of kext left alone: its stub has no body in this module
; REMARK-DAG: remark: <unknown>:0:0: handed 2 launches (ka, kb) to the runtime

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@.str = private unnamed_addr constant [10 x i8] c"kfuse_map\00", section "llvm.metadata"
@llvm.global.annotations = appending global [3 x { ptr, ptr, ptr, i32, ptr }] [
  { ptr, ptr, ptr, i32, ptr } { ptr @__device_stub__ka, ptr @.str, ptr null, i32 0, ptr null },
  { ptr, ptr, ptr, i32, ptr } { ptr @__device_stub__kb, ptr @.str, ptr null, i32 0, ptr null },
  { ptr, ptr, ptr, i32, ptr } { ptr @__device_stub__kext, ptr @.str, ptr null, i32 0, ptr null }], section "llvm.metadata"

declare i32 @__cudaPushCallConfiguration(i64, i32, i64, i32, i64, ptr)
declare i32 @cudaLaunchKernel(ptr, i64, i32, i64, i32, ptr, i64, ptr)
declare void @__device_stub__kext(ptr)

define void @__device_stub__ka(ptr %p, i32 %n) {
  %p.addr = alloca ptr, align 8
  %n.addr = alloca i32, align 4
  store ptr %p, ptr %p.addr, align 8
  store i32 %n, ptr %n.addr, align 4
  %args = alloca ptr, i64 2, align 16
  store ptr %p.addr, ptr %args, align 8
  %a1 = getelementptr ptr, ptr %args, i32 1
  store ptr %n.addr, ptr %a1, align 8
  %r = call i32 @cudaLaunchKernel(ptr @__device_stub__ka, i64 0, i32 0, i64 0, i32 0, ptr %args, i64 0, ptr null)
  ret void
}

define void @__device_stub__kb(ptr %p) {
  %p.addr = alloca ptr, align 8
  store ptr %p, ptr %p.addr, align 8
  %args = alloca ptr, i64 1, align 16
  store ptr %p.addr, ptr %args, align 8
  %r = call i32 @cudaLaunchKernel(ptr @__device_stub__kb, i64 0, i32 0, i64 0, i32 0, ptr %args, i64 0, ptr null)
  ret void
}

; CHECK-DAG: @kfuse.argsizes.__device_stub__ka = private unnamed_addr constant [2 x i32] [i32 8, i32 4]
; CHECK-DAG: @kfuse.argsizes.__device_stub__kb = private unnamed_addr constant [1 x i32] [i32 8]
; CHECK-DAG: @kfuse.where = private unnamed_addr constant [15 x i8] c"three launch 0\00"

; CHECK-LABEL: define void @three(
; CHECK-SAME: ptr %p, i32 %n, i64 %gxy, i64 %sh, ptr %s)
define void @three(ptr %p, i32 %n, i64 %gxy, i64 %sh, ptr %s) {
entry:
  ; grid = (gxy & 0xffffffff, gxy >> 32, 7), block = (128, 2, 1)
  %c0 = call i32 @__cudaPushCallConfiguration(i64 %gxy, i32 7, i64 8589934720, i32 1, i64 %sh, ptr %s)
  %t0 = icmp ne i32 %c0, 0
  br i1 %t0, label %after0, label %ok0
ok0:
  call void @__device_stub__ka(ptr %p, i32 %n)
  br label %after0
after0:
  %n1 = add i32 %n, 1
  %c1 = call i32 @__cudaPushCallConfiguration(i64 4294967297, i32 1, i64 32, i32 1, i64 0, ptr %s)
  %t1 = icmp ne i32 %c1, 0
  br i1 %t1, label %after1, label %ok1
ok1:
  call void @__device_stub__kb(ptr %p)
  br label %after1
after1:
  %c2 = call i32 @__cudaPushCallConfiguration(i64 4294967297, i32 1, i64 32, i32 1, i64 0, ptr %s)
  %t2 = icmp ne i32 %c2, 0
  br i1 %t2, label %after2, label %ok2
ok2:
  call void @__device_stub__kext(ptr %p)
  br label %after2
after2:
  ret void
}
; CHECK: entry:
; CHECK-NOT: __cudaPushCallConfiguration
; CHECK: br label %ok0
; CHECK: ok0:
; CHECK-NEXT: store volatile ptr %p, ptr %kfuse.arg,
; CHECK-NEXT: store volatile i32 %n, ptr %kfuse.arg1,
; CHECK: [[F:%.*]] = getelementptr inbounds i8, ptr %kfuse.launches, i64 8
; CHECK-NEXT: [[X:%.*]] = trunc i64 %gxy to i32
; CHECK-NEXT: store volatile i32 [[X]], ptr [[F]]
; CHECK-NEXT: [[F:%.*]] = getelementptr inbounds i8, ptr %kfuse.launches, i64 12
; CHECK-NEXT: [[H:%.*]] = lshr i64 %gxy, 32
; CHECK-NEXT: [[Y:%.*]] = trunc i64 [[H]] to i32
; CHECK-NEXT: store volatile i32 [[Y]], ptr [[F]]
; CHECK-NEXT: [[F:%.*]] = getelementptr inbounds i8, ptr %kfuse.launches, i64 16
; CHECK-NEXT: store volatile i32 7, ptr [[F]]
; CHECK-NEXT: [[F:%.*]] = getelementptr inbounds i8, ptr %kfuse.launches, i64 20
; CHECK-NEXT: store volatile i32 128, ptr [[F]]
; CHECK-NEXT: [[F:%.*]] = getelementptr inbounds i8, ptr %kfuse.launches, i64 24
; CHECK-NEXT: store volatile i32 2, ptr [[F]]
; CHECK-NEXT: [[F:%.*]] = getelementptr inbounds i8, ptr %kfuse.launches, i64 28
; CHECK-NEXT: store volatile i32 1, ptr [[F]]
; CHECK-NEXT: [[F:%.*]] = getelementptr inbounds i8, ptr %kfuse.launches, i64 32
; CHECK-NEXT: store volatile i64 %sh, ptr [[F]]
; CHECK-NEXT: [[F:%.*]] = getelementptr inbounds i8, ptr %kfuse.launches, i64 40
; CHECK-NEXT: store volatile ptr %s, ptr [[F]]
; CHECK: after0:
; CHECK-NEXT: %n1 = add i32 %n, 1
; CHECK-NEXT: br label %ok1
; CHECK: ok1:
; CHECK: [[F:%.*]] = getelementptr inbounds i8, ptr %kfuse.launches, i64 88
; CHECK-NEXT: store volatile i32 1, ptr [[F]]
; CHECK-NEXT: [[F:%.*]] = getelementptr inbounds i8, ptr %kfuse.launches, i64 92
; CHECK-NEXT: store volatile i32 1, ptr [[F]]
; CHECK: [[F:%.*]] = getelementptr inbounds i8, ptr %kfuse.launches, i64 144
; CHECK-NEXT: store volatile i32 1, ptr [[F]]
; CHECK: call void @kf_rt_launch_seq(ptr @kfuse.site, ptr %kfuse.launches, i32 2)
; CHECK-NEXT: br label %after1
; CHECK: after1:
; CHECK-NEXT: %c2 = call i32 @__cudaPushCallConfiguration(
; CHECK: call void @__device_stub__kext(ptr %p)
