//===- HostRewrite.cpp - hand kfuse_map launch runs to the runtime --------===//
///
/// \file
/// The host pass finds runs of adjacent launches of kfuse_map kernels in the
/// x86-64 module and replaces each run that a fused kernel can take with one
/// call `kf_rt_launch_seq(&site, records, n)` (include/kfuse/rt.h); the
/// runtime then runs fused kernels where their guards hold, else the
/// original launches in order.
///
/// Which runs a fused kernel can take it learns from the device plan
/// (DevicePlan.h): the manifest in each cubin of the fatbinary the host
/// module embeds. Each group there is bound by its `at` line to one launch
/// sequence of the Clang plugin: this function's mangled name and the line
/// and column of the sequence's first launch, which here is the debug
/// location of that launch's configuration push (clang's, or, without -g
/// or a remark flag, placed from the plugin's list: placeLaunchSites). A
/// run that holds such a launch hands over exactly the sequence's launches
/// from there, as a run of its own whose site names the key, matched as
/// the runtime will match it (manifest/match.c); its
/// other launches, and runs no group is bound to, stay plain launches with
/// a missed remark that quotes the device pass's reason (the manifest's
/// `missed` lines). Where the fatbinary cannot be read
/// (--cuda-host-only, a compressed or malformed one, a module without the
/// Clang plugin's translation-unit key), every run is handed over and the
/// runtime finds out, and an analysis remark says why the plan could not be
/// read. Under -fgpu-rdc the host module embeds this file's relocatable
/// device code instead (a relocatable fatbinary, or the new offload
/// driver's offload binary with a relocatable cubin, or device bitcode
/// under -foffload-lto); it holds this file's manifest, which is all the
/// runtime will consult for this file's sites, so the plan is read from it
/// alike.
///
/// It runs at pipeline start, before inlining, so a launch still has the shape
/// clang's CUDA codegen gives it, at -O0 and -O2 alike:
///
///   %r = call i32 @__cudaPushCallConfiguration(i64 gxy, i32 gz, i64 bxy,
///                                              i32 bz, i64 shmem, ptr stream)
///   %c = icmp ne i32 %r, 0
///   br i1 %c, label %skip, label %ok
/// ok:  ... argument evaluation ...
///   call void @__device_stub__K(args)        ; may be an invoke
///   br label %skip
///
/// Launches L1, ..., Ln (n >= 2) form a run when:
///
/// 1. Each Li is a launch of a stub named in llvm.global.annotations with
///    "kfuse_map" (docs/annotations.md), and the stub's prologue could be
///    read (StubLayout): we must reproduce the kernel's argument bytes.
/// 2. The code from the stub call of L1 to the stub call of Ln is one
///    straight path: unconditional branches (and invoke normal edges) into
///    blocks entered from nowhere else, except the skip edges of the launches
///    themselves, which the rewrite removes, and the branches of error checks
///    (HostChecks.h: `if (e != cudaSuccess) { ...; exit(1); }` on a query's
///    answer), whose failure paths end the program and whose success sides
///    the path goes on through. No loop back edge is crossed.
/// 3. No instruction on that path other than the launches' own push, compare,
///    branch and stub call can touch device memory or synchronise with the
///    device (HostMemory::hazard): arithmetic, loads and stores of stack slots
///    that never escape the function, loads of constants, dim3 constructors,
///    intrinsics without memory effects. Any other call ends the run, so does
///    anything that may throw, because an exception would skip the launches
///    already seen; but for queries of the last error that a check tests
///    before the next launch, and output to a stream. Where a check stands
///    between launches, one must follow the last launch too, else the run
///    ends at its last checked launch (HostChecks.h says why).
///
/// Launches written as calls of launch helpers (a void function holding
/// exactly one kfuse_map launch and nothing that could end a run) are first
/// made launches in place: each
/// function that launches twice or more, counting its helper calls, gets
/// those helpers inlined (inlineLaunchHelpers), and the conditions above
/// then apply to the inlined code as to any other.
///
/// Under these conditions delaying L1..Ln-1 to the position of Ln changes
/// nothing the program can observe: launches are asynchronous, and the code
/// in between only computes host values. Each launch's configuration and
/// arguments are still evaluated where they were, in order; the rewrite
/// stores them into record i of a stack array at the stub call's position
/// (replaying the stub's own prologue for the argument bytes), removes the
/// push and makes the branch unconditional, and calls the runtime where the
/// last stub call was. A lone launch is never rewritten.
///
/// What a rewritten run leaves in the module:
///
///   %kfuse.launch = type { ptr, [3 x i32], [3 x i32], i64, ptr, ptr, ptr,
///                          i32, i64 }    ; kf_launch_t: offsets 0, 8, 20, 32,
///                                        ; 40, 48, 56, 64, 72; 80 bytes
///   %kfuse.site   = type { ptr, ptr, i32, i32, ptr, ptr, ptr } ; kf_site_t,
///                                                             ; 48 bytes
///   @kfuse.site   = private global { @kfuse.where, null, n, 0, null,
///                   @kfuse.manifest, @kfuse.anchor }
///                   (the liveness pass fills the 4th and 5th with the run's
///                   kfuse_scratch arguments, HostLiveness.cpp)
///   @kfuse.manifest = "__kfuse_manifest_<key>": the manifest of this
///                   translation unit (the Clang plugin's `kfuse.tu` key,
///                   which the device compilation names it after); null
///                   where the module has no key
///   @kfuse.anchor = private global i8 0, registered in
///                   __cuda_register_globals as the host address of one of
///                   this file's fused kernels (siteAnchor); null under
///                   -fgpu-rdc and where there is none
///   @kfuse.where  = "file:line:col function" of the first `<<<` (or
///                   "function launch i" without debug info)
///   @kfuse.argsizes.<stub> = private constant [nargs x i32]: sizeof of each
///                   kernel parameter (not of its ABI pieces)
///
/// Records are filled with byte-offset GEPs computed from the DataLayout of
/// %kfuse.launch. A byval argument, or one passed by address (a class that
/// is not trivially copyable, such as `__half2`), is copied into an
/// entry-block slot of its own, so the record does not depend on the
/// lifetime of clang's temporary.
///
/// A record's `dead` bit p is set when the pointer passed as parameter p is
/// provably unused after the run except by cudaFree (HostMemory::isDeadAfter);
/// the runtime may then drop the fused kernel's stores to it.
///
/// Every rewritten run is an optimization remark saying which launches run
/// as which fused kernel, every run left alone a missed remark saying why,
/// every run cut short by an instruction a missed remark naming it, under
/// DEBUG_TYPE "kfuse".
//===----------------------------------------------------------------------===//
#include "DevicePlan.h"
#include "HostChecks.h"
#include "HostLaunch.h"
#include "HostMemory.h"
#include "Passes.h"
#include "RemarkText.h"
#include "SeqRecord.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/Statistic.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/BuildLibCalls.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ValueMapper.h"


using namespace llvm;
using namespace kfuse;

#define DEBUG_TYPE "kfuse"

