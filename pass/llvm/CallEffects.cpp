//===- CallEffects.cpp - what a call or inline asm does to memory ---------===//
//
// The kernel analysis asks here about every call in a map kernel. Inline asm
// is judged by its text, not by its attributes: clang marks every CUDA asm
// statement convergent, and an asm without a memory clobber memory(none),
// even `ld.global.cs.f32 $0, [$1];`, which reads through its pointer operand.
// So an asm statement is accepted when its constraints have no memory
// clobber or memory operand, no operand is a pointer, and no opcode of its
// text accesses memory, synchronises, talks to other lanes or leaves the
// thread (a deny list of PTX opcodes: a token at the head of a statement,
// never a substring of a register name); or when it is exactly one
// cache-hint load or store of one scalar (asmAccess), which the analysis
// then treats as a load or store. Calls of functions defined in the module
// (a `__noinline__` helper, libdevice's slow paths) are analysed through.
//
//===----------------------------------------------------------------------===//
#include "CallEffects.h"
#include "RemarkText.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"

#include <cctype>

using namespace llvm;
using namespace kfuse;

namespace {
/// One statement of an asm text: its opcode (`ld.global.cs.f32`, `.reg`)
/// and its operands, without labels, predicates and block braces.
struct AsmStatement {
  std::string Opcode;
  std::string Operands;
};
} // namespace

static bool isIdentChar(char C) { return std::isalnum((unsigned char)C) || C == '_' || C == '$'; }

/// The text without `//` and `/* */` comments.
static std::string withoutComments(StringRef T) {
  std::string R;
  for (size_t I = 0; I < T.size(); ++I) {
    if (T.substr(I).starts_with("//")) {
      while (I < T.size() && T[I] != '\n')
        ++I;
    } else if (T.substr(I).starts_with("/*")) {
      size_t E = T.find("*/", I + 2);
      I = E == StringRef::npos ? T.size() : E + 1;
      R += ' ';
      continue;
    }
    if (I < T.size())
      R += T[I];
  }
  return R;
}

static std::vector<AsmStatement> statements(StringRef Asm) {
  std::vector<AsmStatement> R;
  std::string Text = withoutComments(Asm);
  SmallVector<StringRef, 8> Pieces;
  StringRef(Text).split(Pieces, ';');
  for (StringRef P : Pieces) {
    for (;;) {
      P = P.ltrim(" \t\r\n{}");
      // A label (`L1:`) or a guard predicate (`@p`, `@!p`) before the opcode.
      size_t N = 0;
      while (N < P.size() && isIdentChar(P[N]))
        ++N;
      if (N && N < P.size() && P[N] == ':') {
        P = P.drop_front(N + 1);
        continue;
      }
      if (P.starts_with("@")) {
        P = P.drop_front(1).ltrim("!");
        while (!P.empty() && isIdentChar(P.front()))
          P = P.drop_front(1);
        continue;
      }
      break;
    }
    P = P.rtrim(" \t\r\n{}");
    if (P.empty())
      continue;
    size_t E = P.find_first_of(" \t\r\n{");
    AsmStatement S;
    S.Opcode = P.substr(0, E).str();
    S.Operands = E == StringRef::npos ? "" : P.substr(E).trim().str();
    R.push_back(std::move(S));
  }
  return R;
}

/// PTX instructions that access memory, synchronise, exchange values with
/// other lanes, or end or redirect the thread, by the first component of
/// their opcode.
static bool isDeniedOpcode(StringRef Base) {
  static const StringSet<> Denied = {
      "ld", "ldu", "st", "prefetch", "prefetchu", "cp", "cvta", "mapa", "atom", "red",
      "multimem", "mbarrier", "membar", "fence", "bar", "barrier", "shfl", "vote", "match",
      "redux", "activemask", "elect", "griddepcontrol", "tex", "tld4", "txq", "suld", "sust",
      "sured", "suq", "istypep", "ldmatrix", "stmatrix", "movmatrix", "wmma", "mma", "wgmma",
      "tcgen05", "tensormap", "setmaxnreg", "alloca", "stacksave", "stackrestore", "trap",
      "exit", "ret", "call", "brkpt", "nanosleep", "pmevent", "applypriority", "discard",
      "createpolicy", "getctarank", "clusterlaunchcontrol"};
  return Denied.contains(Base);
}

