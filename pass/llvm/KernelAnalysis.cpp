//===- KernelAnalysis.cpp - what one kfuse_map kernel does ----------------===//
//
// Computes KernelInfo: parameter use, access polynomials (from ScalarEvolution),
// flops, and the first reason a kernel cannot take part in fusion. A load
// whose index is no polynomial is kept as a gather (Access::UnknownIndex);
// a store with such an index makes the kernel unanalysable.
//
// Index polynomials look through sign and zero extensions and truncations
// to 32 bits or more: the analysis assumes a thread's linear index fits the
// index type (grids of fewer than 2^31 threads for int indices), which is
// what every map kernel's author assumes too. A truncation to fewer bits is
// a mask (`i & 15`), so such an index is no polynomial.
//
//===----------------------------------------------------------------------===//
#include "KernelAnalysis.h"
#include "CallEffects.h"
#include "RemarkText.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/PostDominators.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Operator.h"
#include "llvm/IR/PatternMatch.h"

#include <algorithm>
#include <cctype>

using namespace llvm;
using namespace kfuse;

IndexPoly IndexPoly::constant(int64_t C) {
  IndexPoly P;
  if (C)
    P.Terms[{}] = C;
  return P;
}

IndexPoly IndexPoly::symbol(int S) {
  IndexPoly P;
  P.Terms[{S}] = 1;
  return P;
}

void TermMap::normalise() {
  llvm::sort(V, [](const value_type &A, const value_type &B) { return A.first < B.first; });
  Storage Out;
  for (value_type &T : V) {
    if (!Out.empty() && Out.back().first == T.first)
      Out.back().second += T.second;
    else
      Out.push_back(std::move(T));
    if (Out.back().second == 0)
      Out.pop_back();
  }
  V = std::move(Out);
}

/// this + Sign * O, merging the two sorted term lists.
static IndexPoly addScaled(const IndexPoly &A, const IndexPoly &O, int64_t Sign) {
  IndexPoly R;
  auto I = A.Terms.begin(), IE = A.Terms.end();
  auto J = O.Terms.begin(), JE = O.Terms.end();
  while (I != IE || J != JE) {
    if (J == JE || (I != IE && I->first < J->first)) {
      R.Terms.append(I->first, I->second);
      ++I;
    } else if (I == IE || J->first < I->first) {
      R.Terms.append(J->first, Sign * J->second);
      ++J;
    } else {
      if (int64_t C = I->second + Sign * J->second)
        R.Terms.append(I->first, C);
      ++I;
      ++J;
    }
  }
  return R;
}

IndexPoly IndexPoly::operator+(const IndexPoly &O) const { return addScaled(*this, O, 1); }

IndexPoly IndexPoly::operator-(const IndexPoly &O) const { return addScaled(*this, O, -1); }

IndexPoly IndexPoly::operator*(const IndexPoly &O) const {
  IndexPoly R;
  for (auto &[M1, C1] : Terms)
    for (auto &[M2, C2] : O.Terms) {
      Monomial M = M1;
      M.append(M2.begin(), M2.end());
      llvm::sort(M);
      R.Terms.append(std::move(M), C1 * C2);
    }
  R.Terms.normalise();
  return R;
}

bool IndexPoly::isConstant() const {
  return Terms.empty() || (Terms.size() == 1 && Terms.begin()->first.empty());
}

int64_t IndexPoly::constantTerm() const {
  auto It = Terms.find({});
  return It == Terms.end() ? 0 : It->second;
}

bool IndexPoly::uses(int Sym) const {
  for (auto &[M, C] : Terms)
    if (llvm::is_contained(M, Sym))
      return true;
  return false;
}

IndexPoly IndexPoly::rename(const std::map<int, int> &Map) const {
  IndexPoly R;
  for (auto &[M, C] : Terms) {
    Monomial N;
    for (int S : M) {
      auto It = Map.find(S);
      N.push_back(It == Map.end() ? S : It->second);
    }
    llvm::sort(N);
    R.Terms.append(std::move(N), C);
  }
  R.Terms.normalise();
  return R;
}

static std::string symbolName(int S) {
  if (S == SymIter)
    return "iter";
  if (S == SymOuterIter)
    return "iter.outer";
  if (S == SymRow)
    return "row";
  if (S == SymSpan)
    return "k";
  if (S >= SymQuot0)
    return "q" + std::to_string(S - SymQuot0);
  if (isFieldSymbol(S) || isValueFieldSymbol(S))
    return (isFieldSymbol(S) ? "s" : "v") + std::to_string(fieldParam(S)) + "." +
           std::to_string(fieldOffset(S)) + "." + std::to_string(1u << fieldLogWidth(S));
  if (S >= SymValue0)
    return "v" + std::to_string(S - SymValue0);
  if (S >= SymParam0)
    return "s" + std::to_string(S - SymParam0);
  static const char *const Extents[] = {"bx", "by", "bz", "gx", "gy", "gz"};
  static const char *const Dims[] = {"", ".y", ".z"};
  unsigned D = symDim(S);
  switch (S % SymDimStride) {
  case SymTid: return std::string("tid") + Dims[D];
  case SymCtaid: return std::string("ctaid") + Dims[D];
  case SymNtid: return Extents[D];
  default: return Extents[3 + D];
  }
}

std::string IndexPoly::str(function_ref<std::string(int)> Name) const {
  if (Terms.empty())
    return "0";
  std::string Out;
  // Highest degree first reads naturally: 4*bx*ctaid+4*tid.
  for (auto It = Terms.rbegin(); It != Terms.rend(); ++It) {
    auto &[M, C] = *It;
    int64_t Abs = C < 0 ? -C : C;
    Out += C < 0 ? "-" : (Out.empty() ? "" : "+");
    std::string Body;
    if (Abs != 1 || M.empty())
      Body = std::to_string(Abs);
    for (int S : M)
      Body += (Body.empty() ? "" : "*") + (Name ? Name(S) : symbolName(S));
    Out += Body;
  }
  return Out;
}

std::string IndexPoly::toExpr() const { return str(); }

/// The largest value of coordinate \p S over the grid: its extent - 1.
static IndexPoly coordinateMax(int S) {
  return IndexPoly::symbol(S + 1) - IndexPoly::constant(1); // tid.d -> ntid.d
}

std::optional<std::pair<IndexPoly, IndexPoly>> IndexPoly::gridRange() const {
  if (uses(SymIter) || uses(SymOuterIter))
    return std::nullopt;
  IndexPoly Lo, Hi;
  for (auto &[M, C] : Terms) {
    IndexPoly Upper = constant(C);
    bool Varies = false, HasParam = false;
    for (int S : M) {
      if (isCoordinate(S)) {
        Varies = true;
        Upper = Upper * coordinateMax(S);
      } else {
        HasParam |= S >= SymParam0;
        Upper = Upper * symbol(S);
      }
    }
    if (Varies && HasParam)
      return std::nullopt;
    if (!Varies) {
      Lo = Lo + Upper;
      Hi = Hi + Upper;
    } else if (C > 0) {
      Hi = Hi + Upper;
    } else {
      Lo = Lo + Upper;
    }
  }
  return std::make_pair(Lo, Hi);
}

/// The coefficient of coordinate \p Sym in \p P, where every term names it
/// at most once and the coefficient names no coordinate or iteration count.
std::optional<IndexPoly> kfuse::coefficientOf(const IndexPoly &P, int Sym) {
  IndexPoly Coef;
  for (auto &[M, K] : P.Terms) {
    if (llvm::count(M, Sym) == 0)
      continue;
    if (llvm::count(M, Sym) > 1)
      return std::nullopt;
    IndexPoly::Monomial Rest = M;
    Rest.erase(llvm::find(Rest, Sym));
    for (int S : Rest)
      if (isCoordinate(S) || S == SymIter || S == SymOuterIter)
        return std::nullopt;
    Coef.Terms[Rest] = K;
  }
  return Coef;
}

IndexPoly IndexDigit::extent() const {
  IndexPoly Threads = IndexPoly::symbol(symNtid(Dim));
  IndexPoly Blocks = IndexPoly::symbol(symNctaid(Dim));
  return K == Global ? Threads * Blocks : K == Thread ? Threads : Blocks;
}

std::optional<DigitForm> kfuse::digitsOf(const IndexPoly &O) {
  // Per dimension, the coefficient of tid.d and of ctaid.d.
  IndexPoly OfTid[3], OfCtaid[3], OfIter;
  DigitForm Form;
  // A nest's two iteration counts are no digits of one mixed-radix
  // number (Legality.cpp's disjointNest reads them).
  if (O.uses(SymOuterIter))
    return std::nullopt;
  for (auto &[M, C] : O.Terms) {
    int Coord = -1;
    IndexPoly::Monomial Rest;
    for (int S : M) {
      if (!isCoordinate(S) && S != SymIter) {
        Rest.push_back(S);
        continue;
      }
      if (Coord >= 0)
        return std::nullopt;
      Coord = S;
    }
    IndexPoly Coef;
    Coef.Terms[Rest] = C;
    if (Coord < 0)
      Form.Rest = Form.Rest + Coef;
    else if (Coord == SymIter)
      OfIter = OfIter + Coef;
    else if (Coord % SymDimStride == SymTid)
      OfTid[symDim(Coord)] = OfTid[symDim(Coord)] + Coef;
    else
      OfCtaid[symDim(Coord)] = OfCtaid[symDim(Coord)] + Coef;
  }
  for (unsigned D = 0; D < 3; ++D) {
    bool HasTid = !OfTid[D].Terms.empty(), HasCtaid = !OfCtaid[D].Terms.empty();
    if (HasTid && HasCtaid && OfCtaid[D] == OfTid[D] * IndexPoly::symbol(symNtid(D))) {
      Form.Digits.push_back({IndexDigit::Global, D, OfTid[D]});
      continue;
    }
    if (HasTid)
      Form.Digits.push_back({IndexDigit::Thread, D, OfTid[D]});
    if (HasCtaid)
      Form.Digits.push_back({IndexDigit::Block, D, OfCtaid[D]});
  }
  if (!OfIter.Terms.empty())
    Form.Digits.push_back({IndexDigit::Iteration, 0, OfIter});
  return Form;
}

int kfuse::sregSymbol(const Value *V) {
  auto *II = dyn_cast<IntrinsicInst>(V);
  if (!II)
    return -1;
  switch (II->getIntrinsicID()) {
  case Intrinsic::nvvm_read_ptx_sreg_tid_x: return symTid(0);
  case Intrinsic::nvvm_read_ptx_sreg_tid_y: return symTid(1);
  case Intrinsic::nvvm_read_ptx_sreg_tid_z: return symTid(2);
  case Intrinsic::nvvm_read_ptx_sreg_ntid_x: return symNtid(0);
  case Intrinsic::nvvm_read_ptx_sreg_ntid_y: return symNtid(1);
  case Intrinsic::nvvm_read_ptx_sreg_ntid_z: return symNtid(2);
  case Intrinsic::nvvm_read_ptx_sreg_ctaid_x: return symCtaid(0);
  case Intrinsic::nvvm_read_ptx_sreg_ctaid_y: return symCtaid(1);
  case Intrinsic::nvvm_read_ptx_sreg_ctaid_z: return symCtaid(2);
  case Intrinsic::nvvm_read_ptx_sreg_nctaid_x: return symNctaid(0);
  case Intrinsic::nvvm_read_ptx_sreg_nctaid_y: return symNctaid(1);
  case Intrinsic::nvvm_read_ptx_sreg_nctaid_z: return symNctaid(2);
  default:
    return -1;
  }
}

