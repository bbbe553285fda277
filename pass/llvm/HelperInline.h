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
} // namespace llvm

namespace kfuse {

/// Whether \p F calls a function defined in its module (not an intrinsic)
/// with a pointer based on one of \p F's parameters.
bool callsPointerHelper(const llvm::Function &F);

/// A private copy of \p F, named "<F>.kfuse.inlined", in which every call
/// callsPointerHelper() looks for is inlined, helpers of helpers included
/// (at most 8 levels). Every floating-point value that crosses such a call
/// goes through llvm.arithmetic.fence: the arguments, the result and every
/// floating-point load; with the products among them rounded afterwards
/// (roundFencedProducts) no FMA forms across what was a call boundary and
/// the copy computes bit for bit what \p F computes. Returns nullptr (and
/// creates nothing) when a call cannot be inlined or the helpers nest
/// deeper. The caller erases the copy when done with it.
llvm::Function *inlinedTwin(llvm::Function &F);

/// After \p Twin has been simplified (a store on one side of a former call
/// forwarded to a load on the other): every fence of a product, or of the
/// negation of one, fences the product rounded by `mul.rn` instead
/// (roundedProduct, CallEffects.h). The fence keeps LLVM from contracting
/// across it, but it prints as a comment, and ptxas contracts a plain
/// `mul` with the `add` after it whatever lies between; `mul.rn` it never
/// contracts, and it computes the same bits as the rounded product that
/// crossed the call. The product itself stays for its uses on its own
/// side, which contract there as in the kernel with the call. Returns how
/// many products it rounded.
unsigned roundFencedProducts(llvm::Function &Twin);

} // namespace kfuse

#endif