STATISTIC(NumRuns, "Runs of kfuse_map launches handed to the runtime");
STATISTIC(NumShortRuns, "Sequences fused on the device side whose launches are not back to back here");
STATISTIC(NumNotFused, "Runs left as they are: the device code has no fused kernel for them");
STATISTIC(NumLaunchesHanded, "kfuse_map launches handed to the runtime");
STATISTIC(NumLone, "kfuse_map launches left alone: no neighbour to join");
STATISTIC(NumBrokenByHazard,
          "Runs ended by an instruction that may touch device memory");
STATISTIC(NumBrokenByControlFlow, "Runs ended by a branch or a join");
STATISTIC(NumBrokenByOtherLaunch, "Runs ended by a launch of another kernel");
STATISTIC(NumBrokenUnchecked,
          "Runs cut back to their last launch followed by an error check");
STATISTIC(NumStubNotUnderstood,
          "kfuse_map launches whose stub prologue could not be read");
STATISTIC(NumDeadParams, "Launch parameters marked dead after their run");

namespace {

/// Why a run stopped growing.
enum class BreakKind { None, Hazard, ControlFlow, OtherLaunch, Unchecked };

/// A maximal run of launches and what ended it.
struct LaunchRun {
  SmallVector<Launch *, 4> Launches;
  Instruction *Breaker = nullptr;
  BreakKind Kind = BreakKind::None;
  std::string Why;
  /// The launch whose own argument evaluation holds the breaker (a call in
  /// an argument, `k<<<g, b>>>(f(t))`), or the first launch cut off by
  /// BreakKind::Unchecked; null when the breaker lies between launches.
  Launch *BrokenIn = nullptr;
  /// Per launch: the dead mask of its record.
  SmallVector<uint64_t, 4> Dead;
  /// Per launch: the first error query between it and the next launch (or,
  /// for the last, after it), or null (HostChecks.h).
  SmallVector<Instruction *, 4> QueryAfter;
  /// Where the code after the breaker goes on, when the breaker lies on an
  /// error check's failure path (null: after the breaker).
  BasicBlock *ResumeAt = nullptr;
  /// For BreakKind::Unchecked: the last launch of the run before it was cut
  /// back to its last checked launch.
  Launch *Unchecked = nullptr;

  void breakAt(Instruction *I, BreakKind K, std::string Reason) {
    Breaker = I;
    Kind = K;
    Why = std::move(Reason);
  }
};

/// Finds the runs in one function and rewrites them.
class HostRewriter {
public:
  HostRewriter(Function &F, AnnotatedStubs &Stubs, const DevicePlan &Plan,
               bool &ToldUnknown, OptimizationRemarkEmitter &ORE,
               FunctionAnalysisManager &FAM)
      : F(F), M(*F.getParent()), DL(M.getDataLayout()), Stubs(Stubs), Plan(Plan),
        ToldUnknown(ToldUnknown), ORE(ORE), Mem([&FAM](const Function &G) {
          // The analysis manager takes IR it may hand to passes; this one
          // only reads G's attributes.
          return &FAM.getResult<TargetLibraryAnalysis>(const_cast<Function &>(G));
        }) {}

  bool run();

private:
  void collectLaunches();
  LaunchRun growRun(Launch &First);
  Instruction *after(CallBase &Call);
  bool joinsOnlyRun(BasicBlock &Next, BasicBlock &From, const LaunchRun &R);
  Instruction *firstHazard(Launch &L, std::string &Why);
  void reportBreak(Launch &Last, const LaunchRun &R);
  void computeDeadMasks(LaunchRun &R);
  bool consultPlan(const LaunchRun &R);
  void bindRun(LaunchRun &R, SmallVectorImpl<LaunchRun> &Handed);
  void rewrite(LaunchRun &R);
  SmallVector<Value *, 8> materializeArgs(Launch &L, IRBuilder<> &B);
  GlobalVariable *getSizesGlobal(StubLayout &S);
  std::string siteWhere(const LaunchRun &R);
  GlobalVariable *createSite(const LaunchRun &R);
  AllocaInst *entryAlloca(Type *T, Align A, const Twine &Name);

  Function &F;
  Module &M;
  const DataLayout &DL;
  AnnotatedStubs &Stubs;
  const DevicePlan &Plan;
  /// Whether the module's analysis remark on an unknown plan was given.
  bool &ToldUnknown;
  OptimizationRemarkEmitter &ORE;
  HostMemory Mem;
  std::vector<Launch> Launches;
  DenseMap<Instruction *, Launch *> ByPush;
  SmallPtrSet<Launch *, 8> Taken;
};

} // namespace

void HostRewriter::collectLaunches() {
  for (BasicBlock &BB : F)
    for (Instruction &I : BB) {
      Launch L;
      if (isPushCall(I) && matchLaunch(cast<CallBase>(I), L)) {
        L.Layout = Stubs.lookup(L.stub());
        L.Index = Launches.size();
        Launches.push_back(L);
      }
    }
  for (Launch &L : Launches)
    ByPush[L.Push] = &L;
}

/// The instruction executed after \p Call returns normally, or null when
/// that is not on a straight path.
Instruction *HostRewriter::after(CallBase &Call) {
  if (auto *II = dyn_cast<InvokeInst>(&Call)) {
    BasicBlock *Next = II->getNormalDest();
    return Next->getSinglePredecessor() ? &Next->front() : nullptr;
  }
  return Call.getNextNode();
}

/// True for a block nothing branches to but the entry block: clang leaves
/// one after a call that does not return (`assert`'s failure), branching
/// on to the code after it.
static bool neverEntered(const BasicBlock &BB) {
  return pred_empty(&BB) && !BB.isEntryBlock();
}

/// True when every predecessor of \p Next is \p From or the push block of a
/// launch of \p R that skips to \p Next: after the rewrite, \p From is then
/// the only way in.
bool HostRewriter::joinsOnlyRun(BasicBlock &Next, BasicBlock &From,
                                const LaunchRun &R) {
  for (BasicBlock *Pred : predecessors(&Next)) {
    if (Pred == &From || neverEntered(*Pred))
      continue;
    if (none_of(R.Launches, [&](Launch *L) {
          return L->Branch->getParent() == Pred && L->Skip == &Next;
        }))
      return false;
  }
  return true;
}

/// The first instruction of \p L's argument evaluation (between its branch
/// and its stub call) that is a hazard, or null.
Instruction *HostRewriter::firstHazard(Launch &L, std::string &Why) {
  BasicBlock *BB = L.ConfigOK;
  while (true) {
    for (Instruction &I : *BB) {
      if (&I == L.StubCall)
        return nullptr;
      if (I.isTerminator())
        break;
      Why = Mem.hazard(I);
      if (!Why.empty())
        return &I;
    }
    // matchLaunch found the stub call on a straight path, so this terminator
    // is an unconditional branch or an invoke.
    Instruction *T = BB->getTerminator();
    if (auto *II = dyn_cast<InvokeInst>(T)) {
      Why = Mem.hazard(*II);
      if (!Why.empty())
        return II;
      BB = II->getNormalDest();
    } else {
      BB = T->getSuccessor(0);
    }
  }
}