unsigned kfuse::sregIntrinsic(int Sym) {
  static const Intrinsic::ID Ids[3][4] = {
      {Intrinsic::nvvm_read_ptx_sreg_tid_x, Intrinsic::nvvm_read_ptx_sreg_ntid_x,
       Intrinsic::nvvm_read_ptx_sreg_ctaid_x, Intrinsic::nvvm_read_ptx_sreg_nctaid_x},
      {Intrinsic::nvvm_read_ptx_sreg_tid_y, Intrinsic::nvvm_read_ptx_sreg_ntid_y,
       Intrinsic::nvvm_read_ptx_sreg_ctaid_y, Intrinsic::nvvm_read_ptx_sreg_nctaid_y},
      {Intrinsic::nvvm_read_ptx_sreg_tid_z, Intrinsic::nvvm_read_ptx_sreg_ntid_z,
       Intrinsic::nvvm_read_ptx_sreg_ctaid_z, Intrinsic::nvvm_read_ptx_sreg_nctaid_z}};
  return Ids[symDim(Sym)][Sym % SymDimStride];
}

namespace {
/// Opaque quotients met while converting one index: `a / b` and `a /u b`,
/// each its own symbol SymQuot0 + k, keyed by signedness and operands.
/// The state of one conversion: its quotients, and the phis it has
/// converted (std::nullopt while in progress, so a cycle ends there).
struct QuotientTable {
  std::map<std::tuple<bool, const SCEV *, const SCEV *>, int> Quots;
  std::map<const PHINode *, std::optional<IndexPoly>> Phis;
  /// polyOf's CtaidBits, or null where a truncated block index is refused.
  unsigned *CtaidBits = nullptr;
  /// The outer loop of a nest of grid-stride loops, or null (polyOf).
  const Loop *Outer = nullptr;
};
} // namespace

static std::optional<IndexPoly> polyOfImpl(const Function &F, ScalarEvolution &SE,
                                           const SCEV *S, QuotientTable &Q, const Loop *Grid,
                                           unsigned Depth);

/// An `int` or `unsigned` variable that the optimiser keeps in 64 bits,
/// each trip extending its low half before adding the step: cooperative
/// groups' `for (int i = grid.thread_rank(); i < n; i += grid.size())`,
/// whose rank and size are 64-bit. The header phi \p Phi of \p L whose next
/// value is ext(trunc(Phi to i32)) + Step, Step invariant in L: (Start,
/// Step, whether the extension is unsigned). While every value stays below
/// 2^31 (2^32 unsigned), which a manifest guard checks (GridStride::Narrow),
/// the variable is Start + Step * k.
static std::optional<std::tuple<const SCEV *, const SCEV *, bool>>
narrowedIV(ScalarEvolution &SE, const Loop *L, const PHINode &Phi) {
  const BasicBlock *Pre = L->getLoopPreheader(), *Latch = L->getLoopLatch();
  if (!Pre || !Latch || Phi.getParent() != L->getHeader() || Phi.getNumIncomingValues() != 2 ||
      !Phi.getType()->isIntegerTy(64) || !SE.isSCEVable(Phi.getType()))
    return std::nullopt;
  const auto *Next = dyn_cast<SCEVAddExpr>(SE.getSCEV(Phi.getIncomingValueForBlock(Latch)));
  if (!Next || Next->getNumOperands() != 2)
    return std::nullopt;
  for (unsigned I = 0; I < 2; ++I) {
    const auto *Ext = dyn_cast<SCEVIntegralCastExpr>(Next->getOperand(I));
    bool Unsigned = isa<SCEVZeroExtendExpr>(Next->getOperand(I));
    if (!Unsigned && !isa<SCEVSignExtendExpr>(Next->getOperand(I)))
      continue;
    const auto *Tr = dyn_cast<SCEVTruncateExpr>(Ext->getOperand());
    const auto *U = Tr ? dyn_cast<SCEVUnknown>(Tr->getOperand()) : nullptr;
    const SCEV *Step = Next->getOperand(1 - I);
    if (U && U->getValue() == &Phi && Tr->getType()->isIntegerTy(32) &&
        SE.isLoopInvariant(Step, L))
      return std::make_tuple(SE.getSCEV(Phi.getIncomingValueForBlock(Pre)), Step, Unsigned);
  }
  return std::nullopt;
}

/// Calls \p Visit on every load of by-value parameter \p A, reached through
/// constant-offset GEPs; false when a use is anything else or \p Visit
/// returns false.
static bool forEachByValLoad(const Argument &A, function_ref<bool(const LoadInst &)> Visit) {
  SmallVector<const Value *, 8> Work{&A};
  SmallPtrSet<const Value *, 8> Seen;
  while (!Work.empty()) {
    const Value *V = Work.pop_back_val();
    if (!Seen.insert(V).second)
      continue;
    for (const User *U : V->users()) {
      if (auto *LI = dyn_cast<LoadInst>(U)) {
        if (!Visit(*LI))
          return false;
        continue;
      }
      if (auto *GEP = dyn_cast<GetElementPtrInst>(U); GEP && GEP->hasAllConstantIndices()) {
        Work.push_back(GEP);
        continue;
      }
      return false;
    }
  }
  return true;
}

/// Whether nothing writes by-value parameter \p A: every use, through
/// constant-offset addresses, is a load.
bool kfuse::readOnlyByVal(const Argument &A) {
  return forEachByValLoad(A, [](const LoadInst &LI) { return LI.isSimple(); });
}

bool kfuse::fieldsOf(Type *T, uint64_t Base, const DataLayout &DL,
                     SmallVectorImpl<std::pair<uint64_t, Type *>> &Out, unsigned Max) {
  if (auto *ST = dyn_cast<StructType>(T)) {
    const StructLayout *SL = DL.getStructLayout(ST);
    for (unsigned I = 0; I < ST->getNumElements(); ++I)
      if (!fieldsOf(ST->getElementType(I), Base + SL->getElementOffset(I), DL, Out, Max))
        return false;
    return true;
  }
  if (auto *AT = dyn_cast<ArrayType>(T)) {
    uint64_t Size = DL.getTypeAllocSize(AT->getElementType());
    for (uint64_t I = 0; I < AT->getNumElements(); ++I)
      if (Out.size() > Max || !fieldsOf(AT->getElementType(), Base + I * Size, DL, Out, Max))
        return false;
    return true;
  }
  Out.push_back({Base, T});
  return Out.size() <= Max;
}

/// Most field byte ranges of a shared struct with padding (the manifest's
/// `equal` line holds at most this many), and most fields walked to find them.
static constexpr unsigned MaxFieldRanges = 16, MaxByValFields = 256;

/// Which bytes of by-value parameter \p A the fused kernel may read from a
/// copy other than the launch's own (ParamInfo::ByValShared): nullopt when
/// none (it is written, a load reaches padding, or its fields are too many
/// to list); else the struct's field bytes as ranges, empty when it has no
/// padding.
static std::optional<SmallVector<std::pair<uint32_t, uint32_t>, 4>>
sharedByValBytes(const Argument &A, std::string &Why) {
  Why = "the kernel writes it or takes its address";
  if (!readOnlyByVal(A))
    return std::nullopt;
  Why = "its fields are too many to compare one by one";
  const DataLayout &DL = A.getParent()->getDataLayout();
  Type *T = A.getParamByValType();
  SmallVector<std::pair<uint64_t, Type *>, 16> Fields;
  if (!fieldsOf(T, 0, DL, Fields, MaxByValFields))
    return std::nullopt;
  SmallVector<std::pair<uint32_t, uint32_t>, 4> Bytes;
  for (auto [Off, FT] : Fields) {
    uint64_t Size = DL.getTypeStoreSize(FT);
    if (Size == 0)
      continue;
    if (Off + Size > UINT32_MAX)
      return std::nullopt;
    if (!Bytes.empty() && Bytes.back().second + 1 == Off)
      Bytes.back().second = uint32_t(Off + Size - 1);
    else
      Bytes.push_back({uint32_t(Off), uint32_t(Off + Size - 1)});
  }
  uint64_t All = DL.getTypeAllocSize(T);
  if (All == 0 || (Bytes.size() == 1 && Bytes[0].first == 0 && Bytes[0].second + 1 == All))
    return SmallVector<std::pair<uint32_t, uint32_t>, 4>();
  if (Bytes.empty() || Bytes.size() > MaxFieldRanges)
    return std::nullopt;
  Why = "the kernel loads bytes of its padding";
  // Every load within one range: it reads no padding byte, whose value the
  // runtime's comparison leaves open.
  bool Within = forEachByValLoad(A, [&](const LoadInst &LI) {
    APInt Off(DL.getIndexTypeSizeInBits(LI.getPointerOperandType()), 0);
    const Value *Base = LI.getPointerOperand()->stripAndAccumulateConstantOffsets(DL, Off, true);
    uint64_t Size = DL.getTypeStoreSize(LI.getType());
    if (Base != &A || Off.isNegative() || Size == 0)
      return false;
    uint64_t Lo = Off.getZExtValue(), Hi = Lo + Size - 1;
    return any_of(Bytes, [&](auto R) { return R.first <= Lo && Hi <= R.second; });
  });
  if (!Within)
    return std::nullopt;
  return Bytes;
}

/// The by-value parameter of \p F whose bytes at a constant offset \p LI
/// loads as an integer (`p.nx`), with that offset in \p Off; else null.
static const Argument *byValFieldOf(const Function &F, const LoadInst &LI, uint64_t &Off) {
  if (!LI.isSimple() || !LI.getType()->isIntegerTy())
    return nullptr;
  const DataLayout &DL = F.getDataLayout();
  const Value *Src = LI.getPointerOperand();
  APInt At(DL.getIndexTypeSizeInBits(Src->getType()), 0);
  const auto *A = dyn_cast<Argument>(Src->stripAndAccumulateConstantOffsets(DL, At, true));
  if (!A || A->getParent() != &F || !A->hasByValAttr() || At.isNegative())
    return nullptr;
  Off = At.getZExtValue();
  return A;
}

/// "by-value parameter 1 ('p'), a Params": \p A and its struct, for remarks.
/// Whether \p A is a lambda's closure: clang names the class of a lambda
/// `class.anon` (`class.anon.0`, ... for more).
static bool isClosure(const Argument &A) {
  auto *ST = dyn_cast<StructType>(A.getParamByValType());
  if (!ST || !ST->hasName())
    return false;
  StringRef Name = ST->getName();
  return Name.consume_front("class.anon") && (Name.empty() || Name.front() == '.');
}

static std::string byValText(const Function &F, const Argument &A) {
  std::string Text = "by-value " + paramText(F, A.getArgNo());
  if (isClosure(A))
    return Text + ", a lambda's closure";
  if (auto *ST = dyn_cast<StructType>(A.getParamByValType()); ST && ST->hasName()) {
    StringRef Name = ST->getName();
    Name.consume_front("struct.") || Name.consume_front("class.");
    Text += Name.starts_with("anon") && (Name.size() == 4 || Name[4] == '.')
                ? ", an unnamed struct"
                : ", a " + Name.str();
  }
  return Text;
}

/// "the integer at byte 8 of by-value parameter 1 ('p'), a Params, which the
/// kernel changes" when \p S reads an integer field of a by-value aggregate
/// parameter that the kernel writes (`p.nx += 1`), which an index
/// polynomial cannot name (fieldSymbol); "" otherwise.
static std::string byValFieldText(const Function &F, const SCEV *S) {
  std::string Text;
  SCEVExprContains(S, [&](const SCEV *X) {
    const auto *U = dyn_cast<SCEVUnknown>(X);
    const auto *LI = U ? dyn_cast<LoadInst>(U->getValue()) : nullptr;
    uint64_t Off = 0;
    const Argument *A = LI && Text.empty() ? byValFieldOf(F, *LI, Off) : nullptr;
    if (!A || readOnlyByVal(*A))
      return false;
    Text = "the integer at byte " + std::to_string(Off) + " of " + byValText(F, *A) +
           ", which the kernel changes";
    return true;
  });
  return Text;
}

