//===- HelperInline.h - a kernel's pointer-taking helpers, inlined -*- C++ -*-===//
//
// A kfuse_map kernel that hands one of its pointer parameters to a device
// function the compiler did not inline (a `__noinline__` helper, a large
// one) is analysed and fused through a private copy in which those calls
// are inlined (HelperInline.cpp); the kernel itself is left as written.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_PASS_LLVM_HELPERINLINE_H
#define KFUSE_PASS_LLVM_HELPERINLINE_H

namespace llvm {
class Function;
class Instruction;
class Use;
} // namespace llvm

namespace kfuse {

/// Whether \p F calls a function defined in its module (not an intrinsic)
/// with a pointer based on one of \p F's parameters.
bool callsPointerHelper(const llvm::Function &F);

/// A private copy of \p F, named "<F>.kfuse.inlined", in which every call
/// callsPointerHelper() looks for is inlined, helpers of helpers included
/// (at most 8 levels). Every floating-point value that crosses such a call
/// goes through llvm.arithmetic.fence: the arguments, the result and every
/// floating-point load, so LLVM forms no FMA across what was a call
/// boundary (ptxas may: see productAddedAcrossFence). Returns nullptr (and
/// creates nothing) when a call cannot be inlined or the helpers nest
/// deeper. The caller erases the copy when done with it.
llvm::Function *inlinedTwin(llvm::Function &F);

/// Makes use \p U of a floating-point value a use of
/// llvm.arithmetic.fence(value), the fence just before its user (for a phi,
/// at the end of the incoming block).
void fenceUse(llvm::Use &U);

/// Makes every use of \p V a use of llvm.arithmetic.fence(V), the fence
/// inserted before \p InsertBefore.
void fenceValue(llvm::Instruction &V, llvm::Instruction *InsertBefore);

/// Fences every floating-point load of \p Twin (fenceValue): once a store
/// is forwarded to it, the stored value reaches the load's users through a
/// fence, so LLVM contracts no product that crossed memory into an add.
void fenceFloatLoads(llvm::Function &Twin);

/// After \p Twin has been simplified (a store on one side of a former call,
/// or in one trip of an unrolled loop, forwarded to a load on the other): an
/// addition or subtraction that takes a product computed on the other side
/// of such a boundary (a fenced product, through negations, fences, phis and
/// selects), or null. In the kernel alone ptxas may inline the helper or
/// unroll the loop and contract the two into one FMA, or not; a copy whose
/// bits depend on that choice must not be fused.
const llvm::Instruction *productAddedAcrossFence(const llvm::Function &Twin);

/// Whether \p F copies or sets memory of one of its pointer parameters with
/// llvm.memcpy, llvm.memmove or llvm.memset of a constant length (a struct
/// copied whole: `Particle a = p[i]; ... q[i] = a;`, clang's memmove of the
/// fields the code leaves unchanged).
bool copiesParamMemory(const llvm::Function &F);

/// In \p Twin (a private copy of a kernel), replaces each such call of at
/// most 256 bytes by loads and stores of the fields of the struct its source
/// or destination points into (`getelementptr %struct.P, ptr p, i64 i`), in
/// their own types, or by integer words where no struct tiles the range:
/// every load first, so an overlapping memmove copies what it would.
/// memset only with a constant byte. Returns whether it changed anything.
bool expandParamCopies(llvm::Function &Twin);

/// A private copy of \p F, named "<F>.kfuse.copied", for expandParamCopies
/// where no helper needs inlining. The caller erases it when done with it.
llvm::Function *copiedTwin(llvm::Function &F);

} // namespace kfuse

#endif
