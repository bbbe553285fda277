; clang -O2 input as the pass sees it at pipeline start (before inlining):
; Inputs/abi.cu, kernel parameters of every ABI class. The x86-64 ABI splits
; or widens them in the stub's signature (bool as i1, S12 as <2 x float> +
; float, S16 as two i64, Big byval); the pass replays the stub's prologue so
; each args[] entry points at the kernel's own bytes, and arg_sizes lists the
; kernel parameter sizes (sizeof), not the ABI pieces.
;
; RUN: %opt -load-pass-plugin=%kfuse_llvm_plugin -passes=kfuse-host -S %s -o %t.ll
; RUN: FileCheck %s < %t.ll
; RUN: %opt -passes=verify -disable-output %t.ll

; CHECK-DAG: @kfuse.argsizes._Z17__device_stub__kbbcsdPf = private unnamed_addr constant [5 x i32] [i32 1, i32 1, i32 2, i32 8, i32 8]
; CHECK-DAG: @kfuse.argsizes._Z17__device_stub__ks3S123S163Big6float2Pf = private unnamed_addr constant [5 x i32] [i32 12, i32 16, i32 64, i32 8, i32 8]

; CHECK-LABEL: define void @_Z3runPf3S123S163Big6float2bP11CUstream_st(
; CHECK-DAG: %kfuse.byval = alloca %struct.Big, align 8
; CHECK-DAG: %kfuse.arg5 = alloca %struct.S12, align 4
; CHECK-DAG: %kfuse.arg6 = alloca %struct.S16, align 4
; CHECK-NOT: __cudaPushCallConfiguration
; Launch 0: the bool goes back from i1 to its i8 memory form.
; CHECK: [[B:%.*]] = trunc i8 %{{.*}} to i1
; CHECK: [[B8:%.*]] = zext i1 [[B]] to i8
; CHECK-NEXT: store volatile i8 [[B8]], ptr %kfuse.arg,
; CHECK-NEXT: store volatile i8 99, ptr %kfuse.arg1,
; CHECK-NEXT: store volatile i16 3, ptr %kfuse.arg2,
; CHECK-NEXT: store volatile double 1.500000e+00, ptr %kfuse.arg3,
; CHECK: [[STREAM:%.*]] = load ptr, ptr %16
; Launch 1: the byval struct is copied into a slot that lives as long as the
; function, the register-split structs are reassembled.
; CHECK: call void @llvm.memcpy.p0.p0.i64(ptr align 8 %kfuse.byval, ptr align 8 %27, i64 64, i1 false)
; CHECK: store volatile <2 x float> %{{.*}}, ptr %{{.*}}
; CHECK: store volatile float %{{.*}}, ptr %{{.*}}
; CHECK: call void @llvm.memcpy.p0.p0.i64(ptr align 4 %kfuse.arg5, ptr align 4 %kfuse.arg9, i64 12, i1 false)
; CHECK: [[LO:%.*]] = getelementptr inbounds nuw { i64, i64 }, ptr %kfuse.arg6, i32 0, i32 0
; CHECK-NEXT: store volatile i64 %{{.*}}, ptr [[LO]]
; CHECK: [[A:%.*]] = getelementptr inbounds i8, ptr %kfuse.args10, i64 0
; CHECK-NEXT: store volatile ptr %kfuse.arg5, ptr [[A]]
; CHECK-NEXT: [[A:%.*]] = getelementptr inbounds i8, ptr %kfuse.args10, i64 8
; CHECK-NEXT: store volatile ptr %kfuse.arg6, ptr [[A]]
; CHECK-NEXT: [[A:%.*]] = getelementptr inbounds i8, ptr %kfuse.args10, i64 16
; CHECK-NEXT: store volatile ptr %kfuse.byval, ptr [[A]]
; Dynamic shared memory (64) and the stream of launch 1.
; CHECK: [[F:%.*]] = getelementptr inbounds i8, ptr %kfuse.launches, i64 112
; CHECK-NEXT: store volatile i64 64, ptr [[F]]
; CHECK-NEXT: [[F:%.*]] = getelementptr inbounds i8, ptr %kfuse.launches, i64 120
; CHECK-NEXT: store volatile ptr [[STREAM]], ptr [[F]]
; CHECK: [[F:%.*]] = getelementptr inbounds i8, ptr %kfuse.launches, i64 144
; CHECK-NEXT: store volatile i32 5, ptr [[F]]
; CHECK: call void @kf_rt_launch_seq(ptr @kfuse.site, ptr %kfuse.launches, i32 2)
; CHECK-NOT: call void @_Z17__device_stub__
; CHECK: ret void

source_filename = "abi.cu"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

%struct.dim3 = type { i32, i32, i32 }
%struct.Big = type { [8 x double] }
%struct.S12 = type { float, float, float }
%struct.S16 = type { i32, i32, i32, i32 }
%struct.float2 = type { float, float }

$_ZN4dim3C2Ejjj = comdat any

@.str = private unnamed_addr constant [10 x i8] c"kfuse_map\00", section "llvm.metadata"
@.str.1 = private unnamed_addr constant [7 x i8] c"abi.cu\00", section "llvm.metadata"
@llvm.global.annotations = appending global [2 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr @_Z17__device_stub__kbbcsdPf, ptr @.str, ptr @.str.1, i32 7, ptr null }, { ptr, ptr, ptr, i32, ptr } { ptr @_Z17__device_stub__ks3S123S163Big6float2Pf, ptr @.str, ptr @.str.1, i32 8, ptr null }], section "llvm.metadata"

