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
// Registers __attribute__((kfuse_impl("function", threads))) and
// [[kfuse_impl(...)]]: the kernel is a map kernel
// (as kfuse_map) and one implementation of `function` with `threads`
// threads per instance, its size parameter counting its threads. It becomes
// AnnotateAttr("kfuse_impl <function> <threads>") next to the kfuse_map
// mark; the device pass lets a fused kernel run any implementation of a
// launch's function (docs/annotations.md, README).
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

/// Marks FD a map kernel (once) and records its parameters' names.
void addMapMark(Sema &S, FunctionDecl *FD, SourceRange Range) {
  if (kfuse::getMapMark(FD))
    return;
  // The payload is the annotation string, never an argument expression:
  // codegen cannot emit arguments that plugins attach.
  FD->addAttr(AnnotateAttr::Create(S.Context, kfuse::MapMark, nullptr, 0, Range));
  // The parameters' names, for remarks: at -O2 clang discards the IR's
  // value names, and without -g nothing else keeps them.
  if (FD->getNumParams() && llvm::any_of(FD->parameters(), [](const ParmVarDecl *P) {
        return !P->getName().empty();
      })) {
    std::string Names(kfuse::ParamsMark);
    for (const ParmVarDecl *P : FD->parameters())
      Names += " " + (P->getName().empty() ? std::string("-") : P->getName().str());
    FD->addAttr(AnnotateAttr::Create(S.Context, Names, nullptr, 0, Range));
  }
}

bool onFunction(Sema &S, const ParsedAttr &Attr, const Decl *D) {
  if (isa<FunctionDecl>(D) || isa<FunctionTemplateDecl>(D))
    return true;
  S.Diag(Attr.getLoc(), diag::err_attribute_wrong_decl_type_str)
      << Attr << Attr.isRegularKeywordAttribute() << "__global__ functions";
  return false;
}

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
    return onFunction(S, Attr, D);
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
    addMapMark(S, cast<FunctionDecl>(D), Attr.getRange());
    return AttributeApplied;
  }
};

/// Most threads per instance kfuse_impl accepts: one block's.
constexpr uint64_t MaxImplThreads = 1024;

struct KfuseImplAttrInfo : public ParsedAttrInfo {
  KfuseImplAttrInfo() {
    // No kfuse::impl: Clang does not parse the arguments of a scoped
    // attribute it does not know itself.
    static constexpr Spelling S[] = {{ParsedAttr::AS_GNU, "kfuse_impl"},
                                     {ParsedAttr::AS_CXX11, "kfuse_impl"}};
    Spellings = S;
    OptArgs = 15; // parsed, then counted here for a clear message
  }

  bool diagAppertainsToDecl(Sema &S, const ParsedAttr &Attr,
                            const Decl *D) const override {
    return onFunction(S, Attr, D);
  }

  AttrHandling handleDeclAttribute(Sema &S, Decl *D,
                                   const ParsedAttr &Attr) const override {
    auto Error = [&](SourceLocation Loc, const char *Text) {
      S.Diag(Loc.isValid() ? Loc : Attr.getLoc(),
             S.Diags.getCustomDiagID(DiagnosticsEngine::Error, "%0"))
          << Text;
      return AttributeNotApplied;
    };
    if (Attr.getNumArgs() != 2)
      return Error(Attr.getLoc(),
                   "'kfuse_impl' attribute takes two arguments: the function's name, a "
                   "string literal, and the kernel's threads per instance, an integer "
                   "constant: kfuse_impl(\"mmul33\", 9)");
    auto *Name = Attr.isArgExpr(0)
                     ? dyn_cast<StringLiteral>(Attr.getArgAsExpr(0)->IgnoreParenCasts())
                     : nullptr;
    if (!Name || !Name->isOrdinary())
      return Error(Attr.isArgExpr(0) ? Attr.getArgAsExpr(0)->getExprLoc() : Attr.getLoc(),
                   "'kfuse_impl' attribute's first argument must be a string literal "
                   "naming the function the kernel implements");
    StringRef Fn = Name->getString();
    if (Fn.empty() || Fn.find_first_not_of("abcdefghijklmnopqrstuvwxyz"
                                           "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_:.") !=
                          StringRef::npos)
      return Error(Name->getExprLoc(),
                   "'kfuse_impl' attribute's function name must be letters, digits, '_', "
                   "':' or '.', and not empty");
    Expr *Threads = Attr.isArgExpr(1) ? Attr.getArgAsExpr(1) : nullptr;
    if (!Threads || Threads->isValueDependent() || Threads->isTypeDependent())
      return Error(Threads ? Threads->getExprLoc() : Attr.getLoc(),
                   "'kfuse_impl' attribute's threads per instance must be an integer "
                   "constant that does not depend on a template parameter");
    std::optional<llvm::APSInt> V = Threads->getIntegerConstantExpr(S.Context);
    if (!V || V->isNegative() || V->getZExtValue() < 1 || V->getZExtValue() > MaxImplThreads)
      return Error(Threads->getExprLoc(),
                   "'kfuse_impl' attribute's threads per instance must be an integer "
                   "constant from 1 to 1024");
    if (auto *FTD = dyn_cast<FunctionTemplateDecl>(D))
      D = FTD->getTemplatedDecl();
    auto *FD = cast<FunctionDecl>(D);
    std::string Mark = (kfuse::ImplMark + " " + Fn + " " + Twine(V->getZExtValue())).str();
    // Declarations that disagree are diagnosed at the end of the
    // translation unit, once their attributes are merged (KfuseAction.cpp).
    for (const auto *A : FD->specific_attrs<AnnotateAttr>())
      if (A->getAnnotation() == Mark)
        return AttributeApplied;
    addMapMark(S, FD, Attr.getRange());
    FD->addAttr(AnnotateAttr::Create(S.Context, Mark, nullptr, 0, Attr.getRange()));
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
static ParsedAttrInfoRegistry::Add<KfuseImplAttrInfo>
    Y("kfuse_impl", "marks a CUDA map kernel as one implementation of a function");
static ParsedAttrInfoRegistry::Add<KfuseScratchAttrInfo>
    Z("kfuse_scratch", "declares a pointer's buffer scratch between kfuse runs");
