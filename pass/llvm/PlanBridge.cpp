//===- PlanBridge.cpp - the device pass's use of libkfplan ----------------===//
//
// One kf_problem per sequence record:
//  - one launch per record launch, Elements instances each (default
//    PlanNominalInstances, 2^24; -kfuse-elements), one
//    variant with the kernel's flops per element (block size and registers
//    are not known in the IR: the library's defaults, 256 and 32);
//  - one buffer per distinct pointer value number the launches pass;
//  - per launch and buffer, the bytes per element its loads and its stores
//    move (a kernel that is not analysable accesses each pointer argument
//    read-write, 4 bytes, so dependencies through it are kept);
//  - a buffer whose accesses all lie in per-thread records (Legality.cpp)
//    is marked as carried in registers: never staged in shared memory;
//  - a load of t[i+d], d a constant not 0, is a stencil's: the launch's
//    halo on that buffer is the widest reach on both sides, which a group
//    with the producer pays for by running the producer again;
//  - buffers are not dead after the sequence: the fused kernel keeps its
//    stores unless the runtime's dead mask drops them, so the prediction
//    only counts the loads fusion removes;
//  - under -kfuse-reorder=0 only consecutive groups may fuse
//    (kf_problem_set_consecutive: the library plans them by dynamic
//    programming, exactly and in O(n * max group)); by default any convex
//    group may, and the launches between its members that it leaves out
//    run after its fused kernel; the legality callback accepts the groups
//    the pass's legality check accepts, riders included;
//  - the budget is a count of work (-kfuse-plan-work-limit), never a time,
//    so the plan, and with it the PTX, the manifest and the object, is the
//    same on any machine under any load.
//
//===----------------------------------------------------------------------===//
#include "PlanBridge.h"
#include "FusionCandidate.h"

#include "kfuse/model.h"
#include "kfuse/plan.h"

#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <memory>

using namespace llvm;
using namespace kfuse;

namespace {

struct LegalCtx {
  function_ref<bool(ArrayRef<unsigned>)> Legal;
};

/// The library hands groups over sorted by launch.
extern "C" int kfusePlanLegal(void *User, const int *Group, int N) {
  SmallVector<unsigned, 8> Members(Group, Group + N);
  return static_cast<LegalCtx *>(User)->Legal(Members) ? 1 : 0;
}

struct LegalVariantsCtx {
  function_ref<bool(ArrayRef<unsigned>, ArrayRef<unsigned>)> Legal;
};

extern "C" int kfusePlanLegalVariants(void *User, const int *Group, const int *Variants, int N) {
  SmallVector<unsigned, 8> Members(Group, Group + N), Choice(Variants, Variants + N);
  return static_cast<LegalVariantsCtx *>(User)->Legal(Members, Choice) ? 1 : 0;
}

/// Bytes per instance of an access of a launch of \p Threads threads per
/// instance: the record it lies in, c * Threads for c*g + d, Coef for an
/// instance's element or record (c*(g/q) + ...) with q = Threads; else the
/// access's own bytes, Threads times.
double recordBytes(const Access &A, unsigned Threads) {
  if (A.Instance && A.Instance->Div > 0)
    return double(A.Instance->Coef) * Threads / A.Instance->Div;
  if (A.Record && A.Record->Div > 0)
    return double(A.Record->Coef) * Threads / A.Record->Div;
  if (auto G = A.UnknownIndex ? std::nullopt : globalLinear(A.Offset))
    return double(G->first) * Threads;
  return double(A.Bytes) * Threads;
}

/// The seed paper's memory routine for a record of \p Bytes per instance.
const char *psiMemoryRoutine(double Bytes, bool Store) {
  if (Bytes == 4)
    return Store ? "store1" : "load1";
  if (Bytes == 12)
    return Store ? "store3" : "load3";
  if (Bytes == 36)
    return Store ? "store33" : "load33";
  if (Bytes == 100)
    return Store ? "store55" : "load55";
  return nullptr;
}

struct ProblemDeleter {
  void operator()(kf_problem *P) const { kf_problem_destroy(P); }
};
struct ModelDeleter {
  void operator()(kf_model *M) const { kf_model_destroy(M); }
};
struct PlanDeleter {
  void operator()(kf_plan *P) const { kf_plan_destroy(P); }
};

std::string failure(const char *What, int Rc) {
  return std::string(What) + ": " + kf_strerror(Rc) + " (" + kf_err_name(Rc) + ")";
}

} // namespace

