//===- HostLiveness.cpp - which buffers a rewritten run leaves unread ------===//
//
// Runs on the host module at the end of the optimisation pipeline, after the
// host rewrite (HostRewrite.cpp) has replaced each run of launches with a
// kf_rt_launch_seq() call and the inliner has folded lambdas, launch helpers
// and small wrappers into their callers. For each pointer argument of each
// record it decides what happens to the buffer after the call:
//
//  - dead:  on every path from the call the buffer is freed, or its last copy
//           is lost (the function returns), before anything may read it;
//  - rerun: the same holds except that some paths reach this same call again
//           (a time loop) before anything else may read it;
//  - live:  something else may read it (a copy to the host, another launch,
//           a call that gets the pointer, ...).
//
// and sets the record's `dead` (bit p) or `rerun` (bit p, p < 32) mask,
// which the runtime turns into skipped stores where the device pass says it
// may (include/kfuse/rt.h, docs/runtime.md).
//
// The proof is local to one function. The buffer must be held in a sealed
// slot: a stack variable (or a field of one, a lambda's captured variable
// after inlining, a member of an object on the stack) whose address never
// leaves the function, filled only by cudaMalloc-like calls or null stores,
// none of them reachable from the call. Then every copy of the pointer is a
// load of that slot, every load reachable from the call yields this buffer,
// and the only way to read the buffer's contents is through a use of such a
// load, which the walk below sees. A file-local global is the same kind of
// slot for the whole module (fateOfGlobal()).
//
// Where the proof is impossible, the source may declare the buffer scratch
// (kfuse_scratch on the variable or field the pointer is loaded from,
// ScratchDecl.h): a pointer that is not proven dead and comes from such a
// slot gets its `dead` bit on that promise, and the site's scratch table
// (kf_site_t.scratch) lists it for KFUSE_VERIFY.
//
// The records are found from the call: operand 1 is the record array, whose
// `args` field holds, per parameter, the address of a slot the argument was
// stored to. A record whose stores no longer have that shape is left as the
// rewrite made it.
//
//===----------------------------------------------------------------------===//
#include "HostLaunch.h"
#include "HostMemory.h"
#include "Passes.h"
#include "RemarkText.h"
#include "ScratchDecl.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/Statistic.h"
#include "llvm/Analysis/CFG.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"

#include <array>
#include <optional>
#include <set>

using namespace llvm;
using namespace kfuse;

#define DEBUG_TYPE "kfuse"

STATISTIC(NumLiveDead, "Launch parameters dead after their run (after inlining)");
STATISTIC(NumLiveRerun, "Launch parameters read again only by their own run");
STATISTIC(NumScratch, "Launch parameters dead after their run on a kfuse_scratch declaration");

namespace {

/// One pointer argument of one record, or (Byte >= 0) the pointer at that
/// byte of a struct argument.
struct PtrArg {
  unsigned Launch, Param;
  Value *V;
  int64_t Byte = -1;
};

/// The stores that fill the records of one kf_rt_launch_seq call.
struct RunRecords {
  CallInst *Call = nullptr;
  SmallVector<StoreInst *, 4> Dead, Rerun;
  SmallVector<Function *, 4> Stub;
  SmallVector<PtrArg, 8> Ptrs;
  /// The stores of the pointer arguments into their slots: uses of the
  /// buffer that are this run's own.
  SmallPtrSet<const Instruction *, 8> OwnArgStores;
};

enum class Fate { Live, Dead, Rerun };

struct FateOf {
  Fate F = Fate::Live;
  std::string Why;
};

class Liveness {
public:
  Liveness(Function &F, OptimizationRemarkEmitter &ORE, const ScratchDecls &Decls,
           std::set<std::string> &Said)
      : F(F), DL(F.getDataLayout()), ORE(ORE), Decls(Decls), Said(Said) {}
  bool run();

private:
  Function &F;
  const DataLayout &DL;
  OptimizationRemarkEmitter &ORE;
  const ScratchDecls &Decls;
  /// The module's liveness remarks so far, by location and content: a run
  /// inlined at several places (a helper called from a timing loop) says
  /// each thing about it once.
  std::set<std::string> &Said;