std::optional<int> kfuse::fieldSymbol(const Function &F, const Value *V) {
  const auto *LI = dyn_cast<LoadInst>(V);
  uint64_t Off = 0;
  const Argument *A = LI ? byValFieldOf(F, *LI, Off) : nullptr;
  if (!A)
    return std::nullopt;
  unsigned Bytes = LI->getType()->getIntegerBitWidth() / 8;
  if (!isPowerOf2_32(Bytes) || Bytes > 8 || LI->getType()->getIntegerBitWidth() % 8 ||
      A->getArgNo() >= MaxFieldParam || Off + Bytes > MaxFieldOffset ||
      Off + Bytes > F.getDataLayout().getTypeAllocSize(A->getParamByValType()) ||
      !readOnlyByVal(*A))
    return std::nullopt;
  return SymField0 + fieldCode(A->getArgNo(), unsigned(Off), Log2_32(Bytes));
}

/// The global coordinate of dimension \p D, ctaid.d * ntid.d + tid.d.
static IndexPoly globalCoordinate(unsigned D) {
  return IndexPoly::symbol(symCtaid(D)) * IndexPoly::symbol(symNtid(D)) +
         IndexPoly::symbol(symTid(D));
}

int kfuse::globalDim(const IndexPoly &P) {
  for (unsigned D = 0; D < 3; ++D)
    if (P == globalCoordinate(D))
      return int(D);
  return -1;
}

/// The thread's rank in the whole grid, x fastest: cooperative groups'
/// `this_grid().thread_rank()`, ((ctaid.z*nctaid.y + ctaid.y)*nctaid.x +
/// ctaid.x) * ntid.x*ntid.y*ntid.z + (tid.z*ntid.y + tid.y)*ntid.x + tid.x.
/// Each thread has its own in [0, threads of the grid).
static IndexPoly gridRank() {
  auto S = [](int Sym) { return IndexPoly::symbol(Sym); };
  IndexPoly Block = (S(symCtaid(2)) * S(symNctaid(1)) + S(symCtaid(1))) * S(symNctaid(0)) +
                    S(symCtaid(0));
  IndexPoly Thread = (S(symTid(2)) * S(symNtid(1)) + S(symTid(1))) * S(symNtid(0)) + S(symTid(0));
  return Block * S(symNtid(0)) * S(symNtid(1)) * S(symNtid(2)) + Thread;
}

/// The symbol of quotient (\p A / \p B); every index that names the same
/// quotient gets the same symbol, so `(a / b) * b + a % b` cancels to a.
static IndexPoly quotient(QuotientTable &Q, bool Signed, const SCEV *A, const SCEV *B) {
  auto [It, New] = Q.Quots.try_emplace({Signed, A, B}, SymQuot0 + int(Q.Quots.size()));
  return IndexPoly::symbol(It->second);
}

static std::optional<IndexPoly> polyOfImpl(const Function &F, ScalarEvolution &SE,
                                           const SCEV *S, QuotientTable &Q, const Loop *Grid,
                                           unsigned Depth) {
  if (Depth > 32)
    return std::nullopt;
  if (auto *AR = dyn_cast<SCEVAddRecExpr>(S)) {
    // {a,+,b} over the grid-stride loop: a + b * k, k its iteration count;
    // over the outer loop of a nest, a + b * k'.
    bool InOuter = Q.Outer && AR->getLoop() == Q.Outer;
    if (!Grid || (AR->getLoop() != Grid && !InOuter) || !AR->isAffine())
      return std::nullopt;
    auto A = polyOfImpl(F, SE, AR->getStart(), Q, Grid, Depth + 1);
    auto B = polyOfImpl(F, SE, AR->getStepRecurrence(SE), Q, Grid, Depth + 1);
    if (!A || !B)
      return std::nullopt;
    return *A + *B * IndexPoly::symbol(InOuter ? SymOuterIter : SymIter);
  }
  if (auto *C = dyn_cast<SCEVConstant>(S)) {
    if (C->getAPInt().getSignificantBits() > 64)
      return std::nullopt;
    return IndexPoly::constant(C->getAPInt().getSExtValue());
  }
  if (auto *UD = dyn_cast<SCEVUDivExpr>(S))
    return quotient(Q, false, UD->getLHS(), UD->getRHS());
  if (auto *U = dyn_cast<SCEVUnknown>(S)) {
    Value *V = U->getValue();
    int Sym = sregSymbol(V);
    if (Sym >= 0)
      return IndexPoly::symbol(Sym);
    if (auto *A = dyn_cast<Argument>(V))
      if (A->getParent() == &F && A->getType()->isIntegerTy())
        return IndexPoly::symbol(SymParam0 + A->getArgNo());
    if (std::optional<int> Field = fieldSymbol(F, V))
      return IndexPoly::symbol(*Field);
    // The grid-stride loop's `int` variable kept in 64 bits (narrowedIV).
    if (auto *Phi = dyn_cast<PHINode>(V); Phi && Grid)
      if (auto N = narrowedIV(SE, Grid, *Phi)) {
        auto A = polyOfImpl(F, SE, std::get<0>(*N), Q, Grid, Depth + 1);
        auto B = polyOfImpl(F, SE, std::get<1>(*N), Q, Grid, Depth + 1);
        if (!A || !B)
          return std::nullopt;
        return *A + *B * IndexPoly::symbol(SymIter);
      }
    // A join of one index computed on each path (`sext i` on one side of a
    // boundary test and `zext nneg i` on the other, where the stores of
    // both sides became one): the polynomial they all have. Each phi is
    // converted once; a cycle through a loop's phi has none.
    if (auto *Phi = dyn_cast<PHINode>(V)) {
      auto [It, New] = Q.Phis.try_emplace(Phi, std::nullopt);
      if (!New)
        return It->second;
      std::optional<IndexPoly> Same;
      for (Value *In : Phi->incoming_values()) {
        auto P = SE.isSCEVable(In->getType())
                     ? polyOfImpl(F, SE, SE.getSCEV(In), Q, Grid, Depth + 1)
                     : std::nullopt;
        if (!P || (Same && *P != *Same))
          return std::nullopt;
        Same = P;
      }
      return Q.Phis[Phi] = Same;
    }
    // A signed quotient is a symbol of its own; a signed remainder is
    // a - (a / b) * b, exactly (C's division truncates), so a row and column
    // taken from a linear index by / and % rebuild it: row * b + col = a.
    auto *BO = dyn_cast<BinaryOperator>(V);
    if (!BO || (BO->getOpcode() != Instruction::SDiv && BO->getOpcode() != Instruction::SRem) ||
        !SE.isSCEVable(BO->getType()))
      return std::nullopt;
    // On a narrower copy of a value (`trunc nsw`, as InstCombine makes of
    // `j % 9 / 3`): the value itself, which the truncation kept.
    Value *X = BO->getOperand(0), *Y = BO->getOperand(1);
    auto *Tr = dyn_cast<TruncInst>(X);
    auto *YC = dyn_cast<ConstantInt>(Y);
    if (Tr && Tr->hasNoSignedWrap() && YC && SE.isSCEVable(Tr->getOperand(0)->getType())) {
      X = Tr->getOperand(0);
      Y = ConstantInt::get(X->getType(), YC->getValue().sext(X->getType()->getIntegerBitWidth()));
    }
    const SCEV *A = SE.getSCEV(X), *B = SE.getSCEV(Y);
    IndexPoly Quot = quotient(Q, true, A, B);
    if (BO->getOpcode() == Instruction::SDiv)
      return Quot;
    auto PA = polyOfImpl(F, SE, A, Q, Grid, Depth + 1), PB = polyOfImpl(F, SE, B, Q, Grid, Depth + 1);
    if (!PA || !PB)
      return std::nullopt;
    return *PA - Quot * *PB;
  }
  if (auto *Cast = dyn_cast<SCEVIntegralCastExpr>(S)) {
    // Truncation to fewer than 32 bits is a mask (`i & 15`, an unsigned
    // `i % 8`: ScalarEvolution's zext(trunc)), not an index that fits its
    // type: no polynomial, or the load would be taken to read t[i].
    unsigned W = Cast->getType()->getScalarSizeInBits();
    if (isa<SCEVTruncateExpr>(Cast) && W < 32) {
      // Except a thread or block index itself, 17 bits or more (`__mul24`,
      // `__umul24` of blockIdx.x: its low 24 bits): a thread index is below
      // 1024, and a block index below 2^(W-1) is itself, which the caller
      // guards (CtaidBits).
      auto P = Q.CtaidBits && W >= 17
                   ? polyOfImpl(F, SE, Cast->getOperand(), Q, Grid, Depth + 1)
                   : std::nullopt;
      if (!P || P->Terms.size() != 1 || P->Terms.begin()->second != 1 ||
          P->Terms.begin()->first.size() != 1)
        return std::nullopt;
      int Sym = P->Terms.begin()->first[0];
      if (Sym >= 3 * SymDimStride || !isCoordinate(Sym))
        return std::nullopt;
      if (Sym % SymDimStride == SymCtaid)
        Q.CtaidBits[symDim(Sym)] = std::min(Q.CtaidBits[symDim(Sym)], W);
      return P;
    }
    return polyOfImpl(F, SE, Cast->getOperand(), Q, Grid, Depth + 1);
  }
  bool IsAdd = isa<SCEVAddExpr>(S), IsMul = isa<SCEVMulExpr>(S);
  if (!IsAdd && !IsMul)
    return std::nullopt;
  IndexPoly R = IndexPoly::constant(IsAdd ? 0 : 1);
  for (const SCEV *Op : cast<SCEVNAryExpr>(S)->operands()) {
    auto P = polyOfImpl(F, SE, Op, Q, Grid, Depth + 1);
    if (!P)
      return std::nullopt;
    R = IsAdd ? R + *P : R * *P;
  }
  return R;
}

std::optional<IndexPoly> kfuse::polyOf(const Function &F, ScalarEvolution &SE,
                                       const SCEV *S, const Loop *Grid, unsigned *CtaidBits,
                                       const Loop *Outer) {
  QuotientTable Q;
  Q.CtaidBits = CtaidBits;
  Q.Outer = Outer;
  auto P = polyOfImpl(F, SE, S, Q, Grid, 0);
  if (!P)
    return std::nullopt;
  for (auto &[M, C] : P->Terms)
    if (!M.empty() && M.back() >= SymQuot0)
      return std::nullopt; // a quotient that does not cancel: no polynomial
  return P;
}

/// Coef * (g / Div) + Rest of an offset whose one quotient is the global x
/// index g over a constant Div > 1 (Access::Instance), else std::nullopt.
static std::optional<Access::InstanceIndex> instanceIndex(const Function &F,
                                                          ScalarEvolution &SE, const SCEV *S) {
  QuotientTable Q;
  auto P = polyOfImpl(F, SE, S, Q, nullptr, 0);
  if (!P || Q.Quots.size() != 1)
    return std::nullopt;
  auto &[Key, Sym] = *Q.Quots.begin();
  auto *Div = dyn_cast<SCEVConstant>(std::get<2>(Key));
  if (!Div || Div->getAPInt().getSignificantBits() > 32 || Div->getAPInt().getSExtValue() < 2)
    return std::nullopt;
  auto G = polyOf(F, SE, std::get<1>(Key));
  if (!G || *G != globalCoordinate(0))
    return std::nullopt;
  Access::InstanceIndex I;
  I.Div = Div->getAPInt().getSExtValue();
  for (auto &[M, C] : P->Terms) {
    if (M.empty())
      I.Rest = C;
    else if (M.size() == 1 && M[0] == Sym)
      I.Coef = C;
    else
      return std::nullopt;
  }
  if (I.Coef <= 0)
    return std::nullopt;
  return I;
}

