//===- Legality.cpp - may these launches run as one kernel? ---------------===//
//
// Implements conditions 3 to 8 of DeviceFusion.cpp's list: equal launch
// configuration, gathered buffers read-only, and for every pair of accesses
// of different stages to one buffer with at least one store, either the same
// thread (the buffer is laid out in per-thread records: register forwarding,
// one register per field) or the same block (block-local indices:
// shared-memory staging with barriers between the stages), or, in 1-D,
// neighbouring elements at constant distances (a stencil: halo
// recomputation, the producer run again by each block for the elements
// next to its own).
//
//===----------------------------------------------------------------------===//
#include "FusionCandidate.h"
#include "RemarkText.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"

#include <map>
#include <numeric>
#include <set>
#include <tuple>

using namespace llvm;
using namespace kfuse;

/// Static shared memory a group may use; above it a launch needs opt-in.
static constexpr unsigned MaxStaticShared = 48 * 1024;
/// Threads per block never exceed this, so a tile this many elements long
/// holds a block's share of a buffer.
static constexpr unsigned TileElements = 1024;

int FusionCandidate::valueSymbol(unsigned Stage, int S) const {
  const SeqLaunch &La = launch(Stage);
  if (isParamSymbol(S) && unsigned(S - SymParam0) < La.Args.size())
    return SymValue0 + int(La.Args[S - SymParam0]);
  if (isFieldSymbol(S) && fieldParam(S) < La.Args.size())
    return SymValueField0 +
           fieldCode(La.Args[fieldParam(S)], fieldOffset(S), fieldLogWidth(S));
  return S;
}

IndexPoly FusionCandidate::valueOffset(unsigned Stage, const Access &A) const {
  return valuePoly(Stage, A.Offset);
}

IndexPoly FusionCandidate::valuePoly(unsigned Stage, const IndexPoly &P) const {
  std::map<int, int> Rename;
  const SeqLaunch &La = launch(Stage);
  for (unsigned Q = 0; Q < La.Args.size(); ++Q)
    Rename[SymParam0 + Q] = SymValue0 + La.Args[Q];
  // A field of a by-value aggregate: that field of the argument's value.
  for (auto &[M, C] : P.Terms)
    for (int S : M)
      if (isFieldSymbol(S))
        Rename[S] = valueSymbol(Stage, S);
  IndexPoly R = P.rename(Rename);
  if (!oneDimensional(Stage))
    return R;
  // A launch whose grid and block are integers (`k<<<blocks, 256>>>`) runs
  // in x alone: its y and z coordinates are 0 and their extents 1, so an
  // index written for any shape (cooperative groups' thread_rank(), a
  // kernel that also serves 2-D launches) reads as the launch runs it.
  IndexPoly X;
  for (auto &[M, C] : R.Terms) {
    TermMap::Monomial N;
    bool Zero = false;
    for (int S : M) {
      if (S < 3 * SymDimStride && symDim(S) > 0) {
        if (isCoordinate(S))
          Zero = true;
        continue; // an extent: 1
      }
      N.push_back(S);
    }
    if (!Zero)
      X.Terms.append(std::move(N), C);
  }
  X.Terms.normalise();
  return X;
}

bool FusionCandidate::oneDimensional(unsigned Stage) const {
  const SeqLaunch &La = launch(Stage);
  auto IntValue = [&](unsigned V) {
    auto It = Seq->Values.find(V);
    return It != Seq->Values.end() && It->second.Kind == "int";
  };
  return Seq && IntValue(La.Grid) && IntValue(La.Block);
}

/// The in-block byte offset L of Offset = Bytes*ctaid*ntid + L when every
/// thread of a block stays inside its block's Bytes*ntid bytes: L over
/// [0, ntid) threads lies in [0, Bytes*(ntid-1)], is a multiple of Bytes and
/// depends on nothing but tid and ntid.
static std::optional<IndexPoly> blockLocalOffset(const IndexPoly &O, unsigned Bytes) {
  IndexPoly L = O - IndexPoly::constant(Bytes) * IndexPoly::symbol(SymNtid) *
                        IndexPoly::symbol(SymCtaid);
  for (auto &[M, C] : L.Terms) {
    if (C % (int64_t)Bytes)
      return std::nullopt;
    for (int S : M)
      if (S != SymTid && S != SymNtid)
        return std::nullopt;
  }
  auto R = L.gridRange();
  if (!R)
    return std::nullopt;
  IndexPoly Top = IndexPoly::constant(Bytes) * IndexPoly::symbol(SymNtid) -
                  IndexPoly::constant(Bytes);
  IndexPoly Slack = Top - R->second;
  if (!R->first.isConstant() || R->first.constantTerm() < 0 || !Slack.isConstant() ||
      Slack.constantTerm() < 0)
    return std::nullopt;
  return L;
}

namespace {
struct StagedAccess {
  unsigned Stage;
  const Access *A;
  IndexPoly Offset; // value-renamed
};
} // namespace

/// Whether \p P >= 0 whatever the launch's extents (each at least 1): it
/// names no parameter, and with every extent e written as 1 + e' every
/// coefficient is non-negative.
static bool nonNegativeOverGrid(const IndexPoly &P) {
  IndexPoly Shifted;
  for (auto &[M, C] : P.Terms) {
    IndexPoly T = IndexPoly::constant(C);
    for (int S : M) {
      if (S >= SymParam0 || isCoordinate(S))
        return false;
      T = T * (IndexPoly::symbol(S) + IndexPoly::constant(1));
    }
    Shifted = Shifted + T;
  }
  for (auto &[M, C] : Shifted.Terms)
    if (C < 0)
      return false;
  return true;
}

/// |P| as a polynomial when its sign is known over every launch (no
/// parameter, all coefficients of one sign).
static std::optional<IndexPoly> staticAbs(const IndexPoly &P) {
  bool Pos = true, Neg = true;
  for (auto &[M, C] : P.Terms) {
    for (int S : M)
      if (S >= SymParam0)
        return std::nullopt;
    Pos &= C > 0;
    Neg &= C < 0;
  }
  if (Pos)
    return P;
  if (Neg)
    return IndexPoly::constant(-1) * P;
  return std::nullopt;
}

static std::string absExpr(const IndexPoly &P) {
  if (auto A = staticAbs(P))
    return A->toExpr();
  return "max(" + P.toExpr() + ",-(" + P.toExpr() + "))";
}

/// How many values a digit takes among the threads that make every access
/// of \p Accs: a Global digit's extent ntid.d*nctaid.d, or, when every
/// access is under a check `ctaid.d*ntid.d + tid.d < w` with one value w,
/// min(extent, w) (an unsigned w of 2^31 or more reads negative in the
/// manifest and bounds nothing: minUnsignedParam). Value numbers stand for
/// the parameters (see launchExpr).
static std::string extentExpr(const FusionCandidate &C, const std::vector<StagedAccess> &Accs,
                              const IndexDigit &D) {
  std::string Ext = D.extent().toExpr();
  if (D.K != IndexDigit::Global)
    return Ext;
  const auto &B0 = Accs[0].A->GlobalBound[D.Dim];
  for (const StagedAccess &X : Accs) {
    const auto &B = X.A->GlobalBound[D.Dim];
    if (!B0 || !B || B->Unsigned != B0->Unsigned ||
        C.valueSymbol(X.Stage, B->symbol()) != C.valueSymbol(Accs[0].Stage, B0->symbol()))
      return Ext;
  }
  std::string W = IndexPoly::symbol(C.valueSymbol(Accs[0].Stage, B0->symbol())).toExpr();
  if (B0->Unsigned)
    return minUnsignedExpr(Ext, 1, W);
  return "max(min(" + Ext + "," + W + "),1)";
}

/// Calls \p Visit(Pos, Len, V) for each value a guard expression names,
/// `v<digits>`, in order (a field reads on after it: `v3.8.4`).
static void forEachValueRef(const std::string &Guard,
                            function_ref<void(size_t, size_t, unsigned)> Visit) {
  for (size_t I = 0; I < Guard.size(); ++I) {
    if (Guard[I] != 'v' || I + 1 == Guard.size() || !isDigit(Guard[I + 1]))
      continue;
    size_t J = I + 1;
    uint64_t V = 0;
    for (; J < Guard.size() && isDigit(Guard[J]); ++J)
      V = std::min<uint64_t>(V * 10 + unsigned(Guard[J] - '0'), UINT32_MAX);
    Visit(I, J - I, unsigned(V));
    I = J - 1;
  }
}

/// \p Guard, an expression over value numbers (`v<k>`), as a manifest `le`
/// line over the integer parameters of the first launch that passes every
/// one of them; "" when no launch does.
static std::string launchExpr(const FusionCandidate &C, const std::string &Guard) {
  std::set<unsigned> Values;
  forEachValueRef(Guard, [&](size_t, size_t, unsigned V) { Values.insert(V); });
  for (unsigned S = 0; S < C.size(); ++S) {
    // Integer parameters, and by-value structs, whose fields a guard may
    // name (`v3.8.4`, the integer at byte 8 of value 3: `s<p>.8.4`).
    // (The planner's whole-sequence candidate holds no analysis of a
    // kernel that could not be analysed.)
    if (!C.Stages[S] || C.Stages[S]->Params.size() != C.launch(S).Args.size())
      continue;
    std::map<unsigned, unsigned> ParamOf;
    for (unsigned P = C.Stages[S]->Params.size(); P-- > 0;)
      if (C.Stages[S]->Params[P].IsInteger || C.Stages[S]->Params[P].IsByVal)
        ParamOf[C.arg(S, P)] = P;
    if (llvm::any_of(Values, [&](unsigned V) { return !ParamOf.count(V); }))
      continue;
    std::string Out;
    size_t Last = 0;
    forEachValueRef(Guard, [&](size_t Pos, size_t Len, unsigned V) {
      Out.append(Guard, Last, Pos - Last);
      Out += "s" + std::to_string(ParamOf[V]);
      Last = Pos + Len;
    });
    Out.append(Guard, Last, std::string::npos);
    return "le " + std::to_string(S) + " " + Out;
  }
  return "";
}

/// Each of \p New (`lhs rhs` over value numbers) as a manifest `le` line
/// into \p Guards; false when one names values no launch passes together.
static bool addGuards(const FusionCandidate &C, const std::set<std::string> &New,
                      std::set<std::string> &Guards) {
  for (const std::string &G : New) {
    std::string Line = launchExpr(C, G);
    if (Line.empty())
      return false;
    Guards.insert(Line);
  }
  return true;
}

/// Whether distinct threads of the group's launch never touch overlapping
/// bytes through \p Accs, each thread touching only its record of \p Span
/// bytes at sum(Coef * digit) + Rest (digitsOf; every access has the same
/// digits, in value numbers). The digits, smallest coefficient first, must
/// form a mixed-radix number: |Coef_k| >= sum_{j<k} |Coef_j| (extent_j - 1)
/// + Span; then two threads that differ in their highest differing digit k
/// are at least |Coef_k| - sum_{j<k} |Coef_j| (extent_j - 1) >= Span bytes
/// apart. And a coordinate the group's threads differ in but no digit holds
/// must have extent 1. Each condition is proven here or left to the runtime
/// as a manifest `le` line, added to \p Guards; false when the accesses do
/// not have this form.
static bool disjointRecords(const FusionCandidate &C, const std::vector<StagedAccess> &Accs,
                            int64_t Span, std::set<std::string> &Guards,
                            const std::optional<std::pair<IndexPoly, int64_t>> &Field = std::nullopt) {
  std::optional<DigitForm> Ref = digitsOf(Accs[0].Offset);
  if (!Ref || Ref->Digits.empty())
    return false;
  for (const StagedAccess &X : Accs) {
    auto F = digitsOf(X.Offset);
    if (!F || F->Digits != Ref->Digits)
      return false;
  }
  std::set<std::string> New; // `lhs rhs` over value numbers
  // The threads of a launch differ in tid.x and ctaid.x, and in the y and z
  // coordinates a stage reads; threads that differ only in coordinates no
  // stage reads run the same code on the same elements.
  unsigned Coords = (1u << SymTid) | (1u << SymCtaid);
  for (const KernelInfo *K : C.Stages)
    if (K) // inThreadRecords() asks about groups with unanalysable launches too
      Coords |= K->CoordsRead;
  for (int S = 0; S < SymParam0; ++S) {
    if (!(Coords >> S & 1) || !isCoordinate(S))
      continue;
    if (llvm::none_of(Ref->Digits, [&](const IndexDigit &D) { return D.covers(S); }))
      New.insert(IndexPoly::symbol(S + 1).toExpr() + " 1");
  }
  // The places of the mixed-radix number: the digits, and the field a
  // thread's access is among its strided fields (threadRecords).
  struct Place {
    IndexPoly Coef, Extent;
    std::string ExtentText;
    bool Iter;
  };
  std::vector<Place> Places;
  for (const IndexDigit &D : Ref->Digits)
    Places.push_back({D.Coef, D.extent(), extentExpr(C, Accs, D), D.K == IndexDigit::Iteration});
  if (Field)
    Places.push_back({Field->first, IndexPoly::constant(Field->second),
                      std::to_string(Field->second), false});
  std::vector<size_t> Order(Places.size());
  for (size_t I = 0; I < Order.size(); ++I)
    Order[I] = I;
  // Smallest coefficient first, as far as the polynomials tell: fewer
  // parameters, then lower degree, then a smaller constant; x before y
  // before z. A wrong guess only makes a guard fail at run time.
  auto Key = [&](size_t I) {
    const IndexPoly &P = Places[I].Coef;
    unsigned Params = 0, Degree = 0;
    for (auto &[M, K] : P.Terms) {
      Degree = std::max<unsigned>(Degree, M.size());
      Params = std::max<unsigned>(
          Params, llvm::count_if(M, [](int S) { return S >= SymParam0; }));
    }
    int64_t Lead = P.Terms.empty() ? 0 : P.Terms.rbegin()->second;
    // A grid-stride loop's iteration count has no known extent: it must be
    // the highest place.
    return std::make_tuple(Places[I].Iter, Params, Degree, Lead < 0 ? -Lead : Lead, I);
  };
  llvm::stable_sort(Order, [&](size_t A, size_t B) { return Key(A) < Key(B); });
  IndexPoly Below = IndexPoly::constant(Span); // static sum, while it is one
  bool Static = true;
  std::string BelowExpr = std::to_string(Span);
  for (size_t K : Order) {
    const Place &D = Places[K];
    std::optional<IndexPoly> Abs = staticAbs(D.Coef);
    Static &= Abs.has_value();
    if (Static && (*Abs - Below).isConstant() && (*Abs - Below).constantTerm() < 0)
      return false; // never holds: records overlap (t[i] and t[i+1])
    if (!(Static && nonNegativeOverGrid(*Abs - Below)))
      New.insert(BelowExpr + " " + absExpr(D.Coef));
    if (D.Iter)
      break;
    if (Static)
      Below = Below + *Abs * (D.Extent - IndexPoly::constant(1));
    BelowExpr += "+" + absExpr(D.Coef) + "*(" + D.ExtentText + "-1)";
  }
  return addGuards(C, New, Guards);
}