define void @_Z17__device_stub__kbbcsdPf(i1 zeroext %0, i8 signext %1, i16 signext %2, double %3, ptr %4) {
  %6 = alloca i8, align 1
  %7 = alloca i8, align 1
  %8 = alloca i16, align 2
  %9 = alloca double, align 8
  %10 = alloca ptr, align 8
  %11 = alloca %struct.dim3, align 8
  %12 = alloca %struct.dim3, align 8
  %13 = alloca i64, align 8
  %14 = alloca ptr, align 8
  %15 = alloca { i64, i32 }, align 8
  %16 = alloca { i64, i32 }, align 8
  %17 = zext i1 %0 to i8
  store i8 %17, ptr %6, align 1
  store i8 %1, ptr %7, align 1
  store i16 %2, ptr %8, align 2
  store double %3, ptr %9, align 8
  store ptr %4, ptr %10, align 8
  %18 = alloca ptr, i64 5, align 16
  %19 = getelementptr ptr, ptr %18, i32 0
  store ptr %6, ptr %19, align 8
  %20 = getelementptr ptr, ptr %18, i32 1
  store ptr %7, ptr %20, align 8
  %21 = getelementptr ptr, ptr %18, i32 2
  store ptr %8, ptr %21, align 8
  %22 = getelementptr ptr, ptr %18, i32 3
  store ptr %9, ptr %22, align 8
  %23 = getelementptr ptr, ptr %18, i32 4
  store ptr %10, ptr %23, align 8
  %24 = call i32 @__cudaPopCallConfiguration(ptr %11, ptr %12, ptr %13, ptr %14)
  %25 = load i64, ptr %13, align 8
  %26 = load ptr, ptr %14, align 8
  call void @llvm.memcpy.p0.p0.i64(ptr align 8 %15, ptr align 8 %11, i64 12, i1 false)
  %27 = getelementptr inbounds nuw { i64, i32 }, ptr %15, i32 0, i32 0
  %28 = load i64, ptr %27, align 8
  %29 = getelementptr inbounds nuw { i64, i32 }, ptr %15, i32 0, i32 1
  %30 = load i32, ptr %29, align 8
  call void @llvm.memcpy.p0.p0.i64(ptr align 8 %16, ptr align 8 %12, i64 12, i1 false)
  %31 = getelementptr inbounds nuw { i64, i32 }, ptr %16, i32 0, i32 0
  %32 = load i64, ptr %31, align 8
  %33 = getelementptr inbounds nuw { i64, i32 }, ptr %16, i32 0, i32 1
  %34 = load i32, ptr %33, align 8
  %35 = call i32 @cudaLaunchKernel(ptr @_Z17__device_stub__kbbcsdPf, i64 %28, i32 %30, i64 %32, i32 %34, ptr %18, i64 %25, ptr %26)
  br label %36

36:                                               ; preds = %5
  ret void
}

declare i32 @__cudaPopCallConfiguration(ptr, ptr, ptr, ptr)

declare i32 @cudaLaunchKernel(ptr, i64, i32, i64, i32, ptr, i64, ptr)

declare void @llvm.memcpy.p0.p0.i64(ptr noalias writeonly captures(none), ptr noalias readonly captures(none), i64, i1 immarg)

