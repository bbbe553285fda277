; Under clang's default -ffp-contract=fast, NVPTX prints every multiply as a
; plain mul.f32 that ptxas may contract with the consumer's add. The forwarded
; product must therefore reach the consumer as mul.rn, while the original
; scale kernel keeps its plain mul.
; RUN: llvm-link %S/Inputs/kernels.ll %S/contract.ll -S \
; RUN:   | %opt -load-pass-plugin=%kfuse_llvm_plugin -passes=kfuse-device -S \
; RUN:   | llc -march=nvptx64 -mcpu=sm_90 -fp-contract=fast | FileCheck %s
; RUN: llvm-link %S/Inputs/kernels.ll %S/contract.ll -S \
; RUN:   | %opt -load-pass-plugin=%kfuse_llvm_plugin -passes=kfuse-device -S \
; RUN:   | FileCheck %s --check-prefix=IR
; CHECK-LABEL: .entry _Z5scalePKfPffi(
; CHECK: mul.f32
; CHECK-LABEL: .entry __kfuse_fused_{{[0-9a-f]+}}_0_0_1(
; CHECK-NOT: fma
; CHECK: mul.rn.f32 [[P:%r[0-9]+]],
; CHECK-NOT: fma
; CHECK: add.f32 {{%r[0-9]+}}, [[P]],
; CHECK-NOT: fma
; CHECK: ret;
; IR-LABEL: define ptx_kernel void @__kfuse_fused_{{[0-9a-f]+}}_0_0_1(
; IR: [[RN:%.*]] = call float @llvm.nvvm.mul.rn.f(
; IR: call float @llvm.arithmetic.fence.f32(float [[RN]])
