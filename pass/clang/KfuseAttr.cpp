//===- KfuseAttr.cpp - the kfuse_map attribute ------------------------------===//
//
// Registers __attribute__((kfuse_map)), [[kfuse_map]] and [[kfuse::map]] and
// turns each into an AnnotateAttr("kfuse_map"), which codegen lists in
// llvm.global.annotations (the kernel in device IR, its stub in host IR).
//
// Whether the function is __global__ is checked later, at the end of the
// translation unit (KfuseAction.cpp): attributes are applied in source order,
// so in `__attribute__((kfuse_map)) __global__ void k()` the kernel is not yet
// __global__ when this handler runs.
//
//===----------------------------------------------------------------------===//
#include "Kfuse.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/Basic/DiagnosticSema.h"
#include "clang/Sema/ParsedAttr.h"
#include "clang/Sema/Sema.h"

using namespace clang;

namespace {

struct KfuseMapAttrInfo : public ParsedAttrInfo {
  KfuseMapAttrInfo() {
    // The non-namespaced C++11 spelling is accepted by Clang for plugin
    // attributes; kfuse::map is the namespaced alternative.
    static constexpr Spelling S[] = {{ParsedAttr::AS_GNU, "kfuse_map"},
                                     {ParsedAttr::AS_CXX11, "kfuse_map"},
                                     {ParsedAttr::AS_CXX11, "kfuse::map"}};
    Spellings = S;
    // Arguments are parsed (so that they can be diagnosed) but none is valid.
    OptArgs = 15;
  }

  bool diagAppertainsToDecl(Sema &S, const ParsedAttr &Attr,
                            const Decl *D) const override {
    if (isa<FunctionDecl>(D) || isa<FunctionTemplateDecl>(D))
      return true;
    S.Diag(Attr.getLoc(), diag::err_attribute_wrong_decl_type_str)
        << Attr << Attr.isRegularKeywordAttribute() << "__global__ functions";
    return false;
  }

  AttrHandling handleDeclAttribute(Sema &S, Decl *D,
                                   const ParsedAttr &Attr) const override {
    if (Attr.getNumArgs() != 0) {
      S.Diag(Attr.getLoc(), diag::err_attribute_wrong_number_arguments)
          << Attr << 0;
      return AttributeNotApplied;
    }
    if (auto *FTD = dyn_cast<FunctionTemplateDecl>(D))
      D = FTD->getTemplatedDecl();
    auto *FD = cast<FunctionDecl>(D);
    if (kfuse::getMapMark(FD))
      return AttributeApplied;
    // The payload is the annotation string, never an argument expression:
    // codegen cannot emit arguments that plugins attach.
    FD->addAttr(AnnotateAttr::Create(S.Context, kfuse::MapMark, nullptr, 0,
                                     Attr.getRange()));
    return AttributeApplied;
  }
};

} // namespace

static ParsedAttrInfoRegistry::Add<KfuseMapAttrInfo>
    X("kfuse_map", "marks a CUDA map kernel for kfuse");