define void @_Z17__device_stub__ks3S123S163Big6float2Pf(<2 x float> %0, float %1, i64 %2, i64 %3, ptr byval(%struct.Big) align 8 %4, <2 x float> %5, ptr %6) {
  %8 = alloca %struct.S12, align 4
  %9 = alloca { <2 x float>, float }, align 4
  %10 = alloca %struct.S16, align 4
  %11 = alloca %struct.float2, align 8
  %12 = alloca ptr, align 8
  %13 = alloca %struct.dim3, align 8
  %14 = alloca %struct.dim3, align 8
  %15 = alloca i64, align 8
  %16 = alloca ptr, align 8
  %17 = alloca { i64, i32 }, align 8
  %18 = alloca { i64, i32 }, align 8
  %19 = getelementptr inbounds nuw { <2 x float>, float }, ptr %9, i32 0, i32 0
  store <2 x float> %0, ptr %19, align 4
  %20 = getelementptr inbounds nuw { <2 x float>, float }, ptr %9, i32 0, i32 1
  store float %1, ptr %20, align 4
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %8, ptr align 4 %9, i64 12, i1 false)
  %21 = getelementptr inbounds nuw { i64, i64 }, ptr %10, i32 0, i32 0
  store i64 %2, ptr %21, align 4
  %22 = getelementptr inbounds nuw { i64, i64 }, ptr %10, i32 0, i32 1
  store i64 %3, ptr %22, align 4
  store <2 x float> %5, ptr %11, align 8
  store ptr %6, ptr %12, align 8
  %23 = alloca ptr, i64 5, align 16
  %24 = getelementptr ptr, ptr %23, i32 0
  store ptr %8, ptr %24, align 8
  %25 = getelementptr ptr, ptr %23, i32 1
  store ptr %10, ptr %25, align 8
  %26 = getelementptr ptr, ptr %23, i32 2
  store ptr %4, ptr %26, align 8
  %27 = getelementptr ptr, ptr %23, i32 3
  store ptr %11, ptr %27, align 8
  %28 = getelementptr ptr, ptr %23, i32 4
  store ptr %12, ptr %28, align 8
  %29 = call i32 @__cudaPopCallConfiguration(ptr %13, ptr %14, ptr %15, ptr %16)
  %30 = load i64, ptr %15, align 8
  %31 = load ptr, ptr %16, align 8
  call void @llvm.memcpy.p0.p0.i64(ptr align 8 %17, ptr align 8 %13, i64 12, i1 false)
  %32 = getelementptr inbounds nuw { i64, i32 }, ptr %17, i32 0, i32 0
  %33 = load i64, ptr %32, align 8
  %34 = getelementptr inbounds nuw { i64, i32 }, ptr %17, i32 0, i32 1
  %35 = load i32, ptr %34, align 8
  call void @llvm.memcpy.p0.p0.i64(ptr align 8 %18, ptr align 8 %14, i64 12, i1 false)
  %36 = getelementptr inbounds nuw { i64, i32 }, ptr %18, i32 0, i32 0
  %37 = load i64, ptr %36, align 8
  %38 = getelementptr inbounds nuw { i64, i32 }, ptr %18, i32 0, i32 1
  %39 = load i32, ptr %38, align 8
  %40 = call i32 @cudaLaunchKernel(ptr @_Z17__device_stub__ks3S123S163Big6float2Pf, i64 %33, i32 %35, i64 %37, i32 %39, ptr %23, i64 %30, ptr %31)
  br label %41

41:                                               ; preds = %7
  ret void
}

define void @_Z3runPf3S123S163Big6float2bP11CUstream_st(ptr %0, <2 x float> %1, float %2, i64 %3, i64 %4, ptr byval(%struct.Big) align 8 %5, <2 x float> %6, i1 zeroext %7, ptr %8) {
  %10 = alloca %struct.S12, align 4
  %11 = alloca { <2 x float>, float }, align 4
  %12 = alloca %struct.S16, align 4
  %13 = alloca %struct.float2, align 8
  %14 = alloca ptr, align 8
  %15 = alloca i8, align 1
  %16 = alloca ptr, align 8
  %17 = alloca %struct.dim3, align 4
  %18 = alloca %struct.dim3, align 4
  %19 = alloca { i64, i32 }, align 4
  %20 = alloca { i64, i32 }, align 4
  %21 = alloca %struct.dim3, align 4
  %22 = alloca %struct.dim3, align 4
  %23 = alloca { i64, i32 }, align 4
  %24 = alloca { i64, i32 }, align 4
  %25 = alloca %struct.S12, align 4
  %26 = alloca %struct.S16, align 4
  %27 = alloca %struct.Big, align 8
  %28 = alloca %struct.float2, align 8
  %29 = alloca { <2 x float>, float }, align 4
  %30 = getelementptr inbounds nuw { <2 x float>, float }, ptr %11, i32 0, i32 0
  store <2 x float> %1, ptr %30, align 4
  %31 = getelementptr inbounds nuw { <2 x float>, float }, ptr %11, i32 0, i32 1
  store float %2, ptr %31, align 4
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %10, ptr align 4 %11, i64 12, i1 false)
  %32 = getelementptr inbounds nuw { i64, i64 }, ptr %12, i32 0, i32 0
  store i64 %3, ptr %32, align 4
  %33 = getelementptr inbounds nuw { i64, i64 }, ptr %12, i32 0, i32 1
  store i64 %4, ptr %33, align 4
  store <2 x float> %6, ptr %13, align 8
  store ptr %0, ptr %14, align 8
  %34 = zext i1 %7 to i8
  store i8 %34, ptr %15, align 1
  store ptr %8, ptr %16, align 8
  call void @_ZN4dim3C2Ejjj(ptr align 4 %17, i32 1, i32 1, i32 1)
  call void @_ZN4dim3C2Ejjj(ptr align 4 %18, i32 32, i32 1, i32 1)
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %19, ptr align 4 %17, i64 12, i1 false)
  %35 = getelementptr inbounds nuw { i64, i32 }, ptr %19, i32 0, i32 0
  %36 = load i64, ptr %35, align 4
  %37 = getelementptr inbounds nuw { i64, i32 }, ptr %19, i32 0, i32 1
  %38 = load i32, ptr %37, align 4
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %20, ptr align 4 %18, i64 12, i1 false)
  %39 = getelementptr inbounds nuw { i64, i32 }, ptr %20, i32 0, i32 0
  %40 = load i64, ptr %39, align 4
  %41 = getelementptr inbounds nuw { i64, i32 }, ptr %20, i32 0, i32 1
  %42 = load i32, ptr %41, align 4
  %43 = call i32 @__cudaPushCallConfiguration(i64 %36, i32 %38, i64 %40, i32 %42, i64 0, ptr null)
  %44 = icmp ne i32 %43, 0
  br i1 %44, label %49, label %45

