; Grid-stride loops with an int variable against a 64-bit n (`for (int i =
; ...; i < n; ...)`, size_t n): each latch tests sext(i + step) < n. The
; first kernel, as clang -O2 leaves it, also keeps a 64-bit twin of i for
; its indices; the second, written here without one, indexes with sext(i).
; The loops still jam into one, its variable and its twin carried on from
; the second loop's latch, and t moves in a register. The fused kernel is
; valid IR (opt verifies it) and one loop in each copy of the body.
; RUN: %opt -load-pass-plugin=%kfuse_llvm_plugin -passes=kfuse-device -S -pass-remarks=kfuse -pass-remarks-missed=kfuse %s 2>%t.remarks | FileCheck %s
; RUN: FileCheck %s --check-prefix=REMARK < %t.remarks

; REMARK: remark: {{.*}}fused launches 0..1 (twin, plain) of sequence 0 into __kfuse_fused_{{[0-9a-f]+}}_0_0_1: t in registers

; CHECK-LABEL: define ptx_kernel void @__kfuse_fused_{{[0-9a-f]+}}_0_0_1(
; CHECK: phi i64
; CHECK: phi i32
; CHECK: load float
; CHECK-NOT: load float
; CHECK: br i1 %{{[0-9a-z.]+}}, label %{{[0-9a-z.]+}}, label %{{[0-9a-z.]+}}{{.*}}, !llvm.loop
; CHECK: br i1 %{{[0-9a-z.]+}}, label %{{[0-9a-z.]+}}, label %{{[0-9a-z.]+}}{{.*}}, !llvm.loop
; CHECK-NOT: !llvm.loop
; CHECK: {{^}$}}

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@.str = private unnamed_addr constant [10 x i8] c"kfuse_map\00", section "llvm.metadata"
@.str.file = private unnamed_addr constant [5 x i8] c"t.cu\00", section "llvm.metadata"
@__kfuse_seq_0 = internal addrspace(1) global i8 0, align 1
@.kfseq.0 = private unnamed_addr constant [288 x i8] c"kfuse.seq 1\0Asite app.cu:12:3 _Z3runv\0Alaunch 0 _Z4twinPKfPfm grid=0 block=1 shmem=2 stream=3 args=4,5,7\0Alaunch 1 _Z5plainPKfPfm grid=0 block=1 shmem=2 stream=3 args=5,9,7\0Avalue 0 other g\0Avalue 1 other b\0Avalue 2 int 0\0Avalue 3 other s\0Avalue 4 ptr x\0Avalue 5 ptr t\0Avalue 7 int n\0Avalue 9 ptr o\00", section "llvm.metadata"
@llvm.global.annotations = appending global [3 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr @_Z4twinPKfPfm, ptr @.str, ptr @.str.file, i32 1, ptr null }, { ptr, ptr, ptr, i32, ptr } { ptr @_Z5plainPKfPfm, ptr @.str, ptr @.str.file, i32 1, ptr null }, { ptr, ptr, ptr, i32, ptr } { ptr addrspacecast (ptr addrspace(1) @__kfuse_seq_0 to ptr), ptr @.kfseq.0, ptr @.str.file, i32 9, ptr null }], section "llvm.metadata"

define dso_local ptx_kernel void @_Z4twinPKfPfm(ptr noundef readonly captures(none) %0, ptr noundef writeonly captures(none) %1, i64 noundef %2) #0 {
  %4 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %5 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %6 = mul i32 %4, %5
  %7 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %8 = add i32 %6, %7
  %9 = sext i32 %8 to i64
  %10 = icmp ugt i64 %2, %9
  br i1 %10, label %11, label %14

11:
  %12 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %13 = mul i32 %5, %12
  br label %15

14:
  ret void

15:
  %16 = phi i64 [ %9, %11 ], [ %23, %15 ]
  %17 = phi i32 [ %8, %11 ], [ %22, %15 ]
  %18 = getelementptr inbounds float, ptr %0, i64 %16
  %19 = load float, ptr %18, align 4
  %20 = fmul contract float %19, 2.000000e+00
  %21 = getelementptr inbounds float, ptr %1, i64 %16
  store float %20, ptr %21, align 4
  %22 = add i32 %17, %13
  %23 = sext i32 %22 to i64
  %24 = icmp ugt i64 %2, %23
  br i1 %24, label %15, label %14, !llvm.loop !0
}

define dso_local ptx_kernel void @_Z5plainPKfPfm(ptr noundef readonly captures(none) %0, ptr noundef writeonly captures(none) %1, i64 noundef %2) #0 {
  %4 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %5 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %6 = mul i32 %4, %5
  %7 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %8 = add i32 %6, %7
  %9 = sext i32 %8 to i64
  %10 = icmp ugt i64 %2, %9
  br i1 %10, label %11, label %14

11:
  %12 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %13 = mul i32 %5, %12
  br label %15

14:
  ret void

15:
  %i = phi i32 [ %8, %11 ], [ %22, %15 ]
  %16 = sext i32 %i to i64
  %17 = getelementptr inbounds float, ptr %0, i64 %16
  %18 = getelementptr inbounds float, ptr %0, i64 %16
  %19 = load float, ptr %18, align 4
  %20 = fadd contract float %19, 1.000000e+00
  %21 = getelementptr inbounds float, ptr %1, i64 %16
  store float %20, ptr %21, align 4
  %22 = add i32 %i, %13
  %23 = sext i32 %22 to i64
  %24 = icmp ugt i64 %2, %23
  br i1 %24, label %15, label %14, !llvm.loop !0
}

declare noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare noundef i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()

attributes #0 = { mustprogress nofree noinline norecurse nosync nounwind memory(argmem: readwrite) "target-cpu"="sm_90" "target-features"="+ptx88,+sm_90" "uniform-work-group-size"="true" }

!0 = distinct !{!0, !1}
!1 = !{!"llvm.loop.mustprogress"}
