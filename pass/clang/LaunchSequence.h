//===- LaunchSequence.h - launch sequences of map kernels -------------------===//
//
// Finds launch sequences of kfuse_map kernels in host function bodies and
// writes each as a `kfuse.seq 1` record (docs/annotations.md).
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_CLANG_LAUNCHSEQUENCE_H
#define KFUSE_CLANG_LAUNCHSEQUENCE_H

#include <string>
#include <vector>

#include "clang/Basic/SourceLocation.h"

namespace clang {
class ASTContext;
} // namespace clang

namespace kfuse {

/// One launch sequence: where it starts and its record text.
struct SequenceRecord {
  clang::SourceLocation Site; ///< the first launch's `<<<`
  std::string Text;
};

/// All launch sequences of the translation unit, in the order the host
/// functions and their statements are visited.
std::vector<SequenceRecord> findLaunchSequences(clang::ASTContext &Ctx);

} // namespace kfuse

#endif
