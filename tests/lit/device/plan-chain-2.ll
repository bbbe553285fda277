; The planning library plans a two-launch chain like the greedy policy: the
; pair is fused; -Rpass-analysis shows the plan's predicted times (default H100
; profile, 2^24 elements per launch) and the manifest's predict line carries
; them. -kfuse-planner=greedy fuses the same pair with the bandwidth-only
; estimate.
; RUN: llvm-link %S/Inputs/kernels.ll %s -S -o %t.ll
; RUN: %opt -load-pass-plugin=%kfuse_llvm_plugin -passes=kfuse-device -kfuse-profile=%S/Inputs/nominal.prof -S -pass-remarks=kfuse -pass-remarks-missed=kfuse -pass-remarks-analysis=kfuse %t.ll 2>%t.remarks | FileCheck %s
; RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
; RUN: %opt -load-pass-plugin=%kfuse_llvm_plugin -passes=kfuse-device -kfuse-profile=%S/Inputs/nominal.prof -kfuse-planner=greedy -S -pass-remarks=kfuse -pass-remarks-missed=kfuse -pass-remarks-analysis=kfuse %t.ll 2>%t.greedy | FileCheck %s --check-prefix=GREEDY
; RUN: FileCheck %s --check-prefix=GREEDY-REMARK < %t.greedy

; REMARK: remark: {{.*}}sequence 0 at app.cu:12:3 in 'run': planned 2 launches for 16777216 elements each on nominal test device: predicted 91978 ns, 116848 ns unfused, gain 24870 ns; 3 candidate groups, optimal
; REMARK: remark: {{.*}}sequence 0 at app.cu:12:3 in 'run': launches 0..1: predicted 91978 ns fused, 116848 ns unfused, gain 24870 ns
; REMARK: remark: {{.*}}fused launches 0..1 (scale, axpy) of sequence 0 into __kfuse_fused_{{[0-9a-f]+}}_0_0_1: t in registers
; REMARK: remark: {{.*}}__kfuse_fused_{{[0-9a-f]+}}_0_0_1: {{.*}}; predicted 116848 ns unfused, 91978 ns fused
; REMARK-NOT: not fused

; CHECK: c"kfuse-manifest 1\0Agroup __kfuse_fused_{{[0-9a-f]+}}_0_0_1 2\0A{{.*}}\0Apredict 116848 91978\0Aat 0 2 12:3 _Z3runv\0Aend\0A\00"
; CHECK: define ptx_kernel void @__kfuse_fused_{{[0-9a-f]+}}_0_0_1(

; GREEDY-REMARK-NOT: planned
; GREEDY-REMARK: remark: {{.*}}fused launches 0..1 (scale, axpy) of sequence 0 into __kfuse_fused_{{[0-9a-f]+}}_0_0_1: t in registers
; GREEDY-REMARK: predicted 111852106 ns unfused, 89480485 ns fused
; GREEDY: \0Apredict 111852106 89480485\0Aat 0 2 12:3 _Z3runv\0Aend\0A\00"
; GREEDY: define ptx_kernel void @__kfuse_fused_{{[0-9a-f]+}}_0_0_1(

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@__kfuse_seq_0 = internal addrspace(1) global i8 0, align 1
@.kfseq.0 = private unnamed_addr constant [394 x i8] c"kfuse.seq 1\0Asite app.cu:12:3 _Z3runv\0Alaunch 0 _Z5scalePKfPffi grid=0 block=1 shmem=2 stream=3 args=4,5,6,7\0Alaunch 1 _Z4axpyPKfS0_Pfi grid=0 block=1 shmem=2 stream=3 args=5,8,9,7\0Avalue 0 other g\0Avalue 1 other b\0Avalue 2 int 0\0Avalue 3 other s\0Avalue 4 ptr x\0Avalue 5 ptr t\0Avalue 6 float 2.0f\0Avalue 7 int n\0Avalue 8 ptr y\0Avalue 9 ptr o\0Avalue 10 ptr u\0Avalue 11 ptr w\0Avalue 12 ptr idx\0Avalue 13 other b2\00", section "llvm.metadata"
@.kffile = private unnamed_addr constant [5 x i8] c"t.cu\00", section "llvm.metadata"
@llvm.global.annotations = appending global [1 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr addrspacecast (ptr addrspace(1) @__kfuse_seq_0 to ptr), ptr @.kfseq.0, ptr @.kffile, i32 9, ptr null }], section "llvm.metadata"
