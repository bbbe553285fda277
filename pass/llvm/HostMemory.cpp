//===- HostMemory.cpp - which host code cannot see a kernel launch --------===//
//
// Escape facts for stack slots, the hazard test for code between launches,
// and the dead-buffer proof. See HostMemory.h.
//
//===----------------------------------------------------------------------===//
#include "HostMemory.h"
#include "HostLaunch.h"
#include "RemarkText.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Analysis/CFG.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;

namespace kfuse {

/// How far and how much of the callees of a call between launches
/// calleeHazard() reads: accessors are a few instructions deep.
static constexpr unsigned MaxCalleeDepth = 4;
static constexpr unsigned MaxCalleeInstructions = 256;

/// CUDA runtime calls that write a handle or pointer into their first
/// argument and keep no reference to it.
static bool isOutParamApi(const Function *F) {
  return StringSwitch<bool>(cudaApiName(F))
      .Cases({"cudaMalloc", "cudaMallocManaged", "cudaMallocAsync",
              "cudaMallocHost", "cudaHostAlloc", "cudaMallocPitch",
              "cudaMallocFromPoolAsync"},
             true)
      .Cases({"cudaStreamCreate", "cudaStreamCreateWithFlags",
              "cudaStreamCreateWithPriority", "cudaEventCreate",
              "cudaEventCreateWithFlags"},
             true)
      .Default(false);
}

/// CUDA runtime calls that take a device pointer by value, use it during the
/// call, and keep no reference to it.
static bool isTransientPtrApi(const Function *F) {
  return StringSwitch<bool>(cudaApiName(F))
      .Cases({"cudaMemcpy", "cudaMemcpyAsync", "cudaMemset", "cudaMemsetAsync",
              "cudaMemcpy2D", "cudaMemcpy2DAsync", "cudaMemset2D",
              "cudaMemset2DAsync", "cudaMemPrefetchAsync"},
             true)
      .Default(false);
}

/// CUDA runtime calls that allocate a fresh buffer into their first argument.
static bool isAllocApi(const Function *F) {
  return StringSwitch<bool>(cudaApiName(F))
      .Cases({"cudaMalloc", "cudaMallocManaged", "cudaMallocAsync",
              "cudaMallocPitch", "cudaMallocFromPoolAsync"},
             true)
      .Default(false);
}

static bool isFreeApi(const Function *F) {
  StringRef N = cudaApiName(F);
  return N == "cudaFree" || N == "cudaFreeAsync";
}

/// The dim3 constructors of vector_types.h: at -O0 they are real calls
/// between launches (the next launch's configuration), and they only store
/// their arguments into `*this`.
static bool isDim3Constructor(const Function *F) {
  return F && (F->getName().starts_with("_ZN4dim3C1E") ||
               F->getName().starts_with("_ZN4dim3C2E"));
}

bool isVarAnnotation(const Instruction &I) {
  const auto *II = dyn_cast<IntrinsicInst>(&I);
  return II && II->getIntrinsicID() == Intrinsic::var_annotation;
}

bool isPtrAnnotation(const Instruction &I) {
  const auto *II = dyn_cast<IntrinsicInst>(&I);
  return II && II->getIntrinsicID() == Intrinsic::ptr_annotation;
}

/// Whether the stack slot \p Base (an alloca or a byval argument) stays the
/// function's own: its address is only loaded from, stored to, copied with
/// memcpy/memset, handed to a dim3 constructor, to a CUDA out-parameter
/// API or to a stub's byval argument, or passed to a call that \p Handed
/// accepts.
static bool staysLocal(const Value *Base, function_ref<bool(const CallBase &)> Handed) {
  SmallVector<const Value *, 8> Work{Base};
  SmallPtrSet<const Value *, 8> Seen{Base};
  while (!Work.empty()) {
    const Value *V = Work.pop_back_val();
    for (const Use &U : V->uses()) {
      const auto *UI = cast<Instruction>(U.getUser());
      if (isa<LoadInst>(UI))
        continue;
      if (auto *SI = dyn_cast<StoreInst>(UI)) {
        if (U.getOperandNo() == SI->getPointerOperandIndex())
          continue;
        return false;
      }
      if (isa<GetElementPtrInst>(UI) || isa<BitCastInst>(UI) || isPtrAnnotation(*UI)) {
        if (Seen.insert(UI).second)
          Work.push_back(UI);
        continue;
      }
      if (UI->isLifetimeStartOrEnd() || UI->isDebugOrPseudoInst() ||
          isa<MemIntrinsic>(UI) || isVarAnnotation(*UI))
        continue;
      if (auto *CB = dyn_cast<CallBase>(UI)) {
        const Function *Callee = CB->getCalledFunction();
        if (!CB->isArgOperand(&U))
          return false;
        unsigned ArgNo = CB->getArgOperandNo(&U);
        if (isDim3Constructor(Callee) && ArgNo == 0)
          continue;
        if (isOutParamApi(Callee) && ArgNo == 0)
          continue;
        // A byval argument is copied at the call; the callee sees the copy.
        if (isStubCall(*CB) && CB->isByValArgument(ArgNo))
          continue;
        // Asked last: the question may look at the slot's other uses again.
        if (Handed(*CB))
          continue;
      }
      return false;
    }
  }
  return true;
}

/// An alloca, or a byval argument: a slot of the function's stack frame.
static bool isStackSlot(const Value *Base) {
  const auto *A = dyn_cast<Argument>(Base);
  return (A && A->hasByValAttr()) || isa<AllocaInst>(Base);
}

bool HostMemory::isPrivateSlot(const Value *Base) {
  if (!isStackSlot(Base))
    return false;
  auto [It, Inserted] = PrivateSlots.try_emplace(Base, false);
  if (!Inserted)
    return It->second;
  bool Local = staysLocal(Base, [](const CallBase &) { return false; });
  PrivateSlots[Base] = Local;
  return Local;
}

/// Whether \p Ptr points to stack memory in a callee: its own slots (byval
/// arguments among them), an argument that \p StackArgs marks, or a
/// pointer loaded from a slot of its own that only ever holds such pointers
/// and stays its own (every argument is kept so at -O0 and where the host
/// pass runs, at the start of the -O2 pipeline).
static bool onStack(const Value *Ptr, uint64_t StackArgs, unsigned Depth = 0) {
  const Value *U = getUnderlyingObject(Ptr);
  if (isa<AllocaInst>(U))
    return true;
  if (const auto *A = dyn_cast<Argument>(U))
    return A->hasByValAttr() || (A->getArgNo() < 64 && (StackArgs >> A->getArgNo() & 1));
  const auto *L = dyn_cast<LoadInst>(U);
  const auto *Slot = L ? dyn_cast<AllocaInst>(getUnderlyingObject(L->getPointerOperand()))
                       : nullptr;
  if (!Slot || Depth >= 2 || !L->isSimple())
    return false;
  for (const Use &SU : Slot->uses()) {
    const auto *UI = cast<Instruction>(SU.getUser());
    if (isa<LoadInst>(UI) || UI->isLifetimeStartOrEnd() || UI->isDebugOrPseudoInst())
      continue;
    const auto *SI = dyn_cast<StoreInst>(UI);
    if (!SI || SU.getOperandNo() != SI->getPointerOperandIndex() ||
        !onStack(SI->getValueOperand(), StackArgs, Depth + 1))
      return false;
  }
  return true;
}

/// The arguments of \p CB that point to stack memory, as \p OnStack tells.
template <class Pred> static uint64_t stackArgsOf(const CallBase &CB, Pred OnStack) {
  uint64_t Mask = 0;
  for (unsigned K = 0; K < CB.arg_size() && K < 64; ++K)
    if (CB.getArgOperand(K)->getType()->isPointerTy() && OnStack(CB.getArgOperand(K)))
      Mask |= uint64_t(1) << K;
  return Mask;
}

/// A call of a C library function (TargetLibraryInfo knows it, the call
/// does not forbid builtins) whose only effect is on errno, as the
/// pipeline's InferFunctionAttrs states for expf, sqrtf or pow under
/// -fmath-errno; it cannot throw and returns.
bool HostMemory::errnoOnlyLibCall(const CallBase &CB) {
  const TargetLibraryInfo *TLI = GetTLI ? GetTLI(*CB.getFunction()) : nullptr;
  LibFunc LF;
  return TLI && TLI->getLibFunc(CB, LF) && CB.getMemoryEffects().onlyAccessesErrnoMem() &&
         CB.doesNotThrow() && CB.willReturn();
}

std::string HostMemory::hazard(const Instruction &I) {
  // Annotations (kfuse_scratch) only mark a slot; they read and write nothing
  // of the program's.
  if (I.isDebugOrPseudoInst() || I.isLifetimeStartOrEnd() || isVarAnnotation(I) ||
      isPtrAnnotation(I))
    return "";
  // A slot of the function's own, or a temporary that only calls harmless
  // here receive (`std::min(a, b)` takes its operands' temporaries by
  // reference): no kernel can reach it.
  auto IsPrivate = [&](const Value *Ptr) {
    const Value *Base = getUnderlyingObject(Ptr);
    return isPrivateSlot(Base) ||
           (isStackSlot(Base) &&
            staysLocal(Base, [&](const CallBase &C) { return hazard(C).empty(); }));
  };
  // A plain load may read any host memory (t[k], this->buf, a global): the
  // rewrite moves it before the launches' kernels run, and no kernel can
  // write host memory that the original program was allowed to read without
  // synchronising first, so the value read is one the original could read.
  // Volatile and atomic loads are another matter: they may be a handshake.
  if (auto *LI = dyn_cast<LoadInst>(&I))
    return LI->isSimple() ? "" : "a volatile or atomic load";
  if (auto *SI = dyn_cast<StoreInst>(&I)) {
    if (!SI->isSimple())
      return "a volatile or atomic store";
    return IsPrivate(SI->getPointerOperand()) ? ""
                                              : "a store to non-local memory";
  }
  // A copy into a local reads its source as a plain load does (a lambda's
  // captured dim3, copied for the next launch): only where it goes matters.
  if (auto *MI = dyn_cast<MemIntrinsic>(&I)) {
    if (MI->isVolatile())
      return "a volatile memory copy";
    return IsPrivate(MI->getDest()) ? "" : "a memory copy into non-local memory";
  }
  if (auto *CB = dyn_cast<CallBase>(&I)) {
    const Function *Callee = CB->getCalledFunction();
    std::string What =
        "a call to " + (Callee ? shortName(Callee->getName()) : std::string("a function pointer"));
    if (isa<IntrinsicInst>(CB))
      return CB->doesNotAccessMemory() && CB->doesNotThrow() ? "" : What;
    // Between two launches a thrown exception would skip the first one, so
    // every call allowed here must not throw (dim3's constructor cannot,
    // though clang emits it as an invoke).
    if (isDim3Constructor(Callee))
      return IsPrivate(CB->getArgOperand(0)) ? "" : What;
    if (CB->doesNotAccessMemory() && CB->doesNotThrow() && CB->willReturn())
      return "";
    if (errnoOnlyLibCall(*CB))
      return "";
    // The callee may write the slots it is handed where nothing but this
    // call and the function's own code reaches them (a struct it returns
    // through sret, an out-parameter): stack memory, which no kernel reads.
    uint64_t StackArgs = stackArgsOf(*CB, [&](const Value *Arg) {
      const Value *Base = getUnderlyingObject(Arg);
      return isStackSlot(Base) &&
             staysLocal(Base, [&](const CallBase &Other) { return &Other == CB; });
    });
    unsigned Budget = MaxCalleeInstructions;
    if (Callee && calleeHazard(*Callee, StackArgs, 0, Budget).empty())
      return "";
    return What;
  }
  if (isa<BinaryOperator>(I) || isa<UnaryOperator>(I) || isa<CastInst>(I) ||
      isa<CmpInst>(I) || isa<SelectInst>(I) || isa<GetElementPtrInst>(I) ||
      isa<ExtractValueInst>(I) || isa<InsertValueInst>(I) ||
      isa<ExtractElementInst>(I) || isa<InsertElementInst>(I) ||
      isa<ShuffleVectorInst>(I) || isa<FreezeInst>(I) || isa<PHINode>(I) ||
      isa<AllocaInst>(I))
    return "";
  return std::string("a '") + I.getOpcodeName() + "' instruction";
}

std::string HostMemory::calleeHazard(const Function &F, uint64_t StackArgs, unsigned Depth,
                                     unsigned &Budget) {
  if (auto It = Callees.find({&F, StackArgs}); It != Callees.end())
    return It->second;
  auto Verdict = [&](std::string Why) {
    // A verdict cut short by the budget or the depth is not the callee's.
    if (Why != "too deep" && Why != "too large")
      Callees[{&F, StackArgs}] = Why;
    return Why;
  };
  // The definition must be the one that runs (not interposable), and must
  // be plain host code: not a stub, not the CUDA runtime.
  if (F.isDeclaration() || F.isInterposable() || !cudaApiName(&F).empty() ||
      F.hasFnAttribute(Attribute::ReturnsTwice))
    return Verdict("not analysable");
  if (Depth >= MaxCalleeDepth)
    return "too deep";
  SmallVector<std::pair<const BasicBlock *, const BasicBlock *>, 4> BackEdges;
  FindFunctionBackedges(F, BackEdges);
  if (!BackEdges.empty())
    return Verdict("a loop");
  for (const Instruction &I : instructions(F)) {
    if (Budget-- == 0)
      return "too large";
    if (isa<UnreachableInst>(I) || isa<InvokeInst>(I) || isa<ResumeInst>(I) ||
        isa<LandingPadInst>(I) || isa<CallBrInst>(I) || I.isEHPad())
      return Verdict("control that may not return");
    if (isa<ReturnInst>(I) || isa<BranchInst>(I) || isa<SwitchInst>(I) ||
        I.isDebugOrPseudoInst() || I.isLifetimeStartOrEnd())
      continue;
    if (auto *LI = dyn_cast<LoadInst>(&I)) {
      if (!LI->isSimple())
        return Verdict("a volatile or atomic load");
      continue;
    }
    auto OnStack = [&](const Value *Ptr) { return onStack(Ptr, StackArgs); };
    if (auto *SI = dyn_cast<StoreInst>(&I)) {
      if (!SI->isSimple() || !OnStack(SI->getPointerOperand()))
        return Verdict("a store to non-local memory");
      continue;
    }
    if (auto *MI = dyn_cast<MemIntrinsic>(&I)) {
      if (MI->isVolatile() || !OnStack(MI->getDest()))
        return Verdict("a memory copy to non-local memory");
      continue;
    }
    if (auto *CB = dyn_cast<CallBase>(&I)) {
      if (isa<IntrinsicInst>(CB)) {
        if (!(CB->doesNotAccessMemory() || CB->onlyReadsMemory()) || !CB->doesNotThrow())
          return Verdict("a call to " + CB->getCalledOperand()->getName().str());
        continue;
      }
      const Function *G = CB->getCalledFunction();
      if (!G)
        return Verdict("a call through a pointer");
      if ((CB->doesNotAccessMemory() && CB->doesNotThrow() && CB->willReturn()) ||
          errnoOnlyLibCall(*CB))
        continue;
      std::string Why = calleeHazard(*G, stackArgsOf(*CB, OnStack), Depth + 1, Budget);
      if (Why == "too deep" || Why == "too large")
        return Why;
      if (!Why.empty())
        return Verdict("a call to " + shortName(G->getName()));
      continue;
    }
    if (isa<BinaryOperator>(I) || isa<UnaryOperator>(I) || isa<CastInst>(I) ||
        isa<CmpInst>(I) || isa<SelectInst>(I) || isa<GetElementPtrInst>(I) ||
        isa<ExtractValueInst>(I) || isa<InsertValueInst>(I) || isa<ExtractElementInst>(I) ||
        isa<InsertElementInst>(I) || isa<ShuffleVectorInst>(I) || isa<FreezeInst>(I) ||
        isa<PHINode>(I) || isa<AllocaInst>(I))
      continue;
    return Verdict(std::string("a '") + I.getOpcodeName() + "' instruction");
  }
  return Verdict("");
}

bool HostMemory::isDeadAfter(const Value *Ptr, const Instruction &RunStart,
                             const Instruction &RunEnd) {
  // The pointer must come from a private slot: then every copy of it is a
  // load of that slot, and all of those are visible here.
  auto *Ld = dyn_cast<LoadInst>(Ptr);
  auto *Slot = Ld ? dyn_cast<AllocaInst>(Ld->getPointerOperand()) : nullptr;
  if (!Slot || !Slot->getAllocatedType()->isPointerTy() || !isPrivateSlot(Slot))
    return false;

  auto ReachableFrom = [](const Instruction &From, const Instruction *To) {
    return isPotentiallyReachable(&From, To);
  };
  SmallVector<const LoadInst *, 8> Loads;
  for (const User *U : Slot->users()) {
    const auto *UI = cast<Instruction>(U);
    if (auto *L = dyn_cast<LoadInst>(UI)) {
      Loads.push_back(L);
      continue;
    }
    if (UI->isLifetimeStartOrEnd() || UI->isDebugOrPseudoInst())
      continue;
    // The slot may only ever hold null or a buffer this function allocated
    // into it: any other value (a parameter, a global, another slot) may
    // have copies we cannot see. And a new value written during or after
    // the run would make later loads see another buffer.
    const auto *SI = dyn_cast<StoreInst>(UI);
    const auto *CB = dyn_cast<CallBase>(UI);
    bool Fills = (SI && isa<ConstantPointerNull>(SI->getValueOperand())) ||
                 (CB && isAllocApi(CB->getCalledFunction()) &&
                  CB->getArgOperand(0) == Slot);
    if (!Fills || ReachableFrom(RunStart, UI))
      return false;
  }
  for (const LoadInst *L : Loads) {
    for (const Use &U : L->uses()) {
      const auto *CB = dyn_cast<CallBase>(U.getUser());
      if (!CB || !CB->isArgOperand(&U))
        return false;
      const Function *Callee = CB->getCalledFunction();
      if (isFreeApi(Callee) && CB->getArgOperandNo(&U) == 0)
        continue;
      // Launches and copies that read the buffer before the run ends (not
      // in a later iteration of a loop around it) do not keep it alive.
      bool Before = CB == &RunEnd || !ReachableFrom(RunEnd, CB);
      if (Before && (isStubCall(*CB) || isTransientPtrApi(Callee)))
        continue;
      return false;
    }
  }
  return true;
}

} // namespace kfuse
