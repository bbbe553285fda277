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
// llvm.arithmetic.fence, which keeps LLVM from contracting across it.
// ptxas is another matter: the fence reaches it as a comment, and in the
// kernel alone it may inline the helper (clang's PTX does not mark it
// .noinline) and contract the multiply on one side with the add on the
// other, or not; GPU runs 25 and 28 saw both, in one program. No copy can
// promise the bits of that choice, so a twin in which a product crosses a
// former call into an addition or subtraction is not used
// (productAddedAcrossFence) and the kernel stays unfused. Otherwise nothing
// changes a value: without fast-math flags the optimiser only rewrites
// floating-point code into code that computes the same bits.
//
//===----------------------------------------------------------------------===//
#include "HelperInline.h"
#include "KernelAnalysis.h"

#include "llvm/ADT/SmallPtrSet.h"
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
          fenceUse(U);
      if (isFloatingValueType(CB->getType()) && !CB->use_empty())
        fenceValue(*CB, CB->getNextNode());
      InlineFunctionInfo IFI;
      if (!InlineFunction(*CB, IFI).isSuccess()) {
        Twin->eraseFromParent();
        return nullptr;
      }
    }
  }
  // A value stored on one side of a former call and loaded on the other.
  fenceFloatLoads(*Twin);
  return Twin;
}

void kfuse::fenceUse(Use &U) {
  auto *User = cast<Instruction>(U.getUser());
  Instruction *At = User;
  if (auto *Phi = dyn_cast<PHINode>(User))
    At = Phi->getIncomingBlock(U)->getTerminator();
  IRBuilder<> B(At);
  U.set(B.CreateArithmeticFence(U.get(), U->getType()));
}

void kfuse::fenceValue(Instruction &V, Instruction *InsertBefore) {
  IRBuilder<> B(InsertBefore);
  auto *Fence = cast<CallInst>(B.CreateArithmeticFence(UndefValue::get(V.getType()), V.getType()));
  V.replaceAllUsesWith(Fence);
  Fence->setArgOperand(0, &V);
}

void kfuse::fenceFloatLoads(Function &Twin) {
  SmallVector<LoadInst *, 16> Loads;
  for (Instruction &I : instructions(Twin))
    if (auto *L = dyn_cast<LoadInst>(&I); L && isFloatingValueType(L->getType()))
      Loads.push_back(L);
  for (LoadInst *L : Loads)
    fenceValue(*L, L->getNextNode());
}

/// \p V without the fences and negations around it.
static const Value *throughFences(const Value *V) {
  for (;;) {
    if (const auto *II = dyn_cast<IntrinsicInst>(V); II && II->getIntrinsicID() == Intrinsic::arithmetic_fence)
      V = II->getArgOperand(0);
    else if (const auto *N = dyn_cast<UnaryOperator>(V); N && N->getOpcode() == Instruction::FNeg)
      V = N->getOperand(0);
    else
      return V;
  }
}

const Instruction *kfuse::productAddedAcrossFence(const Function &Twin) {
  for (const Instruction &I : instructions(Twin)) {
    const auto *Fence = dyn_cast<IntrinsicInst>(&I);
    if (!Fence || Fence->getIntrinsicID() != Intrinsic::arithmetic_fence)
      continue;
    const auto *Mul = dyn_cast<BinaryOperator>(throughFences(Fence->getArgOperand(0)));
    if (!Mul || Mul->getOpcode() != Instruction::FMul)
      continue;
    // Where the crossing product goes: through negations, fences, phis and
    // selects, to an addition or a subtraction.
    SmallVector<const Value *, 8> Work{Fence};
    SmallPtrSet<const Value *, 16> Seen{Fence};
    while (!Work.empty()) {
      const Value *V = Work.pop_back_val();
      for (const User *U : V->users()) {
        const auto *UI = dyn_cast<Instruction>(U);
        if (!UI || !Seen.insert(UI).second)
          continue;
        if (UI->getOpcode() == Instruction::FAdd || UI->getOpcode() == Instruction::FSub)
          return UI;
        const auto *II = dyn_cast<IntrinsicInst>(UI);
        if ((II && II->getIntrinsicID() == Intrinsic::arithmetic_fence) ||
            UI->getOpcode() == Instruction::FNeg || isa<PHINode>(UI) || isa<SelectInst>(UI))
          Work.push_back(UI);
      }
    }
  }
  return nullptr;
}

/// The memcpy, memmove and memset calls of \p F of a constant length that
/// touch memory based on one of its parameters.
static SmallVector<MemIntrinsic *, 4> paramCopies(const Function &F) {
  SmallVector<MemIntrinsic *, 4> Found;
  auto FromParam = [&](const Value *P) {
    const auto *A = dyn_cast<Argument>(getUnderlyingObject(P, 0));
    return A && A->getParent() == &F;
  };
  for (const Instruction &I : instructions(F))
    if (const auto *MI = dyn_cast<MemIntrinsic>(&I)) {
      const auto *MT = dyn_cast<MemTransferInst>(MI);
      if (isa<ConstantInt>(MI->getLength()) &&
          (FromParam(MI->getDest()) || (MT && FromParam(MT->getSource()))))
        Found.push_back(const_cast<MemIntrinsic *>(MI));
    }
  return Found;
}