  bool findRecords(CallInst &Call, RunRecords &R);
  FateOf fate(const Value *Ptr, const RunRecords &R);
  FateOf fateOfGlobal(const GlobalVariable &G, int64_t Off, const LoadInst *Ld,
                      const RunRecords &R);
  void emitScratchTable(CallInst &Call,
                        ArrayRef<std::tuple<unsigned, unsigned, ScratchDecl>> Entries);
  void emitFieldTable(CallInst &Call, ArrayRef<std::array<unsigned, 4>> Entries);
  StoreInst *uniqueStore(const Value *Base, int64_t Offset, unsigned Bytes);

  /// Per base object: the stores into it at a constant offset.
  DenseMap<const Value *, SmallVector<std::pair<int64_t, StoreInst *>, 16>> StoresInto;
};

} // namespace

/// The stores of \p Bytes bytes into \p Base at \p Offset; null unless there
/// is exactly one and nothing else writes there.
StoreInst *Liveness::uniqueStore(const Value *Base, int64_t Offset, unsigned Bytes) {
  StoreInst *Found = nullptr;
  auto It = StoresInto.find(Base);
  if (It == StoresInto.end())
    return nullptr;
  for (auto [Off, SI] : It->second) {
    uint64_t Size = DL.getTypeStoreSize(SI->getValueOperand()->getType());
    if (Off + int64_t(Size) <= Offset || Offset + int64_t(Bytes) <= Off)
      continue;
    // The rewrite makes the records' stores volatile (markRecordStore).
    if (Found || Off != Offset || Size != Bytes || SI->isAtomic())
      return nullptr;
    Found = SI;
  }
  return Found;
}

bool Liveness::findRecords(CallInst &Call, RunRecords &R) {
  auto *Records = dyn_cast<AllocaInst>(getUnderlyingObject(Call.getArgOperand(1)));
  auto *N = dyn_cast<ConstantInt>(Call.getArgOperand(2));
  if (!Records || !N || N->getZExtValue() > 64)
    return false;
  StructType *RecTy = getLaunchRecordType(*F.getParent());
  const StructLayout *SL = DL.getStructLayout(RecTy);
  int64_t Stride = DL.getTypeAllocSize(RecTy);
  unsigned PtrBytes = DL.getPointerSize();
  R.Call = &Call;
  for (unsigned K = 0, E = N->getZExtValue(); K < E; ++K) {
    int64_t At = K * Stride;
    StoreInst *Func = uniqueStore(Records, At + SL->getElementOffset(LF_Func), PtrBytes);
    StoreInst *Args = uniqueStore(Records, At + SL->getElementOffset(LF_Args), PtrBytes);
    StoreInst *NArgs = uniqueStore(Records, At + SL->getElementOffset(LF_NArgs), 4);
    StoreInst *Rerun = uniqueStore(Records, At + SL->getElementOffset(LF_Rerun), 4);
    StoreInst *Dead = uniqueStore(Records, At + SL->getElementOffset(LF_Dead), 8);
    if (!Func || !Args || !NArgs || !Rerun || !Dead ||
        !isa<ConstantInt>(Rerun->getValueOperand()) ||
        !isa<ConstantInt>(Dead->getValueOperand()) ||
        !isa<ConstantInt>(NArgs->getValueOperand()))
      return false;
    auto *Array = dyn_cast<AllocaInst>(getUnderlyingObject(Args->getValueOperand()));
    if (!Array)
      return false;
    R.Stub.push_back(dyn_cast<Function>(Func->getValueOperand()->stripPointerCasts()));
    R.Dead.push_back(Dead);
    R.Rerun.push_back(Rerun);
    uint64_t NParams = cast<ConstantInt>(NArgs->getValueOperand())->getZExtValue();
    for (unsigned P = 0; P < NParams && P < 64; ++P) {
      StoreInst *Slot = uniqueStore(Array, int64_t(P) * PtrBytes, PtrBytes);
      if (!Slot)
        return false;
      auto *ArgSlot = dyn_cast<AllocaInst>(getUnderlyingObject(Slot->getValueOperand()));
      if (!ArgSlot)
        return false;
      std::optional<TypeSize> Size = ArgSlot->getAllocationSize(DL);
      if (!Size || Size->isScalable())
        continue;
      // A struct: the pointers stored into its fields (a lambda's captures),
      // each a buffer the launch reaches; the runtime sees them through the
      // site's field table (kf_field_ptr_t).
      if (Size->getFixedValue() > PtrBytes) {
        for (uint64_t B = 0; B + PtrBytes <= Size->getFixedValue() && B < 32768; B += PtrBytes) {
          StoreInst *Field = uniqueStore(ArgSlot, int64_t(B), PtrBytes);
          if (!Field || !Field->getValueOperand()->getType()->isPointerTy())
            continue;
          R.Ptrs.push_back({K, P, Field->getValueOperand(), int64_t(B)});
          R.OwnArgStores.insert(Field);
        }
        continue;
      }
      // A scalar: not a buffer this pass reasons about.
      StoreInst *Value = uniqueStore(ArgSlot, 0, PtrBytes);
      if (!Value || !Value->getValueOperand()->getType()->isPointerTy())
        continue;
      R.Ptrs.push_back({K, P, Value->getValueOperand()});
      R.OwnArgStores.insert(Value);
    }
  }
  return true;
}

