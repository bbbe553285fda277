//===- LaunchRemarks.h - why launches of map kernels stay apart -----------===//
//
// The words of the plugin's -Rpass-missed=kfuse remarks: what a statement
// that ends a launch sequence is, and which map kernel a call of the CUDA
// runtime's launch API launches.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_CLANG_LAUNCHREMARKS_H
#define KFUSE_CLANG_LAUNCHREMARKS_H

#include <string>

namespace clang {
class ASTContext;
class CallExpr;
class FunctionDecl;
class SourceLocation;
class Stmt;
} // namespace clang

namespace kfuse {

/// What statement \p S is, as a noun phrase: "an 'if' statement", "a 'for'
/// loop", "a nested block".
std::string describeStmt(const clang::Stmt *S);

/// What call \p CE is: "a call to 'opaque'", "a launch of 'k' (not
/// a kfuse_map kernel)", "an indirect call".
std::string describeCall(const clang::CallExpr *CE);

/// " from macro 'NAME'" when \p Loc comes from the expansion of macro NAME
/// (the outermost one), "" otherwise.
std::string fromMacro(clang::SourceLocation Loc, const clang::ASTContext &Ctx);

/// What a user can do about \p S, a statement that ends a launch sequence,
/// as a clause to append to the remark ("; check errors ..."), or "": an
/// error check (a call of cudaGetLastError or cudaPeekAtLastError) can
/// move after the sequence's last launch, where it sees the errors of
/// every launch before it.
std::string endAdvice(const clang::Stmt *S);

/// Whether \p S calls cudaGetLastError() or cudaPeekAtLastError().
bool queriesLastError(const clang::Stmt *S);

/// The map kernel that \p CE launches through the runtime API
/// (cudaLaunchKernel, cudaLaunchKernelEx, cudaLaunchKernelExC,
/// cudaLaunchCooperativeKernel, and their per-thread-stream forms), or null.
/// \p API is set to the function's name.
const clang::FunctionDecl *runtimeApiLaunch(const clang::CallExpr *CE, std::string &API);

} // namespace kfuse

#endif
