; A run in a loop body, in a function with a destructor in scope: clang emits
; the pushes, the stub calls and the dim3 constructors as invokes
; (Inputs/loop.cu at -O2 -gline-tables-only, before inlining). The pushes and
; stub calls go away with their unwind edges; the dim3 invokes, the landing
; pad and the loop stay. With debug info the site is "file:line:col function"
; of the first launch's `<<<`. Nothing is marked dead: the next iteration
; launches on the same buffers.
;
; RUN: %opt -load-pass-plugin=%kfuse_llvm_plugin -passes=kfuse-host \
; RUN:   -pass-remarks=kfuse -pass-remarks-analysis=kfuse -S %s -o %t.ll 2> %t.remarks
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
; RUN: %opt -passes=verify -disable-output %t.ll

; REMARK: remark: loop.cu:9:5: handed 2 launches (k0, k1) to the runtime
; REMARK-NOT: dead after the run

; CHECK: @kfuse.where = private unnamed_addr constant [25 x i8] c"loop.cu:9:7 _Z3runPfS_ii\00"
; CHECK: @kfuse.site = private global %kfuse.site { ptr @kfuse.where, ptr null, i32 2, i32 0, ptr null, ptr null, ptr null, i32 0, ptr null }

; CHECK-LABEL: define void @_Z3runPfS_ii(
; CHECK: [[HEADER:[0-9]+]]:
; CHECK: br i1 %{{.*}}, label %[[BODY:[0-9]+]], label %{{[0-9]+}}
; CHECK: [[BODY]]:
; CHECK: invoke void @_ZN4dim3C2Ejjj(
; CHECK-NOT: __cudaPushCallConfiguration
; CHECK-NOT: invoke void @_Z{{.*}}__device_stub__
; The loop counter is launch 0's second argument, stored where k0 was launched.
; CHECK: [[I:%.*]] = load i32, ptr %10
; CHECK: store volatile i32 [[I]], ptr %kfuse.arg1
; CHECK: landingpad
; CHECK: invoke void @_ZN4dim3C2Ejjj(
; CHECK: call void @kf_rt_launch_seq(ptr @kfuse.site, ptr %kfuse.launches, i32 2) #[[NOUNWIND:[0-9]+]], !dbg
; CHECK-NOT: __device_stub__
; CHECK: br label %[[HEADER]]
; CHECK: attributes #[[NOUNWIND]] = { nounwind }

source_filename = "loop.cu"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

%struct.dim3 = type { i32, i32, i32 }
%struct.Guard = type { i8 }

$_ZN4dim3C2Ejjj = comdat any

@.str = private unnamed_addr constant [10 x i8] c"kfuse_map\00", section "llvm.metadata"
@.str.1 = private unnamed_addr constant [8 x i8] c"loop.cu\00", section "llvm.metadata"
@llvm.global.annotations = appending global [2 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr @_Z17__device_stub__k0Pfi, ptr @.str, ptr @.str.1, i32 4, ptr null }, { ptr, ptr, ptr, i32, ptr } { ptr @_Z17__device_stub__k1PKfPf, ptr @.str, ptr @.str.1, i32 5, ptr null }], section "llvm.metadata"

define void @_Z17__device_stub__k0Pfi(ptr %0, i32 %1) !dbg !14 {
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
  %11 = alloca ptr, i64 2, align 16, !dbg !20
  %12 = getelementptr ptr, ptr %11, i32 0, !dbg !20
  store ptr %3, ptr %12, align 8, !dbg !20
  %13 = getelementptr ptr, ptr %11, i32 1, !dbg !20
  store ptr %4, ptr %13, align 8, !dbg !20
  %14 = call i32 @__cudaPopCallConfiguration(ptr %5, ptr %6, ptr %7, ptr %8), !dbg !20
  %15 = load i64, ptr %7, align 8, !dbg !20
  %16 = load ptr, ptr %8, align 8, !dbg !20
  call void @llvm.memcpy.p0.p0.i64(ptr align 8 %9, ptr align 8 %5, i64 12, i1 false), !dbg !20
  %17 = getelementptr inbounds nuw { i64, i32 }, ptr %9, i32 0, i32 0, !dbg !20
  %18 = load i64, ptr %17, align 8, !dbg !20
  %19 = getelementptr inbounds nuw { i64, i32 }, ptr %9, i32 0, i32 1, !dbg !20
  %20 = load i32, ptr %19, align 8, !dbg !20
  call void @llvm.memcpy.p0.p0.i64(ptr align 8 %10, ptr align 8 %6, i64 12, i1 false), !dbg !20
  %21 = getelementptr inbounds nuw { i64, i32 }, ptr %10, i32 0, i32 0, !dbg !20
  %22 = load i64, ptr %21, align 8, !dbg !20
  %23 = getelementptr inbounds nuw { i64, i32 }, ptr %10, i32 0, i32 1, !dbg !20
  %24 = load i32, ptr %23, align 8, !dbg !20
  %25 = call i32 @cudaLaunchKernel(ptr @_Z17__device_stub__k0Pfi, i64 %18, i32 %20, i64 %22, i32 %24, ptr %11, i64 %15, ptr %16), !dbg !20
  br label %26, !dbg !20

26:                                               ; preds = %2
  ret void, !dbg !21
}

declare i32 @__cudaPopCallConfiguration(ptr, ptr, ptr, ptr)

declare i32 @cudaLaunchKernel(ptr, i64, i32, i64, i32, ptr, i64, ptr)

declare void @llvm.memcpy.p0.p0.i64(ptr noalias writeonly captures(none), ptr noalias readonly captures(none), i64, i1 immarg)

define void @_Z17__device_stub__k1PKfPf(ptr %0, ptr %1) !dbg !22 {
  %3 = alloca ptr, align 8
  %4 = alloca ptr, align 8
  %5 = alloca %struct.dim3, align 8
  %6 = alloca %struct.dim3, align 8
  %7 = alloca i64, align 8
  %8 = alloca ptr, align 8
  %9 = alloca { i64, i32 }, align 8
  %10 = alloca { i64, i32 }, align 8
  store ptr %0, ptr %3, align 8
  store ptr %1, ptr %4, align 8
  %11 = alloca ptr, i64 2, align 16, !dbg !23
  %12 = getelementptr ptr, ptr %11, i32 0, !dbg !23
  store ptr %3, ptr %12, align 8, !dbg !23
  %13 = getelementptr ptr, ptr %11, i32 1, !dbg !23
  store ptr %4, ptr %13, align 8, !dbg !23
  %14 = call i32 @__cudaPopCallConfiguration(ptr %5, ptr %6, ptr %7, ptr %8), !dbg !23
  %15 = load i64, ptr %7, align 8, !dbg !23
  %16 = load ptr, ptr %8, align 8, !dbg !23
  call void @llvm.memcpy.p0.p0.i64(ptr align 8 %9, ptr align 8 %5, i64 12, i1 false), !dbg !23
  %17 = getelementptr inbounds nuw { i64, i32 }, ptr %9, i32 0, i32 0, !dbg !23
  %18 = load i64, ptr %17, align 8, !dbg !23
  %19 = getelementptr inbounds nuw { i64, i32 }, ptr %9, i32 0, i32 1, !dbg !23
  %20 = load i32, ptr %19, align 8, !dbg !23
  call void @llvm.memcpy.p0.p0.i64(ptr align 8 %10, ptr align 8 %6, i64 12, i1 false), !dbg !23
  %21 = getelementptr inbounds nuw { i64, i32 }, ptr %10, i32 0, i32 0, !dbg !23
  %22 = load i64, ptr %21, align 8, !dbg !23
  %23 = getelementptr inbounds nuw { i64, i32 }, ptr %10, i32 0, i32 1, !dbg !23
  %24 = load i32, ptr %23, align 8, !dbg !23
  %25 = call i32 @cudaLaunchKernel(ptr @_Z17__device_stub__k1PKfPf, i64 %18, i32 %20, i64 %22, i32 %24, ptr %11, i64 %15, ptr %16), !dbg !23
  br label %26, !dbg !23

26:                                               ; preds = %2
  ret void, !dbg !24
}

define void @_Z3runPfS_ii(ptr %0, ptr %1, i32 %2, i32 %3) personality ptr @__gxx_personality_v0 !dbg !25 {
  %5 = alloca ptr, align 8
  %6 = alloca ptr, align 8
  %7 = alloca i32, align 4
  %8 = alloca i32, align 4
  %9 = alloca %struct.Guard, align 1
  %10 = alloca i32, align 4
  %11 = alloca %struct.dim3, align 4
  %12 = alloca ptr, align 8
  %13 = alloca i32, align 4
  %14 = alloca %struct.dim3, align 4
  %15 = alloca { i64, i32 }, align 4
  %16 = alloca { i64, i32 }, align 4
  %17 = alloca %struct.dim3, align 4
  %18 = alloca %struct.dim3, align 4
  %19 = alloca { i64, i32 }, align 4
  %20 = alloca { i64, i32 }, align 4
  store ptr %0, ptr %5, align 8
  store ptr %1, ptr %6, align 8
  store i32 %2, ptr %7, align 4
  store i32 %3, ptr %8, align 4
  call void @llvm.lifetime.start.p0(ptr %9), !dbg !26
  call void @llvm.lifetime.start.p0(ptr %10), !dbg !27
  store i32 0, ptr %10, align 4, !dbg !28
  br label %21, !dbg !27

21:                                               ; preds = %71, %4
  %22 = load i32, ptr %10, align 4, !dbg !29
  %23 = load i32, ptr %8, align 4, !dbg !30
  %24 = icmp slt i32 %22, %23, !dbg !31
  br i1 %24, label %26, label %25, !dbg !32

25:                                               ; preds = %21
  call void @llvm.lifetime.end.p0(ptr %10), !dbg !32
  br label %74

26:                                               ; preds = %21
  %27 = load i32, ptr %7, align 4, !dbg !33
  %28 = sdiv i32 %27, 32, !dbg !34
  invoke void @_ZN4dim3C2Ejjj(ptr align 4 %11, i32 %28, i32 1, i32 1)
          to label %29 unwind label %46, !dbg !33

29:                                               ; preds = %26
  invoke void @_ZN4dim3C2Ejjj(ptr align 4 %14, i32 32, i32 1, i32 1)
          to label %30 unwind label %46, !dbg !35

30:                                               ; preds = %29
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %15, ptr align 4 %11, i64 12, i1 false), !dbg !36
  %31 = getelementptr inbounds nuw { i64, i32 }, ptr %15, i32 0, i32 0, !dbg !36
  %32 = load i64, ptr %31, align 4, !dbg !36
  %33 = getelementptr inbounds nuw { i64, i32 }, ptr %15, i32 0, i32 1, !dbg !36
  %34 = load i32, ptr %33, align 4, !dbg !36
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %16, ptr align 4 %14, i64 12, i1 false), !dbg !36
  %35 = getelementptr inbounds nuw { i64, i32 }, ptr %16, i32 0, i32 0, !dbg !36
  %36 = load i64, ptr %35, align 4, !dbg !36
  %37 = getelementptr inbounds nuw { i64, i32 }, ptr %16, i32 0, i32 1, !dbg !36
  %38 = load i32, ptr %37, align 4, !dbg !36
  %39 = invoke i32 @__cudaPushCallConfiguration(i64 %32, i32 %34, i64 %36, i32 %38, i64 0, ptr null)
          to label %40 unwind label %46, !dbg !36

40:                                               ; preds = %30
  %41 = icmp ne i32 %39, 0, !dbg !36
  br i1 %41, label %50, label %42, !dbg !37

42:                                               ; preds = %40
  %43 = load ptr, ptr %5, align 8, !dbg !38
  %44 = load i32, ptr %10, align 4, !dbg !39
  invoke void @_Z17__device_stub__k0Pfi(ptr %43, i32 %44)
          to label %45 unwind label %46, !dbg !37

45:                                               ; preds = %42
  br label %50, !dbg !37

46:                                               ; preds = %66, %54, %53, %50, %42, %30, %29, %26
  %47 = landingpad { ptr, i32 }
          cleanup, !dbg !40
  %48 = extractvalue { ptr, i32 } %47, 0, !dbg !40
  store ptr %48, ptr %12, align 8, !dbg !40
  %49 = extractvalue { ptr, i32 } %47, 1, !dbg !40
  store i32 %49, ptr %13, align 4, !dbg !40
  call void @llvm.lifetime.end.p0(ptr %10), !dbg !32
  call void @_ZN5GuardD1Ev(ptr align 1 dereferenceable(1) %9), !dbg !40
  call void @llvm.lifetime.end.p0(ptr %9), !dbg !40
  br label %75, !dbg !40

50:                                               ; preds = %45, %40
  %51 = load i32, ptr %7, align 4, !dbg !41
  %52 = sdiv i32 %51, 32, !dbg !42
  invoke void @_ZN4dim3C2Ejjj(ptr align 4 %17, i32 %52, i32 1, i32 1)
          to label %53 unwind label %46, !dbg !41

53:                                               ; preds = %50
  invoke void @_ZN4dim3C2Ejjj(ptr align 4 %18, i32 32, i32 1, i32 1)
          to label %54 unwind label %46, !dbg !43

54:                                               ; preds = %53
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %19, ptr align 4 %17, i64 12, i1 false), !dbg !44
  %55 = getelementptr inbounds nuw { i64, i32 }, ptr %19, i32 0, i32 0, !dbg !44
  %56 = load i64, ptr %55, align 4, !dbg !44
  %57 = getelementptr inbounds nuw { i64, i32 }, ptr %19, i32 0, i32 1, !dbg !44
  %58 = load i32, ptr %57, align 4, !dbg !44
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %20, ptr align 4 %18, i64 12, i1 false), !dbg !44
  %59 = getelementptr inbounds nuw { i64, i32 }, ptr %20, i32 0, i32 0, !dbg !44
  %60 = load i64, ptr %59, align 4, !dbg !44
  %61 = getelementptr inbounds nuw { i64, i32 }, ptr %20, i32 0, i32 1, !dbg !44
  %62 = load i32, ptr %61, align 4, !dbg !44
  %63 = invoke i32 @__cudaPushCallConfiguration(i64 %56, i32 %58, i64 %60, i32 %62, i64 0, ptr null)
          to label %64 unwind label %46, !dbg !44