/// The CUDA runtime calls that only write a fresh handle or buffer address
/// into their first argument.
static bool fillsSlot(const CallBase &CB) {
  StringRef N = cudaApiName(CB.getCalledFunction());
  return N == "cudaMalloc" || N == "cudaMallocManaged" || N == "cudaMallocAsync" ||
         N == "cudaMallocPitch" || N == "cudaMallocFromPoolAsync";
}

static bool isFree(const CallBase &CB) {
  StringRef N = cudaApiName(CB.getCalledFunction());
  return N == "cudaFree" || N == "cudaFreeAsync";
}

FateOf Liveness::fate(const Value *Ptr, const RunRecords &R) {
  const auto *Ld = dyn_cast<LoadInst>(Ptr);
  if (!Ld || !Ld->isSimple())
    return {Fate::Live, "its pointer comes from outside this function (a parameter, a "
                        "global or other memory)"};
  int64_t Off = 0;
  const Value *Base = GetPointerBaseWithConstantOffset(Ld->getPointerOperand(), Off, DL);
  if (const auto *G = dyn_cast<GlobalVariable>(Base))
    return fateOfGlobal(*G, Off, Ld, R);
  const auto *Slot = dyn_cast<AllocaInst>(Base);
  if (!Slot)
    return {Fate::Live, "it is not held in a local variable of this function"};
  uint64_t Bytes = DL.getPointerSize();
  auto Overlaps = [&](int64_t At, uint64_t Size) {
    return At < Off + int64_t(Bytes) && Off < At + int64_t(Size);
  };

  // Every access to the slot: loads of the pointer, and fills.
  SmallVector<const LoadInst *, 8> Loads;
  SmallVector<const Instruction *, 4> Fills;
  SmallVector<std::pair<const Value *, int64_t>, 8> Work{{Slot, 0}};
  SmallPtrSet<const Value *, 8> Seen{Slot};
  while (!Work.empty()) {
    auto [V, At] = Work.pop_back_val();
    for (const Use &U : V->uses()) {
      const auto *UI = cast<Instruction>(U.getUser());
      // A kfuse_scratch local's or field's annotation marks the slot and
      // reads nothing; a field's passes its address on.
      if (isVarAnnotation(*UI))
        continue;
      if (isPtrAnnotation(*UI)) {
        if (U.getOperandNo() != 0)
          return {Fate::Live, "the address of its variable leaves the function"};
        if (Seen.insert(UI).second)
          Work.push_back({UI, At});
        continue;
      }
      if (const auto *GEP = dyn_cast<GetElementPtrInst>(UI)) {
        APInt Delta(DL.getIndexTypeSizeInBits(GEP->getType()), 0);
        if (!GEP->accumulateConstantOffset(DL, Delta))
          return {Fate::Live, "its variable is indexed at a variable offset"};
        if (Seen.insert(GEP).second)
          Work.push_back({GEP, At + Delta.getSExtValue()});
        continue;
      }
      if (UI->isLifetimeStartOrEnd() || UI->isDebugOrPseudoInst())
        continue;
      if (const auto *L = dyn_cast<LoadInst>(UI)) {
        uint64_t Size = DL.getTypeStoreSize(L->getType());
        if (!Overlaps(At, Size))
          continue;
        if (At != Off || Size != Bytes || !L->isSimple())
          return {Fate::Live, "its variable is read in pieces"};
        Loads.push_back(L);
        continue;
      }
      if (const auto *S = dyn_cast<StoreInst>(UI)) {
        if (U.getOperandNo() != S->getPointerOperandIndex())
          return {Fate::Live, "the address of its variable is stored to memory"};
        if (!Overlaps(At, DL.getTypeStoreSize(S->getValueOperand()->getType())))
          continue;
        if (!isa<ConstantPointerNull>(S->getValueOperand()))
          return {Fate::Live, "its variable is assigned another pointer"};
        Fills.push_back(S);
        continue;
      }
      if (const auto *CB = dyn_cast<CallBase>(UI); CB && CB->isArgOperand(&U) &&
                                                    CB->getArgOperandNo(&U) == 0 &&
                                                    fillsSlot(*CB)) {
        if (At == Off)
          Fills.push_back(CB);
        continue;
      }
      if (isa<MemIntrinsic>(UI))
        return {Fate::Live, "its variable is copied or set with memcpy/memset"};
      return {Fate::Live, "the address of its variable leaves the function"};
    }
  }
  for (const Instruction *Fill : Fills)
    if (isPotentiallyReachable(R.Call, Fill))
      return {Fate::Live, "its variable is assigned again after the run"};

  // Where the buffer is freed, and which instructions may read it. A load
  // from which no fill is reachable yields this very buffer.
  auto YieldsThisBuffer = [&](const LoadInst *L) {
    return llvm::none_of(Fills, [&](const Instruction *Fill) {
      return isPotentiallyReachable(L, Fill);
    });
  };
  SmallPtrSet<const Instruction *, 8> Kills, Readers;
  for (const LoadInst *L : Loads) {
    bool Same = YieldsThisBuffer(L);
    for (const Use &U : L->uses()) {
      const auto *UI = cast<Instruction>(U.getUser());
      if (R.OwnArgStores.count(UI))
        continue;
      if (const auto *CB = dyn_cast<CallBase>(UI);
          CB && isFree(*CB) && CB->isArgOperand(&U) && CB->getArgOperandNo(&U) == 0) {
        if (Same)
          Kills.insert(CB);
        continue;
      }
      Readers.insert(UI);
    }
  }

  // Walk forward from the call: a reader reached first makes the buffer
  // live; the call itself reached first is the run again.
  bool Again = false;
  const Instruction *Reader = nullptr;
  auto Scan = [&](BasicBlock::const_iterator I, const BasicBlock *BB) {
    for (; I != BB->end(); ++I) {
      if (&*I == R.Call) {
        Again = true;
        return false;
      }
      if (Kills.count(&*I))
        return false;
      if (Readers.count(&*I)) {
        Reader = &*I;
        return false;
      }
    }
    return true;
  };
  SmallVector<const BasicBlock *, 16> Blocks;
  SmallPtrSet<const BasicBlock *, 16> Visited;
  if (Scan(std::next(R.Call->getIterator()), R.Call->getParent()))
    append_range(Blocks, successors(R.Call->getParent()));
  while (!Blocks.empty() && !Reader) {
    const BasicBlock *BB = Blocks.pop_back_val();
    if (!Visited.insert(BB).second)
      continue;
    if (Scan(BB->begin(), BB))
      append_range(Blocks, successors(BB));
  }
  if (Reader) {
    std::string Why = "it may be read after the run by ";
    if (const auto *CB = dyn_cast<CallBase>(Reader)) {
      const Function *Callee = CB->getCalledFunction();
      Why += Callee ? "a call to " + shortName(Callee->getName()) : std::string("an indirect call");
    } else if (isa<ReturnInst>(Reader)) {
      Why = "the function returns it";
    } else if (isa<StoreInst>(Reader)) {
      Why += "a copy of its pointer (another launch, or a store to memory)";
    } else {
      Why += std::string("a '") + Reader->getOpcodeName() + "' of its pointer";
    }
    if (const DebugLoc &DLoc = Reader->getDebugLoc())
      Why += " at line " + std::to_string(DLoc.getLine());
    return {Fate::Live, Why};
  }
  return {Again ? Fate::Rerun : Fate::Dead, ""};
}