LaunchRun HostRewriter::growRun(Launch &First) {
  LaunchRun R;
  R.Launches.push_back(&First);
  R.QueryAfter.push_back(nullptr);
  SmallPtrSet<BasicBlock *, 8> Visited{First.StubCall->getParent()};
  // Error checks (HostChecks.h): queries of the last error not yet tested by
  // a check, and what the path last stored to each slot, for the variable a
  // check tests.
  SmallVector<Instruction *, 2> Untested;
  DenseMap<const Value *, Value *> Stored;
  auto Read = [&](const LoadInst &LI) { return Stored.lookup(LI.getPointerOperand()); };
  auto Track = [&](Instruction &At) {
    if (auto *SI = dyn_cast<StoreInst>(&At)) {
      if (isa<AllocaInst>(SI->getPointerOperand()))
        Stored[SI->getPointerOperand()] = SI->getValueOperand();
      return;
    }
    // Anything else that may write a slot forgets it.
    if (auto *CB = dyn_cast<CallBase>(&At))
      for (const Value *Arg : CB->args())
        if (Arg->getType()->isPointerTy())
          Stored.erase(getUnderlyingObject(Arg));
  };
  auto Crossable = [&](Instruction &At, const std::string &Why) {
    Track(At);
    if (Why.empty())
      return true;
    auto *CB = dyn_cast<CallBase>(&At);
    CheckCall K = CB ? classifyCheckCall(*CB) : CheckCall::Other;
    if (K == CheckCall::Query)
      Untested.push_back(&At);
    return K == CheckCall::Query || K == CheckCall::Report;
  };
  Instruction *I = after(*First.StubCall);
  if (!I)
    R.breakAt(First.StubCall, BreakKind::ControlFlow,
              "the stub call's normal destination is a join");
  while (I) {
    if (Launch *Next = ByPush.lookup(I)) {
      if (!Untested.empty()) {
        R.breakAt(Untested.front(), BreakKind::Hazard,
                  "a query of the last error that no check ending the program tests");
        break;
      }
      if (!Next->isAnnotated() || !Next->Layout->isValid() ||
          Taken.count(Next)) {
        R.breakAt(I, BreakKind::OtherLaunch,
                  "a launch of " + kernelName(*Next->stub()));
        break;
      }
      std::string Why;
      if (Instruction *Bad = firstHazard(*Next, Why)) {
        R.breakAt(Bad, BreakKind::Hazard, Why);
        R.BrokenIn = Next;
        break;
      }
      R.Launches.push_back(Next);
      R.QueryAfter.push_back(nullptr);
      Visited.insert(Next->StubCall->getParent());
      I = after(*Next->StubCall);
      if (!I)
        R.breakAt(Next->StubCall, BreakKind::ControlFlow,
                  "the stub call's normal destination is a join");
      continue;
    }
    if (!I->isTerminator()) {
      std::string Why = Mem.hazard(*I);
      if (!Crossable(*I, Why)) {
        R.breakAt(I, BreakKind::Hazard, Why);
        break;
      }
      I = I->getNextNode();
      continue;
    }
    BasicBlock *Succ = nullptr;
    if (auto *Br = dyn_cast<BranchInst>(I); Br && Br->isUnconditional()) {
      Succ = Br->getSuccessor(0);
    } else if (auto *II = dyn_cast<InvokeInst>(I)) {
      std::string Why = Mem.hazard(*II);
      if (!Crossable(*II, Why)) {
        R.breakAt(I, BreakKind::Hazard, Why);
        break;
      }
      Succ = II->getNormalDest();
    } else {
      // An error check: its failure path ends the program, and control goes
      // on at its success side.
      CheckBranch Check = checkBranch(*I, Mem, Read);
      if (!Check.Join) {
        // A branch on something else while a query waits for its test: the
        // query is what keeps the launches apart.
        if (Check.Why == "a branch" && !Untested.empty())
          R.breakAt(Untested.front(), BreakKind::Hazard,
                    "a query of the last error that no check ending the program tests");
        else
          R.breakAt(Check.Bad, Check.Why == "a branch" ? BreakKind::ControlFlow : BreakKind::Hazard,
                    Check.Why);
        R.ResumeAt = Check.Success;
        break;
      }
      // A check of a query made since the last launch is one after it; a
      // test of an older answer (`e` asked before the launch) checks
      // nothing of the launch's.
      if (auto *It = find(Untested, Check.Query); It != Untested.end()) {
        Untested.erase(It);
        if (!R.QueryAfter.back())
          R.QueryAfter.back() = Check.Query;
      }
      bool Fresh = true;
      for (BasicBlock *BB : concat<BasicBlock *>(Check.Blocks, Check.Dead))
        Fresh &= Visited.insert(BB).second;
      Succ = Check.Join;
      // The success side is entered from the check's branch, or from
      // blocks that never run.
      if (!Fresh || !Visited.insert(Succ).second ||
          any_of(predecessors(Succ), [&](BasicBlock *P) {
            return P != I->getParent() && !is_contained(Check.Dead, P) && !neverEntered(*P);
          })) {
        R.breakAt(I, BreakKind::ControlFlow, "a control-flow join");
        break;
      }
      I = &Succ->front();
      continue;
    }
    if (!Visited.insert(Succ).second ||
        !joinsOnlyRun(*Succ, *I->getParent(), R)) {
      R.breakAt(I, BreakKind::ControlFlow, "a control-flow join");
      break;
    }
    I = &Succ->front();
  }
  // Launches run late, at the run's last one, so a check between them sees
  // none of their errors; those are reported by a check after the last
  // launch, and without one the run ends at its last checked launch.
  unsigned LastChecked = 0;
  bool CheckedWithin = false;
  for (unsigned K = 0; K + 1 < R.Launches.size(); ++K)
    if (R.QueryAfter[K]) {
      CheckedWithin = true;
      LastChecked = K;
    }
  if (CheckedWithin && !R.QueryAfter.back()) {
    R.Unchecked = R.Launches.back();
    R.breakAt(R.QueryAfter[LastChecked], BreakKind::Unchecked, "");
    R.BrokenIn = R.Launches[LastChecked + 1];
    R.Launches.truncate(LastChecked + 1);
    R.QueryAfter.truncate(LastChecked + 1);
  }
  return R;
}

