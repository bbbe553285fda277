//===- ErrorCheckNames.h - the C library calls an error check may make ----===//
//
// Shared by the Clang plugin (LaunchSequence.cpp, which reads checks in the
// AST) and the host pass (HostChecks.cpp, which reads them in the IR), so
// that both take the same calls for a check's output and its end.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_PASS_ERRORCHECKNAMES_H
#define KFUSE_PASS_ERRORCHECKNAMES_H

#include "llvm/ADT/StringRef.h"

namespace kfuse {

/// The C library's output to a stream: no device memory, no exception.
inline constexpr llvm::StringLiteral CheckOutputFunctions[] = {
    "fprintf", "printf", "vfprintf", "vprintf", "puts",  "fputs",
    "fputc",   "putc",   "putchar",  "fwrite",  "fflush", "perror"};

/// The C library's ways to end the program (`assert`'s failure among them).
inline constexpr llvm::StringLiteral CheckEndFunctions[] = {
    "exit", "_Exit", "quick_exit", "abort", "__assert_fail", "__assert_rtn",
    "__assert_perror_fail"};

} // namespace kfuse

#endif