/// A buffer held in a file-local global (`static float *tmp;`, a field of a
/// static struct): every use of the global is in this module, so every copy
/// of the pointer is a load of it that the walk below sees. When each such
/// load, in any function, only feeds this run's own arguments or cudaFree,
/// nothing but this run's next execution can read the buffer after the run
/// (a new cudaMalloc into the global leaves the old buffer unread).
FateOf Liveness::fateOfGlobal(const GlobalVariable &G, int64_t Off, const LoadInst *Ld,
                              const RunRecords &R) {
  if (!G.hasLocalLinkage() || G.isConstant() || G.isExternallyInitialized() ||
      G.getAddressSpace() != 0)
    return {Fate::Live, "its pointer is held in a global that other files may use"};
  uint64_t Bytes = DL.getPointerSize();
  if (!Ld->getType()->isPointerTy() || DL.getTypeStoreSize(Ld->getType()) != Bytes)
    return {Fate::Live, "its global is read in pieces"};
  auto Overlaps = [&](int64_t At, uint64_t Size) {
    return At < Off + int64_t(Bytes) && Off < At + int64_t(Size);
  };
  SmallVector<std::pair<const Value *, int64_t>, 8> Work{{&G, 0}};
  SmallPtrSet<const Value *, 8> Seen{&G};
  SmallVector<const LoadInst *, 8> Loads;
  while (!Work.empty()) {
    auto [V, At] = Work.pop_back_val();
    for (const Use &U : V->uses()) {
      const User *Us = U.getUser();
      if (const auto *GEP = dyn_cast<GEPOperator>(Us)) {
        APInt Delta(DL.getIndexTypeSizeInBits(GEP->getType()), 0);
        if (!GEP->accumulateConstantOffset(DL, Delta))
          return {Fate::Live, "its global is indexed at a variable offset"};
        if (Seen.insert(GEP).second)
          Work.push_back({GEP, At + Delta.getSExtValue()});
        continue;
      }
      const auto *UI = dyn_cast<Instruction>(Us);
      if (!UI)
        return {Fate::Live, "the address of its global is taken in a constant"};
      if (UI->isLifetimeStartOrEnd() || UI->isDebugOrPseudoInst())
        continue;
      if (const auto *L = dyn_cast<LoadInst>(UI)) {
        uint64_t Size = DL.getTypeStoreSize(L->getType());
        if (!Overlaps(At, Size))
          continue;
        if (At != Off || Size != Bytes || !L->isSimple())
          return {Fate::Live, "its global is read in pieces"};
        Loads.push_back(L);
        continue;
      }
      if (const auto *S = dyn_cast<StoreInst>(UI)) {
        if (U.getOperandNo() != S->getPointerOperandIndex())
          return {Fate::Live, "the address of its global is stored to memory"};
        if (Overlaps(At, DL.getTypeStoreSize(S->getValueOperand()->getType())) &&
            !isa<ConstantPointerNull>(S->getValueOperand()))
          return {Fate::Live, "its global is assigned another pointer"};
        continue;
      }
      if (const auto *CB = dyn_cast<CallBase>(UI); CB && CB->isArgOperand(&U) &&
                                                    CB->getArgOperandNo(&U) == 0 &&
                                                    (fillsSlot(*CB) || isFree(*CB)))
        continue;
      return {Fate::Live, "the address of its global leaves its uses"};
    }
  }
  for (const LoadInst *L : Loads)
    for (const Use &U : L->uses()) {
      const auto *UI = cast<Instruction>(U.getUser());
      if (R.OwnArgStores.count(UI))
        continue;
      if (const auto *CB = dyn_cast<CallBase>(UI);
          CB && isFree(*CB) && CB->isArgOperand(&U) && CB->getArgOperandNo(&U) == 0)
        continue;
      std::string Why = "its global's pointer is used ";
      if (const auto *CB = dyn_cast<CallBase>(UI); CB && CB->getCalledFunction())
        Why += "by a call to " + shortName(CB->getCalledFunction()->getName());
      else
        Why += std::string("by a '") + UI->getOpcodeName() + "'";
      Why += " in " + shortName(UI->getFunction()->getName());
      if (const DebugLoc &DLoc = UI->getDebugLoc())
        Why += " at line " + std::to_string(DLoc.getLine());
      return {Fate::Live, Why};
    }
  return {Fate::Rerun, ""};
}

