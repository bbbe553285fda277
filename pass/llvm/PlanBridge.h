//===- PlanBridge.h - the device pass's use of libkfplan --------*- C++ -*-===//
//
// Turns one launch sequence record and the analyses of its kernels into a
// libkfplan problem (include/kfuse/plan.h), solves it with the exact solver
// under the pass's legality check, and hands back the fused groups with their
// predicted times. The same library and cost model as kfuse-plan.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_PASS_LLVM_PLANBRIDGE_H
#define KFUSE_PASS_LLVM_PLANBRIDGE_H

#include "KernelAnalysis.h"
#include "SeqRecord.h"

#include "kfuse/profile.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <string>
#include <vector>

namespace kfuse {

/// Elements each launch is assumed to process by default: the launch size is
/// a run-time value, so predictions are for a 16M-element map unless
/// -kfuse-elements says otherwise.
constexpr double PlanNominalInstances = 16777216.0; // 2^24

/// Most plans -kfuse-plans may ask for: the runtime selects among them with
/// KFUSE_PLAN / kf_rt_select_plan() (docs/manifest.md, `plans`).
constexpr unsigned PlanMaxAlternatives = 256;
/// Work units the planner may spend per sequence (-kfuse-plan-work-limit):
/// about a second's worth on the synthetic 142-kernel instances, far more
/// than the dynamic program over consecutive groups ever takes.
constexpr long PlanDefaultWork = 1000000;
/// Largest -kfuse-elements: sizes past it make predicted times no device
/// runs (kf_problem_add_launch refuses them too).
constexpr double PlanMaxElements = 1e15;

/// One implementation a launch may run (kfuse_impl): variant 0 is the
/// kernel the launch names, the others its function's other kernels.
struct PlanVariant {
  const KernelInfo *Info = nullptr; ///< null: not analysable
  unsigned Threads = 1;             ///< per instance; 1 for an unmarked kernel
  std::string Function;             ///< the kfuse_impl function; "" when unmarked
  /// Derived by the device pass (DeriveImpl.h): where the model predicts
  /// it alike with the program's own, the program's runs (tie_rank 1).
  bool Derived = false;
};

/// One entry of a per-routine timing table (-kfuse-psi, docs/plan.md).
struct PsiEntry {
  std::string Routine;
  int Ipb = 0, ExtraShared = 0;
  double Seconds = 0;
};

/// Instances per launch a psi table was measured at when it does not say:
/// kfuse-calibrate's default.
constexpr double PsiDefaultInstances = 1048576.0; // 2^20

/// A psi table file: its entries, the instances per launch they were
/// measured at, and the threads of the blocks they were measured in.
struct PsiTable {
  std::vector<PsiEntry> Entries;
  double Instances = PsiDefaultInstances;
  /// The `fused-block` line: blocks of that many threads, a routine with
  /// more looping over them (kfuse's fused blocks); 0 without one: the seed
  /// paper's blocks of instances times threads per instance. The model
  /// prices a group in the blocks its table was measured in
  /// (kf_problem_set_fused_block).
  int FusedBlock = 0;
  /// Whether some entry times \p Routine.
  bool has(const std::string &Routine) const {
    for (const PsiEntry &E : Entries)
      if (E.Routine == Routine)
        return true;
    return false;
  }
};

/// The table's routine for \p Function's implementation with \p Threads
/// threads per instance, "<function>_c<threads>" (`mmul33_c9`).
inline std::string psiRoutine(const std::string &Function, unsigned Threads) {
  return Function + "_c" + std::to_string(Threads);
}

/// Reads a psi table file: `psi <routine> <ipb> <extra-shared> <seconds>`
/// lines, at most one `fused-block <threads>` line, `#` comments and blank
/// lines (what kfuse-calibrate --psi writes); its `# instances: N` comment
/// sets the instances (else PsiDefaultInstances). \returns false with
/// "line N: reason" in \p Err.
bool loadPsiTable(const std::string &Path, PsiTable &Out, std::string &Err);

/// One group of the plan: launches Members of the record, ascending, from
/// First to Last (not necessarily every launch between them).
struct PlannedGroup {
  unsigned First = 0, Last = 0;
  std::vector<unsigned> Members;
  /// The variant each member runs (PlanVariant index), all 0 when every
  /// member runs the kernel its launch names.
  std::vector<unsigned> Choice;
  double FusedNs = 0;   ///< predicted time of the fused kernel
  double UnfusedNs = 0; ///< predicted time of its launches alone
  /// In the best plan, a group whose launches have other implementations:
  /// the cheapest legal assignment of them other than Choice (variant per
  /// member) and its predicted time; empty when there is none.
  std::vector<unsigned> NextChoice;
  double NextNs = 0;
};

/// One plan of the k best: its groups, fused and single, in launch order.
struct PlanAlternative {
  double Ns = 0; ///< predicted time of the whole sequence
  std::vector<PlannedGroup> Groups; ///< every group, singletons included, by First
};

struct PlanOutcome {
  bool Ok = false;
  std::string Error;      ///< why not Ok
  bool Limited = false;   ///< the work limit stopped the search: best plan found,
                          ///< not proven optimal
  double Gap = 0;         ///< relative gap when Limited
  double PlanNs = 0, UnfusedNs = 0; ///< whole sequence
  int Candidates = 0;     ///< candidate groups the solver considered
  std::vector<PlannedGroup> Groups; ///< the best plan's groups of two launches or more
  std::vector<PlanAlternative> Alternatives; ///< the k best plans, best first
};

/// Reads a device profile file over the default (H100) values. \returns
/// false with the reason in \p Err.
bool loadPlanProfile(const std::string &Path, kf_profile_t &Out, std::string &Err);

/// Plans record \p R. \p Infos holds, per launch, the analysis of its kernel
/// or null when it is not an analysable kfuse_map kernel of this module.
/// \p Legal(Members) says whether those launches (ascending) may be fused.
/// Every launch is taken to process \p Elements elements; \p KBest plans are
/// asked for (the best one alone when the work limit stops the search).
/// Without \p Reorder the problem admits consecutive groups only, which the
/// library plans exactly by dynamic programming whatever the length of the
/// sequence; with it, any convex group (the launches between its members
/// that it leaves out run after it, when \p Legal allows), which the exact
/// solver plans under the work limit.
///
/// \p Variants holds, per launch, the implementations it may run (empty: the
/// kernel it names alone); \p LegalVariants(Members, Choice) whether those
/// launches may run them, fused or, for one launch, alone. With \p Psi the
/// cost model is the table model of Fousek et al. (KF_MODEL_PSI): a
/// variant's compute is the routine `<function>_c<threads>`, and an access
/// of a record of 4, 12, 36 or 100 bytes per instance `load1`, `load3`,
/// `load33` or `load55` (`store...` for a write), the seed paper's routines
/// that kfuse-calibrate --psi measures; other routines take the roofline's
/// time.
PlanOutcome planWithLibrary(const SeqRecord &R, llvm::ArrayRef<const KernelInfo *> Infos,
                            llvm::function_ref<bool(llvm::ArrayRef<unsigned>)> Legal,
                            llvm::ArrayRef<std::vector<PlanVariant>> Variants,
                            llvm::function_ref<bool(llvm::ArrayRef<unsigned>,
                                                    llvm::ArrayRef<unsigned>)> LegalVariants,
                            const PsiTable *Psi,
                            const kf_profile_t &Profile, long WorkLimit, double Elements,
                            unsigned KBest, bool Reorder);

} // namespace kfuse

#endif
