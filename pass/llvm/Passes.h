//===- Passes.h - kfuse LLVM passes -----------------------------*- C++ -*-===//
//
// The two module passes of the kfuse plugin. The device pass runs on the
// nvptx64 module and builds fused kernels plus the manifest; the host pass
// runs on the host module and hands launch runs to the runtime.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_PASS_LLVM_PASSES_H
#define KFUSE_PASS_LLVM_PASSES_H

#include "llvm/IR/PassManager.h"

namespace kfuse {

/// Fuses the launch sequences recorded by the Clang plugin (docs/annotations.md)
/// into fused kernels and embeds the manifest (docs/manifest.md).
struct DeviceFusionPass : llvm::PassInfoMixin<DeviceFusionPass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &AM);
  static bool isRequired() { return true; }
};

/// Replaces runs of adjacent kfuse_map launches in host code with one call to
/// kf_rt_launch_seq() (include/kfuse/rt.h).
struct HostRewritePass : llvm::PassInfoMixin<HostRewritePass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &AM);
  static bool isRequired() { return true; }
};

/// After inlining: sets the dead and rerun masks of the records the host
/// rewrite made (include/kfuse/rt.h) where the buffer is provably not read
/// after the run, or read only by the same run's next execution.
struct HostLivenessPass : llvm::PassInfoMixin<HostLivenessPass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &AM);
  static bool isRequired() { return true; }
};

} // namespace kfuse

#endif