bool Liveness::run() {
  SmallVector<CallInst *, 4> Calls;
  for (Instruction &I : instructions(F)) {
    if (auto *SI = dyn_cast<StoreInst>(&I)) {
      int64_t Off = 0;
      const Value *Base = GetPointerBaseWithConstantOffset(SI->getPointerOperand(), Off, DL);
      if (isa<AllocaInst>(Base))
        StoresInto[Base].push_back({Off, SI});
    } else if (auto *CI = dyn_cast<CallInst>(&I)) {
      if (const Function *Callee = CI->getCalledFunction();
          Callee && Callee->getName() == "kf_rt_launch_seq" && CI->arg_size() == 3)
        Calls.push_back(CI);
    }
  }
  // A memset or memcpy over a record or a slot makes uniqueStore's view
  // incomplete: treat such an object as having no unique stores.
  for (Instruction &I : instructions(F))
    if (auto *MI = dyn_cast<MemIntrinsic>(&I)) {
      const Value *Base = getUnderlyingObject(MI->getDest());
      int64_t Off = 0;
      const Value *B2 = GetPointerBaseWithConstantOffset(MI->getDest(), Off, DL);
      auto *Len = dyn_cast<ConstantInt>(MI->getLength());
      if (B2 == Base && Len && StoresInto.count(Base)) {
        // A constant-range memset (clang zeroes shmem and stream together)
        // conflicts only with stores it overlaps.
        auto &V = StoresInto[Base];
        int64_t End = Off + int64_t(Len->getZExtValue());
        if (llvm::any_of(V, [&](auto &P) {
              return P.first < End &&
                     Off < P.first + int64_t(DL.getTypeStoreSize(
                                         P.second->getValueOperand()->getType()));
            }))
          StoresInto.erase(Base);
      } else {
        StoresInto.erase(Base);
      }
    }

  bool Changed = false;
  for (CallInst *Call : Calls) {
    RunRecords R;
    if (!findRecords(*Call, R))
      continue;
    SmallVector<uint64_t, 4> Dead, Rerun;
    for (unsigned K = 0; K < R.Dead.size(); ++K) {
      Dead.push_back(cast<ConstantInt>(R.Dead[K]->getValueOperand())->getZExtValue());
      Rerun.push_back(cast<ConstantInt>(R.Rerun[K]->getValueOperand())->getZExtValue());
    }
    DenseMap<const Value *, FateOf> Known;
    SmallVector<std::tuple<unsigned, unsigned, ScratchDecl>, 4> Declared;
    // What each buffer's remark says: its fate, once, with every (launch,
    // parameter) that passes it, in the order the run passes them.
    struct Told {
      const Value *V;
      std::optional<ScratchDecl> Decl;
      SmallVector<const PtrArg *, 2> Uses;
    };
    SmallVector<Told, 4> Remarks;
    // The run's pointers in struct fields, each dead where proven so.
    SmallVector<std::array<unsigned, 4>, 8> Fields;
    for (const PtrArg &A : R.Ptrs) {
      auto [It, New] = Known.try_emplace(A.V);
      if (New)
        It->second = fate(A.V, R);
      const FateOf &Fa = It->second;
      if (A.Byte >= 0) {
        // kf_field_ptr_t.fate: KF_FIELD_LIVE, _DEAD or _RERUN.
        Fields.push_back({A.Launch, A.Param, unsigned(A.Byte),
                          Fa.F == Fate::Dead ? 1u : Fa.F == Fate::Rerun ? 2u : 0u});
        NumLiveDead += Fa.F == Fate::Dead;
        NumLiveRerun += Fa.F == Fate::Rerun;
        auto T = llvm::find_if(Remarks, [&](const Told &T) { return T.V == A.V; });
        if (T == Remarks.end())
          T = Remarks.insert(Remarks.end(), Told{A.V, std::nullopt, {}});
        T->Uses.push_back(&A);
        continue;
      }
      uint64_t Bit = uint64_t(1) << A.Param;
      bool WasDead = Dead[A.Launch] & Bit;
      // What cannot be proven may be declared: the promise makes the buffer
      // dead after the run (the runtime still keeps the stores of a buffer a
      // later launch of the same run gets).
      std::optional<ScratchDecl> Decl;
      if (!WasDead && Fa.F != Fate::Dead)
        Decl = Decls.of(A.V, F);
      if (Decl) {
        Dead[A.Launch] |= Bit;
        ++NumScratch;
        Declared.emplace_back(A.Launch, A.Param, *Decl);
      } else if (Fa.F == Fate::Dead && !WasDead) {
        Dead[A.Launch] |= Bit;
        ++NumLiveDead;
      } else if (Fa.F == Fate::Rerun && !WasDead && A.Param < 32) {
        Rerun[A.Launch] |= Bit;
        ++NumLiveRerun;
      }
      if (WasDead)
        continue;
      auto T = llvm::find_if(Remarks, [&](const Told &T) { return T.V == A.V; });
      if (T == Remarks.end())
        T = Remarks.insert(Remarks.end(), Told{A.V, Decl, {}});
      T->Uses.push_back(&A);
    }
    for (const Told &T : Remarks) {
      const FateOf &Fa = Known[T.V];
      std::string Key;
      if (const DebugLoc &Loc = Call->getDebugLoc())
        Key = (Loc->getFilename() + ":" + Twine(Loc.getLine()) + ":" + Twine(Loc.getCol())).str();
      else
        Key = F.getName().str();
      for (const PtrArg *A : T.Uses)
        Key += " " + std::to_string(A->Launch) + "." + std::to_string(A->Param);
      Key += " " + std::to_string(int(Fa.F)) + " " + Fa.Why + " " + (T.Decl ? T.Decl->Name : "");
      if (!Said.insert(Key).second)
        continue;
      ORE.emit([&] {
        OptimizationRemarkAnalysis Rem(DEBUG_TYPE, "BufferLiveness", Call);
        Rem << (T.Uses.size() > 1 ? "the buffer of " : "");
        for (unsigned U = 0; U < T.Uses.size(); ++U) {
          const PtrArg &A = *T.Uses[U];
          Function *Stub = R.Stub[A.Launch];
          std::string Name;
          if (Stub && A.Param < Stub->arg_size())
            Name = paramName(*Stub, A.Param);
          if (U)
            Rem << (U + 1 == T.Uses.size() ? " and " : ", ");
          if (A.Byte >= 0)
            Rem << "the pointer at byte " << ore::NV("Byte", A.Byte) << " of ";
          Rem << "parameter " << ore::NV("Param", A.Param + 1)
              << (Name.empty() ? "" : " ('" + Name + "')") << " of launch "
              << ore::NV("Launch", A.Launch) << " ("
              << ore::NV("Kernel", Stub ? kernelName(*Stub) : std::string("?")) << ")";
        }
        if (T.Decl)
          return Rem << " is dead after the run: '" << ore::NV("Scratch", T.Decl->Name)
                     << "' is declared scratch at " << ore::NV("DeclaredAt", T.Decl->At)
                     << " (its contents are not read before they are written again; "
                        "KFUSE_VERIFY checks it)";
        switch (Fa.F) {
        case Fate::Dead:
          return Rem << " is dead after the run: it is freed or lost before anything reads it";
        case Fate::Rerun:
          return Rem << " is read after the run only by this run's next execution; its "
                        "stores are skipped where every execution writes it before "
                        "reading it";
        case Fate::Live:
          break;
        }
        return Rem << " stays live after the run: " << ore::NV("Reason", Fa.Why);
      });
    }
    if (!Declared.empty()) {
      emitScratchTable(*Call, Declared);
      Changed = true;
    }
    if (!Fields.empty()) {
      emitFieldTable(*Call, Fields);
      Changed = true;
    }
    for (unsigned K = 0; K < R.Dead.size(); ++K) {
      Type *I64 = R.Dead[K]->getValueOperand()->getType();
      Type *I32 = R.Rerun[K]->getValueOperand()->getType();
      if (Dead[K] != cast<ConstantInt>(R.Dead[K]->getValueOperand())->getZExtValue()) {
        R.Dead[K]->setOperand(0, ConstantInt::get(I64, Dead[K]));
        Changed = true;
      }
      // A buffer dead after the run needs no rerun bit.
      uint64_t Rr = Rerun[K] & ~Dead[K] & 0xffffffffu;
      if (Rr != cast<ConstantInt>(R.Rerun[K]->getValueOperand())->getZExtValue()) {
        R.Rerun[K]->setOperand(0, ConstantInt::get(I32, Rr));
        Changed = true;
      }
    }
  }
  return Changed;
}

