//===- Manifest.cpp - describe fused kernels to the runtime ---------------===//
//
// Writes the `kfuse-manifest 1` text of docs/manifest.md: per group, the
// launches it replaces and every run-time guard the fused code relies on;
// per launch span the plan leaves unfused, why (a `missed` line).
//
//===----------------------------------------------------------------------===//
#include "FusionCandidate.h"

#include "manifest/expr.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Module.h"

#include <map>
#include <set>
#include <tuple>

using namespace llvm;
using namespace kfuse;

static constexpr StringLiteral ManifestPrefix = "__kfuse_manifest_";
static constexpr StringLiteral ManifestHeader = "kfuse-manifest 1\n";

/// Threads assumed by the fallback `predict` (when the planning library did
/// not plan the group): a 16M-element map, the planner's nominal size too.
static constexpr uint64_t NominalThreads = 1u << 24;
/// Bytes per nanosecond (about 3 TB/s) and launch overhead in nanoseconds.
static constexpr uint64_t BytesPerNs = 3;
static constexpr uint64_t LaunchNs = 2000;

/// The host function of a sequence record's site, "<file>:<line>:<col>
/// <function>" (docs/annotations.md), or "?" when the site has another shape.
static StringRef siteFunction(StringRef Site) {
  auto [Where, Fn] = Site.rsplit(' ');
  return Where.empty() || Fn.empty() ? StringRef("?") : Fn;
}

/// The line of a sequence record's site, 0 when it has none.
static unsigned siteLine(StringRef Site) {
  StringRef Where = Site.rsplit(' ').first;
  unsigned Line = 0;
  Where = Where.rsplit(':').first; // drop the column
  if (Where.rsplit(':').second.getAsInteger(10, Line))
    return 0;
  return Line;
}

/// "<line>:<col>" of a sequence record's site, "0:0" when it has none.
std::string kfuse::siteKey(StringRef Site) {
  unsigned Col = 0, Line = siteLine(Site);
  if (!Line || Site.rsplit(' ').first.rsplit(':').second.getAsInteger(10, Col))
    return "0:0";
  return std::to_string(Line) + ":" + std::to_string(Col);
}

static std::string ref(unsigned Launch, unsigned Param) {
  return std::to_string(Launch) + "." + std::to_string(Param);
}

/// \p Sum + \p T, the sum "0" while empty.
static void addTo(std::string &Sum, const std::string &T) { Sum = Sum == "0" ? T : Sum + "+" + T; }

/// Widens [\p Lo, \p Hi] by term \p T = Coef * (a count >= 0): to Hi where
/// Coef is positive whatever the launch, to Lo where negative, else both
/// ways, `min(0,T)` and `max(0,T)` (a pitch parameter).
static void addSpan(std::string &Lo, std::string &Hi, const IndexPoly &Coef, const std::string &T) {
  bool Pos = true, Neg = true, Param = false;
  for (auto &[M, C] : Coef.Terms) {
    Pos &= C > 0;
    Neg &= C < 0;
    for (int S : M)
      Param |= S >= SymParam0;
  }
  if (!Param && Pos) {
    addTo(Hi, T);
  } else if (!Param && Neg) {
    addTo(Lo, T);
  } else {
    addTo(Lo, "min(0," + T + ")");
    addTo(Hi, "max(0," + T + ")");
  }
}