/// The special register a text reads (`%tid.x`, `%laneid`, `%clock`), empty
/// if none. In LLVM's asm text `$N` are operands and `%` is PTX's own.
static std::string specialRegister(StringRef T) {
  static const char *const Names[] = {
      "tid", "ntid", "laneid", "warpid", "nwarpid", "ctaid", "nctaid", "smid", "nsmid",
      "gridid", "lanemask", "clock", "globaltimer", "pm", "envreg", "total_smem_size",
      "aggr_smem_size", "dynamic_smem_size", "reserved_smem", "cluster", "is_explicit_cluster",
      "current_graph_exec"};
  for (size_t P = T.find('%'); P != StringRef::npos; P = T.find('%', P + 1)) {
    size_t E = P + 1;
    while (E < T.size() && (isIdentChar(T[E]) || T[E] == '.'))
      ++E;
    StringRef Name = T.slice(P + 1, E);
    for (const char *N : Names)
      if (Name.starts_with(N))
        return "%" + Name.str();
  }
  return "";
}

std::string kfuse::asmSnippet(const InlineAsm &IA) {
  std::string R;
  for (char C : IA.getAsmString()) {
    bool Space = C == '\n' || C == '\t' || C == ' ' || C == '\r';
    if (Space && (R.empty() || R.back() == ' '))
      continue;
    R += Space ? ' ' : C;
  }
  while (!R.empty() && R.back() == ' ')
    R.pop_back();
  if (R.size() > 60)
    R = R.substr(0, 57) + "...";
  return R;
}

namespace {
/// An `ld.global`/`st.global` statement, parsed (parseHintAccess).
struct HintForm {
  bool IsStore = false;
  unsigned Lanes = 1;     ///< v2, v4
  unsigned Bits = 0;      ///< PTX type width
  bool Shape = false;     ///< operands are `$0, [$N]` / `[$0], $1`
};
} // namespace

/// Parses \p S as `ld.global[.hint][.vN].<type>` or `st.global[...]`.
static std::optional<HintForm> parseHintAccess(const AsmStatement &S) {
  SmallVector<StringRef, 6> Parts;
  StringRef(S.Opcode).split(Parts, '.');
  if (Parts.size() < 3 || (Parts[0] != "ld" && Parts[0] != "st") || Parts[1] != "global")
    return std::nullopt;
  HintForm H;
  H.IsStore = Parts[0] == "st";
  static const StringSet<> LoadHints = {"ca", "cg", "cs", "lu", "cv", "nc"};
  static const StringSet<> StoreHints = {"wb", "cg", "cs", "wt"};
  size_t I = 2;
  if (I + 1 < Parts.size() && (H.IsStore ? StoreHints : LoadHints).contains(Parts[I]))
    ++I;
  if (I + 1 < Parts.size() && (Parts[I] == "v2" || Parts[I] == "v4")) {
    H.Lanes = Parts[I] == "v2" ? 2 : 4;
    ++I;
  }
  if (I + 1 != Parts.size())
    return std::nullopt;
  StringRef Ty = Parts[I];
  if (Ty.size() < 2 || !StringRef("bsuf").contains(Ty[0]) ||
      Ty.drop_front(1).getAsInteger(10, H.Bits))
    return std::nullopt;
  std::string Ops;
  for (char C : S.Operands)
    if (!std::isspace((unsigned char)C))
      Ops += C;
  H.Shape = H.IsStore ? Ops == "[$0],$1" : Ops == "$0,[$1]";
  return H;
}

/// The constraints of \p IA: whether any is a memory clobber, and whether
/// any operand is indirect (a memory operand, "*m").
static void constraintFlags(const InlineAsm &IA, bool &MemClobber, bool &Indirect) {
  MemClobber = Indirect = false;
  for (const InlineAsm::ConstraintInfo &C : IA.ParseConstraints()) {
    Indirect |= C.isIndirect;
    if (C.Type == InlineAsm::isClobber)
      for (const std::string &Code : C.Codes)
        MemClobber |= Code == "{memory}";
  }
}