/// Coef * (g / q) + f(g % q) of an offset whose quotients are of the
/// global x index g by constants: q the largest, the others of g by
/// divisors of q or of g's remainder g - q * (g / q) by any constant, and g
/// itself in it too. With g = q * m + t (g >= 0: the thread's place t in
/// instance m), g / d = (q / d) * m + t / d for d dividing q, and f is
/// evaluated at every t from 0 to q - 1 (Access::Record).
static std::optional<Access::InstanceRecord> instanceRecord(const Function &F,
                                                           ScalarEvolution &SE,
                                                           const SCEV *S) {
  QuotientTable Q;
  auto P = polyOfImpl(F, SE, S, Q, nullptr, 0);
  if (!P || Q.Quots.empty() || Q.Quots.size() > 4)
    return std::nullopt;
  const IndexPoly G = globalCoordinate(0);
  // Each quotient: its divisor, and whether its dividend is g (else g's
  // remainder by the largest divisor of g, found once that one is known).
  struct Quot {
    int Sym;
    int64_t D;
    std::optional<IndexPoly> Dividend;
  };
  std::vector<Quot> Qs;
  int64_t Main = 0;
  int MainSym = -1;
  for (auto &[Key, Sym] : Q.Quots) {
    auto *Div = dyn_cast<SCEVConstant>(std::get<2>(Key));
    if (!Div || Div->getAPInt().getSignificantBits() > 16 || Div->getAPInt().getSExtValue() < 2)
      return std::nullopt;
    QuotientTable Inner = Q;
    Qs.push_back({Sym, Div->getAPInt().getSExtValue(),
                  polyOfImpl(F, SE, std::get<1>(Key), Inner, nullptr, 0)});
    if (!Qs.back().Dividend)
      return std::nullopt;
    if (*Qs.back().Dividend == G && Qs.back().D > Main)
      Main = Qs.back().D, MainSym = Sym;
  }
  if (MainSym < 0 || Main > 256)
    return std::nullopt;
  const IndexPoly Rem = G - IndexPoly::constant(Main) * IndexPoly::symbol(MainSym);
  // Each symbol's value as a * m + b(t).
  auto Place = [&](int Sym, int64_t T, int64_t &A, int64_t &B) {
    if (Sym == MainSym)
      return A = 1, B = 0, true;
    for (const Quot &X : Qs) {
      if (X.Sym != Sym)
        continue;
      if (*X.Dividend == G && Main % X.D == 0)
        return A = Main / X.D, B = T / X.D, true;
      if (*X.Dividend == Rem)
        return A = 0, B = T / X.D, true;
      return false;
    }
    return false;
  };
  // g's two terms, tid.x and ntid.x * ctaid.x, with one coefficient.
  int64_t NC = 0;
  for (auto &[M, K] : P->Terms)
    if (M.size() == 2 && M[0] == SymNtid && M[1] == SymCtaid)
      NC = K;
  Access::InstanceRecord R;
  R.Div = Main;
  int64_t Coef = 0;
  bool CoefSet = false;
  for (int64_t T = 0; T < Main; ++T) {
    int64_t MCoef = 0, Rest = 0, GCoef = 0;
    for (auto &[M, K] : P->Terms) {
      if (M.empty()) {
        Rest += K;
      } else if (M.size() == 1 && M[0] == SymTid) {
        GCoef += K; // with K * ntid * ctaid below: K * g
      } else if (M.size() == 2 && M[0] == SymNtid && M[1] == SymCtaid) {
        continue;
      } else if (M.size() == 1 && M[0] >= SymQuot0) {
        int64_t A, B;
        if (!Place(M[0], T, A, B))
          return std::nullopt;
        MCoef += K * A;
        Rest += K * B;
      } else {
        return std::nullopt;
      }
    }
    // g = Main * m + t.
    if (NC != GCoef)
      return std::nullopt;
    MCoef += GCoef * Main;
    Rest += GCoef * T;
    if (CoefSet && MCoef != Coef)
      return std::nullopt;
    Coef = MCoef, CoefSet = true;
    R.Lo = T ? std::min(R.Lo, Rest) : Rest;
    R.Hi = T ? std::max(R.Hi, Rest) : Rest;
    if (T == 0)
      R.First = Rest;
    R.Last = Rest;
  }
  if (Coef <= 0)
    return std::nullopt;
  R.Coef = Coef;
  return R;
}

namespace {
/// Inclusive bounds of a value over every thread of the grid, as manifest
/// expressions; NonNeg when Lo is known to be at least 0.
struct ExprRange {
  std::string Lo, Hi;
  bool NonNeg = false;
};
} // namespace

static bool decimal(const std::string &A) {
  return !A.empty() && A.size() < 10 && std::all_of(A.begin(), A.end(), ::isdigit);
}
/// Manifest expression a + b, and k * a for k > 0, with zeros and constants
/// folded away.
static std::string plusExpr(const std::string &A, const std::string &B) {
  if (decimal(A) && decimal(B))
    return std::to_string(std::stoull(A) + std::stoull(B));
  return A == "0" ? B : B == "0" ? A : A + "+" + B;
}
static std::string timesExpr(uint64_t K, const std::string &A) {
  if (A == "0" || K == 1)
    return A;
  if (decimal(A) && K < (uint64_t(1) << 31))
    return std::to_string(K * std::stoull(A));
  int Depth = 0;
  bool Sum = false; // a + or - outside parentheses: needs them
  for (char C : A) {
    Depth += C == '(' ? 1 : C == ')' ? -1 : 0;
    Sum |= Depth == 0 && (C == '+' || C == '-');
  }
  return std::to_string(K) + "*" + (Sum ? "(" + A + ")" : A);
}

/// Whether \p P names integer parameters and fields of by-value structs
/// only: the same for every thread of a launch.
static bool launchInvariant(const IndexPoly &P) {
  for (auto &[M, C] : P.Terms)
    for (int S : M)
      if (!isParamSymbol(S) && !isFieldSymbol(S))
        return false;
  return true;
}

/// Access::Row of an offset, or std::nullopt: Coef * g + QCoef * (g / Div)
/// + Rest with g = ctaid.x*ntid.x + tid.x, one quotient, of g by Div >= 1
/// free of coordinates, constant Coef and QCoef > 0, and Rest free of
/// coordinates. The footprint goes to GatherLo and GatherHi: the offset
/// grows with g (a higher g is at least Coef bytes further on), so the
/// bytes lie from Rest (g = 0) to the last thread's.
static std::optional<Access::RowIndex> rowIndex(const Function &F, ScalarEvolution &SE,
                                                const SCEV *S, Access &A) {
  QuotientTable Q;
  auto P = polyOfImpl(F, SE, S, Q, nullptr, 0);
  if (!P || Q.Quots.size() != 1)
    return std::nullopt;
  auto &[Key, Sym] = *Q.Quots.begin();
  QuotientTable Inner;
  auto G = polyOfImpl(F, SE, std::get<1>(Key), Inner, nullptr, 0);
  auto Div = polyOfImpl(F, SE, std::get<2>(Key), Inner, nullptr, 0);
  const IndexPoly Global = globalCoordinate(0);
  if (!G || !Div || !Inner.Quots.empty() || *G != Global || !launchInvariant(*Div))
    return std::nullopt;
  Access::RowIndex R;
  IndexPoly Rest;
  for (auto &[M, C] : P->Terms) {
    if (M.size() == 1 && M[0] == Sym)
      R.QCoef = C;
    else if (M.size() == 1 && M[0] == SymTid)
      R.Coef = C;
    else if (!(M.size() == 2 && M[0] == SymNtid && M[1] == SymCtaid))
      Rest.Terms[M] = C;
  }
  if (R.QCoef <= 0 || R.Coef <= 0 || *P != IndexPoly::constant(R.Coef) * Global +
                                               IndexPoly::constant(R.QCoef) *
                                                   IndexPoly::symbol(Sym) +
                                               Rest ||
      !launchInvariant(Rest - IndexPoly::constant(Rest.constantTerm())))
    return std::nullopt;
  R.Div = *Div;
  R.Rest = Rest;
  std::string Last = "(max(bx*gx,1)-1)";
  A.GatherLo = Rest.toExpr();
  A.GatherHi = plusExpr(plusExpr(timesExpr(uint64_t(R.Coef), Last),
                                 timesExpr(uint64_t(R.QCoef),
                                           "(" + Last + "/(" + R.Div.toExpr() + "))")),
                        plusExpr(Rest.toExpr(), std::to_string(A.Bytes)));
  A.Offset = IndexPoly::constant(R.Coef) * Global +
             IndexPoly::constant(R.QCoef) * IndexPoly::symbol(SymRow) + Rest;
  return R;
}

/// Access::Span of an offset, or std::nullopt: {Coef * g + Rest, +, Step}
/// over an outermost loop whose trip count is no constant but Count, a
/// polynomial in integer parameters (the loop runs k from 0 while k < Count).
/// The footprint goes to GatherLo and GatherHi: from the first thread's
/// record to the last's, up or down from Rest as Coef's sign has it, each
/// record Step * Count bytes long.
static std::optional<Access::SpanIndex> spanIndex(const Function &F, ScalarEvolution &SE,
                                                  const SCEV *S, Access &A) {
  auto *AR = dyn_cast<SCEVAddRecExpr>(S);
  if (!AR || !AR->isAffine() || AR->getLoop()->getParentLoop())
    return std::nullopt;
  const Loop *L = AR->getLoop();
  auto *Step = dyn_cast<SCEVConstant>(AR->getStepRecurrence(SE));
  if (!Step || !Step->getAPInt().isStrictlyPositive() || Step->getAPInt().getActiveBits() > 31 ||
      SE.getSmallConstantTripCount(L))
    return std::nullopt;
  const SCEV *Taken = SE.getBackedgeTakenCount(L);
  if (isa<SCEVCouldNotCompute>(Taken))
    return std::nullopt;
  auto Count = polyOf(F, SE, SE.getAddExpr(Taken, SE.getOne(Taken->getType())));
  auto Base = polyOf(F, SE, AR->getStart(), nullptr, A.CtaidBits);
  if (!Count || !Base || !launchInvariant(*Count - IndexPoly::constant(Count->constantTerm())))
    return std::nullopt;
  // Base = Coef * (ntid.x * ctaid.x + tid.x) + Rest: Coef from the terms
  // with tid.x, and the rest free of coordinates.
  Access::SpanIndex R;
  R.Step = Step->getAPInt().getSExtValue();
  for (auto &[M, C] : Base->Terms) {
    auto It = llvm::find(M, int(SymTid));
    if (It == M.end())
      continue;
    TermMap::Monomial N(M.begin(), It);
    N.append(It + 1, M.end());
    R.Coef.Terms.append(std::move(N), C);
  }
  R.Coef.Terms.normalise();
  const IndexPoly Global = globalCoordinate(0);
  R.Rest = *Base - R.Coef * Global;
  R.Count = *Count;
  if (R.Coef.Terms.empty() || !launchInvariant(R.Coef - IndexPoly::constant(R.Coef.constantTerm())) ||
      !launchInvariant(R.Rest - IndexPoly::constant(R.Rest.constantTerm())))
    return std::nullopt;
  // Coef's sign is the launch's: the threads' records run up or down from
  // Rest (a read-only buffer gets no guard, so the range holds for both).
  std::string Spread = "(" + R.Coef.toExpr() + ")*(max(bx*gx,1)-1)";
  A.GatherLo = plusExpr(R.Rest.toExpr(), "min(0," + Spread + ")");
  A.GatherHi = plusExpr(R.Rest.toExpr(), "max(0," + Spread + ")+" +
                                             timesExpr(uint64_t(R.Step),
                                                       "(max(" + R.Count.toExpr() + ",1)-1)") +
                                             "+" + std::to_string(A.Bytes));
  A.Offset = R.Coef * Global + R.Rest + IndexPoly::constant(R.Step) * IndexPoly::symbol(SymSpan);
  return R;
}

std::string Access::CoordBound::text() const { return IndexPoly::symbol(symbol()).toExpr(); }

std::string kfuse::minUnsignedParam(const std::string &H, unsigned K, unsigned Param) {
  return minUnsignedExpr(H, K, "s" + std::to_string(Param));
}

std::string kfuse::minUnsignedExpr(const std::string &H, unsigned K, const std::string &P) {
  std::string KP = K == 1 ? P : std::to_string(K) + "*" + P;
  return "max(min(" + H + "," + KP + "),min(" + H + ",-" + P + "*(" + H + ")))";
}

static std::optional<ExprRange> rangeOf(const Function &F, ScalarEvolution &SE,
                                        const SCEV *S, unsigned Depth = 0);