/// The bytes [lo, hi) an access at sum(Coef * digit) + Rest touches
/// (digitsOf): each digit ranges over [0, extent - 1], a Global digit under
/// a `ctaid.d*ntid.d + tid.d < s<p>` check over [0, min(extent, s<p>) - 1],
/// and under the kernel's signed checks (Access::MinG, MaxG: `y > 0 && y <
/// h - 1` around a read of row y - 1) over [MinG, min(extent, s<p> + c + 1)
/// - 1]; a coefficient of unknown sign contributes [min(0, T), max(0, T)].
/// Returned as Rest and the range of the rest, [lo - Rest, hi - Rest), so
/// that accesses that differ only in a constant of Rest (a stencil's reads)
/// share one expression (footprint()).
struct DigitRange {
  IndexPoly Rest;
  std::string Lo, Hi;
};
static std::optional<DigitRange> digitRange(const Access &A) {
  std::optional<DigitForm> F = digitsOf(A.Offset);
  if (!F || A.Offset.uses(SymIter))
    return std::nullopt;
  std::string Lo = "0", Hi = "0";
  IndexPoly Rest = F->Rest;
  for (const IndexDigit &D : F->Digits) {
    std::string Ext = D.extent().toExpr();
    std::string Coef = D.Coef.toExpr();
    if (Coef.find_first_of("+-", 1) != std::string::npos)
      Coef = "(" + Coef + ")";
    if (D.K == IndexDigit::Global) {
      // A signed bound g <= s<p> + c, c < -1 (any one is sound; the least
      // c of the first parameter), replaces the check `< s<p>` on the same
      // parameter.
      std::optional<std::pair<unsigned, int64_t>> Tight;
      for (auto &[P, C] : A.MaxG[D.Dim])
        if (C < -1 && (!Tight || (P == Tight->first && C < Tight->second)))
          Tight = std::make_pair(P, C);
      const Access::CoordBound *B = A.GlobalBound[D.Dim] ? &*A.GlobalBound[D.Dim] : nullptr;
      if (B && (!Tight || B->Field || Tight->first != B->Param))
        Ext = B->Unsigned ? minUnsignedExpr(Ext, 1, B->text())
                          : "max(min(" + Ext + "," + B->text() + "),1)";
      int64_t Low = A.MinG[D.Dim];
      if (Tight)
        Ext = "min(" + Ext + ",s" + std::to_string(Tight->first) + std::to_string(Tight->second + 1) +
              ")";
      if (Tight || Low > 0)
        Ext = "max(" + Ext + (Low > 0 ? "-" + std::to_string(Low) : "") + ",1)";
      // The digit runs over [Low, extent - 1]: Coef * Low, in the rest, and
      // as one over [0, extent - 1 - Low].
      if (Low > 0)
        Rest = Rest + D.Coef * IndexPoly::constant(Low);
    }
    addSpan(Lo, Hi, D.Coef, Coef + "*(" + Ext + "-1)");
  }
  addTo(Hi, std::to_string(A.Bytes));
  return DigitRange{Rest, Lo, Hi};
}

/// The largest value of grid-stride loop \p G's variable, as the manifest
/// reads it: `(max(n,1)-1)`. A 64-bit n compared unsigned is read as it
/// is; a 4-byte one, or a 64-bit sum or product of ints (negative where its
/// operands make it so, and then a huge bound compared unsigned), is
/// divided by 2*min(n,0)+1, which is 1 for n >= 0 and makes the evaluation
/// fail otherwise.
static std::string lastValue(const GridStride &G) {
  std::string N = G.Bound.toExpr();
  bool Single = G.Bound.Terms.size() == 1 && G.Bound.Terms.begin()->second == 1 &&
                G.Bound.Terms.begin()->first.size() == 1;
  return "(max(" + N + ",1)-1)" +
         (G.Unsigned && (G.BoundBits < 64 || !Single) ? "/(2*min(" + N + ",0)+1)" : "");
}