/// Says, as a missed remark, that \p R ended before a kfuse_map launch that
/// follows it on the straight path.
void HostRewriter::reportBreak(Launch &Last, const LaunchRun &R) {
  switch (R.Kind) {
  case BreakKind::None:
    return;
  case BreakKind::Hazard:
    ++NumBrokenByHazard;
    break;
  case BreakKind::ControlFlow:
    ++NumBrokenByControlFlow;
    break;
  case BreakKind::OtherLaunch:
    ++NumBrokenByOtherLaunch;
    break;
  case BreakKind::Unchecked:
    ++NumBrokenUnchecked;
    break;
  }
  // The launch the run could have reached: the one whose arguments hold
  // the breaker, else the next one past it.
  Launch *Missed = R.BrokenIn;
  Instruction *I = Missed ? nullptr : R.ResumeAt ? &R.ResumeAt->front() : R.Breaker;
  for (unsigned Steps = 0; I && Steps < 4096 && !Missed; ++Steps) {
    if (Launch *L = ByPush.lookup(I); L && L != &Last) {
      if (L->isAnnotated() && L->Layout->isValid()) {
        Missed = L;
        break;
      }
      // Step over a launch of another kernel to the one after it.
      I = after(*L->StubCall);
      continue;
    }
    if (!I->isTerminator()) {
      I = I->getNextNode();
      continue;
    }
    BasicBlock *Succ = I->getNumSuccessors() == 1 ? I->getSuccessor(0) : nullptr;
    if (auto *II = dyn_cast<InvokeInst>(I))
      Succ = II->getNormalDest();
    else if (!Succ) // an error check's success side, or the side that goes on
      Succ = checkBranch(*I, Mem, [](const LoadInst &) -> Value * { return nullptr; }).Success;
    if (auto *Br = dyn_cast<BranchInst>(I); !Succ && Br && Br->isConditional()) {
      auto Ends = [](BasicBlock *BB) { return isa<UnreachableInst>(BB->getTerminator()); };
      if (Ends(Br->getSuccessor(0)) != Ends(Br->getSuccessor(1)))
        Succ = Br->getSuccessor(Ends(Br->getSuccessor(0)) ? 1 : 0);
    }
    I = Succ ? &Succ->front() : nullptr;
  }
  if (!Missed)
    return;
  if (R.Kind == BreakKind::Unchecked) {
    ORE.emit([&] {
      return OptimizationRemarkMissed(DEBUG_TYPE, "RunUnchecked", R.Breaker)
             << "launch of " << ore::NV("Kernel", kernelName(*Last.stub()))
             << " not handed to the runtime with the launch of "
             << ore::NV("Next", kernelName(*Missed->stub()))
             << ": an error check lies between them and none follows the launch of "
             << ore::NV("Unchecked", kernelName(*R.Unchecked->stub()))
             << ", where run together their launch errors would be reported; check "
                "errors after that launch too";
    });
    return;
  }
  ORE.emit([&] {
    return OptimizationRemarkMissed(DEBUG_TYPE, "RunBroken", R.Breaker)
           << "launch of " << ore::NV("Kernel", kernelName(*Last.stub()))
           << " not handed to the runtime with the launch of "
           << ore::NV("Next", kernelName(*Missed->stub())) << ": "
           << ore::NV("Reason", R.Why) << " lies between them";
  });
}

void HostRewriter::computeDeadMasks(LaunchRun &R) {
  const Instruction &Start = *R.Launches.front()->Push;
  const Instruction &End = *R.Launches.back()->StubCall;
  DenseMap<const Value *, bool> Known;
  for (auto [K, L] : enumerate(R.Launches)) {
    uint64_t Mask = 0;
    const StubLayout &S = *L->Layout;
    for (unsigned P = 0; P < S.numParams() && P < 64; ++P) {
      if (S.PointerArg[P] < 0)
        continue;
      const Value *Ptr = L->StubCall->getArgOperand(S.PointerArg[P]);
      auto [It, New] = Known.try_emplace(Ptr, false);
      if (New)
        It->second = Mem.isDeadAfter(Ptr, Start, End);
      if (!It->second)
        continue;
      Mask |= uint64_t(1) << P;
      ++NumDeadParams;
      // Counted from 1 and named, as the device pass's remarks do.
      std::string Name = paramName(*L->stub(), unsigned(S.PointerArg[P]));
      std::string Named = Name.empty() ? "" : " ('" + Name + "')";
      ORE.emit([&] {
        return OptimizationRemarkAnalysis(DEBUG_TYPE, "DeadBuffer", L->StubCall)
               << "parameter " << ore::NV("Param", P + 1) << Named
               << " of launch "
               << ore::NV("Launch", unsigned(K)) << " ("
               << ore::NV("Kernel", kernelName(*L->stub()))
               << ") is dead after the run";
      });
    }
    R.Dead.push_back(Mask);
  }
}

AllocaInst *HostRewriter::entryAlloca(Type *T, Align A, const Twine &Name) {
  BasicBlock &Entry = F.getEntryBlock();
  auto *AI = new AllocaInst(T, DL.getAllocaAddrSpace(), nullptr, A, Name,
                            Entry.getFirstNonPHIOrDbgOrAlloca());
  return AI;
}

/// Replays \p L's stub prologue before its stub call, with the stub's
/// parameters replaced by the call's arguments and its allocas by fresh
/// entry-block allocas of the caller, and returns one pointer per kernel
/// parameter to the bytes the kernel would receive.
SmallVector<Value *, 8> HostRewriter::materializeArgs(Launch &L,
                                                      IRBuilder<> &B) {
  const StubLayout &S = *L.Layout;
  ValueToValueMapTy VMap;
  for (Argument &A : S.Stub->args()) {
    Value *Actual = L.StubCall->getArgOperand(A.getArgNo());
    // The caller's temporary of a byval argument, or of one passed by
    // address, may be reused or end its lifetime (with the launch's
    // statement) before the run ends; keep a copy that lives as long as the
    // function. The kernel gets a copy of its bytes either way.
    Type *T = nullptr;
    Align To, From;
    if (A.hasByValAttr()) {
      T = A.getParamByValType();
      To = std::max(A.getParamAlign().valueOrOne(), DL.getPrefTypeAlign(T));
      From = L.StubCall->getParamAlign(A.getArgNo()).valueOrOne();
    } else if (llvm::is_contained(S.Indirect, &A)) {
      T = ArrayType::get(B.getInt8Ty(), S.Sizes[llvm::find(S.Slots, &A) - S.Slots.begin()]);
      To = From = Actual->getPointerAlignment(DL);
    }
    if (!T) {
      VMap[&A] = Actual;
      continue;
    }
    AllocaInst *Copy = entryAlloca(T, To, A.hasByValAttr() ? "kfuse.byval" : "kfuse.indirect");
    B.CreateMemCpy(Copy, To, Actual, From, DL.getTypeAllocSize(T));
    VMap[&A] = Copy;
  }
  auto MapAlloca = [&](Value *V) {
    auto *AI = dyn_cast<AllocaInst>(V);
    if (!AI || VMap.count(AI))
      return;
    VMap[AI] = entryAlloca(AI->getAllocatedType(), AI->getAlign(), "kfuse.arg");
  };
  for (Value *Slot : S.Slots)
    MapAlloca(Slot);
  for (Instruction *I : S.Prologue) {
    for (Value *Op : I->operands())
      MapAlloca(Op);
    Instruction *NI = I->clone();
    NI->insertBefore(B.GetInsertPoint());
    RemapInstruction(NI, VMap,
                     RF_NoModuleLevelChanges | RF_IgnoreMissingLocals);
    NI->setDebugLoc(L.StubCall->getDebugLoc());
    NI->setMetadata(LLVMContext::MD_DIAssignID, nullptr);
    if (auto *SI = dyn_cast<StoreInst>(NI))
      markRecordStore(*SI);
    VMap[I] = NI;
  }
  SmallVector<Value *, 8> Ptrs;
  for (Value *Slot : S.Slots)
    Ptrs.push_back(VMap[Slot]);
  return Ptrs;
}

