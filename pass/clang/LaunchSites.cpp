//===- LaunchSites.cpp - where each host function launches kernels ------===//
//
// Lists, for each host function with a body, the launches it makes and its
// calls of host functions that launch, each as the host compilation would
// place it: a launch at its `<<<` (where clang puts the configuration push),
// a call at its callee's name (clang's location for the call). The host
// pass numbers the IR's launches of each kernel, and calls of each
// function, in instruction order, and clang emits a function's statements
// in source order; so the k-th of each here is the k-th there. Where clang
// leaves code out (an arm of an `if` whose condition is a constant, what
// follows a `return`) this listing leaves it out too; where it still
// differs, the counts differ and the host pass places nothing for that
// kernel or function in that function (its launches then run unfused).
//
//===----------------------------------------------------------------------===//
#include "LaunchSites.h"
#include "Kfuse.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/GlobalDecl.h"
#include "clang/AST/Mangle.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/CodeGenOptions.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>

using namespace clang;

namespace {

/// Whether \p FD is code of the host: not a kernel, not device-only.
bool isHostFunction(const FunctionDecl *FD) {
  return !FD->hasAttr<CUDAGlobalAttr>() &&
         !(FD->hasAttr<CUDADeviceAttr>() && !FD->hasAttr<CUDAHostAttr>());
}

/// The launches and calls of one function body, in the order clang emits
/// them. Lambdas and blocks inside it are functions of their own.
class BodyScan : public RecursiveASTVisitor<BodyScan> {
public:
  using Base = RecursiveASTVisitor<BodyScan>;
  BodyScan(ASTContext &Ctx, llvm::function_ref<bool(const FunctionDecl *)> Launches)
      : Ctx(Ctx), Launches(Launches) {}

  struct Item {
    bool IsLaunch;
    const FunctionDecl *Target;
    SourceLocation Loc;
  };
  std::vector<Item> Items;

  /// A lambda's body is its call operator's, scanned on its own.
  bool TraverseLambdaExpr(LambdaExpr *LE) {
    Lambdas.push_back(LE->getCallOperator());
    return true;
  }
  bool TraverseBlockExpr(BlockExpr *) { return true; }
  std::vector<FunctionDecl *> Lambdas;

  /// Clang emits a `for` as init, condition, body, increment.
  bool TraverseForStmt(ForStmt *S) {
    return TraverseStmt(S->getInit()) && TraverseStmt(S->getConditionVariableDeclStmt()) &&
           TraverseStmt(S->getCond()) && TraverseStmt(S->getBody()) && TraverseStmt(S->getInc());
  }

  /// An `if` whose condition folds to a constant: clang emits the live arm
  /// only (CodeGenFunction::EmitIfStmt).
  bool TraverseIfStmt(IfStmt *S) {
    bool Value = false;
    const Expr *Cond = S->getCond();
    if (Cond && !S->isConsteval() && !S->getConditionVariable() &&
        Cond->EvaluateAsBooleanCondition(Value, Ctx) && !Cond->HasSideEffects(Ctx))
      return TraverseStmt(S->getInit()) && TraverseStmt(Value ? S->getThen() : S->getElse());
    return Base::TraverseIfStmt(S);
  }

  /// What follows a return, break, continue or goto in a block is not
  /// emitted up to a statement with a label or a case in it
  /// (CodeGenFunction::EmitStmt without an insertion point, ContainsLabel).
  bool TraverseCompoundStmt(CompoundStmt *S) {
    bool Unreachable = false;
    for (Stmt *Child : S->body()) {
      if (Unreachable && !containsLabel(Child, false))
        continue;
      Unreachable = isa<ReturnStmt, BreakStmt, ContinueStmt, GotoStmt>(Child);
      if (!TraverseStmt(Child))
        return false;
    }
    return true;
  }

  bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr *K) {
    if (const FunctionDecl *Kernel = K->getDirectCallee())
      Items.push_back({true, Kernel, K->getConfig()->getBeginLoc()});
    return true;
  }

  bool VisitCallExpr(CallExpr *C) {
    if (isa<CUDAKernelCallExpr>(C))
      return true;
    const FunctionDecl *Callee = C->getDirectCallee();
    if (!Callee)
      return true;
    // Of the operators, a lambda's call operator may launch (a launch
    // helper written as a lambda).
    if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(C);
        OC && !(OC->getOperator() == OO_Call && isa<CXXMethodDecl>(Callee) &&
                cast<CXXMethodDecl>(Callee)->getParent()->isLambda()))
      return true;
    if (const auto *MD = dyn_cast<CXXMethodDecl>(Callee);
        MD && MD->isVirtual() && !MD->hasAttr<FinalAttr>() && !MD->getParent()->hasAttr<FinalAttr>())
      return true;
    if (Launches(Callee))
      Items.push_back({false, Callee, C->getExprLoc()});
    return true;
  }

private:
  /// CodeGenFunction::ContainsLabel: a label, or a case of a switch around.
  static bool containsLabel(const Stmt *S, bool IgnoreCases) {
    if (!S)
      return false;
    if (isa<LabelStmt>(S) || (isa<SwitchCase>(S) && !IgnoreCases))
      return true;
    IgnoreCases |= isa<SwitchStmt>(S);
    return llvm::any_of(S->children(),
                        [&](const Stmt *C) { return containsLabel(C, IgnoreCases); });
  }

  ASTContext &Ctx;
  llvm::function_ref<bool(const FunctionDecl *)> Launches;
};

