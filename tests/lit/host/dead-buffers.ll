; The `dead` mask of a record (offset 72 in record 0, 152 in record 1) has bit
; p set only when the pointer passed as parameter p is provably unused after
; the run except by cudaFree (Inputs/dead.cu, -O0). produce(x, t, n) writes
; t, consume(t, o, n) reads it; t is dead when it was cudaMalloc'd here and
; is freed right after (or never touched again), and live when anything may
; still read it: a cudaMemcpy after the run, the caller (parameter or return
; value), a copy in another variable, or the next iteration of a loop.
;
; RUN: %opt -load-pass-plugin=%kfuse_llvm_plugin -passes=kfuse-host \
; RUN:   -pass-remarks-analysis=kfuse -S %s -o %t.ll 2> %t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

; REMARK: parameter 2 of launch 0 (produce) is dead after the run
; REMARK-NEXT: parameter 1 of launch 1 (consume) is dead after the run
; REMARK-NEXT: parameter 2 of launch 0 (produce) is dead after the run
; REMARK-NEXT: parameter 1 of launch 1 (consume) is dead after the run
; REMARK-NOT: dead after the run

; CHECK-LABEL: define void @_Z5freedPKfPfi(
; CHECK: getelementptr inbounds i8, ptr %kfuse.launches, i64 72
; CHECK-NEXT: store volatile i64 2,
; CHECK: getelementptr inbounds i8, ptr %kfuse.launches, i64 152
; CHECK-NEXT: store volatile i64 1,
; CHECK: call void @kf_rt_launch_seq(
; CHECK: call i32 @cudaFree(

; CHECK-LABEL: define void @_Z10never_usedPKfPfi(
; CHECK: getelementptr inbounds i8, ptr %kfuse.launches, i64 72
; CHECK-NEXT: store volatile i64 2,
; CHECK: getelementptr inbounds i8, ptr %kfuse.launches, i64 152
; CHECK-NEXT: store volatile i64 1,

; CHECK-LABEL: define void @_Z10read_afterPKfPfS1_i(
; CHECK: getelementptr inbounds i8, ptr %kfuse.launches, i64 72
; CHECK-NEXT: store volatile i64 0,
; CHECK: getelementptr inbounds i8, ptr %kfuse.launches, i64 152
; CHECK-NEXT: store volatile i64 0,

; CHECK-LABEL: define void @_Z12param_bufferPKfPfS1_i(
; CHECK: getelementptr inbounds i8, ptr %kfuse.launches, i64 72
; CHECK-NEXT: store volatile i64 0,
; CHECK: getelementptr inbounds i8, ptr %kfuse.launches, i64 152
; CHECK-NEXT: store volatile i64 0,

; CHECK-LABEL: define ptr @_Z8returnedPKfPfi(
; CHECK: getelementptr inbounds i8, ptr %kfuse.launches, i64 72
; CHECK-NEXT: store volatile i64 0,
; CHECK: getelementptr inbounds i8, ptr %kfuse.launches, i64 152
; CHECK-NEXT: store volatile i64 0,

; CHECK-LABEL: define void @_Z6copiedPKfPfS1_i(
; CHECK: getelementptr inbounds i8, ptr %kfuse.launches, i64 72
; CHECK-NEXT: store volatile i64 0,
; CHECK: getelementptr inbounds i8, ptr %kfuse.launches, i64 152
; CHECK-NEXT: store volatile i64 0,

; CHECK-LABEL: define void @_Z7in_loopPKfPfii(
; CHECK: getelementptr inbounds i8, ptr %kfuse.launches, i64 72
; CHECK-NEXT: store volatile i64 0,
; CHECK: getelementptr inbounds i8, ptr %kfuse.launches, i64 152
; CHECK-NEXT: store volatile i64 0,

source_filename = "dead.cu"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

%struct.dim3 = type { i32, i32, i32 }

$_ZN4dim3C2Ejjj = comdat any

@.str = private unnamed_addr constant [10 x i8] c"kfuse_map\00", section "llvm.metadata"
@.str.1 = private unnamed_addr constant [8 x i8] c"dead.cu\00", section "llvm.metadata"
@llvm.global.annotations = appending global [2 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr @_Z22__device_stub__producePKfPfi, ptr @.str, ptr @.str.1, i32 3, ptr null }, { ptr, ptr, ptr, i32, ptr } { ptr @_Z22__device_stub__consumePKfPfi, ptr @.str, ptr @.str.1, i32 4, ptr null }], section "llvm.metadata"

define void @_Z22__device_stub__producePKfPfi(ptr %0, ptr %1, i32 %2) {
  %4 = alloca ptr, align 8
  %5 = alloca ptr, align 8
  %6 = alloca i32, align 4
  %7 = alloca %struct.dim3, align 8
  %8 = alloca %struct.dim3, align 8
  %9 = alloca i64, align 8
  %10 = alloca ptr, align 8
  %11 = alloca { i64, i32 }, align 8
  %12 = alloca { i64, i32 }, align 8
  store ptr %0, ptr %4, align 8
  store ptr %1, ptr %5, align 8
  store i32 %2, ptr %6, align 4
  %13 = alloca ptr, i64 3, align 16
  %14 = getelementptr ptr, ptr %13, i32 0
  store ptr %4, ptr %14, align 8
  %15 = getelementptr ptr, ptr %13, i32 1
  store ptr %5, ptr %15, align 8
  %16 = getelementptr ptr, ptr %13, i32 2
  store ptr %6, ptr %16, align 8
  %17 = call i32 @__cudaPopCallConfiguration(ptr %7, ptr %8, ptr %9, ptr %10)
  %18 = load i64, ptr %9, align 8
  %19 = load ptr, ptr %10, align 8
  call void @llvm.memcpy.p0.p0.i64(ptr align 8 %11, ptr align 8 %7, i64 12, i1 false)
  %20 = getelementptr inbounds nuw { i64, i32 }, ptr %11, i32 0, i32 0
  %21 = load i64, ptr %20, align 8
  %22 = getelementptr inbounds nuw { i64, i32 }, ptr %11, i32 0, i32 1
  %23 = load i32, ptr %22, align 8
  call void @llvm.memcpy.p0.p0.i64(ptr align 8 %12, ptr align 8 %8, i64 12, i1 false)
  %24 = getelementptr inbounds nuw { i64, i32 }, ptr %12, i32 0, i32 0
  %25 = load i64, ptr %24, align 8
  %26 = getelementptr inbounds nuw { i64, i32 }, ptr %12, i32 0, i32 1
  %27 = load i32, ptr %26, align 8
  %28 = call i32 @cudaLaunchKernel(ptr @_Z22__device_stub__producePKfPfi, i64 %21, i32 %23, i64 %25, i32 %27, ptr %13, i64 %18, ptr %19)
  br label %29

29:                                               ; preds = %3
  ret void
}

declare i32 @__cudaPopCallConfiguration(ptr, ptr, ptr, ptr)

declare i32 @cudaLaunchKernel(ptr, i64, i32, i64, i32, ptr, i64, ptr)

declare void @llvm.memcpy.p0.p0.i64(ptr noalias writeonly captures(none), ptr noalias readonly captures(none), i64, i1 immarg)

define void @_Z22__device_stub__consumePKfPfi(ptr %0, ptr %1, i32 %2) {
  %4 = alloca ptr, align 8
  %5 = alloca ptr, align 8
  %6 = alloca i32, align 4
  %7 = alloca %struct.dim3, align 8
  %8 = alloca %struct.dim3, align 8
  %9 = alloca i64, align 8
  %10 = alloca ptr, align 8
  %11 = alloca { i64, i32 }, align 8
  %12 = alloca { i64, i32 }, align 8
  store ptr %0, ptr %4, align 8
  store ptr %1, ptr %5, align 8
  store i32 %2, ptr %6, align 4
  %13 = alloca ptr, i64 3, align 16
  %14 = getelementptr ptr, ptr %13, i32 0
  store ptr %4, ptr %14, align 8
  %15 = getelementptr ptr, ptr %13, i32 1
  store ptr %5, ptr %15, align 8
  %16 = getelementptr ptr, ptr %13, i32 2
  store ptr %6, ptr %16, align 8
  %17 = call i32 @__cudaPopCallConfiguration(ptr %7, ptr %8, ptr %9, ptr %10)
  %18 = load i64, ptr %9, align 8
  %19 = load ptr, ptr %10, align 8
  call void @llvm.memcpy.p0.p0.i64(ptr align 8 %11, ptr align 8 %7, i64 12, i1 false)
  %20 = getelementptr inbounds nuw { i64, i32 }, ptr %11, i32 0, i32 0
  %21 = load i64, ptr %20, align 8
  %22 = getelementptr inbounds nuw { i64, i32 }, ptr %11, i32 0, i32 1
  %23 = load i32, ptr %22, align 8
  call void @llvm.memcpy.p0.p0.i64(ptr align 8 %12, ptr align 8 %8, i64 12, i1 false)
  %24 = getelementptr inbounds nuw { i64, i32 }, ptr %12, i32 0, i32 0
  %25 = load i64, ptr %24, align 8
  %26 = getelementptr inbounds nuw { i64, i32 }, ptr %12, i32 0, i32 1
  %27 = load i32, ptr %26, align 8
  %28 = call i32 @cudaLaunchKernel(ptr @_Z22__device_stub__consumePKfPfi, i64 %21, i32 %23, i64 %25, i32 %27, ptr %13, i64 %18, ptr %19)
  br label %29

29:                                               ; preds = %3
  ret void
}

define void @_Z5freedPKfPfi(ptr %0, ptr %1, i32 %2) {
  %4 = alloca ptr, align 8
  %5 = alloca ptr, align 8
  %6 = alloca i32, align 4
  %7 = alloca ptr, align 8
  %8 = alloca %struct.dim3, align 4
  %9 = alloca %struct.dim3, align 4
  %10 = alloca { i64, i32 }, align 4
  %11 = alloca { i64, i32 }, align 4
  %12 = alloca %struct.dim3, align 4
  %13 = alloca %struct.dim3, align 4
  %14 = alloca { i64, i32 }, align 4
  %15 = alloca { i64, i32 }, align 4
  store ptr %0, ptr %4, align 8
  store ptr %1, ptr %5, align 8
  store i32 %2, ptr %6, align 4
  store ptr null, ptr %7, align 8
  %16 = load i32, ptr %6, align 4
  %17 = sext i32 %16 to i64
  %18 = mul i64 %17, 4
  %19 = call i32 @_ZL10cudaMallocIfE9cudaErrorPPT_m(ptr %7, i64 %18)
  call void @_ZN4dim3C2Ejjj(ptr align 4 %8, i32 1, i32 1, i32 1)
  call void @_ZN4dim3C2Ejjj(ptr align 4 %9, i32 32, i32 1, i32 1)
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %10, ptr align 4 %8, i64 12, i1 false)
  %20 = getelementptr inbounds nuw { i64, i32 }, ptr %10, i32 0, i32 0
  %21 = load i64, ptr %20, align 4
  %22 = getelementptr inbounds nuw { i64, i32 }, ptr %10, i32 0, i32 1
  %23 = load i32, ptr %22, align 4
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %11, ptr align 4 %9, i64 12, i1 false)
  %24 = getelementptr inbounds nuw { i64, i32 }, ptr %11, i32 0, i32 0
  %25 = load i64, ptr %24, align 4
  %26 = getelementptr inbounds nuw { i64, i32 }, ptr %11, i32 0, i32 1
  %27 = load i32, ptr %26, align 4
  %28 = call i32 @__cudaPushCallConfiguration(i64 %21, i32 %23, i64 %25, i32 %27, i64 0, ptr null)
  %29 = icmp ne i32 %28, 0
  br i1 %29, label %34, label %30

30:                                               ; preds = %3
  %31 = load ptr, ptr %4, align 8
  %32 = load ptr, ptr %7, align 8
  %33 = load i32, ptr %6, align 4
  call void @_Z22__device_stub__producePKfPfi(ptr %31, ptr %32, i32 %33)
  br label %34

34:                                               ; preds = %30, %3
  call void @_ZN4dim3C2Ejjj(ptr align 4 %12, i32 1, i32 1, i32 1)
  call void @_ZN4dim3C2Ejjj(ptr align 4 %13, i32 32, i32 1, i32 1)
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %14, ptr align 4 %12, i64 12, i1 false)
  %35 = getelementptr inbounds nuw { i64, i32 }, ptr %14, i32 0, i32 0
  %36 = load i64, ptr %35, align 4
  %37 = getelementptr inbounds nuw { i64, i32 }, ptr %14, i32 0, i32 1
  %38 = load i32, ptr %37, align 4
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %15, ptr align 4 %13, i64 12, i1 false)
  %39 = getelementptr inbounds nuw { i64, i32 }, ptr %15, i32 0, i32 0
  %40 = load i64, ptr %39, align 4
  %41 = getelementptr inbounds nuw { i64, i32 }, ptr %15, i32 0, i32 1
  %42 = load i32, ptr %41, align 4
  %43 = call i32 @__cudaPushCallConfiguration(i64 %36, i32 %38, i64 %40, i32 %42, i64 0, ptr null)
  %44 = icmp ne i32 %43, 0
  br i1 %44, label %49, label %45

45:                                               ; preds = %34
  %46 = load ptr, ptr %7, align 8
  %47 = load ptr, ptr %5, align 8
  %48 = load i32, ptr %6, align 4
  call void @_Z22__device_stub__consumePKfPfi(ptr %46, ptr %47, i32 %48)
  br label %49

49:                                               ; preds = %45, %34
  %50 = load ptr, ptr %7, align 8
  %51 = call i32 @cudaFree(ptr %50)
  ret void
}

define internal i32 @_ZL10cudaMallocIfE9cudaErrorPPT_m(ptr %0, i64 %1) {
  %3 = alloca ptr, align 8
  %4 = alloca i64, align 8
  store ptr %0, ptr %3, align 8
  store i64 %1, ptr %4, align 8
  %5 = load ptr, ptr %3, align 8
  %6 = load i64, ptr %4, align 8
  %7 = call i32 @cudaMalloc(ptr %5, i64 %6)
  ret i32 %7
}

declare i32 @__cudaPushCallConfiguration(i64, i32, i64, i32, i64, ptr)

define linkonce_odr void @_ZN4dim3C2Ejjj(ptr align 4 %0, i32 %1, i32 %2, i32 %3) unnamed_addr comdat align 2 {
  %5 = alloca ptr, align 8
  %6 = alloca i32, align 4
  %7 = alloca i32, align 4
  %8 = alloca i32, align 4
  store ptr %0, ptr %5, align 8
  store i32 %1, ptr %6, align 4
  store i32 %2, ptr %7, align 4
  store i32 %3, ptr %8, align 4
  %9 = load ptr, ptr %5, align 8
  %10 = getelementptr inbounds nuw %struct.dim3, ptr %9, i32 0, i32 0
  %11 = load i32, ptr %6, align 4
  store i32 %11, ptr %10, align 4
  %12 = getelementptr inbounds nuw %struct.dim3, ptr %9, i32 0, i32 1
  %13 = load i32, ptr %7, align 4
  store i32 %13, ptr %12, align 4
  %14 = getelementptr inbounds nuw %struct.dim3, ptr %9, i32 0, i32 2
  %15 = load i32, ptr %8, align 4
  store i32 %15, ptr %14, align 4
  ret void
}

declare i32 @cudaFree(ptr)

define void @_Z10never_usedPKfPfi(ptr %0, ptr %1, i32 %2) {
  %4 = alloca ptr, align 8
  %5 = alloca ptr, align 8
  %6 = alloca i32, align 4
  %7 = alloca ptr, align 8
  %8 = alloca %struct.dim3, align 4
  %9 = alloca %struct.dim3, align 4
  %10 = alloca { i64, i32 }, align 4
  %11 = alloca { i64, i32 }, align 4
  %12 = alloca %struct.dim3, align 4
  %13 = alloca %struct.dim3, align 4
  %14 = alloca { i64, i32 }, align 4
  %15 = alloca { i64, i32 }, align 4
  store ptr %0, ptr %4, align 8
  store ptr %1, ptr %5, align 8
  store i32 %2, ptr %6, align 4
  %16 = load i32, ptr %6, align 4
  %17 = sext i32 %16 to i64
  %18 = mul i64 %17, 4
  %19 = call i32 @_ZL10cudaMallocIfE9cudaErrorPPT_m(ptr %7, i64 %18)
  call void @_ZN4dim3C2Ejjj(ptr align 4 %8, i32 1, i32 1, i32 1)
  call void @_ZN4dim3C2Ejjj(ptr align 4 %9, i32 32, i32 1, i32 1)
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %10, ptr align 4 %8, i64 12, i1 false)
  %20 = getelementptr inbounds nuw { i64, i32 }, ptr %10, i32 0, i32 0
  %21 = load i64, ptr %20, align 4
  %22 = getelementptr inbounds nuw { i64, i32 }, ptr %10, i32 0, i32 1
  %23 = load i32, ptr %22, align 4
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %11, ptr align 4 %9, i64 12, i1 false)
  %24 = getelementptr inbounds nuw { i64, i32 }, ptr %11, i32 0, i32 0
  %25 = load i64, ptr %24, align 4
  %26 = getelementptr inbounds nuw { i64, i32 }, ptr %11, i32 0, i32 1
  %27 = load i32, ptr %26, align 4
  %28 = call i32 @__cudaPushCallConfiguration(i64 %21, i32 %23, i64 %25, i32 %27, i64 0, ptr null)
  %29 = icmp ne i32 %28, 0
  br i1 %29, label %34, label %30

30:                                               ; preds = %3
  %31 = load ptr, ptr %4, align 8
  %32 = load ptr, ptr %7, align 8
  %33 = load i32, ptr %6, align 4
  call void @_Z22__device_stub__producePKfPfi(ptr %31, ptr %32, i32 %33)
  br label %34

34:                                               ; preds = %30, %3
  call void @_ZN4dim3C2Ejjj(ptr align 4 %12, i32 1, i32 1, i32 1)
  call void @_ZN4dim3C2Ejjj(ptr align 4 %13, i32 32, i32 1, i32 1)
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %14, ptr align 4 %12, i64 12, i1 false)
  %35 = getelementptr inbounds nuw { i64, i32 }, ptr %14, i32 0, i32 0
  %36 = load i64, ptr %35, align 4
  %37 = getelementptr inbounds nuw { i64, i32 }, ptr %14, i32 0, i32 1
  %38 = load i32, ptr %37, align 4
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %15, ptr align 4 %13, i64 12, i1 false)
  %39 = getelementptr inbounds nuw { i64, i32 }, ptr %15, i32 0, i32 0
  %40 = load i64, ptr %39, align 4
  %41 = getelementptr inbounds nuw { i64, i32 }, ptr %15, i32 0, i32 1
  %42 = load i32, ptr %41, align 4
  %43 = call i32 @__cudaPushCallConfiguration(i64 %36, i32 %38, i64 %40, i32 %42, i64 0, ptr null)
  %44 = icmp ne i32 %43, 0
  br i1 %44, label %49, label %45

45:                                               ; preds = %34
  %46 = load ptr, ptr %7, align 8
  %47 = load ptr, ptr %5, align 8
  %48 = load i32, ptr %6, align 4
  call void @_Z22__device_stub__consumePKfPfi(ptr %46, ptr %47, i32 %48)
  br label %49

49:                                               ; preds = %45, %34
  ret void
}

