//===- Kfuse.h - shared declarations of the kfuse Clang plugin --------------===//
//
// What the attribute, the consumer and the launch-sequence finder of the
// plugin share: the mark string of docs/annotations.md and the query for it.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_CLANG_KFUSE_H
#define KFUSE_CLANG_KFUSE_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/StringRef.h"

namespace kfuse {

/// The AnnotateAttr string that marks a map kernel (docs/annotations.md).
inline constexpr llvm::StringRef MapMark = "kfuse_map";
/// Followed by the kernel's parameter names, "-" for an unnamed one.
inline constexpr llvm::StringRef ParamsMark = "kfuse_params";

/// The first word of the AnnotateAttr string of a kfuse_impl kernel: the
/// function it implements and its threads per instance follow
/// ("kfuse_impl mmul33 9", docs/annotations.md).
inline constexpr llvm::StringRef ImplMark = "kfuse_impl";

/// The first word of the AnnotateAttr string of a kfuse_scratch variable or
/// field; the qualified name follows after a space ("kfuse_scratch Ctx::t").
inline constexpr llvm::StringRef ScratchMark = "kfuse_scratch";

/// The kfuse_scratch AnnotateAttr of D, or null.
inline const clang::AnnotateAttr *getScratchMark(const clang::Decl *D) {
  for (const auto *A : D->specific_attrs<clang::AnnotateAttr>())
    if (A->getAnnotation().starts_with(ScratchMark))
      return A;
  return nullptr;
}

/// The AnnotateAttr that marks FD as a map kernel, or null.
inline const clang::AnnotateAttr *getMapMark(const clang::FunctionDecl *FD) {
  for (const auto *A : FD->specific_attrs<clang::AnnotateAttr>())
    if (A->getAnnotation() == MapMark)
      return A;
  return nullptr;
}

/// True when FD is a __global__ function marked kfuse_map.
inline bool isMapKernel(const clang::FunctionDecl *FD) {
  return FD && FD->hasAttr<clang::CUDAGlobalAttr>() && getMapMark(FD);
}

/// True when D is written in a system header (the CUDA and C++ headers):
/// the plugin's walks of the translation unit skip such declarations and
/// everything inside them, which holds no kfuse_map kernel, no launch of
/// one, and no definition that identifies the file (most of the AST of a
/// .cu file that includes <cuda_runtime.h> and the standard library).
inline bool inSystemHeader(const clang::Decl *D) {
  if (!D || llvm::isa<clang::TranslationUnitDecl>(D) || D->getLocation().isInvalid())
    return false;
  return D->getASTContext().getSourceManager().isInSystemHeader(D->getLocation());
}

} // namespace kfuse

#endif
