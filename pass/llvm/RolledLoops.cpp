//===- RolledLoops.cpp - map kernels before the program's unroll pragmas --===//
//
// RolledLoops.h says why. A loop qualifies when its loop ID carries an
// unroll pragma that asks for more than one trip a trip (`#pragma unroll N`
// with N > 1, `#pragma unroll`) and scalar evolution knows no constant trip
// count for it: the simplification pipeline has then left it for the loop
// unroller's partial or runtime unrolling, which is what the analysis cannot
// read. Loops of constant trip count are not touched: the simplification
// pipeline has unrolled them already, or ThreadLoops.h does.
//
//===----------------------------------------------------------------------===//
#include "RolledLoops.h"

#include "SeqRecord.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

using namespace llvm;

namespace {

constexpr StringLiteral RolledSuffix = ".kfuse.rolled";

/// The name of loop property \p Op (`!{!"llvm.loop.unroll.count", i32 4}`).
StringRef propertyName(const MDOperand &Op) {
  auto *N = dyn_cast<MDNode>(Op);
  if (!N || N->getNumOperands() == 0)
    return "";
  auto *S = dyn_cast<MDString>(N->getOperand(0));
  return S ? S->getString() : "";
}

/// Whether loop ID \p ID asks for the loop to be unrolled partly or at run
/// time: `#pragma unroll N` with N > 1, `#pragma unroll`.
bool asksToUnroll(const MDNode *ID) {
  if (!ID)
    return false;
  for (unsigned I = 1; I < ID->getNumOperands(); ++I) {
    StringRef Name = propertyName(ID->getOperand(I));
    if (Name == "llvm.loop.unroll.enable" || Name == "llvm.loop.unroll.runtime.enable")
      return true;
    if (Name == "llvm.loop.unroll.count") {
      auto *N = cast<MDNode>(ID->getOperand(I));
      auto *C = N->getNumOperands() > 1 ? mdconst::dyn_extract<ConstantInt>(N->getOperand(1))
                                        : nullptr;
      if (C && C->getValue().ugt(1))
        return true;
    }
  }
  return false;
}

/// Whether loop ID \p ID turns unrolling off (`#pragma unroll 1`).
bool forbidsUnroll(const MDNode *ID) {
  if (!ID)
    return false;
  for (unsigned I = 1; I < ID->getNumOperands(); ++I)
    if (propertyName(ID->getOperand(I)) == "llvm.loop.unroll.disable")
      return true;
  return false;
}

/// \p ID (null: none) without its unroll properties and with unrolling
/// disabled.
MDNode *rolledID(LLVMContext &Ctx, const MDNode *ID) {
  SmallVector<Metadata *, 4> Ops{nullptr};
  for (unsigned I = 1; ID && I < ID->getNumOperands(); ++I)
    if (!propertyName(ID->getOperand(I)).starts_with("llvm.loop.unroll."))
      Ops.push_back(ID->getOperand(I));
  Ops.push_back(MDNode::get(Ctx, MDString::get(Ctx, "llvm.loop.unroll.disable")));
  MDNode *New = MDNode::getDistinct(Ctx, Ops);
  New->replaceOperandWith(0, New);
  return New;
}

/// Whether \p L counts by a constant step, which LLVM's unroller unrolls at
/// run time by itself where the trip count is no constant (`for (c = 0; c <
/// ncomp; c++)`, four trips a round behind a remainder loop, on NVPTX); a
/// grid-stride loop, whose step the grid gives, it leaves alone.
bool countsByConstant(Loop *L, ScalarEvolution &SE) {
  for (PHINode &Phi : L->getHeader()->phis())
    if (SE.isSCEVable(Phi.getType()))
      if (auto *AR = dyn_cast<SCEVAddRecExpr>(SE.getSCEV(&Phi));
          AR && AR->getLoop() == L && isa<SCEVConstant>(AR->getStepRecurrence(SE)))
        return true;
  return false;
}

/// The latches of \p F's loops that the copy rolls: loops of a trip count
/// known only at run time that an unroll pragma asks to unroll, or that
/// count by a constant step (and no `#pragma unroll 1` keeps whole).
SmallVector<Instruction *, 4> loopsToRoll(Function &F, FunctionAnalysisManager &FAM) {
  SmallVector<Instruction *, 4> Latches;
  auto &LI = FAM.getResult<LoopAnalysis>(F);
  if (LI.empty())
    return Latches;
  auto &SE = FAM.getResult<ScalarEvolutionAnalysis>(F);
  for (Loop *L : LI.getLoopsInPreorder()) {
    BasicBlock *Latch = L->getLoopLatch();
    MDNode *ID = L->getLoopID();
    if (!Latch || forbidsUnroll(ID) || SE.getSmallConstantTripCount(L))
      continue;
    if (asksToUnroll(ID) || countsByConstant(L, SE))
      Latches.push_back(Latch->getTerminator());
  }
  return Latches;
}

} // namespace

PreservedAnalyses kfuse::RolledLoopsPass::run(Module &M, ModuleAnalysisManager &AM) {
  auto &FAM = AM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager();
  ModuleRecords Recs = readModuleRecords(M);
  SmallVector<GlobalValue *, 4> Copies;
  for (Function *F : Recs.Kernels) {
    if (F->isDeclaration() || F->getCallingConv() != CallingConv::PTX_Kernel ||
        M.getFunction((F->getName() + RolledSuffix).str()))
      continue;
    SmallVector<Instruction *, 4> Latches = loopsToRoll(*F, FAM);
    if (Latches.empty())
      continue;
    ValueToValueMapTy VMap;
    Function *Copy = CloneFunction(F, VMap);
    Copy->setName(F->getName() + RolledSuffix);
    Copy->setLinkage(GlobalValue::InternalLinkage);
    // CloneFunction gave the copy's loops IDs of their own: set them on the
    // copy's latches.
    for (Instruction *T : Latches) {
      auto *CT = cast<Instruction>(VMap[T]);
      CT->setMetadata(LLVMContext::MD_loop,
                      rolledID(M.getContext(), T->getMetadata(LLVMContext::MD_loop)));
    }
    Copies.push_back(Copy);
  }
  if (Copies.empty())
    return PreservedAnalyses::all();
  // Nothing calls a copy: llvm.compiler.used keeps it to the device pass.
  appendToCompilerUsed(M, Copies);
  PreservedAnalyses PA;
  PA.preserveSet<AllAnalysesOn<Function>>();
  return PA;
}

DenseMap<Function *, Function *> kfuse::takeRolledCopies(Module &M) {
  DenseMap<Function *, Function *> Out;
  SmallPtrSet<Constant *, 4> Copies;
  SmallVector<Function *, 2> Orphans;
  for (Function &Copy : M) {
    StringRef Name = Copy.getName();
    if (!Name.consume_back(RolledSuffix))
      continue;
    if (Function *F = M.getFunction(Name); F && !F->isDeclaration())
      Out[F] = &Copy;
    else
      Orphans.push_back(&Copy);
    Copies.insert(&Copy);
  }
  if (!Copies.empty())
    removeFromUsedLists(M, [&](Constant *C) { return Copies.count(C) > 0; });
  for (Function *Copy : Orphans)
    Copy->eraseFromParent();
  return Out;
}