/// Whether distinct threads of the group's launch, and one thread's
/// distinct iterations, touch distinct \p Span-byte records through access
/// \p X (stage of a nest of grid-stride loops, KernelInfo::Outer; the
/// caller has checked that every access of the buffer has X's offset and
/// that every stage's nest runs the same iterations). The offset must be cX
/// * x + cY * y + r, x = Sx + Tx * k the inner loop's variable, in [0, w),
/// y = Sy + Ty * k' the outer's, in [0, h), with cX, cY and r free of
/// coordinates and iteration counts. Distinct (thread, k, k') then run
/// distinct (x, y) where each loop's step is at least its grid's threads in
/// that dimension (Tx >= bx*gx) and a launch has one thread in each
/// dimension the stages read but the loops do not cover; distinct (x, y)
/// touch distinct records where |cX| >= Span and |cY| >= |cX| * (w - 1) +
/// Span (x the faster, a row of an image), or the same the other way round.
/// \p Guards gets the run-time checks of what the polynomials do not settle.
static bool disjointNest(const FusionCandidate &C, const StagedAccess &X, int64_t Span,
                         std::set<std::string> &Guards) {
  const KernelInfo &K = *C.Stages[X.Stage];
  std::optional<NestIndex> Ix = nestIndex(K, X.Offset);
  if (!Ix || Ix->CX.Terms.empty() || Ix->CY.Terms.empty())
    return false;
  const GridStride &In = *K.Grid, &Out = *K.Outer;
  const int DimY = Ix->DimY;
  const IndexPoly &CX = Ix->CX, &CY = Ix->CY;
  std::set<std::string> New; // `lhs rhs` over value numbers
  // Steps that cover their grids.
  for (auto [G, D] : {std::make_pair(&In, 0u), std::make_pair(&Out, unsigned(DimY))}) {
    IndexPoly Threads = IndexPoly::symbol(symNtid(D)) * IndexPoly::symbol(symNctaid(D));
    if (!(G->Step - Threads).Terms.empty())
      New.insert(Threads.toExpr() + " " + G->Step.toExpr());
  }
  // One thread in every other dimension a stage reads.
  unsigned Coords = 0;
  for (const KernelInfo *S : C.Stages)
    if (S)
      Coords |= S->CoordsRead;
  for (int S = 0; S < SymParam0; ++S)
    if ((Coords >> S & 1) && isCoordinate(S) && symDim(S) != 0 && symDim(S) != unsigned(DimY))
      New.insert(IndexPoly::symbol(S + 1).toExpr() + " 1");
  // The records: x the faster unless only y's coefficient is a constant,
  // or both are and y's is the smaller.
  IndexPoly W = C.valuePoly(X.Stage, In.Bound), H = C.valuePoly(X.Stage, Out.Bound);
  IndexPoly Fast = CX, Slow = CY, FastN = W;
  if (CY.isConstant() &&
      (!CX.isConstant() || std::llabs(CY.constantTerm()) < std::llabs(CX.constantTerm()))) {
    std::swap(Fast, Slow);
    FastN = H;
  }
  // A bound compared unsigned reads negative in the manifest from 2^31
  // (4 bytes) or where a sum or product is: then no fusion.
  for (const GridStride *G : {&In, &Out})
    if (G->Unsigned)
      New.insert("0 " + C.valuePoly(X.Stage, G->Bound).toExpr());
  std::optional<IndexPoly> FastAbs = staticAbs(Fast);
  if (!(FastAbs && FastAbs->isConstant() && FastAbs->constantTerm() >= Span))
    New.insert(std::to_string(Span) + " " + absExpr(Fast));
  New.insert(absExpr(Fast) + "*(max(" + FastN.toExpr() + ",1)-1)+" + std::to_string(Span) + " " +
             absExpr(Slow));
  return addGuards(C, New, Guards);
}

/// Whether monomial \p C (one term) divides the term (\p M, \p K): the
/// quotient, or std::nullopt.
static std::optional<IndexPoly> divideTerm(const IndexPoly::Monomial &M, int64_t K,
                                           const IndexPoly &C) {
  if (C.Terms.size() != 1)
    return std::nullopt;
  auto &[CM, CK] = *C.Terms.begin();
  if (CK == 0 || K % CK)
    return std::nullopt;
  IndexPoly::Monomial Rest = M;
  for (int S : CM) {
    auto It = llvm::find(Rest, S);
    if (It == Rest.end())
      return std::nullopt;
    Rest.erase(It);
  }
  IndexPoly Q;
  Q.Terms[Rest] = K / CK;
  return Q;
}

/// Shared-memory staging in 2-D and 3-D: the buffer's element (x, y, z) of a
/// store of \p Accs in global-coordinate form (digitsOf: Global digits with
/// coefficients C_d, base r) belongs to the block holding that element.
/// Every access must be at sum_d C_d * (ctaid.d * ntid.d + l_d) + r, l_d a
/// polynomial in the thread's tid and ntid with 0 <= l_d < ntid.d: the
/// element of its own block at in-block coordinates l. Returns per access
/// (in \p Accs order) its tile slot l_x + ntid.x * (l_y + ntid.y * l_z);
/// std::nullopt when the accesses are not so. Ranges only the launch's
/// extents decide, and the layout's injectivity (an element belongs to one
/// block only), become `le` guards in \p Guards.
static std::optional<std::vector<IndexPoly>>
blockLocalSlots(const FusionCandidate &C, const std::vector<StagedAccess> &Accs,
                std::set<std::string> &Guards) {
  const StagedAccess *Ref = nullptr;
  for (const StagedAccess &X : Accs)
    if (X.A->IsStore && !Ref)
      Ref = &X;
  std::optional<DigitForm> RF = Ref ? digitsOf(Ref->Offset) : std::nullopt;
  if (!RF || RF->Digits.empty() ||
      llvm::any_of(RF->Digits, [](const IndexDigit &D) { return D.K != IndexDigit::Global; }))
    return std::nullopt;
  // Larger coefficients first, so a term goes to the highest place it fits.
  std::vector<IndexDigit> Places = RF->Digits;
  std::reverse(Places.begin(), Places.end());
  std::vector<IndexPoly> Slots;
  std::set<std::string> New;
  for (const StagedAccess &X : Accs) {
    if (X.A->UnknownIndex || X.A->Bytes != Ref->A->Bytes)
      return std::nullopt;
    IndexPoly T = X.Offset - RF->Rest;
    IndexPoly L[3];
    for (const IndexDigit &D : Places)
      T = T - D.Coef * IndexPoly::symbol(symNtid(D.Dim)) * IndexPoly::symbol(symCtaid(D.Dim));
    for (auto &[M, K] : T.Terms) {
      bool Placed = false;
      for (const IndexDigit &D : Places) {
        auto Q = divideTerm(M, K, D.Coef);
        if (!Q)
          continue;
        L[D.Dim] = L[D.Dim] + *Q;
        Placed = true;
        break;
      }
      if (!Placed)
        return std::nullopt;
    }
    IndexPoly Slot;
    for (unsigned D = 3; D-- > 0;) {
      for (auto &[M, K] : L[D].Terms)
        for (int S : M)
          if (S >= SymParam0 || S % SymDimStride == SymCtaid || S % SymDimStride == SymNctaid)
            return std::nullopt; // in-block coordinates of tid and ntid only
      bool Used = llvm::any_of(RF->Digits, [&](const IndexDigit &Dg) { return Dg.Dim == D; });
      if (!Used && !L[D].Terms.empty())
        return std::nullopt;
      // 0 <= l_d <= ntid.d - 1 over the block's threads.
      auto R = L[D].gridRange();
      IndexPoly Top = IndexPoly::symbol(symNtid(D)) - IndexPoly::constant(1);
      if (!R || !R->first.isConstant() || R->first.constantTerm() < 0)
        return std::nullopt;
      IndexPoly Slack = Top - R->second;
      if (Slack.isConstant() && Slack.constantTerm() < 0)
        return std::nullopt;
      if (Used && !nonNegativeOverGrid(Slack))
        New.insert("le " + std::to_string(X.Stage) + " " + R->second.toExpr() + " " + Top.toExpr());
      Slot = Slot * IndexPoly::symbol(symNtid(D)) + L[D];
    }
    Slots.push_back(Slot);
  }
  // One block per element: distinct threads' stores at distinct elements.
  if (!disjointRecords(C, {*Ref}, Ref->A->Bytes, New))
    return std::nullopt;
  Guards.insert(New.begin(), New.end());
  return Slots;
}

static std::optional<std::vector<int64_t>> stridedFields(const FusionCandidate &C,
                                                        const std::vector<StagedAccess> &Accs,
                                                        const std::vector<IndexPoly> &Deltas);

/// Thread records: every access is at Offset = sum(Coef * digit) + r0 + d
/// with one set of digits for all, one base r0 free of the coordinates and
/// a constant d per access, and distinct threads' records, the bytes each
/// thread's accesses span, never overlap (disjointRecords). Then each thread
/// touches a record of its own (an element, or the fields of a struct or a
/// small matrix stored instance by instance) and no other thread's: every
/// hazard between stages is within one thread. Returns d for each access,
/// or std::nullopt when the buffer is not laid out so; the guards the
/// layout needs at run time go to \p Guards. Where the d are not constants
/// but multiples of one stride only the launch knows, the accesses may be
/// strided fields (stridedFields).
static std::optional<std::vector<int64_t>>
threadRecords(const FusionCandidate &C, const std::vector<StagedAccess> &Accs,
              std::set<std::string> &Guards) {
  std::vector<int64_t> D;
  std::vector<IndexPoly> Deltas;
  int64_t Lo = 0, Hi = 0;
  bool Constant = true;
  std::optional<IndexPoly> Base;
  for (const StagedAccess &X : Accs) {
    if (X.A->UnknownIndex)
      return std::nullopt;
    auto F = digitsOf(X.Offset);
    if (!F)
      return std::nullopt;
    if (!Base)
      Base = F->Rest;
    Deltas.push_back(F->Rest - *Base);
    if (!Deltas.back().isConstant()) {
      Constant = false;
      continue;
    }
    int64_t Dk = Deltas.back().constantTerm();
    Lo = D.empty() ? Dk : std::min(Lo, Dk);
    Hi = D.empty() ? Dk + X.A->Bytes : std::max(Hi, Dk + (int64_t)X.A->Bytes);
    D.push_back(Dk);
  }
  if (!Constant)
    return stridedFields(C, Accs, Deltas);
  if (!disjointRecords(C, Accs, Hi - Lo, Guards))
    return std::nullopt;
  return D;
}

/// The greatest common divisor of \p P's coefficients, with the sign of its
/// last (leading) term; 0 for the zero polynomial.
static int64_t content(const IndexPoly &P) {
  int64_t G = 0;
  for (auto &[M, K] : P.Terms)
    G = std::gcd(G, K < 0 ? -K : K);
  if (G && P.Terms.rbegin()->second < 0)
    G = -G;
  return G;
}

/// Thread records whose fields lie a stride apart that only the launch
/// knows: a thread that handles several elements, each a block's width
/// from the last (`for (k = 0; k < 4; k++) t[base + k * blockDim.x]`, base
/// = ctaid.x * ntid.x * 4 + tid.x). Every access has one size B and is at
/// sum(Coef * digit) + r0 + c * S, S one polynomial of block-uniform
/// values, c an integer: its field. The fields are a further digit of the
/// mixed-radix number, of extent the number of fields between the lowest
/// and the highest, so distinct threads, and one thread's distinct fields,
/// touch distinct elements (disjointRecords, with no check left to the
/// runtime). Returns for each access its
/// field as the byte offset c * B (fields then meet only where equal), or
/// std::nullopt.
static std::optional<std::vector<int64_t>> stridedFields(const FusionCandidate &C,
                                                        const std::vector<StagedAccess> &Accs,
                                                        const std::vector<IndexPoly> &Deltas) {
  constexpr int64_t MaxFields = 64;
  const unsigned B = Accs[0].A->Bytes;
  // S: the deltas' common primitive part, times the gcd of their contents.
  std::optional<IndexPoly> Primitive;
  int64_t G = 0;
  for (const IndexPoly &Dk : Deltas) {
    if (Dk.Terms.empty())
      continue;
    if (Dk.uses(SymIter))
      return std::nullopt;
    for (auto &[M, K] : Dk.Terms)
      for (int Sym : M)
        if (isCoordinate(Sym))
          return std::nullopt;
    int64_t Ck = content(Dk);
    IndexPoly P;
    for (auto &[M, K] : Dk.Terms)
      P.Terms[M] = K / Ck;
    if (Primitive && *Primitive != P)
      return std::nullopt;
    Primitive = P;
    G = std::gcd(G, Ck < 0 ? -Ck : Ck);
  }
  if (!Primitive || !G)
    return std::nullopt;
  IndexPoly S = *Primitive * IndexPoly::constant(G);
  std::vector<int64_t> Field;
  int64_t Lo = 0, Hi = 0;
  for (size_t I = 0; I < Accs.size(); ++I) {
    if (Accs[I].A->Bytes != B)
      return std::nullopt;
    int64_t F = Deltas[I].Terms.empty() ? 0 : content(Deltas[I]) / G;
    Lo = I ? std::min(Lo, F) : F;
    Hi = I ? std::max(Hi, F) : F;
    Field.push_back(F);
  }
  if (Hi - Lo + 1 > MaxFields)
    return std::nullopt;
  // Proven here or not at all: a layout that needs the runtime to check it
  // (`t[i]` against `t[i + blockDim.x]` over a grid of more than one block,
  // which it never is) would make a fused kernel that never runs.
  std::set<std::string> New;
  if (!disjointRecords(C, Accs, B, New, std::make_pair(S, Hi - Lo + 1)) || !New.empty())
    return std::nullopt;
  std::vector<int64_t> D;
  for (int64_t F : Field)
    D.push_back((F - Lo) * int64_t(B));
  return D;
}