define void @_Z10read_afterPKfPfS1_i(ptr %0, ptr %1, ptr %2, i32 %3) {
  %5 = alloca ptr, align 8
  %6 = alloca ptr, align 8
  %7 = alloca ptr, align 8
  %8 = alloca i32, align 4
  %9 = alloca ptr, align 8
  %10 = alloca %struct.dim3, align 4
  %11 = alloca %struct.dim3, align 4
  %12 = alloca { i64, i32 }, align 4
  %13 = alloca { i64, i32 }, align 4
  %14 = alloca %struct.dim3, align 4
  %15 = alloca %struct.dim3, align 4
  %16 = alloca { i64, i32 }, align 4
  %17 = alloca { i64, i32 }, align 4
  store ptr %0, ptr %5, align 8
  store ptr %1, ptr %6, align 8
  store ptr %2, ptr %7, align 8
  store i32 %3, ptr %8, align 4
  %18 = load i32, ptr %8, align 4
  %19 = sext i32 %18 to i64
  %20 = mul i64 %19, 4
  %21 = call i32 @_ZL10cudaMallocIfE9cudaErrorPPT_m(ptr %9, i64 %20)
  call void @_ZN4dim3C2Ejjj(ptr align 4 %10, i32 1, i32 1, i32 1)
  call void @_ZN4dim3C2Ejjj(ptr align 4 %11, i32 32, i32 1, i32 1)
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %12, ptr align 4 %10, i64 12, i1 false)
  %22 = getelementptr inbounds nuw { i64, i32 }, ptr %12, i32 0, i32 0
  %23 = load i64, ptr %22, align 4
  %24 = getelementptr inbounds nuw { i64, i32 }, ptr %12, i32 0, i32 1
  %25 = load i32, ptr %24, align 4
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %13, ptr align 4 %11, i64 12, i1 false)
  %26 = getelementptr inbounds nuw { i64, i32 }, ptr %13, i32 0, i32 0
  %27 = load i64, ptr %26, align 4
  %28 = getelementptr inbounds nuw { i64, i32 }, ptr %13, i32 0, i32 1
  %29 = load i32, ptr %28, align 4
  %30 = call i32 @__cudaPushCallConfiguration(i64 %23, i32 %25, i64 %27, i32 %29, i64 0, ptr null)
  %31 = icmp ne i32 %30, 0
  br i1 %31, label %36, label %32

