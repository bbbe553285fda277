//===- VectorHints.cpp - vector cache-hint asm seen as scalars ------------===//
//
// A split access, for `__ldcs(const float4 *p)`:
//
//   %v = call { float, float, float, float }
//            asm "ld.global.cs.v4.f32 {$0,$1,$2,$3}, [$4];", "=f,=f,=f,=f,l"(ptr %p)
//
// becomes
//
//   %l0 = call float asm "ld.global.cs.f32 $0, [$1];", "=f,l"(ptr %p), !kfuse.lane !{!G, i32 0}
//   %p1 = getelementptr inbounds i8, ptr %p, i64 4
//   %l1 = call float asm "ld.global.cs.f32 $0, [$1];", "=f,l"(ptr %p1), !kfuse.lane !{!G, i32 1}
//   ...
//   %v' = insertvalue ... %l0, %l1, %l2, %l3        (takes %v's uses)
//
// with !G = distinct !{!"<vector asm>", !"<constraints>", i1 <sideeffect>,
// i32 <lanes>}, from which joinLanes() rebuilds the vector access. Stores
// alike, `st.global.wt.f32 [$0], $1;` per lane, with the vector's clobbers.
//
//===----------------------------------------------------------------------===//
#include "VectorHints.h"
#include "CallEffects.h"

#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/Local.h"

using namespace llvm;
using namespace kfuse;

static const char *const LaneKind = "kfuse.lane";

/// The constraints of one lane of a vector access of \p Lanes lanes with
/// constraints \p Vector: one output (a load) or one value (a store), the
/// pointer, the clobbers. Empty when \p Vector is not of that form.
static std::string laneConstraints(StringRef Vector, unsigned Lanes, bool IsStore) {
  SmallVector<StringRef, 12> Parts;
  Vector.split(Parts, ',');
  if (Parts.size() < Lanes + 1)
    return "";
  std::string R;
  for (unsigned K = 0; K <= Lanes; ++K) {
    bool Output = Parts[K].starts_with("="), Clobber = Parts[K].starts_with("~");
    if (Clobber || Output != (!IsStore && K < Lanes))
      return "";
  }
  R = IsStore ? (Parts[0] + "," + Parts[1]).str() : (Parts[0] + "," + Parts[Lanes]).str();
  for (unsigned K = Lanes + 1; K < Parts.size(); ++K) {
    if (!Parts[K].starts_with("~"))
      return "";
    R += "," + Parts[K].str();
  }
  return R;
}

bool VectorHintSplitter::split(Function &F) {
  SmallVector<CallInst *, 8> Work;
  for (Instruction &I : instructions(F))
    if (auto *CI = dyn_cast<CallInst>(&I); CI && vectorAccess(*CI))
      Work.push_back(CI);
  LLVMContext &C = F.getContext();
  const DataLayout &DL = F.getDataLayout();
  bool Changed = false;
  for (CallInst *CI : Work) {
    VectorAccess V = *vectorAccess(*CI);
    auto *IA = cast<InlineAsm>(CI->getCalledOperand());
    std::string Cons = laneConstraints(IA->getConstraintString(), V.Lanes, V.IsStore);
    if (Cons.empty())
      continue;
    IRBuilder<> B(CI);
    MDNode *Group = MDNode::getDistinct(
        C, {MDString::get(C, IA->getAsmString()), MDString::get(C, IA->getConstraintString()),
            ConstantAsMetadata::get(B.getInt1(IA->hasSideEffects())),
            ConstantAsMetadata::get(B.getInt32(V.Lanes))});
    Type *PtrTy = CI->getArgOperand(0)->getType();
    FunctionType *FTy = V.IsStore
                            ? FunctionType::get(B.getVoidTy(), {PtrTy, V.LaneTy}, false)
                            : FunctionType::get(V.LaneTy, {PtrTy}, false);
    InlineAsm *Lane = InlineAsm::get(FTy, V.ScalarOpcode + (V.IsStore ? " [$0], $1;" : " $0, [$1];"),
                                     Cons, IA->hasSideEffects(), IA->isAlignStack(),
                                     IA->getDialect());
    uint64_t Bytes = DL.getTypeStoreSize(V.LaneTy).getFixedValue();
    Split S{CI, {}};
    Value *Agg = V.IsStore ? nullptr : PoisonValue::get(CI->getType());
    for (unsigned K = 0; K < V.Lanes; ++K) {
      Value *P = CI->getArgOperand(0);
      if (K) {
        P = B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), P, K * Bytes, "kfuse.lane.ptr");
        if (auto *I = dyn_cast<Instruction>(P))
          S.Added.push_back(I);
      }
      SmallVector<Value *, 2> Args{P};
      if (V.IsStore)
        Args.push_back(CI->getArgOperand(1 + K));
      CallInst *L = B.CreateCall(FTy, Lane, Args);
      L->setAttributes(AttributeList().addFnAttributes(
          C, AttrBuilder(C, CI->getAttributes().getFnAttrs())));
      L->setTailCallKind(CI->getTailCallKind());
      L->setDebugLoc(CI->getDebugLoc());
      if (MDNode *Src = CI->getMetadata("srcloc"))
        L->setMetadata("srcloc", Src);
      if (isa<FPMathOperator>(L) && isa<FPMathOperator>(CI))
        L->setFastMathFlags(CI->getFastMathFlags());
      L->setMetadata(LaneKind, MDNode::get(C, {Group, ConstantAsMetadata::get(B.getInt32(K))}));
      S.Added.push_back(L);
      if (!V.IsStore) {
        Agg = B.CreateInsertValue(Agg, L, K);
        S.Added.push_back(cast<Instruction>(Agg));
      }
    }
    if (!V.IsStore)
      CI->replaceAllUsesWith(Agg);
    CI->removeFromParent();
    Splits.push_back(std::move(S));
    Changed = true;
  }
  return Changed;
}