bool kfuse::copiesParamMemory(const Function &F) { return !paramCopies(F).empty(); }

static constexpr unsigned MaxFields = 64, MaxCopyBytes = 256;

/// How \p Ptr's bytes [0, Size) divide into the fields of the struct it
/// points into, as (offset, type) from Ptr: found through the GEPs that
/// formed it (`&p[i]`, `&p[i].v`); empty when they do not tile the range
/// exactly.
static SmallVector<std::pair<uint64_t, Type *>, 16> fieldsAt(Value *Ptr, uint64_t Size,
                                                            const DataLayout &DL) {
  SmallVector<std::pair<uint64_t, Type *>, 16> Fields;
  uint64_t Off = 0;
  for (unsigned Depth = 0; Depth < 8; ++Depth) {
    auto *GEP = dyn_cast<GEPOperator>(Ptr);
    if (!GEP)
      return {};
    APInt C(DL.getIndexTypeSizeInBits(GEP->getType()), 0);
    if (GEP->accumulateConstantOffset(DL, C)) {
      if (C.isNegative())
        return {};
      Off += C.getZExtValue();
      Ptr = GEP->getPointerOperand();
      continue;
    }
    // `&p[i]` into an array of structs: Ptr is at byte Off of an element.
    Type *T = GEP->getSourceElementType();
    if (GEP->getNumIndices() != 1 || !T->isAggregateType())
      return {};
    SmallVector<std::pair<uint64_t, Type *>, 16> All;
    if (!fieldsOf(T, 0, DL, All, MaxFields))
      return {};
    uint64_t At = Off;
    for (auto [O, FT] : All) {
      uint64_t FS = DL.getTypeStoreSize(FT);
      if (O + FS <= Off || O >= Off + Size)
        continue;
      if (O != At || O + FS > Off + Size)
        return {}; // padding, or a field cut by the range
      Fields.push_back({O - Off, FT});
      At += FS;
    }
    if (At != Off + Size)
      return {};
    return Fields;
  }
  return {};
}

bool kfuse::expandParamCopies(Function &Twin) {
  const DataLayout &DL = Twin.getDataLayout();
  bool Changed = false;
  for (MemIntrinsic *MI : paramCopies(Twin)) {
    uint64_t Size = cast<ConstantInt>(MI->getLength())->getZExtValue();
    auto *MT = dyn_cast<MemTransferInst>(MI);
    auto *MS = dyn_cast<MemSetInst>(MI);
    if (MI->isVolatile() || Size == 0 || Size > MaxCopyBytes || (!MT && !MS) ||
        (MS && !isa<ConstantInt>(MS->getValue())))
      continue;
    // The fields' own types where the source's or the destination's struct
    // says them (so a float field copied is a float, as the kernel that
    // reads it loads it), else words.
    SmallVector<std::pair<uint64_t, Type *>, 16> Fields;
    if (MT)
      Fields = fieldsAt(MT->getSource(), Size, DL);
    if (Fields.empty())
      Fields = fieldsAt(MI->getDest(), Size, DL);
    if (Fields.empty()) {
      uint64_t Align = MI->getDestAlign().valueOrOne().value();
      if (MT)
        Align = std::min<uint64_t>(Align, MT->getSourceAlign().valueOrOne().value());
      uint64_t Word = 8;
      while (Word > 1 && (Size % Word || Align < Word))
        Word /= 2;
      if (Size / Word > MaxFields)
        continue;
      for (uint64_t O = 0; O < Size; O += Word)
        Fields.push_back({O, IntegerType::get(Twin.getContext(), unsigned(8 * Word))});
    }
    if (MS && llvm::any_of(Fields, [](const std::pair<uint64_t, Type *> &X) {
          return !X.second->isIntegerTy() && !X.second->isFloatingPointTy();
        }))
      continue;
    IRBuilder<> B(MI);
    auto At = [&](Value *P, uint64_t O) {
      return O ? B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), P, O) : P;
    };
    // A memmove may overlap: every load before any store.
    SmallVector<Value *, 16> Values;
    for (auto [O, T] : Fields) {
      if (MT) {
        Values.push_back(B.CreateAlignedLoad(
            T, At(MT->getSource(), O), commonAlignment(MT->getSourceAlign().valueOrOne(), O)));
        continue;
      }
      uint64_t Bytes = DL.getTypeStoreSize(T);
      APInt Splat = APInt::getSplat(unsigned(8 * Bytes),
                                    cast<ConstantInt>(MS->getValue())->getValue().trunc(8));
      Constant *V = ConstantInt::get(Twin.getContext(), Splat);
      Values.push_back(T->isIntegerTy() ? V : ConstantExpr::getBitCast(V, T));
    }
    for (size_t K = 0; K < Fields.size(); ++K)
      B.CreateAlignedStore(Values[K], At(MI->getDest(), Fields[K].first),
                           commonAlignment(MI->getDestAlign().valueOrOne(), Fields[K].first));
    MI->eraseFromParent();
    Changed = true;
  }
  return Changed;
}

Function *kfuse::copiedTwin(Function &F) {
  ValueToValueMapTy VMap;
  Function *Twin = CloneFunction(&F, VMap);
  Twin->setName(F.getName() + ".kfuse.copied");
  Twin->setLinkage(GlobalValue::InternalLinkage);
  return Twin;
}