std::optional<AsmAccess> kfuse::asmAccess(const CallBase &CB) {
  auto *IA = dyn_cast<InlineAsm>(CB.getCalledOperand());
  if (!IA)
    return std::nullopt;
  std::vector<AsmStatement> Stmts = statements(IA->getAsmString());
  if (Stmts.size() != 1)
    return std::nullopt;
  auto H = parseHintAccess(Stmts[0]);
  if (!H || !H->Shape || H->Lanes != 1)
    return std::nullopt;
  bool MemClobber, Indirect;
  constraintFlags(*IA, MemClobber, Indirect);
  if (Indirect)
    return std::nullopt;
  const DataLayout &DL = CB.getModule()->getDataLayout();
  AsmAccess A;
  A.IsStore = H->IsStore;
  A.PtrArg = 0;
  Type *Ty;
  if (H->IsStore) {
    if (CB.arg_size() != 2 || !CB.getType()->isVoidTy())
      return std::nullopt;
    A.ValueArg = 1;
    Ty = CB.getArgOperand(1)->getType();
  } else {
    if (CB.arg_size() != 1)
      return std::nullopt;
    Ty = CB.getType();
  }
  if (!CB.getArgOperand(0)->getType()->isPointerTy() ||
      !(Ty->isIntegerTy() || Ty->isFloatingPointTy()) ||
      DL.getTypeSizeInBits(Ty).getFixedValue() != H->Bits)
    return std::nullopt;
  return A;
}

std::optional<VectorAccess> kfuse::vectorAccess(const CallBase &CB) {
  auto *IA = dyn_cast<InlineAsm>(CB.getCalledOperand());
  if (!IA)
    return std::nullopt;
  std::vector<AsmStatement> Stmts = statements(IA->getAsmString());
  if (Stmts.size() != 1)
    return std::nullopt;
  auto H = parseHintAccess(Stmts[0]);
  if (!H || H->Lanes == 1)
    return std::nullopt;
  bool MemClobber, Indirect;
  constraintFlags(*IA, MemClobber, Indirect);
  if (Indirect)
    return std::nullopt;
  // The operands, exactly: `{$0,$1,$2,$3},[$4]` or `[$0],{$1,$2,$3,$4}`
  // (braces aside: statements() trims a statement's last one).
  std::string Ops, Want, List;
  for (char C : Stmts[0].Operands)
    if (!std::isspace((unsigned char)C) && C != '{' && C != '}')
      Ops += C;
  for (unsigned K = 0; K < H->Lanes; ++K)
    List += (K ? ",$" : "$") + std::to_string(H->IsStore ? K + 1 : K);
  Want = H->IsStore ? "[$0]," + List : List + ",[$" + std::to_string(H->Lanes) + "]";
  if (Ops != Want)
    return std::nullopt;
  const DataLayout &DL = CB.getModule()->getDataLayout();
  Type *LaneTy = nullptr;
  if (H->IsStore) {
    if (CB.arg_size() != 1 + H->Lanes || !CB.getType()->isVoidTy())
      return std::nullopt;
    LaneTy = CB.getArgOperand(1)->getType();
    for (unsigned K = 1; K <= H->Lanes; ++K)
      if (CB.getArgOperand(K)->getType() != LaneTy)
        return std::nullopt;
  } else {
    auto *ST = dyn_cast<StructType>(CB.getType());
    if (CB.arg_size() != 1 || !ST || ST->getNumElements() != H->Lanes)
      return std::nullopt;
    LaneTy = ST->getElementType(0);
    for (Type *E : ST->elements())
      if (E != LaneTy)
        return std::nullopt;
  }
  if (!CB.getArgOperand(0)->getType()->isPointerTy() ||
      !(LaneTy->isIntegerTy() || LaneTy->isFloatingPointTy()) ||
      DL.getTypeSizeInBits(LaneTy).getFixedValue() != H->Bits)
    return std::nullopt;
  VectorAccess V;
  V.IsStore = H->IsStore;
  V.Lanes = H->Lanes;
  V.LaneTy = LaneTy;
  std::string Lane = ".v" + std::to_string(H->Lanes) + ".";
  V.ScalarOpcode = Stmts[0].Opcode;
  size_t At = V.ScalarOpcode.find(Lane);
  V.ScalarOpcode.replace(At, Lane.size(), ".");
  return V;
}