class SiteLister : public RecursiveASTVisitor<SiteLister> {
public:
  using Base = RecursiveASTVisitor<SiteLister>;
  SiteLister(ASTContext &Ctx, const CodeGenOptions &CG)
      : Ctx(Ctx), CG(CG), Names(Ctx), Mangler(Ctx.createMangleContext()) {}

  bool shouldVisitTemplateInstantiations() const { return true; }

  /// Declarations only, outside system headers: function bodies are
  /// BodyScan's.
  bool TraverseDecl(Decl *D) { return kfuse::inSystemHeader(D) || Base::TraverseDecl(D); }
  bool TraverseStmt(Stmt *) { return true; }

  bool VisitFunctionDecl(FunctionDecl *FD) {
    scan(FD);
    return true;
  }

  std::string Out;

private:
  /// Whether \p FD, a host function defined here, launches a kernel in its
  /// own body.
  bool launches(const FunctionDecl *FD) {
    const FunctionDecl *Def = nullptr;
    if (!FD->hasBody(Def) || !isHostFunction(Def))
      return false;
    auto [It, New] = Launching.try_emplace(Def, false);
    if (New) {
      struct Find : RecursiveASTVisitor<Find> {
        bool Found = false;
        bool TraverseLambdaExpr(LambdaExpr *) { return true; }
        bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr *) {
          Found = true;
          return false;
        }
      } F;
      F.TraverseStmt(Def->getBody());
      It->second = F.Found;
    }
    return It->second;
  }

  /// The name of \p Kernel's host stub, `__device_stub__` in place of its
  /// name, as the host IR calls it.
  std::string stubName(const FunctionDecl *Kernel) {
    std::string S;
    llvm::raw_string_ostream OS(S);
    GlobalDecl GD(Kernel, KernelReferenceKind::Stub);
    if (Mangler->shouldMangleDeclName(Kernel))
      Mangler->mangleName(GD, OS);
    else
      OS << "__device_stub__" << Kernel->getName();
    return S;
  }

  /// `<line>:<col>` of \p Loc as the host compilation's debug locations
  /// give it (a macro's expansion, #line directives honoured).
  std::string lineCol(SourceLocation Loc) {
    const SourceManager &SM = Ctx.getSourceManager();
    PresumedLoc P = SM.getPresumedLoc(SM.getExpansionLoc(Loc));
    if (P.isInvalid())
      return "0:0";
    return std::to_string(P.getLine()) + ":" + std::to_string(P.getColumn());
  }

  /// The file clang's debug information names for \p FD's code: where the
  /// function is, after -fdebug-prefix-map (CGDebugInfo::remapDIPath).
  std::string fileOf(const FunctionDecl *FD) {
    const SourceManager &SM = Ctx.getSourceManager();
    PresumedLoc P = SM.getPresumedLoc(SM.getExpansionLoc(FD->getLocation()));
    llvm::SmallString<256> Path(P.isValid() ? P.getFilename() : "<unknown>");
    for (const auto &[From, To] : llvm::reverse(CG.DebugPrefixMap))
      if (llvm::sys::path::replace_path_prefix(Path, From, To))
        break;
    std::string S(Path.str());
    for (char &C : S)
      if (C == '\n' || C == ' ')
        C = '?';
    return S;
  }

  void scan(FunctionDecl *FD) {
    if (!FD || !FD->doesThisDeclarationHaveABody() || FD->isDependentContext() ||
        !isHostFunction(FD) || !Scanned.insert(FD).second)
      return;
    auto Launches = [&](const FunctionDecl *Callee) { return launches(Callee); };
    BodyScan Scan(Ctx, Launches);
    Scan.TraverseStmt(FD->getBody());
    for (FunctionDecl *Lambda : Scan.Lambdas)
      scan(Lambda);
    if (Scan.Items.empty())
      return;
    std::string Body;
    for (const BodyScan::Item &I : Scan.Items)
      Body += (I.IsLaunch ? "launch " + stubName(I.Target) : "call " + Names.getName(I.Target)) +
              " " + lineCol(I.Loc) + "\n";
    std::string File = fileOf(FD);
    std::vector<std::string> Symbols = Names.getAllManglings(FD);
    if (Symbols.empty())
      Symbols.push_back(Names.getName(FD));
    for (const std::string &Sym : Symbols)
      Out += "fn " + Sym + " " + File + "\n" + Body;
  }

  ASTContext &Ctx;
  const CodeGenOptions &CG;
  ASTNameGenerator Names;
  std::unique_ptr<MangleContext> Mangler;
  llvm::DenseMap<const FunctionDecl *, bool> Launching;
  llvm::DenseSet<const FunctionDecl *> Scanned;
};

} // namespace

std::string kfuse::launchSites(ASTContext &Ctx, const CodeGenOptions &CG) {
  SiteLister L(Ctx, CG);
  L.TraverseDecl(Ctx.getTranslationUnitDecl());
  return L.Out.empty() ? "" : "kfuse.launch-sites 1\n" + L.Out;
}
