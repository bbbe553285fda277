//===- CallEffects.h - what a call or inline asm does to memory -*- C++ -*-===//
//
// Decides, for the kernel analysis, whether a call, an intrinsic or an
// inline asm statement in a map kernel keeps the kernel analysable: pure
// arithmetic, a cache-hint load or store the analysis treats like a plain
// one, or something fusion cannot reason about (with the remark text).
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_PASS_LLVM_CALLEFFECTS_H
#define KFUSE_PASS_LLVM_CALLEFFECTS_H

#include "llvm/IR/IRBuilder.h"

#include <map>
#include <optional>
#include <string>

namespace llvm {
class CallBase;
class CallInst;
class Function;
class InlineAsm;
class Instruction;
class Type;
class Value;
} // namespace llvm

namespace kfuse {

/// A cache-hint load or store written as inline asm by the CUDA headers
/// (`__ldcs`, `__ldcg`, `__ldca`, `__ldlu`, `__ldcv`, `__stwt`, `__stcs`,
/// ...): exactly one `ld.global[.hint].<type> $0, [$1];` or
/// `st.global[.hint].<type> [$0], $1;` of one scalar whose PTX type is as
/// wide as its LLVM type.
struct AsmAccess {
  bool IsStore = false;
  unsigned PtrArg = 0;   ///< call operand holding the address
  unsigned ValueArg = 0; ///< call operand holding the stored value (stores)
};
std::optional<AsmAccess> asmAccess(const llvm::CallBase &CB);

/// A cache-hint load or store of a vector written as inline asm by the CUDA
/// headers (`__ldcs(const float4 *)`, `__stwt(float4 *, float4)`): exactly
/// one `ld.global[.hint].vN.<type> {$0, ...}, [$N];` returning a struct of N
/// scalars, or `st.global[.hint].vN.<type> [$0], {$1, ...};` taking them,
/// each scalar as wide as its PTX type. VectorHints.h splits it into N
/// scalar accesses (asmAccess) for the analysis.
struct VectorAccess {
  bool IsStore = false;
  unsigned Lanes = 0;
  llvm::Type *LaneTy = nullptr;
  std::string ScalarOpcode; ///< the opcode without `.vN`: `ld.global.cs.f32`
};
std::optional<VectorAccess> vectorAccess(const llvm::CallBase &CB);

/// A load, a store or a cache-hint asm access, seen the same way.
struct MemoryAccess {
  llvm::Value *Ptr = nullptr;
  llvm::Type *Ty = nullptr;        ///< loaded or stored type
  llvm::Value *Stored = nullptr;   ///< stores: the value
  bool IsStore = false;
  bool Volatile = false;
  bool Simple = true;              ///< not atomic (and not volatile)
};
std::optional<MemoryAccess> memoryAccessOf(llvm::Instruction &I);

/// The pointer operand of a load, store or cache-hint asm access; null for
/// any other instruction.
llvm::Value *accessPointer(llvm::Instruction &I);

/// What a call does, as far as fusion is concerned.
struct CallEffect {
  enum Kind { Pure, Access, Refused };
  Kind K = Pure;
  std::string Reason; ///< Refused: remark text
  std::string Stat;   ///< Refused: statistics key ("asm", "call", "barrier")
  unsigned Flops = 0; ///< floating-point operations per call
};

/// Classifies the calls of one kernel. Calls to functions defined in the
/// module are analysed through, each callee once: a callee may compute,
/// read constant globals and use memory of its own (its allocas and what its
/// pointer arguments reach, where every caller passes thread-private memory
/// there), nothing else.
class CallEffects {
public:
  CallEffect of(const llvm::CallBase &CB);

private:
  struct Summary {
    bool Valid = true;
    bool InProgress = false;
    std::string Reason, Stat;
    unsigned Flops = 0;
  };
  std::map<const llvm::Function *, Summary> Callees;

  CallEffect ofIntrinsic(const llvm::CallBase &CB, const llvm::Function &Callee);
  CallEffect ofDefined(const llvm::CallBase &CB, const llvm::Function &Callee);
  const Summary &summarize(const llvm::Function &G);
};

/// The asm text on one line, shortened for a remark.
std::string asmSnippet(const llvm::InlineAsm &IA);

/// A copy of the asm call \p CI, before it, in which every floating-point
/// `mul` without a rounding modifier rounds to nearest (`mul.rn`): the same
/// value, which ptxas cannot contract with a later add. Null when the text
/// has no such `mul`.
llvm::CallInst *roundedAsmCopy(llvm::CallInst &CI);

/// \p Mul's product rounded to nearest by an instruction ptxas never
/// contracts with an add (`mul.rn`: the NVVM intrinsics for float and
/// double, PTX asm for half and bfloat), inserted at \p B; null for other
/// types (vectors).
llvm::Value *roundedProduct(llvm::IRBuilder<> &B, llvm::BinaryOperator *Mul);

} // namespace kfuse

#endif
