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
/// boundary (ptxas may: see productAddedAcrossCall). Returns nullptr (and
/// creates nothing) when a call cannot be inlined or the helpers nest
/// deeper. The caller erases the copy when done with it.
llvm::Function *inlinedTwin(llvm::Function &F);

/// After \p Twin has been simplified (a store on one side of a former call
/// forwarded to a load on the other): an addition or subtraction that takes
/// a product computed on the other side of a former call (a fenced product,
/// through negations, fences, phis and selects), or null. In the kernel
/// alone ptxas may inline the helper and contract the two into one FMA, or
/// not; a copy whose bits depend on that choice must not be fused.
const llvm::Instruction *productAddedAcrossCall(const llvm::Function &Twin);

} // namespace kfuse

#endif
