; Runs in two functions (Inputs/funcs.cu, -O0) get one site each: f1's run of
; two launches and f2's run of three, each site with its own count.
;
; RUN: %opt -load-pass-plugin=%kfuse_llvm_plugin -passes=kfuse-host \
; RUN:   -pass-remarks=kfuse -S %s -o %t.ll 2> %t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
; RUN: %opt -passes=verify -disable-output %t.ll

; REMARK: handed 2 launches (ka, kb) to the runtime
; REMARK: handed 3 launches (kb, ka, kb) to the runtime

; CHECK-DAG: @[[W1:kfuse.where[.0-9]*]] = private unnamed_addr constant [18 x i8] c"_Z2f1Pfi launch 0\00"
; CHECK-DAG: @[[S1:kfuse.site[.0-9]*]] = private global %kfuse.site { ptr @[[W1]], ptr null, i32 2, i32 0, ptr null, ptr null, ptr null, i32 0, ptr null }
; CHECK-DAG: @[[W2:kfuse.where[.0-9]*]] = private unnamed_addr constant [18 x i8] c"_Z2f2Pfi launch 0\00"
; CHECK-DAG: @[[S2:kfuse.site[.0-9]*]] = private global %kfuse.site { ptr @[[W2]], ptr null, i32 3, i32 0, ptr null, ptr null, ptr null, i32 0, ptr null }