32:                                               ; preds = %4
  %33 = load ptr, ptr %5, align 8
  %34 = load ptr, ptr %9, align 8
  %35 = load i32, ptr %8, align 4
  call void @_Z22__device_stub__producePKfPfi(ptr %33, ptr %34, i32 %35)
  br label %36

36:                                               ; preds = %32, %4
  call void @_ZN4dim3C2Ejjj(ptr align 4 %14, i32 1, i32 1, i32 1)
  call void @_ZN4dim3C2Ejjj(ptr align 4 %15, i32 32, i32 1, i32 1)
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %16, ptr align 4 %14, i64 12, i1 false)
  %37 = getelementptr inbounds nuw { i64, i32 }, ptr %16, i32 0, i32 0
  %38 = load i64, ptr %37, align 4
  %39 = getelementptr inbounds nuw { i64, i32 }, ptr %16, i32 0, i32 1
  %40 = load i32, ptr %39, align 4
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %17, ptr align 4 %15, i64 12, i1 false)
  %41 = getelementptr inbounds nuw { i64, i32 }, ptr %17, i32 0, i32 0
  %42 = load i64, ptr %41, align 4
  %43 = getelementptr inbounds nuw { i64, i32 }, ptr %17, i32 0, i32 1
  %44 = load i32, ptr %43, align 4
  %45 = call i32 @__cudaPushCallConfiguration(i64 %38, i32 %40, i64 %42, i32 %44, i64 0, ptr null)
  %46 = icmp ne i32 %45, 0
  br i1 %46, label %51, label %47