/// The range of an unsigned remainder, which ScalarEvolution spells
/// X + (-1 * (X /u B) * B) with X's terms spread over the sum: [0, X] for X
/// >= 0, and below B too: min(X + 1, B) - 1, B a constant or an unsigned
/// parameter (minUnsignedParam).
static std::optional<ExprRange> uremRange(const Function &F, ScalarEvolution &SE,
                                          const SCEVAddExpr *Add, unsigned Depth) {
  for (unsigned I = 0; I < Add->getNumOperands(); ++I) {
    // -1 * (X /u B) * B, or -C * (X /u C) for a constant C.
    auto *Mul = dyn_cast<SCEVMulExpr>(Add->getOperand(I));
    if (!Mul || !isa<SCEVConstant>(Mul->getOperand(0)))
      continue;
    const SCEVUDivExpr *UD = nullptr;
    const SCEV *B = nullptr;
    const APInt &K = cast<SCEVConstant>(Mul->getOperand(0))->getAPInt();
    if (Mul->getNumOperands() == 3 && K.isAllOnes()) {
      UD = dyn_cast<SCEVUDivExpr>(Mul->getOperand(1));
      B = Mul->getOperand(2);
      if (!UD) {
        UD = dyn_cast<SCEVUDivExpr>(Mul->getOperand(2));
        B = Mul->getOperand(1);
      }
    } else if (Mul->getNumOperands() == 2) {
      UD = dyn_cast<SCEVUDivExpr>(Mul->getOperand(1));
      auto *C = UD ? dyn_cast<SCEVConstant>(UD->getRHS()) : nullptr;
      if (!C || C->getAPInt() != -K)
        continue;
      B = C;
    }
    if (!UD || UD->getRHS() != B)
      continue;
    SmallVector<const SCEV *, 4> Rest;
    for (unsigned J = 0; J < Add->getNumOperands(); ++J)
      if (J != I)
        Rest.push_back(Add->getOperand(J));
    if (SE.getAddExpr(Rest) != UD->getLHS())
      continue;
    auto X = rangeOf(F, SE, UD->getLHS(), Depth + 1);
    if (!X || !X->NonNeg)
      return std::nullopt;
    if (auto *C = dyn_cast<SCEVConstant>(B)) {
      if (!C->getAPInt().isStrictlyPositive() || C->getAPInt().getActiveBits() > 62)
        return std::nullopt;
      return ExprRange{"0",
                       "min(" + X->Hi + "," + std::to_string(C->getAPInt().getZExtValue() - 1) + ")",
                       true};
    }
    auto *U = dyn_cast<SCEVUnknown>(B);
    auto *Arg = U ? dyn_cast<Argument>(U->getValue()) : nullptr;
    if (!Arg || Arg->getParent() != &F)
      return ExprRange{"0", X->Hi, true};
    return ExprRange{"0", minUnsignedParam(plusExpr(X->Hi, "1"), 1, Arg->getArgNo()) + "-1",
                     true};
  }
  return std::nullopt;
}

/// Bounds of \p S over the grid where polyOf fails because of a remainder
/// or a mask: `srem A, B` (which ScalarEvolution leaves opaque) with A >= 0
/// lies in [0, min(A, |B| - 1)], an unsigned remainder as uremRange says,
/// the low K bits of a value (zext of a truncation) in [0, 2^K - 1]. Sums,
/// products by positive constants and extensions of such values, and
/// polynomials, combine. std::nullopt when any part is unbounded.
static std::optional<ExprRange> rangeOf(const Function &F, ScalarEvolution &SE,
                                        const SCEV *S, unsigned Depth) {
  if (Depth > 8)
    return std::nullopt;
  if (auto P = polyOf(F, SE, S)) {
    auto R = P->gridRange();
    if (!R)
      return std::nullopt;
    return ExprRange{R->first.toExpr(), R->second.toExpr(),
                     R->first.isConstant() && R->first.constantTerm() >= 0};
  }
  if (auto *Ext = dyn_cast<SCEVSignExtendExpr>(S))
    return rangeOf(F, SE, Ext->getOperand(), Depth + 1);
  if (auto *Ext = dyn_cast<SCEVZeroExtendExpr>(S)) {
    // The low K bits of anything (an unsigned remainder by 2^K, a mask):
    // [0, 2^K - 1].
    if (auto *Tr = dyn_cast<SCEVTruncateExpr>(Ext->getOperand())) {
      unsigned K = Tr->getType()->getScalarSizeInBits();
      if (K >= 63)
        return std::nullopt;
      return ExprRange{"0", std::to_string((uint64_t(1) << K) - 1), true};
    }
    auto R = rangeOf(F, SE, Ext->getOperand(), Depth + 1);
    if (!R || !R->NonNeg)
      return std::nullopt; // zero extension of a negative value changes it
    return R;
  }
  if (auto *Add = dyn_cast<SCEVAddExpr>(S))
    if (auto R = uremRange(F, SE, Add, Depth))
      return R;
  if (auto *Add = dyn_cast<SCEVAddExpr>(S)) {
    ExprRange Sum{"0", "0", true};
    for (const SCEV *Op : Add->operands()) {
      auto R = rangeOf(F, SE, Op, Depth + 1);
      if (!R)
        return std::nullopt;
      Sum = {plusExpr(Sum.Lo, R->Lo), plusExpr(Sum.Hi, R->Hi), Sum.NonNeg && R->NonNeg};
    }
    return Sum;
  }
  if (auto *Mul = dyn_cast<SCEVMulExpr>(S)) {
    if (Mul->getNumOperands() != 2)
      return std::nullopt;
    auto *K = dyn_cast<SCEVConstant>(Mul->getOperand(0));
    if (!K || !K->getAPInt().isStrictlyPositive() || K->getAPInt().getActiveBits() > 32)
      return std::nullopt;
    auto R = rangeOf(F, SE, Mul->getOperand(1), Depth + 1);
    if (!R)
      return std::nullopt;
    uint64_t KV = K->getAPInt().getZExtValue();
    return ExprRange{timesExpr(KV, R->Lo), timesExpr(KV, R->Hi), R->NonNeg};
  }
  // A quotient by a positive constant of a value that is not negative:
  // from Lo / C to Hi / C (the manifest's / rounds down).
  auto Quotient = [&](const SCEV *X, const APInt &C) -> std::optional<ExprRange> {
    if (!C.isStrictlyPositive() || C.getActiveBits() > 32)
      return std::nullopt;
    auto R = rangeOf(F, SE, X, Depth + 1);
    if (!R || !R->NonNeg)
      return std::nullopt;
    std::string K = std::to_string(C.getZExtValue());
    return ExprRange{"((" + R->Lo + ")/" + K + ")", "((" + R->Hi + ")/" + K + ")", true};
  };
  if (auto *UD = dyn_cast<SCEVUDivExpr>(S))
    if (auto *C = dyn_cast<SCEVConstant>(UD->getRHS()))
      return Quotient(UD->getLHS(), C->getAPInt());
  auto *U = dyn_cast<SCEVUnknown>(S);
  auto *Rem = U ? dyn_cast<BinaryOperator>(U->getValue()) : nullptr;
  if (Rem && Rem->getOpcode() == Instruction::SDiv && SE.isSCEVable(Rem->getType()))
    if (auto *C = dyn_cast<ConstantInt>(Rem->getOperand(1)))
      return Quotient(SE.getSCEV(Rem->getOperand(0)), C->getValue());
  if (!Rem || Rem->getOpcode() != Instruction::SRem || !SE.isSCEVable(Rem->getType()))
    return std::nullopt;
  auto A = rangeOf(F, SE, SE.getSCEV(Rem->getOperand(0)), Depth + 1);
  if (!A || !A->NonNeg)
    return std::nullopt;
  // A srem B has the sign of A and |A srem B| < |B| (B = 0 is undefined).
  Value *BV = Rem->getOperand(1);
  if (auto *C = dyn_cast<ConstantInt>(BV)) {
    if (C->getValue().getSignificantBits() > 63 || C->isZero())
      return std::nullopt;
    uint64_t Abs = C->getValue().abs().getZExtValue();
    return ExprRange{"0", "min(" + A->Hi + "," + std::to_string(Abs - 1) + ")", true};
  }
  auto *Arg = dyn_cast<Argument>(BV);
  if (!Arg || Arg->getParent() != &F || !Arg->getType()->isIntegerTy())
    return std::nullopt;
  std::string P = "s" + std::to_string(Arg->getArgNo());
  return ExprRange{"0", "min(" + A->Hi + ",max(" + P + ",-" + P + ")-1)", true};
}

/// The parameter \p Ptr is based on, looking through GEPs and address space
/// casts; nullptr when it is not a parameter.
static Argument *baseParam(Value *Ptr) {
  Value *Obj = getUnderlyingObject(Ptr, /*MaxLookup=*/0);
  return dyn_cast<Argument>(Obj);
}

/// The byte offset of \p Ptr from the parameter \p Base, or null when
/// ScalarEvolution cannot describe it. An address space cast is a base of its
/// own for ScalarEvolution (`__ldg(&t[i])` loads through
/// `addrspacecast (gep t, i)`), so the offset is taken through each cast to
/// the pointer it casts, and the pieces are added up.
const SCEV *kfuse::offsetFromParam(ScalarEvolution &SE, Value *Ptr, const Argument *Base) {
  const SCEV *Off = nullptr;
  for (unsigned Depth = 0; Depth < 8; ++Depth) {
    const SCEV *PS = SE.getSCEV(Ptr);
    auto *BaseU = dyn_cast<SCEVUnknown>(SE.getPointerBase(PS));
    if (!BaseU)
      return nullptr;
    const SCEV *D = SE.getMinusSCEV(PS, BaseU);
    if (isa<SCEVCouldNotCompute>(D) || (Off && D->getType() != Off->getType()))
      return nullptr;
    Off = Off ? SE.getAddExpr(Off, D) : D;
    Value *B = BaseU->getValue();
    if (B == Base)
      return Off;
    auto *Cast = dyn_cast<AddrSpaceCastOperator>(B);
    if (!Cast)
      return nullptr;
    Ptr = Cast->getPointerOperand();
  }
  return nullptr;
}

/// (p, c) when \p P is s<p> + c, an integer parameter plus a constant.
static std::optional<std::pair<unsigned, int64_t>> paramPlusConst(const IndexPoly &P) {
  IndexPoly Param = P - IndexPoly::constant(P.constantTerm());
  if (Param.Terms.size() != 1 || Param.Terms.begin()->second != 1 ||
      Param.Terms.begin()->first.size() != 1 || !isParamSymbol(Param.Terms.begin()->first[0]))
    return std::nullopt;
  return std::make_pair(unsigned(Param.Terms.begin()->first[0] - SymParam0), P.constantTerm());
}

