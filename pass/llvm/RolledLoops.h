//===- RolledLoops.h - map kernels before the program's unroll pragmas -*- C++ -*-===//
//
// `#pragma unroll 4` over a grid-stride loop (`for (; i < n; i += gridDim.x
// * blockDim.x) f(i);`, as memory-bandwidth benchmarks and for_each helpers
// write it) makes LLVM's loop unroller, late in the optimisation pipeline,
// copy the body four times behind a trip count it computes with a division
// by the stride, plus a remainder loop. The kernel analysis, which runs at
// the end of the pipeline, reads a grid-stride loop as one element a trip
// and cannot read that. So, at the start of the optimisation pipeline, when
// the simplification pipeline has inlined the kernel's helpers and fully
// unrolled its loops of constant trip count, the rolled-loops pass copies
// each kfuse_map kernel that still has a loop with a trip count known only
// at run time that the unroller would unroll: under an unroll pragma, or
// counting by a constant step (`for (c = 0; c < ncomp; c++)`, which LLVM
// unrolls four times by itself on NVPTX). The copy ("<kernel>.kfuse.rolled")
// goes through the rest of the pipeline with those loops' unrolling
// disabled; the device pass reads it where the kernel itself cannot be
// analysed, and fused kernels clone it. The kernel, launched alone or where
// its group falls back, keeps its unrolled loop. Fused grid-stride loops run
// one element a trip, which measures as fast on the H200 as unrolled
// (bench/HISTORY.md, run 136).
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_PASS_LLVM_ROLLEDLOOPS_H
#define KFUSE_PASS_LLVM_ROLLEDLOOPS_H

#include "llvm/ADT/DenseMap.h"
#include "llvm/IR/PassManager.h"

namespace llvm {
class Function;
class Module;
} // namespace llvm

namespace kfuse {

/// Makes the rolled copies (see above) of the module's kfuse_map kernels.
struct RolledLoopsPass : llvm::PassInfoMixin<RolledLoopsPass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &AM);
  static bool isRequired() { return true; }
};

/// Takes the module's rolled copies out of llvm.compiler.used, which kept
/// them through the pipeline, and returns them by kernel. The caller erases
/// every copy when done with it.
llvm::DenseMap<llvm::Function *, llvm::Function *> takeRolledCopies(llvm::Module &M);

} // namespace kfuse

#endif