47:                                               ; preds = %36
  %48 = load ptr, ptr %9, align 8
  %49 = load ptr, ptr %6, align 8
  %50 = load i32, ptr %8, align 4
  call void @_Z22__device_stub__consumePKfPfi(ptr %48, ptr %49, i32 %50)
  br label %51

51:                                               ; preds = %47, %36
  %52 = load ptr, ptr %7, align 8
  %53 = load ptr, ptr %9, align 8
  %54 = call i32 @cudaMemcpy(ptr %52, ptr %53, i64 4, i32 2)
  %55 = load ptr, ptr %9, align 8
  %56 = call i32 @cudaFree(ptr %55)
  ret void
}

declare i32 @cudaMemcpy(ptr, ptr, i64, i32)

define void @_Z12param_bufferPKfPfS1_i(ptr %0, ptr %1, ptr %2, i32 %3) {
  %5 = alloca ptr, align 8
  %6 = alloca ptr, align 8
  %7 = alloca ptr, align 8
  %8 = alloca i32, align 4
  %9 = alloca %struct.dim3, align 4
  %10 = alloca %struct.dim3, align 4
  %11 = alloca { i64, i32 }, align 4
  %12 = alloca { i64, i32 }, align 4
  %13 = alloca %struct.dim3, align 4
  %14 = alloca %struct.dim3, align 4
  %15 = alloca { i64, i32 }, align 4
  %16 = alloca { i64, i32 }, align 4
  store ptr %0, ptr %5, align 8
  store ptr %1, ptr %6, align 8
  store ptr %2, ptr %7, align 8
  store i32 %3, ptr %8, align 4
  call void @_ZN4dim3C2Ejjj(ptr align 4 %9, i32 1, i32 1, i32 1)
  call void @_ZN4dim3C2Ejjj(ptr align 4 %10, i32 32, i32 1, i32 1)
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %11, ptr align 4 %9, i64 12, i1 false)
  %17 = getelementptr inbounds nuw { i64, i32 }, ptr %11, i32 0, i32 0
  %18 = load i64, ptr %17, align 4
  %19 = getelementptr inbounds nuw { i64, i32 }, ptr %11, i32 0, i32 1
  %20 = load i32, ptr %19, align 4
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %12, ptr align 4 %10, i64 12, i1 false)
  %21 = getelementptr inbounds nuw { i64, i32 }, ptr %12, i32 0, i32 0
  %22 = load i64, ptr %21, align 4
  %23 = getelementptr inbounds nuw { i64, i32 }, ptr %12, i32 0, i32 1
  %24 = load i32, ptr %23, align 4
  %25 = call i32 @__cudaPushCallConfiguration(i64 %18, i32 %20, i64 %22, i32 %24, i64 0, ptr null)
  %26 = icmp ne i32 %25, 0
  br i1 %26, label %31, label %27