GlobalVariable *HostRewriter::getSizesGlobal(StubLayout &S) {
  if (S.SizesGlobal || S.numParams() == 0)
    return S.SizesGlobal;
  Constant *Init = ConstantDataArray::get(M.getContext(), ArrayRef(S.Sizes));
  S.SizesGlobal = new GlobalVariable(
      M, Init->getType(), /*isConstant=*/true, GlobalValue::PrivateLinkage,
      Init, "kfuse.argsizes." + S.Stub->getName());
  S.SizesGlobal->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
  return S.SizesGlobal;
}

/// \p Loc in the function itself: for code of a launch helper inlined here,
/// the helper's call. Null without a location.
static const DILocation *outermost(const DILocation *Loc) {
  while (Loc && Loc->getInlinedAt())
    Loc = Loc->getInlinedAt();
  return Loc;
}

/// Where launch \p L is in the function: its `<<<` (or the call of the
/// launch helper it was inlined from).
static const DILocation *launchLocation(const Launch &L) {
  return outermost(L.Push->getDebugLoc() ? L.Push->getDebugLoc().get()
                                         : L.StubCall->getDebugLoc().get());
}

/// The site's `where` (kf_site_t): "file:line:col function" of the first
/// launch, or "function launch i" without a location. The runtime reads the
/// function from it to place `plans` groups.
std::string HostRewriter::siteWhere(const LaunchRun &R) {
  const Launch &First = *R.Launches.front();
  if (const DILocation *Loc = launchLocation(First))
    return (Loc->getFilename() + ":" + Twine(Loc->getLine()) + ":" +
            Twine(Loc->getColumn()) + " " + F.getName())
        .str();
  return (F.getName() + " launch " + Twine(First.Index)).str();
}

/// This file's anchor (kf_site_t.anchor), made on first use: a private
/// host byte registered, beside clang's own registrations in
/// __cuda_register_globals, as the host address of one of this file's fused
/// kernels (DevicePlan::anchorKernel). The runtime looks the anchor up as it
/// looks up a stub and so reaches this file's module, where the sites'
/// manifest is. A launch's own stub may lead elsewhere: a template or
/// inline kernel is defined in every file that uses it, and the linker
/// keeps one file's stub, which the runtime maps to one file's module.
/// Null where there is nothing to register (DevicePlan::anchorKernel) or
/// no registration function to register it in; the runtime then reads the
/// manifest in the module of each launch's kernel.
static Constant *siteAnchor(Module &M, const DevicePlan &Plan) {
  if (GlobalVariable *Anchor = M.getNamedGlobal("kfuse.anchor"))
    return Anchor;
  std::string Kernel = Plan.anchorKernel();
  Function *Globals = M.getFunction("__cuda_register_globals");
  Function *Register = M.getFunction("__cudaRegisterFunction");
  if (Kernel.empty() || !Globals || Globals->isDeclaration() || !Register)
    return nullptr;
  CallInst *Last = nullptr;
  for (Instruction &I : instructions(*Globals))
    if (auto *CI = dyn_cast<CallInst>(&I);
        CI && CI->getCalledOperand() == Register && CI->arg_size() >= 4)
      Last = CI;
  if (!Last)
    return nullptr;
  LLVMContext &C = M.getContext();
  // A byte of its own, never constant: its address is unique to this file.
  auto *Anchor = new GlobalVariable(M, Type::getInt8Ty(C), /*isConstant=*/false,
                                    GlobalValue::PrivateLinkage,
                                    ConstantInt::get(Type::getInt8Ty(C), 0), "kfuse.anchor");
  Constant *Str = ConstantDataArray::getString(C, Kernel);
  auto *Name = new GlobalVariable(M, Str->getType(), /*isConstant=*/true,
                                  GlobalValue::PrivateLinkage, Str, "kfuse.anchor.name");
  Name->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
  // The same call as clang's for a kernel: (handle, host address, device
  // name, device name, -1, null...).
  auto *Reg = cast<CallInst>(Last->clone());
  Reg->setArgOperand(1, Anchor);
  Reg->setArgOperand(2, Name);
  Reg->setArgOperand(3, Name);
  Reg->insertAfter(Last->getIterator());
  return Anchor;
}

/// The zero-initialised kf_site_t of \p R, named after the first launch.
GlobalVariable *HostRewriter::createSite(const LaunchRun &R) {
  std::string Where = siteWhere(R);
  LLVMContext &C = M.getContext();
  Constant *Str = ConstantDataArray::getString(C, Where);
  auto *StrGV = new GlobalVariable(M, Str->getType(), /*isConstant=*/true,
                                   GlobalValue::PrivateLinkage, Str,
                                   "kfuse.where");
  StrGV->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
  StructType *SiteTy = getSiteType(M);
  Type *I32 = Type::getInt32Ty(C);
  Constant *Manifest = ConstantPointerNull::get(PointerType::getUnqual(C));
  if (!Plan.manifestSymbol().empty()) {
    // One string per module, shared by its sites.
    GlobalVariable *Name = M.getNamedGlobal("kfuse.manifest");
    if (!Name) {
      Constant *S = ConstantDataArray::getString(C, Plan.manifestSymbol());
      Name = new GlobalVariable(M, S->getType(), /*isConstant=*/true,
                                GlobalValue::PrivateLinkage, S, "kfuse.manifest");
      Name->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
    }
    Manifest = Name;
  }
  Constant *Anchor = siteAnchor(M, Plan);
  if (!Anchor)
    Anchor = ConstantPointerNull::get(PointerType::getUnqual(C));
  Constant *Init = ConstantStruct::get(
      SiteTy, {StrGV, ConstantPointerNull::get(PointerType::getUnqual(C)),
               ConstantInt::get(I32, R.Launches.size()), ConstantInt::get(I32, 0),
               ConstantPointerNull::get(PointerType::getUnqual(C)), Manifest, Anchor,
               ConstantInt::get(I32, 0), ConstantPointerNull::get(PointerType::getUnqual(C))});
  // Not constant: the runtime publishes its match in `cache`.
  auto *Site = new GlobalVariable(M, SiteTy, /*isConstant=*/false,
                                  GlobalValue::PrivateLinkage, Init, "kfuse.site");
  Site->setAlignment(DL.getABITypeAlign(SiteTy));
  return Site;
}

/// Replaces \p Call (a stub call or a push) by a branch to its normal
/// destination when it is an invoke, then erases it.
static void eraseCall(CallBase &Call) {
  if (auto *II = dyn_cast<InvokeInst>(&Call)) {
    BranchInst::Create(II->getNormalDest(), II->getIterator());
    II->getUnwindDest()->removePredecessor(II->getParent());
  }
  Call.eraseFromParent();
}

