//===- RemarkText.h - how remarks name kernels, parameters, places -*- C++ -*-===//
//
// Remarks speak the user's language: kernels and host functions as written
// in the source (demangled), parameters counted from 1 with their names, and
// index polynomials in threadIdx, blockIdx and the arguments' own text.
// Machine-read keys (the manifest, `kfuse.seq` records) keep mangled names.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_PASS_LLVM_REMARKTEXT_H
#define KFUSE_PASS_LLVM_REMARKTEXT_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/IR/DiagnosticInfo.h"

#include <string>

namespace llvm {
class Function;
class Instruction;
} // namespace llvm

namespace kfuse {

class IndexPoly;

/// A function as the user names it, without its parameter list: `brighten`
/// for `_Z8brightenPKfPfiiif`, `ns::k<float>` for a template instance; a
/// name that is not mangled (`extern "C"`) as it is.
std::string shortName(llvm::StringRef Mangled);

/// A function with its parameter types: `brighten(float const*, float*, int)`.
std::string signature(llvm::StringRef Mangled);

/// A sequence record's site, `t.cu:22:10 _Z3runPKfPf`, as `t.cu:22:10 in 'run'`.
std::string siteText(llvm::StringRef Site);

/// The source name of argument \p ArgNo of \p F, from debug info, the IR or
/// the kfuse_params annotation; empty when none keeps it.
std::string paramName(const llvm::Function &F, unsigned ArgNo);

/// The name of parameter \p ArgNo in \p F's "kfuse_params" annotation
/// (the Clang plugin writes one for each kfuse_map kernel), or "".
std::string annotatedParamName(const llvm::Function &F, unsigned ArgNo);

/// Parameter \p ArgNo (from 0) of \p F as a remark names it, counted from 1:
/// `parameter 2 ('t')` where debug info or the IR keeps the name,
/// `parameter 2` where neither does (clang discards IR names, and keeps no
/// variables in device debug info at -O1 and above, -g or not).
std::string paramText(const llvm::Function &F, unsigned ArgNo);

/// \p P in CUDA's own words: threadIdx.x, blockIdx.y, blockDim.x, gridDim.z,
/// integer parameter p of \p F by its name (`arg<p+1>` without one), value
/// number k through \p Value (a sequence record's text of the value).
std::string polyText(const IndexPoly &P, const llvm::Function *F,
                     llvm::function_ref<std::string(unsigned)> Value = nullptr);

/// A manifest expression (docs/manifest.md: `s<p>`, `bx`, `gx`, ...) in the
/// same words as polyText.
std::string exprText(llvm::StringRef Expr, const llvm::Function *F);

/// The instruction a remark about \p F is located at: \p At when it carries
/// a source location (-g, -gline-tables-only, or the location tracking
/// clang turns on for -Rpass), otherwise null, and the remark goes to the
/// kernel's opening line.
const llvm::Instruction *locatedAt(const llvm::Instruction *At);

/// Where a remark at \p At (non-null, with a location) points: its source
/// line, or, where that line was inlined from another file (the asm of
/// `__ldcs` in clang's CUDA headers, a helper in a header), the line in the
/// function's own file that the code was inlined at.
llvm::DiagnosticLocation remarkLocation(const llvm::Instruction &At);

} // namespace kfuse

#endif
