//===- DeriveImpl.h - finer-grained implementations of a kernel -*- C++ -*-===//
//
// A kernel marked kfuse_impl whose thread writes S values of its instance,
// each computed alike from loads at offsets that follow the value's place
// (a 3x3 product: value 3r+c reads row r of A and column c of B), gets
// implementations with d times as many threads per instance for each
// divisor d > 1 of S: each thread writes S/d of the values (DeriveImpl.cpp).
// The planner may then run them inside fused kernels like the kernels the
// program marks itself (docs/annotations.md, README "Several
// implementations of one function").
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_PASS_LLVM_DERIVEIMPL_H
#define KFUSE_PASS_LLVM_DERIVEIMPL_H

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace llvm {
class Function;
class ScalarEvolution;
} // namespace llvm

namespace kfuse {

struct DerivedImpl {
  llvm::Function *F = nullptr; ///< "<kernel>.kfuse.split<d>", internal
  unsigned Split = 0;          ///< d: threads per original thread
};

struct Derivation {
  std::vector<DerivedImpl> Impls;
  unsigned Stores = 0; ///< S, the values each thread of the kernel writes
  /// Why there are none, a sentence fragment for a remark.
  std::string Why;
};

/// The implementations of \p F with d times its threads per instance, for
/// each divisor d > 1 of its stores per thread with d * \p Threads <=
/// \p MaxThreads. \p F checks its global x index g = ctaid.x*ntid.x + tid.x
/// against its integer parameter \p BoundParam (`if (g < n)`), then runs
/// one block of straight-line code that ends in S stores through
/// parameters it does not read. Thread g' of an implementation runs what
/// thread g'/d of \p F runs, keeping the stores (g' % d) * S/d up to
/// (g' % d + 1) * S/d - 1 and what they need, and checks g' < n' against the
/// same parameter, which it receives d times as large (the runtime scales
/// it, manifest `impl`). Every kept value is computed by the instructions
/// that computed it in \p F, in the same order, so its bits are the same.
/// Where the parameters may alias, the optimiser computes each value's
/// addresses again: an access matches store 0's counterpart where
/// \p SE (of \p F) finds their addresses a constant apart.
/// Each is named "<Name>.kfuse.split<d>", \p Name F's own name where
/// empty (F may be a kernel's copy with its loops unrolled, ThreadLoops.h).
/// The caller analyses each one and erases it when done.
Derivation deriveImpls(llvm::Function &F, llvm::ScalarEvolution &SE, unsigned BoundParam,
                       unsigned Threads, unsigned MaxThreads, llvm::StringRef Name = "");

} // namespace kfuse

#endif
