; The planner's work limit inside the device pass. The launches here are
; all launched alike, so no group can leave one out (a rider is launched
; unlike its group) and the pass poses consecutive groups only, which the
; planning library plans exactly by dynamic programming: even a limit of one unit gives the optimal plan
; (launches 0..1 and 2..3, as in plan-split.ll), the same as the default, and
; the remark says it is optimal. The limit is a count, never a time: what the
; pass emits does not depend on the machine or its load.
; RUN: llvm-link %S/Inputs/kernels.ll %s -S -o %t.ll
; RUN: %opt -load-pass-plugin=%kfuse_llvm_plugin -passes=kfuse-device -kfuse-profile=%S/Inputs/shared-1k.prof -kfuse-plan-work-limit=1 -S -pass-remarks=kfuse -pass-remarks-missed=kfuse -pass-remarks-analysis=kfuse %t.ll -o %t.one.ll 2>&1 | FileCheck %s --check-prefix=OPTIMAL
; RUN: %opt -load-pass-plugin=%kfuse_llvm_plugin -passes=kfuse-device -kfuse-profile=%S/Inputs/shared-1k.prof -S -pass-remarks=kfuse -pass-remarks-missed=kfuse -pass-remarks-analysis=kfuse %t.ll -o %t.default.ll 2>&1 | FileCheck %s --check-prefix=OPTIMAL
; RUN: cmp %t.one.ll %t.default.ll
; The old time limit is taken and ignored, with a warning; the output is
; unchanged.
; RUN: %opt -load-pass-plugin=%kfuse_llvm_plugin -passes=kfuse-device -kfuse-profile=%S/Inputs/shared-1k.prof -kfuse-plan-time-limit=0.000001 -S %t.ll -o %t.time.ll 2>&1 | FileCheck %s --check-prefix=DEPRECATED
; RUN: cmp %t.time.ll %t.default.ll
; A limit that is not a count is a clear error, never a crash.
; RUN: not %opt -load-pass-plugin=%kfuse_llvm_plugin -passes=kfuse-device -kfuse-plan-work-limit=1e30 -S %t.ll -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOT-COUNT
; RUN: %opt -load-pass-plugin=%kfuse_llvm_plugin -passes=kfuse-device -kfuse-plan-work-limit=1000000000001 -S -pass-remarks-missed=kfuse %t.ll -o /dev/null 2>&1 | FileCheck %s --check-prefix=TOO-MANY

; OPTIMAL: planned 4 launches for 16777216 elements each on small-shared test device: predicted {{[0-9]+}} ns, 188957 ns unfused, gain {{[0-9]+}} ns; {{[0-9]+}} candidate groups, optimal
; OPTIMAL-NOT: work limit reached
; OPTIMAL: fused launches 0..1
; OPTIMAL: fused launches 2..3

; DEPRECATED: warning: kfuse: -kfuse-plan-time-limit is deprecated and ignored: the planner's search is bounded by -kfuse-plan-work-limit=N (default 1000000), so the output is the same on any machine
; NOT-COUNT: '1e30' value invalid for long argument
; TOO-MANY: warning: kfuse: -kfuse-plan-work-limit=1000000000001 is out of range (1 to 1e+12); sequences are planned greedily
; TOO-MANY: -kfuse-plan-work-limit=1000000000001 is out of range (1 to 1e+12); planned greedily

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@__kfuse_seq_0 = internal addrspace(1) global i8 0, align 1
@.kfseq.0 = private unnamed_addr constant [517 x i8] c"kfuse.seq 1\0Asite app.cu:12:3 _Z3runv\0Alaunch 0 _Z3revPKfPfi grid=0 block=1 shmem=2 stream=3 args=4,5,7\0Alaunch 1 _Z3revPKfPfi grid=0 block=1 shmem=2 stream=3 args=5,10,7\0Alaunch 2 _Z3revPKfPfi grid=0 block=1 shmem=2 stream=3 args=10,11,7\0Alaunch 3 _Z3revPKfPfi grid=0 block=1 shmem=2 stream=3 args=11,9,7\0Avalue 0 other g\0Avalue 1 other b\0Avalue 2 int 0\0Avalue 3 other s\0Avalue 4 ptr x\0Avalue 5 ptr t\0Avalue 6 float 2.0f\0Avalue 7 int n\0Avalue 8 ptr y\0Avalue 9 ptr o\0Avalue 10 ptr u\0Avalue 11 ptr w\0Avalue 12 ptr idx\0Avalue 13 other b2\00", section "llvm.metadata"
@.kffile = private unnamed_addr constant [5 x i8] c"t.cu\00", section "llvm.metadata"
@llvm.global.annotations = appending global [1 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr addrspacecast (ptr addrspace(1) @__kfuse_seq_0 to ptr), ptr @.kfseq.0, ptr @.kffile, i32 9, ptr null }], section "llvm.metadata"