bool kfuse::loadPlanProfile(const std::string &Path, kf_profile_t &Out, std::string &Err) {
  char Msg[256] = "";
  int Rc = kf_profile_load(&Out, Path.c_str(), Msg, sizeof Msg);
  if (Rc == 0)
    return true;
  Err = "cannot use device profile '" + Path + "': " + kf_strerror(Rc);
  if (Msg[0])
    Err += std::string(", ") + Msg;
  kf_profile_default(&Out);
  return false;
}

bool kfuse::loadPsiTable(const std::string &Path, PsiTable &Table, std::string &Err) {
  Table = PsiTable();
  double &Instances = Table.Instances;
  int &FusedBlock = Table.FusedBlock;
  std::vector<PsiEntry> &Out = Table.Entries;
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Buf) {
    Err = "cannot read psi table '" + Path + "': " + Buf.getError().message();
    return false;
  }
  SmallVector<StringRef, 0> Lines;
  (*Buf)->getBuffer().split(Lines, '\n');
  for (size_t I = 0; I < Lines.size(); ++I) {
    StringRef L = Lines[I].trim();
    if (L.consume_front("# instances:")) {
      double N = 0;
      StringRef Word = L.trim().split(' ').first;
      if (!kf_parse_number(Word.str().c_str(), 1, KF_MAX_INSTANCES, 1, &N))
        Instances = N;
      continue;
    }
    if (L.empty() || L.starts_with("#"))
      continue;
    SmallVector<StringRef, 6> F;
    L.split(F, ' ', -1, /*KeepEmpty=*/false);
    auto Bad = [&](const std::string &Why) {
      Err = "psi table '" + Path + "': line " + std::to_string(I + 1) + ": " + Why;
      return false;
    };
    if (F.size() == 2 && F[0] == "fused-block") {
      double Threads = 0;
      if (FusedBlock)
        return Bad("a second `fused-block` line");
      if (kf_parse_number(F[1].str().c_str(), 1, KF_VARIANT_MAX_THREADS, 1, &Threads))
        return Bad("expected `fused-block <threads>`, 1 to " +
                   std::to_string(KF_VARIANT_MAX_THREADS));
      FusedBlock = int(Threads);
      continue;
    }
    if (F.size() != 5 || F[0] != "psi")
      return Bad("expected `psi <routine> <ipb> <extra-shared> <seconds>`");
    PsiEntry E;
    E.Routine = F[1].str();
    double Ipb = 0, Extra = 0;
    if (kf_parse_number(F[2].str().c_str(), 1, 1 << 20, 1, &Ipb) ||
        kf_parse_number(F[3].str().c_str(), 0, 1 << 30, 1, &Extra) ||
        kf_parse_number(F[4].str().c_str(), 0, KF_MAX_PSI_SECONDS, 0, &E.Seconds))
      return Bad("bad number");
    E.Ipb = int(Ipb);
    E.ExtraShared = int(Extra);
    Out.push_back(std::move(E));
  }
  if (Out.empty()) {
    Err = "psi table '" + Path + "' has no `psi` lines";
    return false;
  }
  return true;
}