void VectorHintSplitter::restore() {
  for (Split &S : Splits) {
    S.Original->insertBefore(S.Added.front()->getIterator());
    if (!S.Original->getType()->isVoidTy())
      S.Added.back()->replaceAllUsesWith(S.Original);
    for (Instruction *I : reverse(S.Added))
      I->eraseFromParent();
  }
  Splits.clear();
}

namespace {
/// A lane's group and index, from its !kfuse.lane.
struct LaneTag {
  MDNode *Group = nullptr;
  unsigned Index = 0;
};
} // namespace

static LaneTag laneTag(const Instruction &I) {
  LaneTag T;
  if (MDNode *MD = I.getMetadata(LaneKind)) {
    T.Group = cast<MDNode>(MD->getOperand(0));
    T.Index = mdconst::extract<ConstantInt>(MD->getOperand(1))->getZExtValue();
  }
  return T;
}

unsigned kfuse::joinLanes(Function &F) {
  LLVMContext &C = F.getContext();
  const DataLayout &DL = F.getDataLayout();
  unsigned Joined = 0;
  for (BasicBlock &BB : F) {
    for (auto It = BB.begin(); It != BB.end();) {
      auto *First = dyn_cast<CallInst>(&*It++);
      LaneTag T0 = First ? laneTag(*First) : LaneTag();
      if (!T0.Group || T0.Index != 0)
        continue;
      auto Str = [&](unsigned N) { return cast<MDString>(T0.Group->getOperand(N))->getString(); };
      bool Side = mdconst::extract<ConstantInt>(T0.Group->getOperand(2))->isOne();
      unsigned N = mdconst::extract<ConstantInt>(T0.Group->getOperand(3))->getZExtValue();
      bool IsStore = First->getType()->isVoidTy();
      // The lanes, in order, with nothing between them that the join would
      // move an access across.
      SmallVector<CallInst *, 4> Lanes{First};
      bool Ok = true;
      for (Instruction *I = First->getNextNode(); I && Ok && Lanes.size() < N; I = I->getNextNode()) {
        auto *CI = dyn_cast<CallInst>(I);
        LaneTag T = CI ? laneTag(*CI) : LaneTag();
        if (T.Group != T0.Group) {
          Ok = IsStore ? !I->mayReadOrWriteMemory() : !I->mayWriteToMemory();
        } else if ((Ok = T.Index == Lanes.size())) {
          Lanes.push_back(CI);
        }
      }
      if (!Ok || Lanes.size() != N)
        continue;
      Value *Base = First->getArgOperand(0);
      Type *LaneTy = IsStore ? First->getArgOperand(1)->getType() : First->getType();
      int64_t Bytes = DL.getTypeStoreSize(LaneTy).getFixedValue();
      unsigned Width = DL.getIndexTypeSizeInBits(Base->getType());
      APInt BaseOff(Width, 0);
      const Value *Root = Base->stripAndAccumulateConstantOffsets(DL, BaseOff, true);
      for (unsigned K = 1; K < N && Ok; ++K) {
        APInt Off(Width, 0);
        Ok = Lanes[K]->getArgOperand(0)->stripAndAccumulateConstantOffsets(DL, Off, true) == Root &&
             (Off - BaseOff).getSExtValue() == (int64_t)K * Bytes;
      }
      if (!Ok)
        continue;
      SmallVector<Type *, 4> Elems(N, LaneTy);
      SmallVector<Type *, 5> Params{Base->getType()};
      SmallVector<Value *, 5> Args{Base};
      if (IsStore)
        for (CallInst *L : Lanes) {
          Params.push_back(LaneTy);
          Args.push_back(L->getArgOperand(1));
        }
      FunctionType *FTy = FunctionType::get(
          IsStore ? Type::getVoidTy(C) : StructType::get(C, Elems), Params, false);
      auto *IA = InlineAsm::get(FTy, Str(0), Str(1), Side);
      // A load where the first lane was, a store where the last lane was:
      // every operand is available there.
      IRBuilder<> B(IsStore ? Lanes.back() : First);
      CallInst *J = B.CreateCall(FTy, IA, Args);
      J->setAttributes(First->getAttributes());
      J->setTailCallKind(First->getTailCallKind());
      J->setDebugLoc(First->getDebugLoc());
      if (MDNode *Src = First->getMetadata("srcloc"))
        J->setMetadata("srcloc", Src);
      if (isa<FPMathOperator>(J) && isa<FPMathOperator>(First))
        J->setFastMathFlags(First->getFastMathFlags());
      Instruction *Last = J;
      if (!IsStore)
        for (unsigned K = 0; K < N; ++K) {
          auto *E = cast<Instruction>(B.CreateExtractValue(J, K));
          Lanes[K]->replaceAllUsesWith(E);
          Last = E;
        }
      It = std::next(Last->getIterator());
      SmallVector<Value *, 4> Ptrs;
      for (CallInst *L : reverse(Lanes)) {
        if (L != First)
          Ptrs.push_back(L->getArgOperand(0));
        if (It != BB.end() && &*It == L)
          ++It;
        L->eraseFromParent();
      }
      for (Value *P : Ptrs)
        if (auto *I = dyn_cast<Instruction>(P); I && isInstructionTriviallyDead(I)) {
          if (It != BB.end() && &*It == I)
            ++It;
          I->eraseFromParent();
        }
      ++Joined;
    }
  }
  for (Instruction &I : instructions(F))
    I.setMetadata(LaneKind, nullptr);
  return Joined;
}
