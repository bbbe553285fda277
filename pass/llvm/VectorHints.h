//===- VectorHints.h - vector cache-hint asm seen as scalars ----*- C++ -*-===//
//
// `__ldcs(const float4 *)` and `__stwt(float4 *, float4)` are one inline
// asm statement each (`ld.global.cs.v4.f32 {$0,$1,$2,$3}, [$4];`) that
// reads or writes four floats at once, while clang writes a plain float4
// access as four scalar loads or stores. The kernel analysis and the fused
// kernel's forwarding work per scalar, so the device pass splits each vector
// cache-hint access of a map kernel into one scalar cache-hint access per
// lane before the analysis (the hint kept), puts the kernels back as they
// were when it is done, and in each fused kernel joins the lanes that are
// still accessed together back into the vector access.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_PASS_LLVM_VECTORHINTS_H
#define KFUSE_PASS_LLVM_VECTORHINTS_H

#include "llvm/ADT/SmallVector.h"

#include <vector>

namespace llvm {
class CallBase;
class Function;
class Instruction;
} // namespace llvm

namespace kfuse {

/// Splits the vector cache-hint accesses (vectorAccess, CallEffects.h) of
/// functions and puts them back.
class VectorHintSplitter {
public:
  VectorHintSplitter() = default;
  VectorHintSplitter(const VectorHintSplitter &) = delete;
  VectorHintSplitter &operator=(const VectorHintSplitter &) = delete;
  ~VectorHintSplitter() { restore(); }

  /// Replaces each vector cache-hint access of \p F by one scalar
  /// cache-hint access per lane, at consecutive addresses, each tagged
  /// `!kfuse.lane !{group, lane}` (the group names the vector access).
  /// Returns whether \p F changed.
  bool split(llvm::Function &F);
  /// Puts every access split() replaced back, exactly as it was.
  void restore();

private:
  struct Split {
    llvm::CallBase *Original;
    /// What split() added, in order; for a load the last is the aggregate
    /// that took the original's uses.
    llvm::SmallVector<llvm::Instruction *, 16> Added;
  };
  std::vector<Split> Splits;
};

/// In fused kernel \p F, puts each group of lanes that is still whole back
/// into one vector access: all lanes of one split access in one block, in
/// order, at the lane addresses, with nothing between them that could write
/// memory (a load) or touch it (a store). Returns how many it joined.
unsigned joinLanes(llvm::Function &F);

} // namespace kfuse

#endif
