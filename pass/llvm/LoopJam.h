//===- LoopJam.h - one loop for the grid-stride loops of a fused kernel -*- C++ -*-===//
//
// Jams the grid-stride loops of consecutive stages of a fused kernel into
// one loop (LoopJam.cpp), so a value crosses from stage to stage within an
// iteration.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_PASS_LLVM_LOOPJAM_H
#define KFUSE_PASS_LLVM_LOOPJAM_H

#include "llvm/ADT/ArrayRef.h"

#include <vector>

namespace llvm {
class Function;
class PHINode;
} // namespace llvm

namespace kfuse {

/// \p IVs holds, per stage of \p Fused (inlined, in launch order), the
/// induction variable of its grid-stride loop, or null; \p OuterIVs (empty,
/// or one per stage) that of the outer loop of a stage's nest of
/// grid-stride loops, whose inner loop IVs holds. Jams each loop (nest) into
/// the previous stage's where the two run the same iterations (LoopJam.cpp
/// lists the conditions). Returns per stage the first stage of the loop it
/// now runs in (of a nest: the inner loop), -1 for a stage whose loop
/// stayed alone or that has none; the induction variable of that first
/// stage is the jammed loop's.
std::vector<int> jamGridLoops(llvm::Function &Fused, llvm::ArrayRef<llvm::PHINode *> IVs,
                              llvm::ArrayRef<llvm::PHINode *> OuterIVs = {});

} // namespace kfuse

#endif