27:                                               ; preds = %4
  %28 = load ptr, ptr %5, align 8
  %29 = load ptr, ptr %6, align 8
  %30 = load i32, ptr %8, align 4
  call void @_Z22__device_stub__producePKfPfi(ptr %28, ptr %29, i32 %30)
  br label %31

31:                                               ; preds = %27, %4
  call void @_ZN4dim3C2Ejjj(ptr align 4 %13, i32 1, i32 1, i32 1)
  call void @_ZN4dim3C2Ejjj(ptr align 4 %14, i32 32, i32 1, i32 1)
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %15, ptr align 4 %13, i64 12, i1 false)
  %32 = getelementptr inbounds nuw { i64, i32 }, ptr %15, i32 0, i32 0
  %33 = load i64, ptr %32, align 4
  %34 = getelementptr inbounds nuw { i64, i32 }, ptr %15, i32 0, i32 1
  %35 = load i32, ptr %34, align 4
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %16, ptr align 4 %14, i64 12, i1 false)
  %36 = getelementptr inbounds nuw { i64, i32 }, ptr %16, i32 0, i32 0
  %37 = load i64, ptr %36, align 4
  %38 = getelementptr inbounds nuw { i64, i32 }, ptr %16, i32 0, i32 1
  %39 = load i32, ptr %38, align 4
  %40 = call i32 @__cudaPushCallConfiguration(i64 %33, i32 %35, i64 %37, i32 %39, i64 0, ptr null)
  %41 = icmp ne i32 %40, 0
  br i1 %41, label %46, label %42