45:                                               ; preds = %9
  %46 = load i8, ptr %15, align 1
  %47 = trunc i8 %46 to i1
  %48 = load ptr, ptr %14, align 8
  call void @_Z17__device_stub__kbbcsdPf(i1 zeroext %47, i8 signext 99, i16 signext 3, double 1.500000e+00, ptr %48)
  br label %49

49:                                               ; preds = %45, %9
  call void @_ZN4dim3C2Ejjj(ptr align 4 %21, i32 4, i32 5, i32 6)
  call void @_ZN4dim3C2Ejjj(ptr align 4 %22, i32 32, i32 1, i32 1)
  %50 = load ptr, ptr %16, align 8
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %23, ptr align 4 %21, i64 12, i1 false)
  %51 = getelementptr inbounds nuw { i64, i32 }, ptr %23, i32 0, i32 0
  %52 = load i64, ptr %51, align 4
  %53 = getelementptr inbounds nuw { i64, i32 }, ptr %23, i32 0, i32 1
  %54 = load i32, ptr %53, align 4
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %24, ptr align 4 %22, i64 12, i1 false)
  %55 = getelementptr inbounds nuw { i64, i32 }, ptr %24, i32 0, i32 0
  %56 = load i64, ptr %55, align 4
  %57 = getelementptr inbounds nuw { i64, i32 }, ptr %24, i32 0, i32 1
  %58 = load i32, ptr %57, align 4
  %59 = call i32 @__cudaPushCallConfiguration(i64 %52, i32 %54, i64 %56, i32 %58, i64 64, ptr %50)
  %60 = icmp ne i32 %59, 0
  br i1 %60, label %72, label %61

61:                                               ; preds = %49
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %25, ptr align 4 %10, i64 12, i1 false)
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %26, ptr align 4 %12, i64 16, i1 false)
  call void @llvm.memcpy.p0.p0.i64(ptr align 8 %27, ptr align 8 %5, i64 64, i1 false)
  call void @llvm.memcpy.p0.p0.i64(ptr align 8 %28, ptr align 8 %13, i64 8, i1 false)
  %62 = load ptr, ptr %14, align 8
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %29, ptr align 4 %25, i64 12, i1 false)
  %63 = getelementptr inbounds nuw { <2 x float>, float }, ptr %29, i32 0, i32 0
  %64 = load <2 x float>, ptr %63, align 4
  %65 = getelementptr inbounds nuw { <2 x float>, float }, ptr %29, i32 0, i32 1
  %66 = load float, ptr %65, align 4
  %67 = getelementptr inbounds nuw { i64, i64 }, ptr %26, i32 0, i32 0
  %68 = load i64, ptr %67, align 4
  %69 = getelementptr inbounds nuw { i64, i64 }, ptr %26, i32 0, i32 1
  %70 = load i64, ptr %69, align 4
  %71 = load <2 x float>, ptr %28, align 8
  call void @_Z17__device_stub__ks3S123S163Big6float2Pf(<2 x float> %64, float %66, i64 %68, i64 %70, ptr byval(%struct.Big) align 8 %27, <2 x float> %71, ptr %62)
  br label %72

72:                                               ; preds = %61, %49
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