bool kfuse::inThreadRecords(const FusionCandidate &C, unsigned V) {
  std::vector<StagedAccess> Accs;
  for (unsigned S = 0; S < C.size(); ++S) {
    const KernelInfo *K = C.Stages[S];
    if (!K || !K->isValid() || K->Params.size() != C.launch(S).Args.size())
      continue;
    for (const Access &A : K->Accesses)
      if (C.arg(S, A.Param) == V)
        Accs.push_back({S, &A, C.valueOffset(S, A)});
  }
  std::set<std::string> Guards;
  return !Accs.empty() && threadRecords(C, Accs, Guards).has_value();
}

/// Launch \p Stage of \p C, for remarks: `launch 1 (clamp01)`.
static std::string launchText(const FusionCandidate &C, unsigned Stage) {
  return "launch " + std::to_string(C.index(Stage)) + " (" +
         shortName(C.Stages[Stage]->F->getName()) + ")";
}

/// \p P, a polynomial over the record's value numbers, in the source's words.
static std::string offsetText(const FusionCandidate &C, const IndexPoly &P) {
  return polyText(P, nullptr, [&](unsigned V) {
    auto It = C.Seq->Values.find(V);
    return It == C.Seq->Values.end() ? std::string() : It->second.Text;
  });
}

static std::string describe(const FusionCandidate &C, const StagedAccess &S) {
  return launchText(C, S.Stage) + " " + (S.A->IsStore ? "writes" : "reads") +
         " it at byte offset " + offsetText(C, S.Offset);
}

/// For rowCarried and spanCarried: the first access of \p Accs that reaches
/// the buffer otherwise than \p Ref, or null where none does. Alike means
/// at the same Offset in value numbers (which a row's or a span's form
/// names), as the same type, with \p Same (the part of the form the Offset
/// leaves out: a row's divisor, a span's count), in a launch of the same
/// grid and block; \p Shape says that the grid or block is what differs.
template <class SameFn>
static const StagedAccess *unlike(const FusionCandidate &C, const std::vector<StagedAccess> &Accs,
                                  const StagedAccess &Ref, SameFn Same, bool &Shape) {
  const SeqLaunch &L0 = C.launch(Ref.Stage);
  for (const StagedAccess &X : Accs) {
    Shape = false;
    if (X.Offset != Ref.Offset || X.A->Ty != Ref.A->Ty || !Same(X))
      return &X;
    Shape = C.launch(X.Stage).Grid != L0.Grid || C.launch(X.Stage).Block != L0.Block;
    if (Shape)
      return &X;
  }
  return nullptr;
}

/// A buffer that a stage of \p C writes and that some access of the group
/// reaches through a row of the linear index (Access::Row, `glob_id + row`
/// with `row = glob_id / (x_max + 4)`): legal where every access of the
/// group is at one Coef * g + QCoef * (g / Div) + Rest (Div and Rest the
/// same values), with one element type and one grid and block, and Coef at
/// least the element's bytes. With Div >= 1 (a guard) the offset then grows
/// by Coef bytes or more from one thread's g to the next, so distinct
/// threads touch distinct elements and each element crosses within its own
/// thread: forwarded in a register where a later stage reads what an
/// earlier one stored, in program order otherwise. False, with \p C
/// invalidated, where not.
static bool rowCarried(FusionCandidate &C, const SeqRecord &R, unsigned V,
                       const std::vector<StagedAccess> &Accs) {
  const StagedAccess *Ref =
      &*llvm::find_if(Accs, [](const StagedAccess &X) { return X.A->Row.has_value(); });
  const Access::RowIndex &Form = *Ref->A->Row;
  const IndexPoly Div = C.valuePoly(Ref->Stage, Form.Div);
  auto Refuse = [&](const StagedAccess &X, const std::string &Why) {
    C.invalidate("buffer '" + R.Values.at(V).Text + "': " + launchText(C, Ref->Stage) + " " +
                     (Ref->A->IsStore ? "writes" : "reads") +
                     " it at a row of its linear index, (blockIdx.x*blockDim.x + "
                     "threadIdx.x) / (" + offsetText(C, Div) + "), that the index does not "
                     "put back together with the remainder, and " + Why,
                 "row", X.A->Inst);
    return false;
  };
  bool Shape = false;
  if (const StagedAccess *X = unlike(
          C, Accs, *Ref,
          [&](const StagedAccess &Y) {
            return Y.A->Row && C.valuePoly(Y.Stage, Y.A->Row->Div) == Div;
          },
          Shape))
    return Refuse(*X, launchText(C, X->Stage) +
                          (Shape ? " runs another grid or block; launch both with the same "
                                   "grid and block"
                                 : std::string(X->A->IsStore ? " writes" : " reads") +
                                       " it at another index or as another type; to fuse, "
                                       "every kernel must access the buffer at the same "
                                       "index, so that each thread reads the elements it "
                                       "wrote itself"));
  if (Form.Coef < int64_t(Ref->A->Bytes))
    return Refuse(*Ref, "its threads' elements overlap (the index advances by " +
                            std::to_string(Form.Coef) + " bytes a thread, less than the " +
                            std::to_string(Ref->A->Bytes) + "-byte element)");
  C.Layout.insert("le " + std::to_string(Ref->Stage) + " 1 " + Form.Div.toExpr());
  bool RAW = false;
  for (const StagedAccess &X : Accs)
    for (const StagedAccess &Y : Accs)
      RAW |= X.A->IsStore && !Y.A->IsStore && X.Stage < Y.Stage;
  if (!RAW)
    return true; // WAR and WAW: each thread runs its stages in order
  Intermediate I;
  I.Value = V;
  I.Mech = Mechanism::Forward;
  I.Slots.push_back({Ref->Offset, Ref->A->Ty});
  for (const StagedAccess &X : Accs)
    if (X.A->IsStore) {
      I.DeadLaunch = C.index(X.Stage);
      I.DeadParam = X.A->Param;
    }
  C.Carried.push_back(I);
  return true;
}

/// A buffer that a stage of \p C writes and that some access of the group
/// reaches in a loop over the thread's own record of a run-time length
/// (Access::Span, `v[i * ncomp + c]` for c < ncomp): legal where every
/// access of the group is at one Coef * g + Rest + Step * k, k < Count
/// (Coef, Rest and Count the same values), with one element type and one
/// grid and block. With Coef >= Step * Count (a guard) a thread's record
/// ends before the next thread's begins, so each thread touches its own
/// elements alone; they stay in memory, each thread's later stages reading
/// what its earlier ones stored, in program order. False, with \p C
/// invalidated, where not.
static bool spanCarried(FusionCandidate &C, const SeqRecord &R, unsigned V,
                        const std::vector<StagedAccess> &Accs) {
  const StagedAccess *Ref =
      &*llvm::find_if(Accs, [](const StagedAccess &X) { return X.A->Span.has_value(); });
  const Access::SpanIndex &Form = *Ref->A->Span;
  const IndexPoly Count = C.valuePoly(Ref->Stage, Form.Count);
  bool Shape = false;
  if (const StagedAccess *X = unlike(
          C, Accs, *Ref,
          [&](const StagedAccess &Y) {
            return Y.A->Span && C.valuePoly(Y.Stage, Y.A->Span->Count) == Count;
          },
          Shape)) {
    C.invalidate("buffer '" + R.Values.at(V).Text + "': " + launchText(C, Ref->Stage) + " " +
                     (Ref->A->IsStore ? "writes" : "reads") +
                     " it in a loop over the thread's elements, " + offsetText(C, Ref->Offset) +
                     " for k below " + offsetText(C, Count) + ", and " +
                     launchText(C, X->Stage) +
                     (Shape ? " runs another grid or block; launch both with the same grid "
                              "and block"
                            : std::string(X->A->IsStore ? " writes" : " reads") +
                                  " it at another index, over another count or as another "
                                  "type; to fuse, every kernel must loop over the same "
                                  "elements of the thread's record"),
                 "span", X->A->Inst);
    return false;
  }
  C.Layout.insert("le " + std::to_string(Ref->Stage) + " " +
                  (IndexPoly::constant(Form.Step) * Form.Count).toExpr() + " " +
                  Form.Coef.toExpr());
  return true;
}

/// The configuration items launches \p A and \p B differ in, with their
/// source text: `grid ('g1' and 'g2')`.
static std::string configDiff(const SeqRecord &R, const SeqLaunch &A, const SeqLaunch &B) {
  std::string Out;
  auto Item = [&](const char *What, unsigned VA, unsigned VB) {
    if (VA == VB)
      return;
    auto Text = [&](unsigned V) {
      auto It = R.Values.find(V);
      return It == R.Values.end() ? std::string("?") : It->second.Text;
    };
    Out += std::string(Out.empty() ? "" : ", ") + What + " ('" + Text(VA) + "' and '" +
           Text(VB) + "')";
  };
  Item("grid", A.Grid, B.Grid);
  Item("block", A.Block, B.Block);
  Item("dynamic shared memory", A.Shmem, B.Shmem);
  Item("stream", A.Stream, B.Stream);
  return Out;
}

/// The widest neighbourhood halo recomputation fills: a consumer may read
/// its producer's values at most this many elements from its own.
static constexpr int64_t MaxHalo = 32;

std::optional<int64_t> kfuse::elementShift(const IndexPoly &O, unsigned Bytes) {
  IndexPoly Own = IndexPoly::constant(Bytes) *
                  (IndexPoly::symbol(SymCtaid) * IndexPoly::symbol(SymNtid) +
                   IndexPoly::symbol(SymTid));
  IndexPoly D = O - Own;
  if (!D.isConstant() || D.constantTerm() % int64_t(Bytes))
    return std::nullopt;
  return D.constantTerm() / int64_t(Bytes);
}

/// Whether the checks on the way to load \p X keep the coordinate it reads
/// in dimension \p Dim, its own g_d shifted by \p Shift, inside [0, n) for
/// the record's value \p N: g_d + Shift >= 0 from Access::MinG, and g_d <=
/// n + c with c + Shift <= -1 from Access::MaxG (`if (i > 0 && i < n - 1)`
/// around reads of t[i-1] and t[i+1]).
static bool readInside(const FusionCandidate &C, const StagedAccess &X, unsigned Dim,
                       int64_t Shift, unsigned N) {
  bool Below = llvm::any_of(X.A->MaxG[Dim], [&](const std::pair<unsigned, int64_t> &U) {
    return C.arg(X.Stage, U.first) == N && U.second + Shift <= -1;
  });
  return Below && X.A->MinG[Dim] + Shift >= 0;
}

/// Whether every element of a halo buffer that a later stage reads is one
/// the producer stores: each store of \p Producer is made by every thread
/// with g < n (g = ctaid.x*ntid.x + tid.x, Access::EveryBelow), and each
/// load at g + d is under checks that prove 0 <= g + d and g + d <= n - 1
/// for the same n (Access::MinG, MaxG: `if (i > 0 && i < n - 1)` covers
/// t[i-1] and t[i+1]). With one thread per element below n (the manifest
/// guard n <= bx*gx), the element's thread exists and has stored it into
/// the tile before the barrier.
static bool haloExact(const FusionCandidate &C, const std::vector<StagedAccess> &Accs,
                      int Producer) {
  std::optional<unsigned> N;
  for (const StagedAccess &X : Accs) {
    if (!X.A->IsStore)
      continue;
    if (!X.A->EveryBelow[0])
      return false;
    unsigned V = C.arg(Producer, *X.A->EveryBelow[0]);
    if (N && *N != V)
      return false;
    N = V;
  }
  for (const StagedAccess &X : Accs) {
    if (X.A->IsStore)
      continue;
    if (!readInside(C, X, 0, *elementShift(X.Offset, X.A->Bytes), *N))
      return false;
  }
  return true;
}

/// The first read in \p F of a special register that a thread running
/// another thread's elements sees differently (%laneid, %warpid, %smid,
/// %clock, ...): every one but tid.x and ctaid.x, which the recomputation
/// replaces, and the extents, which all threads share. Null when none.
static const Instruction *haloUnsafeRegister(const Function &F, bool Grid) {
  for (const BasicBlock &BB : F)
    for (const Instruction &I : BB) {
      const auto *II = dyn_cast<IntrinsicInst>(&I);
      if (!II || !II->getCalledFunction()->getName().starts_with("llvm.nvvm.read.ptx.sreg."))
        continue;
      int Sym = sregSymbol(II);
      if (Sym < 0 || (isCoordinate(Sym) && !Grid && Sym != SymTid && Sym != SymCtaid))
        return II;
    }
  return nullptr;
}

/// Refuses \p C when stage \p Producer, to be run again for the halo of
/// buffer \p Buf by other threads than the elements' own, reads a special
/// register those threads see differently (haloUnsafeRegister); true if so.
static bool refuseUnsafeRegister(FusionCandidate &C, unsigned Producer, const std::string &Buf,
                                 bool Grid);

namespace {
/// Whether one of the special ways of carrying a buffer (halo
/// recomputation, staging across granularities) takes it: No leaves it to
/// the usual checks, Refused has invalidated the candidate.
enum class CarryFit { No, Yes, Refused };
} // namespace