; CHECK-LABEL: define void @_Z2f1Pfi(
; CHECK: %kfuse.launches = alloca [2 x %kfuse.launch]
; CHECK-NOT: __cudaPushCallConfiguration
; CHECK: call void @kf_rt_launch_seq(ptr @[[S1]], ptr %kfuse.launches, i32 2)
; CHECK-NOT: __device_stub__
; CHECK: ret void

; CHECK-LABEL: define void @_Z2f2Pfi(
; CHECK: %kfuse.launches = alloca [3 x %kfuse.launch]
; CHECK-NOT: __cudaPushCallConfiguration
; Record 2 (bytes 160..239): kb, grid (2,1,1), block (64,1,1), n + 2.
; CHECK: [[N2:%.*]] = add nsw i32 %{{.*}}, 2
; CHECK: store volatile i32 [[N2]], ptr %kfuse.arg
; CHECK: getelementptr inbounds i8, ptr %kfuse.launches, i64 160
; CHECK-NEXT: store volatile ptr @_Z17__device_stub__kbPfi
; CHECK: call void @kf_rt_launch_seq(ptr @[[S2]], ptr %kfuse.launches, i32 3)
; CHECK-NOT: __device_stub__
; CHECK: ret void

source_filename = "funcs.cu"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

%struct.dim3 = type { i32, i32, i32 }

$_ZN4dim3C2Ejjj = comdat any

@.str = private unnamed_addr constant [10 x i8] c"kfuse_map\00", section "llvm.metadata"
@.str.1 = private unnamed_addr constant [9 x i8] c"funcs.cu\00", section "llvm.metadata"
@llvm.global.annotations = appending global [2 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr @_Z17__device_stub__kaPfi, ptr @.str, ptr @.str.1, i32 3, ptr null }, { ptr, ptr, ptr, i32, ptr } { ptr @_Z17__device_stub__kbPfi, ptr @.str, ptr @.str.1, i32 4, ptr null }], section "llvm.metadata"

define void @_Z17__device_stub__kaPfi(ptr %0, i32 %1) {
  %3 = alloca ptr, align 8
  %4 = alloca i32, align 4
  %5 = alloca %struct.dim3, align 8
  %6 = alloca %struct.dim3, align 8
  %7 = alloca i64, align 8
  %8 = alloca ptr, align 8
  %9 = alloca { i64, i32 }, align 8
  %10 = alloca { i64, i32 }, align 8
  store ptr %0, ptr %3, align 8
  store i32 %1, ptr %4, align 4
  %11 = alloca ptr, i64 2, align 16
  %12 = getelementptr ptr, ptr %11, i32 0
  store ptr %3, ptr %12, align 8
  %13 = getelementptr ptr, ptr %11, i32 1
  store ptr %4, ptr %13, align 8
  %14 = call i32 @__cudaPopCallConfiguration(ptr %5, ptr %6, ptr %7, ptr %8)
  %15 = load i64, ptr %7, align 8
  %16 = load ptr, ptr %8, align 8
  call void @llvm.memcpy.p0.p0.i64(ptr align 8 %9, ptr align 8 %5, i64 12, i1 false)
  %17 = getelementptr inbounds nuw { i64, i32 }, ptr %9, i32 0, i32 0
  %18 = load i64, ptr %17, align 8
  %19 = getelementptr inbounds nuw { i64, i32 }, ptr %9, i32 0, i32 1
  %20 = load i32, ptr %19, align 8
  call void @llvm.memcpy.p0.p0.i64(ptr align 8 %10, ptr align 8 %6, i64 12, i1 false)
  %21 = getelementptr inbounds nuw { i64, i32 }, ptr %10, i32 0, i32 0
  %22 = load i64, ptr %21, align 8
  %23 = getelementptr inbounds nuw { i64, i32 }, ptr %10, i32 0, i32 1
  %24 = load i32, ptr %23, align 8
  %25 = call i32 @cudaLaunchKernel(ptr @_Z17__device_stub__kaPfi, i64 %18, i32 %20, i64 %22, i32 %24, ptr %11, i64 %15, ptr %16)
  br label %26

26:                                               ; preds = %2
  ret void
}

declare i32 @__cudaPopCallConfiguration(ptr, ptr, ptr, ptr)

declare i32 @cudaLaunchKernel(ptr, i64, i32, i64, i32, ptr, i64, ptr)

declare void @llvm.memcpy.p0.p0.i64(ptr noalias writeonly captures(none), ptr noalias readonly captures(none), i64, i1 immarg)

define void @_Z17__device_stub__kbPfi(ptr %0, i32 %1) {
  %3 = alloca ptr, align 8
  %4 = alloca i32, align 4
  %5 = alloca %struct.dim3, align 8
  %6 = alloca %struct.dim3, align 8
  %7 = alloca i64, align 8
  %8 = alloca ptr, align 8
  %9 = alloca { i64, i32 }, align 8
  %10 = alloca { i64, i32 }, align 8
  store ptr %0, ptr %3, align 8
  store i32 %1, ptr %4, align 4
  %11 = alloca ptr, i64 2, align 16
  %12 = getelementptr ptr, ptr %11, i32 0
  store ptr %3, ptr %12, align 8
  %13 = getelementptr ptr, ptr %11, i32 1
  store ptr %4, ptr %13, align 8
  %14 = call i32 @__cudaPopCallConfiguration(ptr %5, ptr %6, ptr %7, ptr %8)
  %15 = load i64, ptr %7, align 8
  %16 = load ptr, ptr %8, align 8
  call void @llvm.memcpy.p0.p0.i64(ptr align 8 %9, ptr align 8 %5, i64 12, i1 false)
  %17 = getelementptr inbounds nuw { i64, i32 }, ptr %9, i32 0, i32 0
  %18 = load i64, ptr %17, align 8
  %19 = getelementptr inbounds nuw { i64, i32 }, ptr %9, i32 0, i32 1
  %20 = load i32, ptr %19, align 8
  call void @llvm.memcpy.p0.p0.i64(ptr align 8 %10, ptr align 8 %6, i64 12, i1 false)
  %21 = getelementptr inbounds nuw { i64, i32 }, ptr %10, i32 0, i32 0
  %22 = load i64, ptr %21, align 8
  %23 = getelementptr inbounds nuw { i64, i32 }, ptr %10, i32 0, i32 1
  %24 = load i32, ptr %23, align 8
  %25 = call i32 @cudaLaunchKernel(ptr @_Z17__device_stub__kbPfi, i64 %18, i32 %20, i64 %22, i32 %24, ptr %11, i64 %15, ptr %16)
  br label %26

26:                                               ; preds = %2
  ret void
}

define void @_Z2f1Pfi(ptr %0, i32 %1) {
  %3 = alloca ptr, align 8
  %4 = alloca i32, align 4
  %5 = alloca %struct.dim3, align 4
  %6 = alloca %struct.dim3, align 4
  %7 = alloca { i64, i32 }, align 4
  %8 = alloca { i64, i32 }, align 4
  %9 = alloca %struct.dim3, align 4
  %10 = alloca %struct.dim3, align 4
  %11 = alloca { i64, i32 }, align 4
  %12 = alloca { i64, i32 }, align 4
  store ptr %0, ptr %3, align 8
  store i32 %1, ptr %4, align 4
  call void @_ZN4dim3C2Ejjj(ptr align 4 %5, i32 1, i32 1, i32 1)
  call void @_ZN4dim3C2Ejjj(ptr align 4 %6, i32 32, i32 1, i32 1)
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %7, ptr align 4 %5, i64 12, i1 false)
  %13 = getelementptr inbounds nuw { i64, i32 }, ptr %7, i32 0, i32 0
  %14 = load i64, ptr %13, align 4
  %15 = getelementptr inbounds nuw { i64, i32 }, ptr %7, i32 0, i32 1
  %16 = load i32, ptr %15, align 4
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %8, ptr align 4 %6, i64 12, i1 false)
  %17 = getelementptr inbounds nuw { i64, i32 }, ptr %8, i32 0, i32 0
  %18 = load i64, ptr %17, align 4
  %19 = getelementptr inbounds nuw { i64, i32 }, ptr %8, i32 0, i32 1
  %20 = load i32, ptr %19, align 4
  %21 = call i32 @__cudaPushCallConfiguration(i64 %14, i32 %16, i64 %18, i32 %20, i64 0, ptr null)
  %22 = icmp ne i32 %21, 0
  br i1 %22, label %26, label %23

