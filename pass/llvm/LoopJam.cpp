//===- LoopJam.cpp - one loop for the grid-stride loops of a fused kernel -===//
//
// Grid-stride kernels (`for (i = blockIdx.x*blockDim.x + threadIdx.x; i < n;
// i += blockDim.x*gridDim.x)`) inlined one after the other into a fused
// kernel run their loops one after the other. That is already correct when
// the loops run the same iterations (a thread reads what it wrote itself),
// but every value still crosses through memory. Jamming the loops into one,
// stage by stage within an iteration, lets the fused kernel keep a value in
// a register from the stage that computes it to the stage that uses it.
//
// Two adjacent loops L0 (earlier) and L1 are jammed when:
//  1. both are top-level, in simplified form, with one latch that is their
//     only exiting block and one exit block; the induction variable is an
//     affine recurrence with the same start and step in both (the same
//     expressions up to the order of sums' and products' operands), and so is
//     every other header phi, each the twin of one of the other loop's (the
//     64-bit copy of an `int i` that the optimiser keeps for sext(i));
//  2. both latches continue while `next <pred> n`, next the incremented
//     variable, with the same predicate and the same n;
//  3. both loops are guarded by `start <pred'> n` with the same predicate
//     and operands, or neither is guarded;
//  4. the code from L0's exit to L1's preheader (the next stage's start,
//     where L0's guard also leads) has no effect and no call (a barrier
//     between the stages must stay where every thread meets it; asm that
//     reads a register nothing uses is no call), no branch in it leaves
//     for past L1 but L1's guard (a stage whose loop runs under a test of
//     its own is not jammed), and what L1 uses of it reads no memory but
//     parameters nothing writes (it is cloned before L0).
// Then L0's latch branches to L1's header, L1's latch back to L0's header,
// L1's variable is L0's, and L1's guard, reached only where L0's failed,
// skips L1. Every thread runs the same iterations as before, the stages of
// one iteration in the order of the launches.
//
//===----------------------------------------------------------------------===//
#include "LoopJam.h"
#include "CallEffects.h"
#include "KernelAnalysis.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/LoopUtils.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

#include <functional>

#include <map>

using namespace llvm;
using namespace kfuse;

