; The map kernels every device test links against (clang -O2 output of
; kernels.cu, sm_90), each marked kfuse_map in llvm.global.annotations.
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@.str = private unnamed_addr constant [10 x i8] c"kfuse_map\00", section "llvm.metadata"
@.str.file = private unnamed_addr constant [5 x i8] c"t.cu\00", section "llvm.metadata"
@llvm.global.annotations = appending global [9 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr @_Z5scalePKfPffi, ptr @.str, ptr @.str.file, i32 1, ptr null }, { ptr, ptr, ptr, i32, ptr } { ptr @_Z4axpyPKfS0_Pfi, ptr @.str, ptr @.str.file, i32 1, ptr null }, { ptr, ptr, ptr, i32, ptr } { ptr @_Z6addonePKfPfi, ptr @.str, ptr @.str.file, i32 1, ptr null }, { ptr, ptr, ptr, i32, ptr } { ptr @_Z3revPKfPfi, ptr @.str, ptr @.str.file, i32 1, ptr null }, { ptr, ptr, ptr, i32, ptr } { ptr @_Z5shiftPKfPfi, ptr @.str, ptr @.str.file, i32 1, ptr null }, { ptr, ptr, ptr, i32, ptr } { ptr @_Z5accumPKfPfi, ptr @.str, ptr @.str.file, i32 1, ptr null }, { ptr, ptr, ptr, i32, ptr } { ptr @_Z6gatherPKiPKfPfi, ptr @.str, ptr @.str.file, i32 1, ptr null }, { ptr, ptr, ptr, i32, ptr } { ptr @_Z6mirrorPKfPfi, ptr @.str, ptr @.str.file, i32 1, ptr null }, { ptr, ptr, ptr, i32, ptr } { ptr @_Z5callkPKfPfi, ptr @.str, ptr @.str.file, i32 1, ptr null }], section "llvm.metadata"



define dso_local ptx_kernel void @_Z5scalePKfPffi(ptr noundef readonly captures(none) %0, ptr noundef writeonly captures(none) %1, float noundef %2, i32 noundef %3) #0 {
  %5 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %6 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %7 = mul i32 %5, %6
  %8 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %9 = add i32 %7, %8
  %10 = icmp slt i32 %9, %3
  br i1 %10, label %11, label %17

11:                                               ; preds = %4
  %12 = sext i32 %9 to i64
  %13 = getelementptr inbounds float, ptr %1, i64 %12
  %14 = getelementptr inbounds float, ptr %0, i64 %12
  %15 = load float, ptr %14, align 4, !tbaa !8
  %16 = fmul contract float %2, %15
  store float %16, ptr %13, align 4, !tbaa !8
  br label %17

17:                                               ; preds = %11, %4
  ret void
}


define dso_local ptx_kernel void @_Z4axpyPKfS0_Pfi(ptr noundef readonly captures(none) %0, ptr noundef readonly captures(none) %1, ptr noundef writeonly captures(none) %2, i32 noundef %3) #0 {
  %5 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %6 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %7 = mul i32 %5, %6
  %8 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %9 = add i32 %7, %8
  %10 = icmp slt i32 %9, %3
  br i1 %10, label %11, label %19

11:                                               ; preds = %4
  %12 = sext i32 %9 to i64
  %13 = getelementptr inbounds float, ptr %2, i64 %12
  %14 = getelementptr inbounds float, ptr %1, i64 %12
  %15 = getelementptr inbounds float, ptr %0, i64 %12
  %16 = load float, ptr %15, align 4, !tbaa !8
  %17 = load float, ptr %14, align 4, !tbaa !8
  %18 = fadd contract float %16, %17
  store float %18, ptr %13, align 4, !tbaa !8
  br label %19

19:                                               ; preds = %11, %4
  ret void
}


define dso_local ptx_kernel void @_Z6addonePKfPfi(ptr noundef readonly captures(none) %0, ptr noundef writeonly captures(none) %1, i32 noundef %2) #0 {
  %4 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %5 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %6 = mul i32 %4, %5
  %7 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %8 = add i32 %6, %7
  %9 = icmp slt i32 %8, %2
  br i1 %9, label %10, label %16

10:                                               ; preds = %3
  %11 = sext i32 %8 to i64
  %12 = getelementptr inbounds float, ptr %1, i64 %11
  %13 = getelementptr inbounds float, ptr %0, i64 %11
  %14 = load float, ptr %13, align 4, !tbaa !8
  %15 = fadd contract float %14, 1.000000e+00
  store float %15, ptr %12, align 4, !tbaa !8
  br label %16

16:                                               ; preds = %10, %3
  ret void
}


define dso_local ptx_kernel void @_Z3revPKfPfi(ptr noundef readonly captures(none) %0, ptr noundef writeonly captures(none) %1, i32 noundef %2) #0 {
  %4 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %5 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %6 = mul i32 %4, %5
  %7 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %8 = add i32 %6, %7
  %9 = xor i32 %7, -1
  %10 = add nsw i32 %5, %9
  %11 = add i32 %10, %6
  %12 = icmp slt i32 %8, %2
  %13 = icmp slt i32 %11, %2
  %14 = and i1 %12, %13
  br i1 %14, label %15, label %21

15:                                               ; preds = %3
  %16 = sext i32 %8 to i64
  %17 = getelementptr inbounds float, ptr %1, i64 %16
  %18 = sext i32 %11 to i64
  %19 = getelementptr inbounds float, ptr %0, i64 %18
  %20 = load float, ptr %19, align 4, !tbaa !8
  store float %20, ptr %17, align 4, !tbaa !8
  br label %21

21:                                               ; preds = %15, %3
  ret void
}