42:                                               ; preds = %31
  %43 = load ptr, ptr %6, align 8
  %44 = load ptr, ptr %7, align 8
  %45 = load i32, ptr %8, align 4
  call void @_Z22__device_stub__consumePKfPfi(ptr %43, ptr %44, i32 %45)
  br label %46

46:                                               ; preds = %42, %31
  ret void
}

define ptr @_Z8returnedPKfPfi(ptr %0, ptr %1, i32 %2) {
  %4 = alloca ptr, align 8
  %5 = alloca ptr, align 8
  %6 = alloca i32, align 4
  %7 = alloca ptr, align 8
  %8 = alloca %struct.dim3, align 4
  %9 = alloca %struct.dim3, align 4
  %10 = alloca { i64, i32 }, align 4
  %11 = alloca { i64, i32 }, align 4
  %12 = alloca %struct.dim3, align 4
  %13 = alloca %struct.dim3, align 4
  %14 = alloca { i64, i32 }, align 4
  %15 = alloca { i64, i32 }, align 4
  store ptr %0, ptr %4, align 8
  store ptr %1, ptr %5, align 8
  store i32 %2, ptr %6, align 4
  %16 = load i32, ptr %6, align 4
  %17 = sext i32 %16 to i64
  %18 = mul i64 %17, 4
  %19 = call i32 @_ZL10cudaMallocIfE9cudaErrorPPT_m(ptr %7, i64 %18)
  call void @_ZN4dim3C2Ejjj(ptr align 4 %8, i32 1, i32 1, i32 1)
  call void @_ZN4dim3C2Ejjj(ptr align 4 %9, i32 32, i32 1, i32 1)
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %10, ptr align 4 %8, i64 12, i1 false)
  %20 = getelementptr inbounds nuw { i64, i32 }, ptr %10, i32 0, i32 0
  %21 = load i64, ptr %20, align 4
  %22 = getelementptr inbounds nuw { i64, i32 }, ptr %10, i32 0, i32 1
  %23 = load i32, ptr %22, align 4
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %11, ptr align 4 %9, i64 12, i1 false)
  %24 = getelementptr inbounds nuw { i64, i32 }, ptr %11, i32 0, i32 0
  %25 = load i64, ptr %24, align 4
  %26 = getelementptr inbounds nuw { i64, i32 }, ptr %11, i32 0, i32 1
  %27 = load i32, ptr %26, align 4
  %28 = call i32 @__cudaPushCallConfiguration(i64 %21, i32 %23, i64 %25, i32 %27, i64 0, ptr null)
  %29 = icmp ne i32 %28, 0
  br i1 %29, label %34, label %30

30:                                               ; preds = %3
  %31 = load ptr, ptr %4, align 8
  %32 = load ptr, ptr %7, align 8
  %33 = load i32, ptr %6, align 4
  call void @_Z22__device_stub__producePKfPfi(ptr %31, ptr %32, i32 %33)
  br label %34

34:                                               ; preds = %30, %3
  call void @_ZN4dim3C2Ejjj(ptr align 4 %12, i32 1, i32 1, i32 1)
  call void @_ZN4dim3C2Ejjj(ptr align 4 %13, i32 32, i32 1, i32 1)
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %14, ptr align 4 %12, i64 12, i1 false)
  %35 = getelementptr inbounds nuw { i64, i32 }, ptr %14, i32 0, i32 0
  %36 = load i64, ptr %35, align 4
  %37 = getelementptr inbounds nuw { i64, i32 }, ptr %14, i32 0, i32 1
  %38 = load i32, ptr %37, align 4
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %15, ptr align 4 %13, i64 12, i1 false)
  %39 = getelementptr inbounds nuw { i64, i32 }, ptr %15, i32 0, i32 0
  %40 = load i64, ptr %39, align 4
  %41 = getelementptr inbounds nuw { i64, i32 }, ptr %15, i32 0, i32 1
  %42 = load i32, ptr %41, align 4
  %43 = call i32 @__cudaPushCallConfiguration(i64 %36, i32 %38, i64 %40, i32 %42, i64 0, ptr null)
  %44 = icmp ne i32 %43, 0
  br i1 %44, label %49, label %45

