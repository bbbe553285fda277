//===- ScratchDecl.h - kfuse_scratch declarations in the host module ------===//
//
// Which launch arguments the source declared scratch: pointers loaded from a
// variable or field marked kfuse_scratch (the Clang plugin's annotation
// "kfuse_scratch <name>", docs/annotations.md), read back from the
// annotations clang's codegen leaves in the host module.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_PASS_LLVM_SCRATCHDECL_H
#define KFUSE_PASS_LLVM_SCRATCHDECL_H

#include "llvm/ADT/DenseMap.h"
#include "llvm/IR/Module.h"

#include <optional>
#include <string>

namespace kfuse {

/// One declaration: the variable or field as the source names it, and where.
struct ScratchDecl {
  std::string Name; ///< "Ctx::t"
  std::string At;   ///< "file.cu:12"
};

class ScratchDecls {
public:
  /// Reads the module's llvm.global.annotations (declared globals).
  explicit ScratchDecls(const llvm::Module &M);

  /// The declaration of the slot \p Ptr was loaded from: a local marked by
  /// llvm.var.annotation, a field by llvm.ptr.annotation, a global listed in
  /// llvm.global.annotations. A local's load may have been forwarded from
  /// its store (GVN): a value stored into a declared local of \p F counts as
  /// well. None otherwise.
  std::optional<ScratchDecl> of(const llvm::Value *Ptr, const llvm::Function &F) const;

private:
  llvm::DenseMap<const llvm::GlobalValue *, ScratchDecl> Globals;
};

} // namespace kfuse

#endif
