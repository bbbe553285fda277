; Two launches of kfuse_map kernels in straight-line -O0 code (clang's output
; for tests/lit/host/Inputs/pair.cu, attributes trimmed) become one call to
; kf_rt_launch_seq. The statement between them (`int m = n * 2`) stays between
; the two records; the stub calls and configuration pushes disappear.
;
; RUN: %opt -load-pass-plugin=%kfuse_llvm_plugin -passes=kfuse-host \
; RUN:   -pass-remarks=kfuse -S %s -o %t.ll 2> %t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
; RUN: %opt -passes=verify -disable-output %t.ll

; REMARK: remark: <unknown>:0:0: handed 2 launches (scale, axpy) to the runtime

; The record and site types are the x86-64 layouts of kf_launch_t/kf_site_t.
; CHECK-DAG: %kfuse.launch = type { ptr, [3 x i32], [3 x i32], i64, ptr, ptr, ptr, i32, i32, i64 }
; CHECK-DAG: %kfuse.site = type { ptr, ptr, i32, i32, ptr, ptr, ptr, i32, ptr }
; Without debug info the site is named after the function and launch index.
; CHECK-DAG: @kfuse.where = private unnamed_addr constant [42 x i8] c"_Z3runPKfPfS0_S1_iP11CUstream_st launch 0\00"
; CHECK-DAG: @kfuse.site = private global %kfuse.site { ptr @kfuse.where, ptr null, i32 2, i32 0, ptr null, ptr null, ptr null, i32 0, ptr null }, align 8
; CHECK-DAG: @kfuse.argsizes._Z20__device_stub__scalePKfPffi = private unnamed_addr constant [4 x i32] [i32 8, i32 8, i32 4, i32 4]
; CHECK-DAG: @kfuse.argsizes._Z19__device_stub__axpyPKfS0_Pfi = private unnamed_addr constant [4 x i32] [i32 8, i32 8, i32 8, i32 4]

