//===- Legality.cpp - may these launches run as one kernel? ---------------===//
//
// Implements conditions 3 to 8 of DeviceFusion.cpp's list: equal launch
// configuration, gathered buffers read-only, and for every pair of accesses
// of different stages to one buffer with at least one store, either the same
// thread (the buffer is laid out in per-thread records: register forwarding,
// one register per field) or the same block (block-local indices:
// shared-memory staging with barriers between the stages).
//
//===----------------------------------------------------------------------===//
#include "FusionCandidate.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Function.h"

using namespace llvm;
using namespace kfuse;

/// Static shared memory a group may use; above it a launch needs opt-in.
static constexpr unsigned MaxStaticShared = 48 * 1024;
/// Threads per block never exceed this, so a tile this many elements long
/// holds a block's share of a buffer.
static constexpr unsigned TileElements = 1024;

IndexPoly FusionCandidate::valueOffset(unsigned Stage, const Access &A) const {
  std::map<int, int> Rename;
  const SeqLaunch &La = launch(Stage);
  for (unsigned P = 0; P < La.Args.size(); ++P)
    Rename[SymParam0 + P] = SymValue0 + La.Args[P];
  return A.Offset.rename(Rename);
}

/// Offset = c*(ctaid*ntid + tid) + r with r free of the thread coordinates:
/// returns c and r.
static std::optional<std::pair<int64_t, IndexPoly>> splitGlobalId(const IndexPoly &O) {
  auto Tid = O.Terms.find({SymTid});
  auto Global = O.Terms.find({SymNtid, SymCtaid});
  if (Tid == O.Terms.end() || Global == O.Terms.end() || Tid->second != Global->second)
    return std::nullopt;
  IndexPoly R;
  for (auto &[M, Coef] : O.Terms) {
    if (M == IndexPoly::Monomial{SymTid} || M == IndexPoly::Monomial{SymNtid, SymCtaid})
      continue;
    if (llvm::is_contained(M, SymTid) || llvm::is_contained(M, SymCtaid))
      return std::nullopt;
    R.Terms[M] = Coef;
  }
  return std::make_pair(Tid->second, R);
}

