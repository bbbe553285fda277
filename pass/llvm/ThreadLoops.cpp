//===- ThreadLoops.cpp - a kernel's loops of constant trip count, unrolled -===//
//
// The kernel analysis reads each access's index as a polynomial in the
// thread and block coordinates, the launch's extents and integer
// parameters, and the iteration of a grid-stride loop. A loop of the
// thread's own (each thread loops over its 64 elements, or over the
// quadrature points of its element) adds a variable the index cannot name,
// so such a kernel is not analysed. The compiler unrolls most of these
// loops itself; the ones it keeps (a large body, `#pragma unroll 1`) have
// a constant trip count all the same, and unrolled they are straight-line
// code the analysis reads like any other. So such a kernel gets a twin, a
// private copy with those loops unrolled, which the analysis reads and the
// fused kernel clones; the kernel keeps its loops.
//
// Both must compute the same bits. Unrolling copies the loop's body once
// per iteration, unchanged; what it adds are data paths from one
// iteration's arithmetic to the next one's that a loop's back edge kept
// apart: a phi, and a value stored in one iteration and loaded in the
// next, which the cleanup forwards. On such a path the backend could
// contract a multiply and an add into one FMA. So, as in a twin with
// helpers inlined (HelperInline.cpp), every floating-point phi of an
// unrolled loop and every floating-point load goes through
// llvm.arithmetic.fence, which LLVM does not contract across; so do the
// values a loop uses from before it and those used after it, which
// unrolling may put into one block with the code on the other side.
// ptxas, given the loop, may unroll it and contract a product of one
// iteration with an addition of the next, or of the code around it, or
// not; a copy in which a product crosses into an addition so
// (productAddedAcrossFence) is not used.
//
//===----------------------------------------------------------------------===//
#include "ThreadLoops.h"
#include "HelperInline.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/InstCombine/InstCombine.h"
#include "llvm/Transforms/Scalar/EarlyCSE.h"
#include "llvm/Transforms/Scalar/LoopPassManager.h"
#include "llvm/Transforms/Scalar/LoopUnrollPass.h"
#include "llvm/Transforms/Scalar/SROA.h"
#include "llvm/Transforms/Scalar/SimplifyCFG.h"
#include "llvm/Transforms/Utils/Cloning.h"

using namespace llvm;
using namespace kfuse;

/// The trip count of \p L where it is a constant, else 0.
static unsigned constantTrips(Loop &L, ScalarEvolution &SE) {
  return SE.getSmallConstantTripCount(&L);
}

ConstantLoops kfuse::constantLoops(Function &F, FunctionAnalysisManager &FAM) {
  LoopInfo &LI = FAM.getResult<LoopAnalysis>(F);
  ScalarEvolution &SE = FAM.getResult<ScalarEvolutionAnalysis>(F);
  ConstantLoops C;
  for (Loop *L : LI.getLoopsInPreorder())
    C.Loops += constantTrips(*L, SE) > 0;
  if (!C.Loops)
    return C;
  for (BasicBlock &BB : F) {
    uint64_t Times = 1;
    for (Loop *L = LI.getLoopFor(&BB); L; L = L->getParentLoop())
      if (unsigned T = constantTrips(*L, SE))
        Times = std::min<uint64_t>(Times * T, uint64_t(1) << 32);
    C.Unrolled += Times * BB.size();
  }
  return C;
}

/// \p L's loop id with every llvm.loop.unroll.* property replaced by
/// llvm.loop.unroll.full.
static void forceFullUnroll(Loop &L) {
  LLVMContext &Ctx = L.getHeader()->getContext();
  SmallVector<Metadata *, 4> Ops{nullptr};
  if (MDNode *Id = L.getLoopID())
    for (unsigned I = 1; I < Id->getNumOperands(); ++I) {
      auto *Prop = dyn_cast<MDNode>(Id->getOperand(I));
      auto *Key = Prop && Prop->getNumOperands() ? dyn_cast<MDString>(Prop->getOperand(0))
                                                 : nullptr;
      if (!Key || !Key->getString().starts_with("llvm.loop.unroll."))
        Ops.push_back(Id->getOperand(I));
    }
  Ops.push_back(MDNode::get(Ctx, MDString::get(Ctx, "llvm.loop.unroll.full")));
  MDNode *New = MDNode::getDistinct(Ctx, Ops);
  New->replaceOperandWith(0, New);
  L.setLoopID(New);
}

static constexpr const char *UnrolledSuffix = ".kfuse.unrolled";

bool kfuse::isUnrolledTwinOf(const Function &Body, const Function &F) {
  return Body.getName() == (F.getName() + UnrolledSuffix).str();
}

Function *kfuse::unrolledTwin(Function &F, FunctionAnalysisManager &FAM,
                              const Instruction *&Crossing) {
  Crossing = nullptr;
  ValueToValueMapTy VMap;
  Function *Twin = CloneFunction(&F, VMap);
  Twin->setName(F.getName() + UnrolledSuffix);
  Twin->setLinkage(GlobalValue::InternalLinkage);
  {
    LoopInfo &LI = FAM.getResult<LoopAnalysis>(*Twin);
    ScalarEvolution &SE = FAM.getResult<ScalarEvolutionAnalysis>(*Twin);
    SmallVector<Loop *, 8> Unrolled;
    for (Loop *L : LI.getLoopsInPreorder())
      if (constantTrips(*L, SE))
        Unrolled.push_back(L);
    if (Unrolled.empty()) {
      FAM.clear(*Twin, Twin->getName());
      Twin->eraseFromParent();
      return nullptr;
    }
    // What crosses a loop's boundary: its phis (from one trip to the
    // next), values it uses from before it and values used after it.
    SmallVector<Instruction *, 8> Carried;
    SmallVector<Use *, 16> In, Out;
    for (Loop *L : Unrolled) {
      forceFullUnroll(*L);
      for (PHINode &Phi : L->getHeader()->phis())
        if (Phi.getType()->isFPOrFPVectorTy())
          Carried.push_back(&Phi);
      for (BasicBlock *BB : L->blocks())
        for (Instruction &I : *BB) {
          for (Use &U : I.operands())
            if (auto *D = dyn_cast<Instruction>(U.get());
                D && D->getType()->isFPOrFPVectorTy() && !L->contains(D))
              In.push_back(&U);
          if (I.getType()->isFPOrFPVectorTy())
            for (Use &U : I.uses())
              if (!L->contains(cast<Instruction>(U.getUser())))
                Out.push_back(&U);
        }
    }
    for (Instruction *Phi : Carried)
      fenceValue(*Phi, &*Phi->getParent()->getFirstInsertionPt());
    for (Use *U : In)
      fenceUse(*U);
    for (Use *U : Out)
      fenceUse(*U);
  }
  fenceFloatLoads(*Twin);
  FAM.invalidate(*Twin, PreservedAnalyses::none());
  FunctionPassManager FPM;
  FPM.addPass(createFunctionToLoopPassAdaptor(
      LoopFullUnrollPass(/*OptLevel=*/2, /*OnlyWhenForced=*/true, /*ForgetSCEV=*/false)));
  FPM.addPass(SROAPass(SROAOptions::ModifyCFG));
  FPM.addPass(EarlyCSEPass(true));
  FPM.addPass(InstCombinePass());
  FPM.addPass(SimplifyCFGPass());
  FPM.run(*Twin, FAM);
  Crossing = productAddedAcrossFence(*Twin);
  return Twin;
}