23:                                               ; preds = %2
  %24 = load ptr, ptr %3, align 8
  %25 = load i32, ptr %4, align 4
  call void @_Z17__device_stub__kaPfi(ptr %24, i32 %25)
  br label %26

26:                                               ; preds = %23, %2
  call void @_ZN4dim3C2Ejjj(ptr align 4 %9, i32 1, i32 1, i32 1)
  call void @_ZN4dim3C2Ejjj(ptr align 4 %10, i32 32, i32 1, i32 1)
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %11, ptr align 4 %9, i64 12, i1 false)
  %27 = getelementptr inbounds nuw { i64, i32 }, ptr %11, i32 0, i32 0
  %28 = load i64, ptr %27, align 4
  %29 = getelementptr inbounds nuw { i64, i32 }, ptr %11, i32 0, i32 1
  %30 = load i32, ptr %29, align 4
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %12, ptr align 4 %10, i64 12, i1 false)
  %31 = getelementptr inbounds nuw { i64, i32 }, ptr %12, i32 0, i32 0
  %32 = load i64, ptr %31, align 4
  %33 = getelementptr inbounds nuw { i64, i32 }, ptr %12, i32 0, i32 1
  %34 = load i32, ptr %33, align 4
  %35 = call i32 @__cudaPushCallConfiguration(i64 %28, i32 %30, i64 %32, i32 %34, i64 0, ptr null)
  %36 = icmp ne i32 %35, 0
  br i1 %36, label %40, label %37

37:                                               ; preds = %26
  %38 = load ptr, ptr %3, align 8
  %39 = load i32, ptr %4, align 4
  call void @_Z17__device_stub__kbPfi(ptr %38, i32 %39)
  br label %40

40:                                               ; preds = %37, %26
  ret void
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

define void @_Z2f2Pfi(ptr %0, i32 %1) {
  %3 = alloca ptr, align 8
  %4 = alloca i32, align 4
  %5 = alloca %struct.dim3, align 4
  %6 = alloca %struct.dim3, align 4
  %7 = alloca { i64, i32 }, align 4
  %8 = alloca { i64, i32 }, align 4
  %9 = alloca %struct.dim3, align 4
  %10 = alloca %struct.dim3, align 4
  %11 = alloca { i64, i32 }, align 4
  %12 = alloca { i64, i32 }, align 4
  %13 = alloca %struct.dim3, align 4
  %14 = alloca %struct.dim3, align 4
  %15 = alloca { i64, i32 }, align 4
  %16 = alloca { i64, i32 }, align 4
  store ptr %0, ptr %3, align 8
  store i32 %1, ptr %4, align 4
  call void @_ZN4dim3C2Ejjj(ptr align 4 %5, i32 2, i32 1, i32 1)
  call void @_ZN4dim3C2Ejjj(ptr align 4 %6, i32 64, i32 1, i32 1)
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %7, ptr align 4 %5, i64 12, i1 false)
  %17 = getelementptr inbounds nuw { i64, i32 }, ptr %7, i32 0, i32 0
  %18 = load i64, ptr %17, align 4
  %19 = getelementptr inbounds nuw { i64, i32 }, ptr %7, i32 0, i32 1
  %20 = load i32, ptr %19, align 4
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %8, ptr align 4 %6, i64 12, i1 false)
  %21 = getelementptr inbounds nuw { i64, i32 }, ptr %8, i32 0, i32 0
  %22 = load i64, ptr %21, align 4
  %23 = getelementptr inbounds nuw { i64, i32 }, ptr %8, i32 0, i32 1
  %24 = load i32, ptr %23, align 4
  %25 = call i32 @__cudaPushCallConfiguration(i64 %18, i32 %20, i64 %22, i32 %24, i64 0, ptr null)
  %26 = icmp ne i32 %25, 0
  br i1 %26, label %30, label %27