/// The bytes [lo, hi) an access in the grid-stride loop \p G touches: at
/// c * i + Rest, i the loop's variable, which runs over [0, n) (it starts at
/// a thread's global x coordinate, or at its rank in the grid, each a
/// distinct number in [0, threads of the grid), and continues while below
/// n). A 4-byte n compared unsigned (an unsigned n, or an int n cast to
/// size_t, `i < (size_t)n`) bounds the loop as the manifest reads it,
/// sign-extended, only where that is not negative: the bound is then divided
/// by 2*min(n,0)+1, which is 1 for n >= 0 and makes the evaluation fail
/// otherwise (the runtime then takes the whole allocation).
static std::optional<std::pair<std::string, std::string>>
loopRange(const KernelInfo &K, const Access &A) {
  const GridStride &G = *K.Grid;
  // c is the coefficient of threadIdx.x, which either start has once.
  auto Tid = A.Offset.Terms.find(TermMap::Monomial{SymTid});
  if (Tid == A.Offset.Terms.end() || Tid->second <= 0)
    return std::nullopt;
  const int64_t Coef = Tid->second;
  IndexPoly Rest = A.Offset - IndexPoly::constant(Coef) *
                                  (G.Start + G.Step * IndexPoly::symbol(SymIter));
  for (auto &[M, C] : Rest.Terms)
    for (int S : M)
      if (S < SymParam0)
        return std::nullopt; // a coordinate, an extent or the iteration left over
  std::string R = Rest.toExpr();
  std::string Top = std::to_string(Coef) + "*" + lastValue(G) + "+" + std::to_string(A.Bytes);
  return std::make_pair(R, R == "0" ? Top : R + "+" + Top);
}

/// The bytes [lo, hi) an access in a nest of grid-stride loops touches
/// (KernelInfo::Outer): at cX * x + cY * y + Rest, x the inner loop's
/// variable over [0, w), y the outer's over [0, h), each from a global
/// coordinate while below its bound; a coefficient of unknown sign (a
/// pitch parameter) contributes [min(0, T), max(0, T)]. A 4-byte bound
/// compared unsigned is divided as in loopRange.
static std::optional<std::pair<std::string, std::string>>
nestRange(const KernelInfo &K, const Access &A) {
  std::optional<NestIndex> X = nestIndex(K, A.Offset);
  if (!X)
    return std::nullopt;
  for (auto &[M, C] : X->Rest.Terms)
    for (int S : M)
      if (S < SymParam0)
        return std::nullopt; // an extent left over
  std::string R = X->Rest.toExpr(), Lo = R, Hi = R;
  for (auto [Coef, G] : {std::make_pair(&X->CX, &*K.Grid), std::make_pair(&X->CY, &*K.Outer)}) {
    if (Coef->Terms.empty())
      continue;
    std::string C = Coef->toExpr();
    if (C.find_first_of("+-", 1) != std::string::npos)
      C = "(" + C + ")";
    addSpan(Lo, Hi, *Coef, C + "*" + lastValue(*G));
  }
  addTo(Hi, std::to_string(A.Bytes));
  return std::make_pair(Lo, Hi);
}

/// Whether \p P names a y or z coordinate.
static bool usesYZ(const IndexPoly &P) {
  for (unsigned D = 1; D < 3; ++D)
    if (P.uses(symTid(D)) || P.uses(symCtaid(D)))
      return true;
  return false;
}