void HostRewriter::rewrite(LaunchRun &R) {
  LLVMContext &C = M.getContext();
  Type *I8 = Type::getInt8Ty(C);
  Type *I32 = Type::getInt32Ty(C);
  Type *Ptr = PointerType::getUnqual(C);
  StructType *RecTy = getLaunchRecordType(M);
  const StructLayout *SL = DL.getStructLayout(RecTy);
  uint64_t Stride = DL.getTypeAllocSize(RecTy);
  unsigned N = R.Launches.size();
  // The call runs the whole run: it stands where the run starts.
  DebugLoc FirstLoc = R.Launches.front()->StubCall->getDebugLoc();

  GlobalVariable *Site = createSite(R);
  AllocaInst *Records = entryAlloca(ArrayType::get(RecTy, N),
                                    DL.getABITypeAlign(RecTy), "kfuse.launches");
  FunctionCallee RT = M.getOrInsertFunction(
      "kf_rt_launch_seq", FunctionType::get(Type::getVoidTy(C),
                                            {Ptr, Ptr, I32}, false));

  for (auto [K, L] : enumerate(R.Launches)) {
    IRBuilder<> B(L->StubCall);
    auto Put = [&](Value *V, Value *Ptr) { markRecordStore(*B.CreateStore(V, Ptr)); };
    auto Field = [&](unsigned FieldNo, uint64_t Extra = 0) {
      return B.CreateConstInBoundsGEP1_64(
          I8, Records, K * Stride + SL->getElementOffset(FieldNo) + Extra);
    };
    SmallVector<Value *, 8> ArgPtrs = materializeArgs(*L, B);
    Value *Args = ConstantPointerNull::get(PointerType::getUnqual(C));
    if (!ArgPtrs.empty()) {
      AllocaInst *Arr = entryAlloca(ArrayType::get(Ptr, ArgPtrs.size()),
                                    DL.getABITypeAlign(Ptr), "kfuse.args");
      for (auto [J, P] : enumerate(ArgPtrs))
        Put(P, B.CreateConstInBoundsGEP1_64(I8, Arr, J * DL.getTypeAllocSize(Ptr)));
      Args = Arr;
    }
    Value *Sizes = getSizesGlobal(*L->Layout);
    if (!Sizes)
      Sizes = ConstantPointerNull::get(PointerType::getUnqual(C));

    // dim3 travels as {i64 x | y << 32, i32 z}.
    CallBase &Push = *L->Push;
    auto StoreDim = [&](unsigned FieldNo, Value *XY, Value *Z) {
      Put(B.CreateTrunc(XY, I32), Field(FieldNo, 0));
      Put(B.CreateTrunc(B.CreateLShr(XY, 32), I32), Field(FieldNo, 4));
      Put(Z, Field(FieldNo, 8));
    };
    Put(L->stub(), Field(LF_Func));
    StoreDim(LF_Grid, Push.getArgOperand(0), Push.getArgOperand(1));
    StoreDim(LF_Block, Push.getArgOperand(2), Push.getArgOperand(3));
    Put(B.CreateZExtOrTrunc(Push.getArgOperand(4), RecTy->getElementType(LF_Shmem)),
        Field(LF_Shmem));
    Value *Stream = Push.getArgOperand(5);
    if (L->Layout->PerThreadDefaultStream) {
      // The runtime launches through cudaLaunchKernel and cuLaunchKernel,
      // where a null stream is the legacy stream; this stub meant the
      // per-thread default stream (which, unlike the legacy one, a graph
      // may capture): hand over its explicit handle, cudaStreamPerThread.
      Value *PerThread = B.CreateIntToPtr(B.getInt64(2), Stream->getType());
      Stream = B.CreateSelect(B.CreateIsNull(Stream), PerThread, Stream,
                              "kfuse.stream");
    }
    Put(Stream, Field(LF_Stream));
    Put(Args, Field(LF_Args));
    Put(Sizes, Field(LF_ArgSizes));
    Put(B.getInt32(ArgPtrs.size()), Field(LF_NArgs));
    // The rerun mask needs the program after inlining (HostLiveness.cpp).
    Put(B.getInt32(0), Field(LF_Rerun));
    Put(B.getInt64(R.Dead[K]), Field(LF_Dead));
    if (K + 1 == N) {
      CallInst *Call = B.CreateCall(RT, {Site, Records, B.getInt32(N)});
      if (FirstLoc)
        Call->setDebugLoc(FirstLoc);
      // The runtime is C: it does not unwind.
      Call->setDoesNotThrow();
    }
    eraseCall(*L->StubCall);
  }

  // The launches no longer push a configuration; the config-ok paths run
  // unconditionally.
  for (Launch *L : R.Launches) {
    BasicBlock *BranchBB = L->Branch->getParent();
    BranchInst::Create(L->ConfigOK, L->Branch->getIterator());
    L->Skip->removePredecessor(BranchBB);
    L->Branch->eraseFromParent();
    L->Cmp->eraseFromParent();
    eraseCall(*L->Push);
  }
}

bool HostRewriter::run() {
  collectLaunches();
  SmallVector<LaunchRun, 4> Runs;
  for (Launch &L : Launches) {
    if (!L.isAnnotated() || Taken.count(&L))
      continue;
    if (!L.Layout->isValid()) {
      ++NumStubNotUnderstood;
      ORE.emit([&] {
        return OptimizationRemarkMissed(DEBUG_TYPE, "StubNotUnderstood",
                                        L.StubCall)
               << "launch of " << ore::NV("Kernel", kernelName(*L.stub()))
               << " left alone: " << ore::NV("Reason", L.Layout->WhyNot);
      });
      continue;
    }
    LaunchRun R = growRun(L);
    for (Launch *In : R.Launches)
      Taken.insert(In);
    reportBreak(*R.Launches.back(), R);
    if (R.Launches.size() < 2) {
      ++NumLone;
      continue;
    }
    Runs.push_back(std::move(R));
  }

  // Runs with nothing behind them stay as they are.
  SmallVector<LaunchRun, 4> Handed;
  for (LaunchRun &R : Runs)
    bindRun(R, Handed);
  // Dead-buffer proofs look at the stub calls, so they all come first.
  for (LaunchRun &R : Handed)
    computeDeadMasks(R);
  for (LaunchRun &R : Handed) {
    ++NumRuns;
    NumLaunchesHanded += R.Launches.size();
    rewrite(R);
  }
  return !Handed.empty();
}

