; Runs cut short (Inputs/broken.cu, -O0 -gline-tables-only): a cudaMemcpy, a
; cudaDeviceSynchronize, a launch of a kernel without kfuse_map, a store to a
; global, and a branch between two kfuse_map launches each leave two lone
; launches, and lone launches are never rewritten. Each cut that has a
; kfuse_map launch after it is a missed remark naming what lies between.
;
; RUN: %opt -load-pass-plugin=%kfuse_llvm_plugin -passes=kfuse-host \
; RUN:   -pass-remarks=kfuse -pass-remarks-missed=kfuse -S %s -o %t.ll 2> %t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

; REMARK-NOT: handed
; REMARK: remark: broken.cu:8:3: launch of ka not handed to the runtime with the launch of kb: a call to cudaMemcpy lies between them
; REMARK: remark: broken.cu:13:3: launch of ka not handed to the runtime with the launch of kb: a call to cudaDeviceSynchronize lies between them
; REMARK: remark: broken.cu:18:8: launch of ka not handed to the runtime with the launch of kb: a launch of plain lies between them
; REMARK: remark: broken.cu:24:9: launch of ka not handed to the runtime with the launch of kb: a store to non-local memory lies between them
; REMARK-NOT: handed

; CHECK-NOT: kf_rt_launch_seq
; CHECK-NOT: kfuse.site
; CHECK-LABEL: define void @_Z12copy_betweenPfS_i(
; CHECK: call i32 @__cudaPushCallConfiguration(
; CHECK: call void @_Z17__device_stub__kaPfi(
; CHECK: call i32 @cudaMemcpy(
; CHECK: call i32 @__cudaPushCallConfiguration(
; CHECK: call void @_Z17__device_stub__kbPfi(
; CHECK-LABEL: define void @_Z12sync_betweenPfi(
; CHECK: call void @_Z17__device_stub__kaPfi(
; CHECK: call i32 @cudaDeviceSynchronize(
; CHECK: call void @_Z17__device_stub__kbPfi(
; CHECK-LABEL: define void @_Z13plain_betweenPfi(
; CHECK: call void @_Z17__device_stub__kaPfi(
; CHECK: call void @_Z20__device_stub__plainPf(
; CHECK: call void @_Z17__device_stub__kbPfi(
; CHECK-LABEL: define void @_Z20global_store_betweenPfi(
; CHECK: call void @_Z17__device_stub__kaPfi(
; CHECK: store ptr %{{.*}}, ptr @g_buf
; CHECK: call void @_Z17__device_stub__kbPfi(
; CHECK-LABEL: define void @_Z14branch_betweenPfi(
; CHECK: call void @_Z17__device_stub__kaPfi(
; CHECK: call void @_Z17__device_stub__kbPfi(
; CHECK-LABEL: define void @_Z4lonePfi(
; CHECK: call i32 @__cudaPushCallConfiguration(
; CHECK: call void @_Z17__device_stub__kaPfi(
; CHECK-NOT: kf_rt_launch_seq

source_filename = "broken.cu"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

%struct.dim3 = type { i32, i32, i32 }

$_ZN4dim3C2Ejjj = comdat any

@g_buf = global ptr null, align 8
@.str = private unnamed_addr constant [10 x i8] c"kfuse_map\00", section "llvm.metadata"
@.str.1 = private unnamed_addr constant [10 x i8] c"broken.cu\00", section "llvm.metadata"
@llvm.global.annotations = appending global [2 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr @_Z17__device_stub__kaPfi, ptr @.str, ptr @.str.1, i32 3, ptr null }, { ptr, ptr, ptr, i32, ptr } { ptr @_Z17__device_stub__kbPfi, ptr @.str, ptr @.str.1, i32 4, ptr null }], section "llvm.metadata"

define void @_Z17__device_stub__kaPfi(ptr %0, i32 %1) !dbg !11 {
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
  %11 = alloca ptr, i64 2, align 16, !dbg !14
  %12 = getelementptr ptr, ptr %11, i32 0, !dbg !14
  store ptr %3, ptr %12, align 8, !dbg !14
  %13 = getelementptr ptr, ptr %11, i32 1, !dbg !14
  store ptr %4, ptr %13, align 8, !dbg !14
  %14 = call i32 @__cudaPopCallConfiguration(ptr %5, ptr %6, ptr %7, ptr %8), !dbg !14
  %15 = load i64, ptr %7, align 8, !dbg !14
  %16 = load ptr, ptr %8, align 8, !dbg !14
  call void @llvm.memcpy.p0.p0.i64(ptr align 8 %9, ptr align 8 %5, i64 12, i1 false), !dbg !14
  %17 = getelementptr inbounds nuw { i64, i32 }, ptr %9, i32 0, i32 0, !dbg !14
  %18 = load i64, ptr %17, align 8, !dbg !14
  %19 = getelementptr inbounds nuw { i64, i32 }, ptr %9, i32 0, i32 1, !dbg !14
  %20 = load i32, ptr %19, align 8, !dbg !14
  call void @llvm.memcpy.p0.p0.i64(ptr align 8 %10, ptr align 8 %6, i64 12, i1 false), !dbg !14
  %21 = getelementptr inbounds nuw { i64, i32 }, ptr %10, i32 0, i32 0, !dbg !14
  %22 = load i64, ptr %21, align 8, !dbg !14
  %23 = getelementptr inbounds nuw { i64, i32 }, ptr %10, i32 0, i32 1, !dbg !14
  %24 = load i32, ptr %23, align 8, !dbg !14
  %25 = call i32 @cudaLaunchKernel(ptr @_Z17__device_stub__kaPfi, i64 %18, i32 %20, i64 %22, i32 %24, ptr %11, i64 %15, ptr %16), !dbg !14
  br label %26, !dbg !14

26:                                               ; preds = %2
  ret void, !dbg !15
}

declare i32 @__cudaPopCallConfiguration(ptr, ptr, ptr, ptr)

declare i32 @cudaLaunchKernel(ptr, i64, i32, i64, i32, ptr, i64, ptr)

declare void @llvm.memcpy.p0.p0.i64(ptr noalias writeonly captures(none), ptr noalias readonly captures(none), i64, i1 immarg)

define void @_Z17__device_stub__kbPfi(ptr %0, i32 %1) !dbg !16 {
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
  %11 = alloca ptr, i64 2, align 16, !dbg !17
  %12 = getelementptr ptr, ptr %11, i32 0, !dbg !17
  store ptr %3, ptr %12, align 8, !dbg !17
  %13 = getelementptr ptr, ptr %11, i32 1, !dbg !17
  store ptr %4, ptr %13, align 8, !dbg !17
  %14 = call i32 @__cudaPopCallConfiguration(ptr %5, ptr %6, ptr %7, ptr %8), !dbg !17
  %15 = load i64, ptr %7, align 8, !dbg !17
  %16 = load ptr, ptr %8, align 8, !dbg !17
  call void @llvm.memcpy.p0.p0.i64(ptr align 8 %9, ptr align 8 %5, i64 12, i1 false), !dbg !17
  %17 = getelementptr inbounds nuw { i64, i32 }, ptr %9, i32 0, i32 0, !dbg !17
  %18 = load i64, ptr %17, align 8, !dbg !17
  %19 = getelementptr inbounds nuw { i64, i32 }, ptr %9, i32 0, i32 1, !dbg !17
  %20 = load i32, ptr %19, align 8, !dbg !17
  call void @llvm.memcpy.p0.p0.i64(ptr align 8 %10, ptr align 8 %6, i64 12, i1 false), !dbg !17
  %21 = getelementptr inbounds nuw { i64, i32 }, ptr %10, i32 0, i32 0, !dbg !17
  %22 = load i64, ptr %21, align 8, !dbg !17
  %23 = getelementptr inbounds nuw { i64, i32 }, ptr %10, i32 0, i32 1, !dbg !17
  %24 = load i32, ptr %23, align 8, !dbg !17
  %25 = call i32 @cudaLaunchKernel(ptr @_Z17__device_stub__kbPfi, i64 %18, i32 %20, i64 %22, i32 %24, ptr %11, i64 %15, ptr %16), !dbg !17
  br label %26, !dbg !17

26:                                               ; preds = %2
  ret void, !dbg !18
}

define void @_Z20__device_stub__plainPf(ptr %0) !dbg !19 {
  %2 = alloca ptr, align 8
  %3 = alloca %struct.dim3, align 8
  %4 = alloca %struct.dim3, align 8
  %5 = alloca i64, align 8
  %6 = alloca ptr, align 8
  %7 = alloca { i64, i32 }, align 8
  %8 = alloca { i64, i32 }, align 8
  store ptr %0, ptr %2, align 8
  %9 = alloca ptr, i64 1, align 16, !dbg !20
  %10 = getelementptr ptr, ptr %9, i32 0, !dbg !20
  store ptr %2, ptr %10, align 8, !dbg !20
  %11 = call i32 @__cudaPopCallConfiguration(ptr %3, ptr %4, ptr %5, ptr %6), !dbg !20
  %12 = load i64, ptr %5, align 8, !dbg !20
  %13 = load ptr, ptr %6, align 8, !dbg !20
  call void @llvm.memcpy.p0.p0.i64(ptr align 8 %7, ptr align 8 %3, i64 12, i1 false), !dbg !20
  %14 = getelementptr inbounds nuw { i64, i32 }, ptr %7, i32 0, i32 0, !dbg !20
  %15 = load i64, ptr %14, align 8, !dbg !20
  %16 = getelementptr inbounds nuw { i64, i32 }, ptr %7, i32 0, i32 1, !dbg !20
  %17 = load i32, ptr %16, align 8, !dbg !20
  call void @llvm.memcpy.p0.p0.i64(ptr align 8 %8, ptr align 8 %4, i64 12, i1 false), !dbg !20
  %18 = getelementptr inbounds nuw { i64, i32 }, ptr %8, i32 0, i32 0, !dbg !20
  %19 = load i64, ptr %18, align 8, !dbg !20
  %20 = getelementptr inbounds nuw { i64, i32 }, ptr %8, i32 0, i32 1, !dbg !20
  %21 = load i32, ptr %20, align 8, !dbg !20
  %22 = call i32 @cudaLaunchKernel(ptr @_Z20__device_stub__plainPf, i64 %15, i32 %17, i64 %19, i32 %21, ptr %9, i64 %12, ptr %13), !dbg !20
  br label %23, !dbg !20

23:                                               ; preds = %1
  ret void, !dbg !21
}

define void @_Z12copy_betweenPfS_i(ptr %0, ptr %1, i32 %2) !dbg !22 {
  %4 = alloca ptr, align 8
  %5 = alloca ptr, align 8
  %6 = alloca i32, align 4
  %7 = alloca %struct.dim3, align 4
  %8 = alloca %struct.dim3, align 4
  %9 = alloca { i64, i32 }, align 4
  %10 = alloca { i64, i32 }, align 4
  %11 = alloca %struct.dim3, align 4
  %12 = alloca %struct.dim3, align 4
  %13 = alloca { i64, i32 }, align 4
  %14 = alloca { i64, i32 }, align 4
  store ptr %0, ptr %4, align 8
  store ptr %1, ptr %5, align 8
  store i32 %2, ptr %6, align 4
  call void @_ZN4dim3C2Ejjj(ptr align 4 %7, i32 1, i32 1, i32 1), !dbg !23
  call void @_ZN4dim3C2Ejjj(ptr align 4 %8, i32 32, i32 1, i32 1), !dbg !24
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %9, ptr align 4 %7, i64 12, i1 false), !dbg !25
  %15 = getelementptr inbounds nuw { i64, i32 }, ptr %9, i32 0, i32 0, !dbg !25
  %16 = load i64, ptr %15, align 4, !dbg !25
  %17 = getelementptr inbounds nuw { i64, i32 }, ptr %9, i32 0, i32 1, !dbg !25
  %18 = load i32, ptr %17, align 4, !dbg !25
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %10, ptr align 4 %8, i64 12, i1 false), !dbg !25
  %19 = getelementptr inbounds nuw { i64, i32 }, ptr %10, i32 0, i32 0, !dbg !25
  %20 = load i64, ptr %19, align 4, !dbg !25
  %21 = getelementptr inbounds nuw { i64, i32 }, ptr %10, i32 0, i32 1, !dbg !25
  %22 = load i32, ptr %21, align 4, !dbg !25
  %23 = call i32 @__cudaPushCallConfiguration(i64 %16, i32 %18, i64 %20, i32 %22, i64 0, ptr null), !dbg !25
  %24 = icmp ne i32 %23, 0, !dbg !25
  br i1 %24, label %28, label %25, !dbg !26

25:                                               ; preds = %3
  %26 = load ptr, ptr %4, align 8, !dbg !27
  %27 = load i32, ptr %6, align 4, !dbg !28
  call void @_Z17__device_stub__kaPfi(ptr %26, i32 %27), !dbg !26
  br label %28, !dbg !26

28:                                               ; preds = %25, %3
  %29 = load ptr, ptr %5, align 8, !dbg !29
  %30 = load ptr, ptr %4, align 8, !dbg !30
  %31 = call i32 @cudaMemcpy(ptr %29, ptr %30, i64 4, i32 2), !dbg !31
  call void @_ZN4dim3C2Ejjj(ptr align 4 %11, i32 1, i32 1, i32 1), !dbg !32
  call void @_ZN4dim3C2Ejjj(ptr align 4 %12, i32 32, i32 1, i32 1), !dbg !33
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %13, ptr align 4 %11, i64 12, i1 false), !dbg !34
  %32 = getelementptr inbounds nuw { i64, i32 }, ptr %13, i32 0, i32 0, !dbg !34
  %33 = load i64, ptr %32, align 4, !dbg !34
  %34 = getelementptr inbounds nuw { i64, i32 }, ptr %13, i32 0, i32 1, !dbg !34
  %35 = load i32, ptr %34, align 4, !dbg !34
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %14, ptr align 4 %12, i64 12, i1 false), !dbg !34
  %36 = getelementptr inbounds nuw { i64, i32 }, ptr %14, i32 0, i32 0, !dbg !34
  %37 = load i64, ptr %36, align 4, !dbg !34
  %38 = getelementptr inbounds nuw { i64, i32 }, ptr %14, i32 0, i32 1, !dbg !34
  %39 = load i32, ptr %38, align 4, !dbg !34
  %40 = call i32 @__cudaPushCallConfiguration(i64 %33, i32 %35, i64 %37, i32 %39, i64 0, ptr null), !dbg !34
  %41 = icmp ne i32 %40, 0, !dbg !34
  br i1 %41, label %45, label %42, !dbg !35

42:                                               ; preds = %28
  %43 = load ptr, ptr %4, align 8, !dbg !36
  %44 = load i32, ptr %6, align 4, !dbg !37
  call void @_Z17__device_stub__kbPfi(ptr %43, i32 %44), !dbg !35
  br label %45, !dbg !35

45:                                               ; preds = %42, %28
  ret void, !dbg !38
}

declare i32 @__cudaPushCallConfiguration(i64, i32, i64, i32, i64, ptr)

define linkonce_odr void @_ZN4dim3C2Ejjj(ptr align 4 %0, i32 %1, i32 %2, i32 %3) unnamed_addr comdat align 2 !dbg !39 {
  %5 = alloca ptr, align 8
  %6 = alloca i32, align 4
  %7 = alloca i32, align 4
  %8 = alloca i32, align 4
  store ptr %0, ptr %5, align 8
  store i32 %1, ptr %6, align 4
  store i32 %2, ptr %7, align 4
  store i32 %3, ptr %8, align 4
  %9 = load ptr, ptr %5, align 8
  %10 = getelementptr inbounds nuw %struct.dim3, ptr %9, i32 0, i32 0, !dbg !41
  %11 = load i32, ptr %6, align 4, !dbg !42
  store i32 %11, ptr %10, align 4, !dbg !41
  %12 = getelementptr inbounds nuw %struct.dim3, ptr %9, i32 0, i32 1, !dbg !43
  %13 = load i32, ptr %7, align 4, !dbg !44
  store i32 %13, ptr %12, align 4, !dbg !43
  %14 = getelementptr inbounds nuw %struct.dim3, ptr %9, i32 0, i32 2, !dbg !45
  %15 = load i32, ptr %8, align 4, !dbg !46
  store i32 %15, ptr %14, align 4, !dbg !45
  ret void, !dbg !47
}

declare i32 @cudaMemcpy(ptr, ptr, i64, i32)

define void @_Z12sync_betweenPfi(ptr %0, i32 %1) !dbg !48 {
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
  call void @_ZN4dim3C2Ejjj(ptr align 4 %5, i32 1, i32 1, i32 1), !dbg !49
  call void @_ZN4dim3C2Ejjj(ptr align 4 %6, i32 32, i32 1, i32 1), !dbg !50
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %7, ptr align 4 %5, i64 12, i1 false), !dbg !51
  %13 = getelementptr inbounds nuw { i64, i32 }, ptr %7, i32 0, i32 0, !dbg !51
  %14 = load i64, ptr %13, align 4, !dbg !51
  %15 = getelementptr inbounds nuw { i64, i32 }, ptr %7, i32 0, i32 1, !dbg !51
  %16 = load i32, ptr %15, align 4, !dbg !51
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %8, ptr align 4 %6, i64 12, i1 false), !dbg !51
  %17 = getelementptr inbounds nuw { i64, i32 }, ptr %8, i32 0, i32 0, !dbg !51
  %18 = load i64, ptr %17, align 4, !dbg !51
  %19 = getelementptr inbounds nuw { i64, i32 }, ptr %8, i32 0, i32 1, !dbg !51
  %20 = load i32, ptr %19, align 4, !dbg !51
  %21 = call i32 @__cudaPushCallConfiguration(i64 %14, i32 %16, i64 %18, i32 %20, i64 0, ptr null), !dbg !51
  %22 = icmp ne i32 %21, 0, !dbg !51
  br i1 %22, label %26, label %23, !dbg !52

23:                                               ; preds = %2
  %24 = load ptr, ptr %3, align 8, !dbg !53
  %25 = load i32, ptr %4, align 4, !dbg !54
  call void @_Z17__device_stub__kaPfi(ptr %24, i32 %25), !dbg !52
  br label %26, !dbg !52

26:                                               ; preds = %23, %2
  %27 = call i32 @cudaDeviceSynchronize(), !dbg !55
  call void @_ZN4dim3C2Ejjj(ptr align 4 %9, i32 1, i32 1, i32 1), !dbg !56
  call void @_ZN4dim3C2Ejjj(ptr align 4 %10, i32 32, i32 1, i32 1), !dbg !57
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %11, ptr align 4 %9, i64 12, i1 false), !dbg !58
  %28 = getelementptr inbounds nuw { i64, i32 }, ptr %11, i32 0, i32 0, !dbg !58
  %29 = load i64, ptr %28, align 4, !dbg !58
  %30 = getelementptr inbounds nuw { i64, i32 }, ptr %11, i32 0, i32 1, !dbg !58
  %31 = load i32, ptr %30, align 4, !dbg !58
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %12, ptr align 4 %10, i64 12, i1 false), !dbg !58
  %32 = getelementptr inbounds nuw { i64, i32 }, ptr %12, i32 0, i32 0, !dbg !58
  %33 = load i64, ptr %32, align 4, !dbg !58
  %34 = getelementptr inbounds nuw { i64, i32 }, ptr %12, i32 0, i32 1, !dbg !58
  %35 = load i32, ptr %34, align 4, !dbg !58
  %36 = call i32 @__cudaPushCallConfiguration(i64 %29, i32 %31, i64 %33, i32 %35, i64 0, ptr null), !dbg !58
  %37 = icmp ne i32 %36, 0, !dbg !58
  br i1 %37, label %41, label %38, !dbg !59

38:                                               ; preds = %26
  %39 = load ptr, ptr %3, align 8, !dbg !60
  %40 = load i32, ptr %4, align 4, !dbg !61
  call void @_Z17__device_stub__kbPfi(ptr %39, i32 %40), !dbg !59
  br label %41, !dbg !59

41:                                               ; preds = %38, %26
  ret void, !dbg !62
}

declare i32 @cudaDeviceSynchronize()

define void @_Z13plain_betweenPfi(ptr %0, i32 %1) !dbg !63 {
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
  call void @_ZN4dim3C2Ejjj(ptr align 4 %5, i32 1, i32 1, i32 1), !dbg !64
  call void @_ZN4dim3C2Ejjj(ptr align 4 %6, i32 32, i32 1, i32 1), !dbg !65
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %7, ptr align 4 %5, i64 12, i1 false), !dbg !66
  %17 = getelementptr inbounds nuw { i64, i32 }, ptr %7, i32 0, i32 0, !dbg !66
  %18 = load i64, ptr %17, align 4, !dbg !66
  %19 = getelementptr inbounds nuw { i64, i32 }, ptr %7, i32 0, i32 1, !dbg !66
  %20 = load i32, ptr %19, align 4, !dbg !66
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %8, ptr align 4 %6, i64 12, i1 false), !dbg !66
  %21 = getelementptr inbounds nuw { i64, i32 }, ptr %8, i32 0, i32 0, !dbg !66
  %22 = load i64, ptr %21, align 4, !dbg !66
  %23 = getelementptr inbounds nuw { i64, i32 }, ptr %8, i32 0, i32 1, !dbg !66
  %24 = load i32, ptr %23, align 4, !dbg !66
  %25 = call i32 @__cudaPushCallConfiguration(i64 %18, i32 %20, i64 %22, i32 %24, i64 0, ptr null), !dbg !66
  %26 = icmp ne i32 %25, 0, !dbg !66
  br i1 %26, label %30, label %27, !dbg !67

27:                                               ; preds = %2
  %28 = load ptr, ptr %3, align 8, !dbg !68
  %29 = load i32, ptr %4, align 4, !dbg !69
  call void @_Z17__device_stub__kaPfi(ptr %28, i32 %29), !dbg !67
  br label %30, !dbg !67

30:                                               ; preds = %27, %2
  call void @_ZN4dim3C2Ejjj(ptr align 4 %9, i32 1, i32 1, i32 1), !dbg !70
  call void @_ZN4dim3C2Ejjj(ptr align 4 %10, i32 32, i32 1, i32 1), !dbg !71
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %11, ptr align 4 %9, i64 12, i1 false), !dbg !72
  %31 = getelementptr inbounds nuw { i64, i32 }, ptr %11, i32 0, i32 0, !dbg !72
  %32 = load i64, ptr %31, align 4, !dbg !72
  %33 = getelementptr inbounds nuw { i64, i32 }, ptr %11, i32 0, i32 1, !dbg !72
  %34 = load i32, ptr %33, align 4, !dbg !72
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %12, ptr align 4 %10, i64 12, i1 false), !dbg !72
  %35 = getelementptr inbounds nuw { i64, i32 }, ptr %12, i32 0, i32 0, !dbg !72
  %36 = load i64, ptr %35, align 4, !dbg !72
  %37 = getelementptr inbounds nuw { i64, i32 }, ptr %12, i32 0, i32 1, !dbg !72
  %38 = load i32, ptr %37, align 4, !dbg !72
  %39 = call i32 @__cudaPushCallConfiguration(i64 %32, i32 %34, i64 %36, i32 %38, i64 0, ptr null), !dbg !72
  %40 = icmp ne i32 %39, 0, !dbg !72
  br i1 %40, label %43, label %41, !dbg !73

41:                                               ; preds = %30
  %42 = load ptr, ptr %3, align 8, !dbg !74
  call void @_Z20__device_stub__plainPf(ptr %42), !dbg !73
  br label %43, !dbg !73

43:                                               ; preds = %41, %30
  call void @_ZN4dim3C2Ejjj(ptr align 4 %13, i32 1, i32 1, i32 1), !dbg !75
  call void @_ZN4dim3C2Ejjj(ptr align 4 %14, i32 32, i32 1, i32 1), !dbg !76
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %15, ptr align 4 %13, i64 12, i1 false), !dbg !77
  %44 = getelementptr inbounds nuw { i64, i32 }, ptr %15, i32 0, i32 0, !dbg !77
  %45 = load i64, ptr %44, align 4, !dbg !77
  %46 = getelementptr inbounds nuw { i64, i32 }, ptr %15, i32 0, i32 1, !dbg !77
  %47 = load i32, ptr %46, align 4, !dbg !77
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %16, ptr align 4 %14, i64 12, i1 false), !dbg !77
  %48 = getelementptr inbounds nuw { i64, i32 }, ptr %16, i32 0, i32 0, !dbg !77
  %49 = load i64, ptr %48, align 4, !dbg !77
  %50 = getelementptr inbounds nuw { i64, i32 }, ptr %16, i32 0, i32 1, !dbg !77
  %51 = load i32, ptr %50, align 4, !dbg !77
  %52 = call i32 @__cudaPushCallConfiguration(i64 %45, i32 %47, i64 %49, i32 %51, i64 0, ptr null), !dbg !77
  %53 = icmp ne i32 %52, 0, !dbg !77
  br i1 %53, label %57, label %54, !dbg !78

54:                                               ; preds = %43
  %55 = load ptr, ptr %3, align 8, !dbg !79
  %56 = load i32, ptr %4, align 4, !dbg !80
  call void @_Z17__device_stub__kbPfi(ptr %55, i32 %56), !dbg !78
  br label %57, !dbg !78

57:                                               ; preds = %54, %43
  ret void, !dbg !81
}

define void @_Z20global_store_betweenPfi(ptr %0, i32 %1) !dbg !82 {
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
  call void @_ZN4dim3C2Ejjj(ptr align 4 %5, i32 1, i32 1, i32 1), !dbg !83
  call void @_ZN4dim3C2Ejjj(ptr align 4 %6, i32 32, i32 1, i32 1), !dbg !84
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %7, ptr align 4 %5, i64 12, i1 false), !dbg !85
  %13 = getelementptr inbounds nuw { i64, i32 }, ptr %7, i32 0, i32 0, !dbg !85
  %14 = load i64, ptr %13, align 4, !dbg !85
  %15 = getelementptr inbounds nuw { i64, i32 }, ptr %7, i32 0, i32 1, !dbg !85
  %16 = load i32, ptr %15, align 4, !dbg !85
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %8, ptr align 4 %6, i64 12, i1 false), !dbg !85
  %17 = getelementptr inbounds nuw { i64, i32 }, ptr %8, i32 0, i32 0, !dbg !85
  %18 = load i64, ptr %17, align 4, !dbg !85
  %19 = getelementptr inbounds nuw { i64, i32 }, ptr %8, i32 0, i32 1, !dbg !85
  %20 = load i32, ptr %19, align 4, !dbg !85
  %21 = call i32 @__cudaPushCallConfiguration(i64 %14, i32 %16, i64 %18, i32 %20, i64 0, ptr null), !dbg !85
  %22 = icmp ne i32 %21, 0, !dbg !85
  br i1 %22, label %26, label %23, !dbg !86

23:                                               ; preds = %2
  %24 = load ptr, ptr %3, align 8, !dbg !87
  %25 = load i32, ptr %4, align 4, !dbg !88
  call void @_Z17__device_stub__kaPfi(ptr %24, i32 %25), !dbg !86
  br label %26, !dbg !86

26:                                               ; preds = %23, %2
  %27 = load ptr, ptr %3, align 8, !dbg !89
  store ptr %27, ptr @g_buf, align 8, !dbg !90
  call void @_ZN4dim3C2Ejjj(ptr align 4 %9, i32 1, i32 1, i32 1), !dbg !91
  call void @_ZN4dim3C2Ejjj(ptr align 4 %10, i32 32, i32 1, i32 1), !dbg !92
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %11, ptr align 4 %9, i64 12, i1 false), !dbg !93
  %28 = getelementptr inbounds nuw { i64, i32 }, ptr %11, i32 0, i32 0, !dbg !93
  %29 = load i64, ptr %28, align 4, !dbg !93
  %30 = getelementptr inbounds nuw { i64, i32 }, ptr %11, i32 0, i32 1, !dbg !93
  %31 = load i32, ptr %30, align 4, !dbg !93
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %12, ptr align 4 %10, i64 12, i1 false), !dbg !93
  %32 = getelementptr inbounds nuw { i64, i32 }, ptr %12, i32 0, i32 0, !dbg !93
  %33 = load i64, ptr %32, align 4, !dbg !93
  %34 = getelementptr inbounds nuw { i64, i32 }, ptr %12, i32 0, i32 1, !dbg !93
  %35 = load i32, ptr %34, align 4, !dbg !93
  %36 = call i32 @__cudaPushCallConfiguration(i64 %29, i32 %31, i64 %33, i32 %35, i64 0, ptr null), !dbg !93
  %37 = icmp ne i32 %36, 0, !dbg !93
  br i1 %37, label %41, label %38, !dbg !94

38:                                               ; preds = %26
  %39 = load ptr, ptr %3, align 8, !dbg !95
  %40 = load i32, ptr %4, align 4, !dbg !96
  call void @_Z17__device_stub__kbPfi(ptr %39, i32 %40), !dbg !94
  br label %41, !dbg !94

41:                                               ; preds = %38, %26
  ret void, !dbg !97
}

define void @_Z14branch_betweenPfi(ptr %0, i32 %1) !dbg !98 {
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
  call void @_ZN4dim3C2Ejjj(ptr align 4 %5, i32 1, i32 1, i32 1), !dbg !99
  call void @_ZN4dim3C2Ejjj(ptr align 4 %6, i32 32, i32 1, i32 1), !dbg !100
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %7, ptr align 4 %5, i64 12, i1 false), !dbg !101
  %13 = getelementptr inbounds nuw { i64, i32 }, ptr %7, i32 0, i32 0, !dbg !101
  %14 = load i64, ptr %13, align 4, !dbg !101
  %15 = getelementptr inbounds nuw { i64, i32 }, ptr %7, i32 0, i32 1, !dbg !101
  %16 = load i32, ptr %15, align 4, !dbg !101
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %8, ptr align 4 %6, i64 12, i1 false), !dbg !101
  %17 = getelementptr inbounds nuw { i64, i32 }, ptr %8, i32 0, i32 0, !dbg !101
  %18 = load i64, ptr %17, align 4, !dbg !101
  %19 = getelementptr inbounds nuw { i64, i32 }, ptr %8, i32 0, i32 1, !dbg !101
  %20 = load i32, ptr %19, align 4, !dbg !101
  %21 = call i32 @__cudaPushCallConfiguration(i64 %14, i32 %16, i64 %18, i32 %20, i64 0, ptr null), !dbg !101
  %22 = icmp ne i32 %21, 0, !dbg !101
  br i1 %22, label %26, label %23, !dbg !102

23:                                               ; preds = %2
  %24 = load ptr, ptr %3, align 8, !dbg !103
  %25 = load i32, ptr %4, align 4, !dbg !104
  call void @_Z17__device_stub__kaPfi(ptr %24, i32 %25), !dbg !102
  br label %26, !dbg !102

26:                                               ; preds = %23, %2
  %27 = load i32, ptr %4, align 4, !dbg !105
  %28 = icmp sgt i32 %27, 4, !dbg !106
  br i1 %28, label %29, label %30, !dbg !106

29:                                               ; preds = %26
  store i32 4, ptr %4, align 4, !dbg !107
  br label %30, !dbg !108

30:                                               ; preds = %29, %26
  call void @_ZN4dim3C2Ejjj(ptr align 4 %9, i32 1, i32 1, i32 1), !dbg !109
  call void @_ZN4dim3C2Ejjj(ptr align 4 %10, i32 32, i32 1, i32 1), !dbg !110
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %11, ptr align 4 %9, i64 12, i1 false), !dbg !111
  %31 = getelementptr inbounds nuw { i64, i32 }, ptr %11, i32 0, i32 0, !dbg !111
  %32 = load i64, ptr %31, align 4, !dbg !111
  %33 = getelementptr inbounds nuw { i64, i32 }, ptr %11, i32 0, i32 1, !dbg !111
  %34 = load i32, ptr %33, align 4, !dbg !111
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %12, ptr align 4 %10, i64 12, i1 false), !dbg !111
  %35 = getelementptr inbounds nuw { i64, i32 }, ptr %12, i32 0, i32 0, !dbg !111
  %36 = load i64, ptr %35, align 4, !dbg !111
  %37 = getelementptr inbounds nuw { i64, i32 }, ptr %12, i32 0, i32 1, !dbg !111
  %38 = load i32, ptr %37, align 4, !dbg !111
  %39 = call i32 @__cudaPushCallConfiguration(i64 %32, i32 %34, i64 %36, i32 %38, i64 0, ptr null), !dbg !111
  %40 = icmp ne i32 %39, 0, !dbg !111
  br i1 %40, label %44, label %41, !dbg !112

41:                                               ; preds = %30
  %42 = load ptr, ptr %3, align 8, !dbg !113
  %43 = load i32, ptr %4, align 4, !dbg !114
  call void @_Z17__device_stub__kbPfi(ptr %42, i32 %43), !dbg !112
  br label %44, !dbg !112

44:                                               ; preds = %41, %30
  ret void, !dbg !115
}

