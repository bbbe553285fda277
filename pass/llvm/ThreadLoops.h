//===- ThreadLoops.h - a kernel's loops of constant trip count, unrolled -*- C++ -*-===//
//
// A kfuse_map kernel whose thread loops over elements of its own a constant
// number of times, in a loop the compiler kept (`for (k = 0; k < 64; k++)
// b[64 * i + k] = ...`, a loop over quadrature points), is analysed and
// fused through a private copy with those loops unrolled (ThreadLoops.cpp);
// the kernel itself, launched alone or where its group falls back, keeps
// its loops.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_PASS_LLVM_THREADLOOPS_H
#define KFUSE_PASS_LLVM_THREADLOOPS_H

#include "llvm/IR/PassManager.h"

#include <cstdint>

namespace llvm {
class Function;
class Instruction;
} // namespace llvm

namespace kfuse {

/// The loops of a function whose trip count is a constant (a grid-stride
/// loop's depends on the grid, so it is never one of them), and how many
/// instructions the function would hold with all of them unrolled: each
/// block's instructions times the trip counts of the constant loops around
/// it.
struct ConstantLoops {
  unsigned Loops = 0;
  uint64_t Unrolled = 0;
};
ConstantLoops constantLoops(llvm::Function &F, llvm::FunctionAnalysisManager &FAM);

/// A private copy of \p F named "<F>.kfuse.unrolled" in which every loop
/// of constant trip count is unrolled, or nullptr (nothing created) when F
/// has no such loop. Floating-point values that crossed from one iteration
/// to the next (the loop's phis) and every floating-point load go through
/// llvm.arithmetic.fence first, so LLVM forms no FMA across what were two
/// iterations; \p Crossing is then the addition or subtraction that takes a
/// product computed in an earlier iteration, if any, and the copy must not
/// be used (ptxas, given the loop, may contract the two or not). The caller
/// erases the copy when done with it.
llvm::Function *unrolledTwin(llvm::Function &F, llvm::FunctionAnalysisManager &FAM,
                             const llvm::Instruction *&Crossing);

/// Whether \p Body is unrolledTwin's copy of kernel \p F itself (not of a
/// copy with its helpers inlined).
bool isUnrolledTwinOf(const llvm::Function &Body, const llvm::Function &F);

} // namespace kfuse

#endif
