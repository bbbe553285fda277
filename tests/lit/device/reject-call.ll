; callx calls extern_fn(), which is only declared in this module: the
; analysis cannot see what it does, so the kernel is not fused, and the remark
; names the function.
; RUN: llvm-link %S/Inputs/kernels.ll %s -S \
; RUN:   | %opt -load-pass-plugin=%kfuse_llvm_plugin -passes=kfuse-device -S -pass-remarks=kfuse -pass-remarks-missed=kfuse -pass-remarks-analysis=kfuse 2>%t.remarks | FileCheck %s --check-prefix=IR
; RUN: FileCheck %s < %t.remarks
; IR-NOT: __kfuse_fused
; IR-NOT: __kfuse_seq_
; The manifest has no group, only why, for the host pass's remark.
; IR: @__kfuse_manifest_{{[0-9a-f]+}} = {{.*}} c"kfuse-manifest 1\0Amissed _Z3runv 12 2 0 1 kernel 'callx' cannot be fused: calls 'extern_fn(float)', which is not defined in this module; kfuse analyses calls only into functions it can see (define it in this translation unit)\0A\00"
; IR-NOT: __kfuse_fused
; IR-NOT: __kfuse_seq_
; CHECK: remark: {{.*}}kernel 'callx(float const*, float*, int)' cannot be fused: calls 'extern_fn(float)', which is not defined in this module; kfuse analyses calls only into functions it can see (define it in this translation unit)
; CHECK: not fused: kernel 'callx' cannot be fused

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@__kfuse_seq_0 = internal addrspace(1) global i8 0, align 1
@.kfseq.0 = private unnamed_addr constant [390 x i8] c"kfuse.seq 1\0Asite app.cu:12:3 _Z3runv\0Alaunch 0 _Z5scalePKfPffi grid=0 block=1 shmem=2 stream=3 args=4,5,6,7\0Alaunch 1 _Z5callxPKfPfi grid=0 block=1 shmem=2 stream=3 args=5,9,7\0Avalue 0 other g\0Avalue 1 other b\0Avalue 2 int 0\0Avalue 3 other s\0Avalue 4 ptr x\0Avalue 5 ptr t\0Avalue 6 float 2.0f\0Avalue 7 int n\0Avalue 8 ptr y\0Avalue 9 ptr o\0Avalue 10 ptr u\0Avalue 11 ptr w\0Avalue 12 ptr idx\0Avalue 13 other b2\00", section "llvm.metadata"
@.kffile = private unnamed_addr constant [5 x i8] c"t.cu\00", section "llvm.metadata"
@.kfmap = private unnamed_addr constant [10 x i8] c"kfuse_map\00", section "llvm.metadata"
@llvm.global.annotations = appending global [2 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr addrspacecast (ptr addrspace(1) @__kfuse_seq_0 to ptr), ptr @.kfseq.0, ptr @.kffile, i32 9, ptr null }, { ptr, ptr, ptr, i32, ptr } { ptr @_Z5callxPKfPfi, ptr @.kfmap, ptr @.kffile, i32 3, ptr null }], section "llvm.metadata"

define dso_local ptx_kernel void @_Z5callxPKfPfi(ptr noundef readonly captures(none) %0, ptr noundef writeonly captures(none) %1, i32 noundef %2) {
  %4 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %5 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %6 = mul i32 %4, %5
  %7 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %8 = add i32 %6, %7
  %9 = icmp slt i32 %8, %2
  br i1 %9, label %10, label %16

10:
  %11 = sext i32 %8 to i64
  %12 = getelementptr inbounds float, ptr %1, i64 %11
  %13 = getelementptr inbounds float, ptr %0, i64 %11
  %14 = load float, ptr %13, align 4
  %15 = tail call float @_Z9extern_fnf(float %14)
  store float %15, ptr %12, align 4
  br label %16

16:
  ret void
}

declare float @_Z9extern_fnf(float)
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