/// Offset = c*(ctaid*ntid + tid) + r with |c| >= Bytes and r free of the
/// thread coordinates: distinct threads touch distinct, non-overlapping
/// elements.
static bool isInjective(const IndexPoly &O, unsigned Bytes) {
  auto S = splitGlobalId(O);
  return S && (S->first < 0 ? -S->first : S->first) >= (int64_t)Bytes;
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

/// Thread records: every access is at Offset = c*(ctaid*ntid + tid) + r0 + d
/// with one stride c for all, one base r0 free of the thread coordinates and
/// a constant d per access, and the accesses of one thread span at most |c|
/// bytes. Then each thread touches a record of its own (an element, or the
/// fields of a struct or a small matrix stored instance by instance) and no
/// other thread's: every hazard between stages is within one thread. Returns
/// d for each access, or std::nullopt when the buffer is not laid out so.
static std::optional<std::vector<int64_t>>
threadRecords(const std::vector<StagedAccess> &Accs) {
  std::optional<std::pair<int64_t, IndexPoly>> First;
  std::vector<int64_t> D;
  int64_t Lo = 0, Hi = 0;
  for (const StagedAccess &X : Accs) {
    if (X.A->UnknownIndex)
      return std::nullopt;
    auto S = splitGlobalId(X.Offset);
    if (!S || S->first == 0)
      return std::nullopt;
    if (!First)
      First = S;
    IndexPoly Delta = S->second - First->second;
    if (S->first != First->first || !Delta.isConstant())
      return std::nullopt;
    int64_t Dk = Delta.constantTerm();
    Lo = D.empty() ? Dk : std::min(Lo, Dk);
    Hi = D.empty() ? Dk + X.A->Bytes : std::max(Hi, Dk + (int64_t)X.A->Bytes);
    D.push_back(Dk);
  }
  int64_t Stride = First->first < 0 ? -First->first : First->first;
  if (Hi - Lo > Stride)
    return std::nullopt;
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
  return !Accs.empty() && threadRecords(Accs).has_value();
}

static std::string describe(const FusionCandidate &C, const StagedAccess &S) {
  return "launch " + std::to_string(C.First + S.Stage) + " (" +
         C.Stages[S.Stage]->F->getName().str() + ") " +
         (S.A->IsStore ? "writes" : "reads") + " it at byte offset " + S.Offset.str();
}

void kfuse::checkCandidate(FusionCandidate &C) {
  const SeqRecord &R = *C.Seq;
  const SeqLaunch &L0 = C.launch(0);

  // Conditions 3 and 4: one launch configuration, known dynamic shared memory.
  for (unsigned S = 0; S < C.size(); ++S) {
    const SeqLaunch &La = C.launch(S);
    if (!C.Stages[S]->isValid()) {
      C.invalidate("kernel '" + La.Kernel + "' cannot be fused: " + C.Stages[S]->Reason,
                   "kernel");
      return;
    }
    if (C.Stages[S]->DimsRead & ~1u) {
      C.invalidate("kernel '" + La.Kernel +
                       "' reads y/z thread or block coordinates (only 1-D kernels are fused)",
                   "multidim");
      return;
    }
    if (La.Args.size() != C.Stages[S]->Params.size()) {
      C.invalidate("launch " + std::to_string(La.Index) + " passes " +
                       std::to_string(La.Args.size()) + " arguments to a kernel of " +
                       std::to_string(C.Stages[S]->Params.size()) + " parameters",
                   "record");
      return;
    }
    if (La.Grid != L0.Grid || La.Block != L0.Block || La.Shmem != L0.Shmem ||
        La.Stream != L0.Stream) {
      C.invalidate("launches " + std::to_string(L0.Index) + " and " +
                       std::to_string(La.Index) +
                       " differ in launch configuration (grid, block, shared memory or stream)",
                   "config");
      return;
    }
  }
  StringRef ShmemText = StringRef(R.Values.at(L0.Shmem).Text).trim();
  ShmemText.consume_back("u");
  ShmemText.consume_back("U");
  if (ShmemText.getAsInteger(0, C.DynShmem)) {
    C.invalidate("dynamic shared memory size '" + R.Values.at(L0.Shmem).Text +
                     "' is not a compile-time constant",
                 "config");
    return;
  }

  // Conditions 5 and 6: every cross-stage hazard is same-thread or same-block.
  std::map<unsigned, std::vector<StagedAccess>> ByValue;
  for (unsigned S = 0; S < C.size(); ++S)
    for (const Access &A : C.Stages[S]->Accesses)
      ByValue[C.arg(S, A.Param)].push_back({S, &A, C.valueOffset(S, A)});

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
    if (Gather && Store) {
      C.invalidate("buffer '" + R.Values.at(V).Text + "': launch " +
                       std::to_string(C.First + Gather->Stage) + " (" +
                       C.Stages[Gather->Stage]->F->getName().str() +
                       ") reads it at an unknown index (a gather) and launch " +
                       std::to_string(C.First + Store->Stage) + " (" +
                       C.Stages[Store->Stage]->F->getName().str() +
                       ") writes it; a gathered buffer must be read-only in the group",
                   "gather");
      return;
    }
    bool SameThreadOnly = true, AllBlockLocal = true, RAW = false;
    Type *Ty = nullptr;
    bool OneType = true;
    int FirstStore = -1;
    for (const StagedAccess &X : Accs) {
      if (X.A->IsStore && (FirstStore < 0 || (int)X.Stage < FirstStore))
        FirstStore = X.Stage;
      Ty = Ty ? Ty : X.A->Ty;
      OneType &= X.A->Ty == Ty;
      AllBlockLocal &= blockLocalOffset(X.Offset, X.A->Bytes).has_value();
    }
    if (FirstStore < 0)
      continue; // read only: no hazard
    std::optional<std::vector<int64_t>> Rec = threadRecords(Accs);
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
                             describe(C, Y) + "; the accesses overlap in part",
                         "partial-overlap");
            return;
          }
          Conflict = true;
          RAW |= X.A->IsStore && !Y.A->IsStore;
          continue;
        }
        Conflict = true;
        RAW |= X.A->IsStore && !Y.A->IsStore;
        bool SameThread = X.Offset == Y.Offset && X.A->Bytes == Y.A->Bytes &&
                          isInjective(X.Offset, X.A->Bytes);
        bool SameBlock = blockLocalOffset(X.Offset, X.A->Bytes) &&
                         blockLocalOffset(Y.Offset, Y.A->Bytes) &&
                         X.A->Bytes == Y.A->Bytes;
        SameThreadOnly &= SameThread;
        if (!SameThread && !SameBlock) {
          C.invalidate("buffer '" + R.Values.at(V).Text + "': " + describe(C, X) +
                           " and " + describe(C, Y) +
                           "; neither the same thread nor the same block (access "
                           "across blocks or unrelated indices)",
                       "cross-block");
          return;
        }
      }
    if (!Conflict)
      continue;
    if (!SameThreadOnly)
      C.NeedsBarrier = true;
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
                           X.Offset.str() + " with different element types",
                       "type");
          return;
        }
      }
    } else {
      if (!OneType) {
        C.invalidate("buffer '" + R.Values.at(V).Text +
                         "' is accessed with different element types",
                     "type");
        return;
      }
      if (!AllBlockLocal) {
        C.invalidate("buffer '" + R.Values.at(V).Text +
                         "' needs staging but not all its accesses are block-local",
                     "cross-block");
        return;
      }
      I.Mech = Mechanism::Stage;
      I.Ty = Ty;
      I.Bytes = Accs.front().A->Bytes;
      C.TileBytes += TileElements * I.Bytes + TileElements; // tile + written flags
    }
    // Bytes saved: loads of a later stage than the first store they can see.
    for (const StagedAccess &X : Accs) {
      if (X.A->IsStore) {
        I.DeadLaunch = C.First + X.Stage;
        I.DeadParam = X.A->Param;
        continue;
      }
      if (I.Mech == Mechanism::Stage) {
        if ((int)X.Stage > FirstStore)
          I.SavedBytes += X.A->Bytes;
        continue;
      }
      for (const StagedAccess &W : Accs)
        if (W.A->IsStore && W.Stage < X.Stage && W.Offset == X.Offset) {
          I.SavedBytes += X.A->Bytes;
          break;
        }
    }
    C.Carried.push_back(I);
  }

  // Condition 7: resources.
  if (C.TileBytes > MaxStaticShared) {
    C.invalidate("shared-memory tiles need " + std::to_string(C.TileBytes) +
                     " bytes per block, more than " + std::to_string(MaxStaticShared),
                 "resources");
    return;
  }
  int Bit = 0;
  for (Intermediate &I : C.Carried)
    if (Bit < 64)
      I.DeadBit = Bit++;
}
