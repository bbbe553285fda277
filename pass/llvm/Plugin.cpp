//===- Plugin.cpp - kfuse pass plugin registration ------------------------===//
//
// Makes the passes reachable from `opt -passes=kfuse-device|kfuse-host` and
// from `clang -fpass-plugin=`. Under clang, the module's target triple picks
// the pass: nvptx64 modules get the device pass at the end of the optimisation
// pipeline (kernels are already simplified, and the fused kernels get cleaned
// up by the pass itself), after the rolled-loops pass at the optimisation
// pipeline's start (RolledLoops.h); host modules get the host pass at pipeline start,
// before the inliner folds the launch stubs into their callers, and the
// liveness pass at the end, after it has folded lambdas and helpers.
//
//===----------------------------------------------------------------------===//
#include "Passes.h"
#include "RolledLoops.h"

#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Plugins/PassPlugin.h"
#include "llvm/TargetParser/Triple.h"

using namespace llvm;

namespace {

/// Runs \p P only on modules for the matching side, so one plugin serves both
/// of clang's CUDA compilations.
template <typename PassT, bool Device>
struct SideFilter : PassInfoMixin<SideFilter<PassT, Device>> {
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &AM) {
    if (Triple(M.getTargetTriple()).isNVPTX() != Device)
      return PreservedAnalyses::all();
    return PassT().run(M, AM);
  }
  static bool isRequired() { return true; }
};

void registerCallbacks(PassBuilder &PB) {
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM,
         ArrayRef<PassBuilder::PipelineElement>) {
        if (Name == "kfuse-device") {
          MPM.addPass(kfuse::DeviceFusionPass());
          return true;
        }
        if (Name == "kfuse-rolled-loops") {
          MPM.addPass(kfuse::RolledLoopsPass());
          return true;
        }
        if (Name == "kfuse-host") {
          MPM.addPass(kfuse::HostRewritePass());
          return true;
        }
        if (Name == "kfuse-host-liveness") {
          MPM.addPass(kfuse::HostLivenessPass());
          return true;
        }
        return false;
      });
  PB.registerPipelineStartEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel) {
        MPM.addPass(SideFilter<kfuse::HostRewritePass, false>());
      });
  PB.registerOptimizerEarlyEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel, ThinOrFullLTOPhase) {
        MPM.addPass(SideFilter<kfuse::RolledLoopsPass, true>());
      });
  PB.registerOptimizerLastEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel, ThinOrFullLTOPhase) {
        MPM.addPass(SideFilter<kfuse::DeviceFusionPass, true>());
        MPM.addPass(SideFilter<kfuse::HostLivenessPass, false>());
      });
}

} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "kfuse", "0.1.0", registerCallbacks};
}
