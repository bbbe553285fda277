//===- DeviceFusion.cpp - fuse kfuse_map kernel launch sequences ----------===//
#include "Passes.h"

using namespace llvm;

PreservedAnalyses kfuse::DeviceFusionPass::run(Module &, ModuleAnalysisManager &) {
  return PreservedAnalyses::all();
}