/// Hands over the parts of \p R that the device side fused: each sequence
/// whose fused groups name, in their `at` line, this function and the line
/// and column of one of \p R's launches, over as many launches as the
/// sequence has, becomes a run of its own, bound to its groups by that key
/// (docs/manifest.md). Launches of \p R outside such a sequence stay plain
/// launches, with a missed remark. Without a device plan (or where only
/// groups without `at` lines, bound by kernel names, exist) the run is
/// handed over whole when consultPlan() says so.
void HostRewriter::bindRun(LaunchRun &R, SmallVectorImpl<LaunchRun> &Handed) {
  if (!Plan.known()) {
    if (consultPlan(R))
      Handed.push_back(std::move(R));
    return;
  }
  const unsigned N = R.Launches.size();
  SmallVector<bool, 8> In(N, false);
  bool Any = false;
  for (unsigned I = 0; I < N;) {
    const DILocation *At = launchLocation(*R.Launches[I]);
    bool Bound = false;
    for (unsigned Len : At ? Plan.boundLengths(F.getName(), At->getLine(), At->getColumn())
                           : std::vector<unsigned>()) {
      if (I + Len > N) {
        ++NumShortRuns;
        ORE.emit([&] {
          return OptimizationRemarkMissed(DEBUG_TYPE, "RunShorterThanSequence",
                                          R.Launches[I]->StubCall)
                 << "the device code fused launches of a sequence of "
                 << ore::NV("Length", Len) << " launches that starts at this launch of "
                 << ore::NV("Kernel", kernelName(*R.Launches[I]->stub())) << ", but only "
                 << ore::NV("Found", N - I)
                 << " of them follow each other here without anything between them that "
                    "could touch device memory; they run one by one";
        });
        continue;
      }
      LaunchRun Sub;
      Sub.Launches.assign(R.Launches.begin() + I, R.Launches.begin() + I + Len);
      if (!consultPlan(Sub))
        continue;
      Handed.push_back(std::move(Sub));
      std::fill(In.begin() + I, In.begin() + I + Len, true);
      Any = Bound = true;
      I += Len;
      break;
    }
    if (!Bound)
      ++I;
  }
  if (!Any) {
    // Nothing bound to a site here: groups bound by kernel names alone, or
    // the remark on why the launches stay as they are.
    if (consultPlan(R))
      Handed.push_back(std::move(R));
    return;
  }
  for (unsigned I = 0; I < N;) {
    if (In[I]) {
      ++I;
      continue;
    }
    unsigned J = I;
    while (J + 1 < N && !In[J + 1])
      ++J;
    ++NumNotFused;
    ORE.emit([&] {
      OptimizationRemarkMissed Rem(DEBUG_TYPE, "NoSequence", R.Launches[I]->StubCall);
      Rem << (I == J ? "launch of " : "launches of ");
      for (unsigned K = I; K <= J; ++K)
        Rem << (K > I ? ", " : "") << ore::NV("Kernel", kernelName(*R.Launches[K]->stub()));
      return Rem << " left as " << (I == J ? "it is" : "they are")
                 << ": the device compilation recorded no launch sequence that starts at "
                    "this launch (-Rpass-missed=kfuse on the device side says why)";
    });
    I = J + 1;
  }
}

/// Says, in a remark, what the device plan holds for \p R, and returns
/// whether \p R is to be handed to the runtime: when a fused kernel can take
/// some of its launches, or when the plan is unknown.
bool HostRewriter::consultPlan(const LaunchRun &R) {
  Instruction *First = R.Launches.front()->StubCall;
  DiagnosticLocation Loc(outermost(First->getDebugLoc().get()));
  auto Kernels = [&](DiagnosticInfoOptimizationBase &Rem) {
    Rem << ore::NV("NumLaunches", unsigned(R.Launches.size())) << " launches (";
    for (auto [K, L] : enumerate(R.Launches))
      Rem << (K ? ", " : "") << ore::NV("Kernel", kernelName(*L->stub()));
    Rem << ")";
  };
  auto Span = [](unsigned A, unsigned B) {
    return A == B ? "launch " + std::to_string(A)
                  : "launches " + std::to_string(A) + ".." + std::to_string(B);
  };

  if (!Plan.known()) {
    if (!ToldUnknown) {
      ToldUnknown = true;
      ORE.emit([&] {
        return OptimizationRemarkAnalysis(DEBUG_TYPE, "DevicePlanUnknown", Loc,
                                          First->getParent())
               << "the device plan cannot be read here: "
               << ore::NV("Reason", Plan.whyUnknown())
               << "; launch runs are handed to the runtime, which finds their fused "
                  "kernels at run time";
      });
    }
    ORE.emit([&] {
      OptimizationRemark Rem(DEBUG_TYPE, "LaunchesHanded", Loc, First->getParent());
      Rem << "handed ";
      Kernels(Rem);
      return Rem << " to the runtime, which runs them fused where the device code has a "
                    "fused kernel for them, else one by one";
    });
    return true;
  }

  SmallVector<const Function *, 8> StubFns;
  SmallVector<unsigned, 8> NArgs;
  for (Launch *L : R.Launches) {
    StubFns.push_back(L->stub());
    NArgs.push_back(L->Layout->numParams());
  }
  const DILocation *At = launchLocation(*R.Launches.front());
  RunPlan P = Plan.match(StubFns, NArgs, siteWhere(R), At ? At->getLine() : 0);
  std::string Missed;
  for (const MissedSpan &X : P.Missed)
    Missed += (Missed.empty() ? "" : "; ") + Span(X.First, X.Last) + " not fused: " + X.Reason;
  if (!P.Fused) {
    ++NumNotFused;
    ORE.emit([&] {
      OptimizationRemarkMissed Rem(DEBUG_TYPE, "NoFusedKernel", Loc, First->getParent());
      Kernels(Rem);
      Rem << " left as they are: ";
      if (P.NoManifest)
        return Rem << "the device code has no fused kernel (no kfuse manifest in its cubin)";
      Rem << "the device code has no fused kernel for them";
      if (Missed.empty())
        return Rem << ", and the device compilation recorded no reason (it saw no launch "
                      "sequence of these launches here)";
      return Rem << "; " << ore::NV("Reason", Missed);
    });
    return false;
  }
  ORE.emit([&] {
    OptimizationRemark Rem(DEBUG_TYPE, "LaunchesHanded", Loc, First->getParent());
    Rem << "handed ";
    Kernels(Rem);
    Rem << " to the runtime, which runs ";
    for (auto [K, S] : enumerate(P.Spans)) {
      Rem << (K == 0 ? "" : K + 1 == P.Spans.size() ? " and " : ", ") << Span(S.First, S.Last)
          << " as " << ore::NV("FusedKernel", S.Kernel);
      for (const std::vector<unsigned> *Side : {&S.RidersBefore, &S.Riders}) {
        if (Side->empty())
          continue;
        std::string Riders;
        for (unsigned I : *Side)
          Riders += (Riders.empty() ? "" : ", ") + std::to_string(I);
        Rem << " (" << (Side->size() > 1 ? "launches " : "launch ") << Riders
            << " left out, run " << (Side == &S.Riders ? "after" : "before") << " it)";
      }
      // A group without an `at` line (a hand-written manifest) is matched
      // by kernel names: one the device pass made for another sequence of
      // the same kernels takes launches it refused to fuse here, and its
      // guards decide. A group with one is this site's own.
      if (S.Bound)
        continue;
      if (any_of(P.Missed, [&](const MissedSpan &X) {
            return S.First <= X.First && X.Last <= S.Last;
          }))
        Rem << " (made for another launch sequence of these kernels)";
      else if (S.Twins > 1)
        Rem << " (the runtime binds these kernels to the first of their "
            << std::to_string(S.Twins) << " fused kernels)";
    }
    Rem << " when the guards hold at run time, else one by one";
    if (P.Differs) {
      // Which cubin and plan the spans are of, where there is a choice.
      std::string Of = Plan.severalCubins() ? P.Arch : "";
      if (Plan.severalPlans())
        Of += (Of.empty() ? "plan " : ", plan ") + std::to_string(P.Plan);
      Rem << " (" << Of << "; other architectures or plans cover them differently)";
    }
    if (!Missed.empty())
      Rem << "; " << ore::NV("Reason", Missed);
    return Rem;
  });
  return true;
}

