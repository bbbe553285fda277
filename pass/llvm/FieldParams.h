//===- FieldParams.h - buffers addressed by fields of by-value structs -*- C++ -*-===//
//
// A kernel that reaches its buffers through the fields of a struct it takes
// by value (`struct Fields { float *h, *u; int n; }`, a lambda's closure,
// whose fields are its captures) is analysed and fused through a private
// copy with one pointer parameter per such field, appended after the
// kernel's own (FieldParams.cpp). The runtime passes each of them the
// pointer at its byte of the launch's struct (the manifest's `field` lines,
// docs/manifest.md), so the guards compare and bound them like any pointer
// parameter; the kernel itself, launched alone or where its group falls
// back, is unchanged.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_PASS_LLVM_FIELDPARAMS_H
#define KFUSE_PASS_LLVM_FIELDPARAMS_H

#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>

namespace llvm {
class Function;
} // namespace llvm

namespace kfuse {

/// A parameter of a field twin after the kernel's own: the pointer at byte
/// Offset of by-value parameter Struct.
struct FieldParam {
  unsigned Struct = 0;
  uint32_t Offset = 0;
  bool operator==(const FieldParam &O) const {
    return Struct == O.Struct && Offset == O.Offset;
  }
};

/// The field that parameter \p ArgNo of \p F stands for, where F is a field
/// twin and the parameter one it added (fieldTwin marks them).
std::optional<FieldParam> fieldParamOf(const llvm::Function &F, unsigned ArgNo);

/// Most parameters a field twin appends.
constexpr unsigned MaxFieldParams = 16;

/// A private copy of \p F named "<F>.kfuse.fields" in which every pointer
/// that F loads from a constant byte of a by-value parameter it only reads
/// is a parameter of its own, appended in the order of (parameter, byte)
/// and listed in \p Fields; or nullptr (nothing created) when F loads no
/// such pointer, or more than MaxFieldParams. The caller erases the copy
/// when done with it.
llvm::Function *fieldTwin(llvm::Function &F, llvm::SmallVectorImpl<FieldParam> &Fields);

} // namespace kfuse

#endif