/// A bound written as an expression of integer parameters and fields (a
/// grid-stride loop's `i < w * h`, `i < 3 * n`, `i < (size_t)nx * ny`, a
/// check `if (i < w * h)`):
/// its polynomial, where each operation provably does not wrap, so that the
/// kernel's value is the polynomial's, as the manifest evaluates it over
/// the parameters sign-extended. An operation does not wrap when it says
/// so (`nsw`, which C's signed arithmetic carries) or when its operands are
/// too small to (a product of two sign-extended ints in 64 bits).
/// \p Bits receives a bound on the value's magnitude, |v| < 2^Bits.
static std::optional<IndexPoly> boundPoly(const Function &F, const Value *V, unsigned &Bits,
                                          unsigned Depth) {
  if (Depth > 8 || !V->getType()->isIntegerTy())
    return std::nullopt;
  const unsigned W = V->getType()->getIntegerBitWidth();
  if (const auto *C = dyn_cast<ConstantInt>(V)) {
    if (C->getValue().getSignificantBits() > 63)
      return std::nullopt;
    Bits = C->getValue().getSignificantBits();
    return IndexPoly::constant(C->getSExtValue());
  }
  if (const auto *A = dyn_cast<Argument>(V)) {
    if (A->getParent() != &F)
      return std::nullopt;
    Bits = W - 1;
    return IndexPoly::symbol(SymParam0 + int(A->getArgNo()));
  }
  if (std::optional<int> Field = fieldSymbol(F, V)) {
    Bits = W - 1;
    return IndexPoly::symbol(*Field);
  }
  if (const auto *X = dyn_cast<SExtInst>(V))
    return boundPoly(F, X->getOperand(0), Bits, Depth + 1);
  if (const auto *X = dyn_cast<ZExtInst>(V); X && X->hasNonNeg())
    return boundPoly(F, X->getOperand(0), Bits, Depth + 1);
  const auto *BO = dyn_cast<OverflowingBinaryOperator>(V);
  if (!BO)
    return std::nullopt;
  unsigned BA = 0, BB = 0;
  auto A = boundPoly(F, BO->getOperand(0), BA, Depth + 1);
  auto B = boundPoly(F, BO->getOperand(1), BB, Depth + 1);
  if (!A || !B)
    return std::nullopt;
  std::optional<IndexPoly> R;
  switch (BO->getOpcode()) {
  case Instruction::Add:
    R = *A + *B, Bits = std::max(BA, BB) + 1;
    break;
  case Instruction::Sub:
    R = *A - *B, Bits = std::max(BA, BB) + 1;
    break;
  case Instruction::Mul:
    R = *A * *B, Bits = BA + BB;
    break;
  case Instruction::Shl:
    if (!B->isConstant() || B->constantTerm() < 0 || B->constantTerm() > 32)
      return std::nullopt;
    R = *A * IndexPoly::constant(int64_t(1) << B->constantTerm());
    Bits = BA + unsigned(B->constantTerm());
    break;
  default:
    return std::nullopt;
  }
  if (!BO->hasNoSignedWrap() && Bits > W - 1)
    return std::nullopt;
  Bits = std::min(Bits, W - 1);
  return R;
}

/// Records, from the branches that dominate \p A, the bounds checks
/// `idx < s<p>` (or `idx >= s<p>` on the branch's false side, as in
/// `if (x >= w || y >= h) return;`): A.BoundParam when idx, scaled by the
/// access size, is the access offset; A.GlobalBound[d] when idx is the global
/// coordinate ctaid.d*ntid.d + tid.d; and the signed facts on each global
/// coordinate (A.MinG, A.MaxG, A.EveryBelow).
static void findBounds(Function &F, ScalarEvolution &SE, DominatorTree &DT,
                       PostDominatorTree &PDT, Access &A) {
  BasicBlock *BB = A.Inst->getParent();
  IndexPoly G[3];
  for (unsigned D = 0; D < 3; ++D)
    G[D] = globalCoordinate(D);
  // g_d != c and g_d != s<p> + c, applied once every bound is known.
  SmallVector<int64_t, 2> NotLow[3];
  SmallVector<std::pair<unsigned, int64_t>, 2> NotUp[3];
  for (DomTreeNode *N = DT.getNode(BB); N && N->getIDom(); N = N->getIDom()) {
    BasicBlock *D = N->getIDom()->getBlock();
    auto *Br = dyn_cast<BranchInst>(D->getTerminator());
    if (!Br || !Br->isConditional() || Br->getSuccessor(0) == Br->getSuccessor(1))
      continue;
    bool Taken;
    if (DT.dominates(BasicBlockEdge(D, Br->getSuccessor(0)), BB))
      Taken = true;
    else if (DT.dominates(BasicBlockEdge(D, Br->getSuccessor(1)), BB))
      Taken = false;
    else
      continue;
    // Whether every fact the branch gives is `g_d < s<p>`, and which.
    bool OnlyBelow = true;
    SmallVector<std::pair<unsigned, unsigned>, 3> Below; // (d, p)
    // (condition, the value it has on the way to the access)
    SmallVector<std::pair<Value *, bool>, 4> Work{{Br->getCondition(), Taken}};
    while (!Work.empty()) {
      auto [C, Holds] = Work.pop_back_val();
      Value *L, *R;
      using namespace PatternMatch;
      if ((Holds && match(C, m_LogicalAnd(m_Value(L), m_Value(R)))) ||
          (!Holds && match(C, m_LogicalOr(m_Value(L), m_Value(R))))) {
        Work.push_back({L, Holds});
        Work.push_back({R, Holds});
        continue;
      }
      bool IsBelow = false;
      CmpPredicate Pred;
      if (!match(C, m_ICmp(Pred, m_Value(L), m_Value(R)))) {
        OnlyBelow = false;
        continue;
      }
      ICmpInst::Predicate P =
          Holds ? ICmpInst::Predicate(Pred) : ICmpInst::getInversePredicate(Pred);
      // `samesign ult`, as InstCombine writes `0 < z && z < d - 1`: both
      // sides have one sign, so it is the signed comparison too.
      bool SignedToo = Pred.hasSameSign() && ICmpInst::isUnsigned(P);
      if (P == ICmpInst::ICMP_SGT || P == ICmpInst::ICMP_UGT || P == ICmpInst::ICMP_SGE ||
          (SignedToo && P == ICmpInst::ICMP_UGE)) {
        std::swap(L, R);
        P = ICmpInst::getSwappedPredicate(P);
      }
      ICmpInst::Predicate SP = SignedToo ? ICmpInst::getSignedPredicate(P) : P;
      // Signed facts on g_d, as E = R - L (- 1 for L < R): L != R is E != 0,
      // L < R and L <= R are E >= 0.
      std::optional<IndexPoly> PL, PR;
      if ((SP == ICmpInst::ICMP_NE || SP == ICmpInst::ICMP_SLT || SP == ICmpInst::ICMP_SLE) &&
          SE.isSCEVable(L->getType())) {
        PL = polyOf(F, SE, SE.getSCEV(L), nullptr, A.CtaidBits);
        PR = polyOf(F, SE, SE.getSCEV(R), nullptr, A.CtaidBits);
      }
      for (unsigned Dim = 0; Dim < 3 && PL && PR; ++Dim) {
        const IndexPoly &Gd = G[Dim];
        if (SP == ICmpInst::ICMP_NE) {
          // g != c or g != s<p> + c: one value less where a bound reaches it
          // (`i == 0 || i == n - 1` on the false side, under `i < n`).
          IndexPoly E = *PR - *PL;
          if (E == Gd * IndexPoly::constant(-1) + IndexPoly::constant(E.constantTerm()))
            NotLow[Dim].push_back(E.constantTerm());
          else if (auto U = paramPlusConst(E + Gd))
            NotUp[Dim].push_back(*U);
          else if (auto U = paramPlusConst(Gd - E)) // written n - 1 != i
            NotUp[Dim].push_back(*U);
          continue;
        }
        // E >= 0 where E is s<p> + c - g or g - c bounds g.
        IndexPoly E = *PR - *PL - IndexPoly::constant(SP == ICmpInst::ICMP_SLT);
        IndexPoly Low = E - Gd;
        if (Low.isConstant())
          A.MinG[Dim] = std::max(A.MinG[Dim], -Low.constantTerm());
        if (auto U = paramPlusConst(E + Gd)) {
          A.MaxG[Dim].push_back(*U);
          if (U->second == -1) {
            Below.push_back({Dim, U->first});
            IsBelow = true;
          }
        }
      }
      OnlyBelow &= IsBelow;
      if (P != ICmpInst::ICMP_SLT && P != ICmpInst::ICMP_ULT)
        continue;
      auto *Bound = dyn_cast<Argument>(R);
      // Or a field of a by-value struct (`x < p.nx`), for the coordinates.
      std::optional<int> Field = Bound ? std::nullopt : fieldSymbol(F, R);
      bool Unsigned = P == ICmpInst::ICMP_ULT;
      if (!Bound && !Field && SE.isSCEVable(L->getType())) {
        // Or an expression of them (`i < w * h`): the access's footprint
        // alone (BoundPoly).
        unsigned Bits = 0;
        const Value *RV = R;
        while (const auto *Cast = dyn_cast<CastInst>(RV))
          RV = Cast->getOperand(0);
        auto Poly = boundPoly(F, RV, Bits, 0);
        auto Idx = Poly ? polyOf(F, SE, SE.getSCEV(L), nullptr, A.CtaidBits) : std::nullopt;
        if (Idx && !A.BoundParam && !A.BoundPoly &&
            *Idx * IndexPoly::constant(A.Bytes) == A.Offset) {
          A.BoundPoly = std::move(*Poly);
          A.BoundUnsigned = Unsigned;
        }
        continue;
      }
      if ((!Bound && !Field) || (Bound && Bound->getParent() != &F) ||
          !SE.isSCEVable(L->getType()))
        continue;
      auto Idx = polyOf(F, SE, SE.getSCEV(L), nullptr, A.CtaidBits);
      if (!Idx)
        continue;
      if (Bound && !A.BoundParam && *Idx * IndexPoly::constant(A.Bytes) == A.Offset) {
        A.BoundParam = Bound->getArgNo();
        A.BoundUnsigned = Unsigned;
      }
      for (unsigned Dim = 0; Dim < 3; ++Dim)
        if (!A.GlobalBound[Dim] && *Idx == G[Dim])
          A.GlobalBound[Dim] = Bound ? Access::CoordBound{Bound->getArgNo(), Unsigned}
                                     : Access::CoordBound{0, Unsigned, *Field};
    }
    // The whole condition of a check every thread reaches, with nothing
    // between it and the access: the access's only condition.
    if (OnlyBelow && !Below.empty() && PDT.dominates(D, &F.getEntryBlock()) &&
        PDT.dominates(BB, Br->getSuccessor(Taken ? 0 : 1)))
      for (auto [Dim, Param] : Below)
        A.EveryBelow[Dim] = Param;
  }
  for (unsigned Dim = 0; Dim < 3; ++Dim)
    for (bool Changed = true; Changed;) {
      Changed = false;
      for (int64_t C : NotLow[Dim])
        if (A.MinG[Dim] == C) {
          ++A.MinG[Dim];
          Changed = true;
        }
      for (auto &[Arg, Cst] : A.MaxG[Dim])
        for (const std::pair<unsigned, int64_t> &Ne : NotUp[Dim])
          if (Ne.first == Arg && Ne.second == Cst) {
            --Cst;
            Changed = true;
          }
    }
}

/// Checks a pointer parameter is only used to form addresses of loads and
/// stores (no escape, no comparison, no indirect selection): the first user
/// that does something else (for the remark's location), or null.
static User *nonAddressUse(Value *V) {
  for (User *U : V->users()) {
    if (isa<GetElementPtrInst>(U) || isa<AddrSpaceCastInst>(U)) {
      if (User *Bad = nonAddressUse(U))
        return Bad;
      continue;
    }
    if (auto *LI = dyn_cast<LoadInst>(U))
      if (LI->getPointerOperand() == V)
        continue;
    if (auto *SI = dyn_cast<StoreInst>(U))
      if (SI->getPointerOperand() == V)
        continue;
    // Inline asm and calls are judged by the instruction walk
    // (CallEffects.cpp): the address of a cache-hint access (`__ldcs(&t[i])`)
    // is an address; any other asm or call that gets the pointer makes the
    // kernel unanalysable there, with a remark that names it.
    if (auto *CB = dyn_cast<CallBase>(U))
      if (Function *Callee = CB->getCalledFunction(); !Callee || !Callee->isIntrinsic())
        continue;
    // Atomics are addresses too; the instruction walk rejects them by name.
    if (isa<AtomicRMWInst>(U) || isa<AtomicCmpXchgInst>(U))
      continue;
    return U;
  }
  return nullptr;
}

Value *kfuse::unwidened(Value *V) {
  if (isa<SExtInst>(V) || isa<ZExtInst>(V))
    return cast<CastInst>(V)->getOperand(0);
  return V;
}