std::optional<MemoryAccess> kfuse::memoryAccessOf(Instruction &I) {
  MemoryAccess M;
  if (auto *LI = dyn_cast<LoadInst>(&I)) {
    M.Ptr = LI->getPointerOperand();
    M.Ty = LI->getType();
    M.Volatile = LI->isVolatile();
    M.Simple = LI->isSimple();
    return M;
  }
  if (auto *SI = dyn_cast<StoreInst>(&I)) {
    M.Ptr = SI->getPointerOperand();
    M.Stored = SI->getValueOperand();
    M.Ty = M.Stored->getType();
    M.IsStore = true;
    M.Volatile = SI->isVolatile();
    M.Simple = SI->isSimple();
    return M;
  }
  auto *CB = dyn_cast<CallBase>(&I);
  auto A = CB ? asmAccess(*CB) : std::nullopt;
  if (!A)
    return std::nullopt;
  M.Ptr = CB->getArgOperand(A->PtrArg);
  M.IsStore = A->IsStore;
  M.Stored = A->IsStore ? CB->getArgOperand(A->ValueArg) : nullptr;
  M.Ty = A->IsStore ? M.Stored->getType() : CB->getType();
  return M;
}

Value *kfuse::accessPointer(Instruction &I) {
  auto M = memoryAccessOf(I);
  return M ? M->Ptr : nullptr;
}

/// Why inline asm \p CB is not register arithmetic, empty when it is.
static std::string asmRefusal(const CallBase &CB) {
  auto &IA = *cast<InlineAsm>(CB.getCalledOperand());
  std::string Text = IA.getAsmString().trim().empty() ? "an empty asm statement"
                                                       : "'" + asmSnippet(IA) + "'";
  std::vector<AsmStatement> Stmts = statements(IA.getAsmString());
  if (Stmts.size() == 1)
    if (auto H = parseHintAccess(Stmts[0])) {
      if (H->Lanes > 1)
        return "has a vector cache-hint access in inline asm (" + Text +
               "); kfuse analyses the scalar forms only: access the elements one by one, or "
               "use a plain load or store";
      if (H->Shape)
        return "has a cache-hint access in inline asm (" + Text +
               ") whose PTX type is narrower or wider than its value; use a plain load or "
               "store";
    }
  bool MemClobber, Indirect;
  constraintFlags(IA, MemClobber, Indirect);
  const std::string Only = "; kfuse fuses inline asm that only computes on registers";
  if (MemClobber)
    return "has inline asm with a memory clobber (" + Text + ")" + Only +
           ": drop the \"memory\" clobber if the asm does not touch memory";
  if (Indirect)
    return "has inline asm with a memory operand (" + Text + ")" + Only;
  // An asm whose value nothing uses, as cooperative groups' this_grid()
  // and this_thread_block() leave behind (`mov.u32 $0, %envreg2;`, a cvta
  // of %reserved_smem_offset_1) where only thread_rank() is used: its
  // special registers and address conversions change nothing; it stays in
  // the fused kernel, as dead there as in the kernel.
  const bool Unused = CB.use_empty();
  for (const AsmStatement &S : Stmts) {
    StringRef Op(S.Opcode);
    if (Op.starts_with(".")) {
      if (Op == ".reg")
        continue;
      return "has inline asm that declares '" + S.Opcode + "' (" + Text + ")" + Only;
    }
    StringRef Base = Op.split('.').first;
    if (Unused && (Base == "cvta" || Base == "mapa"))
      continue;
    if (isDeniedOpcode(Base))
      return "has inline asm that uses '" + S.Opcode + "' (" + Text +
             "), which accesses memory, synchronises or leaves the thread" + Only;
  }
  std::string Reg = Unused ? "" : specialRegister(IA.getAsmString());
  if (!Reg.empty())
    return "has inline asm that reads special register '" + Reg + "' (" + Text + ")" + Only +
           "; read threadIdx, blockIdx and friends in C++ instead";
  for (const Use &U : CB.args())
    if (U->getType()->isPointerTy())
      return "passes a pointer to inline asm (" + Text + ")" + Only +
             ", and the one-scalar cache-hint loads and stores (ld.global.cs, st.global.wt, "
             "...)";
  return "";
}