/// Halo recomputation (1-D): one stage stores buffer \p V, each thread at
/// its own element ctaid.x*ntid.x + tid.x, no stage up to it reads the
/// buffer, and later stages read it at constant shifts, some not 0: a
/// consumer reads its producer's neighbours (`t[i-1] + t[i+1]`), which
/// threads of other blocks store. The fused block then runs the producer for
/// its own elements and, in Lo+Hi of its threads, for the Lo elements before
/// and the Hi after them, each as the thread of the neighbouring block whose
/// element it is (FusedKernel.cpp), all into one shared tile. Running a
/// thread of another block again gives its values only if it sees what that
/// thread saw: no special register but the indices and extents
/// (haloUnsafeRegister), and inputs no stage changes or that an earlier
/// stage computes for the halo too (growHalos). (Its calls read no thread
/// index: the kernel analysis refuses those; and its store's offset counts
/// no grid-stride iterations.) \p Grown: the buffer is an input of a
/// recomputed stage, a halo buffer even where its readers read their own
/// elements only. Returns No when the accesses do not have this form (the
/// usual rules decide), Yes with \p I filled, or Refused with \p C
/// invalidated.
static CarryFit haloCarried(FusionCandidate &C, unsigned V, const std::vector<StagedAccess> &Accs,
                           Intermediate &I, bool Grown = false) {
  const SeqRecord &R = *C.Seq;
  int Producer = -1;
  const Access *Store = nullptr;
  for (const StagedAccess &X : Accs) {
    if (!X.A->IsStore)
      continue;
    std::optional<int64_t> D = elementShift(X.Offset, X.A->Bytes);
    if (X.A->UnknownIndex || !D || *D != 0 || (Producer >= 0 && Producer != int(X.Stage)) ||
        (Store && Store->Ty != X.A->Ty))
      return CarryFit::No;
    Producer = int(X.Stage);
    Store = X.A;
  }
  if (!Store)
    return CarryFit::No;
  int64_t Lo = 0, Hi = 0, FarShift = 0;
  const StagedAccess *Far = nullptr;
  for (const StagedAccess &X : Accs) {
    if (X.A->IsStore)
      continue;
    if (int(X.Stage) <= Producer || X.A->UnknownIndex || X.A->Ty != Store->Ty)
      return CarryFit::No;
    std::optional<int64_t> D = elementShift(X.Offset, Store->Bytes);
    if (!D)
      return CarryFit::No;
    Lo = std::max(Lo, -*D);
    Hi = std::max(Hi, *D);
    if (!Far && (*D > MaxHalo || -*D > MaxHalo)) {
      Far = &X;
      FarShift = *D;
    }
  }
  if (Lo == 0 && Hi == 0 && !Grown)
    return CarryFit::No; // every thread reads its own element: forwarding
  std::string Buf = "buffer '" + R.Values.at(V).Text + "'";
  if (refuseUnsafeRegister(C, unsigned(Producer), Buf, /*Grid=*/false))
    return CarryFit::Refused;
  if (Far) {
    C.invalidate(Buf + ": " + describe(C, *Far) + ", " +
                     std::to_string(FarShift < 0 ? -FarShift : FarShift) +
                     " elements from its thread's own; halo fusion recomputes at most " +
                     std::to_string(MaxHalo) + " elements on each side of a block",
                 "halo", Far->A->Inst);
    return CarryFit::Refused;
  }
  I.HaloExact = haloExact(C, Accs, Producer);
  if (I.HaloExact)
    C.Layout.insert("le " + std::to_string(Producer) + " s" +
                    std::to_string(*Store->EveryBelow[0]) + " bx*gx");
  I.Value = V;
  I.Mech = Mechanism::Halo;
  I.Ty = Store->Ty;
  I.Bytes = Store->Bytes;
  I.HaloStage = unsigned(Producer);
  I.HaloLo[0] = unsigned(Lo);
  I.HaloHi[0] = unsigned(Hi);
  I.DeadLaunch = C.index(Producer);
  I.DeadParam = Store->Param;
  return CarryFit::Yes;
}

static bool refuseUnsafeRegister(FusionCandidate &C, unsigned Producer, const std::string &Buf,
                                 bool Grid) {
  const Instruction *Reg = haloUnsafeRegister(*C.Stages[Producer]->Body, Grid);
  if (!Reg)
    return false;
  C.invalidate(Buf + ": later launches read it at neighbouring elements, so " +
                   launchText(C, Producer) +
                   " would be run again for the elements next to each block's own, by "
                   "other threads than their own, but it reads %" +
                   cast<CallBase>(Reg)
                       ->getCalledFunction()
                       ->getName()
                       .drop_front(strlen("llvm.nvvm.read.ptx.sreg."))
                       .str() +
                   ", which would then differ",
               "halo", Reg);
  return true;
}

static int64_t floorDiv(int64_t A, int64_t B) {
  return A / B - ((A % B != 0) && ((A < 0) != (B < 0)));
}

std::optional<std::array<int64_t, 3>> kfuse::gridShift(IndexPoly Diff,
                                                       const std::vector<IndexDigit> &Digits,
                                                       unsigned Bytes) {
  std::array<int64_t, 3> Shift = {0, 0, 0};
  const IndexDigit *ByDim[3] = {nullptr, nullptr, nullptr};
  for (const IndexDigit &D : Digits) {
    if (D.K != IndexDigit::Global || ByDim[D.Dim])
      return std::nullopt;
    ByDim[D.Dim] = &D;
  }
  if (!ByDim[0] || ByDim[0]->Coef != IndexPoly::constant(Bytes))
    return std::nullopt;
  // The outer dimensions first: each takes its multiple out of Diff.
  for (unsigned Dim = 3; Dim-- > 1;) {
    if (!ByDim[Dim])
      continue;
    const IndexPoly &Coef = ByDim[Dim]->Coef;
    if (Coef.isConstant()) {
      int64_t K = Coef.constantTerm();
      if (K <= 0 || !Diff.isConstant())
        return std::nullopt;
      Shift[Dim] = floorDiv(Diff.constantTerm() + K / 2, K);
    } else {
      auto &[Lead, K] = *Coef.Terms.rbegin();
      auto It = Diff.Terms.find(Lead);
      int64_t Have = It == Diff.Terms.end() ? 0 : It->second;
      if (Have % K)
        return std::nullopt;
      Shift[Dim] = Have / K;
    }
    Diff = Diff - IndexPoly::constant(Shift[Dim]) * Coef;
  }
  if (!Diff.isConstant() || Diff.constantTerm() % int64_t(Bytes))
    return std::nullopt;
  Shift[0] = Diff.constantTerm() / int64_t(Bytes);
  return Shift;
}

static const char *const DimName[3] = {"x", "y", "z"};

/// Halo recomputation in 2-D and 3-D: one stage stores buffer \p V, each
/// thread the element of its global coordinates (x, y, z) in a row-major
/// array, offset sum_d C_d * g_d + r with C_x the element size and a row
/// pitch, plane size or constant in the others (`q[y * w + x]`), and later
/// stages read it at constant shifts (`q[(y - 1) * w + x]`). The fused
/// block keeps its box of the buffer, widened by the shifts, in a shared
/// tile; its threads fill the widening by running the producer again as
/// the threads whose elements those are (FusedKernel.cpp).
///
/// Unlike 1-D there are no written flags: a row-major element outside the
/// producer's box aliases one inside it (x = -1 is the end of the row
/// before), so every element read must be proven one the producer stores.
/// The store's only condition is `g_d < n_d` in each of its dimensions
/// (Access::EveryBelow), every read is under checks that keep each shifted
/// coordinate in [0, n_d) (Access::MinG, MaxG: `if (x > 0 && x < w - 1 &&
/// y > 0 && y < h - 1)`), and the runtime checks that the layout gives each
/// element of the box its own address (n_x <= w) and that the launch has a
/// thread for each (n_d <= ntid.d * nctaid.d). \p Grown: the buffer is an
/// input of a recomputed stage (growHalos), a halo buffer even where its
/// readers read their own cells. Returns No when the accesses do not have
/// this form (the usual rules decide), Yes with \p I filled, or Refused
/// with \p C invalidated.
static CarryFit haloGrid(FusionCandidate &C, unsigned V, const std::vector<StagedAccess> &Accs,
                        Intermediate &I, bool Grown = false) {
  const SeqRecord &R = *C.Seq;
  int Producer = -1;
  const StagedAccess *Store = nullptr;
  for (const StagedAccess &X : Accs) {
    if (!X.A->IsStore)
      continue;
    if (X.A->UnknownIndex || (Producer >= 0 && Producer != int(X.Stage)) ||
        (Store && (Store->A->Ty != X.A->Ty || Store->Offset != X.Offset)))
      return CarryFit::No;
    Producer = int(X.Stage);
    Store = &X;
  }
  if (!Store)
    return CarryFit::No;
  std::optional<DigitForm> Form = digitsOf(Store->Offset);
  if (!Form || !gridShift(IndexPoly(), Form->Digits, Store->A->Bytes) ||
      llvm::none_of(Form->Digits, [](const IndexDigit &D) { return D.Dim > 0; }))
    return CarryFit::No;
  std::array<int64_t, 3> Lo = {0, 0, 0}, Hi = {0, 0, 0};
  bool Shifted = false;
  const StagedAccess *Far = nullptr;
  for (const StagedAccess &X : Accs) {
    if (X.A->IsStore)
      continue;
    if (int(X.Stage) <= Producer || X.A->UnknownIndex || X.A->Ty != Store->A->Ty)
      return CarryFit::No;
    auto S = gridShift(X.Offset - Store->Offset, Form->Digits, Store->A->Bytes);
    if (!S)
      return CarryFit::No;
    for (unsigned D = 0; D < 3; ++D) {
      Lo[D] = std::max(Lo[D], -(*S)[D]);
      Hi[D] = std::max(Hi[D], (*S)[D]);
      Shifted |= (*S)[D] != 0;
      if (!Far && ((*S)[D] > MaxHalo || -(*S)[D] > MaxHalo))
        Far = &X;
    }
    I.HaloShift[X.A] = *S;
  }
  if (!Shifted && !Grown)
    return CarryFit::No; // every thread reads its own element: forwarding or staging
  std::string Buf = "buffer '" + R.Values.at(V).Text + "'";
  if (refuseUnsafeRegister(C, unsigned(Producer), Buf, /*Grid=*/true))
    return CarryFit::Refused;
  if (Far) {
    C.invalidate(Buf + ": " + describe(C, *Far) +
                     ", more than " + std::to_string(MaxHalo) +
                     " elements from its thread's own in some dimension; halo fusion "
                     "recomputes at most " +
                     std::to_string(MaxHalo) + " on each side of a block",
                 "halo", Far->A->Inst);
    return CarryFit::Refused;
  }
  // Exactness: n_d, the producer's bound in each dimension of the layout.
  std::optional<unsigned> N[3];
  for (const IndexDigit &D : Form->Digits) {
    if (!Store->A->EveryBelow[D.Dim]) {
      C.invalidate(Buf + ": later launches read it at neighbouring elements in " +
                       std::to_string(Form->Digits.size()) + "-D, and " +
                       launchText(C, Store->Stage) +
                       " stores it under other conditions than one bound per coordinate; "
                       "write the producer's check as `if (x < w && y < h)` (or `if (x >= "
                       "w || y >= h) return;`) with nothing else before the store",
                   "halo", Store->A->Inst);
      return CarryFit::Refused;
    }
    N[D.Dim] = C.arg(Producer, *Store->A->EveryBelow[D.Dim]);
  }
  for (const StagedAccess &X : Accs) {
    if (X.A->IsStore)
      continue;
    const std::array<int64_t, 3> &S = I.HaloShift[X.A];
    for (const IndexDigit &D : Form->Digits) {
      if (readInside(C, X, D.Dim, S[D.Dim], *N[D.Dim]))
        continue;
      std::string Bound = R.Values.at(*N[D.Dim]).Text;
      C.invalidate(Buf + ": " + describe(C, X) +
                       ", and nothing proves the element it reads is one " +
                       launchText(C, Producer) + " stores, inside [0, " + Bound + ") in " +
                       DimName[D.Dim] +
                       "; in 2-D and 3-D halo fusion needs the reader's own checks to keep "
                       "every neighbour inside the producer's bounds (`if (" +
                       DimName[D.Dim] + " > 0 && " + DimName[D.Dim] + " < " + Bound +
                       " - 1)` around a read at " + DimName[D.Dim] + " - 1 and " +
                       DimName[D.Dim] + " + 1)",
                   "halo", X.A->Inst);
      return CarryFit::Refused;
    }
  }
  // The guards: one address per element of the box (each coefficient at
  // least the extent of the dimensions below it), a thread per element, and
  // the widened box within the tile.
  auto Value = [](unsigned V) { return IndexPoly::symbol(SymValue0 + V); };
  std::vector<std::string> New;
  IndexPoly Below = IndexPoly::constant(1); // elements per step of the next dimension
  for (unsigned D = 0; D < 3; ++D) {
    auto It = llvm::find_if(Form->Digits, [&](const IndexDigit &G) { return G.Dim == D; });
    if (It == Form->Digits.end())
      continue;
    IndexPoly Step;
    for (auto &[M, K] : It->Coef.Terms) {
      if (K % int64_t(Store->A->Bytes))
        return CarryFit::No;
      Step.Terms[M] = K / int64_t(Store->A->Bytes);
    }
    if (D > 0 && Below != Step) // the pitch is the width: nothing to check
      New.push_back(Below.toExpr() + " " + Step.toExpr());
    Below = Step * Value(*N[D]);
    New.push_back(Value(*N[D]).toExpr() + " b" + DimName[D] + "*g" + DimName[D]);
  }
  std::vector<std::string> Lines;
  for (const std::string &G : New) {
    Lines.push_back(launchExpr(C, G));
    if (Lines.back().empty())
      return CarryFit::No;
  }
  C.Layout.insert(Lines.begin(), Lines.end());
  I.Value = V;
  I.Mech = Mechanism::Halo;
  I.HaloGrid = true;
  I.HaloExact = true;
  I.Ty = Store->A->Ty;
  I.Bytes = Store->A->Bytes;
  I.HaloStage = unsigned(Producer);
  for (unsigned D = 0; D < 3; ++D) {
    I.HaloLo[D] = unsigned(Lo[D]);
    I.HaloHi[D] = unsigned(Hi[D]);
  }
  I.DeadLaunch = C.index(Producer);
  I.DeadParam = Store->A->Param;
  return CarryFit::Yes;
}