define void @_Z4lonePfi(ptr %0, i32 %1) !dbg !116 {
  %3 = alloca ptr, align 8
  %4 = alloca i32, align 4
  %5 = alloca %struct.dim3, align 4
  %6 = alloca %struct.dim3, align 4
  %7 = alloca { i64, i32 }, align 4
  %8 = alloca { i64, i32 }, align 4
  store ptr %0, ptr %3, align 8
  store i32 %1, ptr %4, align 4
  call void @_ZN4dim3C2Ejjj(ptr align 4 %5, i32 1, i32 1, i32 1), !dbg !117
  call void @_ZN4dim3C2Ejjj(ptr align 4 %6, i32 32, i32 1, i32 1), !dbg !118
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %7, ptr align 4 %5, i64 12, i1 false), !dbg !119
  %9 = getelementptr inbounds nuw { i64, i32 }, ptr %7, i32 0, i32 0, !dbg !119
  %10 = load i64, ptr %9, align 4, !dbg !119
  %11 = getelementptr inbounds nuw { i64, i32 }, ptr %7, i32 0, i32 1, !dbg !119
  %12 = load i32, ptr %11, align 4, !dbg !119
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %8, ptr align 4 %6, i64 12, i1 false), !dbg !119
  %13 = getelementptr inbounds nuw { i64, i32 }, ptr %8, i32 0, i32 0, !dbg !119
  %14 = load i64, ptr %13, align 4, !dbg !119
  %15 = getelementptr inbounds nuw { i64, i32 }, ptr %8, i32 0, i32 1, !dbg !119
  %16 = load i32, ptr %15, align 4, !dbg !119
  %17 = call i32 @__cudaPushCallConfiguration(i64 %10, i32 %12, i64 %14, i32 %16, i64 0, ptr null), !dbg !119
  %18 = icmp ne i32 %17, 0, !dbg !119
  br i1 %18, label %22, label %19, !dbg !120