45:                                               ; preds = %34
  %46 = load ptr, ptr %7, align 8
  %47 = load ptr, ptr %5, align 8
  %48 = load i32, ptr %6, align 4
  call void @_Z22__device_stub__consumePKfPfi(ptr %46, ptr %47, i32 %48)
  br label %49

49:                                               ; preds = %45, %34
  %50 = load ptr, ptr %7, align 8
  ret ptr %50
}

define void @_Z6copiedPKfPfS1_i(ptr %0, ptr %1, ptr %2, i32 %3) {
  %5 = alloca ptr, align 8
  %6 = alloca ptr, align 8
  %7 = alloca ptr, align 8
  %8 = alloca i32, align 4
  %9 = alloca ptr, align 8
  %10 = alloca ptr, align 8
  %11 = alloca %struct.dim3, align 4
  %12 = alloca %struct.dim3, align 4
  %13 = alloca { i64, i32 }, align 4
  %14 = alloca { i64, i32 }, align 4
  %15 = alloca %struct.dim3, align 4
  %16 = alloca %struct.dim3, align 4
  %17 = alloca { i64, i32 }, align 4
  %18 = alloca { i64, i32 }, align 4
  store ptr %0, ptr %5, align 8
  store ptr %1, ptr %6, align 8
  store ptr %2, ptr %7, align 8
  store i32 %3, ptr %8, align 4
  %19 = load i32, ptr %8, align 4
  %20 = sext i32 %19 to i64
  %21 = mul i64 %20, 4
  %22 = call i32 @_ZL10cudaMallocIfE9cudaErrorPPT_m(ptr %9, i64 %21)
  %23 = load ptr, ptr %9, align 8
  store ptr %23, ptr %10, align 8
  call void @_ZN4dim3C2Ejjj(ptr align 4 %11, i32 1, i32 1, i32 1)
  call void @_ZN4dim3C2Ejjj(ptr align 4 %12, i32 32, i32 1, i32 1)
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %13, ptr align 4 %11, i64 12, i1 false)
  %24 = getelementptr inbounds nuw { i64, i32 }, ptr %13, i32 0, i32 0
  %25 = load i64, ptr %24, align 4
  %26 = getelementptr inbounds nuw { i64, i32 }, ptr %13, i32 0, i32 1
  %27 = load i32, ptr %26, align 4
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %14, ptr align 4 %12, i64 12, i1 false)
  %28 = getelementptr inbounds nuw { i64, i32 }, ptr %14, i32 0, i32 0
  %29 = load i64, ptr %28, align 4
  %30 = getelementptr inbounds nuw { i64, i32 }, ptr %14, i32 0, i32 1
  %31 = load i32, ptr %30, align 4
  %32 = call i32 @__cudaPushCallConfiguration(i64 %25, i32 %27, i64 %29, i32 %31, i64 0, ptr null)
  %33 = icmp ne i32 %32, 0
  br i1 %33, label %38, label %34

34:                                               ; preds = %4
  %35 = load ptr, ptr %5, align 8
  %36 = load ptr, ptr %9, align 8
  %37 = load i32, ptr %8, align 4
  call void @_Z22__device_stub__producePKfPfi(ptr %35, ptr %36, i32 %37)
  br label %38

38:                                               ; preds = %34, %4
  call void @_ZN4dim3C2Ejjj(ptr align 4 %15, i32 1, i32 1, i32 1)
  call void @_ZN4dim3C2Ejjj(ptr align 4 %16, i32 32, i32 1, i32 1)
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %17, ptr align 4 %15, i64 12, i1 false)
  %39 = getelementptr inbounds nuw { i64, i32 }, ptr %17, i32 0, i32 0
  %40 = load i64, ptr %39, align 4
  %41 = getelementptr inbounds nuw { i64, i32 }, ptr %17, i32 0, i32 1
  %42 = load i32, ptr %41, align 4
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %18, ptr align 4 %16, i64 12, i1 false)
  %43 = getelementptr inbounds nuw { i64, i32 }, ptr %18, i32 0, i32 0
  %44 = load i64, ptr %43, align 4
  %45 = getelementptr inbounds nuw { i64, i32 }, ptr %18, i32 0, i32 1
  %46 = load i32, ptr %45, align 4
  %47 = call i32 @__cudaPushCallConfiguration(i64 %40, i32 %42, i64 %44, i32 %46, i64 0, ptr null)
  %48 = icmp ne i32 %47, 0
  br i1 %48, label %53, label %49

49:                                               ; preds = %38
  %50 = load ptr, ptr %9, align 8
  %51 = load ptr, ptr %6, align 8
  %52 = load i32, ptr %8, align 4
  call void @_Z22__device_stub__consumePKfPfi(ptr %50, ptr %51, i32 %52)
  br label %53