/// Floating-point operations of a register asm: its statements with a
/// floating-point type.
static unsigned asmFlops(const CallBase &CB) {
  unsigned N = 0;
  for (const AsmStatement &S :
       statements(cast<InlineAsm>(CB.getCalledOperand())->getAsmString())) {
    SmallVector<StringRef, 6> Parts;
    StringRef(S.Opcode).split(Parts, '.');
    for (StringRef P : Parts)
      if (P == "f16" || P == "f16x2" || P == "bf16" || P == "bf16x2" || P == "f32" ||
          P == "f64") {
        ++N;
        break;
      }
  }
  return N;
}

static unsigned flopsOf(const Instruction &I) {
  if ((isa<BinaryOperator>(I) || isa<UnaryOperator>(I)) && I.getType()->isFPOrFPVectorTy())
    return 1;
  // A fence computes nothing: it only keeps its operand from being
  // contracted into its users.
  if (auto *II = dyn_cast<IntrinsicInst>(&I);
      II && II->getType()->isFPOrFPVectorTy() && II->getIntrinsicID() != Intrinsic::arithmetic_fence)
    return II->getIntrinsicID() == Intrinsic::fma || II->getIntrinsicID() == Intrinsic::fmuladd
               ? 2
               : 1;
  return 0;
}

/// A function as the user wrote it: `poly(float)`, not `_Z4polyf`.
static std::string quoted(const Function &F) {
  return "'" + demangle(F.getName().str()) + "'";
}

static CallEffect refused(std::string Why, std::string Stat) {
  CallEffect E;
  E.K = CallEffect::Refused;
  E.Reason = std::move(Why);
  E.Stat = std::move(Stat);
  return E;
}

/// Whether pointer \p V points into memory of the thread's own: allocas of
/// \p F, or (when \p ArgsPrivate, inside a callee) its pointer arguments,
/// which every caller has checked are such memory.
static bool isPrivatePointer(const Value *V, const Function &F, bool ArgsPrivate) {
  SmallVector<const Value *, 4> Objs;
  getUnderlyingObjects(V, Objs);
  for (const Value *O : Objs) {
    if (auto *AI = dyn_cast<AllocaInst>(O); AI && AI->getFunction() == &F)
      continue;
    if (auto *A = dyn_cast<Argument>(O); A && ArgsPrivate && A->getParent() == &F)
      continue;
    return false;
  }
  return true;
}

/// Whether \p V only points into read-only globals.
static bool isConstantPointer(const Value *V) {
  SmallVector<const Value *, 4> Objs;
  getUnderlyingObjects(V, Objs);
  for (const Value *O : Objs) {
    auto *GV = dyn_cast<GlobalVariable>(O);
    if (!GV || !(GV->isConstant() || GV->getAddressSpace() == 4))
      return false;
  }
  return true;
}

CallEffect CallEffects::ofIntrinsic(const CallBase &CB, const Function &Callee) {
  Intrinsic::ID ID = Callee.getIntrinsicID();
  CallEffect E;
  if (ID == Intrinsic::lifetime_start || ID == Intrinsic::lifetime_end ||
      ID == Intrinsic::assume || isa<DbgInfoIntrinsic>(CB))
    return E;
  if (CB.isConvergent())
    return refused("uses a barrier or warp-collective intrinsic '" + Callee.getName().str() +
                       "'",
                   "barrier");
  if (!CB.doesNotAccessMemory())
    return refused("uses memory-accessing intrinsic '" + Callee.getName().str() + "'", "call");
  E.Flops = flopsOf(CB);
  return E;
}

/// `assert()`'s failure: prints the message (constant strings) and aborts
/// the kernel, leaving the context in an error that every later CUDA call
/// returns, fused or not.
static bool isAssertFail(const Function &F) {
  return F.isDeclaration() && F.getName() == "__assertfail";
}

