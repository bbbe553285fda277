; A remainder gather whose dividend may be negative, bias[(i - 5) % cols]:
; srem takes the sign of the dividend, so the index may be below 0 and the
; access is an unbounded gather, as any other unknown index: no footprint
; for bias (the runtime takes its whole allocation), still fused since no
; stage writes bias. gather-modulo.ll has the bounded case.
; RUN: llvm-link %S/Inputs/kernels.ll %s -S \
; RUN:   | %opt -load-pass-plugin=%kfuse_llvm_plugin -passes=kfuse-device -S -pass-remarks=kfuse -pass-remarks-missed=kfuse -pass-remarks-analysis=kfuse 2>%t.remarks | FileCheck %s
; RUN: FileCheck %s --check-prefix=REMARK < %t.remarks

; REMARK: remark: {{.*}}kernel 'bias(float const*, float const*, float*, int, int)': 12 bytes and 1 flops per element; gathers (unknown index) through parameter 2{{$}}
; REMARK: remark: {{.*}}fused launches 0..1 (bias, axpy) of sequence 0 into __kfuse_fused_{{[0-9a-f]+}}_0_0_1: h in registers; saves 4 bytes per element
; REMARK-NOT: not fused

; CHECK: @__kfuse_manifest_{{[0-9a-f]+}} = addrspace(1) externally_initialized constant [{{[0-9]+}} x i8] c"kfuse-manifest 1\0Agroup __kfuse_fused_{{[0-9a-f]+}}_0_0_1 2\0Akernel 0 _Z4biasPKfS0_Pfii 5\0Akernel 1 _Z4axpyPKfS0_Pfi 4\0Ashape same\0Astream same\0Adynshmem 0\0Alaunch 0 0 0\0Aequal 0.2 1.0\0Aequal 0.4 1.3\0Afootprint 0.0 r 0 min(4*bx*gx,4*s4)\0Afootprint 0.2 w 0 min(4*bx*gx,4*s4)\0Afootprint 1.0 r 0 min(4*bx*gx,4*s3)\0Afootprint 1.1 r 0 min(4*bx*gx,4*s3)\0Afootprint 1.2 w 0 min(4*bx*gx,4*s3)\0Adisjoint 0.0 0.2\0Adisjoint 0.0 1.0\0Adisjoint 0.0 1.2\0Adisjoint 0.1 0.2\0Adisjoint 0.1 1.0\0Adisjoint 0.1 1.2\0Adisjoint 0.2 1.1\0Adisjoint 0.2 1.2\0Adisjoint 1.0 1.2\0Adisjoint 1.1 1.2\0Adead 0 0.2 covered\0Apredict {{[0-9]+}} {{[0-9]+}}\0Aat 0 2 20:3 _Z3runv\0Aend\0A\00"

; The gather stays a plain load of bias at the remainder.
; CHECK-LABEL: define ptx_kernel void @__kfuse_fused_{{[0-9a-f]+}}_0_0_1(
; CHECK: srem i32 {{.*}}, %l0.p3
; CHECK: getelementptr inbounds float, ptr %l0.p1,
; CHECK: call float @llvm.arithmetic.fence.f32
; CHECK: ret void

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@__kfuse_seq_0 = internal addrspace(1) global i8 0, align 1
@.kfseq.0 = private unnamed_addr constant [372 x i8] c"kfuse.seq 1\0Asite app.cu:20:3 _Z3runv\0Alaunch 0 _Z4biasPKfS0_Pfii grid=0 block=1 shmem=2 stream=3 args=4,10,5,11,7\0Alaunch 1 _Z4axpyPKfS0_Pfi grid=0 block=1 shmem=2 stream=3 args=5,8,9,7\0Avalue 0 other g\0Avalue 1 other b\0Avalue 2 int 0\0Avalue 3 other s\0Avalue 4 ptr x\0Avalue 5 ptr h\0Avalue 6 float 2.0f\0Avalue 7 int n\0Avalue 8 ptr y\0Avalue 9 ptr o\0Avalue 10 ptr bias\0Avalue 11 int cols\0A\00", section "llvm.metadata"
@.kffile = private unnamed_addr constant [5 x i8] c"t.cu\00", section "llvm.metadata"
@.kfmap = private unnamed_addr constant [10 x i8] c"kfuse_map\00", section "llvm.metadata"
@llvm.global.annotations = appending global [2 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr addrspacecast (ptr addrspace(1) @__kfuse_seq_0 to ptr), ptr @.kfseq.0, ptr @.kffile, i32 9, ptr null }, { ptr, ptr, ptr, i32, ptr } { ptr @_Z4biasPKfS0_Pfii, ptr @.kfmap, ptr @.kffile, i32 1, ptr null }], section "llvm.metadata"

define dso_local ptx_kernel void @_Z4biasPKfS0_Pfii(ptr noundef readonly captures(none) %0, ptr noundef readonly captures(none) %1, ptr noundef writeonly captures(none) %2, i32 noundef %3, i32 noundef %4) #0 {
  %6 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %7 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %8 = mul i32 %6, %7
  %9 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %10 = add i32 %8, %9
  %11 = icmp slt i32 %10, %4
  br i1 %11, label %12, label %22

12:
  %13 = sext i32 %10 to i64
  %14 = getelementptr inbounds float, ptr %0, i64 %13
  %15 = load float, ptr %14, align 4
  %m5 = add nsw i32 %10, -5
  %16 = srem i32 %m5, %3
  %17 = sext i32 %16 to i64
  %18 = getelementptr inbounds float, ptr %1, i64 %17
  %19 = load float, ptr %18, align 4
  %20 = fadd contract float %15, %19
  %21 = getelementptr inbounds float, ptr %2, i64 %13
  store float %20, ptr %21, align 4
  br label %22

22:
  ret void
}

attributes #0 = { mustprogress nofree noinline norecurse nosync nounwind willreturn memory(argmem: readwrite) "target-cpu"="sm_90" "target-features"="+ptx88,+sm_90" "uniform-work-group-size"="true" }