64:                                               ; preds = %54
  %65 = icmp ne i32 %63, 0, !dbg !44
  br i1 %65, label %70, label %66, !dbg !45

66:                                               ; preds = %64
  %67 = load ptr, ptr %5, align 8, !dbg !46
  %68 = load ptr, ptr %6, align 8, !dbg !47
  invoke void @_Z17__device_stub__k1PKfPf(ptr %67, ptr %68)
          to label %69 unwind label %46, !dbg !45

69:                                               ; preds = %66
  br label %70, !dbg !45

70:                                               ; preds = %69, %64
  br label %71, !dbg !48

71:                                               ; preds = %70
  %72 = load i32, ptr %10, align 4, !dbg !49
  %73 = add nsw i32 %72, 1, !dbg !49
  store i32 %73, ptr %10, align 4, !dbg !49
  br label %21, !dbg !32

74:                                               ; preds = %25
  call void @_ZN5GuardD1Ev(ptr align 1 dereferenceable(1) %9), !dbg !40
  call void @llvm.lifetime.end.p0(ptr %9), !dbg !40
  ret void, !dbg !40

75:                                               ; preds = %46
  %76 = load ptr, ptr %12, align 8, !dbg !40
  %77 = load i32, ptr %13, align 4, !dbg !40
  %78 = insertvalue { ptr, i32 } poison, ptr %76, 0, !dbg !40
  %79 = insertvalue { ptr, i32 } %78, i32 %77, 1, !dbg !40
  resume { ptr, i32 } %79, !dbg !40
}

