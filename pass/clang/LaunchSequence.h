//===- LaunchSequence.h - launch sequences of map kernels -------------------===//
//
// Finds launch sequences of kfuse_map kernels in host function bodies and
// writes each as a `kfuse.seq 1` record (docs/annotations.md), and the map
// launches that cannot be part of one.
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

/// Map launches kfuse leaves unfused for a reason seen in the source: a
/// -Rpass-missed=kfuse remark at Loc.
struct MissedLaunch {
  clang::SourceLocation Loc;
  std::string Message;
};

/// What the host code of a translation unit launches.
struct HostLaunches {
  /// The launch sequences, in the order the host functions and their
  /// statements are visited.
  std::vector<SequenceRecord> Sequences;
  /// Map launches that cannot join the launch before them (with where the
  /// sequence ended and why), and map kernels launched through the runtime
  /// API.
  std::vector<MissedLaunch> Missed;
};

HostLaunches findLaunchSequences(clang::ASTContext &Ctx);

} // namespace kfuse

#endif
