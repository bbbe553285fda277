//===- HostMemory.h - which host code cannot see a kernel launch ----------===//
//
// The host pass moves launches later (to the end of their run) and marks
// buffers dead. Both rest on facts about the host function's memory: which
// stack slots nobody outside the function can reach, which instructions can
// therefore not touch device memory or synchronise, and where a device
// pointer held in a slot is used after a given point.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_PASS_LLVM_HOSTMEMORY_H
#define KFUSE_PASS_LLVM_HOSTMEMORY_H

#include "llvm/ADT/DenseMap.h"
#include "llvm/IR/Instructions.h"

#include <cstdint>
#include <functional>
#include <string>

namespace llvm {
class TargetLibraryInfo;
}

namespace kfuse {

/// llvm.var.annotation: marks a local's slot (clang's annotate, kfuse_scratch).
bool isVarAnnotation(const llvm::Instruction &I);

/// llvm.ptr.annotation: returns its pointer operand, marked (an annotated field).
bool isPtrAnnotation(const llvm::Instruction &I);

class HostMemory {
public:
  /// \p GetTLI, where given, names the C library functions a function
  /// calls (TargetLibraryAnalysis); without it every declared callee is
  /// unknown code.
  explicit HostMemory(
      std::function<const llvm::TargetLibraryInfo *(const llvm::Function &)> GetTLI = {})
      : GetTLI(std::move(GetTLI)) {}

  /// True for an alloca or byval argument of the function whose address
  /// never leaves it: it is only loaded, stored, copied with memcpy/memset,
  /// handed to a dim3 constructor, filled by a CUDA out-parameter API
  /// (cudaMalloc(&p), cudaStreamCreate(&s), ...) or copied into a byval
  /// stub argument. Nothing but this function's own code can read it.
  bool isPrivateSlot(const llvm::Value *Base);

  /// Why \p I, executed between two launches, might touch device memory or
  /// synchronise with the device (and so must not be moved across a launch);
  /// "" when it provably cannot. A call of a function defined here (an
  /// accessor such as `buf.get()`, `v.data()`, a conversion such as
  /// `__float2half(a)`) is looked into: harmless when its body, and those of
  /// the functions it calls, only read memory, write stack memory (their own
  /// locals, and the caller's slots they are handed), cannot throw and
  /// cannot loop. A C library function whose only effect is on errno
  /// (`expf(a)`, with GetTLI) is harmless too: no kernel reads errno.
  std::string hazard(const llvm::Instruction &I);

  /// True when the device buffer \p Ptr (an argument of a launch in a run)
  /// is provably never used after the run except by cudaFree: it was loaded
  /// from a private slot that the run does not change, and no load of that
  /// slot reachable from \p RunEnd feeds anything but cudaFree. \p RunStart
  /// is the first instruction of the run.
  bool isDeadAfter(const llvm::Value *Ptr, const llvm::Instruction &RunStart,
                   const llvm::Instruction &RunEnd);

private:
  /// \p StackArgs: bit k set where argument k points to stack memory of a
  /// caller (arguments from the 64th on are never taken for stack).
  std::string calleeHazard(const llvm::Function &F, uint64_t StackArgs, unsigned Depth,
                           unsigned &Budget);
  bool errnoOnlyLibCall(const llvm::CallBase &CB);

  std::function<const llvm::TargetLibraryInfo *(const llvm::Function &)> GetTLI;
  llvm::DenseMap<const llvm::Value *, bool> PrivateSlots;
  /// Verdicts of calleeHazard() for whole callees, per set of arguments
  /// that point to stack memory ("" = harmless).
  llvm::DenseMap<std::pair<const llvm::Function *, uint64_t>, std::string> Callees;
};

} // namespace kfuse

#endif