; CHECK-LABEL: define void @_Z3runPKfPfS0_S1_iP11CUstream_st(
; CHECK: %kfuse.launches = alloca [2 x %kfuse.launch], align 8
; CHECK-NOT: __cudaPushCallConfiguration
; CHECK-NOT: icmp ne
; The config-ok block of launch 0 is now entered unconditionally.
; CHECK: [[GRID0:%.*]] = load i64, ptr %26
; CHECK: [[GRIDZ0:%.*]] = load i32, ptr %28
; CHECK: [[BLOCK0:%.*]] = load i64, ptr %30
; CHECK: [[BLOCKZ0:%.*]] = load i32, ptr %32
; CHECK-NEXT: br label %[[OK0:.*]]
; CHECK: [[OK0]]:
; CHECK-NEXT: [[X:%.*]] = load ptr, ptr %7
; CHECK-NEXT: [[T:%.*]] = load ptr, ptr %8
; CHECK-NEXT: [[N:%.*]] = load i32, ptr %11
; Argument bytes, replayed from the stub's prologue into entry-block slots.
; CHECK-NEXT: store volatile ptr [[X]], ptr %kfuse.arg,
; CHECK-NEXT: store volatile ptr [[T]], ptr %kfuse.arg1,
; CHECK-NEXT: store volatile float 2.000000e+00, ptr %kfuse.arg2,
; CHECK-NEXT: store volatile i32 [[N]], ptr %kfuse.arg3,
; CHECK: store volatile ptr %kfuse.arg, ptr
; CHECK: store volatile ptr %kfuse.arg3, ptr
; Record 0, field by field at the C offsets.
; CHECK: [[F:%.*]] = getelementptr inbounds i8, ptr %kfuse.launches, i64 0
; CHECK-NEXT: store volatile ptr @_Z20__device_stub__scalePKfPffi, ptr [[F]]
; CHECK-NEXT: [[F:%.*]] = getelementptr inbounds i8, ptr %kfuse.launches, i64 8
; CHECK-NEXT: [[V:%.*]] = trunc i64 [[GRID0]] to i32
; CHECK-NEXT: store volatile i32 [[V]], ptr [[F]]
; CHECK-NEXT: [[F:%.*]] = getelementptr inbounds i8, ptr %kfuse.launches, i64 12
; CHECK-NEXT: [[H:%.*]] = lshr i64 [[GRID0]], 32
; CHECK-NEXT: [[V:%.*]] = trunc i64 [[H]] to i32
; CHECK-NEXT: store volatile i32 [[V]], ptr [[F]]
; CHECK-NEXT: [[F:%.*]] = getelementptr inbounds i8, ptr %kfuse.launches, i64 16
; CHECK-NEXT: store volatile i32 [[GRIDZ0]], ptr [[F]]
; CHECK-NEXT: [[F:%.*]] = getelementptr inbounds i8, ptr %kfuse.launches, i64 20
; CHECK-NEXT: [[V:%.*]] = trunc i64 [[BLOCK0]] to i32
; CHECK-NEXT: store volatile i32 [[V]], ptr [[F]]
; CHECK: [[F:%.*]] = getelementptr inbounds i8, ptr %kfuse.launches, i64 28
; CHECK-NEXT: store volatile i32 [[BLOCKZ0]], ptr [[F]]
; CHECK-NEXT: [[F:%.*]] = getelementptr inbounds i8, ptr %kfuse.launches, i64 32
; CHECK-NEXT: store volatile i64 0, ptr [[F]]
; CHECK-NEXT: [[F:%.*]] = getelementptr inbounds i8, ptr %kfuse.launches, i64 40
; CHECK-NEXT: store volatile ptr %25, ptr [[F]]
; CHECK-NEXT: [[F:%.*]] = getelementptr inbounds i8, ptr %kfuse.launches, i64 48
; CHECK-NEXT: store volatile ptr %kfuse.args, ptr [[F]]
; CHECK-NEXT: [[F:%.*]] = getelementptr inbounds i8, ptr %kfuse.launches, i64 56
; CHECK-NEXT: store volatile ptr @kfuse.argsizes._Z20__device_stub__scalePKfPffi, ptr [[F]]
; CHECK-NEXT: [[F:%.*]] = getelementptr inbounds i8, ptr %kfuse.launches, i64 64
; CHECK-NEXT: store volatile i32 4, ptr [[F]]
; CHECK-NEXT: [[F:%.*]] = getelementptr inbounds i8, ptr %kfuse.launches, i64 68
; CHECK-NEXT: store volatile i32 0, ptr [[F]]
; CHECK-NEXT: [[F:%.*]] = getelementptr inbounds i8, ptr %kfuse.launches, i64 72
; CHECK-NEXT: store volatile i64 0, ptr [[F]]
; CHECK-NEXT: br label
; The host statement between the launches keeps its place.
; CHECK: mul nsw i32 %{{.*}}, 2
; CHECK-NEXT: store i32 %{{.*}}, ptr %17
; Record 1 starts one record (80 bytes) later and carries 128 bytes of
; dynamic shared memory on the same stream.
; CHECK: [[F:%.*]] = getelementptr inbounds i8, ptr %kfuse.launches, i64 80
; CHECK-NEXT: store volatile ptr @_Z19__device_stub__axpyPKfS0_Pfi, ptr [[F]]
; CHECK: [[F:%.*]] = getelementptr inbounds i8, ptr %kfuse.launches, i64 112
; CHECK-NEXT: store volatile i64 128, ptr [[F]]
; CHECK-NEXT: [[F:%.*]] = getelementptr inbounds i8, ptr %kfuse.launches, i64 120
; CHECK-NEXT: store volatile ptr %{{.*}}, ptr [[F]]
; CHECK: [[F:%.*]] = getelementptr inbounds i8, ptr %kfuse.launches, i64 152
; CHECK-NEXT: store volatile i64 0, ptr [[F]]
; CHECK-NEXT: call void @kf_rt_launch_seq(ptr @kfuse.site, ptr %kfuse.launches, i32 2)
; CHECK-NEXT: br label
; CHECK-NOT: __device_stub__
; CHECK: ret void
; CHECK: declare void @kf_rt_launch_seq(ptr, ptr, i32)

source_filename = "pair.cu"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

%struct.dim3 = type { i32, i32, i32 }

$_ZN4dim3C2Ejjj = comdat any

@.str = private unnamed_addr constant [10 x i8] c"kfuse_map\00", section "llvm.metadata"
@.str.1 = private unnamed_addr constant [8 x i8] c"pair.cu\00", section "llvm.metadata"
@llvm.global.annotations = appending global [2 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr @_Z20__device_stub__scalePKfPffi, ptr @.str, ptr @.str.1, i32 3, ptr null }, { ptr, ptr, ptr, i32, ptr } { ptr @_Z19__device_stub__axpyPKfS0_Pfi, ptr @.str, ptr @.str.1, i32 4, ptr null }], section "llvm.metadata"