/// Halo growth: a stage run again for a halo must see, for those elements,
/// the inputs it saw when it ran as their own threads. An input no launch
/// of the group writes is as it was; one that an earlier stage stores, each
/// thread its own element, becomes a halo buffer of that stage too, wide
/// enough for what the recomputation reads of it (its halo plus the reach
/// of the reads: `d2 = d1[i+1] - d1[i-1]` after `d1 = f[i+1] - f[i-1]`
/// after a flux f gives d1 a halo of 1 and f one of 2), and that stage is
/// recomputed in turn. Anything else (an input a later stage writes, as in
/// an update in place, or one staged within the block) refuses the group.
static bool growHalos(FusionCandidate &C,
                      std::map<unsigned, std::vector<StagedAccess>> &ByValue) {
  const SeqRecord &R = *C.Seq;
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (size_t K = 0; K < C.Carried.size(); ++K) {
      if (C.Carried[K].Mech != Mechanism::Halo)
        continue;
      unsigned P = C.Carried[K].HaloStage;
      bool Grid = C.Carried[K].HaloGrid;
      int64_t Lo[3] = {0, 0, 0}, Hi[3] = {0, 0, 0};
      for (const Intermediate &J : C.Carried)
        if (J.Mech == Mechanism::Halo && J.HaloStage == P)
          for (unsigned D = 0; D < 3; ++D) {
            Lo[D] = std::max<int64_t>(Lo[D], J.HaloLo[D]);
            Hi[D] = std::max<int64_t>(Hi[D], J.HaloHi[D]);
          }
      for (const Access &A : C.Stages[P]->Accesses) {
        unsigned W = C.arg(P, A.Param);
        if (A.IsStore || readOnlyValue(C, W))
          continue;
        auto J = llvm::find_if(C.Carried, [&](const Intermediate &X) { return X.Value == W; });
        Intermediate Grown;
        CarryFit Fit = CarryFit::No;
        std::array<int64_t, 3> Shift = {0, 0, 0};
        std::optional<int64_t> D =
            A.UnknownIndex || Grid ? std::nullopt : elementShift(C.valueOffset(P, A), A.Bytes);
        bool Known = !A.UnknownIndex && (Grid || D);
        if (Known && J != C.Carried.end() && J->Mech != Mechanism::Stage)
          Fit = J->Mech == Mechanism::Halo ? CarryFit::Yes
                : Grid ? haloGrid(C, W, ByValue[W], Grown, /*Grown=*/true)
                       : haloCarried(C, W, ByValue[W], Grown, /*Grown=*/true);
        if (Fit == CarryFit::Refused)
          return false;
        if (Fit == CarryFit::No || (J->Mech != Mechanism::Halo && Grown.HaloStage >= P)) {
          C.invalidate("buffer '" + R.Values.at(C.Carried[K].Value).Text +
                           "': later launches read it at neighbouring elements, so " +
                           launchText(C, P) +
                           " would be run again for the elements next to each block's own, "
                           "but it reads '" + R.Values.at(W).Text +
                           "', which a launch of the group writes other than one element "
                           "per thread before it; recomputing needs inputs that no launch "
                           "of the group changes, or that an earlier one computes element "
                           "by element (write the result to another buffer)",
                       "halo", A.Inst);
          return false;
        }
        if (J->Mech != Mechanism::Halo) {
          *J = Grown;
          Changed = true;
        }
        if (Grid)
          Shift = J->HaloShift.at(&A);
        else
          Shift[0] = *D;
        for (unsigned Dim = 0; Dim < 3; ++Dim) {
          unsigned NeedLo = unsigned(Lo[Dim] + std::max<int64_t>(0, -Shift[Dim])),
                   NeedHi = unsigned(Hi[Dim] + std::max<int64_t>(0, Shift[Dim]));
          if (NeedLo > J->HaloLo[Dim] || NeedHi > J->HaloHi[Dim]) {
            J->HaloLo[Dim] = std::max(J->HaloLo[Dim], NeedLo);
            J->HaloHi[Dim] = std::max(J->HaloHi[Dim], NeedHi);
            Changed = true;
          }
          if (J->HaloLo[Dim] > unsigned(4 * MaxHalo) || J->HaloHi[Dim] > unsigned(4 * MaxHalo)) {
            C.invalidate("buffer '" + R.Values.at(W).Text + "': the stencils of the group read " +
                             std::to_string(std::max(J->HaloLo[Dim], J->HaloHi[Dim])) +
                             " elements beyond a block through the stages that compute from "
                             "it; halo fusion recomputes at most " +
                             std::to_string(4 * MaxHalo),
                         "halo", A.Inst);
            return false;
          }
        }
      }
    }
  }
  return true;
}

/// Whether two parameters that receive the same value conflict: either
/// writes through it.
static bool accessed(const ParamInfo &P) { return P.IsPointer && (P.Read || P.Written); }
static bool conflict(const ParamInfo &A, const ParamInfo &B) {
  return accessed(A) && accessed(B) && (A.Written || B.Written);
}

bool kfuse::launchesConflict(const SeqLaunch &A, const KernelInfo &KA, const SeqLaunch &B,
                             const KernelInfo &KB) {
  for (unsigned P = 0; P < KA.Params.size() && P < A.Args.size(); ++P)
    for (unsigned Q = 0; Q < KB.Params.size() && Q < B.Args.size(); ++Q)
      if (A.Args[P] == B.Args[Q] && conflict(KA.Params[P], KB.Params[Q]))
        return true;
  return false;
}

bool kfuse::swapKeepsOrder(const SeqRecord &R, unsigned X, const KernelInfo &KX, unsigned Y,
                           const KernelInfo &KY, std::vector<std::array<unsigned, 4>> &Disjoint) {
  const SeqLaunch &LX = R.Launches[X], &LY = R.Launches[Y];
  for (unsigned P = 0; P < KX.Params.size() && P < LX.Args.size(); ++P)
    for (unsigned Q = 0; Q < KY.Params.size() && Q < LY.Args.size(); ++Q) {
      if (!conflict(KX.Params[P], KY.Params[Q]))
        continue;
      if (LX.Args[P] == LY.Args[Q])
        return false;
      Disjoint.push_back({X, P, Y, Q});
    }
  return true;
}

/// Riders run unfused after the fused kernel, which moves each past the
/// members after it, or before it, which moves it before the members before
/// it. A rider must be an analysable kernel (its every global access goes
/// through a pointer parameter) on the members' stream. It runs after when
/// it shares no buffer (value number) with a later member where either
/// writes it (no read-after-write, write-after-read or write-after-write
/// between them would be reversed), else before when it shares none so
/// with an earlier member; two riders that the move reverses must not share
/// one either. Different values where one is written become RiderDisjoint
/// pairs, which the runtime checks: with every member (a buffer that
/// overlaps one whose stores the fused kernel skips is as bad as the same
/// buffer), and between reversed riders.
static bool orderRiders(FusionCandidate &C) {
  const SeqRecord &R = *C.Seq;
  const SeqLaunch &L0 = C.launch(0);
  C.RiderBefore.assign(C.Riders.size(), false);
  C.RiderForced.resize(C.Riders.size(), -1);
  for (size_t X = 0; X < C.Riders.size(); ++X) {
    const SeqLaunch &LR = R.Launches[C.Riders[X]];
    const KernelInfo &K = *C.RiderInfos[X];
    std::string Name = "launch " + std::to_string(LR.Index) + " (" + shortName(LR.Kernel) + ")";
    if (!K.isValid()) {
      C.invalidate(Name + " lies between launches to fuse and cannot move: " + K.Reason,
                   "order", K.At);
      return false;
    }
    if (LR.Args.size() != K.Params.size() || LR.Stream != L0.Stream) {
      C.invalidate(Name + " lies between launches to fuse and cannot move: " +
                       (LR.Stream != L0.Stream ? "it is on another stream"
                                               : "its arguments do not match its parameters"),
                   "order");
      return false;
    }
    // The nearest conflicting member on each side, as a stage.
    int Early = -1, Late = -1;
    for (unsigned S = 0; S < C.size(); ++S)
      if (launchesConflict(LR, K, C.launch(S), *C.Stages[S])) {
        if (C.index(S) < C.Riders[X])
          Early = int(S);
        else if (Late < 0)
          Late = int(S);
      }
    if (Late >= 0 && Early >= 0) {
      C.invalidate(Name + " cannot move out of the launches to fuse: it depends on " +
                       launchText(C, unsigned(Early)) + " before it and " +
                       launchText(C, unsigned(Late)) + " after it",
                   "order");
      return false;
    }
    // A set's order puts some riders on a side: the members of the parts
    // that run earlier before this group, those of later parts after it.
    // The side must keep every dependency.
    int Forced = C.RiderForced[X];
    if ((Forced == 1 && Early >= 0) || (Forced == 0 && Late >= 0)) {
      C.invalidate(Name + " would run " + (Forced ? "before " : "after ") +
                       launchText(C, unsigned(Forced ? Early : Late)) +
                       ", on which it depends, if the overlapping groups ran one after "
                       "the other",
                   "order");
      return false;
    }
    C.RiderBefore[X] = Forced >= 0 ? Forced == 1 : Late >= 0;
    for (unsigned P = 0; P < K.Params.size(); ++P) {
      for (unsigned S = 0; S < C.size(); ++S)
        for (unsigned Q = 0; Q < C.Stages[S]->Params.size(); ++Q)
          if (conflict(K.Params[P], C.Stages[S]->Params[Q]) && LR.Args[P] != C.arg(S, Q))
            C.RiderDisjoint.push_back({C.Riders[X], P, C.index(S), Q});
    }
  }
  // Riders keep their order within each side; an earlier one that runs
  // after and a later one that runs before change places.
  for (size_t X = 0; X < C.Riders.size(); ++X)
    for (size_t Y = X + 1; Y < C.Riders.size(); ++Y) {
      if (C.RiderBefore[X] || !C.RiderBefore[Y])
        continue;
      if (swapKeepsOrder(R, C.Riders[X], *C.RiderInfos[X], C.Riders[Y], *C.RiderInfos[Y],
                         C.RiderDisjoint))
        continue;
      const SeqLaunch &LX = R.Launches[C.Riders[X]], &LY = R.Launches[C.Riders[Y]];
      C.invalidate("launches " + std::to_string(LX.Index) + " (" + shortName(LX.Kernel) +
                       ") and " + std::to_string(LY.Index) + " (" + shortName(LY.Kernel) +
                       ") lie between launches to fuse and would change places: the "
                       "first runs after the fused kernel, the second before it",
                   "order");
      return false;
    }
  return true;
}

/// Launches of different grids run side by side in the fused kernel, in
/// blocks of their own, so they must be independent: no buffer (value
/// number) that one of them writes is accessed by another. Distinct value
/// numbers are distinct buffers, as the manifest's `disjoint` lines make the
/// runtime check.
static bool independentLaunches(FusionCandidate &C) {
  const SeqRecord &R = *C.Seq;
  std::map<unsigned, std::pair<unsigned, const Access *>> Writer; // value -> first store
  for (unsigned S = 0; S < C.size(); ++S)
    for (const Access &A : C.Stages[S]->Accesses)
      if (A.IsStore)
        Writer.try_emplace(C.arg(S, A.Param), S, &A);
  for (unsigned S = 0; S < C.size(); ++S)
    for (const Access &A : C.Stages[S]->Accesses) {
      auto It = Writer.find(C.arg(S, A.Param));
      if (It == Writer.end() || It->second.first == S)
        continue;
      unsigned W = It->second.first;
      const SeqLaunch &LW = C.launch(W), &LS = C.launch(S);
      // The dependent pair may share a grid that another launch of the
      // group does not: name a pair that differs.
      const SeqLaunch *DA = &LW, *DB = &LS;
      for (unsigned X = 0; X < C.size() && configDiff(R, *DA, *DB).empty(); ++X)
        DB = &C.launch(X);
      C.invalidate("launches " + std::to_string(std::min(DA->Index, DB->Index)) + " and " +
                       std::to_string(std::max(DA->Index, DB->Index)) +
                       " differ in launch configuration: " + configDiff(R, *DA, *DB) +
                       "; launches of different grids fuse only when independent, and "
                       "buffer '" + R.Values.at(It->first).Text + "' is written by launch " +
                       std::to_string(LW.Index) + " and " +
                       (A.IsStore ? "written" : "read") + " by launch " +
                       std::to_string(LS.Index) +
                       "; launch both kernels with the same grid (the same variables or "
                       "expressions of them)",
                   "config", A.Inst);
      return false;
    }
  return true;
}

//===----------------------------------------------------------------------===//
// Launches over the same instances at different granularities
//===----------------------------------------------------------------------===//

std::optional<std::pair<int64_t, int64_t>> kfuse::globalLinear(const IndexPoly &O) {
  int64_t CG = 0, CT = 0, D = 0;
  for (auto &[M, K] : O.Terms) {
    if (M.empty())
      D = K;
    else if (M.size() == 1 && M[0] == SymTid)
      CT = K;
    else if (M.size() == 2 && M[0] == SymNtid && M[1] == SymCtaid)
      CG = K;
    else
      return std::nullopt;
  }
  if (CG != CT || CG <= 0)
    return std::nullopt;
  return std::make_pair(CG, D);
}

