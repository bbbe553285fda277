//===- FieldParams.cpp - buffers addressed by fields of by-value structs --===//
//
// See FieldParams.h. The copy's loads of the fields are replaced by its new
// parameters and nothing else changes, so the analysis reads the kernel's
// own code, and the fused kernel runs it, with the buffers as pointer
// parameters; the struct stays a parameter for its other fields.
//
//===----------------------------------------------------------------------===//
#include "FieldParams.h"
#include "KernelAnalysis.h"

#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

#include <map>

using namespace llvm;
using namespace kfuse;

/// The string attribute that marks a field copy's added parameters:
/// "<param>.<byte>".
static constexpr const char *FieldParamKind = "kfuse-field";

std::optional<FieldParam> kfuse::fieldParamOf(const Function &F, unsigned ArgNo) {
  Attribute A = F.getAttributes().getParamAttr(ArgNo, FieldParamKind);
  FieldParam Fi;
  auto [Struct, Offset] = A.isStringAttribute() ? A.getValueAsString().split('.')
                                                : std::pair<StringRef, StringRef>();
  if (Struct.empty() || Struct.getAsInteger(10, Fi.Struct) || Offset.getAsInteger(10, Fi.Offset))
    return std::nullopt;
  return Fi;
}

/// The by-value parameter and byte a simple pointer load \p LI reads, if any.
static std::optional<FieldParam> fieldOf(const LoadInst &LI) {
  if (!LI.isSimple() || !LI.getType()->isPointerTy())
    return std::nullopt;
  const DataLayout &DL = LI.getDataLayout();
  APInt Off(DL.getIndexTypeSizeInBits(LI.getPointerOperandType()), 0);
  const auto *A = dyn_cast<Argument>(
      LI.getPointerOperand()->stripAndAccumulateConstantOffsets(DL, Off, true));
  if (!A || !A->hasByValAttr() || Off.isNegative() ||
      Off.getZExtValue() + DL.getTypeStoreSize(LI.getType()) >
          DL.getTypeAllocSize(A->getParamByValType()))
    return std::nullopt;
  return FieldParam{A->getArgNo(), uint32_t(Off.getZExtValue())};
}

Function *kfuse::fieldTwin(Function &F, SmallVectorImpl<FieldParam> &Fields) {
  // The fields each pointer load reads, in (parameter, byte) order, each
  // with its pointer type: one walk over the kernel, the by-value
  // parameters it only reads.
  SmallVector<bool, 8> ReadOnly;
  for (Argument &A : F.args())
    ReadOnly.push_back(A.hasByValAttr() && readOnlyByVal(A));
  std::map<std::pair<unsigned, uint32_t>, Type *> Found;
  for (BasicBlock &BB : F)
    for (Instruction &I : BB)
      if (auto *LI = dyn_cast<LoadInst>(&I))
        if (auto Fi = fieldOf(*LI); Fi && ReadOnly[Fi->Struct])
          Found.try_emplace({Fi->Struct, Fi->Offset}, LI->getType());
  if (Found.empty() || Found.size() > MaxFieldParams)
    return nullptr;
  SmallVector<Type *, 16> Params(F.getFunctionType()->params());
  Fields.clear();
  for (auto &[Key, Ty] : Found) {
    Fields.push_back({Key.first, Key.second});
    Params.push_back(Ty);
  }
  Function *Twin = Function::Create(FunctionType::get(F.getReturnType(), Params, false),
                                    GlobalValue::InternalLinkage, F.getName() + ".kfuse.fields",
                                    F.getParent());
  ValueToValueMapTy VMap;
  for (Argument &A : F.args()) {
    VMap[&A] = Twin->getArg(A.getArgNo());
    Twin->getArg(A.getArgNo())->setName(A.getName());
  }
  SmallVector<ReturnInst *, 4> Returns;
  CloneFunctionInto(Twin, &F, VMap, CloneFunctionChangeType::LocalChangesOnly, Returns);
  Twin->setLinkage(GlobalValue::InternalLinkage);
  Twin->setCallingConv(F.getCallingConv());
  // Marked for remarks (paramText reads the mark back; clang discards
  // value names).
  unsigned N = F.arg_size();
  for (auto [I, Fi] : enumerate(Fields))
    Twin->addParamAttr(N + I, Attribute::get(F.getContext(), FieldParamKind,
                                             std::to_string(Fi.Struct) + "." +
                                                 std::to_string(Fi.Offset)));
  SmallVector<LoadInst *, 16> Loads;
  for (BasicBlock &BB : *Twin)
    for (Instruction &I : BB)
      if (auto *LI = dyn_cast<LoadInst>(&I))
        if (auto Fi = fieldOf(*LI))
          if (auto It = llvm::find(Fields, *Fi); It != Fields.end() &&
                                                 LI->getType() == Params[N + (It - Fields.begin())])
            Loads.push_back(LI);
  for (LoadInst *LI : Loads) {
    auto It = llvm::find(Fields, *fieldOf(*LI));
    LI->replaceAllUsesWith(Twin->getArg(N + unsigned(It - Fields.begin())));
    LI->eraseFromParent();
  }
  return Twin;
}