19:                                               ; preds = %2
  %20 = load ptr, ptr %3, align 8, !dbg !121
  %21 = load i32, ptr %4, align 4, !dbg !122
  call void @_Z17__device_stub__kaPfi(ptr %20, i32 %21), !dbg !120
  br label %22, !dbg !120

22:                                               ; preds = %19, %2
  ret void, !dbg !123
}

!llvm.module.flags = !{!0, !1, !2, !3, !4, !5, !6, !7}
!llvm.dbg.cu = !{!8}
!llvm.ident = !{!10}

!0 = !{i32 2, !"SDK Version", [2 x i32] [i32 12, i32 9]}
!1 = !{i32 7, !"Dwarf Version", i32 5}
!2 = !{i32 2, !"Debug Info Version", i32 3}
!3 = !{i32 1, !"wchar_size", i32 4}
!4 = !{i32 8, !"PIC Level", i32 2}
!5 = !{i32 7, !"PIE Level", i32 2}
!6 = !{i32 7, !"uwtable", i32 2}
!7 = !{i32 7, !"frame-pointer", i32 2}
!8 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus_14, file: !9, producer: "Debian clang version 22.1.8 (1~deb12u1)", isOptimized: false, runtimeVersion: 0, emissionKind: LineTablesOnly, splitDebugInlining: false, nameTableKind: None)
!9 = !DIFile(filename: "broken.cu", directory: "/tmp/h/t", checksumkind: CSK_MD5, checksum: "4be433b32d860521f2c4368abf3bae23")
!10 = !{!"Debian clang version 22.1.8 (1~deb12u1)"}
!11 = distinct !DISubprogram(name: "ka", scope: !9, file: !9, line: 3, type: !12, scopeLine: 3, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition, unit: !8)
!12 = !DISubroutineType(types: !13)
!13 = !{}
!14 = !DILocation(line: 3, column: 29, scope: !11)
!15 = !DILocation(line: 3, column: 52, scope: !11)
!16 = distinct !DISubprogram(name: "kb", scope: !9, file: !9, line: 4, type: !12, scopeLine: 4, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition, unit: !8)
!17 = !DILocation(line: 4, column: 29, scope: !16)
!18 = !DILocation(line: 4, column: 52, scope: !16)
!19 = distinct !DISubprogram(name: "plain", scope: !9, file: !9, line: 5, type: !12, scopeLine: 5, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition, unit: !8)
!20 = !DILocation(line: 5, column: 33, scope: !19)
!21 = !DILocation(line: 5, column: 55, scope: !19)
!22 = distinct !DISubprogram(name: "copy_between", scope: !9, file: !9, line: 6, type: !12, scopeLine: 6, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition, unit: !8)
!23 = !DILocation(line: 7, column: 8, scope: !22)
!24 = !DILocation(line: 7, column: 11, scope: !22)
!25 = !DILocation(line: 7, column: 5, scope: !22)
!26 = !DILocation(line: 7, column: 3, scope: !22)
!27 = !DILocation(line: 7, column: 17, scope: !22)
!28 = !DILocation(line: 7, column: 20, scope: !22)
!29 = !DILocation(line: 8, column: 14, scope: !22)
!30 = !DILocation(line: 8, column: 17, scope: !22)
!31 = !DILocation(line: 8, column: 3, scope: !22)
!32 = !DILocation(line: 9, column: 8, scope: !22)
!33 = !DILocation(line: 9, column: 11, scope: !22)
!34 = !DILocation(line: 9, column: 5, scope: !22)
!35 = !DILocation(line: 9, column: 3, scope: !22)
!36 = !DILocation(line: 9, column: 17, scope: !22)
!37 = !DILocation(line: 9, column: 20, scope: !22)
!38 = !DILocation(line: 10, column: 1, scope: !22)
!39 = distinct !DISubprogram(name: "dim3", scope: !40, file: !40, line: 584, type: !12, scopeLine: 584, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition, unit: !8)
!40 = !DIFile(filename: "/usr/local/cuda/include/vector_types.h", directory: "", checksumkind: CSK_MD5, checksum: "627c0c65021f1a2b77151e4d5d073b22")
!41 = !DILocation(line: 584, column: 105, scope: !39)
!42 = !DILocation(line: 584, column: 107, scope: !39)
!43 = !DILocation(line: 584, column: 112, scope: !39)
!44 = !DILocation(line: 584, column: 114, scope: !39)
!45 = !DILocation(line: 584, column: 119, scope: !39)
!46 = !DILocation(line: 584, column: 121, scope: !39)
!47 = !DILocation(line: 584, column: 126, scope: !39)
!48 = distinct !DISubprogram(name: "sync_between", scope: !9, file: !9, line: 11, type: !12, scopeLine: 11, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition, unit: !8)
!49 = !DILocation(line: 12, column: 8, scope: !48)
!50 = !DILocation(line: 12, column: 11, scope: !48)
!51 = !DILocation(line: 12, column: 5, scope: !48)
!52 = !DILocation(line: 12, column: 3, scope: !48)
!53 = !DILocation(line: 12, column: 17, scope: !48)
!54 = !DILocation(line: 12, column: 20, scope: !48)
!55 = !DILocation(line: 13, column: 3, scope: !48)
!56 = !DILocation(line: 14, column: 8, scope: !48)
!57 = !DILocation(line: 14, column: 11, scope: !48)
!58 = !DILocation(line: 14, column: 5, scope: !48)
!59 = !DILocation(line: 14, column: 3, scope: !48)
!60 = !DILocation(line: 14, column: 17, scope: !48)
!61 = !DILocation(line: 14, column: 20, scope: !48)
!62 = !DILocation(line: 15, column: 1, scope: !48)
!63 = distinct !DISubprogram(name: "plain_between", scope: !9, file: !9, line: 16, type: !12, scopeLine: 16, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition, unit: !8)
!64 = !DILocation(line: 17, column: 8, scope: !63)
!65 = !DILocation(line: 17, column: 11, scope: !63)
!66 = !DILocation(line: 17, column: 5, scope: !63)
!67 = !DILocation(line: 17, column: 3, scope: !63)
!68 = !DILocation(line: 17, column: 17, scope: !63)
!69 = !DILocation(line: 17, column: 20, scope: !63)
!70 = !DILocation(line: 18, column: 11, scope: !63)
!71 = !DILocation(line: 18, column: 14, scope: !63)
!72 = !DILocation(line: 18, column: 8, scope: !63)
!73 = !DILocation(line: 18, column: 3, scope: !63)
!74 = !DILocation(line: 18, column: 20, scope: !63)
!75 = !DILocation(line: 19, column: 8, scope: !63)
!76 = !DILocation(line: 19, column: 11, scope: !63)
!77 = !DILocation(line: 19, column: 5, scope: !63)
!78 = !DILocation(line: 19, column: 3, scope: !63)
!79 = !DILocation(line: 19, column: 17, scope: !63)
!80 = !DILocation(line: 19, column: 20, scope: !63)
!81 = !DILocation(line: 20, column: 1, scope: !63)
!82 = distinct !DISubprogram(name: "global_store_between", scope: !9, file: !9, line: 22, type: !12, scopeLine: 22, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition, unit: !8)
!83 = !DILocation(line: 23, column: 8, scope: !82)
!84 = !DILocation(line: 23, column: 11, scope: !82)
!85 = !DILocation(line: 23, column: 5, scope: !82)
!86 = !DILocation(line: 23, column: 3, scope: !82)
!87 = !DILocation(line: 23, column: 17, scope: !82)
!88 = !DILocation(line: 23, column: 20, scope: !82)
!89 = !DILocation(line: 24, column: 11, scope: !82)
!90 = !DILocation(line: 24, column: 9, scope: !82)
!91 = !DILocation(line: 25, column: 8, scope: !82)
!92 = !DILocation(line: 25, column: 11, scope: !82)
!93 = !DILocation(line: 25, column: 5, scope: !82)
!94 = !DILocation(line: 25, column: 3, scope: !82)
!95 = !DILocation(line: 25, column: 17, scope: !82)
!96 = !DILocation(line: 25, column: 20, scope: !82)
!97 = !DILocation(line: 26, column: 1, scope: !82)
!98 = distinct !DISubprogram(name: "branch_between", scope: !9, file: !9, line: 27, type: !12, scopeLine: 27, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition, unit: !8)
!99 = !DILocation(line: 28, column: 8, scope: !98)
!100 = !DILocation(line: 28, column: 11, scope: !98)
!101 = !DILocation(line: 28, column: 5, scope: !98)
!102 = !DILocation(line: 28, column: 3, scope: !98)
!103 = !DILocation(line: 28, column: 17, scope: !98)
!104 = !DILocation(line: 28, column: 20, scope: !98)
!105 = !DILocation(line: 29, column: 7, scope: !98)
!106 = !DILocation(line: 29, column: 9, scope: !98)
!107 = !DILocation(line: 29, column: 16, scope: !98)
!108 = !DILocation(line: 29, column: 14, scope: !98)
!109 = !DILocation(line: 30, column: 8, scope: !98)
!110 = !DILocation(line: 30, column: 11, scope: !98)
!111 = !DILocation(line: 30, column: 5, scope: !98)
!112 = !DILocation(line: 30, column: 3, scope: !98)
!113 = !DILocation(line: 30, column: 17, scope: !98)
!114 = !DILocation(line: 30, column: 20, scope: !98)
!115 = !DILocation(line: 31, column: 1, scope: !98)
!116 = distinct !DISubprogram(name: "lone", scope: !9, file: !9, line: 32, type: !12, scopeLine: 32, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition, unit: !8)
!117 = !DILocation(line: 32, column: 35, scope: !116)
!118 = !DILocation(line: 32, column: 38, scope: !116)
!119 = !DILocation(line: 32, column: 32, scope: !116)
!120 = !DILocation(line: 32, column: 30, scope: !116)
!121 = !DILocation(line: 32, column: 44, scope: !116)
!122 = !DILocation(line: 32, column: 47, scope: !116)
!123 = !DILocation(line: 32, column: 51, scope: !116)