53:                                               ; preds = %49, %38
  %54 = load ptr, ptr %7, align 8
  %55 = load ptr, ptr %10, align 8
  %56 = call i32 @cudaMemcpy(ptr %54, ptr %55, i64 4, i32 2)
  ret void
}

define void @_Z7in_loopPKfPfii(ptr %0, ptr %1, i32 %2, i32 %3) {
  %5 = alloca ptr, align 8
  %6 = alloca ptr, align 8
  %7 = alloca i32, align 4
  %8 = alloca i32, align 4
  %9 = alloca ptr, align 8
  %10 = alloca i32, align 4
  %11 = alloca %struct.dim3, align 4
  %12 = alloca %struct.dim3, align 4
  %13 = alloca { i64, i32 }, align 4
  %14 = alloca { i64, i32 }, align 4
  %15 = alloca %struct.dim3, align 4
  %16 = alloca %struct.dim3, align 4
  %17 = alloca { i64, i32 }, align 4
  %18 = alloca { i64, i32 }, align 4
  store ptr %0, ptr %5, align 8
  store ptr %1, ptr %6, align 8
  store i32 %2, ptr %7, align 4
  store i32 %3, ptr %8, align 4
  %19 = load i32, ptr %7, align 4
  %20 = sext i32 %19 to i64
  %21 = mul i64 %20, 4
  %22 = call i32 @_ZL10cudaMallocIfE9cudaErrorPPT_m(ptr %9, i64 %21)
  store i32 0, ptr %10, align 4
  br label %23

23:                                               ; preds = %58, %4
  %24 = load i32, ptr %10, align 4
  %25 = load i32, ptr %8, align 4
  %26 = icmp slt i32 %24, %25
  br i1 %26, label %27, label %61

27:                                               ; preds = %23
  call void @_ZN4dim3C2Ejjj(ptr align 4 %11, i32 1, i32 1, i32 1)
  call void @_ZN4dim3C2Ejjj(ptr align 4 %12, i32 32, i32 1, i32 1)
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %13, ptr align 4 %11, i64 12, i1 false)
  %28 = getelementptr inbounds nuw { i64, i32 }, ptr %13, i32 0, i32 0
  %29 = load i64, ptr %28, align 4
  %30 = getelementptr inbounds nuw { i64, i32 }, ptr %13, i32 0, i32 1
  %31 = load i32, ptr %30, align 4
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %14, ptr align 4 %12, i64 12, i1 false)
  %32 = getelementptr inbounds nuw { i64, i32 }, ptr %14, i32 0, i32 0
  %33 = load i64, ptr %32, align 4
  %34 = getelementptr inbounds nuw { i64, i32 }, ptr %14, i32 0, i32 1
  %35 = load i32, ptr %34, align 4
  %36 = call i32 @__cudaPushCallConfiguration(i64 %29, i32 %31, i64 %33, i32 %35, i64 0, ptr null)
  %37 = icmp ne i32 %36, 0
  br i1 %37, label %42, label %38

38:                                               ; preds = %27
  %39 = load ptr, ptr %5, align 8
  %40 = load ptr, ptr %9, align 8
  %41 = load i32, ptr %7, align 4
  call void @_Z22__device_stub__producePKfPfi(ptr %39, ptr %40, i32 %41)
  br label %42

42:                                               ; preds = %38, %27
  call void @_ZN4dim3C2Ejjj(ptr align 4 %15, i32 1, i32 1, i32 1)
  call void @_ZN4dim3C2Ejjj(ptr align 4 %16, i32 32, i32 1, i32 1)
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %17, ptr align 4 %15, i64 12, i1 false)
  %43 = getelementptr inbounds nuw { i64, i32 }, ptr %17, i32 0, i32 0
  %44 = load i64, ptr %43, align 4
  %45 = getelementptr inbounds nuw { i64, i32 }, ptr %17, i32 0, i32 1
  %46 = load i32, ptr %45, align 4
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %18, ptr align 4 %16, i64 12, i1 false)
  %47 = getelementptr inbounds nuw { i64, i32 }, ptr %18, i32 0, i32 0
  %48 = load i64, ptr %47, align 4
  %49 = getelementptr inbounds nuw { i64, i32 }, ptr %18, i32 0, i32 1
  %50 = load i32, ptr %49, align 4
  %51 = call i32 @__cudaPushCallConfiguration(i64 %44, i32 %46, i64 %48, i32 %50, i64 0, ptr null)
  %52 = icmp ne i32 %51, 0
  br i1 %52, label %57, label %53

53:                                               ; preds = %42
  %54 = load ptr, ptr %9, align 8
  %55 = load ptr, ptr %6, align 8
  %56 = load i32, ptr %7, align 4
  call void @_Z22__device_stub__consumePKfPfi(ptr %54, ptr %55, i32 %56)
  br label %57

57:                                               ; preds = %53, %42
  br label %58

58:                                               ; preds = %57
  %59 = load i32, ptr %10, align 4
  %60 = add nsw i32 %59, 1
  store i32 %60, ptr %10, align 4
  br label %23

61:                                               ; preds = %23
  %62 = load ptr, ptr %9, align 8
  %63 = call i32 @cudaFree(ptr %62)
  ret void
}

declare i32 @cudaMalloc(ptr, i64)