/// Threads per instance of each stage, from the buffers stages share: where
/// every access to a written buffer is c_X*g + d_X, the stages meet at
/// r_X * c_X bytes per instance for all of them (`36*i` stored by a stage of
/// one thread per 3x3 matrix, `4*j` read by one of nine), which fixes the
/// ratios of their r. Each connected set of stages is scaled to the
/// smallest integers; a stage no such buffer links gets 1. Empty when every
/// stage has the same r, or when the ratios contradict each other.
static std::vector<unsigned>
stageGranularity(const FusionCandidate &C,
                 const std::map<unsigned, std::vector<StagedAccess>> &ByValue) {
  // Bytes per thread of each access, Num / Den: c, or c / Div for an
  // instance's element read by Div threads.
  struct Link {
    unsigned Stage;
    int64_t Num, Den;
  };
  std::vector<std::vector<Link>> Links;
  for (auto &[V, Accs] : ByValue) {
    if (llvm::none_of(Accs, [](const StagedAccess &X) { return X.A->IsStore; }))
      continue;
    std::vector<Link> L;
    for (const StagedAccess &X : Accs) {
      if (X.A->Instance) {
        L.push_back({X.Stage, X.A->Instance->Coef, X.A->Instance->Div});
        continue;
      }
      auto G = X.A->UnknownIndex ? std::nullopt : globalLinear(X.Offset);
      if (!G) {
        L.clear();
        break;
      }
      L.push_back({X.Stage, G->first, 1});
    }
    if (llvm::any_of(L, [&](const Link &K) { return K.Stage != L.front().Stage; }))
      Links.push_back(std::move(L));
  }
  if (Links.empty())
    return {};
  // r = Num / Den per stage, reduced; Set: the seed of its connected set.
  unsigned N = C.size();
  std::vector<int64_t> Num(N, 0), Den(N, 0);
  std::vector<unsigned> Set(N, 0);
  constexpr int64_t Limit = 1 << 20;
  for (unsigned Seed = 0; Seed < N; ++Seed) {
    if (Den[Seed])
      continue;
    Num[Seed] = Den[Seed] = 1;
    Set[Seed] = Seed;
    for (bool Changed = true; Changed;) {
      Changed = false;
      for (const std::vector<Link> &L : Links) {
        auto K = llvm::find_if(L, [&](const Link &X) { return Den[X.Stage] && Set[X.Stage] == Seed; });
        if (K == L.end())
          continue;
        for (const Link &X : L) {
          // r_X * Num_X / Den_X = r_K * Num_K / Den_K
          int64_t A = Num[K->Stage] * K->Num * X.Den, B = Den[K->Stage] * K->Den * X.Num;
          int64_t G = std::gcd(A, B);
          A /= G;
          B /= G;
          if (A > Limit || B > Limit)
            return {};
          if (!Den[X.Stage]) {
            Num[X.Stage] = A;
            Den[X.Stage] = B;
            Set[X.Stage] = Seed;
            Changed = true;
          } else if (Num[X.Stage] != A || Den[X.Stage] != B) {
            return {};
          }
        }
      }
    }
  }
  std::vector<unsigned> Tpi(N, 1);
  for (unsigned Seed = 0; Seed < N; ++Seed) {
    int64_t L = 1, G = 0;
    for (unsigned S = 0; S < N; ++S)
      if (Set[S] == Seed)
        L = std::lcm(L, Den[S]);
    for (unsigned S = 0; S < N; ++S)
      if (Set[S] == Seed)
        G = std::gcd(G, Num[S] * (L / Den[S]));
    for (unsigned S = 0; S < N; ++S)
      if (Set[S] == Seed) {
        int64_t R = Num[S] * (L / Den[S]) / G;
        if (R > Limit)
          return {};
        Tpi[S] = unsigned(R);
      }
  }
  if (llvm::all_equal(Tpi))
    return {};
  return Tpi;
}

/// What fusing across granularities needs of every stage: the fused kernel
/// gives stage S blocks of Tpi[S] * GranIpb threads (virtual ones, looped
/// over by the block's GranThreads, where there are more), and grids that cover
/// at least the original's threads, so each stage must be a 1-D map whose
/// work is all under one check `g < n` of its global index (the threads
/// past n, which the fused grid may add, do nothing), must not read
/// gridDim.x, and its launch must cover n (`le` guards: 0 <= n <= the
/// launch's threads, else the originals run).
static bool checkGranularity(FusionCandidate &C) {
  unsigned Most = *llvm::max_element(C.Tpi);
  auto Refuse = [&](unsigned S, const std::string &Why, const Instruction *At = nullptr) {
    C.invalidate("the launches run at different granularities (threads per instance " +
                     llvm::join(llvm::map_range(C.Tpi, [](unsigned R) { return std::to_string(R); }),
                                ", ") +
                     ") and " + launchText(C, S) + " " + Why,
                 "granularity", At);
    return false;
  };
  if (Most > GranBlock)
    return Refuse(unsigned(llvm::max_element(C.Tpi) - C.Tpi.begin()),
                  "needs more than " + std::to_string(GranBlock) +
                      " threads per instance");
  if (!C.Riders.empty())
    return Refuse(0, "would have launches that are not fused between its members; fuse "
                     "consecutive launches");
  for (unsigned S = 0; S < C.size(); ++S) {
    const KernelInfo &K = *C.Stages[S];
    if (K.Grid)
      return Refuse(S, "has a grid-stride loop; each stage must run one thread per element, "
                       "under `if (i < n)`");
    if (K.CoordsRead & ~((1u << SymTid) | (1u << SymCtaid)))
      return Refuse(S, "reads a y or z coordinate; only 1-D launches fuse across "
                       "granularities");
    for (const Instruction &I : instructions(*K.Body))
      if (sregSymbol(&I) == SymNctaid)
        return Refuse(S, "reads gridDim.x, which the fused kernel's grid does not keep", &I);
    std::optional<Access::CoordBound> Bound;
    for (const Access &A : K.Accesses) {
      if (!A.GlobalBound[0] || (Bound && !(*Bound == *A.GlobalBound[0])))
        return Refuse(S, "makes an access that is not under one check `i < n` of its global "
                         "index i = blockIdx.x * blockDim.x + threadIdx.x",
                      A.Inst);
      Bound = A.GlobalBound[0];
    }
    if (!Bound)
      continue;
    std::string N = Bound->text();
    C.Layout.insert("le " + std::to_string(S) + " 0 " + N);
    C.Layout.insert("le " + std::to_string(S) + " " + N + " bx*gx");
  }
  // Instances per block: at least GranInstances, so that an SM holds
  // enough of them in flight when a stage has many threads per instance
  // (2048 / 25 = 81 instances at 25); the stages with more threads than
  // the block's GranBlock then loop over their share.
  C.GranIpb = C.GranNarrow ? GranBlock / Most
                           : std::max(GranBlock / Most, std::min(GranInstances, GranBlock));
  C.GranThreads = std::min(GranBlock, Most * C.GranIpb);
  return true;
}

/// The parameter of stage \p S's check `g < n` (checkGranularity: one
/// for all its accesses).
static std::optional<unsigned> stageBound(const FusionCandidate &C, unsigned S) {
  for (const Access &A : C.Stages[S]->Accesses)
    if (A.GlobalBound[0])
      return A.GlobalBound[0]->Field ? std::nullopt : std::optional<unsigned>(A.GlobalBound[0]->Param);
  return std::nullopt;
}

/// The manifest guard that every instance stage \p S's threads below its
/// check touch, ceil(n_S / r_S), is one whose threads of stage \p P all lie
/// below P's check, floor(n_P / r_P): what P wrote or read of it, it wrote
/// or read whole.
static bool guardInstances(FusionCandidate &C, unsigned S, unsigned P) {
  auto NS = stageBound(C, S), NP = stageBound(C, P);
  if (!NS || !NP)
    return false;
  unsigned RS = C.Tpi[S], RP = C.Tpi[P];
  std::string Begun = "s" + std::to_string(*NS), Done = "s" + std::to_string(*NP);
  if (RS > 1)
    Begun = "(" + Begun + "+" + std::to_string(RS - 1) + ")/" + std::to_string(RS);
  if (RP > 1)
    Done += "/" + std::to_string(RP);
  if (S == P && RS == 1)
    return true;
  C.Layout.insert("le " + std::to_string(S) + " " + Begun + " " + std::to_string(P) + " " +
                  Done);
  return true;
}

/// Whether a buffer staged across granularities needs no written flags:
/// one stage P stores it, each thread below P's check the whole of its own
/// c bytes (Access::EveryBelow), and only later stages read it, each an
/// instance P completed (guardInstances): every element read was written.
static bool granularityExact(FusionCandidate &C, const std::vector<StagedAccess> &Accs) {
  std::optional<unsigned> P;
  for (const StagedAccess &X : Accs)
    if (X.A->IsStore) {
      if (P && *P != X.Stage)
        return false;
      P = X.Stage;
    }
  if (!P)
    return false;
  std::vector<std::pair<int64_t, int64_t>> Spans;
  int64_t Own = 0;
  for (const StagedAccess &X : Accs) {
    if (!X.A->IsStore) {
      if (X.Stage <= *P)
        return false;
      continue;
    }
    auto G = X.A->UnknownIndex ? std::nullopt : globalLinear(X.Offset);
    auto N = stageBound(C, X.Stage);
    if (!G || !N || X.A->EveryBelow[0] != N)
      return false;
    Own = G->first;
    Spans.push_back({G->second, G->second + X.A->Bytes});
  }
  llvm::sort(Spans);
  int64_t Reach = 0;
  for (auto [Lo, Hi] : Spans) {
    if (Lo > Reach)
      return false;
    Reach = std::max(Reach, Hi);
  }
  if (Reach < Own)
    return false;
  std::set<unsigned> Readers;
  for (const StagedAccess &X : Accs)
    if (!X.A->IsStore)
      Readers.insert(X.Stage);
  for (unsigned S : Readers)
    if (!guardInstances(C, S, *P))
      return false;
  return true;
}

/// A buffer that stages of different granularities share (buffer \p V,
/// accesses \p Accs): every access is c_X*g + d_X in its stage's global
/// index g, all with the same bytes per instance W = Tpi * c_X, inside the
/// thread's own c_X bytes (0 <= d_X, d_X + size <= c_X) and with one
/// element type. A fused block's instances are then the same W * GranIpb
/// bytes in every stage, so the buffer is staged in a tile of that many
/// bytes, each access at its byte offset from the block's first instance
/// (FusedKernel.cpp tileOffset), with a barrier between every two stages
/// that touch it (appended to \p Spans). CarryFit::No where its accesses
/// are all in stages of one granularity (in one stage, where stages loop).
static CarryFit granularityCarried(FusionCandidate &C, unsigned V,
                                  const std::vector<StagedAccess> &Accs, Intermediate &I,
                                  std::vector<std::pair<unsigned, unsigned>> &Spans) {
  // Stages of one granularity pass values in registers, or in the
  // one-granularity tile, unless some stage loops over its share of the
  // block (FusionCandidate::GranThreads): a value then crosses from one
  // stage's loop to the next's through this tile.
  bool Loops = C.GranThreads < *llvm::max_element(C.Tpi) * C.GranIpb;
  if (llvm::all_of(Accs, [&](const StagedAccess &X) {
        return Loops ? X.Stage == Accs.front().Stage
                     : C.Tpi[X.Stage] == C.Tpi[Accs.front().Stage] && !X.A->Instance;
      }))
    return CarryFit::No;
  const std::string Buf = "buffer '" + C.Seq->Values.at(V).Text + "': ";
  int64_t W = 0;
  for (const StagedAccess &X : Accs) {
    // An instance's element read by Div threads: Div must divide the
    // stage's threads per instance, so that its Div threads are one
    // instance's in every block.
    int64_t Div = X.A->Instance ? X.A->Instance->Div : 1;
    auto G = X.A->Instance ? std::make_optional(std::make_pair(X.A->Instance->Coef,
                                                               X.A->Instance->Rest))
             : X.A->UnknownIndex ? std::nullopt
                                 : globalLinear(X.Offset);
    int64_t Size = X.A->Bytes;
    if (!G || G->second < 0 || G->second + Size > G->first || G->first % Size ||
        G->second % Size || C.Tpi[X.Stage] % Div ||
        (W && W != G->first * C.Tpi[X.Stage] / Div)) {
      C.invalidate(Buf + describe(C, X) + ", which is not an element of the same instances "
                   "as the other stages' (threads per instance " +
                   std::to_string(C.Tpi[X.Stage]) +
                   "); stages of different granularities must each read and write their own "
                   "thread's elements of the same instances",
                   "granularity", X.A->Inst);
      return CarryFit::Refused;
    }
    if (X.A->Ty != Accs.front().A->Ty) {
      C.invalidate(Buf + "accessed with different element types; use one element type in "
                         "every kernel",
                   "type", X.A->Inst);
      return CarryFit::Refused;
    }
    W = G->first * C.Tpi[X.Stage] / Div;
  }
  for (const StagedAccess &X : Accs)
    for (const StagedAccess &Y : Accs)
      if (X.Stage < Y.Stage && (X.A->IsStore || Y.A->IsStore))
        Spans.push_back({X.Stage, Y.Stage});
  I.Value = V;
  I.Mech = Mechanism::Stage;
  I.Ty = Accs.front().A->Ty;
  I.Bytes = Accs.front().A->Bytes;
  I.TileElements = unsigned(W * C.GranIpb / I.Bytes);
  I.HaloExact = granularityExact(C, Accs);
  C.TileBytes += I.TileElements * (I.Bytes + (I.HaloExact ? 0 : 1)); // tile + written flags
  for (const StagedAccess &X : Accs)
    if (X.A->IsStore) {
      I.DeadLaunch = C.index(X.Stage);
      I.DeadParam = X.A->Param;
    }
  return CarryFit::Yes;
}