/// Loop \p L read as a grid-stride loop: its induction variable starts at
/// one of \p Starts, grows by a product of extents (blockDim.x*gridDim.x),
/// runs while below an integer parameter, an integer field of a by-value
/// struct the kernel does not change (`i < p.n`) or a sum or product of
/// them that cannot wrap, and the loop leaves only from its latch. Else
/// std::nullopt; then \p Miss says what keeps a loop that is one in all but
/// its bound from being read as one.
static std::optional<GridStride> gridStrideOf(Function &F, ScalarEvolution &SE, Loop *L,
                                              ArrayRef<IndexPoly> Starts, std::string &Miss) {
  // A rotated loop: the latch tests the incremented variable against n.
  BasicBlock *Header = L->getHeader(), *Latch = L->getLoopLatch();
  auto *Br = Latch ? dyn_cast<BranchInst>(Latch->getTerminator()) : nullptr;
  // (No preheader needed: where the optimiser folded an inner loop's into
  // the outer loop's guard block, the loop jam makes one.)
  if (!Br || !Br->isConditional() || L->getExitingBlock() != Latch)
    return std::nullopt;
  auto *Cmp = dyn_cast<ICmpInst>(Br->getCondition());
  if (!Cmp)
    return std::nullopt;
  ICmpInst::Predicate P = Br->getSuccessor(0) == Header
                              ? Cmp->getPredicate()
                              : Cmp->getInversePredicate(); // while P holds
  Value *Next = Cmp->getOperand(0), *Final = Cmp->getOperand(1);
  if (!L->isLoopInvariant(Final)) {
    std::swap(Next, Final);
    P = ICmpInst::getSwappedPredicate(P);
  }
  // An int or unsigned variable against a size_t n tests the widened
  // variable, sext(i) or zext(i) < n. Its indices are read through the
  // widening as every index is (polyOfImpl), and the fused kernel runs
  // each iteration's test and indices as the kernel wrote them, so a
  // variable that would wrap does so there alike.
  Next = unwidened(Next);
  if ((P != ICmpInst::ICMP_ULT && P != ICmpInst::ICMP_SLT) || !L->isLoopInvariant(Final) ||
      !SE.isSCEVable(Next->getType()))
    return std::nullopt;
  PHINode *IV = nullptr;
  const SCEV *StartS = nullptr, *StepS = nullptr;
  bool Narrow = false;
  for (PHINode &Phi : Header->phis()) {
    if (!SE.isSCEVable(Phi.getType()))
      continue;
    auto *R = dyn_cast<SCEVAddRecExpr>(SE.getSCEV(&Phi));
    if (R && R->getLoop() == L && R->isAffine() && SE.getSCEV(Next) == R->getPostIncExpr(SE)) {
      IV = &Phi;
      StartS = R->getStart();
      StepS = R->getStepRecurrence(SE);
    }
  }
  // An `int` variable kept in 64 bits: the latch tests the low half of
  // its next value against an int n. polyOfImpl reads every such phi of
  // the loop as Start + Step * k, which the manifest guards for the
  // variable alone: a loop with another is not read.
  auto *TrNext = dyn_cast<TruncInst>(Next);
  unsigned Narrowed = 0;
  for (PHINode &Phi : Header->phis()) {
    auto NI = narrowedIV(SE, L, Phi);
    Narrowed += NI.has_value();
    // The latch compares as the variable extends: signed for int.
    if (NI && !IV && TrNext &&
        P == (std::get<2>(*NI) ? ICmpInst::ICMP_ULT : ICmpInst::ICMP_SLT) &&
        Phi.getIncomingValueForBlock(Latch) == TrNext->getOperand(0) &&
        TrNext->getType()->isIntegerTy(32)) {
      IV = &Phi;
      std::tie(StartS, StepS, std::ignore) = *NI;
      Narrow = true;
    }
  }
  if (!IV || Narrowed > unsigned(Narrow))
    return std::nullopt;
  while (auto *Cast = dyn_cast<CastInst>(Final))
    Final = Cast->getOperand(0);
  auto *N = dyn_cast<Argument>(Final);
  auto Start = polyOf(F, SE, StartS);
  auto Step = polyOf(F, SE, StepS);
  if (!Start || !llvm::is_contained(Starts, *Start) || !Step || Step->isConstant())
    return std::nullopt;
  for (auto &[M, C] : Step->Terms)
    for (int S : M)
      if (S >= SymParam0 || isCoordinate(S) || S == SymIter || S == SymOuterIter)
        return std::nullopt;
  IndexPoly Bound;
  unsigned Bits = 0;
  if (N && N->getParent() == &F && N->getType()->isIntegerTy()) {
    Bound = IndexPoly::symbol(SymParam0 + int(N->getArgNo()));
  } else if (std::optional<int> Field = fieldSymbol(F, Final)) {
    Bound = IndexPoly::symbol(*Field);
  } else if (auto BP = boundPoly(F, Final, Bits, 0)) {
    Bound = std::move(*BP);
  } else {
    uint64_t Off = 0;
    const auto *Ld = dyn_cast<LoadInst>(Final);
    const Argument *A = Ld ? byValFieldOf(F, *Ld, Off) : nullptr;
    Miss = !A ? "is not an integer parameter, a field of a struct passed by value, or a sum "
                "or product of them that cannot wrap"
           : "reads the integer at byte " + std::to_string(Off) + " of " + byValText(F, *A) +
                 (readOnlyByVal(*A) ? ", which kfuse cannot name (at most 8 bytes, within "
                                      "the first 1024 of one of the first 224 parameters)"
                                    : ", which the kernel changes");
    return std::nullopt;
  }
  return GridStride{IV,    *Start, *Step, Bound, Final->getType()->getIntegerBitWidth(),
                    P == ICmpInst::ICMP_ULT, Narrow};
}

/// The kernel's grid-stride loop: the one top-level loop that gridStrideOf
/// reads with its variable starting at the global x coordinate
/// ctaid.x*ntid.x + tid.x or at the thread's rank in the grid (gridRank(),
/// cooperative groups' `for (i = grid.thread_rank(); i < n; i +=
/// grid.size())`). Null when there is none; then \p Miss says what keeps a
/// loop that is one in all but its bound from being read as one ("" when
/// there is no such loop).
static Loop *findGridLoop(Function &F, ScalarEvolution &SE, LoopInfo &LI, GridStride &G,
                          std::string &Miss) {
  Loop *Found = nullptr;
  const IndexPoly Starts[] = {globalCoordinate(0), gridRank()};
  for (Loop *L : LI) {
    std::optional<GridStride> S = gridStrideOf(F, SE, L, Starts, Miss);
    if (!S)
      continue;
    if (Found)
      return nullptr; // two of them: which one would a stage's thread be in?
    Found = L;
    G = std::move(*S);
  }
  return Found;
}

/// The kernel's nest of grid-stride loops, one per dimension: a top-level
/// loop over the global y (or z) coordinate whose only loop runs over the
/// global x coordinate and has none of its own, both read by
/// gridStrideOf, neither an `int` kept in 64 bits. Returns the inner loop
/// (\p G) and sets \p Outer; null when there is not exactly one nest.
static Loop *findGridNest(Function &F, ScalarEvolution &SE, LoopInfo &LI, GridStride &G,
                          GridStride &Outer, Loop *&OuterLoop) {
  Loop *Found = nullptr;
  const IndexPoly XStart[] = {globalCoordinate(0)};
  const IndexPoly YZStart[] = {globalCoordinate(1), globalCoordinate(2)};
  for (Loop *L : LI) {
    if (L->getSubLoops().size() != 1 || !L->getSubLoops()[0]->getSubLoops().empty())
      continue;
    Loop *In = L->getSubLoops()[0];
    std::string Unused;
    std::optional<GridStride> O = gridStrideOf(F, SE, L, YZStart, Unused);
    std::optional<GridStride> I = O ? gridStrideOf(F, SE, In, XStart, Unused) : std::nullopt;
    if (!I || O->Narrow || I->Narrow)
      continue;
    if (Found)
      return nullptr;
    Found = In;
    G = std::move(*I);
    Outer = std::move(*O);
    OuterLoop = L;
  }
  return Found;
}

/// Whether the kernel loops over its elements in a nest of grid-stride
/// loops, one per dimension, other than the one findGridNest reads (x
/// outside, three levels, code between the loops): for the remark only.
static bool gridLoopNest(const Function &F, ScalarEvolution &SE, LoopInfo &LI) {
  auto Dim = [&](const Loop *L) {
    for (PHINode &Phi : L->getHeader()->phis()) {
      const auto *R =
          SE.isSCEVable(Phi.getType()) ? dyn_cast<SCEVAddRecExpr>(SE.getSCEV(&Phi)) : nullptr;
      if (!R || R->getLoop() != L || !R->isAffine())
        continue;
      if (auto Start = polyOf(F, SE, R->getStart()))
        for (unsigned D = 0; D < 3; ++D)
          if (*Start == globalCoordinate(D))
            return int(D);
    }
    return -1;
  };
  for (Loop *Outer : LI) {
    int D = Dim(Outer);
    for (Loop *Inner : Outer->getLoopsInPreorder())
      if (D >= 0 && Inner != Outer && Dim(Inner) >= 0 && Dim(Inner) != D)
        return true;
  }
  return false;
}

std::optional<NestIndex> kfuse::nestIndex(const KernelInfo &K, const IndexPoly &Offset) {
  if (!K.Grid || !K.Outer)
    return std::nullopt;
  NestIndex X;
  X.DimY = globalDim(K.Outer->Start);
  if (X.DimY < 1)
    return std::nullopt;
  auto CX = coefficientOf(Offset, SymTid), CY = coefficientOf(Offset, symTid(unsigned(X.DimY)));
  if (!CX || !CY)
    return std::nullopt;
  X.CX = std::move(*CX);
  X.CY = std::move(*CY);
  X.Rest = Offset - X.CX * (K.Grid->Start + K.Grid->Step * IndexPoly::symbol(SymIter)) -
           X.CY * (K.Outer->Start + K.Outer->Step * IndexPoly::symbol(SymOuterIter));
  for (auto &[M, C] : X.Rest.Terms)
    for (int S : M)
      if (isCoordinate(S) || S == SymIter || S == SymOuterIter)
        return std::nullopt;
  return X;
}

