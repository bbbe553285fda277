; A `fields=` list that names a parameter the launch does not have, or is
; not <param>+<byte>:<value>, makes the record malformed: it is reported and
; removed, and nothing fuses.
; RUN: llvm-link %S/Inputs/kernels.ll %s -S \
; RUN:   | %opt -load-pass-plugin=%kfuse_llvm_plugin -passes=kfuse-device -S -pass-remarks=kfuse -pass-remarks-missed=kfuse -pass-remarks-analysis=kfuse 2>%t.remarks | FileCheck %s --check-prefix=IR
; RUN: FileCheck %s < %t.remarks
; RUN: sed -e 's/fields=7+0:5/fields=0+0_5/' %s | llvm-link %S/Inputs/kernels.ll - -S \
; RUN:   | %opt -load-pass-plugin=%kfuse_llvm_plugin -passes=kfuse-device -S -pass-remarks-missed=kfuse 2>&1 >/dev/null | FileCheck %s --check-prefix=FORM
; IR-NOT: __kfuse_seq_
; IR-NOT: __kfuse_manifest_{{[0-9a-f]+}}
; CHECK: remark: {{.*}}ignoring launch sequence record __kfuse_seq_0: record malformed field list in 'launch 0 _Z5scalePKfPffi grid=0 block=1 shmem=2 stream=3 args=4,5,6,7 fields=7+0:5'
; FORM: remark: {{.*}}ignoring launch sequence record __kfuse_seq_0: record malformed field list in 'launch 0 _Z5scalePKfPffi grid=0 block=1 shmem=2 stream=3 args=4,5,6,7 fields=0+0_5'

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@__kfuse_seq_0 = internal addrspace(1) global i8 0, align 1
@.kfseq.0 = private unnamed_addr constant [281 x i8] c"kfuse.seq 1\0Asite app.cu:12:3 _Z3runv\0Alaunch 0 _Z5scalePKfPffi grid=0 block=1 shmem=2 stream=3 args=4,5,6,7 fields=7+0:5\0Alaunch 1 _Z4axpyPKfS0_Pfi grid=0 block=1 shmem=2 stream=3 args=5,8,9,7\0Avalue 4 ptr x\0Avalue 5 ptr t\0Avalue 6 float 2.0f\0Avalue 7 int n\0Avalue 8 ptr y\0Avalue 9 ptr o\0A\00", section "llvm.metadata"
@.kffile = private unnamed_addr constant [5 x i8] c"t.cu\00", section "llvm.metadata"
@llvm.global.annotations = appending global [1 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr addrspacecast (ptr addrspace(1) @__kfuse_seq_0 to ptr), ptr @.kfseq.0, ptr @.kffile, i32 9, ptr null }], section "llvm.metadata"