define void @_Z20__device_stub__scalePKfPffi(ptr %0, ptr %1, float %2, i32 %3) {
  %5 = alloca ptr, align 8
  %6 = alloca ptr, align 8
  %7 = alloca float, align 4
  %8 = alloca i32, align 4
  %9 = alloca %struct.dim3, align 8
  %10 = alloca %struct.dim3, align 8
  %11 = alloca i64, align 8
  %12 = alloca ptr, align 8
  %13 = alloca { i64, i32 }, align 8
  %14 = alloca { i64, i32 }, align 8
  store ptr %0, ptr %5, align 8
  store ptr %1, ptr %6, align 8
  store float %2, ptr %7, align 4
  store i32 %3, ptr %8, align 4
  %15 = alloca ptr, i64 4, align 16
  %16 = getelementptr ptr, ptr %15, i32 0
  store ptr %5, ptr %16, align 8
  %17 = getelementptr ptr, ptr %15, i32 1
  store ptr %6, ptr %17, align 8
  %18 = getelementptr ptr, ptr %15, i32 2
  store ptr %7, ptr %18, align 8
  %19 = getelementptr ptr, ptr %15, i32 3
  store ptr %8, ptr %19, align 8
  %20 = call i32 @__cudaPopCallConfiguration(ptr %9, ptr %10, ptr %11, ptr %12)
  %21 = load i64, ptr %11, align 8
  %22 = load ptr, ptr %12, align 8
  call void @llvm.memcpy.p0.p0.i64(ptr align 8 %13, ptr align 8 %9, i64 12, i1 false)
  %23 = getelementptr inbounds nuw { i64, i32 }, ptr %13, i32 0, i32 0
  %24 = load i64, ptr %23, align 8
  %25 = getelementptr inbounds nuw { i64, i32 }, ptr %13, i32 0, i32 1
  %26 = load i32, ptr %25, align 8
  call void @llvm.memcpy.p0.p0.i64(ptr align 8 %14, ptr align 8 %10, i64 12, i1 false)
  %27 = getelementptr inbounds nuw { i64, i32 }, ptr %14, i32 0, i32 0
  %28 = load i64, ptr %27, align 8
  %29 = getelementptr inbounds nuw { i64, i32 }, ptr %14, i32 0, i32 1
  %30 = load i32, ptr %29, align 8
  %31 = call i32 @cudaLaunchKernel(ptr @_Z20__device_stub__scalePKfPffi, i64 %24, i32 %26, i64 %28, i32 %30, ptr %15, i64 %21, ptr %22)
  br label %32

32:                                               ; preds = %4
  ret void
}

declare i32 @__cudaPopCallConfiguration(ptr, ptr, ptr, ptr)

declare i32 @cudaLaunchKernel(ptr, i64, i32, i64, i32, ptr, i64, ptr)

declare void @llvm.memcpy.p0.p0.i64(ptr noalias writeonly captures(none), ptr noalias readonly captures(none), i64, i1 immarg)

define void @_Z19__device_stub__axpyPKfS0_Pfi(ptr %0, ptr %1, ptr %2, i32 %3) {
  %5 = alloca ptr, align 8
  %6 = alloca ptr, align 8
  %7 = alloca ptr, align 8
  %8 = alloca i32, align 4
  %9 = alloca %struct.dim3, align 8
  %10 = alloca %struct.dim3, align 8
  %11 = alloca i64, align 8
  %12 = alloca ptr, align 8
  %13 = alloca { i64, i32 }, align 8
  %14 = alloca { i64, i32 }, align 8
  store ptr %0, ptr %5, align 8
  store ptr %1, ptr %6, align 8
  store ptr %2, ptr %7, align 8
  store i32 %3, ptr %8, align 4
  %15 = alloca ptr, i64 4, align 16
  %16 = getelementptr ptr, ptr %15, i32 0
  store ptr %5, ptr %16, align 8
  %17 = getelementptr ptr, ptr %15, i32 1
  store ptr %6, ptr %17, align 8
  %18 = getelementptr ptr, ptr %15, i32 2
  store ptr %7, ptr %18, align 8
  %19 = getelementptr ptr, ptr %15, i32 3
  store ptr %8, ptr %19, align 8
  %20 = call i32 @__cudaPopCallConfiguration(ptr %9, ptr %10, ptr %11, ptr %12)
  %21 = load i64, ptr %11, align 8
  %22 = load ptr, ptr %12, align 8
  call void @llvm.memcpy.p0.p0.i64(ptr align 8 %13, ptr align 8 %9, i64 12, i1 false)
  %23 = getelementptr inbounds nuw { i64, i32 }, ptr %13, i32 0, i32 0
  %24 = load i64, ptr %23, align 8
  %25 = getelementptr inbounds nuw { i64, i32 }, ptr %13, i32 0, i32 1
  %26 = load i32, ptr %25, align 8
  call void @llvm.memcpy.p0.p0.i64(ptr align 8 %14, ptr align 8 %10, i64 12, i1 false)
  %27 = getelementptr inbounds nuw { i64, i32 }, ptr %14, i32 0, i32 0
  %28 = load i64, ptr %27, align 8
  %29 = getelementptr inbounds nuw { i64, i32 }, ptr %14, i32 0, i32 1
  %30 = load i32, ptr %29, align 8
  %31 = call i32 @cudaLaunchKernel(ptr @_Z19__device_stub__axpyPKfS0_Pfi, i64 %24, i32 %26, i64 %28, i32 %30, ptr %15, i64 %21, ptr %22)
  br label %32

32:                                               ; preds = %4
  ret void
}

