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

/// One group of the plan: launches Members of the record, ascending, from
/// First to Last (not necessarily every launch between them).
struct PlannedGroup {
  unsigned First = 0, Last = 0;
  std::vector<unsigned> Members;
  double FusedNs = 0;   ///< predicted time of the fused kernel
  double UnfusedNs = 0; ///< predicted time of its launches alone
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
PlanOutcome planWithLibrary(const SeqRecord &R, llvm::ArrayRef<const KernelInfo *> Infos,
                            llvm::function_ref<bool(llvm::ArrayRef<unsigned>)> Legal,
                            const kf_profile_t &Profile, long WorkLimit, double Elements,
                            unsigned KBest, bool Reorder);

} // namespace kfuse

#endif