/// Points the call's site (operand 0, the kf_site_t the rewrite emitted) at
/// a new table \p Name of \p Elems (each an \p EntryTy): kf_site_t's fields
/// \p CountField (the count) and \p CountField + 1 (the table); every other
/// field as it was.
static void attachSiteTable(CallInst &Call, StructType *EntryTy, ArrayRef<Constant *> Elems,
                            StringRef Name, unsigned CountField) {
  Module &M = *Call.getModule();
  auto *Site = dyn_cast<GlobalVariable>(Call.getArgOperand(0)->stripPointerCasts());
  StructType *SiteTy = getSiteType(M);
  if (!Site || Site->getValueType() != SiteTy || !Site->hasInitializer())
    return;
  auto *Init = dyn_cast<ConstantStruct>(Site->getInitializer());
  if (!Init)
    return;
  auto *ArrTy = ArrayType::get(EntryTy, Elems.size());
  auto *Table = new GlobalVariable(M, ArrTy, true, GlobalValue::PrivateLinkage,
                                   ConstantArray::get(ArrTy, Elems), Name);
  SmallVector<Constant *, 9> Fields;
  for (Use &Op : Init->operands())
    Fields.push_back(cast<Constant>(Op.get()));
  Fields[CountField] = ConstantInt::get(Type::getInt32Ty(M.getContext()), Elems.size());
  Fields[CountField + 1] = Table;
  Site->setInitializer(ConstantStruct::get(SiteTy, Fields));
}