/// `<lo> <hi>` of the bytes kernel \p K touches through param \p P, or ""
/// when some access has no bounded range.
static std::string footprint(const KernelInfo &K, unsigned P) {
  std::set<std::string> Lo, Hi;
  std::map<std::tuple<std::string, std::string, std::string>, std::pair<int64_t, int64_t>> Shifted;
  for (const Access &A : K.Accesses) {
    if (A.Param != P)
      continue;
    if (A.UnknownIndex) {
      if (A.GatherHi.empty())
        return ""; // an unbounded gather: the runtime takes the whole allocation
      Lo.insert(A.GatherLo);
      Hi.insert(A.GatherHi);
      continue;
    }
    auto R = A.Offset.gridRange();
    if (A.Offset.uses(SymIter)) {
      auto D = K.Outer ? nestRange(K, A) : loopRange(K, A);
      if (!D)
        return "";
      Lo.insert(D->first);
      Hi.insert(D->second);
      continue;
    }
    // Under `g < n` an access whose index is not g itself (a record's
    // fields at R*g + c, a neighbour at g + 1) is bounded by n through its
    // digit, not by the grid: the grid's last block runs past n.
    if (!R || usesYZ(A.Offset) || (!A.BoundParam && A.GlobalBound[0])) {
      auto D = digitRange(A);
      if (!D)
        return "";
      // By the rest without its constant and the range beside it: the
      // least and the greatest constant.
      int64_t K = D->Rest.constantTerm();
      auto [It, New] = Shifted.try_emplace(
          std::make_tuple((D->Rest - IndexPoly::constant(K)).toExpr(), D->Lo, D->Hi),
          std::make_pair(K, K));
      It->second.first = std::min(It->second.first, K);
      It->second.second = std::max(It->second.second, K);
      continue;
    }
    std::string H = (R->second + IndexPoly::constant(A.Bytes)).toExpr();
    if (A.BoundParam && A.BoundUnsigned)
      H = minUnsignedParam(H, A.Bytes, *A.BoundParam);
    else if (A.BoundParam)
      H = "min(" + H + "," + std::to_string(A.Bytes) + "*s" + std::to_string(*A.BoundParam) + ")";
    else if (A.BoundPoly && A.BoundUnsigned)
      // Compared unsigned, a negative P bounds nothing (minUnsignedExpr).
      H = minUnsignedExpr(H, A.Bytes, "(" + A.BoundPoly->toExpr() + ")");
    else if (A.BoundPoly)
      H = "min(" + H + "," + std::to_string(A.Bytes) + "*(" + A.BoundPoly->toExpr() + "))";
    Lo.insert(R->first.toExpr());
    Hi.insert(H);
  }
  auto Sum = [](const std::string &Rest, int64_t C, const std::string &Range) {
    std::string Out = Rest == "0" ? std::to_string(C)
                      : C == 0    ? Rest
                                  : Rest + (C < 0 ? "" : "+") + std::to_string(C);
    return Range == "0" ? Out : Out == "0" ? Range : Out + "+" + Range;
  };
  for (auto &[Key, K] : Shifted) {
    auto &[Rest, L, H] = Key;
    Lo.insert(Sum(Rest, K.first, L));
    Hi.insert(Sum(Rest, K.second, H));
  }
  auto Fold = [](const std::set<std::string> &Xs, const char *Op) {
    std::string Out;
    for (const std::string &X : Xs)
      Out = Out.empty() ? X : std::string(Op) + "(" + Out + "," + X + ")";
    return Out;
  };
  if (Lo.empty())
    return "";
  std::string L = Fold(Lo, "min"), H = Fold(Hi, "max");
  // One the runtime cannot compile (longer than its limits) would fail
  // every check it is in: without a footprint the runtime takes the whole
  // allocation instead, which separate allocations still pass.
  for (const std::string *E : {&L, &H}) {
    kf__expr_t *Program = nullptr;
    int Rc = kf__expr_compile(E->data(), E->size(), &Program);
    kf__expr_free(Program);
    if (Rc != 0)
      return "";
  }
  return L + " " + H;
}