CallEffect CallEffects::ofDefined(const CallBase &CB, const Function &Callee) {
  std::string Name = quoted(Callee);
  if (isAssertFail(Callee))
    return CallEffect();
  if (Callee.isDeclaration())
    return refused("calls " + Name +
                       ", which is not defined in this module; kfuse analyses calls only "
                       "into functions it can see (define it in this translation unit)",
                   "call");
  const Function &Caller = *CB.getFunction();
  for (const Use &U : CB.args()) {
    if (!U->getType()->isPointerTy() || isPrivatePointer(U, Caller, false))
      continue;
    if (auto *A = dyn_cast<Argument>(getUnderlyingObject(U, 0)); A && A->getParent() == &Caller)
      return refused("passes pointer " + paramText(Caller, A->getArgNo()) + " to " +
                         Name +
                         ", which is not inlined; kfuse analyses the accesses through a "
                         "pointer parameter only in the kernel itself: let the compiler "
                         "inline the function (no __noinline__), or pass it the values "
                         "instead of the pointer",
                     "call");
    return refused("passes a pointer to " + Name +
                       " that is not the thread's own memory; kfuse analyses calls that "
                       "get values or pointers to local variables only",
                   "call");
  }
  const Summary &S = summarize(Callee);
  if (!S.Valid)
    return refused("calls " + Name + ", which " + S.Reason, S.Stat);
  CallEffect E;
  E.Flops = S.Flops;
  return E;
}

const CallEffects::Summary &CallEffects::summarize(const Function &G) {
  auto [It, New] = Callees.try_emplace(&G);
  Summary &S = It->second;
  if (!New) {
    if (S.InProgress) {
      // A cycle: the summary being built is refused, whoever asks.
      S.Valid = false;
      S.Reason = "is recursive";
      S.Stat = "call";
    }
    return S;
  }
  S.InProgress = true;
  auto Refuse = [&](std::string Why, std::string Stat) {
    if (!S.Valid)
      return;
    S.Valid = false;
    S.Reason = std::move(Why);
    S.Stat = std::move(Stat);
  };
  if (G.isVarArg())
    Refuse("is variadic", "call");
  for (const Instruction &I : instructions(G)) {
    if (!S.Valid)
      break;
    S.Flops += flopsOf(I);
    if (auto *CB = dyn_cast<CallBase>(&I)) {
      if (CB->isInlineAsm()) {
        std::string Why = asmRefusal(*CB);
        if (!Why.empty())
          Refuse(Why, "asm");
        else if (asmAccess(*CB))
          Refuse("has a cache-hint access in inline asm ('" +
                     asmSnippet(*cast<InlineAsm>(CB->getCalledOperand())) + "')",
                 "asm");
        else
          S.Flops += asmFlops(*CB);
        continue;
      }
      const Function *Callee = CB->getCalledFunction();
      if (Callee && isAssertFail(*Callee))
        continue;
      if (!Callee) {
        Refuse("makes an indirect call", "call");
        continue;
      }
      if (!Callee->isIntrinsic()) {
        // Its pointer arguments must be G's own memory too.
        for (const Use &U : CB->args())
          if (U->getType()->isPointerTy() && !isPrivatePointer(U, G, true))
            Refuse("passes a pointer that is not its own memory to " + quoted(*Callee), "call");
        if (!S.Valid)
          break;
        if (Callee->isDeclaration()) {
          Refuse("calls " + quoted(*Callee) + ", which is not defined here", "call");
          break;
        }
        const Summary &Inner = summarize(*Callee);
        if (!Inner.Valid)
          Refuse("calls " + quoted(*Callee) + ", which " + Inner.Reason, Inner.Stat);
        else
          S.Flops += Inner.Flops;
        continue;
      }
      StringRef CName = Callee->getName();
      if (CName.starts_with("llvm.nvvm.read.ptx.sreg.")) {
        Refuse("reads a thread, block or lane index ('" + CName.str() +
                   "'); read it in the kernel and pass it as an argument",
               "call");
        continue;
      }
      if (auto *MI = dyn_cast<MemIntrinsic>(CB)) {
        bool Ok = !MI->isVolatile() && isPrivatePointer(MI->getDest(), G, true);
        if (auto *MT = dyn_cast<MemTransferInst>(MI))
          Ok &= isPrivatePointer(MT->getSource(), G, true) || isConstantPointer(MT->getSource());
        if (!Ok)
          Refuse("uses '" + CName.str() + "' on memory that is not its own", "call");
        continue;
      }
      CallEffect E = ofIntrinsic(*CB, *Callee);
      if (E.K == CallEffect::Refused)
        Refuse(E.Reason, E.Stat);
      continue;
    }
    if (isa<AtomicRMWInst>(I) || isa<AtomicCmpXchgInst>(I) || isa<FenceInst>(I)) {
      Refuse("uses atomics or fences", "atomic");
      continue;
    }
    auto M = memoryAccessOf(const_cast<Instruction &>(I));
    if (!M)
      continue;
    if (M->Volatile || !M->Simple) {
      Refuse("has a volatile or atomic access", "volatile");
      continue;
    }
    if (isPrivatePointer(M->Ptr, G, true))
      continue;
    if (!M->IsStore && isConstantPointer(M->Ptr))
      continue;
    const Value *Obj = getUnderlyingObject(M->Ptr);
    std::string What = Obj->hasName() ? " ('" + Obj->getName().str() + "')" : "";
    Refuse(std::string(M->IsStore ? "writes" : "reads") + " memory that is neither its own " +
               "nor a constant" + What,
           "global");
  }
  S.InProgress = false; // std::map: S is still this callee's entry
  return S;
}