/// The inputs whose records the block of a group across granularities
/// copies into shared memory before its first stage
/// (FusionCandidate::GranInput). Such a buffer is one no stage writes, and
/// is only loaded, by plain loads. Some of them read c * (g / q) + f(g % q)
/// of their stage's global index g (q = 1 and f = d for c * g + d;
/// Access::Record: `A[9 * (j / 9) + 3 * (j % 9 / 3) + k]`), q dividing the
/// stage's r, inside the instance's record of W = c * r / q bytes (0 <= f,
/// f + size <= c), all with the same W. The block copies its instances'
/// W * GranIpb bytes, and those loads read the copy: the runtime checks
/// that every instance they touch is one the copy holds (guardInstances).
/// Loads of other forms read memory. The copy reads only records whose
/// first and last bytes the original launches read: some stage has loads,
/// made by every thread below its check g < n (Access::EveryBelow), that
/// read byte 0 of the instance in its first thread and byte W - 1 in its
/// last, so every byte
/// of the records of the instances whose threads all lie below n lies
/// between two bytes the launch read. Inputs are taken in value order
/// while their tiles fit beside the others (32 KiB at most).
static void granularityInputs(FusionCandidate &C,
                              const std::map<unsigned, std::vector<StagedAccess>> &ByValue) {
  constexpr uint64_t Cap = 32 * 1024;
  uint64_t Used = uint64_t(C.TileBytes) + C.DynShmem;
  uint64_t Budget = Used >= MaxStaticShared ? 0 : std::min(Cap, MaxStaticShared - Used);
  for (auto &[V, Accs] : ByValue) {
    if (!readOnlyValue(C, V) || llvm::any_of(Accs, [](const StagedAccess &X) {
          return X.A->IsStore || !isa<LoadInst>(X.A->Inst);
        }))
      continue;
    int64_t W = 0;
    uint64_t BaseAlign = 0;
    bool Mixed = false;
    std::map<unsigned, std::pair<const Access *, const Access *>> Ends; // first, last byte
    std::set<const Access *> Direct;
    for (const StagedAccess &X : Accs) {
      // c * (g / q) + f(g % q), f from Lo to Hi, First in the instance's
      // first thread and Last in its last (Access::Record; q = 1 and f = d
      // for c * g + d).
      std::optional<Access::InstanceRecord> Rec = X.A->Record;
      if (!Rec && !X.A->UnknownIndex)
        if (auto G = globalLinear(X.Offset))
          Rec = Access::InstanceRecord{G->first, 1, G->second, G->second, G->second, G->second};
      int64_t R = C.Tpi[X.Stage], Size = X.A->Bytes;
      if (!Rec || R % Rec->Div || Rec->Lo < 0 || Rec->Hi + Size > Rec->Coef)
        continue;
      if (W && W != Rec->Coef * (R / Rec->Div)) {
        Mixed = true;
        break;
      }
      W = Rec->Coef * (R / Rec->Div);
      // base + c * m + First is a multiple of the load's alignment for
      // every instance m, so base is a multiple of each power of two
      // dividing the alignment, c and First.
      BaseAlign = std::max(BaseAlign,
                           MinAlign(MinAlign(uint64_t(Rec->Coef), uint64_t(std::abs(Rec->First))),
                                    cast<LoadInst>(X.A->Inst)->getAlign().value()));
      Direct.insert(X.A);
      const auto &Bound = X.A->GlobalBound[0];
      if (!X.A->EveryBelow[0] || !Bound || Bound->Field || Bound->Param != *X.A->EveryBelow[0])
        continue;
      auto &[First, Last] = Ends[X.Stage];
      if (Rec->First == 0)
        First = X.A;
      if (Rec->Last + Size == Rec->Coef)
        Last = X.A;
    }
    unsigned Word = W ? unsigned(MinAlign(uint64_t(W), std::min<uint64_t>(8, BaseAlign))) : 0;
    uint64_t Tile = uint64_t(W) * C.GranIpb;
    if (Mixed || Word < 4 || Tile > Budget)
      continue;
    for (auto &[S, FL] : Ends) {
      if (!FL.first || !FL.second)
        continue;
      FusionCandidate::GranInput In;
      In.Value = V;
      In.Stage = S;
      In.Param = FL.first->Param;
      In.BoundParam = *FL.first->EveryBelow[0];
      In.Record = W;
      In.Word = Word;
      In.BaseAlign = unsigned(std::min<uint64_t>(BaseAlign, 16));
      // 16-byte words: a block's range starts at a multiple of 16 from the
      // buffer's, and at least one whole word is read (Lim >= W > 16).
      In.Vector = recordVectorCopy() && W > 16 && Tile % 16 == 0;
      In.Direct = Direct;
      std::set<unsigned> Readers;
      for (const StagedAccess &X : Accs)
        if (Direct.count(X.A))
          Readers.insert(X.Stage);
      for (unsigned R : Readers)
        guardInstances(C, R, S);
      // At least one complete instance, so that the copy has a record to
      // read (FusedKernel.cpp copyInputs).
      C.Layout.insert("le " + std::to_string(S) + " " + std::to_string(C.Tpi[S]) + " s" +
                      std::to_string(In.BoundParam));
      C.GranInputs.push_back(In);
      C.TileBytes += unsigned(Tile);
      Budget -= Tile;
      break;
    }
  }
}

/// Across granularities, the outputs whose records the block stores with
/// consecutive threads (FusionCandidate::GranOutput): one stage P stores the
/// buffer and no stage loads it; every store is c*g + d of P's global index
/// g, under P's one check `g < n` and made by every thread below it
/// (Access::EveryBelow), the stores of a thread covering its c bytes, c at
/// least 12 (a warp's stores are then c bytes apart) and a multiple of the
/// word. Tiles go while the 48 KB of a block leave room, largest last.
static void granularityOutputs(FusionCandidate &C,
                               const std::map<unsigned, std::vector<StagedAccess>> &ByValue) {
  constexpr int64_t MinBytes = 12;
  uint64_t Used = uint64_t(C.TileBytes) + C.DynShmem;
  uint64_t Budget = Used >= MaxStaticShared ? 0 : MaxStaticShared - Used;
  std::vector<std::pair<uint64_t, FusionCandidate::GranOutput>> Found;
  for (auto &[V, Accs] : ByValue) {
    unsigned P = Accs.front().Stage;
    if (C.carried(V) || llvm::any_of(Accs, [&](const StagedAccess &X) {
          return !X.A->IsStore || !isa<StoreInst>(X.A->Inst) || X.Stage != P ||
                 X.A->UnknownIndex;
        }))
      continue;
    auto N = stageBound(C, P);
    int64_t Own = 0;
    uint64_t BaseAlign = 16;
    std::vector<std::pair<int64_t, int64_t>> Spans;
    bool Ok = N.has_value();
    for (const StagedAccess &X : Accs) {
      auto G = globalLinear(X.Offset);
      if (!Ok || !G || (Own && Own != G->first) || X.A->EveryBelow[0] != N) {
        Ok = false;
        break;
      }
      Own = G->first;
      Spans.push_back({G->second, G->second + X.A->Bytes});
      BaseAlign = std::min<uint64_t>(
          BaseAlign, MinAlign(MinAlign(uint64_t(G->first), uint64_t(std::abs(G->second))),
                              cast<StoreInst>(X.A->Inst)->getAlign().value()));
    }
    if (!Ok || Own < MinBytes)
      continue;
    llvm::sort(Spans);
    int64_t Reach = 0;
    for (auto [Lo, Hi] : Spans) {
      if (Lo > Reach || Lo < 0) {
        Ok = false;
        break;
      }
      Reach = std::max(Reach, Hi);
    }
    unsigned Word = unsigned(std::min<uint64_t>(MinAlign(uint64_t(Own), 8), BaseAlign));
    if (!Ok || Reach != Own || Word < 4)
      continue;
    FusionCandidate::GranOutput Out;
    Out.Value = V;
    Out.Stage = P;
    Out.Param = Accs.front().A->Param;
    Out.BoundParam = *N;
    Out.Bytes = unsigned(Own);
    Out.Word = Word;
    Out.Vector = recordVectorCopy() && uint64_t(Own) * C.Tpi[P] * C.GranIpb % 16 == 0;
    for (const StagedAccess &X : Accs)
      Out.Stores.insert(X.A);
    Found.push_back({uint64_t(Own) * C.Tpi[P] * C.GranIpb, std::move(Out)});
  }
  llvm::stable_sort(Found, [](const auto &X, const auto &Y) { return X.first < Y.first; });
  for (auto &[Tile, Out] : Found) {
    if (Tile > Budget)
      break;
    Budget -= Tile;
    C.TileBytes += unsigned(Tile);
    C.GranOutputs.push_back(std::move(Out));
  }
}

/// The tile slots of a staged buffer whose accesses are all in stages of
/// one granularity r, in a group across granularities: its in-block
/// offset over the element size, with that stage's blockDim.x, r *
/// GranIpb, in place of the fused block's.
static void granularitySlots(const FusionCandidate &C, const std::vector<StagedAccess> &Accs,
                             Intermediate &I) {
  for (const StagedAccess &X : Accs) {
    IndexPoly L = *blockLocalOffset(X.Offset, X.A->Bytes);
    int64_t Ntid = int64_t(C.Tpi[X.Stage]) * C.GranIpb;
    IndexPoly Slot;
    for (auto &[M, K] : L.Terms) {
      IndexPoly T = IndexPoly::constant(K / int64_t(X.A->Bytes));
      for (int S : M)
        T = T * (S == SymNtid ? IndexPoly::constant(Ntid) : IndexPoly::symbol(S));
      Slot = Slot + T;
    }
    I.TileSlot[X.A] = Slot;
  }
}

static void checkCandidateOnce(FusionCandidate &C);

/// Across granularities, a group refused in blocks of 64 instances or more
/// whose stages loop, because its tiles do not fit or because a buffer its
/// stages of one granularity share cannot go through a tile (which looping
/// stages need), is tried again with 256 / max(Tpi) instances.
void kfuse::checkCandidate(FusionCandidate &C) {
  FusionCandidate Before = C;
  checkCandidateOnce(C);
  if (C.isValid() || C.Tpi.empty() || C.GranThreads == *llvm::max_element(C.Tpi) * C.GranIpb ||
      (C.Stat != "resources" && C.Stat != "granularity" && C.Stat != "type"))
    return;
  C = std::move(Before);
  C.GranNarrow = true;
  checkCandidateOnce(C);
}

