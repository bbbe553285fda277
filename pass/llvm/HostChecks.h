//===- HostChecks.h - error checks between launches -----------------------===//
//
// Programs check each launch: `k<<<g, b>>>(...); CHECK(cudaGetLastError());`
// where the check prints the error and exits, or only prints it. The host
// pass delays a run's launches to its last one, so a check between them
// runs before the launches it checks: it sees the errors of earlier code,
// and an error of a launch before it surfaces at a later check instead. That
// is the program's behaviour up to which check reports the error, provided
//
//  - every query of the last error between the launches is tested by a
//    check that ends the program on an error (it may print and reset the
//    device first, but touches no device memory and neither returns nor
//    throws): a check that went on would let later code run, or a later
//    check stop the program, where the original did otherwise;
//  - such a check follows the run's last launch, so that an error of any of
//    its launches is still reported (an error stays until
//    cudaGetLastError() reads it).
//
// The program then ends on the same errors, after the same host code, with
// the message of a later check. This file recognises such checks;
// HostRewrite.cpp enforces the rules, and the Clang plugin
// (LaunchSequence.cpp) applies the same rules to sequences.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_PASS_LLVM_HOSTCHECKS_H
#define KFUSE_PASS_LLVM_HOSTCHECKS_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Instructions.h"

#include <string>

namespace kfuse {

class HostMemory;

/// What a call is to an error check.
enum class CheckCall {
  Other,
  /// cudaGetLastError(), cudaPeekAtLastError(): reads (and clears) the
  /// runtime's last error; touches no device memory and cannot throw.
  Query,
  /// cudaGetErrorString/Name, the C library's output to a stream (fprintf,
  /// puts, perror, ...) and std::ostream's (`std::cerr << ...`): no device
  /// memory, no exception (iostreams throw only where asked to).
  Report,
  /// exit, abort, __assert_fail, ...: the program ends here.
  Terminate,
  /// cudaDeviceReset(): allowed where the program ends after it.
  Reset,
};

/// Classifies a call by its callee (a declaration of the library function).
CheckCall classifyCheckCall(const llvm::CallBase &CB);

/// True for a call of cudaGetLastError() or cudaPeekAtLastError().
bool isLastErrorQuery(const llvm::Instruction &I);

/// Whether the call \p CB, between two launches, is a check to inline so
/// that its branches can be crossed: a defined, non-interposable function
/// holding no launch that asks for the last error itself
/// (`getLastCudaError("k")`) or is handed the answer (`gpuAssert(
/// cudaPeekAtLastError(), __FILE__, __LINE__)`).
bool isCheckHelperCall(const llvm::CallBase &CB);

/// Reads a value through the function's private slots: the value last
/// stored to a slot where the caller knows it, else null.
using SlotReader = llvm::function_ref<llvm::Value *(const llvm::LoadInst &)>;

/// An error check's branch: `if (e != cudaSuccess) { ...; exit(1); }`,
/// where e is what a query returned. Every path on its error side ends the
/// program, and touches no device memory on the way (HostMemory::hazard,
/// apart from the calls CheckCall allows); control goes on at Join, the
/// success side.
struct CheckBranch {
  llvm::BasicBlock *Join = nullptr;
  /// The error side.
  llvm::SmallVector<llvm::BasicBlock *, 8> Blocks;
  /// Blocks that only the error side's branches on known conditions lead
  /// to, as the inlined `if (abort) exit(code);` with abort true leaves
  /// its else side: never run.
  llvm::SmallVector<llvm::BasicBlock *, 2> Dead;
  /// Where control goes when the query answers cudaSuccess: Join, or,
  /// for a test of a query whose error side does not end the program,
  /// the side it would have been.
  llvm::BasicBlock *Success = nullptr;
  /// The query whose answer the branch tests.
  llvm::CallBase *Query = nullptr;
  /// Why \p Br is not such a branch, and where; empty when it is.
  std::string Why;
  llvm::Instruction *Bad = nullptr;
};

/// Reads \p Br as an error check. \p Read resolves loads of private slots
/// (a tested variable, or an inlined check's parameter such as gpuAssert's
/// `abort`, whose branch is then taken as it is known to go).
CheckBranch checkBranch(llvm::Instruction &Br, HostMemory &Mem, SlotReader Read);

} // namespace kfuse

#endif