GroupBytes kfuse::groupBytes(const FusionCandidate &C) {
  GroupBytes B;
  std::set<unsigned> DeadValues;
  for (const Intermediate &I : C.Carried)
    if (I.DeadBit >= 0)
      DeadValues.insert(I.Value);
  // Elements seen, as (value, offset); a handful per group.
  std::vector<std::pair<unsigned, IndexPoly>> Seen, Stored;
  auto Find = [](std::vector<std::pair<unsigned, IndexPoly>> &In, unsigned V,
                 const IndexPoly &O) {
    for (auto &[V2, O2] : In)
      if (V2 == V && O2 == O)
        return true;
    In.push_back({V, O});
    return false;
  };
  // A staged buffer's later loads read the tile (or what no thread of the
  // block wrote: nothing, in bounds); a halo buffer's too, the halo
  // recomputed from inputs the block loads again (per block, not per
  // element: not counted).
  std::map<unsigned, unsigned> StagedFrom;
  for (const Intermediate &I : C.Carried)
    if (I.Mech != Mechanism::Forward)
      for (unsigned S = 0; S < C.size() && !StagedFrom.count(I.Value); ++S)
        for (const Access &A : C.Stages[S]->Accesses)
          if (A.IsStore && C.arg(S, A.Param) == I.Value) {
            StagedFrom[I.Value] = S;
            break;
          }
  for (unsigned S = 0; S < C.size(); ++S)
    for (const Access &A : C.Stages[S]->Accesses) {
      if (A.Repeat)
        continue;
      B.Unfused += A.Bytes;
      unsigned V = C.arg(S, A.Param);
      if (!A.IsStore)
        if (auto It = StagedFrom.find(V); It != StagedFrom.end() && It->second < S)
          continue;
      if (A.UnknownIndex && !A.Row) {
        B.Fused += A.Bytes;
        B.FusedDead += A.Bytes;
        continue;
      }
      // A buffer that still moves through memory is read and written there.
      if (C.ThroughMemory.count(V)) {
        B.Fused += A.Bytes;
        B.FusedDead += A.Bytes;
        continue;
      }
      IndexPoly O = C.valueOffset(S, A);
      bool Before = Find(Seen, V, O);
      if (A.IsStore ? Find(Stored, V, O) : Before)
        continue;
      B.Fused += A.Bytes;
      if (!A.IsStore || !DeadValues.count(V))
        B.FusedDead += A.Bytes;
    }
  return B;
}

bool kfuse::readOnlyValue(const FusionCandidate &C, unsigned V) {
  for (unsigned S = 0; S < C.size(); ++S)
    for (unsigned P = 0; P < C.Stages[S]->Params.size(); ++P)
      if (C.arg(S, P) == V && C.Stages[S]->Params[P].Written)
        return false;
  return true;
}

std::vector<std::pair<ParamRef, ParamRef>> kfuse::disjointPairs(const FusionCandidate &C) {
  struct Buf {
    ParamRef R;
    unsigned Value;
    bool Written;
  };
  std::vector<Buf> Bufs;
  for (unsigned S = 0; S < C.size(); ++S)
    for (unsigned P = 0; P < C.Stages[S]->Params.size(); ++P) {
      const ParamInfo &PI = C.Stages[S]->Params[P];
      if (PI.IsPointer && (PI.Read || PI.Written))
        Bufs.push_back({{S, P}, C.arg(S, P), PI.Written});
    }
  // Distinct values are assumed not to overlap wherever one of them is
  // written: the fused kernel's pointer parameters are noalias
  // (FusedKernel.cpp markNoAlias), so its loads may move across a store to
  // another buffer and a store overwritten by a later stage goes away. A
  // gathered buffer is read anywhere in its allocation, and any access to a
  // carried buffer is checked as well.
  std::vector<std::pair<ParamRef, ParamRef>> Out;
  for (size_t X = 0; X < Bufs.size(); ++X)
    for (size_t Y = X + 1; Y < Bufs.size(); ++Y) {
      const Buf &A = Bufs[X], &B = Bufs[Y];
      if (A.Value == B.Value)
        continue;
      bool Write = A.Written || B.Written;
      bool TouchesCarried =
          (C.carried(A.Value) || C.carried(B.Value)) && (Write || A.R.S != B.R.S);
      if (Write || TouchesCarried)
        Out.push_back({A.R, B.R});
    }
  return Out;
}

