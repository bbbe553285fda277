//===- HelperInline.cpp - a kernel's pointer-taking helpers, inlined ------===//
//
// The kernel analysis reads accesses through a pointer parameter only in the
// kernel's own body: a call that passes such a pointer to a function the
// compiler kept out of line hides them. Such a kernel gets a twin, a private
// copy with those calls inlined, which the analysis reads and the fused
// kernel clones; the kernel, launched alone or where its group falls back,
// keeps its call.
//
// Both must compute the same bits. Inlining copies the helper's
// instructions unchanged; what it adds are data paths between the kernel's
// arithmetic and the helper's that a call kept apart: an argument, the
// result, and a value stored on one side and loaded on the other, which
// forwarding may now bypass memory for. On such a path the backend could
// contract a multiply and an add into one FMA, which rounds once instead of
// twice. So every floating-point argument and result of an inlined call,
// and every floating-point load of the twin, goes through
// llvm.arithmetic.fence, which keeps LLVM from contracting across it; and
// since the fence reaches ptxas only as a comment, once the twin is
// simplified each fenced product is recomputed by `mul.rn`, which ptxas
// never contracts (roundFencedProducts), as values crossing a kernel
// boundary are in a fused kernel (FusedKernel.cpp, guardValue). Nothing
// else changes a value: without fast-math flags the optimiser only
// rewrites floating-point code into code that computes the same bits.
//
//===----------------------------------------------------------------------===//
#include "HelperInline.h"
#include "CallEffects.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

using namespace llvm;
using namespace kfuse;

static constexpr unsigned MaxDepth = 8;

static bool isFloatingValueType(Type *T) { return T->isFPOrFPVectorTy(); }

/// The calls of \p F that pass a pointer based on one of \p F's parameters
/// to a function defined in the module.
static SmallVector<CallBase *, 4> pointerHelperCalls(const Function &F) {
  SmallVector<CallBase *, 4> Calls;
  for (const Instruction &I : instructions(F)) {
    const auto *CB = dyn_cast<CallBase>(&I);
    const Function *Callee = CB ? CB->getCalledFunction() : nullptr;
    if (!Callee || Callee->isDeclaration() || Callee->isIntrinsic())
      continue;
    for (const Use &U : CB->args()) {
      if (!U->getType()->isPointerTy())
        continue;
      const auto *A = dyn_cast<Argument>(getUnderlyingObject(U, 0));
      if (A && A->getParent() == &F) {
        Calls.push_back(const_cast<CallBase *>(CB));
        break;
      }
    }
  }
  return Calls;
}

bool kfuse::callsPointerHelper(const Function &F) { return !pointerHelperCalls(F).empty(); }

/// Makes operand \p U of \p CB a fence of its value.
static void fenceOperand(CallBase &CB, Use &U) {
  IRBuilder<> B(&CB);
  U.set(B.CreateArithmeticFence(U.get(), U->getType()));
}

Function *kfuse::inlinedTwin(Function &F) {
  if (!callsPointerHelper(F))
    return nullptr;
  ValueToValueMapTy VMap;
  Function *Twin = CloneFunction(&F, VMap);
  Twin->setName(F.getName() + ".kfuse.inlined");
  Twin->setLinkage(GlobalValue::InternalLinkage);
  for (unsigned Depth = 0;; ++Depth) {
    SmallVector<CallBase *, 4> Calls = pointerHelperCalls(*Twin);
    if (Calls.empty())
      break;
    if (Depth == MaxDepth) {
      Twin->eraseFromParent();
      return nullptr;
    }
    for (CallBase *CB : Calls) {
      // An aggregate may hold floating-point fields, which would need a
      // fence each; an invoke has no single next instruction.
      bool Refused = isa<InvokeInst>(CB) || CB->getType()->isAggregateType();
      for (Use &U : CB->args())
        Refused |= U->getType()->isAggregateType() || CB->isByValArgument(U.getOperandNo());
      if (Refused) {
        Twin->eraseFromParent();
        return nullptr;
      }
      for (Use &U : CB->args())
        if (isFloatingValueType(U->getType()))
          fenceOperand(*CB, U);
      if (isFloatingValueType(CB->getType()) && !CB->use_empty()) {
        IRBuilder<> B(CB->getNextNode());
        Value *Fenced = B.CreateArithmeticFence(UndefValue::get(CB->getType()), CB->getType());
        CB->replaceAllUsesWith(Fenced);
        cast<CallInst>(Fenced)->setArgOperand(0, CB);
      }
      InlineFunctionInfo IFI;
      if (!InlineFunction(*CB, IFI).isSuccess()) {
        Twin->eraseFromParent();
        return nullptr;
      }
    }
  }
  // A value stored on one side of a former call and loaded on the other.
  SmallVector<LoadInst *, 16> Loads;
  for (Instruction &I : instructions(*Twin))
    if (auto *L = dyn_cast<LoadInst>(&I); L && isFloatingValueType(L->getType()))
      Loads.push_back(L);
  for (LoadInst *L : Loads) {
    IRBuilder<> B(L->getNextNode());
    auto *Fence = cast<CallInst>(B.CreateArithmeticFence(UndefValue::get(L->getType()), L->getType()));
    L->replaceAllUsesWith(Fence);
    Fence->setArgOperand(0, L);
  }
  return Twin;
}

unsigned kfuse::roundFencedProducts(Function &Twin) {
  SmallVector<IntrinsicInst *, 16> Fences;
  for (Instruction &I : instructions(Twin))
    if (auto *II = dyn_cast<IntrinsicInst>(&I); II && II->getIntrinsicID() == Intrinsic::arithmetic_fence)
      Fences.push_back(II);
  unsigned Rounded = 0;
  for (IntrinsicInst *Fence : Fences) {
    Value *V = Fence->getArgOperand(0);
    auto *Neg = dyn_cast<UnaryOperator>(V);
    if (Neg && Neg->getOpcode() != Instruction::FNeg)
      Neg = nullptr;
    auto *Mul = dyn_cast<BinaryOperator>(Neg ? Neg->getOperand(0) : V);
    if (!Mul || Mul->getOpcode() != Instruction::FMul)
      continue;
    IRBuilder<> B(Fence);
    Value *Exact = roundedProduct(B, Mul);
    if (!Exact) {
      Mul->setHasAllowContract(false); // vectors: at least keep LLVM from contracting
      continue;
    }
    Fence->setArgOperand(0, Neg ? B.CreateFNeg(Exact) : Exact);
    ++Rounded;
  }
  return Rounded;
}