static void checkCandidateOnce(FusionCandidate &C) {
  const SeqRecord &R = *C.Seq;
  const SeqLaunch &L0 = C.launch(0);

  // Conditions 3 and 4: one launch configuration, known dynamic shared
  // memory; or launches over the same instances at different granularities,
  // which may have any grids and blocks.
  for (unsigned S = 0; S < C.size(); ++S) {
    const SeqLaunch &La = C.launch(S);
    if (!C.Stages[S]->isValid()) {
      C.invalidate("kernel '" + shortName(La.Kernel) + "' cannot be fused: " +
                       C.Stages[S]->Reason,
                   "kernel", C.Stages[S]->At);
      return;
    }
    if (La.Args.size() != C.Stages[S]->Params.size()) {
      C.invalidate("launch " + std::to_string(La.Index) + " passes " +
                       std::to_string(La.Args.size()) + " arguments to a kernel of " +
                       std::to_string(C.Stages[S]->Params.size()) + " parameters",
                   "record");
      return;
    }
  }
  // What the analysis read only within limits, which the manifest guards.
  static const char *const GridExtent[3] = {"gx", "gy", "gz"};
  for (unsigned S = 0; S < C.size(); ++S) {
    const std::string St = "le " + std::to_string(S) + " ";
    // A block index read through a truncation (`__mul24`) is the index
    // while the grid is that small.
    for (unsigned D = 0; D < 3; ++D)
      if (unsigned W = C.Stages[S]->CtaidBits[D]; W < 32)
        C.Layout.insert(St + GridExtent[D] + " " + std::to_string(uint64_t(1) << (W - 1)));
    // An `int` grid-stride variable kept in 64 bits is Start + Step * k
    // while no value it takes reaches 2^31 (an `unsigned` one 2^32): the
    // last is below n + Step, and the first, a thread's rank, below Step.
    // The manifest reads an unsigned n sign-extended: it must read as it is.
    if (const auto &G = C.Stages[S]->Grid; G && G->Narrow) {
      const std::string Limit = G->Unsigned ? " 4294967296" : " 2147483648";
      C.Layout.insert(St + (G->Bound + G->Step).toExpr() + Limit);
      C.Layout.insert(St + G->Step.toExpr() + Limit);
      if (G->Unsigned)
        C.Layout.insert(St + "0 " + G->Bound.toExpr());
    }
  }
  std::map<unsigned, std::vector<StagedAccess>> ByValue;
  for (unsigned S = 0; S < C.size(); ++S)
    for (const Access &A : C.Stages[S]->Accesses)
      ByValue[C.arg(S, A.Param)].push_back({S, &A, C.valueOffset(S, A)});
  C.Tpi = stageGranularity(C, ByValue);
  if (!C.DeclaredTpi.empty()) {
    // Another implementation runs: the kernels' own threads per instance,
    // which the offsets where the stages meet must not contradict.
    for (unsigned S = 0; S < C.size() && !C.Tpi.empty(); ++S)
      if (uint64_t(C.Tpi[S]) * C.DeclaredTpi[0] != uint64_t(C.DeclaredTpi[S]) * C.Tpi[0])
        return C.invalidate("the implementations' threads per instance (kfuse_impl) " +
                                llvm::join(llvm::map_range(C.DeclaredTpi,
                                                           [](unsigned R) { return std::to_string(R); }),
                                           ", ") +
                                " do not match the offsets at which the stages meet, which "
                                "say " +
                                llvm::join(llvm::map_range(C.Tpi,
                                                           [](unsigned R) { return std::to_string(R); }),
                                           ", "),
                            "granularity");
    C.Tpi = C.DeclaredTpi;
  }
  for (unsigned S = 0; S < C.size(); ++S) {
    const SeqLaunch &La = C.launch(S);
    if ((C.Tpi.empty() && La.Block != L0.Block) || La.Shmem != L0.Shmem ||
        La.Stream != L0.Stream) {
      C.invalidate("launches " + std::to_string(L0.Index) + " and " +
                       std::to_string(La.Index) + " differ in launch configuration: " +
                       configDiff(R, L0, La) +
                       "; launch both kernels with the same grid, block, dynamic shared "
                       "memory and stream (the same variables or expressions of them)",
                   "config");
      return;
    }
  }
  if (!C.Riders.empty() && !orderRiders(C))
    return;
  // Condition 3': launches of different grids fuse side by side, each in
  // blocks of its own, where none of them writes a buffer another accesses.
  for (unsigned S = 1; S < C.size() && !C.Split && C.Tpi.empty(); ++S)
    C.Split = C.launch(S).Grid != L0.Grid;
  if (!C.Tpi.empty() && !checkGranularity(C))
    return;
  if (C.Split && !independentLaunches(C))
    return;
  StringRef ShmemText = StringRef(R.Values.at(L0.Shmem).Text).trim();
  ShmemText.consume_back("u");
  ShmemText.consume_back("U");
  if (ShmemText.getAsInteger(0, C.DynShmem)) {
    C.invalidate("dynamic shared memory size '" + R.Values.at(L0.Shmem).Text +
                     "' is not a compile-time constant; write it as an integer literal",
                 "config");
    return;
  }

  // Independent stages in blocks of their own: nothing crosses between them,
  // so nothing is carried, staged or synchronised.
  if (C.Split)
    return;

  // Conditions 5 and 6: every cross-stage hazard is same-thread or same-block.
  // Where no stage reads a y or z coordinate, a staged element's tile slot
  // is its in-block offset (blockLocalOffset); otherwise its in-block
  // coordinates (blockLocalSlots).
  bool OneDimensional = llvm::none_of(C.Stages, [](const KernelInfo *K) {
    return K->CoordsRead & ~((1u << SymTid) | (1u << SymCtaid));
  });
  // Pairs of stages (a, b) with an access in a that another thread of the
  // block makes in b: a barrier must run after some stage of [a, b).
  std::vector<std::pair<unsigned, unsigned>> Spans;

  // A buffer written at rows of the linear index or in loops over the
  // thread's record (rowCarried, spanCarried), if any.
  std::optional<unsigned> RowBuffer;
  for (auto &[V, Accs] : ByValue) {
    // A gathered buffer must be read-only in the whole group: the gather may
    // read any element, including one another stage (or another thread of
    // its own stage, now running alongside other stages) writes.
    const StagedAccess *Gather = nullptr, *Store = nullptr;
    for (const StagedAccess &X : Accs) {
      if (X.A->UnknownIndex && !Gather)
        Gather = &X;
      if (X.A->IsStore && !Store)
        Store = &X;
    }
    // Rows of the linear index that the index does not put back together
    // (Access::Row), and loops over the thread's own record of a run-time
    // length (Access::Span): every access of the group alike, or none
    // fuses. Not across granularities, whose stages see other thread
    // indices.
    bool AtRows = llvm::any_of(Accs, [](const StagedAccess &X) { return X.A->Row.has_value(); });
    bool InSpans = llvm::any_of(Accs, [](const StagedAccess &X) { return X.A->Span.has_value(); });
    if (Store && (AtRows || InSpans)) {
      if (!C.Tpi.empty()) {
        C.invalidate("buffer '" + R.Values.at(V).Text + "': " + launchText(C, Store->Stage) +
                         " writes it " +
                         (AtRows ? "at a row of the linear index that the index does not put "
                                 "back together"
                               : "in a loop of a run-time trip count") +
                         "; launches of different threads per instance fuse only over buffers "
                         "indexed by polynomials",
                     AtRows ? "row" : "span", Store->A->Inst);
        return;
      }
      if (!(AtRows ? rowCarried(C, R, V, Accs) : spanCarried(C, R, V, Accs)))
        return;
      RowBuffer = V;
      continue;
    }
    // Across granularities, a gather that reads its thread's instance
    // (Access::Instance) is checked with the buffer's other accesses
    // (granularityCarried).
    if (Gather && !C.Tpi.empty() &&
        llvm::all_of(Accs, [](const StagedAccess &X) {
          return !X.A->UnknownIndex || X.A->Instance;
        }))
      Gather = nullptr;
    if (Gather && Store) {
      C.invalidate("buffer '" + R.Values.at(V).Text + "': " + launchText(C, Gather->Stage) +
                       " reads it at an unknown index (a gather) and " +
                       launchText(C, Store->Stage) +
                       " writes it; a gathered buffer must be read-only in the group",
                   "gather", Gather->A->Inst);
      return;
    }
    bool SameThreadOnly = true, AllBlockLocal = true, RAW = false;
    // 2-D and 3-D staging: the tile slot of every access, or none.
    std::set<std::string> SlotGuards;
    std::optional<std::vector<IndexPoly>> Slots =
        OneDimensional ? std::nullopt : blockLocalSlots(C, Accs, SlotGuards);
    Type *Ty = nullptr;
    bool OneType = true;
    int FirstStore = -1;
    for (const StagedAccess &X : Accs) {
      if (X.A->IsStore && (FirstStore < 0 || (int)X.Stage < FirstStore))
        FirstStore = X.Stage;
      Ty = Ty ? Ty : X.A->Ty;
      OneType &= X.A->Ty == Ty;
      AllBlockLocal &= OneDimensional ? blockLocalOffset(X.Offset, X.A->Bytes).has_value()
                                      : Slots.has_value();
    }
    if (FirstStore < 0)
      continue; // read only: no hazard
    // Values cross from one grid-stride loop to the next only in the same
    // iteration of the same thread: both loops must run the same iterations.
    const StagedAccess *LoopRef = nullptr;
    for (const StagedAccess &X : Accs) {
      if (!X.Offset.uses(SymIter))
        continue;
      if (!LoopRef) {
        LoopRef = &X;
        continue;
      }
      // As the launches run them: a loop from the grid's thread rank and one
      // from the global x coordinate are the same loop in a 1-D launch.
      const unsigned SA = LoopRef->Stage, SB = X.Stage;
      // A nest runs the same iterations where both of its loops do.
      auto Same = [&](const GridStride &A, const GridStride &B) {
        return C.valuePoly(SA, A.Start) == C.valuePoly(SB, B.Start) &&
               C.valuePoly(SA, A.Step) == C.valuePoly(SB, B.Step) && A.Unsigned == B.Unsigned &&
               C.valuePoly(SA, A.Bound) == C.valuePoly(SB, B.Bound);
      };
      const KernelInfo &KA = *C.Stages[SA], &KB = *C.Stages[SB];
      if (!Same(*KA.Grid, *KB.Grid) || KA.Outer.has_value() != KB.Outer.has_value() ||
          (KA.Outer && !Same(*KA.Outer, *KB.Outer))) {
        C.invalidate("buffer '" + R.Values.at(V).Text + "': the grid-stride loops of launches " +
                         std::to_string(C.index(LoopRef->Stage)) + " and " +
                         std::to_string(C.index(X.Stage)) +
                         " run different iterations (start, step or bound differ); give "
                         "both loops the same start, step and bound n",
                     "loop", X.A->Inst);
        return;
      }
    }
    if (!C.Tpi.empty()) {
      Intermediate I;
      CarryFit Fit = granularityCarried(C, V, Accs, I, Spans);
      if (Fit == CarryFit::Refused)
        return;
      if (Fit == CarryFit::Yes) {
        C.Carried.push_back(I);
        continue;
      }
    } else {
      Intermediate I;
      CarryFit Fit = OneDimensional ? haloCarried(C, V, Accs, I) : haloGrid(C, V, Accs, I);
      if (Fit == CarryFit::Refused)
        return;
      if (Fit == CarryFit::Yes) {
        C.Carried.push_back(I);
        continue;
      }
    }
    std::set<std::string> Guards;
    std::optional<std::vector<int64_t>> Rec = threadRecords(C, Accs, Guards);
    bool Conflict = false;
    for (size_t IX = 0; IX < Accs.size(); ++IX)
      for (size_t IY = 0; IY < Accs.size(); ++IY) {
        const StagedAccess &X = Accs[IX], &Y = Accs[IY];
        if (X.Stage >= Y.Stage || (!X.A->IsStore && !Y.A->IsStore))
          continue;
        if (Rec) {
          // Within one thread's record: different fields do not meet; the
          // same field is forwarded; a partial overlap is a reinterpretation
          // the fused code would not reproduce.
          int64_t DX = (*Rec)[IX], DY = (*Rec)[IY];
          if (DX + X.A->Bytes <= DY || DY + Y.A->Bytes <= DX)
            continue;
          if (DX != DY || X.A->Bytes != Y.A->Bytes) {
            C.invalidate("buffer '" + R.Values.at(V).Text + "': " + describe(C, X) + " and " +
                             describe(C, Y) +
                             "; the accesses overlap in part: access each field with the "
                             "same offset and type in every kernel",
                         "partial-overlap", Y.A->Inst);
            return;
          }
          Conflict = true;
          RAW |= X.A->IsStore && !Y.A->IsStore;
          continue;
        }
        Conflict = true;
        RAW |= X.A->IsStore && !Y.A->IsStore;
        bool SameThread = X.Offset == Y.Offset && X.A->Bytes == Y.A->Bytes &&
                          (X.Offset.uses(SymOuterIter)
                               ? disjointNest(C, X, X.A->Bytes, Guards)
                               : disjointRecords(C, {X, Y}, X.A->Bytes, Guards));
        bool SameBlock = OneDimensional ? blockLocalOffset(X.Offset, X.A->Bytes) &&
                                              blockLocalOffset(Y.Offset, Y.A->Bytes) &&
                                              X.A->Bytes == Y.A->Bytes
                                        : Slots.has_value();
        SameThreadOnly &= SameThread;
        if (!SameThread)
          Spans.push_back({X.Stage, Y.Stage});
        if (!SameThread && !SameBlock) {
          C.invalidate("buffer '" + R.Values.at(V).Text + "': " + describe(C, X) +
                           " and " + describe(C, Y) +
                           "; neither the same thread nor the same block (access "
                           "across blocks or unrelated indices); to fuse, each thread must "
                           "read the elements it wrote itself (the same index in both "
                           "kernels) or, for x-only kernels, ones of its own block",
                       "cross-block", Y.A->Inst);
          return;
        }
      }
    if (!Conflict)
      continue;
    C.Layout.insert(Guards.begin(), Guards.end());
    if (!RAW)
      continue; // WAR/WAW only: ordering is all it needs
    Intermediate I;
    I.Value = V;
    if (SameThreadOnly) {
      // One register per offset the group stores at, each field with one
      // element type; a load at an offset no stage stores at reads memory.
      I.Mech = Mechanism::Forward;
      for (const StagedAccess &X : Accs)
        if (X.A->IsStore && C.slotOf(I, X.Offset) < 0)
          I.Slots.push_back({X.Offset, X.A->Ty});
      for (const StagedAccess &X : Accs) {
        int S = C.slotOf(I, X.Offset);
        if (S >= 0 && I.Slots[S].Ty != X.A->Ty) {
          C.invalidate("buffer '" + R.Values.at(V).Text + "' is accessed at byte offset " +
                           offsetText(C, X.Offset) +
                           " with different element types; use one element type in "
                           "every kernel",
                       "type", X.A->Inst);
          return;
        }
      }
    } else {
      if (!OneType) {
        C.invalidate("buffer '" + R.Values.at(V).Text +
                         "' is accessed with different element types; use one element "
                         "type in every kernel",
                     "type");
        return;
      }
      if (!AllBlockLocal) {
        C.invalidate("buffer '" + R.Values.at(V).Text +
                         "' needs staging but not all its accesses are block-local; to "
                         "fuse, each block must read only the elements it wrote itself",
                     "cross-block");
        return;
      }
      I.Mech = Mechanism::Stage;
      if (!C.Tpi.empty())
        granularitySlots(C, Accs, I);
      if (Slots) {
        for (size_t K = 0; K < Accs.size(); ++K)
          I.TileSlot[Accs[K].A] = (*Slots)[K];
        C.Layout.insert(SlotGuards.begin(), SlotGuards.end());
      }
      I.Ty = Ty;
      I.Bytes = Accs.front().A->Bytes;
      C.TileBytes += TileElements * I.Bytes + TileElements; // tile + written flags
    }
    // The dead line names the last writer.
    for (const StagedAccess &X : Accs)
      if (X.A->IsStore) {
        I.DeadLaunch = C.index(X.Stage);
        I.DeadParam = X.A->Param;
      }
    C.Carried.push_back(I);
  }

  if (!growHalos(C, ByValue))
    return;
  // A stage recomputed for its neighbours' elements would run for threads
  // whose rows are other threads' (rowCarried proves nothing for them).
  if (RowBuffer && llvm::any_of(C.Carried, [](const Intermediate &I) {
        return I.Mech == Mechanism::Halo;
      })) {
    C.invalidate("buffer '" + R.Values.at(*RowBuffer).Text +
                     "' is written at a row of the linear index that the index does not put "
                     "back together or in a loop over the thread's elements, in a group that "
                     "recomputes a stage for the elements around each block; fuse the two "
                     "parts apart",
                 "row");
    return;
  }
  for (const Intermediate &I : C.Carried)
    if (I.Mech == Mechanism::Halo)
      for (const StagedAccess &X : ByValue[I.Value])
        if (!X.A->IsStore)
          Spans.push_back({I.HaloStage, X.Stage});

  // Every halo buffer of a stage gets the stage's widest halo, and the
  // threads that recompute it must fit in a block: Lo+Hi <= ntid.x. The
  // tile holds the block's elements and the halo, with a written flag each
  // unless every element read is one the producer stores.
  for (Intermediate &I : C.Carried) {
    if (I.Mech != Mechanism::Halo)
      continue;
    for (const Intermediate &J : C.Carried)
      if (J.Mech == Mechanism::Halo && J.HaloStage == I.HaloStage)
        for (unsigned D = 0; D < 3; ++D) {
          I.HaloLo[D] = std::max(I.HaloLo[D], J.HaloLo[D]);
          I.HaloHi[D] = std::max(I.HaloHi[D], J.HaloHi[D]);
        }
  }
  for (Intermediate &I : C.Carried) {
    if (I.Mech != Mechanism::Halo)
      continue;
    if (I.HaloGrid) {
      // The tile, and a frame cell's block next to the fused block's
      // (FusedKernel.cpp's emitGridHalo): Lo_d, Hi_d <= ntid.d.
      C.TileBytes += GridTileElements * I.Bytes;
      std::string Box;
      for (unsigned D = 0; D < 3; ++D) {
        Box += std::string(D ? "*" : "") + "(b" + DimName[D] + "+" +
               std::to_string(I.HaloLo[D] + I.HaloHi[D]) + ")";
        if (unsigned Far = std::max(I.HaloLo[D], I.HaloHi[D]); Far > 1)
          C.Layout.insert("le 0 " + std::to_string(Far) + " b" + DimName[D]);
      }
      C.Layout.insert("le 0 " + Box + " " + std::to_string(GridTileElements));
      continue;
    }
    unsigned Elements = TileElements + I.HaloLo[0] + I.HaloHi[0];
    C.TileBytes += Elements * I.Bytes + (I.HaloExact ? 0 : Elements);
    C.Layout.insert("le 0 " + std::to_string(I.HaloLo[0] + I.HaloHi[0]) + " bx");
  }

  // The fewest barriers that separate every pair: by the pairs' ends, a
  // barrier after the last stage a pair allows unless one already
  // separates it.
  llvm::sort(Spans, [](const auto &A, const auto &B) { return A.second < B.second; });
  for (auto [A, B] : Spans)
    if (C.BarrierAfter.empty() || *C.BarrierAfter.rbegin() < A)
      C.BarrierAfter.insert(B - 1);
  C.NeedsBarrier = !C.BarrierAfter.empty();

  // Condition 7: resources.
  if (C.TileBytes > MaxStaticShared) {
    C.invalidate("shared-memory tiles need " + std::to_string(C.TileBytes) +
                     " bytes per block, more than " + std::to_string(MaxStaticShared),
                 "resources");
    return;
  }
  if (!C.Tpi.empty()) {
    granularityInputs(C, ByValue);
    granularityOutputs(C, ByValue);
  }
  int Bit = 0;
  for (Intermediate &I : C.Carried)
    if (Bit < 64)
      I.DeadBit = Bit++;
}