/// The site's scratch table (kf_scratch_decl_t: launch, param, name, at).
void Liveness::emitScratchTable(
    CallInst &Call, ArrayRef<std::tuple<unsigned, unsigned, ScratchDecl>> Entries) {
  Module &M = *F.getParent();
  LLVMContext &C = M.getContext();
  auto String = [&](StringRef S, const Twine &Name) {
    auto *GV = new GlobalVariable(M, ArrayType::get(Type::getInt8Ty(C), S.size() + 1), true,
                                  GlobalValue::PrivateLinkage, ConstantDataArray::getString(C, S),
                                  Name);
    GV->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
    return GV;
  };
  StructType *EntryTy = getScratchDeclType(M);
  Type *I32 = Type::getInt32Ty(C);
  SmallVector<Constant *, 4> Elems;
  for (const auto &[Launch, Param, D] : Entries)
    Elems.push_back(ConstantStruct::get(
        EntryTy, {ConstantInt::get(I32, Launch), ConstantInt::get(I32, Param),
                  String(D.Name, "kfuse.scratch.name"), String(D.At, "kfuse.scratch.at")}));
  attachSiteTable(Call, EntryTy, Elems, "kfuse.scratch", /*nscratch*/ 3);
}

/// The site's field table (kf_field_ptr_t: launch, param, byte, fate).
void Liveness::emitFieldTable(CallInst &Call, ArrayRef<std::array<unsigned, 4>> Entries) {
  Module &M = *F.getParent();
  StructType *EntryTy = getFieldPtrType(M);
  Type *I32 = Type::getInt32Ty(M.getContext());
  SmallVector<Constant *, 8> Elems;
  for (const std::array<unsigned, 4> &E : Entries)
    Elems.push_back(ConstantStruct::get(
        EntryTy, {ConstantInt::get(I32, E[0]), ConstantInt::get(I32, E[1]),
                  ConstantInt::get(I32, E[2]), ConstantInt::get(I32, E[3])}));
  attachSiteTable(Call, EntryTy, Elems, "kfuse.fields", /*nfields*/ 7);
}

PreservedAnalyses HostLivenessPass::run(Module &M, ModuleAnalysisManager &) {
  if (!M.getFunction("kf_rt_launch_seq"))
    return PreservedAnalyses::all();
  bool Changed = false;
  ScratchDecls Decls(M);
  std::set<std::string> Said;
  for (Function &F : M) {
    if (F.isDeclaration())
      continue;
    OptimizationRemarkEmitter ORE(&F);
    Changed |= Liveness(F, ORE, Decls, Said).run();
    Changed |= releaseRecordStores(F);
  }
  return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}
