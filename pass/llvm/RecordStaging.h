//===- RecordStaging.h - per-instance records through shared memory -*- C++ -*-===//
//
// Coalesces the accesses of a fused kernel whose threads each read or write
// a record of their own instance (a 3x3 matrix, a particle's state): the
// block moves its instances' records with consecutive threads through a
// shared tile, and each thread's accesses read or write a private copy.
// RecordStaging.cpp says when it applies.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_PASS_LLVM_RECORDSTAGING_H
#define KFUSE_PASS_LLVM_RECORDSTAGING_H

#include "llvm/IR/PassManager.h"

#include <vector>

namespace llvm {
class Function;
class LLVMContext;
class Type;
}

namespace kfuse {

/// A pointer parameter whose records a fused kernel stages.
struct StagedRecord {
  unsigned Arg = 0;   ///< the fused kernel's argument number
  unsigned Bytes = 0; ///< bytes per instance (the record's stride)
  bool Store = false; ///< an output (its stores staged), else an input
  /// The alignment of the buffer's start that the block copy assumes and
  /// the runtime checks (manifest `align`), 0 for none.
  unsigned BaseAlign = 0;
  /// The number the block's threads (ntid.x) must be a multiple of, so
  /// that each round of records starts 16-byte aligned (a contiguous block
  /// copy in 16-byte words), which the runtime checks (manifest `le`); 0
  /// for none.
  unsigned BlockMultiple = 0;
  bool operator==(const StagedRecord &O) const {
    return Arg == O.Arg && Bytes == O.Bytes && Store == O.Store && BaseAlign == O.BaseAlign &&
           BlockMultiple == O.BlockMultiple;
  }
};

/// Whether block copies of records may move 16-byte words where the
/// runtime checks the buffer's start 16-byte aligned
/// (-kfuse-record-vector-copy): record staging's, and the copies of the
/// fused kernels across granularities (FusionCandidate::GranInput).
bool recordVectorCopy();

/// The type a block copy moves a word of \p Bytes in: an integer of that
/// size, or four i32 for 16 (one vector access).
llvm::Type *copyWordType(llvm::LLVMContext &Ctx, unsigned Bytes);

/// Stages the records of \p F's guarded bodies through one shared tile of
/// at most \p SharedBudget bytes, whose size it adds to \p TileBytes;
/// returns what it staged, each argument once, in argument order. Changes
/// nothing and returns nothing where no record qualifies.
std::vector<StagedRecord> stageRecords(llvm::Function &F, llvm::FunctionAnalysisManager &FAM,
                                       unsigned SharedBudget, unsigned &TileBytes);

} // namespace kfuse

#endif
