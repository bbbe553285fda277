; -kfuse-plans=K builds the fused kernels of the K best plans and tags each
; with the plans that hold it (manifest `plans <count> <first> <ranks>`);
; -kfuse-elements sets the element count of the predictions. The runtime's
; parser reads the result (see e2e/manifest-parse.test for a whole program).
; RUN: llvm-link %S/Inputs/kernels.ll %s -S -o %t.ll
; RUN: %opt -load-pass-plugin=%kfuse_llvm_plugin -passes=kfuse-device -kfuse-profile=%S/Inputs/nominal.prof -kfuse-plans=8 -S -pass-remarks-analysis=kfuse %t.ll -o %t.out.ll 2>%t.remarks
; RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
; RUN: FileCheck %s < %t.out.ll
; More plans than the sequence has: all 8 partitions of 4 launches.
; RUN: %opt -load-pass-plugin=%kfuse_llvm_plugin -passes=kfuse-device -kfuse-plans=100 -S -pass-remarks-analysis=kfuse %t.ll -o /dev/null 2>&1 | FileCheck %s --check-prefix=ALL
; RUN: %opt -load-pass-plugin=%kfuse_llvm_plugin -passes=kfuse-device -kfuse-plans=2 -kfuse-elements=65536 -S -pass-remarks-analysis=kfuse %t.ll -o %t.two.ll 2>&1 | FileCheck %s --check-prefix=TWO
; RUN: FileCheck %s --check-prefix=TWO-IR < %t.two.ll
; Without -kfuse-plans the manifest has no `plans` line.
; RUN: %opt -load-pass-plugin=%kfuse_llvm_plugin -passes=kfuse-device -S %t.ll | FileCheck %s --check-prefix=ONE
; Out of range: a warning naming the flag and its range, a remark, and the
; greedy plan; absurd sizes never reach the solvers.
; RUN: %opt -load-pass-plugin=%kfuse_llvm_plugin -passes=kfuse-device -kfuse-plans=257 -S -pass-remarks-missed=kfuse %t.ll -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD
; RUN: %opt -load-pass-plugin=%kfuse_llvm_plugin -passes=kfuse-device -kfuse-elements=0 -S -pass-remarks-missed=kfuse %t.ll -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD-ELEMENTS
; RUN: %opt -load-pass-plugin=%kfuse_llvm_plugin -passes=kfuse-device -kfuse-elements=3e30 -S -pass-remarks-missed=kfuse %t.ll -o /dev/null 2>&1 | FileCheck %s --check-prefix=HUGE-ELEMENTS
; RUN: %opt -load-pass-plugin=%kfuse_llvm_plugin -passes=kfuse-device -kfuse-elements=nan -S -pass-remarks-missed=kfuse %t.ll -o /dev/null 2>&1 | FileCheck %s --check-prefix=NAN-ELEMENTS
; RUN: %opt -load-pass-plugin=%kfuse_llvm_plugin -passes=kfuse-device -kfuse-plan-work-limit=0 -S -pass-remarks-missed=kfuse %t.ll -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD-WORK

; REMARK: planned 4 launches for 16777216 elements each
; REMARK: plan 0 of 8: predicted 136718 ns: 0..3
; REMARK: plan 1 of 8: predicted {{[0-9]+}} ns: {{[0-9. ]+$}}
; REMARK: plan 7 of 8: predicted 211327 ns: 0 1 2 3
; REMARK-NOT: plan 8 of

; ALL-COUNT-8: plan {{[0-7]}} of 8: predicted