declare void @llvm.lifetime.start.p0(ptr captures(none))

declare !dbg !52 i32 @__cudaPushCallConfiguration(i64, i32, i64, i32, i64, ptr)

define linkonce_odr void @_ZN4dim3C2Ejjj(ptr align 4 %0, i32 %1, i32 %2, i32 %3) unnamed_addr comdat align 2 !dbg !54 {
  %5 = alloca ptr, align 8
  %6 = alloca i32, align 4
  %7 = alloca i32, align 4
  %8 = alloca i32, align 4
  store ptr %0, ptr %5, align 8
  store i32 %1, ptr %6, align 4
  store i32 %2, ptr %7, align 4
  store i32 %3, ptr %8, align 4
  %9 = load ptr, ptr %5, align 8
  %10 = getelementptr inbounds nuw %struct.dim3, ptr %9, i32 0, i32 0, !dbg !58
  %11 = load i32, ptr %6, align 4, !dbg !59
  store i32 %11, ptr %10, align 4, !dbg !58
  %12 = getelementptr inbounds nuw %struct.dim3, ptr %9, i32 0, i32 1, !dbg !62
  %13 = load i32, ptr %7, align 4, !dbg !63
  store i32 %13, ptr %12, align 4, !dbg !62
  %14 = getelementptr inbounds nuw %struct.dim3, ptr %9, i32 0, i32 2, !dbg !65
  %15 = load i32, ptr %8, align 4, !dbg !66
  store i32 %15, ptr %14, align 4, !dbg !65
  ret void, !dbg !68
}

