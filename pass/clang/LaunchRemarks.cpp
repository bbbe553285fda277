//===- LaunchRemarks.cpp - why launches of map kernels stay apart ---------===//
//
// Names for the statements and calls that end a launch sequence, and the
// recognition of map kernels launched through the CUDA runtime's launch API,
// which the host pass never sees as launches (only `<<<...>>>` are).
//
//===----------------------------------------------------------------------===//
#include "LaunchRemarks.h"
#include "Kfuse.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

using namespace clang;

std::string kfuse::describeStmt(const Stmt *S) {
  if (isa<IfStmt>(S))
    return "an 'if' statement";
  if (isa<ForStmt>(S) || isa<CXXForRangeStmt>(S))
    return "a 'for' loop";
  if (isa<WhileStmt>(S))
    return "a 'while' loop";
  if (isa<DoStmt>(S))
    return "a 'do' loop";
  if (isa<SwitchStmt>(S))
    return "a 'switch' statement";
  if (isa<CompoundStmt>(S))
    return "a nested block";
  if (isa<ReturnStmt>(S))
    return "a 'return'";
  if (isa<BreakStmt>(S))
    return "a 'break'";
  if (isa<ContinueStmt>(S))
    return "a 'continue'";
  if (isa<GotoStmt>(S) || isa<IndirectGotoStmt>(S))
    return "a 'goto'";
  if (isa<LabelStmt>(S))
    return "a label";
  if (isa<CaseStmt>(S))
    return "a 'case' label";
  if (isa<DefaultStmt>(S))
    return "a 'default' label";
  if (isa<AsmStmt>(S))
    return "an 'asm' statement";
  if (isa<CXXTryStmt>(S))
    return "a 'try' block";
  if (isa<DeclStmt>(S))
    return "a declaration";
  if (const auto *CE = dyn_cast<CallExpr>(S))
    return describeCall(CE);
  return std::string("a statement of kind ") + S->getStmtClassName();
}

std::string kfuse::describeCall(const CallExpr *CE) {
  const FunctionDecl *FD = CE->getDirectCallee();
  if (!FD)
    return "an indirect call";
  std::string Name = FD->getQualifiedNameAsString();
  if (isa<CUDAKernelCallExpr>(CE))
    return isMapKernel(FD) ? "a launch of '" + Name + "'"
                           : "a launch of '" + Name + "' (not a kfuse_map kernel)";
  if (isa<CXXConstructorDecl>(FD))
    return "a call of the constructor of '" +
           cast<CXXConstructorDecl>(FD)->getParent()->getQualifiedNameAsString() + "'";
  return "a call to '" + Name + "'";
}

std::string kfuse::fromMacro(SourceLocation Loc, const ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  StringRef Name;
  // Walk out to the macro invoked in the source; an argument of a macro is
  // its caller's text, not part of the macro.
  while (Loc.isMacroID()) {
    if (SM.isMacroArgExpansion(Loc)) {
      Loc = SM.getImmediateSpellingLoc(Loc);
      continue;
    }
    Name = Lexer::getImmediateMacroName(Loc, SM, Ctx.getLangOpts());
    Loc = SM.getImmediateMacroCallerLoc(Loc);
  }
  return Name.empty() ? "" : " from macro '" + Name.str() + "'";
}

bool kfuse::queriesLastError(const Stmt *S) {
  if (!S)
    return false;
  if (const auto *CE = dyn_cast<CallExpr>(S))
    if (const FunctionDecl *FD = CE->getDirectCallee())
      if (FD->getIdentifier() &&
          (FD->getName() == "cudaGetLastError" || FD->getName() == "cudaPeekAtLastError"))
        return true;
  for (const Stmt *Child : S->children())
    if (queriesLastError(Child))
      return true;
  return false;
}

std::string kfuse::endAdvice(const Stmt *S) {
  // The launches before the check and after it would run as one, at the
  // last launch: only a check that ends the program on an error, with
  // another after the last launch, reports the same errors then
  // (pass/llvm/HostChecks.h).
  if (queriesLastError(S))
    return "; an error check may stand between launches where it ends the program on an "
           "error (exit, abort, assert) and another follows the sequence's last launch, or "
           "check once after the last launch, where cudaGetLastError() returns an error of "
           "any launch before it";
  return "";
}

const FunctionDecl *kfuse::runtimeApiLaunch(const CallExpr *CE, std::string &API) {
  const FunctionDecl *FD = CE->getDirectCallee();
  if (!FD || !FD->getIdentifier() || isa<CUDAKernelCallExpr>(CE))
    return nullptr;
  StringRef Name = FD->getName();
  // cuda_runtime_api.h renames the entry points under
  // CUDA_API_PER_THREAD_DEFAULT_STREAM.
  StringRef Base = Name;
  if (!Base.consume_back("_ptsz"))
    Base.consume_back("_ptds");
  if (Base != "cudaLaunchKernel" && Base != "cudaLaunchKernelEx" &&
      Base != "cudaLaunchKernelExC" && Base != "cudaLaunchCooperativeKernel")
    return nullptr;
  // The kernel is an argument (the first, or the second after a launch
  // configuration), as a function, its address, or cast to `const void *`.
  for (const Expr *A : CE->arguments()) {
    const Expr *E = A->IgnoreParenCasts();
    if (const auto *UO = dyn_cast<UnaryOperator>(E); UO && UO->getOpcode() == UO_AddrOf)
      E = UO->getSubExpr()->IgnoreParenCasts();
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
      if (const auto *K = dyn_cast<FunctionDecl>(DRE->getDecl()); K && isMapKernel(K)) {
        API = Name.str();
        return K;
      }
  }
  return nullptr;
}
