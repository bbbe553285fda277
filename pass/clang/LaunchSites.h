//===- LaunchSites.h - where each host function launches kernels --------===//
//
// The host pass binds runs of launches to the device side's sequences by the
// line and column of a launch. Without -g or a remark flag the host IR has
// no debug locations, and turning on location tracking for the pass alone
// costs the host compilation a tenth of its time. Instead the Clang plugin
// lists, for each host function, its launches and its calls of functions
// that launch, with their line and column, in source order
// (docs/annotations.md, `kfuse.launch-sites`); the host pass gives the IR's
// launches and calls of each kernel or function those locations in the same
// order, where the counts agree (HostRewrite.cpp, placeLaunchSites).
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_CLANG_LAUNCHSITES_H
#define KFUSE_CLANG_LAUNCHSITES_H

#include <string>

namespace clang {
class ASTContext;
class CodeGenOptions;
} // namespace clang

namespace kfuse {

/// The `kfuse.launch-sites 1` text of the translation unit: a `fn` line for
/// each host function that launches a kernel or calls a function that does,
/// under each of its symbol names, followed by its `launch` and `call`
/// lines in source order. Empty when there is none.
std::string launchSites(clang::ASTContext &Ctx, const clang::CodeGenOptions &CG);

} // namespace kfuse

#endif
