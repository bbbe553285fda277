//===- RemarkText.cpp - how remarks name kernels, parameters, places ------===//
//
// Names in remarks come from the demangler and from debug info; without -g
// at -O2 clang keeps neither parameter names nor variable records, so a
// kfuse_map kernel's parameter names come from the Clang plugin's
// "kfuse_params" annotation (docs/annotations.md), and any other function's
// parameter is then named by its number alone.
//
//===----------------------------------------------------------------------===//
#include "RemarkText.h"
#include "FieldParams.h"
#include "KernelAnalysis.h"

#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DebugProgramInstruction.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instruction.h"
#include "llvm/IR/Module.h"

#include <cctype>
#include <cstdlib>

using namespace llvm;
using namespace kfuse;

/// \p Mangled without the suffix clang gives an internal kernel it
/// externalizes under -fgpu-rdc (`_ZL5scalePKfPfi__intern__<cuid hash>`),
/// so remarks name the kernel as the source does.
static StringRef withoutInternSuffix(StringRef Mangled) {
  size_t At = Mangled.rfind("__intern__");
  if (At == StringRef::npos || At == 0)
    return Mangled;
  StringRef Hash = Mangled.drop_front(At + 10);
  return !Hash.empty() && Hash.find_first_not_of("0123456789abcdefABCDEF") == StringRef::npos
             ? Mangled.take_front(At)
             : Mangled;
}

/// An implementation the device pass derived, "<kernel>.kfuse.split<d>"
/// (DeriveImpl.h): the kernel's name and " split d ways".
static std::pair<StringRef, std::string> splitSuffix(StringRef Mangled) {
  size_t At = Mangled.rfind(".kfuse.split");
  if (At == StringRef::npos)
    return {Mangled, ""};
  return {Mangled.take_front(At), " split " + Mangled.drop_front(At + 12).str() + " ways"};
}

std::string kfuse::shortName(StringRef Mangled) {
  if (auto [Kernel, Split] = splitSuffix(Mangled); !Split.empty())
    return shortName(Kernel) + Split;
  std::string Name = withoutInternSuffix(Mangled).str();
  ItaniumPartialDemangler D;
  if (D.partialDemangle(Name.c_str()) || !D.isFunction())
    return demangle(Name);
  size_t N = 0;
  char *Buf = D.getFunctionName(nullptr, &N);
  if (!Buf)
    return demangle(Name);
  std::string R(Buf);
  std::free(Buf);
  return R;
}

std::string kfuse::signature(StringRef Mangled) {
  if (auto [Kernel, Split] = splitSuffix(Mangled); !Split.empty())
    return signature(Kernel) + Split;
  return demangle(withoutInternSuffix(Mangled));
}

std::string kfuse::siteText(StringRef Site) {
  auto [Where, Fn] = Site.rsplit(' ');
  if (Fn.empty() || Where.empty())
    return Site.str();
  return Where.str() + " in '" + shortName(Fn) + "'";
}

/// From the subprogram's retained variables, the variable records of the
/// function's own (not inlined) code, or the IR name.
std::string kfuse::paramName(const Function &F, unsigned ArgNo) {
  if (const DISubprogram *SP = F.getSubprogram()) {
    for (const DINode *N : SP->getRetainedNodes())
      if (auto *V = dyn_cast<DILocalVariable>(N); V && V->getArg() == ArgNo + 1)
        return V->getName().str();
    for (const Instruction &I : instructions(F))
      for (const DbgVariableRecord &DVR : filterDbgVars(I.getDbgRecordRange())) {
        const DILocalVariable *V = DVR.getVariable();
        if (V && V->getArg() == ArgNo + 1 && V->getScope()->getSubprogram() == SP &&
            !DVR.getDebugLoc().getInlinedAt())
          return V->getName().str();
      }
  }
  if (ArgNo < F.arg_size() && F.getArg(ArgNo)->hasName())
    return F.getArg(ArgNo)->getName().str();
  return annotatedParamName(F, ArgNo);
}

/// The name \p F's "kfuse_params a b c" annotation gives parameter \p ArgNo
/// ("-" there for an unnamed one), or "".
std::string kfuse::annotatedParamName(const Function &F, unsigned ArgNo) {
  // A private copy the analysis reads ("<kernel>.kfuse.inlined", ...) has
  // its kernel's parameters first.
  StringRef Name = F.getName();
  if (size_t At = Name.find(".kfuse."); At != StringRef::npos)
    if (const Function *Kernel = F.getParent()->getFunction(Name.take_front(At));
        Kernel && Kernel != &F)
      return ArgNo < Kernel->arg_size() ? annotatedParamName(*Kernel, ArgNo) : "";
  const GlobalVariable *GA = F.getParent()->getNamedGlobal("llvm.global.annotations");
  const auto *CA = GA && GA->hasInitializer() ? dyn_cast<ConstantArray>(GA->getInitializer())
                                              : nullptr;
  if (!CA)
    return "";
  for (const Use &U : CA->operands()) {
    const auto *E = dyn_cast<ConstantStruct>(U.get());
    if (!E || E->getNumOperands() < 2 || E->getOperand(0)->stripPointerCasts() != &F)
      continue;
    const auto *S = dyn_cast<GlobalVariable>(E->getOperand(1)->stripPointerCasts());
    const auto *Data = S && S->hasInitializer()
                           ? dyn_cast<ConstantDataSequential>(S->getInitializer())
                           : nullptr;
    if (!Data || !Data->isCString())
      continue;
    SmallVector<StringRef, 8> Words;
    Data->getAsCString().split(Words, ' ', -1, false);
    if (Words.empty() || Words[0] != "kfuse_params" || ArgNo + 1 >= Words.size())
      continue;
    return Words[ArgNo + 1] == "-" ? "" : Words[ArgNo + 1].str();
  }
  return "";
}