define void @_Z3runPKfPfS0_S1_iP11CUstream_st(ptr %0, ptr %1, ptr %2, ptr %3, i32 %4, ptr %5) {
  %7 = alloca ptr, align 8
  %8 = alloca ptr, align 8
  %9 = alloca ptr, align 8
  %10 = alloca ptr, align 8
  %11 = alloca i32, align 4
  %12 = alloca ptr, align 8
  %13 = alloca %struct.dim3, align 4
  %14 = alloca %struct.dim3, align 4
  %15 = alloca { i64, i32 }, align 4
  %16 = alloca { i64, i32 }, align 4
  %17 = alloca i32, align 4
  %18 = alloca %struct.dim3, align 4
  %19 = alloca %struct.dim3, align 4
  %20 = alloca { i64, i32 }, align 4
  %21 = alloca { i64, i32 }, align 4
  store ptr %0, ptr %7, align 8
  store ptr %1, ptr %8, align 8
  store ptr %2, ptr %9, align 8
  store ptr %3, ptr %10, align 8
  store i32 %4, ptr %11, align 4
  store ptr %5, ptr %12, align 8
  %22 = load i32, ptr %11, align 4
  %23 = add nsw i32 %22, 255
  %24 = sdiv i32 %23, 256
  call void @_ZN4dim3C2Ejjj(ptr align 4 %13, i32 %24, i32 1, i32 1)
  call void @_ZN4dim3C2Ejjj(ptr align 4 %14, i32 256, i32 1, i32 1)
  %25 = load ptr, ptr %12, align 8
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %15, ptr align 4 %13, i64 12, i1 false)
  %26 = getelementptr inbounds nuw { i64, i32 }, ptr %15, i32 0, i32 0
  %27 = load i64, ptr %26, align 4
  %28 = getelementptr inbounds nuw { i64, i32 }, ptr %15, i32 0, i32 1
  %29 = load i32, ptr %28, align 4
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %16, ptr align 4 %14, i64 12, i1 false)
  %30 = getelementptr inbounds nuw { i64, i32 }, ptr %16, i32 0, i32 0
  %31 = load i64, ptr %30, align 4
  %32 = getelementptr inbounds nuw { i64, i32 }, ptr %16, i32 0, i32 1
  %33 = load i32, ptr %32, align 4
  %34 = call i32 @__cudaPushCallConfiguration(i64 %27, i32 %29, i64 %31, i32 %33, i64 0, ptr %25)
  %35 = icmp ne i32 %34, 0
  br i1 %35, label %40, label %36

36:                                               ; preds = %6
  %37 = load ptr, ptr %7, align 8
  %38 = load ptr, ptr %8, align 8
  %39 = load i32, ptr %11, align 4
  call void @_Z20__device_stub__scalePKfPffi(ptr %37, ptr %38, float 2.000000e+00, i32 %39)
  br label %40

40:                                               ; preds = %36, %6
  %41 = load i32, ptr %11, align 4
  %42 = mul nsw i32 %41, 2
  store i32 %42, ptr %17, align 4
  %43 = load i32, ptr %11, align 4
  call void @_ZN4dim3C2Ejjj(ptr align 4 %18, i32 %43, i32 2, i32 3)
  call void @_ZN4dim3C2Ejjj(ptr align 4 %19, i32 32, i32 4, i32 1)
  %44 = load ptr, ptr %12, align 8
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %20, ptr align 4 %18, i64 12, i1 false)
  %45 = getelementptr inbounds nuw { i64, i32 }, ptr %20, i32 0, i32 0
  %46 = load i64, ptr %45, align 4
  %47 = getelementptr inbounds nuw { i64, i32 }, ptr %20, i32 0, i32 1
  %48 = load i32, ptr %47, align 4
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %21, ptr align 4 %19, i64 12, i1 false)
  %49 = getelementptr inbounds nuw { i64, i32 }, ptr %21, i32 0, i32 0
  %50 = load i64, ptr %49, align 4
  %51 = getelementptr inbounds nuw { i64, i32 }, ptr %21, i32 0, i32 1
  %52 = load i32, ptr %51, align 4
  %53 = call i32 @__cudaPushCallConfiguration(i64 %46, i32 %48, i64 %50, i32 %52, i64 128, ptr %44)
  %54 = icmp ne i32 %53, 0
  br i1 %54, label %60, label %55

55:                                               ; preds = %40
  %56 = load ptr, ptr %8, align 8
  %57 = load ptr, ptr %9, align 8
  %58 = load ptr, ptr %10, align 8
  %59 = load i32, ptr %17, align 4
  call void @_Z19__device_stub__axpyPKfS0_Pfi(ptr %56, ptr %57, ptr %58, i32 %59)
  br label %60

60:                                               ; preds = %55, %40
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

