//===- KfuseAttr.cpp - the kfuse_map and kfuse_scratch attributes -----------===//
//
// Registers __attribute__((kfuse_map)), [[kfuse_map]] and [[kfuse::map]] and
// turns each into an AnnotateAttr("kfuse_map"), which codegen lists in
// llvm.global.annotations (the kernel in device IR, its stub in host IR).
//
// Registers __attribute__((kfuse_scratch)), [[kfuse_scratch]] and
// [[kfuse::scratch]] on a pointer variable or field and, in the host
// compilation only, turns each into AnnotateAttr("kfuse_scratch <name>"):
// codegen then emits llvm.var.annotation on a local's slot,
// llvm.ptr.annotation on each access to a field, and an entry of
// llvm.global.annotations for a global, each with the file and line, which
// the host pass's liveness reads (HostLiveness.cpp). The device compilation
// gets no annotation: a field access in a kernel would become an intrinsic
// call the kernel analysis would have to see through.
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
    // The parameters' names, for remarks: at -O2 clang discards the IR's
    // value names, and without -g nothing else keeps them.
    if (FD->getNumParams() && llvm::any_of(FD->parameters(), [](const ParmVarDecl *P) {
          return !P->getName().empty();
        })) {
      std::string Names(kfuse::ParamsMark);
      for (const ParmVarDecl *P : FD->parameters())
        Names += " " + (P->getName().empty() ? std::string("-") : P->getName().str());
      FD->addAttr(AnnotateAttr::Create(S.Context, Names, nullptr, 0, Attr.getRange()));
    }
    return AttributeApplied;
  }
};

struct KfuseScratchAttrInfo : public ParsedAttrInfo {
  KfuseScratchAttrInfo() {
    static constexpr Spelling S[] = {{ParsedAttr::AS_GNU, "kfuse_scratch"},
                                     {ParsedAttr::AS_CXX11, "kfuse_scratch"},
                                     {ParsedAttr::AS_CXX11, "kfuse::scratch"}};
    Spellings = S;
    OptArgs = 15;
  }

  bool diagAppertainsToDecl(Sema &S, const ParsedAttr &Attr,
                            const Decl *D) const override {
    if (isa<FieldDecl>(D) || (isa<VarDecl>(D) && !isa<ParmVarDecl>(D)))
      return true;
    if (isa<ParmVarDecl>(D)) {
      unsigned ID = S.Diags.getCustomDiagID(
          DiagnosticsEngine::Error,
          "'kfuse_scratch' attribute cannot be applied to a parameter: the "
          "promise belongs to the caller's buffer; declare the variable or "
          "field it comes from scratch, or call kf_rt_scratch() "
          "(kfuse/rt.h) on the range");
      S.Diag(Attr.getLoc(), ID);
      return false;
    }
    S.Diag(Attr.getLoc(), diag::err_attribute_wrong_decl_type_str)
        << Attr << Attr.isRegularKeywordAttribute()
        << "pointer variables and fields";
    return false;
  }

  AttrHandling handleDeclAttribute(Sema &S, Decl *D,
                                   const ParsedAttr &Attr) const override {
    if (Attr.getNumArgs() != 0) {
      S.Diag(Attr.getLoc(), diag::err_attribute_wrong_number_arguments)
          << Attr << 0;
      return AttributeNotApplied;
    }
    auto *VD = cast<ValueDecl>(D);
    QualType T = VD->getType();
    // A dependent type is checked where it is written; `auto` is not known
    // yet when attributes are applied: ask for the pointer type.
    if (T->isUndeducedType()) {
      S.Diag(Attr.getLoc(), S.Diags.getCustomDiagID(
                                DiagnosticsEngine::Error,
                                "'kfuse_scratch' attribute needs the declared "
                                "type of %0: write the pointer type instead "
                                "of 'auto'"))
          << VD;
      return AttributeNotApplied;
    }
    if (!T->isDependentType() && !T->isPointerType()) {
      S.Diag(Attr.getLoc(), S.Diags.getCustomDiagID(
                                DiagnosticsEngine::Error,
                                "'kfuse_scratch' attribute only applies to "
                                "pointers to device memory; %0 has type %1"))
          << VD << T;
      return AttributeNotApplied;
    }
    if (auto *Var = dyn_cast<VarDecl>(D)) {
      // The host pass reads the pointer where the host code loads it: from a
      // __device__ or __constant__ variable it never does.
      if (Var->hasAttr<CUDADeviceAttr>() || Var->hasAttr<CUDAConstantAttr>() ||
          Var->hasAttr<CUDASharedAttr>()) {
        S.Diag(Attr.getLoc(), S.Diags.getCustomDiagID(
                                  DiagnosticsEngine::Error,
                                  "'kfuse_scratch' attribute only applies to "
                                  "host variables and fields; %0 is a device "
                                  "variable"))
            << VD;
        return AttributeNotApplied;
      }
    }
    if (S.getLangOpts().CUDAIsDevice || kfuse::getScratchMark(VD))
      return AttributeApplied;
    std::string Mark = (kfuse::ScratchMark + " " + VD->getQualifiedNameAsString()).str();
    VD->addAttr(AnnotateAttr::Create(S.Context, Mark, nullptr, 0, Attr.getRange()));
    return AttributeApplied;
  }
};

} // namespace

static ParsedAttrInfoRegistry::Add<KfuseMapAttrInfo>
    X("kfuse_map", "marks a CUDA map kernel for kfuse");
static ParsedAttrInfoRegistry::Add<KfuseScratchAttrInfo>
    Z("kfuse_scratch", "declares a pointer's buffer scratch between kfuse runs");