namespace {

/// The analyses of the fused kernel, rebuilt after every jam.
struct Analyses {
  TargetLibraryInfoImpl TLII;
  TargetLibraryInfo TLI;
  AssumptionCache AC;
  DominatorTree DT;
  LoopInfo LI;
  ScalarEvolution SE;
  explicit Analyses(Function &F)
      : TLII(F.getParent()->getTargetTriple()), TLI(TLII), AC(F), DT(F), LI(DT),
        SE(F, TLI, AC, DT, LI) {}
};

/// What one loop looks like, as conditions 1 to 3 need it.
struct LoopShape {
  Loop *L = nullptr;
  PHINode *IV = nullptr;
  BasicBlock *Preheader = nullptr, *Latch = nullptr, *Exit = nullptr;
  BranchInst *LatchBr = nullptr;
  ICmpInst::Predicate Pred = ICmpInst::BAD_ICMP_PREDICATE; ///< while it holds
  const SCEV *Bound = nullptr;
  BranchInst *Guard = nullptr; ///< the branch around the loop, or null
};

/// Whether \p X and \p Y are the same expression up to the order of the
/// operands of sums, products, minima and maxima. ScalarEvolution keeps
/// those in the order it met them where it cannot rank them (the product of
/// two special-register reads, `gridDim.x * blockDim.x` in one stage and
/// `blockDim.x * gridDim.x` in the next), so two stages' equal strides can
/// be two expressions.
bool sameExpr(const SCEV *X, const SCEV *Y, unsigned Depth = 0) {
  if (X == Y)
    return true;
  if (Depth > 8 || X->getSCEVType() != Y->getSCEVType() || X->getType() != Y->getType())
    return false;
  if (const auto *CX = dyn_cast<SCEVCastExpr>(X))
    return sameExpr(CX->getOperand(0), cast<SCEVCastExpr>(Y)->getOperand(0), Depth + 1);
  if (const auto *DX = dyn_cast<SCEVUDivExpr>(X)) {
    const auto *DY = cast<SCEVUDivExpr>(Y);
    return sameExpr(DX->getLHS(), DY->getLHS(), Depth + 1) &&
           sameExpr(DX->getRHS(), DY->getRHS(), Depth + 1);
  }
  if (const auto *AX = dyn_cast<SCEVAddRecExpr>(X)) {
    const auto *AY = cast<SCEVAddRecExpr>(Y);
    if (AX->getLoop() != AY->getLoop() || AX->getNumOperands() != AY->getNumOperands())
      return false;
    for (unsigned I = 0; I < AX->getNumOperands(); ++I)
      if (!sameExpr(AX->getOperand(I), AY->getOperand(I), Depth + 1))
        return false;
    return true;
  }
  const auto *NX = dyn_cast<SCEVCommutativeExpr>(X);
  if (!NX)
    return false;
  const auto *NY = cast<SCEVCommutativeExpr>(Y);
  if (NX->getNumOperands() != NY->getNumOperands())
    return false;
  // Equality is an equivalence: each operand of X may take the first equal
  // operand of Y that is left.
  SmallVector<bool, 8> Taken(NY->getNumOperands(), false);
  for (const SCEV *OX : NX->operands()) {
    unsigned J = 0;
    while (J < Taken.size() && (Taken[J] || !sameExpr(OX, NY->getOperand(J), Depth + 1)))
      ++J;
    if (J == Taken.size())
      return false;
    Taken[J] = true;
  }
  return true;
}

/// `A <P> B` as (P, SCEV(A), SCEV(B)).
using Comparison = std::tuple<ICmpInst::Predicate, const SCEV *, const SCEV *>;
Comparison comparison(ScalarEvolution &SE, ICmpInst::Predicate P, Value *A, Value *B) {
  return {P, SE.getSCEV(A), SE.getSCEV(B)};
}

/// Whether two comparisons test the same, either way round.
bool sameComparison(const Comparison &X, const Comparison &Y) {
  auto [PX, AX, BX] = X;
  auto [PY, AY, BY] = Y;
  return (PX == PY && sameExpr(AX, AY) && sameExpr(BX, BY)) ||
         (PX == ICmpInst::getSwappedPredicate(PY) && sameExpr(AX, BY) && sameExpr(BX, AY));
}

/// \p Phi, a header phi of \p L, as an affine recurrence of L or a sign or
/// zero extension of one ((sext i32 {s,+,t}) to i64), or null.
const SCEV *recurrenceOf(ScalarEvolution &SE, const Loop *L, PHINode &Phi) {
  if (!SE.isSCEVable(Phi.getType()))
    return nullptr;
  const SCEV *S = SE.getSCEV(&Phi), *R = S;
  if (auto *Ext = dyn_cast<SCEVSignExtendExpr>(S))
    R = Ext->getOperand();
  else if (auto *Ext = dyn_cast<SCEVZeroExtendExpr>(S))
    R = Ext->getOperand();
  auto *AR = dyn_cast<SCEVAddRecExpr>(R);
  return AR && AR->getLoop() == L && AR->isAffine() ? S : nullptr;
}

/// Whether recurrences \p X of one loop and \p Y of another run the same
/// values: the same start and step, widened alike.
bool sameRecurrence(ScalarEvolution &SE, const SCEV *X, const SCEV *Y) {
  if (X->getSCEVType() != Y->getSCEVType() || X->getType() != Y->getType())
    return false;
  if (auto *CX = dyn_cast<SCEVCastExpr>(X)) {
    X = CX->getOperand(0);
    Y = cast<SCEVCastExpr>(Y)->getOperand(0);
  }
  auto *AX = cast<SCEVAddRecExpr>(X), *AY = cast<SCEVAddRecExpr>(Y);
  return AX->getType() == AY->getType() && sameExpr(AX->getStart(), AY->getStart()) &&
         sameExpr(AX->getStepRecurrence(SE), AY->getStepRecurrence(SE));
}

std::optional<LoopShape> shapeOf(Analyses &A, PHINode *IV) {
  LoopShape S;
  S.IV = IV;
  S.L = A.LI.getLoopFor(IV->getParent());
  if (!S.L || S.L->getHeader() != IV->getParent())
    return std::nullopt;
  S.Preheader = S.L->getLoopPreheader();
  S.Latch = S.L->getLoopLatch();
  S.Exit = S.L->getExitBlock();
  if (!S.Preheader || !S.Latch || !S.Exit || S.L->getExitingBlock() != S.Latch)
    return std::nullopt;
  // Every header phi is an affine recurrence: the variable, and a widened
  // twin that the optimiser keeps for its 64-bit uses (`int i` indexing
  // with sext(i)), which jam() pairs with the other loop's.
  for (PHINode &Phi : S.L->getHeader()->phis())
    if (!recurrenceOf(A.SE, S.L, Phi))
      return std::nullopt;
  S.LatchBr = dyn_cast<BranchInst>(S.Latch->getTerminator());
  if (!S.LatchBr || !S.LatchBr->isConditional() || !A.SE.isSCEVable(IV->getType()))
    return std::nullopt;
  auto *AR = dyn_cast<SCEVAddRecExpr>(A.SE.getSCEV(IV));
  auto *Cmp = dyn_cast<ICmpInst>(S.LatchBr->getCondition());
  if (!AR || AR->getLoop() != S.L || !AR->isAffine() || !Cmp)
    return std::nullopt;
  S.Pred = S.LatchBr->getSuccessor(0) == S.L->getHeader() ? Cmp->getPredicate()
                                                           : Cmp->getInversePredicate();
  Value *Next = Cmp->getOperand(0), *Bound = Cmp->getOperand(1);
  if (!S.L->isLoopInvariant(Bound)) {
    std::swap(Next, Bound);
    S.Pred = ICmpInst::getSwappedPredicate(S.Pred);
  }
  Next = unwidened(Next);
  if (!S.L->isLoopInvariant(Bound) || A.SE.getSCEV(Next) != AR->getPostIncExpr(A.SE))
    return std::nullopt;
  S.Bound = A.SE.getSCEV(Bound);
  if (BasicBlock *G = S.Preheader->getSinglePredecessor()) {
    auto *Br = dyn_cast<BranchInst>(G->getTerminator());
    if (Br && Br->isConditional()) {
      if (!isa<ICmpInst>(Br->getCondition()) || Br->getSuccessor(0) == Br->getSuccessor(1))
        return std::nullopt;
      S.Guard = Br;
    }
  }
  return S;
}

/// The guard's condition as the comparison under which the loop runs.
Comparison guardOf(Analyses &A, const LoopShape &S) {
  auto *Cmp = cast<ICmpInst>(S.Guard->getCondition());
  ICmpInst::Predicate P = S.Guard->getSuccessor(0) == S.Preheader ? Cmp->getPredicate()
                                                                   : Cmp->getInversePredicate();
  return comparison(A.SE, P, Cmp->getOperand(0), Cmp->getOperand(1));
}

/// Whether \p I is inline asm whose value nothing uses and that has no
/// effect: what cooperative groups' `this_grid()` leaves (a read of
/// %envreg1), which clang marks convergent as it does every asm statement.
/// The kernel analysis vetted its text (CallEffects).
bool unusedPureAsm(const Instruction &I) {
  const auto *CB = dyn_cast<CallBase>(&I);
  return CB && CB->isInlineAsm() && I.use_empty() && CB->doesNotAccessMemory() &&
         !cast<InlineAsm>(CB->getCalledOperand())->hasSideEffects();
}

/// The kernel parameters \p F never writes through: every store, and
/// every cache-hint asm store, writes another parameter (the runtime keeps
/// distinct buffers of a fused group apart), a thread's own storage or
/// shared memory. Empty where something else may write memory.
SmallPtrSet<const Argument *, 8> unwrittenParams(Function &F) {
  SmallPtrSet<const Argument *, 8> Written, Unwritten;
  for (Instruction &I : instructions(F)) {
    if (!I.mayWriteToMemory() || unusedPureAsm(I))
      continue;
    const Value *Obj = nullptr;
    if (auto *MI = dyn_cast<MemIntrinsic>(&I)) {
      Obj = getUnderlyingObject(MI->getDest(), 0);
    } else if (auto *II = dyn_cast<IntrinsicInst>(&I)) {
      // Markers, and barriers, which write no memory themselves.
      if (II->isLifetimeStartOrEnd() || II->onlyAccessesInaccessibleMemory() ||
          II->getCalledFunction()->getName().starts_with("llvm.nvvm.barrier"))
        continue;
    } else if (std::optional<kfuse::MemoryAccess> M = memoryAccessOf(I); M && M->IsStore) {
      Obj = getUnderlyingObject(M->Ptr, 0);
    }
    if (const auto *Arg = dyn_cast_or_null<Argument>(Obj))
      Written.insert(Arg);
    else if (!isa_and_nonnull<AllocaInst>(Obj) && !isa_and_nonnull<GlobalVariable>(Obj))
      return {}; // a write that may be to a parameter's memory
  }
  for (const Argument &Arg : F.args())
    if (Arg.getType()->isPointerTy() && !Written.count(&Arg))
      Unwritten.insert(&Arg);
  return Unwritten;
}

/// Code between the loops that \p L1 uses, each instruction after its
/// operands (condition 4): pure, or a load from a parameter nothing in
/// the kernel writes (a coefficient `c[0]`, a row's `r[y]`, which the
/// optimiser hoisted out of the loop), which may as well be read before
/// L0; false when L1 uses something else.
bool collectClones(Analyses &A, const LoopShape &S0, const LoopShape &S1,
                   SetVector<Instruction *> &Clones) {
  Instruction *Point = S0.Preheader->getTerminator();
  std::optional<SmallPtrSet<const Argument *, 8>> ReadOnly;
  auto ReadOnlyLoad = [&](Instruction *I) {
    auto *LI = dyn_cast<LoadInst>(I);
    if (!LI || !LI->isSimple())
      return false;
    if (!ReadOnly)
      ReadOnly = unwrittenParams(*I->getFunction());
    const auto *Arg = dyn_cast<Argument>(getUnderlyingObject(LI->getPointerOperand(), 0));
    return Arg && ReadOnly->count(Arg);
  };
  std::function<bool(Value *)> Need = [&](Value *V) -> bool {
    auto *I = dyn_cast<Instruction>(V);
    if (!I || S1.L->contains(I) || A.DT.dominates(I, Point) || Clones.contains(I))
      return true;
    if (isa<PHINode>(I) || S0.L->contains(I) ||
        (!ReadOnlyLoad(I) &&
         (!isSafeToSpeculativelyExecute(I) || I->mayReadOrWriteMemory())))
      return false;
    for (Value *Op : I->operands())
      if (!Need(Op))
        return false;
    Clones.insert(I);
    return true;
  };
  for (BasicBlock *BB : S1.L->blocks())
    for (Instruction &I : *BB)
      for (Value *Op : I.operands())
        if (!isa<BasicBlock>(Op) && !Need(Op))
          return false;
  return true;
}


/// The blocks on paths from L0's exit to L1's preheader, which the jammed
/// loop no longer passes: nothing in them may be a call or have an effect
/// (condition 4), but for asm that only reads a register nothing uses, and
/// no branch in them may leave those paths but L1's guard, the same test
/// as L0's: a stage that runs its loop only under a condition of its own
/// (`if (flag) for (...)`) would run it always in the jammed loop.
bool pureBetween(const LoopShape &S0, const LoopShape &S1) {
  // Backwards from L1's preheader to L0's exit.
  SmallVector<BasicBlock *, 8> Work{S1.Preheader};
  SmallPtrSet<BasicBlock *, 8> Seen{S1.Preheader};
  while (!Work.empty()) {
    BasicBlock *BB = Work.pop_back_val();
    if (S0.L->contains(BB) || BB->isEntryBlock())
      return false; // a way into L1 that does not come from L0's exit
    for (Instruction &I : *BB)
      if (!unusedPureAsm(I) && (isa<CallBase>(I) || I.mayHaveSideEffects()))
        return false;
    if (BB == S0.Exit)
      continue;
    for (BasicBlock *Pred : predecessors(BB))
      if (Seen.insert(Pred).second)
        Work.push_back(Pred);
  }
  const BasicBlock *GuardBlock = S1.Guard ? S1.Guard->getParent() : nullptr;
  for (BasicBlock *BB : Seen)
    if (BB != GuardBlock)
      for (BasicBlock *Succ : successors(BB))
        if (!Seen.contains(Succ) && Succ != S1.L->getHeader())
          return false; // a way past L1 other than its guard
  return true;
}

bool jam(Function &F, PHINode *IV0, PHINode *IV1) {
  Analyses A(F);
  std::optional<LoopShape> S0 = shapeOf(A, IV0), S1 = shapeOf(A, IV1);
  if (!S0 || !S1 || S0->L == S1->L || S0->L->getParentLoop() != S1->L->getParentLoop())
    return false;

  auto *AR0 = cast<SCEVAddRecExpr>(A.SE.getSCEV(IV0));
  auto *AR1 = cast<SCEVAddRecExpr>(A.SE.getSCEV(IV1));
  if (!sameExpr(AR0->getStart(), AR1->getStart()) ||
      !sameExpr(AR0->getStepRecurrence(A.SE), AR1->getStepRecurrence(A.SE)) ||
      S0->Pred != S1->Pred || !sameExpr(S0->Bound, S1->Bound) || !S0->Guard != !S1->Guard)
    return false;
  if (S0->Guard && !sameComparison(guardOf(A, *S0), guardOf(A, *S1)))
    return false;
  // L1's header phis, each with the twin of L0's that runs the same
  // recurrence (the variables first).
  SmallVector<std::pair<PHINode *, PHINode *>, 2> Pairs{{IV0, IV1}};
  for (PHINode &P1 : S1->L->getHeader()->phis()) {
    if (&P1 == IV1)
      continue;
    const SCEV *R1 = A.SE.getSCEV(&P1);
    PHINode *Twin = nullptr;
    for (PHINode &P0 : S0->L->getHeader()->phis()) {
      if (&P0 != IV0 && sameRecurrence(A.SE, A.SE.getSCEV(&P0), R1) &&
          llvm::none_of(Pairs, [&](auto &Pr) { return Pr.first == &P0; })) {
        Twin = &P0;
        break;
      }
    }
    if (!Twin)
      return false;
    Pairs.push_back({Twin, &P1});
  }
  SetVector<Instruction *> Clones;
  if (!pureBetween(*S0, *S1) || !collectClones(A, *S0, *S1, Clones))
    return false;

  // Code L1 needs, computed before L0 instead of after it.
  ValueToValueMapTy VMap;
  Instruction *Point = S0->Preheader->getTerminator();
  for (Instruction *I : Clones) { // operands first: collectClones' order
    Instruction *C = I->clone();
    C->insertBefore(Point->getIterator());
    RemapInstruction(C, VMap, RF_IgnoreMissingLocals | RF_NoModuleLevelChanges);
    VMap[I] = C;
  }
  for (BasicBlock *BB : S1->L->blocks())
    for (Instruction &I : *BB)
      RemapInstruction(&I, VMap, RF_IgnoreMissingLocals | RF_NoModuleLevelChanges);

  BasicBlock *H0 = S0->L->getHeader(), *H1 = S1->L->getHeader();
  // L0's latch runs L1's body next; L1's latch goes back to L0's header.
  S0->Exit->removePredecessor(S0->Latch);
  BranchInst::Create(H1, S0->LatchBr->getIterator());
  S0->LatchBr->eraseFromParent();
  // Each of L0's header phis (a twin of L1's or not) takes its next value
  // from L0's latch still, now on the way in from L1's; L1's phis are L0's
  // twins.
  for (PHINode &P0 : H0->phis()) {
    Value *Next0 = P0.getIncomingValueForBlock(S0->Latch);
    P0.setIncomingBlock(P0.getBasicBlockIndex(S0->Latch), S1->Latch);
    P0.setIncomingValue(P0.getBasicBlockIndex(S1->Latch), Next0);
  }
  S1->LatchBr->replaceSuccessorWith(H1, H0);
  for (auto [P0, P1] : Pairs) {
    P1->replaceAllUsesWith(P0);
    P1->eraseFromParent();
  }
  // L1's guard is reached only where L0's failed, and it is the same test.
  if (S1->Guard) {
    BasicBlock *Skip = S1->Guard->getSuccessor(0) == S1->Preheader ? S1->Guard->getSuccessor(1)
                                                                   : S1->Guard->getSuccessor(0);
    S1->Preheader->removePredecessor(S1->Guard->getParent());
    BranchInst::Create(Skip, S1->Guard->getIterator());
    S1->Guard->eraseFromParent();
  }
  H1->removePredecessor(S1->Preheader);
  S1->Preheader->getTerminator()->eraseFromParent();
  new UnreachableInst(F.getContext(), S1->Preheader);
  return true;
}

/// One read of each special register, at the top of the entry block: the
/// stages' starts and steps then are the same values to ScalarEvolution.
void shareSpecialRegisters(Function &F) {
  std::map<Intrinsic::ID, CallInst *> First;
  SmallVector<CallInst *, 16> Reads;
  for (Instruction &I : instructions(F))
    if (auto *II = dyn_cast<IntrinsicInst>(&I))
      if (StringRef(II->getCalledFunction()->getName()).starts_with("llvm.nvvm.read.ptx.sreg.") &&
          II->arg_size() == 0 && II->doesNotAccessMemory())
        Reads.push_back(II);
  BasicBlock &Entry = F.getEntryBlock();
  for (CallInst *CI : Reads) {
    auto [It, New] = First.try_emplace(CI->getIntrinsicID(), CI);
    if (New) {
      CI->moveBefore(Entry, Entry.getFirstInsertionPt());
      continue;
    }
    CI->replaceAllUsesWith(It->second);
    CI->eraseFromParent();
  }
}

/// Removes the `llvm.experimental.noalias.scope.decl` calls that inlining
/// a stage with `__restrict__` parameters leaves between the stages (they
/// are calls, which would keep the loops apart). The stages' alias scopes
/// then hold for the whole kernel, which they do: they only set a stage's
/// parameters apart from each other, and the runtime checks that a fused
/// group's distinct buffers do not overlap (the manifest's `disjoint`).
void dropScopeDeclarations(Function &F) {
  SmallVector<Instruction *, 8> Decls;
  for (Instruction &I : instructions(F))
    if (auto *II = dyn_cast<IntrinsicInst>(&I);
        II && II->getIntrinsicID() == Intrinsic::experimental_noalias_scope_decl)
      Decls.push_back(II);
  for (Instruction *I : Decls)
    I->eraseFromParent();
}

} // namespace