/// Fills \p PG's next cheapest legal assignment of implementations (the
/// odometer of the library's costing, capped alike), where its launches
/// have other implementations, costed in \p Order, the library's order of
/// execution of the members. \returns false with \p Err on a model failure.
static bool nextAssignment(const kf_problem *P, const kf_model *M, PlannedGroup &PG,
                           ArrayRef<int> Order, ArrayRef<std::vector<PlanVariant>> Variants,
                           function_ref<bool(ArrayRef<unsigned>, ArrayRef<unsigned>)> Legal,
                           std::string &Err) {
  unsigned N = PG.Members.size();
  std::vector<unsigned> Count(N, 1);
  for (unsigned J = 0; J < N; ++J)
    if (PG.Members[J] < Variants.size() && Variants[PG.Members[J]].size() > 1)
      Count[J] = Variants[PG.Members[J]].size();
  if (llvm::all_of(Count, [](unsigned C) { return C == 1; }))
    return true;
  std::vector<unsigned> Chosen = PG.Choice.empty() ? std::vector<unsigned>(N, 0) : PG.Choice;
  std::vector<unsigned> Var(N, 0);
  std::vector<int> VarInt(N);
  for (long It = 0; It < 6561; ++It) {
    if (Var != Chosen && (!Legal || Legal(PG.Members, Var))) {
      for (unsigned J = 0; J < N; ++J) // Var by member, VarInt by Order
        VarInt[J] = int(Var[llvm::find(PG.Members, unsigned(Order[J])) - PG.Members.begin()]);
      kf_estimate_t E;
      if (int Rc = kf_model_estimate(M, P, Order.data(), VarInt.data(), int(N), &E)) {
        Err = failure("kf_model_estimate", Rc);
        return false;
      }
      double Ns = E.time * 1e9;
      if (std::isfinite(Ns) && (PG.NextChoice.empty() || Ns < PG.NextNs)) {
        PG.NextChoice = Var;
        PG.NextNs = Ns;
      }
    }
    unsigned J = 0;
    while (J < N && ++Var[J] == Count[J])
      Var[J++] = 0;
    if (J == N)
      break;
  }
  return true;
}

