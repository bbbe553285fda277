//===- HostChecks.cpp - error checks between launches ---------------------===//
//
// See HostChecks.h.
//
//===----------------------------------------------------------------------===//
#include "HostChecks.h"
#include "../ErrorCheckNames.h"
#include "HostLaunch.h"
#include "HostMemory.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/ConstantFolding.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;

namespace kfuse {

/// How many blocks a branch region may hold: a check's failure path is a
/// few blocks (a print, a second test, an exit).
static constexpr unsigned MaxRegionBlocks = 32;

CheckCall classifyCheckCall(const CallBase &CB) {
  const Function *F = CB.getCalledFunction();
  if (!F)
    return CheckCall::Other;
  if (F->getIntrinsicID() == Intrinsic::trap)
    return CheckCall::Terminate;
  // Output to a std::ostream (`std::cerr << cudaGetErrorString(e) <<
  // std::endl`): the standard library's, which <ostream> may define
  // inline in the module; no program may define these names.
  StringRef Name = F->getName();
  if (Name.starts_with("_ZStlsISt11char_traitsIcEERSt13basic_ostreamIcT_ES5_") ||
      Name.starts_with("_ZNSolsE") || Name.starts_with("_ZSt4endlIcSt11char_traitsIcEE") ||
      Name == "_ZNSo5flushEv" || Name.starts_with("_ZSt16__ostream_insertIcSt11char_traitsIcEE"))
    return CheckCall::Report;
  // A function the program defines is its own code, whatever its name.
  if (!F->isDeclaration() || F->isIntrinsic())
    return CheckCall::Other;
  StringRef Api = cudaApiName(F);
  if (Api == "cudaGetLastError" || Api == "cudaPeekAtLastError")
    return CheckCall::Query;
  if (Api == "cudaGetErrorString" || Api == "cudaGetErrorName")
    return CheckCall::Report;
  if (Api == "cudaDeviceReset")
    return CheckCall::Reset;
  // (_FORTIFY_SOURCE's checked printf, std::terminate: the IR's names.)
  if (is_contained(CheckOutputFunctions, Name) || Name == "__fprintf_chk" ||
      Name == "__printf_chk")
    return CheckCall::Report;
  if (is_contained(CheckEndFunctions, Name) || Name == "_ZSt9terminatev")
    return CheckCall::Terminate;
  return CheckCall::Other;
}

bool isLastErrorQuery(const Instruction &I) {
  const auto *CB = dyn_cast<CallBase>(&I);
  return CB && classifyCheckCall(*CB) == CheckCall::Query;
}

bool isCheckHelperCall(const CallBase &CB) {
  const Function *F = CB.getCalledFunction();
  if (!F || F->isDeclaration() || F->isInterposable() || F->isVarArg() ||
      F == CB.getFunction() || F->getInstructionCount() > 200)
    return false;
  bool Handed = any_of(CB.args(), [](const Use &A) {
    const auto *I = dyn_cast<Instruction>(A.get());
    return I && isLastErrorQuery(*I);
  });
  bool Asks = false;
  for (const Instruction &I : instructions(*F)) {
    if (isPushCall(I))
      return false;
    Asks |= isLastErrorQuery(I);
  }
  return Handed || Asks;
}

namespace {

/// \p V with private slots read through: a load of a slot whose value is
/// known (Read), or of one stored exactly once and otherwise only loaded
/// (a slot handed to a call may hold anything after it).
Value *throughSlots(Value *V, SlotReader Read) {
  for (unsigned Depth = 0; Depth < 8; ++Depth) {
    auto *LI = dyn_cast<LoadInst>(V);
    auto *Slot = LI && LI->isSimple() ? dyn_cast<AllocaInst>(LI->getPointerOperand()) : nullptr;
    if (!Slot)
      return V;
    Value *Stored = Read(*LI);
    if (!Stored) {
      StoreInst *Only = nullptr;
      for (User *U : Slot->users()) {
        if (isa<LoadInst>(U) || cast<Instruction>(U)->isLifetimeStartOrEnd() ||
            cast<Instruction>(U)->isDebugOrPseudoInst())
          continue;
        auto *SI = dyn_cast<StoreInst>(U);
        if (!SI || Only || SI->getPointerOperand() != Slot) {
          Only = nullptr;
          break;
        }
        Only = SI;
      }
      Stored = Only ? Only->getValueOperand() : nullptr;
    }
    if (!Stored || Stored->getType() != LI->getType())
      return V;
    V = Stored;
  }
  return V;
}

/// The constant \p V is where slots, casts and comparisons of constants
/// fold to one, else null.
Constant *constantOf(Value *V, SlotReader Read, const DataLayout &DL, unsigned Depth = 0) {
  V = throughSlots(V, Read);
  if (auto *C = dyn_cast<Constant>(V))
    return C;
  if (Depth > 4)
    return nullptr;
  if (auto *CI = dyn_cast<CastInst>(V))
    if (Constant *Op = constantOf(CI->getOperand(0), Read, DL, Depth + 1))
      return ConstantFoldCastOperand(CI->getOpcode(), Op, CI->getType(), DL);
  if (auto *Cmp = dyn_cast<CmpInst>(V)) {
    Constant *L = constantOf(Cmp->getOperand(0), Read, DL, Depth + 1);
    Constant *R = L ? constantOf(Cmp->getOperand(1), Read, DL, Depth + 1) : nullptr;
    if (R)
      return ConstantFoldCompareInstOperands(Cmp->getPredicate(), L, R, DL);
  }
  return nullptr;
}

/// Where control can go from \p BB on an error path: an invoke's normal
/// destination only (its call cannot throw, or the path is refused for
/// it), a branch on a known condition its taken side only.
void errorSuccessors(BasicBlock *BB, SlotReader Read, SmallVectorImpl<BasicBlock *> &Out) {
  Out.clear();
  Instruction *T = BB->getTerminator();
  if (auto *II = dyn_cast<InvokeInst>(T)) {
    Out.push_back(II->getNormalDest());
    return;
  }
  if (auto *Br = dyn_cast<BranchInst>(T); Br && Br->isConditional())
    if (auto *C = dyn_cast_or_null<ConstantInt>(
            constantOf(Br->getCondition(), Read, BB->getDataLayout()))) {
      Out.push_back(Br->getSuccessor(C->isZero() ? 1 : 0));
      return;
    }
  for (BasicBlock *S : successors(BB))
    Out.push_back(S);
}

} // namespace

CheckBranch checkBranch(Instruction &T, HostMemory &Mem, SlotReader Read) {
  CheckBranch R;
  auto Refuse = [&](std::string Why, Instruction *At) {
    R.Success = R.Join;
    R.Join = nullptr;
    R.Blocks.clear();
    R.Dead.clear();
    R.Query = nullptr;
    R.Why = std::move(Why);
    R.Bad = At;
    return R;
  };
  // `e != cudaSuccess`, `cudaSuccess != e`, `e == cudaSuccess`, with e the
  // answer of a query.
  auto *Br = dyn_cast<BranchInst>(&T);
  auto *Cmp = Br && Br->isConditional() ? dyn_cast<ICmpInst>(Br->getCondition()) : nullptr;
  if (!Cmp || !Cmp->isEquality())
    return Refuse("a branch", &T);
  for (unsigned Side = 0; Side < 2 && !R.Query; ++Side) {
    auto *Zero = dyn_cast<ConstantInt>(Cmp->getOperand(1 - Side));
    auto *Q = dyn_cast<CallBase>(throughSlots(Cmp->getOperand(Side), Read));
    if (Zero && Zero->isZero() && Q && isLastErrorQuery(*Q))
      R.Query = Q;
  }
  if (!R.Query)
    return Refuse("a branch", &T);
  BasicBlock *Head = Br->getParent();
  BasicBlock *Error = Br->getSuccessor(Cmp->getPredicate() == CmpInst::ICMP_NE ? 0 : 1);
  R.Join = Br->getSuccessor(Cmp->getPredicate() == CmpInst::ICMP_NE ? 1 : 0);
  // Every path from the error side, acyclic and short, ends in
  // `unreachable`: the program ends there.
  DenseMap<BasicBlock *, unsigned> State; // 1: on the stack, 2: done
  SmallVector<std::pair<BasicBlock *, unsigned>, 16> Stack;
  SmallVector<BasicBlock *, 4> Succ;
  std::string Why;
  auto Enter = [&](BasicBlock *BB) {
    if (BB == Head || BB == R.Join) {
      Why = "an error check whose failure path goes on";
      return false;
    }
    auto [It, New] = State.try_emplace(BB, 1);
    if (!New) {
      Why = "an error check whose failure path loops";
      return It->second == 2;
    }
    R.Blocks.push_back(BB);
    Instruction *Term = BB->getTerminator();
    if (R.Blocks.size() > MaxRegionBlocks || (!isa<UnreachableInst>(Term) && Term->getNumSuccessors() == 0)) {
      Why = "an error check whose failure path returns";
      return false;
    }
    if (isa<UnreachableInst>(Term))
      It->second = 2;
    else
      Stack.push_back({BB, 0});
    return true;
  };
  // Refused from here on at the query, where the check was written (an
  // inlined check's branch lies in its function).
  if (!Enter(Error))
    return Refuse(Why, R.Query);
  while (!Stack.empty()) {
    BasicBlock *BB = Stack.back().first;
    errorSuccessors(BB, Read, Succ);
    unsigned Next = Stack.back().second++;
    if (Next == Succ.size()) {
      State[BB] = 2;
      Stack.pop_back();
      continue;
    }
    if (!Enter(Succ[Next]))
      return Refuse(Why, R.Query);
  }
  // What the known conditions cut off, and what only that leads to.
  SmallPtrSet<BasicBlock *, 8> Off(R.Blocks.begin(), R.Blocks.end());
  for (unsigned I = 0; I < R.Blocks.size() + R.Dead.size(); ++I) {
    BasicBlock *BB = I < R.Blocks.size() ? R.Blocks[I] : R.Dead[I - R.Blocks.size()];
    for (BasicBlock *S : successors(BB))
      if (S != R.Join && !Off.count(S) &&
          all_of(predecessors(S), [&](BasicBlock *P) { return Off.count(P) > 0; }) &&
          R.Dead.size() < MaxRegionBlocks) {
        Off.insert(S);
        R.Dead.push_back(S);
      }
  }
  for (BasicBlock *BB : R.Blocks)
    for (Instruction &I : *BB) {
      if (auto *CB = dyn_cast<CallBase>(&I)) {
        if (classifyCheckCall(*CB) != CheckCall::Other)
          continue;
        // A caught exception would find the later launches run.
        if (const Function *Callee = CB->getCalledFunction();
            Callee && (Callee->getName() == "__cxa_allocate_exception" ||
                       Callee->getName() == "__cxa_throw"))
          return Refuse("an error check whose failure path throws", R.Query);
      }
      if (I.isTerminator() && !isa<InvokeInst>(I))
        continue;
      if (std::string Why = Mem.hazard(I); !Why.empty())
        return Refuse(Why + " on an error check's failure path", &I);
    }
  R.Success = R.Join;
  return R;
}

} // namespace kfuse