CallEffect CallEffects::of(const CallBase &CB) {
  if (CB.isInlineAsm()) {
    CallEffect E;
    if (asmAccess(CB)) {
      E.K = CallEffect::Access;
      return E;
    }
    std::string Why = asmRefusal(CB);
    if (!Why.empty())
      return refused(Why, "asm");
    E.Flops = asmFlops(CB);
    return E;
  }
  const Function *Callee = CB.getCalledFunction();
  if (!Callee)
    return refused("makes an indirect call", "call");
  if (Callee->isIntrinsic())
    return ofIntrinsic(CB, *Callee);
  return ofDefined(CB, *Callee);
}

CallInst *kfuse::roundedAsmCopy(CallInst &CI) {
  auto *IA = dyn_cast<InlineAsm>(CI.getCalledOperand());
  if (!IA)
    return nullptr;
  std::string T = IA->getAsmString().str();
  bool Changed = false;
  for (size_t P = T.find("mul."); P != std::string::npos; P = T.find("mul.", P + 1)) {
    if (P > 0 && (isIdentChar(T[P - 1]) || T[P - 1] == '.' || T[P - 1] == '%'))
      continue;
    SmallVector<std::string, 4> Mods;
    size_t E = P + 3;
    while (E < T.size() && T[E] == '.') {
      size_t B = ++E;
      while (E < T.size() && isIdentChar(T[E]))
        ++E;
      Mods.push_back(T.substr(B, E - B));
    }
    static const StringSet<> FloatTypes = {"f16", "f16x2", "bf16", "bf16x2", "f32", "f64"};
    if (Mods.empty() || !FloatTypes.contains(Mods.back()))
      continue;
    bool OnlyFlags = true;
    for (size_t K = 0; K + 1 < Mods.size(); ++K)
      OnlyFlags &= Mods[K] == "ftz" || Mods[K] == "sat";
    if (!OnlyFlags)
      continue; // already rounded (mul.rn, mul.rz, ...)
    T.insert(P + 3, ".rn");
    Changed = true;
  }
  if (!Changed)
    return nullptr;
  InlineAsm *Rounded =
      InlineAsm::get(IA->getFunctionType(), T, IA->getConstraintString(),
                     IA->hasSideEffects(), IA->isAlignStack(), IA->getDialect(), IA->canThrow());
  SmallVector<Value *, 4> Args(CI.args());
  auto *Copy = CallInst::Create(IA->getFunctionType(), Rounded, Args, CI.getName() + ".rn",
                                CI.getIterator());
  Copy->setAttributes(CI.getAttributes());
  Copy->setTailCallKind(CI.getTailCallKind());
  return Copy;
}
