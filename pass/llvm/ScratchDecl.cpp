//===- ScratchDecl.cpp - kfuse_scratch declarations in the host module ----===//
//
// The three shapes clang's codegen gives an annotated declaration (see
// ScratchDecl.h): a call of llvm.var.annotation on a local's alloca, a call
// of llvm.ptr.annotation around each address of a field that code loads
// through, an entry { global, string, file, line, args } of
// llvm.global.annotations. The string is "kfuse_scratch <name>".
//
//===----------------------------------------------------------------------===//
#include "ScratchDecl.h"

#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;

namespace kfuse {

static constexpr StringRef Mark = "kfuse_scratch";

/// The declaration an annotation's (string, file, line) operands describe.
static std::optional<ScratchDecl> decode(const Value *Str, const Value *File, const Value *Line) {
  StringRef S, F;
  if (!getConstantStringInfo(Str, S) || !S.starts_with(Mark))
    return std::nullopt;
  S = S.drop_front(Mark.size()).ltrim();
  ScratchDecl D;
  D.Name = S.empty() ? "?" : S.str();
  if (!getConstantStringInfo(File, F))
    F = "?";
  D.At = F.str();
  if (const auto *L = dyn_cast<ConstantInt>(Line))
    D.At += ":" + std::to_string(L->getZExtValue());
  return D;
}

ScratchDecls::ScratchDecls(const Module &M) {
  const GlobalVariable *GA = M.getGlobalVariable("llvm.global.annotations");
  const auto *Arr =
      GA && GA->hasInitializer() ? dyn_cast<ConstantArray>(GA->getInitializer()) : nullptr;
  if (!Arr)
    return;
  for (const Value *Op : Arr->operands()) {
    const auto *E = dyn_cast<ConstantStruct>(Op);
    if (!E || E->getNumOperands() < 4)
      continue;
    const auto *GV = dyn_cast<GlobalVariable>(E->getOperand(0)->stripPointerCasts());
    if (!GV)
      continue;
    if (auto D = decode(E->getOperand(1), E->getOperand(2), E->getOperand(3)))
      Globals.try_emplace(GV, *D);
  }
}

/// The declaration of the local \p Slot, if llvm.var.annotation marks it.
static std::optional<ScratchDecl> localDecl(const Value *Slot) {
  for (const User *U : Slot->users())
    if (const auto *II = dyn_cast<IntrinsicInst>(U);
        II && II->getIntrinsicID() == Intrinsic::var_annotation && II->getArgOperand(0) == Slot)
      if (auto D = decode(II->getArgOperand(1), II->getArgOperand(2), II->getArgOperand(3)))
        return D;
  return std::nullopt;
}

std::optional<ScratchDecl> ScratchDecls::of(const Value *Ptr, const Function &F) const {
  const auto *Ld = dyn_cast<LoadInst>(Ptr);
  if (!Ld || !Ld->isSimple() || !Ld->getType()->isPointerTy()) {
    // The value a declared local was assigned, its load forwarded away.
    for (const Instruction &I : instructions(F))
      if (const auto *II = dyn_cast<IntrinsicInst>(&I);
          II && II->getIntrinsicID() == Intrinsic::var_annotation)
        for (const User *U : II->getArgOperand(0)->users())
          if (const auto *SI = dyn_cast<StoreInst>(U);
              SI && SI->getValueOperand() == Ptr && SI->getPointerOperand() == II->getArgOperand(0))
            return localDecl(SI->getPointerOperand());
    return std::nullopt;
  }
  const Value *Addr = Ld->getPointerOperand();
  // A field: the load's address is the annotation's result.
  if (const auto *II = dyn_cast<IntrinsicInst>(Addr->stripPointerCasts());
      II && II->getIntrinsicID() == Intrinsic::ptr_annotation)
    return decode(II->getArgOperand(1), II->getArgOperand(2), II->getArgOperand(3));
  // A local or a global: the load reads the whole variable.
  const Value *Base = Addr->stripPointerCasts();
  if (const auto *GV = dyn_cast<GlobalValue>(Base)) {
    auto It = Globals.find(GV);
    if (It != Globals.end())
      return It->second;
    return std::nullopt;
  }
  if (isa<AllocaInst>(Base))
    return localDecl(Base);
  return std::nullopt;
}

} // namespace kfuse