std::vector<int> kfuse::jamGridLoops(Function &Fused, ArrayRef<PHINode *> IVs,
                                      ArrayRef<PHINode *> OuterIVs) {
  std::vector<int> Group(IVs.size(), -1);
  if (llvm::count_if(IVs, [](PHINode *P) { return P != nullptr; }) < 2)
    return Group;
  shareSpecialRegisters(Fused);
  dropScopeDeclarations(Fused);
  // A loop entered from a block that branches elsewhere too (an inner
  // loop whose preheader the optimiser folded into the outer loop's
  // guard) gets a preheader of its own, which the jam needs.
  {
    Analyses A(Fused);
    for (PHINode *IV : IVs)
      if (Loop *L = IV ? A.LI.getLoopFor(IV->getParent()) : nullptr; L && !L->getLoopPreheader())
        InsertPreheaderForLoop(L, &A.DT, &A.LI, nullptr, /*PreserveLCSSA=*/false);
  }
  std::vector<PHINode *> Outer(OuterIVs.begin(), OuterIVs.end());
  Outer.resize(IVs.size(), nullptr);
  for (unsigned S = 0; S < IVs.size(); ++S) {
    if (!IVs[S])
      continue;
    unsigned Head = S;
    // Jam into the loop of the previous stage when that one is a loop too.
    if (S > 0 && IVs[S - 1] && Group[S - 1] >= 0)
      Head = unsigned(Group[S - 1]);
    else if (S > 0 && IVs[S - 1])
      Head = S - 1;
    if (Head == S || !Outer[Head] != !Outer[S])
      continue;
    // Nests: the outer loops first, after which the inner loops follow
    // each other in the one outer loop's body. Where only the outer loops
    // jam, each row's stages run one after the other, still in launch
    // order, and the next stage jams with this one.
    if (Outer[S]) {
      if (!jam(Fused, Outer[Head], Outer[S]))
        continue;
      Outer[S] = Outer[Head]; // S's variable is gone: it was Head's twin
    }
    if (jam(Fused, IVs[Head], IVs[S])) {
      Group[Head] = int(Head);
      Group[S] = int(Head);
    }
  }
  return Group;
}