/// The field that parameter \p ArgNo of kernel \p F stands for in F's
/// field copy (FieldParams.h), or of F where F is that copy.
static std::optional<FieldParam> fieldOfParam(const Function &F, unsigned ArgNo) {
  if (ArgNo < F.arg_size())
    return fieldParamOf(F, ArgNo);
  for (const Function &G : *F.getParent()) {
    StringRef Name = G.getName();
    if (G.arg_size() > ArgNo && Name.starts_with((F.getName() + ".kfuse.").str()) &&
        Name.ends_with(".kfuse.fields"))
      if (auto Fi = fieldParamOf(G, ArgNo))
        return Fi;
  }
  return std::nullopt;
}

std::string kfuse::paramText(const Function &F, unsigned ArgNo) {
  // A buffer in a struct field: "the pointer at byte 8 of parameter 1 ('f')".
  if (std::optional<FieldParam> Fi = fieldOfParam(F, ArgNo))
    return "the pointer at byte " + std::to_string(Fi->Offset) + " of " +
           paramText(F, Fi->Struct);
  std::string R = "parameter " + std::to_string(ArgNo + 1);
  std::string Name = paramName(F, ArgNo);
  return Name.empty() ? R : R + " ('" + Name + "')";
}

/// The remark spelling of symbol \p S (KernelAnalysis.h's Symbol).
static std::string symbolText(int S, const Function *F,
                              function_ref<std::string(unsigned)> Value) {
  if (S == SymRow)
    return "row";
  if (S == SymSpan)
    return "k";
  if (S >= SymQuot0)
    return "q" + std::to_string(S - SymQuot0);
  if (isFieldSymbol(S) || isValueFieldSymbol(S)) {
    // `p.(byte 8)`: the field's name is not in the IR.
    std::string Of = isFieldSymbol(S) ? symbolText(SymParam0 + int(fieldParam(S)), F, Value)
                                      : symbolText(SymValue0 + int(fieldParam(S)), F, Value);
    return Of + ".(byte " + std::to_string(fieldOffset(S)) + ")";
  }
  if (S >= SymValue0) {
    std::string T = Value ? Value(unsigned(S - SymValue0)) : "";
    bool Simple = !T.empty() && llvm::all_of(T, [](char C) {
      return std::isalnum((unsigned char)C) || C == '_' || C == '.';
    });
    if (T.empty())
      return "v" + std::to_string(S - SymValue0);
    return Simple ? T : "(" + T + ")";
  }
  if (S >= SymParam0) {
    unsigned A = unsigned(S - SymParam0);
    std::string Name = F ? paramName(*F, A) : "";
    return Name.empty() ? "arg" + std::to_string(A + 1) : Name;
  }
  if (S == SymIter)
    return "iteration";
  if (S == SymOuterIter)
    return "outer iteration";
  static const char *const Coord[] = {"threadIdx", "blockDim", "blockIdx", "gridDim"};
  static const char *const Dims[] = {".x", ".y", ".z"};
  return std::string(Coord[S % SymDimStride]) + Dims[symDim(S)];
}

std::string kfuse::polyText(const IndexPoly &P, const Function *F,
                            function_ref<std::string(unsigned)> Value) {
  return P.str([&](int S) { return symbolText(S, F, Value); });
}

std::string kfuse::exprText(StringRef Expr, const Function *F) {
  std::string R;
  for (size_t I = 0; I < Expr.size();) {
    if (!std::isalpha((unsigned char)Expr[I])) {
      R += Expr[I++];
      continue;
    }
    size_t E = I;
    while (E < Expr.size() && std::isalnum((unsigned char)Expr[E]))
      ++E;
    StringRef Tok = Expr.slice(I, E);
    I = E;
    unsigned P;
    if (Tok.size() > 1 && Tok[0] == 's' && !Tok.drop_front(1).getAsInteger(10, P)) {
      R += symbolText(SymParam0 + int(P), F, nullptr);
      continue;
    }
    static const char *const Extents[] = {"bx", "by", "bz", "gx", "gy", "gz"};
    int Found = -1;
    for (int K = 0; K < 6; ++K)
      if (Tok == Extents[K])
        Found = K;
    R += Found < 0 ? Tok.str()
                   : symbolText(Found < 3 ? symNtid(Found) : symNctaid(Found - 3), F, nullptr);
  }
  return R;
}

const Instruction *kfuse::locatedAt(const Instruction *At) {
  return At && At->getDebugLoc() ? At : nullptr;
}

DiagnosticLocation kfuse::remarkLocation(const Instruction &At) {
  const DILocation *L = At.getDebugLoc().get();
  const DISubprogram *SP = At.getFunction()->getSubprogram();
  if (!L || !SP || !SP->getFile())
    return DiagnosticLocation(At.getDebugLoc());
  StringRef Own = SP->getFile()->getFilename();
  while (L->getInlinedAt() && L->getFilename() != Own)
    L = L->getInlinedAt();
  return DiagnosticLocation(DebugLoc(L));
}
