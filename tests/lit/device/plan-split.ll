; The cost model, not legality, decides: four launches of rev, which reads
; its input reversed within each block, so every intermediate goes through
; shared memory. On a device profile with 1 KiB of shared memory per block
; the staging of two live intermediates does not fit, so the four-launch chain (legal as a whole, and fused whole by
; the greedy policy) is split into two pairs. With 512 bytes no group fits and
; nothing is fused.
; RUN: llvm-link %S/Inputs/kernels.ll %s -S -o %t.ll
; RUN: %opt -load-pass-plugin=%kfuse_llvm_plugin -passes=kfuse-device -kfuse-profile=%S/Inputs/shared-1k.prof -S -pass-remarks=kfuse -pass-remarks-missed=kfuse -pass-remarks-analysis=kfuse %t.ll 2>%t.remarks | FileCheck %s --check-prefix=SPLIT
; RUN: FileCheck %s --check-prefix=SPLIT-REMARK < %t.remarks
; RUN: %opt -load-pass-plugin=%kfuse_llvm_plugin -passes=kfuse-device -kfuse-profile=%S/Inputs/shared-512.prof -S -pass-remarks=kfuse -pass-remarks-missed=kfuse -pass-remarks-analysis=kfuse %t.ll 2>%t.none | FileCheck %s --check-prefix=NONE
; RUN: FileCheck %s --check-prefix=NONE-REMARK < %t.none
; RUN: %opt -load-pass-plugin=%kfuse_llvm_plugin -passes=kfuse-device -kfuse-profile=%S/Inputs/shared-512.prof -kfuse-planner=greedy -S %t.ll | FileCheck %s --check-prefix=GREEDY

; SPLIT-REMARK: planned 4 launches for 16777216 elements each on small-shared test device: predicted {{[0-9]+}} ns, 188957 ns unfused
; SPLIT-REMARK: launches 0..1: predicted {{[0-9]+}} ns fused
; SPLIT-REMARK: launches 2..3: predicted {{[0-9]+}} ns fused
; SPLIT-REMARK: launches 0..2 are legal to fuse but the plan without that group is predicted faster
; SPLIT-REMARK: fused launches 0..1 (rev, rev) of sequence 0 into __kfuse_fused_{{[0-9a-f]+}}_0_0_1
; SPLIT-REMARK: fused launches 2..3 (rev, rev) of sequence 0 into __kfuse_fused_{{[0-9a-f]+}}_0_2_3
; SPLIT: c"kfuse-manifest 1\0Agroup __kfuse_fused_{{[0-9a-f]+}}_0_0_1 2\0A{{.*}}\0Aend\0Agroup __kfuse_fused_{{[0-9a-f]+}}_0_2_3 2\0A{{.*}}\0Aend\0Amissed _Z3runv 12 4 0 2 legal to fuse, but the plan without that group is predicted faster\0A\00"
; SPLIT-NOT: __kfuse_fused_{{[0-9a-f]+}}_0_0_3
; SPLIT: define ptx_kernel void @__kfuse_fused_{{[0-9a-f]+}}_0_0_1(
; SPLIT: define ptx_kernel void @__kfuse_fused_{{[0-9a-f]+}}_0_2_3(

; NONE-REMARK: planned 4 launches for 16777216 elements each on tiny-shared test device: predicted 188957 ns, 188957 ns unfused, gain 0 ns
; NONE-REMARK: launches 0..1 are legal to fuse but the plan without that group is predicted faster
; NONE-REMARK: launches 1..2 are legal to fuse
; NONE-REMARK: launches 2..3 are legal to fuse
; NONE-REMARK-NOT: fused launches
; NONE-NOT: __kfuse_fused
; NONE: c"kfuse-manifest 1\0Amissed _Z3runv 12 4 0 1 legal to fuse, but the plan without that group is predicted faster\0Amissed _Z3runv 12 4 1 2 legal{{.*}}\0Amissed _Z3runv 12 4 2 3 legal{{.*}}\0A\00"
; NONE-NOT: __kfuse_fused

; GREEDY: define ptx_kernel void @__kfuse_fused_{{[0-9a-f]+}}_0_0_3(

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@__kfuse_seq_0 = internal addrspace(1) global i8 0, align 1
@.kfseq.0 = private unnamed_addr constant [517 x i8] c"kfuse.seq 1\0Asite app.cu:12:3 _Z3runv\0Alaunch 0 _Z3revPKfPfi grid=0 block=1 shmem=2 stream=3 args=4,5,7\0Alaunch 1 _Z3revPKfPfi grid=0 block=1 shmem=2 stream=3 args=5,10,7\0Alaunch 2 _Z3revPKfPfi grid=0 block=1 shmem=2 stream=3 args=10,11,7\0Alaunch 3 _Z3revPKfPfi grid=0 block=1 shmem=2 stream=3 args=11,9,7\0Avalue 0 other g\0Avalue 1 other b\0Avalue 2 int 0\0Avalue 3 other s\0Avalue 4 ptr x\0Avalue 5 ptr t\0Avalue 6 float 2.0f\0Avalue 7 int n\0Avalue 8 ptr y\0Avalue 9 ptr o\0Avalue 10 ptr u\0Avalue 11 ptr w\0Avalue 12 ptr idx\0Avalue 13 other b2\00", section "llvm.metadata"
@.kffile = private unnamed_addr constant [5 x i8] c"t.cu\00", section "llvm.metadata"
@llvm.global.annotations = appending global [1 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr addrspacecast (ptr addrspace(1) @__kfuse_seq_0 to ptr), ptr @.kfseq.0, ptr @.kffile, i32 9, ptr null }], section "llvm.metadata"