define dso_local ptx_kernel void @_Z5shiftPKfPfi(ptr noundef readonly captures(none) %0, ptr noundef writeonly captures(none) %1, i32 noundef %2) #0 {
  %4 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %5 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %6 = mul i32 %4, %5
  %7 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %8 = add i32 %6, %7
  %9 = add nsw i32 %8, 1
  %10 = icmp slt i32 %9, %2
  br i1 %10, label %11, label %17

11:                                               ; preds = %3
  %12 = sext i32 %8 to i64
  %13 = getelementptr inbounds float, ptr %1, i64 %12
  %14 = sext i32 %9 to i64
  %15 = getelementptr inbounds float, ptr %0, i64 %14
  %16 = load float, ptr %15, align 4, !tbaa !8
  store float %16, ptr %13, align 4, !tbaa !8
  br label %17

17:                                               ; preds = %11, %3
  ret void
}


define dso_local ptx_kernel void @_Z5accumPKfPfi(ptr noundef readonly captures(none) %0, ptr noundef captures(none) %1, i32 noundef %2) #1 {
  %4 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %5 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %6 = mul i32 %4, %5
  %7 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %8 = add i32 %6, %7
  %9 = icmp slt i32 %8, %2
  br i1 %9, label %10, label %15

10:                                               ; preds = %3
  %11 = sext i32 %8 to i64
  %12 = getelementptr inbounds float, ptr %0, i64 %11
  %13 = load float, ptr %12, align 4, !tbaa !8
  %14 = atomicrmw fadd ptr %1, float %13 seq_cst, align 4
  br label %15

15:                                               ; preds = %10, %3
  ret void
}


define dso_local ptx_kernel void @_Z6gatherPKiPKfPfi(ptr noundef readonly captures(none) %0, ptr noundef readonly captures(none) %1, ptr noundef writeonly captures(none) %2, i32 noundef %3) #0 {
  %5 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %6 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %7 = mul i32 %5, %6
  %8 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %9 = add i32 %7, %8
  %10 = icmp slt i32 %9, %3
  br i1 %10, label %11, label %19

11:                                               ; preds = %4
  %12 = sext i32 %9 to i64
  %13 = getelementptr inbounds i32, ptr %0, i64 %12
  %14 = load i32, ptr %13, align 4, !tbaa !4
  %15 = sext i32 %14 to i64
  %16 = getelementptr inbounds float, ptr %1, i64 %15
  %17 = load float, ptr %16, align 4, !tbaa !8
  %18 = getelementptr inbounds float, ptr %2, i64 %12
  store float %17, ptr %18, align 4, !tbaa !8
  br label %19

19:                                               ; preds = %11, %4
  ret void
}


define dso_local ptx_kernel void @_Z6mirrorPKfPfi(ptr noundef readonly captures(none) %0, ptr noundef writeonly captures(none) %1, i32 noundef %2) #0 {
  %4 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %5 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %6 = mul i32 %4, %5
  %7 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %8 = add i32 %6, %7
  %9 = icmp slt i32 %8, %2
  br i1 %9, label %10, label %18

10:                                               ; preds = %3
  %11 = xor i32 %8, -1
  %12 = add i32 %2, %11
  %13 = sext i32 %12 to i64
  %14 = getelementptr inbounds float, ptr %1, i64 %13
  %15 = sext i32 %8 to i64
  %16 = getelementptr inbounds float, ptr %0, i64 %15
  %17 = load float, ptr %16, align 4, !tbaa !8
  store float %17, ptr %14, align 4, !tbaa !8
  br label %18

18:                                               ; preds = %10, %3
  ret void
}


define dso_local noundef float @_Z6helperf(float noundef %0) local_unnamed_addr #2 {
  %2 = fmul contract float %0, %0
  %3 = fadd contract float %2, 1.000000e+00
  ret float %3
}


define dso_local ptx_kernel void @_Z5callkPKfPfi(ptr noundef readonly captures(none) %0, ptr noundef writeonly captures(none) %1, i32 noundef %2) #0 {
  %4 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %5 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %6 = mul i32 %4, %5
  %7 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %8 = add i32 %6, %7
  %9 = icmp slt i32 %8, %2
  br i1 %9, label %10, label %16

10:                                               ; preds = %3
  %11 = sext i32 %8 to i64
  %12 = getelementptr inbounds float, ptr %1, i64 %11
  %13 = getelementptr inbounds float, ptr %0, i64 %11
  %14 = load float, ptr %13, align 4, !tbaa !8
  %15 = tail call contract noundef float @_Z6helperf(float noundef %14) #4
  store float %15, ptr %12, align 4, !tbaa !8
  br label %16

16:                                               ; preds = %10, %3
  ret void
}


declare noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #3


declare noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x() #3


declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x() #3

attributes #0 = { mustprogress nofree noinline norecurse nosync nounwind willreturn memory(argmem: readwrite) "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx88,+sm_90" "uniform-work-group-size"="true" }
attributes #1 = { mustprogress nofree noinline norecurse nounwind willreturn memory(argmem: readwrite) "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx88,+sm_90" "uniform-work-group-size"="true" }
attributes #2 = { mustprogress nofree noinline norecurse nosync nounwind willreturn memory(none) "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx88,+sm_90" }
attributes #3 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #4 = { nounwind }

!llvm.module.flags = !{!0, !1, !2}
!llvm.errno.tbaa = !{!4}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 4, !"nvvm-reflect-ftz", i32 0}
!2 = !{i32 7, !"frame-pointer", i32 2}
!4 = !{!5, !5, i64 0}
!5 = !{!"int", !6, i64 0}
!6 = !{!"omnipotent char", !7, i64 0}
!7 = !{!"Simple C++ TBAA"}
!8 = !{!9, !9, i64 0}
!9 = !{!"float", !6, i64 0}