std::string kfuse::manifestGroup(const FusionCandidate &C, uint64_t &UnfusedNs,
                                 uint64_t &FusedNs) {
  // Launches are numbered by their position in the span First..Last, riders
  // included: the runtime matches the span's kernels in order.
  auto Ref = [&](unsigned S, unsigned P) { return ref(C.spanPos(C.index(S)), P); };
  unsigned Span = C.Last - C.First + 1;
  std::string Out = "group " + C.Name + " " + std::to_string(Span) + "\n";
  for (unsigned S = 0, X = 0; S < C.size();) {
    bool Rider = X < C.Riders.size() && C.Riders[X] < C.index(S);
    const SeqLaunch &La = Rider ? C.Seq->Launches[C.Riders[X]] : C.launch(S);
    const KernelInfo &K = Rider ? *C.RiderInfos[X++] : *C.Stages[S++];
    Out += "kernel " + std::to_string(C.spanPos(La.Index)) + " " + La.Kernel + " " +
           std::to_string(K.ownParams()) + "\n";
  }
  // The buffers stages reach through fields of by-value structs: the
  // parameters after each kernel's own (FieldParams.h).
  for (unsigned S = 0, X = 0; S < C.size();) {
    bool Rider = X < C.Riders.size() && C.Riders[X] < C.index(S);
    const SeqLaunch &La = Rider ? C.Seq->Launches[C.Riders[X]] : C.launch(S);
    const KernelInfo &K = Rider ? *C.RiderInfos[X++] : *C.Stages[S++];
    for (auto [J, Fi] : enumerate(K.FieldParams))
      Out += "field " + ref(C.spanPos(La.Index), K.ownParams() + unsigned(J)) + " " +
             std::to_string(Fi.Struct) + " " + std::to_string(Fi.Offset) + "\n";
  }
  for (size_t X = 0; X < C.Riders.size(); ++X)
    Out += "rider " + std::to_string(C.spanPos(C.Riders[X])) +
           (C.RiderBefore[X] ? " before" : "") +
           (X < C.RiderOther.size() && C.RiderOther[X] ? " other" : "") + "\n";
  if (C.SetId)
    Out += "part " + std::to_string(C.SetPart) + " " + std::to_string(C.SetOffset) + " " +
           std::to_string(C.SetId) + "\n";
  if (!C.Tpi.empty()) {
    Out += "shape gran " + std::to_string(C.GranIpb);
    for (unsigned R : C.Tpi)
      Out += " " + std::to_string(R);
    if (C.GranThreads < *llvm::max_element(C.Tpi) * C.GranIpb)
      Out += " " + std::to_string(C.GranThreads); // its stages loop
    Out += "\n";
    for (const FusionCandidate::ImplStage &I : C.Impls)
      Out += "impl " + Ref(I.Stage, I.Param) + " " + std::to_string(I.From) + " " +
             std::to_string(I.To) + "\n";
    Out += "stream same\n";
  } else {
    Out += C.Split ? "shape split\nstream same\n" : "shape same\nstream same\n";
  }
  Out += "dynshmem " + std::to_string(C.DynShmem) + "\n";
  // `le <stage> ...`: the stage's position in the span.
  for (const std::string &L : C.Layout) {
    StringRef Rest = StringRef(L).drop_front(3);
    unsigned S = 0;
    if (!StringRef(L).starts_with("le ") || Rest.consumeInteger(10, S) || S >= C.size())
      report_fatal_error("kfuse: malformed layout guard '" + Twine(L) + "'");
    Out += "le " + std::to_string(C.spanPos(C.index(S))) + Rest.str() + "\n";
  }
  // `align`: a staged record's block copy moves 16-byte words from the
  // buffer's start (RecordStaging.cpp), fused argument R.Arg being stage
  // S's parameter R.Arg - (the stages' parameters before S).
  for (const StagedRecord &R : C.Staged) {
    if (!R.BaseAlign)
      continue;
    unsigned Base = 0, S = 0;
    while (S < C.size() && R.Arg >= Base + C.Stages[S]->Body->arg_size())
      Base += C.Stages[S++]->Body->arg_size();
    if (S == C.size())
      report_fatal_error("kfuse: staged record of no stage's parameter");
    Out += "align " + Ref(S, R.Arg - Base) + " " + std::to_string(R.BaseAlign) + "\n";
  }
  // Across granularities: inputs and outputs the block copies in 16-byte
  // words from their start.
  for (const FusionCandidate::GranInput &In : C.GranInputs)
    if (In.checksAlign())
      Out += "align " + Ref(In.Stage, In.Param) + " 16\n";
  for (const FusionCandidate::GranOutput &O : C.GranOutputs)
    if (O.checksAlign())
      Out += "align " + Ref(O.Stage, O.Param) + " 16\n";
  // A contiguous block copy in 16-byte words: ntid.x a multiple of M, for
  // every round to start aligned (bx - bx/M*M <= 0).
  unsigned Multiple = 0;
  for (const StagedRecord &R : C.Staged)
    Multiple = std::max(Multiple, R.BlockMultiple);
  if (Multiple > 1) {
    std::string M = std::to_string(Multiple);
    Out += "le 0 bx-(bx/" + M + ")*" + M + " 0\n";
  }
  Out += "launch 0 0 " + std::to_string(C.DynShmem) + "\n";

  // Wiring and scalar equalities: every later occurrence of a pointer or
  // integer value, or of a struct by value that the stages only read,
  // equals its first occurrence (the fused kernel reads the first: build()).
  std::map<unsigned, std::pair<unsigned, unsigned>> FirstUse;
  for (unsigned S = 0; S < C.size(); ++S)
    for (unsigned P = 0; P < C.Stages[S]->Params.size(); ++P) {
      const ParamInfo &PI = C.Stages[S]->Params[P];
      if (!PI.merged())
        continue;
      auto [It, New] = FirstUse.try_emplace(C.arg(S, P), S, P);
      if (New)
        continue;
      Out += "equal " + Ref(It->second.first, It->second.second) + " " + Ref(S, P);
      // A struct with padding: the later launch's field bytes alone, which
      // are all its stage reads from the first launch's copy.
      for (size_t R = 0; R < PI.FieldBytes.size(); ++R)
        Out += (R ? "," : " ") + std::to_string(PI.FieldBytes[R].first) + "-" +
               std::to_string(PI.FieldBytes[R].second);
      Out += "\n";
    }

  // Footprints of every accessed pointer parameter, the riders' too.
  auto Footprint = [&](const KernelInfo &K, unsigned Pos, unsigned P) {
    const ParamInfo &PI = K.Params[P];
    if (!PI.IsPointer || (!PI.Read && !PI.Written))
      return;
    std::string FP = footprint(K, P);
    if (!FP.empty())
      Out += "footprint " + ref(Pos, P) + " " +
             (PI.Read && PI.Written ? "rw" : PI.Written ? "w" : "r") + " " + FP + "\n";
  };
  for (unsigned S = 0; S < C.size(); ++S)
    for (unsigned P = 0; P < C.Stages[S]->Params.size(); ++P)
      Footprint(*C.Stages[S], C.spanPos(C.index(S)), P);
  for (size_t X = 0; X < C.Riders.size(); ++X)
    for (unsigned P = 0; P < C.RiderInfos[X]->Params.size(); ++P)
      Footprint(*C.RiderInfos[X], C.spanPos(C.Riders[X]), P);
  for (auto &[A, B] : disjointPairs(C))
    Out += "disjoint " + Ref(A.S, A.P) + " " + Ref(B.S, B.P) + "\n";
  // A pair's check may find a pair the rider check found too: once each,
  // in the order found.
  std::set<std::array<unsigned, 4>> Seen;
  for (const std::array<unsigned, 4> &D : C.RiderDisjoint)
    if (Seen.insert(D).second)
      Out += "disjoint " + ref(C.spanPos(D[0]), D[1]) + " " + ref(C.spanPos(D[2]), D[3]) + "\n";

  for (const Intermediate &I : C.Carried) {
    if (I.DeadBit >= 0)
      Out += "dead " + std::to_string(I.DeadBit) + " " +
             ref(C.spanPos(I.DeadLaunch), I.DeadParam) + (I.Covered ? " covered" : "") + "\n";
  }
  // The planner's prediction when the caller passes one in.
  if (UnfusedNs == 0 || FusedNs == 0) {
    GroupBytes B = groupBytes(C);
    UnfusedNs = uint64_t(B.Unfused) * NominalThreads / BytesPerNs + LaunchNs * C.size();
    FusedNs = uint64_t(B.Fused) * NominalThreads / BytesPerNs + LaunchNs;
  }
  Out += "predict " + std::to_string(UnfusedNs) + " " + std::to_string(FusedNs) + "\n";
  // The one site the group is for: the host pass and the runtime bind it to
  // the run whose first launch is at this line and column of this function.
  Out += "at " + std::to_string(C.First) + " " + std::to_string(C.Seq->Launches.size()) + " " +
         siteKey(C.Seq->Site) + " " + siteFunction(C.Seq->Site).str() + "\n";
  if (C.PlanCount > 1) {
    // Ranks as a comma list of ranges: 0,2-5,9.
    std::string Ranks;
    for (size_t I = 0; I < C.PlanRanks.size();) {
      size_t J = I;
      while (J + 1 < C.PlanRanks.size() && C.PlanRanks[J + 1] == C.PlanRanks[J] + 1)
        ++J;
      Ranks += (Ranks.empty() ? "" : ",") + std::to_string(C.PlanRanks[I]);
      if (J > I)
        Ranks += "-" + std::to_string(C.PlanRanks[J]);
      I = J + 1;
    }
    // The sequence: its host function and length, so the runtime uses the
    // group at that sequence's sites only.
    Out += "plans " + std::to_string(C.PlanCount) + " " + std::to_string(C.First) + " " +
           std::to_string(C.Seq->Launches.size()) + " " + siteFunction(C.Seq->Site).str() +
           " " + Ranks + "\n";
  }
  Out += "end\n";
  return Out;
}