; Every group of two launches or more: 6 of them, the best plan's first.
; CHECK: c"kfuse-manifest 1\0Agroup __kfuse_fused_{{[0-9a-f]+}}_0_0_3 4\0A
; CHECK-SAME: plans 8 0 4 _Z3runv 0\0Aend\0A
; CHECK-DAG: define ptx_kernel void @__kfuse_fused_{{[0-9a-f]+}}_0_0_3(
; CHECK-DAG: define ptx_kernel void @__kfuse_fused_{{[0-9a-f]+}}_0_0_2(
; CHECK-DAG: define ptx_kernel void @__kfuse_fused_{{[0-9a-f]+}}_0_1_3(
; CHECK-DAG: define ptx_kernel void @__kfuse_fused_{{[0-9a-f]+}}_0_0_1(
; CHECK-DAG: define ptx_kernel void @__kfuse_fused_{{[0-9a-f]+}}_0_1_2(
; CHECK-DAG: define ptx_kernel void @__kfuse_fused_{{[0-9a-f]+}}_0_2_3(

; TWO: planned 4 launches for 65536 elements each
; TWO: plan 0 of 2: predicted {{[0-9]+}} ns: 0..3
; TWO: plan 1 of 2: predicted {{[0-9]+}} ns:
; TWO-IR: plans 2 0 4 _Z3runv 0\0Aend\0Agroup __kfuse_fused_{{[0-9a-f]+}}_0_{{[0-9]_[0-9]}}
; TWO-IR-SAME: plans 2 {{[0-9]}} 4 _Z3runv 1\0Aend

; ONE: c"kfuse-manifest 1\0Agroup __kfuse_fused_{{[0-9a-f]+}}_0_0_3 4\0A
; ONE-NOT: plans
; ONE: define ptx_kernel void @__kfuse_fused_{{[0-9a-f]+}}_0_0_3(

; BAD: warning: kfuse: -kfuse-plans=257 is out of range (1 to 256); sequences are planned greedily
; BAD: -kfuse-plans=257 is out of range (1 to 256); planned greedily
; BAD-ELEMENTS: warning: kfuse: -kfuse-elements=0 is out of range (1 to 1e+15)
; BAD-ELEMENTS: -kfuse-elements=0 is out of range (1 to 1e+15); planned greedily
; HUGE-ELEMENTS: warning: kfuse: -kfuse-elements=3e+30 is out of range (1 to 1e+15)
; HUGE-ELEMENTS: -kfuse-elements=3e+30 is out of range (1 to 1e+15); planned greedily
; NAN-ELEMENTS: -kfuse-elements=nan is out of range (1 to 1e+15); planned greedily
; BAD-WORK: -kfuse-plan-work-limit=0 is out of range (1 to 1e+12); planned greedily
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@__kfuse_seq_0 = internal addrspace(1) global i8 0, align 1
@.kfseq.0 = private unnamed_addr constant [534 x i8] c"kfuse.seq 1\0Asite app.cu:12:3 _Z3runv\0Alaunch 0 _Z5scalePKfPffi grid=0 block=1 shmem=2 stream=3 args=4,5,6,7\0Alaunch 1 _Z6addonePKfPfi grid=0 block=1 shmem=2 stream=3 args=5,10,7\0Alaunch 2 _Z6addonePKfPfi grid=0 block=1 shmem=2 stream=3 args=10,11,7\0Alaunch 3 _Z4axpyPKfS0_Pfi grid=0 block=1 shmem=2 stream=3 args=11,8,9,7\0Avalue 0 other g\0Avalue 1 other b\0Avalue 2 int 0\0Avalue 3 other s\0Avalue 4 ptr x\0Avalue 5 ptr t\0Avalue 6 float 2.0f\0Avalue 7 int n\0Avalue 8 ptr y\0Avalue 9 ptr o\0Avalue 10 ptr u\0Avalue 11 ptr w\0Avalue 12 ptr idx\0Avalue 13 other b2\00", section "llvm.metadata"
@.kffile = private unnamed_addr constant [5 x i8] c"t.cu\00", section "llvm.metadata"
@llvm.global.annotations = appending global [1 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr addrspacecast (ptr addrspace(1) @__kfuse_seq_0 to ptr), ptr @.kfseq.0, ptr @.kffile, i32 9, ptr null }], section "llvm.metadata"