PlanOutcome kfuse::planWithLibrary(const SeqRecord &R, ArrayRef<const KernelInfo *> Infos,
                                   function_ref<bool(ArrayRef<unsigned>)> Legal,
                                   ArrayRef<std::vector<PlanVariant>> Variants,
                                   function_ref<bool(ArrayRef<unsigned>, ArrayRef<unsigned>)>
                                       LegalVariants,
                                   const PsiTable *Psi,
                                   const kf_profile_t &Profile, long WorkLimit,
                                   double Elements, unsigned KBest, bool Reorder) {
  PlanOutcome Out;
  unsigned N = R.Launches.size();
  kf_problem *PRaw = nullptr;
  if (int Rc = kf_problem_create(&PRaw)) {
    Out.Error = failure("kf_problem_create", Rc);
    return Out;
  }
  std::unique_ptr<kf_problem, ProblemDeleter> P(PRaw);

  std::map<unsigned, int> Buffer; // value number -> buffer index
  auto BufferOf = [&](unsigned V, int &Id) -> int {
    auto It = Buffer.find(V);
    if (It != Buffer.end())
      return Id = It->second, 0;
    std::string Name = "v" + std::to_string(V);
    auto VI = R.Values.find(V);
    if (VI != R.Values.end() && !VI->second.Text.empty())
      Name += ":" + VI->second.Text;
    int Rc = kf_problem_add_buffer(P.get(), Name.c_str(), /*dead_after=*/0, &Id);
    if (Rc == 0)
      Buffer.emplace(V, Id);
    return Rc;
  };

  for (unsigned I = 0; I < N; ++I) {
    const SeqLaunch &La = R.Launches[I];
    const KernelInfo *K = I < Infos.size() ? Infos[I] : nullptr;
    std::string Name = std::to_string(I) + ":" + La.Kernel;
    int L = -1;
    if (int Rc = kf_problem_add_launch(P.get(), Name.c_str(), Elements, &L)) {
      Out.Error = failure("kf_problem_add_launch", Rc);
      return Out;
    }
    // The implementations it may run; a kernel marked kfuse_impl counts
    // per instance of its threads, an unmarked one per thread.
    std::vector<PlanVariant> Own;
    if (I < Variants.size() && !Variants[I].empty())
      Own = Variants[I];
    else
      Own.push_back({K, 1, ""});
    const unsigned Threads = Own[0].Function.empty() ? 1 : Own[0].Threads;
    for (size_t V = 0; V < Own.size(); ++V) {
      const PlanVariant &PV = Own[V];
      std::string VName = "t" + std::to_string(PV.Threads) + (V ? "." + std::to_string(V) : "");
      std::string Routine = psiRoutine(PV.Function, PV.Threads);
      kf_variant_t Var = {};
      Var.name = VName.c_str();
      Var.flops = PV.Info ? double(PV.Info->Flops) * (PV.Function.empty() ? 1 : PV.Threads) : 0.0;
      Var.tie_rank = PV.Derived ? 1 : 0;
      if (!PV.Function.empty()) {
        // The fused kernel's blocks across granularities: GranBlock
        // threads, at least GranInstances instances (the model's fused
        // block below).
        Var.threads_per_instance = int(PV.Threads);
        Var.instances_per_block = int(std::max(GranBlock / PV.Threads, GranInstances));
        Var.block_threads = Var.instances_per_block * Var.threads_per_instance;
        if (Psi)
          Var.psi_compute = Routine.c_str();
      }
      if (int Rc = kf_problem_add_variant(P.get(), L, &Var)) {
        Out.Error = failure("kf_problem_add_variant", Rc);
        return Out;
      }
    }
    // Bytes per element loaded and stored, per value number; and the
    // neighbours a stencil reads: t[i-1] and t[i+2] a halo of 1 + 2
    // elements per block; in 2-D and 3-D the cells around a block's box,
    // a box of 16 x 16 (8 x 8 x 4 in 3-D) taken for the estimate.
    std::map<unsigned, std::pair<double, double>> Moved;
    std::map<unsigned, std::pair<int64_t, int64_t>> Halo;
    std::map<unsigned, std::array<std::pair<int64_t, int64_t>, 3>> GridHalo;
    // A marked kernel's accesses: the record of its instance they lie in,
    // once per buffer and direction.
    std::map<unsigned, std::pair<double, double>> Records;
    if (K && K->Params.size() == La.Args.size() && !Own[0].Function.empty())
      for (const Access &A : K->Accesses)
        if (A.Param < La.Args.size()) {
          double &W = A.IsStore ? Records[La.Args[A.Param]].second
                                : Records[La.Args[A.Param]].first;
          W = std::max(W, recordBytes(A, Threads));
        }
    if (K && K->Params.size() == La.Args.size()) {
      for (const Access &A : K->Accesses) {
        if (A.Param >= La.Args.size())
          continue;
        if (!A.Repeat && Records.empty())
          (A.IsStore ? Moved[La.Args[A.Param]].second : Moved[La.Args[A.Param]].first) +=
              A.Bytes;
        std::optional<int64_t> D =
            A.IsStore || A.UnknownIndex ? std::nullopt : elementShift(A.Offset, A.Bytes);
        if (D && *D != 0) {
          auto &[Lo, Hi] = Halo[La.Args[A.Param]];
          Lo = std::max(Lo, -*D);
          Hi = std::max(Hi, *D);
        }
        std::optional<DigitForm> F =
            A.IsStore || A.UnknownIndex || D ? std::nullopt : digitsOf(A.Offset);
        if (auto S = F ? gridShift(F->Rest, F->Digits, A.Bytes) : std::nullopt)
          for (unsigned Dim = 0; Dim < 3; ++Dim) {
            auto &[Lo, Hi] = GridHalo[La.Args[A.Param]][Dim];
            Lo = std::max(Lo, -(*S)[Dim]);
            Hi = std::max(Hi, (*S)[Dim]);
          }
      }
    } else {
      for (unsigned V : La.Args) {
        auto VI = R.Values.find(V);
        if (VI != R.Values.end() && VI->second.Kind == "ptr")
          Moved[V] = {4.0, 4.0};
      }
    }
    for (auto &[V, RW] : Records)
      Moved[V] = RW;
    for (auto &[V, RW] : Moved) {
      int B = -1;
      if (int Rc = BufferOf(V, B)) {
        Out.Error = failure("kf_problem_add_buffer", Rc);
        return Out;
      }
      int Rc = 0;
      const char *In = Psi ? psiMemoryRoutine(RW.first, false) : nullptr;
      const char *Out_ = Psi ? psiMemoryRoutine(RW.second, true) : nullptr;
      if (RW.first > 0)
        Rc = kf_problem_add_access(P.get(), L, B, KF_READ, RW.first, In);
      if (Rc == 0 && RW.second > 0)
        Rc = kf_problem_add_access(P.get(), L, B, KF_WRITE, RW.second, Out_);
      int64_t Cells = 0;
      if (auto H = Halo.find(V); H != Halo.end())
        Cells = H->second.first + H->second.second;
      if (auto H = GridHalo.find(V); H != GridHalo.end()) {
        bool ThreeD = H->second[2].first + H->second[2].second > 0;
        const int64_t Box[3] = {ThreeD ? 8 : 16, ThreeD ? 8 : 16, ThreeD ? 4 : 1};
        int64_t Wide = 1;
        for (unsigned Dim = 0; Dim < 3; ++Dim)
          Wide *= Box[Dim] + H->second[Dim].first + H->second[Dim].second;
        Cells = Wide - Box[0] * Box[1] * Box[2];
      }
      if (Rc == 0 && Cells > 0 && RW.first > 0)
        Rc = kf_problem_set_halo(P.get(), L, B,
                                 int(std::min<int64_t>(Cells, KF_VARIANT_MAX_THREADS)));
      if (Rc) {
        Out.Error = failure("kf_problem_add_access", Rc);
        return Out;
      }
    }
  }

  // Buffers laid out in per-thread records are forwarded in registers by
  // every group that fuses them: no shared-memory staging in the model.
  if (N > 0 && Infos.size() == N) {
    FusionCandidate All;
    All.Seq = &R;
    All.First = 0;
    All.Last = N - 1;
    for (unsigned I = 0; I < N; ++I)
      All.Members.push_back(I);
    All.Stages.assign(Infos.begin(), Infos.end());
    for (auto &[V, B] : Buffer)
      if (inThreadRecords(All, V))
        if (int Rc = kf_problem_set_buffer_registers(P.get(), B, 1)) {
          Out.Error = failure("kf_problem_set_buffer_registers", Rc);
          return Out;
        }
  }

  LegalCtx Ctx{Legal};
  kf_problem_set_legality(P.get(), kfusePlanLegal, &Ctx);
  LegalVariantsCtx VCtx{LegalVariants};
  if (LegalVariants)
    kf_problem_set_variant_legality(P.get(), kfusePlanLegalVariants, &VCtx);
  if (Psi)
    for (const PsiEntry &E : Psi->Entries)
      if (int Rc = kf_problem_add_psi(P.get(), E.Routine.c_str(), E.Ipb, E.ExtraShared,
                                      E.Seconds)) {
        Out.Error = failure("kf_problem_add_psi", Rc);
        return Out;
      }
  if (int Rc = kf_problem_set_consecutive(P.get(), Reorder ? 0 : 1)) {
    Out.Error = failure("kf_problem_set_consecutive", Rc);
    return Out;
  }
  // The fused kernels' blocks, or the blocks the psi table was measured
  // in: its entries describe those.
  if (int Rc = kf_problem_set_fused_block(P.get(), Psi ? Psi->FusedBlock : int(GranBlock))) {
    Out.Error = failure("kf_problem_set_fused_block", Rc);
    return Out;
  }

  kf_model *MRaw = nullptr;
  if (int Rc = kf_model_create(&MRaw, &Profile, Psi ? KF_MODEL_PSI : KF_MODEL_ROOFLINE)) {
    Out.Error = failure("kf_model_create", Rc);
    return Out;
  }
  std::unique_ptr<kf_model, ModelDeleter> Model(MRaw);

  kf_solve_options_t Opts;
  kf_solve_options_init(&Opts);
  Opts.solver = KF_SOLVE_EXACT;
  Opts.max_group = N < 2 ? 2 : N > 8 ? 8 : int(N);
  Opts.k_best = KBest < 1 ? 1 : int(std::min(KBest, PlanMaxAlternatives));
  // The k best plans of a sequence with implementations list the best
  // partitions in their other implementations too (-kfuse-plans: measuring
  // them is how the model's choice is checked).
  if (llvm::any_of(Variants, [](const std::vector<PlanVariant> &V) { return V.size() > 1; }))
    Opts.assignments = Opts.k_best;
  Opts.work_limit = WorkLimit;
  kf_plan *PlRaw = nullptr;
  int Rc = kf_plan_solve(P.get(), Model.get(), &Opts, &PlRaw);
  std::unique_ptr<kf_plan, PlanDeleter> Plan(PlRaw);
  if ((Rc != 0 && Rc != KF_ELIMIT) || !Plan || kf_plan_count(Plan.get()) < 1) {
    Out.Error = failure("kf_plan_solve", Rc ? Rc : KF_ESOLVER);
    return Out;
  }
  Out.Limited = Rc == KF_ELIMIT;
  Out.Gap = kf_plan_gap(Plan.get());
  Out.PlanNs = kf_plan_time(Plan.get(), 0) * 1e9;
  Out.UnfusedNs = kf_plan_unfused_time(Plan.get()) * 1e9;
  Out.Candidates = kf_plan_candidate_count(Plan.get());

  // Predicted time of each launch alone, for the groups' "unfused" figure.
  std::vector<double> AloneNs(N);
  for (unsigned I = 0; I < N; ++I) {
    kf_estimate_t E;
    int V = 0, One = int(I);
    if (int Err = kf_model_estimate(Model.get(), P.get(), &One, &V, 1, &E)) {
      Out.Error = failure("kf_model_estimate", Err);
      return Out;
    }
    AloneNs[I] = E.time * 1e9;
  }

  for (int Rank = 0, Count = kf_plan_count(Plan.get()); Rank < Count; ++Rank) {
    PlanAlternative Alt;
    Alt.Ns = kf_plan_time(Plan.get(), Rank) * 1e9;
    for (int Gi = 0, G = kf_plan_group_count(Plan.get(), Rank); Gi < G; ++Gi) {
      kf_group_info_t Info;
      if (int E = kf_plan_group(Plan.get(), Rank, Gi, &Info)) {
        Out.Error = failure("kf_plan_group", E);
        return Out;
      }
      // The library lists a group's launches in an order of execution it
      // chose (independent launches in either order); the fused kernel runs
      // them in program order, which respects every dependency too.
      PlannedGroup PG;
      std::vector<std::pair<unsigned, unsigned>> ByLaunch;
      for (int J = 0; J < Info.count; ++J)
        ByLaunch.push_back({unsigned(Info.launches[J]), unsigned(Info.variants[J])});
      llvm::sort(ByLaunch);
      for (auto [La, V] : ByLaunch) {
        PG.Members.push_back(La);
        PG.Choice.push_back(V);
      }
      if (llvm::all_of(PG.Choice, [](unsigned V) { return V == 0; }))
        PG.Choice.clear();
      if (PG.Members.empty() || PG.Members.back() >= N ||
          std::adjacent_find(PG.Members.begin(), PG.Members.end()) != PG.Members.end()) {
        Out.Error = "the plan holds a group with launches out of range or twice";
        return Out;
      }
      PG.First = PG.Members.front();
      PG.Last = PG.Members.back();
      PG.FusedNs = Info.time * 1e9;
      for (unsigned J : PG.Members)
        PG.UnfusedNs += AloneNs[J];
      // Why the best plan's implementations: the next cheapest assignment.
      if (Rank == 0 && PG.Members.size() > 1 &&
          !nextAssignment(P.get(), Model.get(), PG, ArrayRef<int>(Info.launches, Info.count),
                          Variants, LegalVariants, Out.Error))
        return Out;
      Alt.Groups.push_back(PG);
    }
    std::sort(Alt.Groups.begin(), Alt.Groups.end(),
              [](const PlannedGroup &A, const PlannedGroup &B) { return A.First < B.First; });
    std::vector<unsigned> Seen(N, 0);
    for (const PlannedGroup &G : Alt.Groups)
      for (unsigned J : G.Members)
        ++Seen[J];
    if (llvm::any_of(Seen, [](unsigned K) { return K != 1; })) {
      Out.Error = "the plan does not cover the sequence exactly once";
      return Out;
    }
    Out.Alternatives.push_back(std::move(Alt));
  }
  for (const PlannedGroup &PG : Out.Alternatives[0].Groups)
    if (PG.Members.size() > 1)
      Out.Groups.push_back(PG);
  Out.Ok = true;
  return Out;
}