/// \p Reason on one line of at most MissedReasonBytes bytes: control
/// characters become spaces; a longer text keeps its leading clauses (up to
/// a "; ") that fit, or is cut at a space and ends in "...".
static std::string shortReason(StringRef Reason) {
  std::string Out;
  for (char C : Reason.trim())
    Out += (unsigned char)C < ' ' || C == 0x7f ? ' ' : C;
  if (Out.size() <= MissedReasonBytes)
    return Out;
  size_t Cut = StringRef(Out).substr(0, MissedReasonBytes).rfind("; ");
  if (Cut != StringRef::npos && Cut > 0)
    return Out.substr(0, Cut);
  Cut = StringRef(Out).substr(0, MissedReasonBytes - 3).rfind(' ');
  return Out.substr(0, Cut == StringRef::npos || Cut == 0 ? MissedReasonBytes - 3 : Cut) + "...";
}

std::string kfuse::manifestMissed(const SeqRecord &R, unsigned First, unsigned Last,
                                  StringRef Reason) {
  return "missed " + siteFunction(R.Site).str() + " " + std::to_string(siteLine(R.Site)) + " " +
         std::to_string(R.Launches.size()) + " " + std::to_string(First) + " " +
         std::to_string(Last) + " " + shortReason(Reason) + "\n";
}

std::string kfuse::manifestSymbol(StringRef Key) { return (ManifestPrefix + Key).str(); }

void kfuse::embedManifest(Module &M, StringRef Key, StringRef Lines) {
  std::string Text = ManifestHeader.str(), ManifestName = manifestSymbol(Key);
  GlobalVariable *Old = M.getNamedGlobal(ManifestName);
  if (Old && Old->hasInitializer())
    if (auto *CDA = dyn_cast<ConstantDataArray>(Old->getInitializer()))
      if (CDA->isCString() && CDA->getAsCString().starts_with(ManifestHeader))
        Text = CDA->getAsCString().str();
  Text += Lines.str();
  Constant *Init = ConstantDataArray::getString(M.getContext(), Text, /*AddNull=*/true);
  auto *GV = new GlobalVariable(M, Init->getType(), /*isConstant=*/true,
                                GlobalValue::ExternalLinkage, Init, ManifestName, nullptr,
                                GlobalValue::NotThreadLocal, /*AddressSpace=*/1,
                                /*isExternallyInitialized=*/true);
  GV->setAlignment(Align(1));
  if (Old) {
    GV->takeName(Old);
    Old->replaceAllUsesWith(GV);
    Old->eraseFromParent();
  }
}
