; scatter writes o[idx[i]]: a store at an unknown index is never fused (its
; footprint and its thread are both unknown), unlike a load at one.
; RUN: llvm-link %S/Inputs/kernels.ll %s -S \
; RUN:   | %opt -load-pass-plugin=%kfuse_llvm_plugin -passes=kfuse-device -S -pass-remarks=kfuse -pass-remarks-missed=kfuse -pass-remarks-analysis=kfuse 2>%t.remarks | FileCheck %s --check-prefix=IR
; RUN: FileCheck %s < %t.remarks
; IR-NOT: __kfuse_fused
; The manifest has no group, only why, for the host pass's remark.
; IR: @__kfuse_manifest_{{[0-9a-f]+}} = {{.*}} c"kfuse-manifest 1\0Amissed _Z3runv 30 2 0 1 kernel 'scatter' cannot be fused: has a non-affine or unknown index (store through parameter 3); write the index as a polynomial in the thread and block indices and extents and integer parameters (t[y * pitch + x]); a row and column taken by / and % must be put back together with the same divisor\0A\00"
; IR-NOT: __kfuse_fused
; CHECK: remark: {{.*}}kernel 'scatter(int const*, float const*, float*, int)' cannot be fused: has a non-affine or unknown index (store through parameter 3)
; CHECK: not fused: kernel 'scatter' cannot be fused

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@__kfuse_seq_0 = internal addrspace(1) global i8 0, align 1
@.kfseq.0 = private unnamed_addr constant [351 x i8] c"kfuse.seq 1\0Asite app.cu:30:3 _Z3runv\0Alaunch 0 _Z5scalePKfPffi grid=0 block=1 shmem=2 stream=3 args=4,5,6,7\0Alaunch 1 _Z7scatterPKiPKfPfi grid=0 block=1 shmem=2 stream=3 args=12,5,9,7\0Avalue 0 other g\0Avalue 1 other b\0Avalue 2 int 0\0Avalue 3 other s\0Avalue 4 ptr x\0Avalue 5 ptr t\0Avalue 6 float 2.0f\0Avalue 7 int n\0Avalue 8 ptr y\0Avalue 9 ptr o\0Avalue 12 ptr idx\0A\00", section "llvm.metadata"
@.kffile = private unnamed_addr constant [5 x i8] c"t.cu\00", section "llvm.metadata"
@.kfmap = private unnamed_addr constant [10 x i8] c"kfuse_map\00", section "llvm.metadata"
@llvm.global.annotations = appending global [2 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr addrspacecast (ptr addrspace(1) @__kfuse_seq_0 to ptr), ptr @.kfseq.0, ptr @.kffile, i32 9, ptr null }, { ptr, ptr, ptr, i32, ptr } { ptr @_Z7scatterPKiPKfPfi, ptr @.kfmap, ptr @.kffile, i32 1, ptr null }], section "llvm.metadata"

define dso_local ptx_kernel void @_Z7scatterPKiPKfPfi(ptr noundef readonly captures(none) %0, ptr noundef readonly captures(none) %1, ptr noundef writeonly captures(none) %2, i32 noundef %3) #0 {
  %5 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %6 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %7 = mul i32 %5, %6
  %8 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %9 = add i32 %7, %8
  %10 = icmp slt i32 %9, %3
  br i1 %10, label %11, label %19

11:
  %12 = sext i32 %9 to i64
  %13 = getelementptr inbounds float, ptr %1, i64 %12
  %14 = load float, ptr %13, align 4
  %15 = getelementptr inbounds i32, ptr %0, i64 %12
  %16 = load i32, ptr %15, align 4
  %17 = sext i32 %16 to i64
  %18 = getelementptr inbounds float, ptr %2, i64 %17
  store float %14, ptr %18, align 4
  br label %19

19:
  ret void
}

attributes #0 = { mustprogress nofree noinline norecurse nosync nounwind willreturn memory(argmem: readwrite) "target-cpu"="sm_90" "target-features"="+ptx88,+sm_90" "uniform-work-group-size"="true" }
