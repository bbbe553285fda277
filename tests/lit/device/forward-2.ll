; Register forwarding of t from scale to axpy: the fused kernel fences the
; forwarded value, drops `contract` on its producer, keeps the intermediate
; store only in its copy for a dead mask of 0, and leaves the originals
; alone. Both stages receive n as one value (the manifest's `equal 0.3 1.3`), so their bounds checks
; become one and the forwarded value is used directly.
; RUN: llvm-link %S/Inputs/kernels.ll %s -S \
; RUN:   | %opt -load-pass-plugin=%kfuse_llvm_plugin -passes=kfuse-device -S -pass-remarks=kfuse -pass-remarks-missed=kfuse -pass-remarks-analysis=kfuse 2>%t.remarks | FileCheck %s
; RUN: FileCheck %s --check-prefix=REMARK < %t.remarks

; REMARK: remark: {{.*}}fused launches 0..1 (scale, axpy) of sequence 0 into __kfuse_fused_{{[0-9a-f]+}}_0_0_1: t in registers; saves 4 bytes per element
; REMARK: remark: {{.*}}__kfuse_fused_{{[0-9a-f]+}}_0_0_1: 20 bytes per element unfused, 16 fused (12 where the dead buffers' stores are skipped), 2 flops per element, 0 bytes of shared memory per block; predicted {{[0-9]+}} ns unfused, {{[0-9]+}} ns fused

; CHECK-NOT: __kfuse_seq_
; CHECK-NOT: kfuse.seq
; CHECK: @__kfuse_manifest_{{[0-9a-f]+}} = addrspace(1) externally_initialized constant [{{[0-9]+}} x i8] c"kfuse-manifest 1\0Agroup __kfuse_fused_{{[0-9a-f]+}}_0_0_1 2\0Akernel 0 _Z5scalePKfPffi 4\0Akernel 1 _Z4axpyPKfS0_Pfi 4\0Ashape same\0Astream same\0Adynshmem 0\0Alaunch 0 0 0\0Aequal 0.1 1.0\0Aequal 0.3 1.3\0Afootprint 0.0 r 0 min(4*bx*gx,4*s3)\0Afootprint 0.1 w 0 min(4*bx*gx,4*s3)\0Afootprint 1.0 r 0 min(4*bx*gx,4*s3)\0Afootprint 1.1 r 0 min(4*bx*gx,4*s3)\0Afootprint 1.2 w 0 min(4*bx*gx,4*s3)\0Adisjoint 0.0 0.1\0Adisjoint 0.0 1.0\0Adisjoint 0.0 1.2\0Adisjoint 0.1 1.1\0Adisjoint 0.1 1.2\0Adisjoint 1.0 1.2\0Adisjoint 1.1 1.2\0Adead 0 0.1 covered\0Apredict {{[0-9]+}} {{[0-9]+}}\0Aat 0 2 12:3 _Z3runv\0Aend\0A\00"

; The original keeps its contraction flag.
; CHECK-LABEL: define dso_local ptx_kernel void @_Z5scalePKfPffi(
; CHECK: fmul contract float

; Every pointer is noalias: the runtime checks the group's distinct
; buffers disjoint wherever one is written (the `disjoint` lines).
; CHECK-LABEL: define ptx_kernel void @__kfuse_fused_{{[0-9a-f]+}}_0_0_1(ptr noalias %l0.p0, ptr noalias %l0.p1, float %l0.p2, i32 %l0.p3, ptr noalias %l1.p0, ptr noalias %l1.p1, ptr noalias %l1.p2, i32 %l1.p3, i64 %dead)
; One dead bit: a copy that keeps t's store and one without it, no test of
; the bit around any store.
; CHECK: %kfuse.alldead = icmp eq i64 %dead, 1
; CHECK-NEXT: br i1 %kfuse.alldead, label %body.dead, label %body.kept
; CHECK-NOT: and i64 %dead
; CHECK: body.kept:
; CHECK: [[ID:%.*]] = add i32
; CHECK: icmp slt i32 [[ID]], %l0.p3
; x and y are read only: invariant loads (ld.global.nc).
; CHECK: load float, ptr {{.*}} !invariant.load
; CHECK: [[PROD:%.*]] = fmul contract float %l0.p2,
; CHECK: [[RN:%.*]] = call float @llvm.nvvm.mul.rn.f(float %l0.p2,
; CHECK: [[FENCE:%.*]] = call float @llvm.arithmetic.fence.f32(float [[RN]])
; CHECK: store float [[PROD]], ptr
; CHECK-NOT: icmp
; CHECK-NOT: phi
; CHECK: load float, ptr {{.*}} !invariant.load
; CHECK: fadd contract float [[FENCE]],
; CHECK: store float
; CHECK: ret void
; The dead copy computes t and uses it, and stores o only.
; CHECK: body.dead:
; CHECK: load float, ptr {{.*}} !invariant.load
; CHECK-NOT: store
; CHECK: [[RN2:%.*]] = call float @llvm.nvvm.mul.rn.f(float %l0.p2,
; CHECK: [[FENCE2:%.*]] = call float @llvm.arithmetic.fence.f32(float [[RN2]])
; CHECK-NOT: store
; CHECK: fadd contract float [[FENCE2]],
; CHECK-NEXT: store float
; CHECK-NOT: store
; CHECK: }

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@__kfuse_seq_0 = internal addrspace(1) global i8 0, align 1
@.kfseq.0 = private unnamed_addr constant [394 x i8] c"kfuse.seq 1\0Asite app.cu:12:3 _Z3runv\0Alaunch 0 _Z5scalePKfPffi grid=0 block=1 shmem=2 stream=3 args=4,5,6,7\0Alaunch 1 _Z4axpyPKfS0_Pfi grid=0 block=1 shmem=2 stream=3 args=5,8,9,7\0Avalue 0 other g\0Avalue 1 other b\0Avalue 2 int 0\0Avalue 3 other s\0Avalue 4 ptr x\0Avalue 5 ptr t\0Avalue 6 float 2.0f\0Avalue 7 int n\0Avalue 8 ptr y\0Avalue 9 ptr o\0Avalue 10 ptr u\0Avalue 11 ptr w\0Avalue 12 ptr idx\0Avalue 13 other b2\00", section "llvm.metadata"
@.kffile = private unnamed_addr constant [5 x i8] c"t.cu\00", section "llvm.metadata"
@llvm.global.annotations = appending global [1 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr addrspacecast (ptr addrspace(1) @__kfuse_seq_0 to ptr), ptr @.kfseq.0, ptr @.kffile, i32 9, ptr null }], section "llvm.metadata"