KernelInfo kfuse::analyzeKernel(Function &F, ScalarEvolution &SE, DominatorTree &DT,
                                LoopInfo &LI) {
  KernelInfo K;
  K.F = &F;
  K.Body = &F;
  // At -O0 clang marks every function optnone: parameters live in allocas and
  // no analysis below would see through them, and the pass must not
  // optimise the kernel itself. Say so instead of blaming the kernel.
  if (F.hasOptNone())
    K.invalidate("is compiled without optimisation (optnone, -O0); kfuse fuses at -O1 and above",
                 "optnone");
  for (Argument &A : F.args()) {
    ParamInfo P;
    // A struct passed by value (`Step p`, `__half2 a`) is a pointer to the
    // kernel's own copy in the IR: a scalar parameter to fusion.
    P.IsPointer = A.getType()->isPointerTy() && !A.hasByValAttr();
    P.IsInteger = A.getType()->isIntegerTy();
    P.IsByVal = A.hasByValAttr();
    if (P.IsByVal) {
      if (auto Bytes = sharedByValBytes(A, P.NotShared)) {
        P.ByValShared = true;
        P.FieldBytes = std::move(*Bytes);
        P.NotShared.clear();
      }
    }
    K.Params.push_back(P);
    if (User *Bad = P.IsPointer ? nonAddressUse(&A) : nullptr)
      K.invalidate("pointer " + paramText(F, A.getArgNo()) +
                       " escapes or is used other than as an address; use it only to "
                       "address loads and stores (t[i]): do not store it, compare it, "
                       "convert it to an integer or select between pointers",
                   "escape", dyn_cast<Instruction>(Bad));
  }
  if (F.isVarArg())
    K.invalidate("is variadic", "call");

  GridStride G, Outer;
  std::string GridMiss;
  Loop *OuterLoop = nullptr;
  Loop *Grid = findGridLoop(F, SE, LI, G, GridMiss);
  if (!Grid)
    Grid = findGridNest(F, SE, LI, G, Outer, OuterLoop);
  if (Grid)
    K.Grid = G;
  if (OuterLoop)
    K.Outer = Outer;
  PostDominatorTree PDT(F);
  CallEffects Calls;
  for (Instruction &I : instructions(F)) {
    if (auto *CB = dyn_cast<CallBase>(&I)) {
      if (int Sym = sregSymbol(CB); Sym >= 0) {
        if (isCoordinate(Sym))
          K.CoordsRead |= 1u << Sym;
        continue;
      }
      // Math, conversions, register asm and analysable calls are pure;
      // a cache-hint asm (`__ldcs`, `__stwt`) is a load or store, below.
      CallEffect E = Calls.of(*CB);
      if (E.K == CallEffect::Refused)
        K.invalidate(E.Reason, E.Stat, CB);
      K.Flops += E.Flops;
      if (E.K != CallEffect::Access)
        continue;
    }
    if (isa<AtomicRMWInst>(I) || isa<AtomicCmpXchgInst>(I) || isa<FenceInst>(I)) {
      K.invalidate("uses atomics or fences", "atomic", &I);
      continue;
    }
    if (isa<BinaryOperator>(I) || isa<UnaryOperator>(I))
      if (I.getType()->isFPOrFPVectorTy())
        ++K.Flops;
    std::optional<MemoryAccess> MA = memoryAccessOf(I);
    if (!MA)
      continue;

    Value *Ptr = MA->Ptr;
    bool IsStore = MA->IsStore;
    if (MA->Volatile) {
      K.invalidate("has a volatile access; drop the volatile qualifier", "volatile", &I);
      continue;
    }
    if (!MA->Simple) {
      K.invalidate("uses atomic loads or stores", "atomic", &I);
      continue;
    }
    if (IsStore && MA->Stored->getType()->isPointerTy()) {
      K.invalidate("stores a pointer to memory; pass the buffers a kernel uses as its "
                   "pointer parameters",
                   "escape", &I);
      continue;
    }
    Value *Obj = getUnderlyingObject(Ptr, 0);
    if (isa<AllocaInst>(Obj))
      continue; // thread-private memory takes no part in fusion
    if (auto *ByVal = dyn_cast<Argument>(Obj); ByVal && ByVal->hasByValAttr())
      continue; // a by-value struct: the launch's own copy, read like a scalar
    if (auto *GV = dyn_cast<GlobalVariable>(Obj)) {
      unsigned AS = GV->getAddressSpace();
      if (AS == 3) {
        K.invalidate("uses shared memory ('" + GV->getName().str() + "')", "shared", &I);
        continue;
      }
      if (!IsStore && (GV->isConstant() || AS == 4))
        continue;
      K.invalidate("accesses global variable '" + demangle(GV->getName().str()) +
                       "'; pass its address as a pointer parameter instead",
                   "global", &I);
      continue;
    }
    Argument *Base = baseParam(Ptr);
    // A buffer's address in a field of a by-value struct parameter (`struct
    // Fields { float *u, *v; }`, a lambda's captures) that the field twin
    // (FieldParams.h) could not make a parameter: the kernel changes the
    // struct, the field is picked by a variable, or there are too many.
    if (auto *Held = dyn_cast<LoadInst>(Obj); !Base && Held) {
      const Value *Src = Held->getPointerOperand();
      const auto *Struct = dyn_cast<Argument>(getUnderlyingObject(Src, 0));
      if (Struct && Struct->hasByValAttr()) {
        const DataLayout &DL = F.getDataLayout();
        APInt At(DL.getIndexTypeSizeInBits(Src->getType()), 0);
        bool Constant =
            Src->stripAndAccumulateConstantOffsets(DL, At, /*AllowNonInbounds=*/true) == Struct;
        std::string Of = byValText(F, *Struct);
        std::string Why =
            !Constant ? ", at a byte that varies; kfuse reads buffers from fields at constant "
                        "bytes (r.a, not r.a[k] with k a variable)"
            : !readOnlyByVal(*Struct)
                ? ", which the kernel changes; kfuse reads buffers from the fields of structs "
                  "that the kernel only reads"
                : ", at byte " + std::to_string(At.getZExtValue()) +
                              ", one of more than " + std::to_string(MaxFieldParams) +
                              " buffers it reads from fields; pass some as pointer parameters";
        K.invalidate("accesses a buffer whose address is a field of " + Of + Why, "indirect", &I);
        continue;
      }
    }
    if (!Base) {
      K.invalidate("has an indirect access (address not derived from a pointer parameter); "
                   "access memory only through the kernel's pointer parameters, indexed "
                   "directly (t[i], not a pointer loaded from memory)",
                   "indirect", &I);
      continue;
    }
    Access A;
    A.Inst = &I;
    A.Param = Base->getArgNo();
    A.IsStore = IsStore;
    A.Ty = MA->Ty;
    A.Bytes = F.getDataLayout().getTypeStoreSize(A.Ty).getFixedValue();
    const SCEV *D = offsetFromParam(SE, Ptr, Base);
    std::optional<IndexPoly> Off;
    if (D)
      Off = polyOf(F, SE, D, Grid, A.CtaidBits, OuterLoop);
    // In a nest, an element that does not vary with x (`r[y]`, a row's
    // value): a gather when read, refused when written, as every thread of
    // a row would store it.
    if (Off && OuterLoop && !Off->uses(SymIter)) {
      if (IsStore) {
        K.invalidate("stores through " + paramText(F, A.Param) +
                         " at an index that does not vary with the inner loop's variable; "
                         "in a nest of grid-stride loops, store at an index of both "
                         "variables (t[y * w + x])",
                     "index", &I);
        continue;
      }
      if (Off->uses(SymOuterIter))
        Off.reset();
    }
    // A load the loop does not vary (`coef[0]`, `r[y]`), which the optimiser
    // hoists out of the loop where the pointers are __restrict__: read
    // before the loop, as any access is. A store there is refused.
    if (Grid && !Grid->contains(&I) && IsStore) {
      K.invalidate("stores through " + paramText(F, A.Param) +
                       " outside its grid-stride loop; move every store into the loop",
                   "index", &I);
      continue;
    }
    // A row taken from the linear index by a division that the index does
    // not undo (Access::Row): a gather everywhere but in the legality
    // check, stores too.
    std::optional<Access::RowIndex> Row;
    if (!Off && D && !Grid)
      Row = rowIndex(F, SE, D, A);
    // A loop over the thread's own record of a run-time length
    // (Access::Span): likewise.
    std::optional<Access::SpanIndex> Span;
    if (!Off && !Row && D && !Grid)
      Span = spanIndex(F, SE, D, A);
    if (!Off && IsStore && !Row && !Span) {
      bool InLoop = D && SCEVExprContains(D, [](const SCEV *X) { return isa<SCEVAddRecExpr>(X); });
      std::string Field = D ? byValFieldText(F, D) : "";
      K.invalidate("has a non-affine or unknown index (store through " +
                       paramText(F, A.Param) + ")" +
                       (!Field.empty()
                            ? "; the index reads " + Field +
                                  ": an index may read parameters and fields of by-value "
                                  "structs that the kernel does not change; compute the "
                                  "changed value in a local instead"
                        : InLoop && !Grid && !GridMiss.empty()
                            ? "; it varies in a grid-stride loop whose bound " + GridMiss +
                                  ": kfuse reads the bound of a grid-stride loop from "
                                  "integer parameters and fields of a struct passed by value "
                                  "that the kernel does not change, added or multiplied in "
                                  "signed arithmetic (w * h with int w, h); pass n as one "
                                  "and loop while i < n"
                        : InLoop && !OuterLoop && gridLoopNest(F, SE, LI)
                            ? "; it varies in a nest of grid-stride loops that kfuse "
                              "does not analyse: kfuse reads a nest of two, over y or z "
                              "outside and x inside (for (y = blockIdx.y * blockDim.y + "
                              "threadIdx.y; y < h; y += blockDim.y * gridDim.y) for (x = "
                              "...; x < w; x += blockDim.x * gridDim.x)) with every store "
                              "in the inner loop; or launch a grid of one thread per element "
                              "(x and y from blockIdx and threadIdx, under if (x < w && y < "
                              "h)), or loop once over every element, for (i = blockIdx.x * "
                              "blockDim.x + threadIdx.x; i < w * h; i += blockDim.x * "
                              "gridDim.x)"
                        : InLoop && !Grid
                            ? "; it varies in a loop that is not a grid-stride loop: "
                              "write a loop over the elements as for (i = blockIdx.x * "
                              "blockDim.x + threadIdx.x; i < n; i += blockDim.x * "
                              "gridDim.x), one per kernel; a loop over a thread's own "
                              "elements needs a trip count known at compile time (kfuse "
                              "unrolls such loops in the copy it fuses)"
                            : "; write the index as a polynomial in the thread and block "
                              "indices and extents and integer parameters (t[y * pitch + "
                              "x]); a row and column taken by / and % must be put back "
                              "together with the same divisor"),
                   "index", &I);
      continue;
    }
    if (Off) {
      A.Offset = *Off;
      findBounds(F, SE, DT, PDT, A);
    } else {
      // A gather. Harmless as long as nothing in the fused group writes the
      // buffer: the fused kernel then reads the same bytes the unfused one
      // did, whatever they are (Legality.cpp checks that).
      A.UnknownIndex = true;
      K.Params[A.Param].Gathered = true;
      A.Row = Row;
      A.Span = Span;
      // Its `g < n` checks, which fusion across granularities needs of
      // every access (the gather has no byte bound of its own).
      if (D && !Grid && !Row && !Span) {
        A.Instance = instanceIndex(F, SE, D);
        if (A.Instance)
          A.Record = Access::InstanceRecord{A.Instance->Coef, A.Instance->Div,
                                            A.Instance->Rest, A.Instance->Rest,
                                            A.Instance->Rest, A.Instance->Rest};
        else
          A.Record = instanceRecord(F, SE, D);
        findBounds(F, SE, DT, PDT, A);
        A.BoundParam.reset();
        A.BoundPoly.reset();
      }
      // Still bounded when the index is a remainder or a quotient: a
      // footprint spares the runtime a driver query per call (and lets it
      // memoise). An instance's element c * (g / q) + d, inside its c-byte
      // record, under the access's own signed check g < n: the records of
      // instances 0 to (min(threads, n) - 1) / q, the same footprint for
      // each field, so that the manifest holds one.
      const auto &GB = A.GlobalBound[0];
      if (Row || Span) {
        // rowIndex or spanIndex wrote the footprint.
      } else if (A.Record && GB && !GB->Unsigned && A.Record->Lo >= 0 &&
          A.Record->Hi + A.Bytes <= A.Record->Coef) {
        std::string Last = "((max(min(bx*gx," + GB->text() + "),1)-1)/" +
                           std::to_string(A.Record->Div) + ")";
        A.GatherLo = "0";
        A.GatherHi = plusExpr(timesExpr(uint64_t(A.Record->Coef), Last),
                              std::to_string(A.Record->Coef));
      } else if (auto R = D ? rangeOf(F, SE, D) : std::nullopt) {
        A.GatherLo = R->Lo;
        A.GatherHi = plusExpr(R->Hi, std::to_string(A.Bytes));
      }
    }
    K.Params[A.Param].Read |= !IsStore;
    K.Params[A.Param].Written |= IsStore;
    // A row's Offset names its element too (Access::Row).
    A.Repeat = (!A.UnknownIndex || A.Row || A.Span) && llvm::any_of(K.Accesses, [&](const Access &E) {
      return (!E.UnknownIndex || E.Row || E.Span) && E.Param == A.Param && E.IsStore == A.IsStore &&
             E.Offset == A.Offset;
    });
    if (!A.Repeat)
      K.BytesPerThread += A.Bytes;
    for (unsigned D = 0; D < 3; ++D)
      K.CtaidBits[D] = std::min(K.CtaidBits[D], A.CtaidBits[D]);
    K.Accesses.push_back(std::move(A));
  }
  return K;
}