declare i32 @__gxx_personality_v0(...)

declare void @llvm.lifetime.end.p0(ptr captures(none))

declare !dbg !69 void @_ZN5GuardD1Ev(ptr align 1 dereferenceable(1)) unnamed_addr

!llvm.module.flags = !{!0, !1, !2, !3, !4, !5, !6}
!llvm.dbg.cu = !{!7}
!llvm.ident = !{!9}
!llvm.errno.tbaa = !{!10}

!0 = !{i32 2, !"SDK Version", [2 x i32] [i32 12, i32 9]}
!1 = !{i32 7, !"Dwarf Version", i32 5}
!2 = !{i32 2, !"Debug Info Version", i32 3}
!3 = !{i32 1, !"wchar_size", i32 4}
!4 = !{i32 8, !"PIC Level", i32 2}
!5 = !{i32 7, !"PIE Level", i32 2}
!6 = !{i32 7, !"uwtable", i32 2}
!7 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus_14, file: !8, producer: "Debian clang version 22.1.8 (1~deb12u1)", isOptimized: true, runtimeVersion: 0, emissionKind: LineTablesOnly, splitDebugInlining: false, nameTableKind: None)
!8 = !DIFile(filename: "loop.cu", directory: "/tmp/h/t", checksumkind: CSK_MD5, checksum: "eb8c3f6d2ded4f349ac88fd7e307f4e2")
!9 = !{!"Debian clang version 22.1.8 (1~deb12u1)"}
!10 = !{!11, !11, i64 0}
!11 = !{!"int", !12, i64 0}
!12 = !{!"omnipotent char", !13, i64 0}
!13 = !{!"Simple C++ TBAA"}
!14 = distinct !DISubprogram(name: "k0", scope: !8, file: !8, line: 4, type: !15, scopeLine: 4, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !7)
!15 = !DISubroutineType(types: !16)
!16 = !{}
!17 = !{!18, !18, i64 0}
!18 = !{!"p1 float", !19, i64 0}
!19 = !{!"any pointer", !12, i64 0}
!20 = !DILocation(line: 4, column: 29, scope: !14)
!21 = !DILocation(line: 4, column: 51, scope: !14)
!22 = distinct !DISubprogram(name: "k1", scope: !8, file: !8, line: 5, type: !15, scopeLine: 5, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !7)
!23 = !DILocation(line: 5, column: 38, scope: !22)
!24 = !DILocation(line: 5, column: 73, scope: !22)
!25 = distinct !DISubprogram(name: "run", scope: !8, file: !8, line: 6, type: !15, scopeLine: 6, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !7)
!26 = !DILocation(line: 7, column: 3, scope: !25)
!27 = !DILocation(line: 8, column: 8, scope: !25)
!28 = !DILocation(line: 8, column: 12, scope: !25)
!29 = !DILocation(line: 8, column: 19, scope: !25)
!30 = !DILocation(line: 8, column: 23, scope: !25)
!31 = !DILocation(line: 8, column: 21, scope: !25)
!32 = !DILocation(line: 8, column: 3, scope: !25)
!33 = !DILocation(line: 9, column: 10, scope: !25)
!34 = !DILocation(line: 9, column: 12, scope: !25)
!35 = !DILocation(line: 9, column: 18, scope: !25)
!36 = !DILocation(line: 9, column: 7, scope: !25)
!37 = !DILocation(line: 9, column: 5, scope: !25)
!38 = !DILocation(line: 9, column: 24, scope: !25)
!39 = !DILocation(line: 9, column: 27, scope: !25)
!40 = !DILocation(line: 12, column: 1, scope: !25)
!41 = !DILocation(line: 10, column: 10, scope: !25)
!42 = !DILocation(line: 10, column: 12, scope: !25)
!43 = !DILocation(line: 10, column: 18, scope: !25)
!44 = !DILocation(line: 10, column: 7, scope: !25)
!45 = !DILocation(line: 10, column: 5, scope: !25)
!46 = !DILocation(line: 10, column: 24, scope: !25)
!47 = !DILocation(line: 10, column: 27, scope: !25)
!48 = !DILocation(line: 11, column: 3, scope: !25)
!49 = !DILocation(line: 8, column: 30, scope: !25)
!50 = distinct !{!50, !32, !48, !51}
!51 = !{!"llvm.loop.mustprogress"}
!52 = !DISubprogram(name: "__cudaPushCallConfiguration", scope: !53, file: !53, line: 516, type: !15, flags: DIFlagPrototyped, spFlags: DISPFlagOptimized)
!53 = !DIFile(filename: "/usr/lib/llvm-22/lib/clang/22/include/__clang_cuda_runtime_wrapper.h", directory: "", checksumkind: CSK_MD5, checksum: "37772deb2ec63d05d760276cc5613321")
!54 = distinct !DISubprogram(name: "dim3", scope: !55, file: !55, line: 584, type: !15, scopeLine: 584, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !7)
!55 = !DIFile(filename: "/usr/local/cuda/include/vector_types.h", directory: "", checksumkind: CSK_MD5, checksum: "627c0c65021f1a2b77151e4d5d073b22")
!56 = !{!57, !57, i64 0}
!57 = !{!"p1 _ZTS4dim3", !19, i64 0}
!58 = !DILocation(line: 584, column: 105, scope: !54)
!59 = !DILocation(line: 584, column: 107, scope: !54)
!60 = !{!61, !11, i64 0}
!61 = !{!"_ZTS4dim3", !11, i64 0, !11, i64 4, !11, i64 8}
!62 = !DILocation(line: 584, column: 112, scope: !54)
!63 = !DILocation(line: 584, column: 114, scope: !54)
!64 = !{!61, !11, i64 4}
!65 = !DILocation(line: 584, column: 119, scope: !54)
!66 = !DILocation(line: 584, column: 121, scope: !54)
!67 = !{!61, !11, i64 8}
!68 = !DILocation(line: 584, column: 126, scope: !54)
!69 = !DISubprogram(name: "~Guard", scope: !8, file: !8, line: 3, type: !15, flags: DIFlagPrototyped, spFlags: DISPFlagOptimized)