namespace {
/// What a function is to inlineLaunchHelpers.
struct HelperKind {
  bool IsHelper = false;
  /// The parameter the helper launches its kernel through, if it does
  /// (`template <class K> void launch(K k, ...) { k<<<g, b>>>(...); }`).
  std::optional<unsigned> KernelArg;
};

/// Whether \p F is a launch helper: a small void function holding exactly
/// one launch, of a kfuse_map kernel or of the kernel a parameter points to,
/// and nothing that could end a run (`void axpy(...) { k<<<g, b>>>(...); }`).
HelperKind launchHelperKind(Function &F, AnnotatedStubs &Stubs) {
  HelperKind Kind;
  if (F.isDeclaration() || !F.getReturnType()->isVoidTy() || F.isVarArg() ||
      F.getInstructionCount() > 200)
    return Kind;
  Launch L;
  unsigned Found = 0;
  for (Instruction &I : instructions(F)) {
    if (!isPushCall(I))
      continue;
    if (++Found > 1)
      return Kind;
    auto &Push = cast<CallBase>(I);
    if (matchLaunch(Push, L)) {
      if (!Stubs.lookup(L.stub()))
        return Kind;
    } else if (matchLaunch(Push, L, /*ThroughArgument=*/true)) {
      Kind.KernelArg = calleeArgument(*L.StubCall);
    } else {
      return Kind;
    }
  }
  if (Found != 1)
    return Kind;
  // Its control flow is the launch's own (the run's conditions check it
  // again once it is inlined).
  HostMemory Mem;
  for (Instruction &I : instructions(F))
    if (!I.isTerminator() && &I != L.Push && &I != L.Cmp && &I != L.StubCall &&
        !Mem.hazard(I).empty())
      return Kind;
  Kind.IsHelper = true;
  return Kind;
}

/// Inlines the launch helpers a function calls where it launches twice or
/// more, counting the helpers' launches, so that launches written as helper
/// calls in a row meet the conditions above as if written in place (the Clang
/// plugin reads such calls the same way, docs/annotations.md). A helper that
/// launches through a parameter counts where the call passes a kfuse_map
/// kernel's stub for it; once inlined, its launch calls that stub directly,
/// which is what the parameter's slot holds there. Where two kfuse_map
/// launches or more could run together, the error checks it calls
/// (isCheckHelperCall: `gpuAssert(cudaPeekAtLastError(), ...)`) are inlined
/// too, so that their branches can be crossed (HostChecks.h). Returns
/// whether anything was inlined.
bool inlineLaunchHelpers(Function &F, AnnotatedStubs &Stubs,
                         DenseMap<Function *, HelperKind> &Helpers) {
  SmallVector<std::pair<CallBase *, Function *>, 8> Calls;
  unsigned Launches = 0, Mapped = 0;
  for (Instruction &I : instructions(F)) {
    if (isPushCall(I)) {
      ++Launches;
      Launch L;
      if (matchLaunch(cast<CallBase>(I), L) && Stubs.lookup(L.stub()))
        ++Mapped;
      continue;
    }
    auto *CB = dyn_cast<CallBase>(&I);
    Function *Callee = CB ? CB->getCalledFunction() : nullptr;
    if (!Callee || Callee == &F)
      continue;
    if (isCheckHelperCall(*CB)) {
      Calls.push_back({CB, nullptr});
      continue;
    }
    auto [It, New] = Helpers.try_emplace(Callee);
    if (New)
      It->second = launchHelperKind(*Callee, Stubs);
    if (!It->second.IsHelper)
      continue;
    Function *Stub = nullptr;
    if (std::optional<unsigned> Arg = It->second.KernelArg) {
      Stub = dyn_cast<Function>(CB->getArgOperand(*Arg)->stripPointerCasts());
      if (!Stub || !Stubs.lookup(Stub))
        continue;
    }
    Calls.push_back({CB, Stub});
    ++Launches;
    ++Mapped;
  }
  // Error checks only where kfuse_map launches could run together.
  if (Mapped < 2)
    erase_if(Calls, [](const std::pair<CallBase *, Function *> &C) {
      return isCheckHelperCall(*C.first);
    });
  if (Launches < 2 || Calls.empty())
    return false;
  bool Changed = false;
  for (auto [CB, Stub] : Calls) {
    InlineFunctionInfo IFI;
    if (!InlineFunction(*CB, IFI).isSuccess())
      continue;
    Changed = true;
    if (!Stub)
      continue;
    // The helper's one indirect call (hazard() refuses any other) is its
    // launch's.
    for (CallBase *Inlined : IFI.InlinedCallSites)
      if (!Inlined->getCalledFunction() && !Inlined->isInlineAsm() &&
          Inlined->getFunctionType() == Stub->getFunctionType())
        Inlined->setCalledOperand(Stub);
  }
  return Changed;
}
} // namespace

/// Binds and rewrites every function's launch runs; \returns whether the
/// module changed.
static bool rewriteLaunchRuns(Module &M, ModuleAnalysisManager &AM) {
  AnnotatedStubs Stubs(M);
  if (Stubs.empty())
    return eraseSeqRecords(M);
  auto &FAM = AM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager();
  bool Changed = false;
  DenseMap<Function *, HelperKind> Helpers;
  for (Function &F : M)
    if (!F.isDeclaration() && inlineLaunchHelpers(F, Stubs, Helpers)) {
      Changed = true;
      FAM.invalidate(F, PreservedAnalyses::none());
    }
  // The C library's declarations get the attributes that the pipeline's
  // InferFunctionAttrs gives them a few passes later (expf: it writes errno
  // and nothing else), so that such a call between launches is known
  // harmless (HostMemory::hazard).
  for (Function &F : M)
    if (F.isDeclaration() && !F.hasFnAttribute(Attribute::NoBuiltin))
      Changed |= inferNonMandatoryLibFuncAttrs(F, FAM.getResult<TargetLibraryAnalysis>(F));
  // The translation unit's key names this file's manifest; its carrier
  // variable has done its job.
  DevicePlan Plan(M, readTuKey(M));
  Changed |= eraseSeqRecords(M);
  bool ToldUnknown = false;
  for (Function &F : M) {
    if (F.isDeclaration())
      continue;
    auto &ORE = FAM.getResult<OptimizationRemarkEmitterAnalysis>(F);
    if (HostRewriter(F, Stubs, Plan, ToldUnknown, ORE, FAM).run()) {
      Changed = true;
      FAM.invalidate(F, PreservedAnalyses::none());
    }
  }
  return Changed;
}

PreservedAnalyses kfuse::HostRewritePass::run(Module &M,
                                              ModuleAnalysisManager &AM) {
  // Without debug locations (no -g, no remark flag) the Clang plugin lists
  // where each function launches; read before eraseSeqRecords takes the
  // list away. The locations placed from it serve the binding alone and go
  // once it is done, so the rest of the compilation costs what it would
  // without the plugin.
  bool Placed = false;
  if (std::optional<std::string> Sites = readLaunchSites(M))
    Placed = placeLaunchSites(M, *Sites);
  bool Changed = rewriteLaunchRuns(M, AM);
  if (Placed)
    Changed |= StripDebugInfo(M);
  return Changed || Placed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}