27:                                               ; preds = %2
  %28 = load ptr, ptr %3, align 8
  %29 = load i32, ptr %4, align 4
  call void @_Z17__device_stub__kbPfi(ptr %28, i32 %29)
  br label %30

30:                                               ; preds = %27, %2
  call void @_ZN4dim3C2Ejjj(ptr align 4 %9, i32 2, i32 1, i32 1)
  call void @_ZN4dim3C2Ejjj(ptr align 4 %10, i32 64, i32 1, i32 1)
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %11, ptr align 4 %9, i64 12, i1 false)
  %31 = getelementptr inbounds nuw { i64, i32 }, ptr %11, i32 0, i32 0
  %32 = load i64, ptr %31, align 4
  %33 = getelementptr inbounds nuw { i64, i32 }, ptr %11, i32 0, i32 1
  %34 = load i32, ptr %33, align 4
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %12, ptr align 4 %10, i64 12, i1 false)
  %35 = getelementptr inbounds nuw { i64, i32 }, ptr %12, i32 0, i32 0
  %36 = load i64, ptr %35, align 4
  %37 = getelementptr inbounds nuw { i64, i32 }, ptr %12, i32 0, i32 1
  %38 = load i32, ptr %37, align 4
  %39 = call i32 @__cudaPushCallConfiguration(i64 %32, i32 %34, i64 %36, i32 %38, i64 0, ptr null)
  %40 = icmp ne i32 %39, 0
  br i1 %40, label %45, label %41

41:                                               ; preds = %30
  %42 = load ptr, ptr %3, align 8
  %43 = load i32, ptr %4, align 4
  %44 = add nsw i32 %43, 1
  call void @_Z17__device_stub__kaPfi(ptr %42, i32 %44)
  br label %45

45:                                               ; preds = %41, %30
  call void @_ZN4dim3C2Ejjj(ptr align 4 %13, i32 2, i32 1, i32 1)
  call void @_ZN4dim3C2Ejjj(ptr align 4 %14, i32 64, i32 1, i32 1)
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %15, ptr align 4 %13, i64 12, i1 false)
  %46 = getelementptr inbounds nuw { i64, i32 }, ptr %15, i32 0, i32 0
  %47 = load i64, ptr %46, align 4
  %48 = getelementptr inbounds nuw { i64, i32 }, ptr %15, i32 0, i32 1
  %49 = load i32, ptr %48, align 4
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %16, ptr align 4 %14, i64 12, i1 false)
  %50 = getelementptr inbounds nuw { i64, i32 }, ptr %16, i32 0, i32 0
  %51 = load i64, ptr %50, align 4
  %52 = getelementptr inbounds nuw { i64, i32 }, ptr %16, i32 0, i32 1
  %53 = load i32, ptr %52, align 4
  %54 = call i32 @__cudaPushCallConfiguration(i64 %47, i32 %49, i64 %51, i32 %53, i64 0, ptr null)
  %55 = icmp ne i32 %54, 0
  br i1 %55, label %60, label %56

56:                                               ; preds = %45
  %57 = load ptr, ptr %3, align 8
  %58 = load i32, ptr %4, align 4
  %59 = add nsw i32 %58, 2
  call void @_Z17__device_stub__kbPfi(ptr %57, i32 %59)
  br label %60

60:                                               ; preds = %56, %45
  ret void
}

