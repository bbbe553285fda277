//===- DeviceFusion.cpp - fuse kfuse_map kernel launch sequences ----------===//
//
/// \file
/// The device pass. The Clang plugin records, in llvm.global.annotations,
/// which kernels are map kernels (`kfuse_map`) and which launch sequences the
/// host code makes of them (`kfuse.seq 1` records, docs/annotations.md). This
/// pass analyses each map kernel, decides which launches of each sequence
/// run as one kernel (consecutive ones, or ones the launches between which
/// can run on their own before or after it: riders, FusionCandidate.h),
/// builds those fused kernels next to the untouched originals, and
/// describes them in @__kfuse_manifest_<key> (docs/manifest.md) so the
/// runtime can check its guards and launch them.
/// The key is the translation unit's (the Clang plugin's `kfuse.tu`, a hash
/// of the file's content): the fused kernels, `__kfuse_fused_<key>_<seq>_
/// <first>_<last>`, and the manifest are external symbols, and the files of
/// a -fgpu-rdc program are linked into one device image, so each file's
/// must have names of its own, the same on every build.
/// The manifest also says, in a short `missed` line per launch span left
/// unfused, why, so that the host pass can say it where the launches are.
///
/// Launches First..Last of a sequence are fused only when:
///
///  1. every launch is of a kfuse_map kernel defined in this module, with as
///     many arguments as it has parameters;
///  2. every kernel is analysable (KernelAnalysis.cpp): it uses no shared
///     memory, barriers, warp collectives, atomics, fences or volatile
///     accesses; every call is to a side-effect-free intrinsic, to inline
///     asm that only computes on registers (judged by its text, not by the
///     `convergent` and `memory(none)` clang puts on every CUDA asm), to a
///     one-scalar cache-hint load or store in asm (`__ldcs`, `__stwt`: an
///     access like a plain one, CallEffects.cpp), or to a function defined
///     in the module whose body, recursively, only computes, uses its own
///     or the caller's thread-private memory and reads constants (a
///     `__noinline__` helper, libdevice's slow paths; a call that gets a
///     kernel pointer is refused); reads only x thread coordinates; its
///     pointer parameters are only used as addresses; every global access goes through a
///     pointer parameter, every store at a byte offset that is a polynomial
///     in tid.x, ntid.x, ctaid.x, nctaid.x and integer parameters (a load
///     may have any index: a gather, see 8);
///  3. all launches have the same grid, block, dynamic shared memory and
///     stream value numbers (the runtime re-checks the values: `shape same`,
///     `stream same`); or the same block, dynamic shared memory and stream
///     but different grids, and no launch writes a buffer another one
///     accesses: the fused kernel then runs each launch in blocks of its own
///     along x (`shape split`, FusionCandidate::Split), and 5 to 8 have
///     nothing to check; or the launches run over the same instances at
///     different granularities (FusionCandidate::Tpi, `shape gran`): where
///     the stages meet in a buffer at offsets c*g + d of their global
///     indices g, the coefficients fix each stage's threads per instance
///     (36*i stored by one thread per 3x3 matrix and 4*j read by one per
///     element: nine to one), any grids and blocks, each stage 1-D, all its
///     accesses under one check `g < n`, no gridDim.x, no riders; a buffer
///     that stages of different granularities share is staged per block of
///     instances (64 at least; a stage with more threads than the block's
///     256 loops over them, and then stages of one granularity pass values
///     through such tiles too, not registers), every access in its own thread's c bytes of them, or its
///     instance's element read by q threads, c*(g/q) + d (`nrm[j / 25]`);
///     and an input no stage writes, read in its instances' records of the
///     same W bytes, the first and last byte of each by every thread below
///     some stage's `g < n`, is copied a block of instances at a time into
///     shared memory by consecutive threads, its loads reading the copy
///     (FusionCandidate::GranInputs); and an output one stage writes whole,
///     12 bytes or more per thread, none reading it, goes to a shared tile
///     that the block stores with consecutive threads after the last stage
///     (FusionCandidate::GranOutputs). A stage may run another
///     implementation of its launch's function (kfuse_impl,
///     FusionCandidate::Impls) where the planner chose it: every kernel of
///     the group is marked, the implementations take the same parameter
///     types and check their global index against the same integer
///     parameter, which counts their own threads; the stage's threads per
///     instance are then the kernels' own, which the offsets where the
///     stages meet must not contradict, and the runtime passes that
///     parameter scaled (manifest `impl`);
///  4. the dynamic shared memory size is a literal constant (`dynshmem`);
///  5. for every buffer (value number) and every pair of accesses to it from
///     different stages where at least one is a store, either
///     - every access to the buffer lies in a record of its thread's own:
///       offset sum(c_k * digit_k) + r + d, the digits being the global
///       coordinates ctaid.d*ntid.d + tid.d (or tid.d and ctaid.d alone), the
///       same coefficients c_k and base r for every access, a constant d per
///       access; the digits, smallest |c_k| first, form a mixed-radix number
///       whose lowest place holds the record (|c_k| >= sum_{j<k} |c_j|
///       (extent_j - 1) + the bytes each thread's accesses span), and every
///       coordinate a stage reads that no digit holds has extent 1, so
///       distinct threads touch distinct records (an element, a struct, a
///       3x3 matrix per instance; a pixel of a pitched image). What only
///       the launch's values decide (pitch >= width, with the extent bounded
///       by a dominating `x < w` check) becomes a manifest `le` guard. The
///       pair is at the same d and size (register forwarding, one register
///       per stored field) or at disjoint bytes of the record (no hazard); a
///       partial overlap is not fused; or
///     - both offsets are block-local (the element belongs to the same block
///       in both stages: shared-memory staging, with a barrier between every
///       two stages): in 1-D the offset lies in the block's own bytes; in
///       2-D and 3-D every access is at sum_d C_d*(ctaid.d*ntid.d + l_d) + r
///       with the store's coefficients C_d and in-block coordinates
///       0 <= l_d < ntid.d, and the tile slot is l (a transpose within
///       square blocks, a mirror within the block);
///  6. a forwarded field is stored and loaded with one element type, and a
///     staged buffer is accessed with one element type;
///  7. the staging tiles fit in 48 KB of static shared memory per block;
///  8. no stage writes a buffer (value number) that some stage gathers from
///     (loads at an index that is not a polynomial, `b[i % cols]`,
///     `t[idx[i]]`). Such a buffer has no footprint line: the runtime checks
///     its whole allocation against every buffer the group writes
///     (`disjoint` lines).
///
/// Distinct value numbers are assumed to be distinct, non-overlapping
/// buffers, and equal value numbers equal values; the manifest's `disjoint`
/// and `equal` lines make the runtime check both before each fused launch.
/// The fused kernel relies on them: each stage receives the first argument
/// of a value wherever it is passed again, and a buffer no stage writes is
/// loaded as invariant (`ld.global.nc`) since it is checked disjoint from
/// every written one (disjointPairs()).
///
/// The plan (which legal groups to form) is one function, planSequence().
/// By default it asks the planning library (lib/, through PlanBridge.cpp):
/// the exact solver picks the partition of the sequence into legal groups
/// (convex, riders allowed; consecutive only under -kfuse-reorder=0) with
/// the least predicted time under the device
/// profile's cost model (-kfuse-profile, default H100), for a nominal 2^24
/// elements per launch (-kfuse-elements=N). -kfuse-planner=greedy, or any planner failure,
/// selects the greedy policy instead: each maximal legal run of consecutive
/// launches, front to back. -kfuse-plans=K builds the fused kernels of the
/// K best plans instead of the best alone and tags each with the plans that
/// hold it (manifest `plans`), so the runtime can run any of them
/// (KFUSE_PLAN, kf_rt_select_plan()): empirical selection, and the
/// measurements behind the cost model's calibration.
///
/// Cost figures: the element count n is a run-time value, so every
/// prediction is for a nominal 2^24 elements per launch. Under the planner,
/// the `predict` line and the FusionCost remark carry the planning library's
/// roofline prediction for the group; under the greedy policy they count
/// bytes per element (KernelInfo::BytesPerThread, every access once, a
/// gather included as if it missed the cache) over a 3 B/ns bandwidth
/// (Manifest.cpp NominalThreads). They rank groups, they do not predict a
/// run: real times belong to the runtime (KFUSE_STATS).
///
/// Results stay bit-identical: a value crossing an old kernel boundary
/// through a register or shared memory loses `contract` on its producer and
/// goes through llvm.arithmetic.fence, so no FMA forms across the boundary.
//
//===----------------------------------------------------------------------===//
#include "DeriveImpl.h"
#include "FusionCandidate.h"
#include "HelperInline.h"
#include "ThreadLoops.h"
#include "Passes.h"
#include "PlanBridge.h"
#include "RemarkText.h"
#include "RolledLoops.h"
#include "VectorHints.h"
#include "kfuse/plan.h"
#include "manifest/manifest.h"

#include "llvm/ADT/Statistic.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Transforms/InstCombine/InstCombine.h"
#include "llvm/Transforms/Scalar/EarlyCSE.h"
#include "llvm/Transforms/Scalar/SROA.h"
#include "llvm/Transforms/Scalar/SimplifyCFG.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <set>

using namespace llvm;
using namespace kfuse;

#define DEBUG_TYPE "kfuse"

STATISTIC(NumFusedGroups, "Fused kernels created");
STATISTIC(NumFusedLaunches, "Launches covered by fused kernels");
STATISTIC(NumForwarded, "Buffers carried in registers");
STATISTIC(NumStaged, "Buffers carried through shared memory");
STATISTIC(NumMalformedRecords, "Sequence records that could not be read");
STATISTIC(NumNotMapKernel, "Launches of kernels that are not kfuse_map kernels here");
STATISTIC(NumKernelEscape, "Kernels rejected: pointer parameter escapes");
STATISTIC(NumKernelCall, "Kernels rejected: non-intrinsic or memory call");
STATISTIC(NumKernelAsm, "Kernels rejected: inline asm");
STATISTIC(NumKernelBarrier, "Kernels rejected: barrier or warp collective");
STATISTIC(NumKernelAtomic, "Kernels rejected: atomics or fences");
STATISTIC(NumKernelShared, "Kernels rejected: shared memory");
STATISTIC(NumKernelGlobal, "Kernels rejected: global variable access");
STATISTIC(NumKernelIndirect, "Kernels rejected: indirect addressing");
STATISTIC(NumKernelIndex, "Kernels rejected: non-affine or unknown index");
STATISTIC(NumKernelVolatile, "Kernels rejected: volatile access");
STATISTIC(NumKernelOptNone, "Kernels rejected: optnone (-O0)");
STATISTIC(NumKernelLoop, "Kernels rejected: a product crosses the trips of a loop to unroll");
STATISTIC(NumKernelUnrolled, "Kernels analysed through a copy with their loops unrolled");
STATISTIC(NumRejectKernel, "Pairs rejected: a kernel is unanalysable");
STATISTIC(NumRejectRecord, "Pairs rejected: record does not match the kernel");
STATISTIC(NumRejectConfig, "Pairs rejected: launch configuration differs or unknown");
STATISTIC(NumRejectCrossBlock, "Pairs rejected: hazard across threads of different blocks");
STATISTIC(NumRejectType, "Pairs rejected: carried buffer with several element types");
STATISTIC(NumRejectResources, "Pairs rejected: shared-memory tiles too large");
STATISTIC(NumRejectGather, "Pairs rejected: a stage writes a gathered buffer");
STATISTIC(NumRejectOverlap, "Pairs rejected: accesses to a per-thread record overlap in part");
STATISTIC(NumRejectLoop, "Pairs rejected: grid-stride loops over different iterations");
STATISTIC(NumRejectOrder, "Groups rejected: a launch between their members cannot move out");
STATISTIC(NumGathers, "Loads at an unknown index (gathers) in analysed kernels");
STATISTIC(NumSiteNotUnique, "Sequences left unfused: their site does not identify them");
STATISTIC(NumKernelRolled, "Kernels analysed with the loops their unroll pragmas unroll rolled");
STATISTIC(NumKernelFieldParams, "Kernels analysed with the buffers of their struct fields as parameters");
STATISTIC(NumPlannedSeqs, "Sequences planned by the planning library");
STATISTIC(NumPlanFallbacks, "Sequences planned greedily after a planner failure");
STATISTIC(NumNotProfitable, "Legal groups the cost model did not form");

namespace {
enum class PlannerKind { ILP, Greedy };
} // namespace

static cl::opt<PlannerKind> PlannerOpt(
    "kfuse-planner", cl::desc("kfuse: how the device pass picks the groups to fuse"),
    cl::init(PlannerKind::ILP),
    cl::values(clEnumValN(PlannerKind::ILP, "ilp",
                          "the planning library's exact solver and cost model (default)"),
               clEnumValN(PlannerKind::Greedy, "greedy",
                          "each maximal legal run of consecutive launches")));
static cl::opt<std::string>
    ProfileOpt("kfuse-profile", cl::value_desc("file"),
               cl::desc("kfuse: device profile for the cost model (default: built-in H100)"),
               cl::init(""));
static cl::opt<std::string>
    PsiOpt("kfuse-psi", cl::value_desc("file"), cl::init(""),
           cl::desc("kfuse: per-routine timing tables (kfuse-calibrate --psi) for the table "
                    "cost model of Fousek et al., which then chooses among a function's "
                    "implementations (kfuse_impl); default: the roofline model"));
static cl::opt<unsigned> PlansOpt(
    "kfuse-plans", cl::value_desc("K"), cl::init(1),
    cl::desc("kfuse: build the fused kernels of the K best plans of each sequence (1..256); "
             "the runtime runs plan KFUSE_PLAN, the best by default"));
static cl::opt<double> ElementsOpt(
    "kfuse-elements", cl::value_desc("N"), cl::init(PlanNominalInstances),
    cl::desc("kfuse: elements each launch is assumed to process in the cost model "
             "(default 16777216)"));
static cl::opt<bool> DeriveOpt(
    "kfuse-derive-impls", cl::init(true),
    cl::desc("kfuse: with -kfuse-psi, derive from each kfuse_impl kernel whose thread writes "
             "several values of its instance, computed alike, the implementations with more "
             "threads per instance, for the planner to choose from (default on)"));
static cl::opt<unsigned> UnrollLimitOpt(
    "kfuse-unroll-limit", cl::value_desc("N"), cl::init(4096),
    cl::desc("kfuse: analyse and fuse a kernel whose thread loops a constant number of times "
             "through a copy with those loops unrolled, where that copy has at most N "
             "instructions (default 4096; 0: never)"));
static cl::opt<bool> ReorderOpt(
    "kfuse-reorder", cl::init(true),
    cl::desc("kfuse: let the planner fuse launches that are not consecutive, the launches "
             "between them running unfused before or after the fused kernel (default on)"));
static cl::opt<long> PlanWorkOpt(
    "kfuse-plan-work-limit", cl::value_desc("N"), cl::init(PlanDefaultWork),
    cl::desc("kfuse: units of work the planner may spend per sequence, the K best plans "
             "included (candidate groups, states, nodes, simplex iterations; default 1000000): "
             "a count, not a time, so the output does not depend on the machine or its load"));
// Deprecated: the old time limit made the output depend on the machine's
// load. Taken with any value, so existing build lines still compile, and
// ignored with a warning.
static cl::opt<std::string> PlanTimeOpt(
    "kfuse-plan-time-limit", cl::Hidden, cl::value_desc("seconds"),
    cl::desc("kfuse: deprecated and ignored; see -kfuse-plan-work-limit"));

static void countKernelRejection(StringRef Key) {
  if (Key == "escape") ++NumKernelEscape;
  else if (Key == "call") ++NumKernelCall;
  else if (Key == "asm") ++NumKernelAsm;
  else if (Key == "barrier") ++NumKernelBarrier;
  else if (Key == "atomic") ++NumKernelAtomic;
  else if (Key == "shared") ++NumKernelShared;
  else if (Key == "global") ++NumKernelGlobal;
  else if (Key == "indirect") ++NumKernelIndirect;
  else if (Key == "index") ++NumKernelIndex;
  else if (Key == "volatile") ++NumKernelVolatile;
  else if (Key == "optnone") ++NumKernelOptNone;
  else if (Key == "loop") ++NumKernelLoop;
}

static void countGroupRejection(StringRef Key) {
  if (Key == "kernel") ++NumRejectKernel;
  else if (Key == "record") ++NumRejectRecord;
  else if (Key == "config") ++NumRejectConfig;
  else if (Key == "cross-block") ++NumRejectCrossBlock;
  else if (Key == "type") ++NumRejectType;
  else if (Key == "resources") ++NumRejectResources;
  else if (Key == "gather") ++NumRejectGather;
  else if (Key == "partial-overlap") ++NumRejectOverlap;
  else if (Key == "loop") ++NumRejectLoop;
  else if (Key == "order") ++NumRejectOrder;
}

/// Whether two launches have the same grid, block and dynamic shared memory
/// (value numbers): a launch between a group's members that is launched
/// like them would rather join the group than ride along.
static bool launchedAlike(const SeqLaunch &A, const SeqLaunch &B) {
  return A.Grid == B.Grid && A.Block == B.Block && A.Shmem == B.Shmem;
}

/// Launches \p Members (ascending) for remarks: "2..5" when consecutive,
/// else "0, 2, 3".
static std::string membersText(ArrayRef<unsigned> Members) {
  if (Members.back() - Members.front() + 1 == Members.size())
    return std::to_string(Members.front()) + ".." + std::to_string(Members.back());
  std::string Out;
  for (unsigned I : Members)
    Out += (Out.empty() ? "" : ", ") + std::to_string(I);
  return Out;
}
static std::string membersText(const FusionCandidate &C) { return membersText(C.Members); }
/// "a", "a and b", "a, b and c".
static std::string listed(ArrayRef<std::string> Names) {
  std::string Out;
  for (size_t K = 0; K < Names.size(); ++K)
    Out += (K ? (K + 1 == Names.size() ? " and " : ", ") : "") + Names[K];
  return Out;
}

/// A set's groups: "A and B", or "A; B; and C" (a group's own list uses
/// commas).
static std::string setText(ArrayRef<FusionCandidate> Parts) {
  std::string Text;
  for (size_t P = 0; P < Parts.size(); ++P)
    Text += std::string(P == 0                  ? ""
                        : Parts.size() == 2     ? " and "
                        : P + 1 == Parts.size() ? "; and "
                                                : "; ") +
            membersText(Parts[P]);
  return Text;
}

/// The groups of a plan whose spans do not overlap: a fused group covers the
/// span First..Last of a run at once and runs the launches in it that are
/// not its members on their own (riders). Groups are kept by their
/// predicted gain, largest first; one whose span overlaps a kept one's is
/// left out and listed in \p Dropped with that one (indices into \p
/// Groups), for planSequence to run the groups that overlap as a set where
/// it can (runAsSet). \p Groups and the result are ordered by First.
static std::vector<PlannedGroup>
runnable(ArrayRef<PlannedGroup> Groups, std::vector<std::pair<size_t, size_t>> *Dropped = nullptr) {
  std::vector<size_t> ByGain;
  for (size_t G = 0; G < Groups.size(); ++G)
    if (Groups[G].Members.size() > 1)
      ByGain.push_back(G);
  std::stable_sort(ByGain.begin(), ByGain.end(), [&](size_t A, size_t B) {
    return Groups[A].UnfusedNs - Groups[A].FusedNs > Groups[B].UnfusedNs - Groups[B].FusedNs;
  });
  std::vector<bool> Keep(Groups.size(), true);
  std::vector<size_t> Kept;
  for (size_t G : ByGain) {
    for (size_t K : Kept)
      if (Groups[G].First <= Groups[K].Last && Groups[K].First <= Groups[G].Last) {
        Keep[G] = false;
        if (Dropped)
          Dropped->push_back({G, K});
        break;
      }
    if (Keep[G])
      Kept.push_back(G);
  }
  std::vector<PlannedGroup> Out;
  for (size_t G = 0; G < Groups.size(); ++G)
    if (Keep[G])
      Out.push_back(Groups[G]);
  return Out;
}

namespace {

/// A plan's groups as they run (DeviceFuser::formSets): the groups, ordered
/// by First, sets' parts included; each set's parts in the order they run;
/// and the groups left out (with the kept group each overlaps, indices into
/// the plan) and why.
struct PlanSets {
  std::vector<PlannedGroup> Groups;
  std::vector<std::vector<FusionCandidate>> Sets;
  std::vector<std::pair<size_t, size_t>> Left;
  std::map<size_t, std::string> Why;
};

class DeviceFuser {
  Module &M;
  FunctionAnalysisManager &FAM;
  std::map<std::string, KernelInfo> Kernels; // by mangled name
  /// The kfuse_impl marks (ModuleRecords::Impls), by kernel name.
  std::map<std::string, ImplMark> Impls;
  /// Kernels' copies with their pointer-taking helpers inlined
  /// (HelperInline.h), erased when the pass is done.
  std::vector<Function *> Twins;
  /// The rolled copies of kernels (RolledLoops.h), by kernel; erased after
  /// the kernels' vector accesses are put back, since they are split too.
  DenseMap<Function *, Function *> Rolled;
  /// The module's launch sequences (run()).
  const std::vector<SeqRecord> *Seqs = nullptr;
  /// The translation unit's key (ModuleRecords::TuKey): every symbol this
  /// pass adds with external linkage carries it, so the files of a
  /// -fgpu-rdc program link into one device image without a clash.
  std::string Key;
  std::string ManifestText;
  /// The manifest's `missed` lines: why launches of a sequence stay unfused,
  /// for the host pass's remarks.
  std::string MissedText;
  /// The planner's prediction (unfused ns, fused ns) per fused kernel name.
  std::map<std::string, std::pair<uint64_t, uint64_t>> Predicted;
  bool ProfileRead = false, ProfileOk = true;
  /// Why the planner's flags cannot be used (empty when they can).
  std::string FlagError;
  std::string ProfileError;
  kf_profile_t Profile;
  /// The psi table of -kfuse-psi (empty: the roofline model) and the
  /// instances per launch it was measured at.
  PsiTable Psi;
  /// The map kernels' vector cache-hint accesses, split into lanes while
  /// the pass runs (VectorHints.h), and the kernels it split.
  VectorHintSplitter Lanes;
  std::vector<Function *> Split;
  /// The next set's number (manifest `part`), unique in the module.
  unsigned NextSetId = 1;

public:
  DeviceFuser(Module &M, FunctionAnalysisManager &FAM) : M(M), FAM(FAM) {}
  bool run();

private:
  KernelInfo analyze(Function &F) {
    return analyzeKernel(F, FAM.getResult<ScalarEvolutionAnalysis>(F),
                         FAM.getResult<DominatorTreeAnalysis>(F), FAM.getResult<LoopAnalysis>(F));
  }
  unsigned unrollThreadLoops(Function &F, KernelInfo &K);
  /// Whether a loop of \p F carries a floating-point value from one trip to
  /// the next (a phi in its header).
  bool carriesFloat(Function &F) {
    for (Loop *L : FAM.getResult<LoopAnalysis>(F).getLoopsInPreorder())
      for (PHINode &Phi : L->getHeader()->phis())
        if (Phi.getType()->isFPOrFPVectorTy())
          return true;
    return false;
  }
  OptimizationRemarkEmitter &ore(Function &F) {
    return FAM.getResult<OptimizationRemarkEmitterAnalysis>(F);
  }
  FusionCandidate candidate(const SeqRecord &R, unsigned First, unsigned Last);
  FusionCandidate candidate(const SeqRecord &R, ArrayRef<unsigned> Members,
                            const std::map<unsigned, int8_t> &Forced = {},
                            ArrayRef<unsigned> Choice = {});
  /// The implementations a launch of \p Kernel may run (kfuse_impl): the
  /// kernel itself first, then the other analysable kernels of its
  /// function with its parameter types, by threads per instance and name.
  std::vector<std::string> variantsOf(const std::string &Kernel) const;
  /// Substitutes, in \p C (stages set, not yet checked), the kernel of
  /// each member whose \p Choice is not 0; false, with \p C invalid,
  /// where it cannot.
  bool substitute(FusionCandidate &C, ArrayRef<unsigned> Choice);
  std::string runAsSet(const SeqRecord &R, std::vector<PlannedGroup> Gs,
                       std::vector<FusionCandidate> &Parts);
  PlanSets formSets(const SeqRecord &R, ArrayRef<PlannedGroup> All);
  void nameSet(std::vector<FusionCandidate> &Parts);
  std::vector<FusionCandidate> planSequence(const SeqRecord &R);
  std::vector<FusionCandidate> planGreedy(const SeqRecord &R);
  template <typename GetFn>
  void addAlternatives(const SeqRecord &R, const PlanOutcome &Out,
                       std::vector<FusionCandidate> &Plan, GetFn &Get);
  bool readProfile();
  void remarkPlan(const SeqRecord &R, StringRef Name, const Twine &Text, bool Missed);
  /// Each member's threads per instance in implementation \p Choice of it
  /// ("1,3,1"; "?" for a kernel that is not marked).
  std::string threadsText(const SeqRecord &R, ArrayRef<unsigned> Members,
                          ArrayRef<unsigned> Choice) const;
  /// Adds to Kernels and Impls the implementations deriveImpls() finds
  /// for each marked kernel (erased with the twins at the end).
  void deriveImplementations();
  void fuse(FusionCandidate &C);
  void remarkMissed(const FusionCandidate &C);
  void recordMissed(const SeqRecord &R, unsigned First, unsigned Last, StringRef Reason);
  Function *anyDefinition() {
    for (Function &F : M)
      if (!F.isDeclaration())
        return &F;
    return nullptr;
  }
};

} // namespace

/// Launches First..Last.
/// The integer parameter \p K checks its global x index against (`if (g <
/// n)`, Access::GlobalBound), if any.
static std::optional<unsigned> globalBoundParam(const KernelInfo &K) {
  std::optional<unsigned> Bound;
  for (const Access &A : K.Accesses)
    if (A.GlobalBound[0] && !A.GlobalBound[0]->Field)
      Bound = A.GlobalBound[0]->Param;
  return Bound;
}

static std::vector<unsigned> consecutive(unsigned First, unsigned Last) {
  std::vector<unsigned> Members(Last - First + 1);
  std::iota(Members.begin(), Members.end(), First);
  return Members;
}

FusionCandidate DeviceFuser::candidate(const SeqRecord &R, unsigned First, unsigned Last) {
  return candidate(R, consecutive(First, Last));
}

std::string DeviceFuser::threadsText(const SeqRecord &R, ArrayRef<unsigned> Members,
                                     ArrayRef<unsigned> Choice) const {
  std::string Text;
  for (size_t M = 0; M < Members.size(); ++M) {
    std::string Kernel = variantsOf(R.Launches[Members[M]].Kernel).at(Choice[M]);
    auto Mark = Impls.find(Kernel);
    Text += (M ? "," : "") +
            (Mark == Impls.end() ? std::string("?") : std::to_string(Mark->second.Threads));
  }
  return Text;
}

std::vector<std::string> DeviceFuser::variantsOf(const std::string &Kernel) const {
  std::vector<std::string> Out{Kernel};
  auto Mark = Impls.find(Kernel);
  auto Own = Kernels.find(Kernel);
  if (Mark == Impls.end() || Own == Kernels.end() || !Own->second.F)
    return Out;
  std::vector<std::pair<unsigned, std::string>> Others;
  for (auto &[Name, M] : Impls) {
    auto K = Kernels.find(Name);
    // The launch passes its own kernel's fields (FieldParams.h): another
    // implementation must read the same ones.
    if (Name == Kernel || M.Function != Mark->second.Function || K == Kernels.end() ||
        !K->second.isValid() || !K->second.F ||
        K->second.F->getFunctionType() != Own->second.F->getFunctionType() ||
        K->second.FieldParams != Own->second.FieldParams)
      continue;
    Others.push_back({M.Threads, Name});
  }
  llvm::sort(Others);
  for (auto &[T, Name] : Others)
    Out.push_back(Name);
  return Out;
}

bool DeviceFuser::substitute(FusionCandidate &C, ArrayRef<unsigned> Choice) {
  if (llvm::all_of(Choice, [](unsigned V) { return V == 0; }))
    return true;
  const SeqRecord &R = *C.Seq;
  C.OwnSeq = std::make_shared<SeqRecord>(R);
  unsigned Fresh = R.Values.empty() ? 0 : R.Values.rbegin()->first + 1;
  for (unsigned S = 0; S < C.size(); ++S) {
    const std::string &Launched = R.Launches[C.index(S)].Kernel;
    auto Mark = Impls.find(Launched);
    if (Mark == Impls.end()) {
      C.invalidate("'" + shortName(Launched) + "' has no kfuse_impl mark; a group whose "
                       "launches run other implementations of their functions needs every "
                       "kernel marked, so that each says its threads per instance",
                   "granularity");
      return false;
    }
    C.DeclaredTpi.push_back(Mark->second.Threads);
    if (Choice[S] == 0)
      continue;
    std::vector<std::string> Vs = variantsOf(Launched);
    const KernelInfo &Impl = Kernels.at(Vs.at(Choice[S]));
    const ImplMark &To = Impls.at(Vs[Choice[S]]);
    C.DeclaredTpi.back() = To.Threads;
    // A derived implementation's threads share their instance's loads and
    // stores: a buffer it writes must not be passed to it again.
    if (!To.DerivedFrom.empty()) {
      const SeqLaunch &La = R.Launches[C.index(S)];
      for (unsigned P = 0; P < Impl.Params.size() && P < La.Args.size(); ++P)
        for (unsigned Q = 0; Q < Impl.Params.size() && Q < La.Args.size(); ++Q)
          if (P != Q && Impl.Params[P].Written && Impl.Params[Q].IsPointer &&
              La.Args[P] == La.Args[Q]) {
            C.invalidate("launch " + std::to_string(C.index(S)) + " passes the buffer its " +
                             "parameter " + std::to_string(P + 1) + " writes as parameter " +
                             std::to_string(Q + 1) + " too; the implementation derived from '" +
                             shortName(Launched) + "' splits its instance's values over " +
                             "threads, which needs them apart",
                         "granularity");
            return false;
          }
    }
    C.Name += "_v" + std::to_string(C.index(S)) + "_" + std::to_string(Choice[S]);
    // The size each implementation checks its global index against counts
    // its threads: the launch's argument, scaled by the runtime for this
    // stage alone, becomes a value of its own.
    std::optional<unsigned> Bound = globalBoundParam(Impl);
    const KernelInfo &Own = Kernels.at(Launched);
    std::optional<unsigned> OwnBound =
        Own.isValid() ? globalBoundParam(Own) : std::optional<unsigned>();
    if (!Bound || !Impl.Params[*Bound].IsInteger || (OwnBound && OwnBound != Bound)) {
      C.invalidate("'" + shortName(Impl.F->getName()) + "', another implementation of '" +
                       shortName(Launched) + "', " +
                       (!Bound ? std::string("checks its global index against no parameter")
                               : "checks its global index against another parameter") +
                       "; the implementations of a function check `if (i < n)` against the "
                       "same integer parameter, the number of their own threads",
                   "granularity");
      return false;
    }
    C.Stages[S] = &Impl;
    C.Impls.push_back({S, *Bound, Mark->second.Threads, To.Threads});
    unsigned &Arg = C.OwnSeq->Launches[C.index(S)].Args[*Bound];
    SeqValue V = R.Values.count(Arg) ? R.Values.at(Arg) : SeqValue{"int", ""};
    V.Text = "(" + V.Text + ") * " + std::to_string(To.Threads) + " / " +
             std::to_string(Mark->second.Threads);
    C.OwnSeq->Values[Fresh] = V;
    Arg = Fresh++;
  }
  C.Seq = C.OwnSeq.get();
  return true;
}

/// Gathers: loads whose index is not a polynomial.
static unsigned gatherCount(const KernelInfo &K) {
  return unsigned(llvm::count_if(K.Accesses, [](const Access &A) { return A.UnknownIndex; }));
}

/// Where \p K, the analysis of kernel \p F (or of its twin), is refused or
/// reads gathers, and the code it read has loops of constant trip count:
/// analyses a twin with them unrolled (ThreadLoops.h) and takes its verdict
/// where it is valid with fewer gathers. Returns how many loops the twin
/// K now reads unrolled, 0 if none. A refusal with loops too large to
/// unroll, or whose unrolling could change the bits, says so.
unsigned DeviceFuser::unrollThreadLoops(Function &F, KernelInfo &K) {
  if (!UnrollLimitOpt || (K.isValid() && !gatherCount(K)) || K.Stat == "call")
    return 0;
  Function &From = K.Body ? *K.Body : F;
  ConstantLoops Loops = constantLoops(From, FAM);
  if (!Loops.Loops)
    return 0;
  if (Loops.Unrolled > UnrollLimitOpt) {
    if (!K.isValid())
      K.Reason += "; its loops of constant trip count, which kfuse unrolls in the copy it "
                  "fuses, would take about " + std::to_string(Loops.Unrolled) +
                  " instructions unrolled, more than -mllvm -kfuse-unroll-limit=" +
                  std::to_string(UnrollLimitOpt);
    return 0;
  }
  const Instruction *Crossing = nullptr;
  Function *Twin = unrolledTwin(From, FAM, Crossing);
  if (!Twin)
    return 0;
  Twins.push_back(Twin);
  if (Crossing) {
    if (!K.isValid()) {
      K.At = Crossing;
      K.Reason = "a product computed in one trip of a loop is added in another trip or "
                 "outside the loop (through a variable or an array); kfuse fuses such loops "
                 "unrolled, and ptxas, given the loop, may contract the two into one FMA or "
                 "not, so a fused kernel could not promise the same bits: keep each trip's "
                 "multiply and add in the same trip";
      K.Stat = "loop";
    }
    return 0;
  }
  KernelInfo U = analyze(*Twin);
  U.F = &F;
  U.FieldParams = K.FieldParams;
  if (U.isValid() && (!K.isValid() || gatherCount(U) < gatherCount(K))) {
    K = std::move(U);
    ++NumKernelUnrolled;
    return Loops.Loops;
  }
  if (!K.isValid() && !U.isValid()) {
    // The loops are gone; what blocks the kernel now is in its unrolled code.
    U.Reason += " (with its loops of constant trip count unrolled)";
    K = std::move(U);
  }
  return 0;
}

void DeviceFuser::deriveImplementations() {
  // Only the table model can prefer more threads per instance (the
  // roofline model has no term for coalescing): without a table, nothing
  // is derived, and nothing is compiled for nothing.
  if (!DeriveOpt || PsiOpt.empty() || !readProfile() || Psi.Entries.empty())
    return;
  // The functions some sequence launches an implementation of.
  std::set<std::string> Launched;
  for (const SeqRecord &R : *Seqs)
    if (R.Launches.size() > 1)
      for (const SeqLaunch &La : R.Launches)
        if (auto Mark = Impls.find(La.Kernel); Mark != Impls.end())
          Launched.insert(Mark->second.Function);
  std::vector<std::pair<std::string, ImplMark>> Marked(Impls.begin(), Impls.end());
  for (auto &[Name, Mark] : Marked) {
    // A kernel the analysis refused has its remark already.
    auto It = Kernels.find(Name);
    if (!Launched.count(Mark.Function) || It == Kernels.end() || !It->second.isValid() ||
        !It->second.F)
      continue;
    Function &F = *It->second.F;
    std::optional<unsigned> Bound = globalBoundParam(It->second);
    std::string Kernel = "kernel '" + signature(Name) + "'";
    Derivation D;
    // The kernel itself, or its copy with its loops unrolled (ThreadLoops.h),
    // whose straight-line code splits like the kernel's would.
    Function &Body = *It->second.Body;
    if (It->second.Grid)
      D.Why = "its thread runs a grid-stride loop, whose iterations are its instances";
    else if (!It->second.FieldParams.empty())
      D.Why = "it reads buffers from fields of a struct, through a copy that is not split";
    else if (&Body != &F && !isUnrolledTwinOf(Body, F))
      D.Why = "it is fused through a copy with its out-of-line helpers inlined, which is not "
              "split";
    else if (!Bound)
      D.Why = "it checks its global index against no integer parameter";
    else
      D = deriveImpls(Body, FAM.getResult<ScalarEvolutionAnalysis>(Body), *Bound, Mark.Threads,
                      GranBlock, F.getName());
    std::vector<unsigned> Made;
    std::vector<std::string> Unpriced;
    for (DerivedImpl &Di : D.Impls) {
      unsigned T = Mark.Threads * Di.Split;
      // An implementation with as many threads comes first: the program's
      // own, or one derived from another of its kernels already. One the
      // table has no routine for, the model could only price by the
      // roofline, which is not comparable with the table's times.
      bool Own = llvm::any_of(Impls, [&](const auto &E) {
        const Function *G = M.getFunction(E.first);
        return E.second.Function == Mark.Function && E.second.Threads == T && G &&
               G->getFunctionType() == F.getFunctionType();
      });
      std::string Routine = psiRoutine(Mark.Function, T);
      bool Priced = Psi.has(Routine);
      if (!Own && !Priced)
        Unpriced.push_back(Routine);
      KernelInfo K = Own || !Priced ? KernelInfo() : analyze(*Di.F);
      if (Own || !Priced || !K.isValid()) {
        if (!Own && Priced && D.Why.empty())
          D.Why = "the kernel analysis cannot read its split over " + std::to_string(T) +
                  " threads per instance: " + K.Reason;
        FAM.clear(*Di.F, Di.F->getName());
        Di.F->eraseFromParent();
        continue;
      }
      K.F = K.Body = Di.F;
      Twins.push_back(Di.F);
      Impls[Di.F->getName().str()] = ImplMark{Mark.Function, T, Name};
      Kernels.emplace(Di.F->getName().str(), std::move(K));
      Made.push_back(T);
    }
    ore(F).emit([&] {
      OptimizationRemarkAnalysis R(DEBUG_TYPE, Made.empty() ? "ImplNotDerived" : "ImplDerived",
                                   &F);
      std::string Routines;
      for (size_t I = 0; I < Unpriced.size(); ++I)
        Routines += (I ? ", '" : "'") + Unpriced[I] + "'";
      std::string Skipped =
          Routines.empty() ? "" : "; not those the psi table has no routine for (" + Routines + ")";
      if (Made.empty())
        return R << "no implementation of '" << Mark.Function
                 << "' with more threads per instance derived from " << Kernel << ": "
                 << (D.Why.empty()
                         ? "the psi table has no routine for any of its splits (" + Routines + ")"
                         : D.Why + Skipped);
      std::vector<std::string> Threads;
      for (unsigned M : Made)
        Threads.push_back(std::to_string(M));
      std::string List = listed(Threads);
      return R << Kernel << " writes " << std::to_string(D.Stores)
               << " values of its instance per thread, computed alike: derived the "
               << "implementations of '" << Mark.Function << "' with " << List
               << " threads per instance, each thread writing some of the values" << Skipped;
    });
  }
}

FusionCandidate DeviceFuser::candidate(const SeqRecord &R, ArrayRef<unsigned> Members,
                                       const std::map<unsigned, int8_t> &Forced,
                                       ArrayRef<unsigned> Choice) {
  FusionCandidate C;
  C.Seq = &R;
  C.Members.assign(Members.begin(), Members.end());
  C.First = Members.front();
  C.Last = Members.back();
  C.Name = "__kfuse_fused_" + Key + "_" + std::to_string(R.Id) + "_" + std::to_string(C.First) +
           "_" + std::to_string(C.Last);
  auto KernelOf = [&](unsigned I) -> const KernelInfo * {
    auto It = Kernels.find(R.Launches[I].Kernel);
    if (It != Kernels.end())
      return &It->second;
    C.invalidate("'" + shortName(R.Launches[I].Kernel) +
                     "' is not a kfuse_map kernel defined in this module; mark it "
                     "__attribute__((kfuse_map)) and define it in this translation unit",
                 "record");
    return nullptr;
  };
  for (unsigned I = C.First, M = 0; I <= C.Last; ++I) {
    const KernelInfo *K = KernelOf(I);
    if (!K)
      return C;
    if (M < Members.size() && Members[M] == I) {
      C.Stages.push_back(K);
      ++M;
      continue;
    }
    C.Riders.push_back(I);
    C.RiderInfos.push_back(K);
    auto F = Forced.find(I);
    C.RiderForced.push_back(F == Forced.end() ? -1 : F->second);
    C.Name += "_r" + std::to_string(I);
  }
  if (llvm::any_of(Choice, [](unsigned V) { return V != 0; })) {
    C.Choice.assign(Choice.begin(), Choice.end());
    if (!substitute(C, Choice))
      return C;
  }
  checkCandidate(C);
  C.RiderOther.assign(C.Riders.size(), false);
  return C;
}

/// Planned groups whose spans overlap, as a set the runtime runs one group
/// after the other (manifest `part`), in the order their spans start.
/// Between two consecutive parts, and before the first and after the last,
/// lies a slot for the launches of no group: slot 2p runs before part p,
/// slot 2p + 2 after it (part p itself is slot 2p + 1). Each part, in
/// order, takes the other parts' members in its span as riders on the side
/// the order puts them, and each launch of no group in its span on the side
/// an earlier part's choice forces, or, where both sides are still open,
/// on the side its own check (orderRiders) chooses. Each launch of no group
/// then takes the open slot that keeps it on its program-order side of the
/// most parts whose spans do not hold it, and runs as a rider of the part
/// before that slot or of the one after it, whichever span holds it. Each
/// part's check proves the moves within its span relative to its members;
/// every pair of launches the set runs out of program order is then proved
/// within a span that holds both (swapKeepsOrder), whose `disjoint` lines
/// carry the guards. Returns why not, for the remark, when the groups
/// cannot run so; empty when they can, with \p Parts in the order they run
/// (SetId is the caller's to give, nameSet).
std::string DeviceFuser::runAsSet(const SeqRecord &R, std::vector<PlannedGroup> Gs,
                                  std::vector<FusionCandidate> &Parts) {
  llvm::stable_sort(Gs, [](const PlannedGroup &X, const PlannedGroup &Y) { return X.First < Y.First; });
  if (Gs.size() > KF__MANIFEST_MAX_PARTS)
    return std::to_string(Gs.size()) + " groups overlap, more than a set holds (" +
           std::to_string(KF__MANIFEST_MAX_PARTS) + ")";
  unsigned First = Gs.front().First, Last = First;
  for (size_t P = 0; P < Gs.size(); ++P) {
    if (P && Gs[P].First == Gs[P - 1].First)
      return "two of them start at launch " + std::to_string(Gs[P].First);
    Last = std::max(Last, Gs[P].Last);
  }
  if (Last - First + 1 > KF__MANIFEST_MAX_LAUNCHES)
    return "they span more than " + std::to_string(KF__MANIFEST_MAX_LAUNCHES) + " launches";
  const unsigned K = Gs.size();
  auto InSpan = [&](unsigned P, unsigned I) { return I > Gs[P].First && I < Gs[P].Last; };
  // Per launch: its part (-1 for none), and the slots still open to it.
  std::vector<int> PartOf(Last - First + 1, -1);
  std::vector<unsigned> Lo(PartOf.size(), 0), Hi(PartOf.size(), 2 * K);
  for (unsigned P = 0; P < K; ++P)
    for (unsigned I : Gs[P].Members)
      PartOf[I - First] = P;
  Parts.assign(K, FusionCandidate());
  for (unsigned P = 0; P < K; ++P) {
    std::map<unsigned, int8_t> Forced;
    for (unsigned I = Gs[P].First + 1; I < Gs[P].Last; ++I) {
      int Q = PartOf[I - First];
      if (Q == int(P))
        continue;
      if (Q >= 0)
        Forced[I] = Q < int(P);
      else if (Hi[I - First] < 2 * P + 1)
        Forced[I] = 1;
      else if (Lo[I - First] > 2 * P + 1)
        Forced[I] = 0;
    }
    FusionCandidate &C = Parts[P] = candidate(R, Gs[P].Members, Forced);
    if (!C.isValid())
      return C.Reason;
    for (size_t X = 0; X < C.Riders.size(); ++X) {
      unsigned I = C.Riders[X] - First;
      if (PartOf[I] >= 0 || Forced.count(C.Riders[X]))
        continue;
      if (C.RiderBefore[X])
        Hi[I] = 2 * P;
      else
        Lo[I] = 2 * P + 2;
    }
  }
  // Each launch of no group takes the open slot that keeps it on its
  // program-order side of the most parts whose spans do not hold it, and
  // runs as a rider of the part before that slot or of the one after it,
  // whichever span holds it; every other part whose span holds it leaves
  // it (`other`).
  std::vector<int> Runner(PartOf);
  for (unsigned I = First; I <= Last; ++I) {
    if (PartOf[I - First] >= 0)
      continue;
    unsigned BestMoves = K + 1;
    for (unsigned S = Lo[I - First] / 2; S <= Hi[I - First] / 2; ++S) {
      int By = S > 0 && InSpan(S - 1, I) ? int(S - 1) : S < K && InSpan(S, I) ? int(S) : -1;
      unsigned Moves = 0;
      for (unsigned P = 0; P < K; ++P)
        Moves += P < S ? I < Gs[P].First : I > Gs[P].Last;
      if (By >= 0 && Moves < BestMoves) {
        BestMoves = Moves;
        Runner[I - First] = By;
      }
    }
    if (Runner[I - First] < 0)
      return "launch " + std::to_string(I) + " would run between two groups whose spans do not hold it";
  }
  std::vector<unsigned> Order;
  for (unsigned P = 0; P < K; ++P) {
    FusionCandidate &C = Parts[P];
    for (size_t X = 0; X < C.Riders.size(); ++X)
      C.RiderOther[X] = Runner[C.Riders[X] - First] != int(P);
    auto Own = [&](bool Before) {
      for (size_t X = 0; X < C.Riders.size(); ++X)
        if (!C.RiderOther[X] && C.RiderBefore[X] == Before)
          Order.push_back(C.Riders[X]);
    };
    Own(true);
    Order.insert(Order.end(), C.Members.begin(), C.Members.end());
    Own(false);
  }
  std::vector<unsigned> Sorted = Order;
  llvm::sort(Sorted);
  if (Sorted != consecutive(First, Last))
    return "a launch between them would run twice or not at all";
  auto Info = [&](unsigned I) -> const KernelInfo * {
    auto It = Kernels.find(R.Launches[I].Kernel);
    return It == Kernels.end() ? nullptr : &It->second;
  };
  for (size_t P = 0; P < Order.size(); ++P)
    for (size_t Q = P + 1; Q < Order.size(); ++Q) {
      unsigned X = Order[P], Y = Order[Q];
      if (X < Y)
        continue;
      FusionCandidate *Host = nullptr;
      for (unsigned H = 0; H < K && !Host; ++H)
        if (Y >= Gs[H].First && X <= Gs[H].Last)
          Host = &Parts[H];
      const KernelInfo *KX = Info(X), *KY = Info(Y);
      if (!Host || !KX || !KY || !swapKeepsOrder(R, X, *KX, Y, *KY, Host->RiderDisjoint))
        return "launch " + std::to_string(X) + " would run before launch " +
               std::to_string(Y) + ", which shares a buffer with it that one of them writes";
    }
  for (unsigned P = 0; P < K; ++P) {
    Parts[P].SetPart = P;
    Parts[P].SetOffset = Gs[P].First - First;
  }
  return "";
}

/// The groups of a plan as they can run: those whose spans overlap no other
/// group's, and sets of groups whose spans overlap (runAsSet). The groups
/// runnable() keeps stay; the ones it drops join them one at a time, the
/// one predicted to gain most first, each where the set it joins stays
/// legal. A set's parts have no SetId yet (nameSet).
PlanSets DeviceFuser::formSets(const SeqRecord &R, ArrayRef<PlannedGroup> All) {
  PlanSets Out;
  std::vector<std::pair<size_t, size_t>> Dropped;
  Out.Groups = runnable(All, &Dropped);
  std::vector<bool> In(All.size(), false);
  for (const PlannedGroup &G : Out.Groups)
    for (size_t X = 0; X < All.size(); ++X)
      In[X] = In[X] || (All[X].Members.size() > 1 && All[X].Members == G.Members);
  auto Component = [&](size_t G) {
    std::vector<size_t> Comp{G};
    for (size_t At = 0; At < Comp.size(); ++At)
      for (size_t X = 0; X < All.size(); ++X)
        if (In[X] && !is_contained(Comp, X) && All[X].First <= All[Comp[At]].Last &&
            All[Comp[At]].First <= All[X].Last)
          Comp.push_back(X);
    llvm::sort(Comp);
    return Comp;
  };
  std::map<std::vector<size_t>, std::vector<FusionCandidate>> Formed;
  for (auto [G, K] : Dropped) {
    In[G] = true;
    std::vector<size_t> Comp = Component(G);
    std::vector<PlannedGroup> Gs;
    for (size_t X : Comp)
      Gs.push_back(All[X]);
    std::vector<FusionCandidate> Parts;
    std::string Why = runAsSet(R, Gs, Parts);
    if (!Why.empty()) {
      In[G] = false;
      Out.Left.push_back({G, K});
      Out.Why[G] = Why;
      continue;
    }
    Formed[Comp] = std::move(Parts);
  }
  // Each set as the last of its groups to join formed it: no later group
  // joined it, nor any group it overlaps.
  std::set<size_t> Done, Joined;
  for (size_t X = 0; X < All.size(); ++X) {
    if (!In[X] || Done.count(X))
      continue;
    std::vector<size_t> Comp = Component(X);
    Done.insert(Comp.begin(), Comp.end());
    auto F = Formed.find(Comp);
    if (Comp.size() < 2 || F == Formed.end())
      continue;
    Joined.insert(Comp.begin(), Comp.end());
    Out.Sets.push_back(std::move(F->second));
  }
  for (auto [G, K] : Dropped)
    if (Joined.count(G))
      Out.Groups.insert(llvm::upper_bound(Out.Groups, All[G],
                                          [](const PlannedGroup &X, const PlannedGroup &Y) {
                                            return X.First < Y.First;
                                          }),
                        All[G]);
  return Out;
}

/// Gives the parts of a set the module's next set number; under
/// -kfuse-plans=K > 1 also a name of their own, since another plan may run
/// the same group alone, as a kernel that stores what this one leaves to
/// the other parts.
void DeviceFuser::nameSet(std::vector<FusionCandidate> &Parts) {
  for (FusionCandidate &P : Parts) {
    P.SetId = NextSetId;
    if (PlansOpt > 1)
      P.Name += "_set" + std::to_string(NextSetId);
  }
  ++NextSetId;
}

/// The greedy plan: grow a group from the first unplanned launch while the
/// group stays legal; a group of one launch is not formed and its rejection
/// is reported.
std::vector<FusionCandidate> DeviceFuser::planGreedy(const SeqRecord &R) {
  std::vector<FusionCandidate> Plan;
  unsigned N = R.Launches.size();
  for (unsigned First = 0; First + 1 < N;) {
    FusionCandidate Best = candidate(R, First, First + 1);
    if (!Best.isValid()) {
      countGroupRejection(Best.Stat);
      remarkMissed(Best);
      ++First;
      continue;
    }
    unsigned Last = First + 1;
    while (Last + 1 < N) {
      FusionCandidate Next = candidate(R, First, Last + 1);
      if (!Next.isValid()) {
        countGroupRejection(Next.Stat);
        remarkMissed(Next);
        break;
      }
      Best = std::move(Next);
      ++Last;
    }
    Plan.push_back(std::move(Best));
    First = Last + 1;
  }
  return Plan;
}

bool DeviceFuser::readProfile() {
  if (ProfileRead)
    return ProfileOk;
  ProfileRead = true;
  kf_profile_default(&Profile);
  if (!ProfileOpt.empty())
    ProfileOk = loadPlanProfile(ProfileOpt, Profile, ProfileError);
  if (ProfileOk && !PsiOpt.empty() && !loadPsiTable(PsiOpt, Psi, ProfileError)) {
    ProfileOk = false;
    Psi = PsiTable();
  }
  return ProfileOk;
}

void DeviceFuser::remarkPlan(const SeqRecord &R, StringRef Name, const Twine &Text,
                             bool Missed) {
  Function *Where = nullptr;
  for (const SeqLaunch &La : R.Launches)
    if (Function *F = M.getFunction(La.Kernel); F && !F->isDeclaration()) {
      Where = F;
      break;
    }
  if (!Where)
    Where = anyDefinition();
  if (!Where)
    return;
  std::string Msg =
      "sequence " + std::to_string(R.Id) + " at " + siteText(R.Site) + ": " + Text.str();
  if (Missed)
    ore(*Where).emit([&] {
      return OptimizationRemarkMissed(DEBUG_TYPE, Name, Where) << Msg;
    });
  else
    ore(*Where).emit([&] {
      return OptimizationRemarkAnalysis(DEBUG_TYPE, Name, Where) << Msg;
    });
}

static std::string ns(double X) {
  char Buf[32];
  std::snprintf(Buf, sizeof Buf, "%.0f", X);
  return Buf;
}

/// The plan of the planning library: every group of consecutive launches
/// that passes checkCandidate() is a candidate; the exact solver picks the
/// partition with the least predicted time. Each boundary between two
/// groups of the plan is explained: the rejection of the first group grown
/// by the next launch, or that the cost model did not find it worth it.
std::vector<FusionCandidate> DeviceFuser::planSequence(const SeqRecord &R) {
  unsigned N = R.Launches.size();
  if (PlannerOpt == PlannerKind::Greedy || N < 2)
    return planGreedy(R);
  if (!readProfile()) {
    ++NumPlanFallbacks;
    remarkPlan(R, "PlannerFailed", ProfileError + "; planned greedily", /*Missed=*/true);
    return planGreedy(R);
  }

  // Candidates by members and the implementation each runs (empty: its
  // own kernel).
  std::map<std::pair<std::vector<unsigned>, std::vector<unsigned>>, FusionCandidate> Tried;
  auto GetMembers = [&](ArrayRef<unsigned> Members,
                        ArrayRef<unsigned> Choice = {}) -> FusionCandidate & {
    std::pair<std::vector<unsigned>, std::vector<unsigned>> Key(
        std::vector<unsigned>(Members.begin(), Members.end()), {});
    if (llvm::any_of(Choice, [](unsigned V) { return V != 0; }))
      Key.second.assign(Choice.begin(), Choice.end());
    auto It = Tried.find(Key);
    if (It == Tried.end())
      It = Tried.emplace(Key, candidate(R, Members, {}, Key.second)).first;
    return It->second;
  };
  auto Get = [&](unsigned First, unsigned Last) -> FusionCandidate & {
    return GetMembers(consecutive(First, Last));
  };
  std::vector<const KernelInfo *> Infos;
  for (const SeqLaunch &La : R.Launches) {
    auto It = Kernels.find(La.Kernel);
    Infos.push_back(It != Kernels.end() && It->second.isValid() ? &It->second : nullptr);
  }
  if (!FlagError.empty()) {
    ++NumPlanFallbacks;
    remarkPlan(R, "PlannerFailed", FlagError + "; planned greedily", /*Missed=*/true);
    return planGreedy(R);
  }
  // A group that leaves launches between its members out is tried only when
  // each of them is an analysable kernel that passes no value both an
  // earlier and a later member get where one of them writes (the full check
  // would refuse it), and is launched with another grid, block or dynamic
  // shared memory than the first member: one launched alike would rather
  // join the group, and trying every subset of a run of launches alike
  // costs the compile more than it finds.
  auto Conflicts = [&](unsigned I, ArrayRef<unsigned> Ms) {
    return any_of(Ms, [&](unsigned M) {
      return !Infos[M] ||
             launchesConflict(R.Launches[I], *Infos[I], R.Launches[M], *Infos[M]);
    });
  };
  auto Legal = [&](ArrayRef<unsigned> Members) {
    for (size_t J = 1; J < Members.size(); ++J)
      for (unsigned I = Members[J - 1] + 1; I < Members[J]; ++I)
        if (!Infos[I] || Infos[I]->Params.size() != R.Launches[I].Args.size() ||
            launchedAlike(R.Launches[I], R.Launches[Members.front()]) ||
            (Conflicts(I, Members.take_front(J)) && Conflicts(I, Members.drop_front(J))))
          return false;
    return GetMembers(Members).isValid();
  };
  // The implementations each launch may run (kfuse_impl): another than
  // its own only inside a fused kernel.
  std::vector<std::vector<PlanVariant>> Vars(N);
  for (unsigned I = 0; I < N; ++I) {
    const std::string &Kernel = R.Launches[I].Kernel;
    if (!Impls.count(Kernel))
      continue;
    for (const std::string &Name : variantsOf(Kernel)) {
      auto K = Kernels.find(Name);
      const ImplMark &Mark = Impls.at(Name);
      Vars[I].push_back({K != Kernels.end() && K->second.isValid() ? &K->second : nullptr,
                         Mark.Threads, Mark.Function, !Mark.DerivedFrom.empty()});
    }
  }
  auto LegalVariants = [&](ArrayRef<unsigned> Members, ArrayRef<unsigned> Choice) {
    if (llvm::all_of(Choice, [](unsigned V) { return V == 0; }))
      return true; // the group callback has checked it
    if (Members.size() == 1)
      return false; // a launch alone runs the kernel the program launched
    return GetMembers(Members, Choice).isValid();
  };
  // A rider is launched unlike the group, so a sequence of launches all
  // alike has no group to find beyond the consecutive ones: its problem
  // stays consecutive, which the library solves without enumerating subsets.
  bool Unlike = any_of(R.Launches, [&](const SeqLaunch &La) {
    return !launchedAlike(La, R.Launches[0]);
  });
  // The table model prices the routines of implementations: a sequence
  // with no kfuse_impl kernel keeps the roofline model.
  bool Marked = llvm::any_of(Vars, [](const std::vector<PlanVariant> &V) { return !V.empty(); });
  const PsiTable *Table = Psi.Entries.empty() || !Marked ? nullptr : &Psi;
  double Elements =
      ElementsOpt.getNumOccurrences() || !Table ? double(ElementsOpt) : Psi.Instances;
  if (Table && Psi.FusedBlock != int(GranBlock))
    remarkPlan(R, "PsiTableBlock",
               "the psi table '" + PsiOpt + "' was measured " +
                   (Psi.FusedBlock
                        ? "in blocks of " + std::to_string(Psi.FusedBlock) + " threads"
                        : std::string("in the seed paper's blocks of instances times threads "
                                      "per instance (it has no `fused-block` line)")) +
                   ", not in the fused kernels' blocks of " + std::to_string(GranBlock) +
                   " threads; the model prices each group in the table's blocks",
               /*Missed=*/false);
  PlanOutcome Out = planWithLibrary(R, Infos, Legal, Vars, LegalVariants, Table, Profile,
                                    PlanWorkOpt, Elements, PlansOpt, ReorderOpt && Unlike);
  if (!Out.Ok) {
    ++NumPlanFallbacks;
    remarkPlan(R, "PlannerFailed", "the planning library failed (" + Out.Error +
                                       "); planned greedily",
               /*Missed=*/true);
    return planGreedy(R);
  }
  // Groups that would interleave run as sets where they can (formSets);
  // where one cannot join, the plan runs it unfused, or the best plan of
  // consecutive groups replaces the plan, whichever is predicted faster.
  PlanSets Sets = formSets(R, Out.Groups);
  std::vector<PlannedGroup> Groups = Sets.Groups;
  std::map<std::vector<unsigned>, FusionCandidate> InSet;
  bool Replan = false;
  if (!Sets.Left.empty()) {
    double Ns = Out.PlanNs;
    for (auto [G, Other] : Sets.Left)
      Ns += Out.Groups[G].UnfusedNs - Out.Groups[G].FusedNs;
    PlanOutcome Consecutive =
        planWithLibrary(R, Infos, Legal, Vars, LegalVariants, Table, Profile, PlanWorkOpt, Elements,
                        PlansOpt, /*Reorder=*/false);
    // Equal predictions (up to rounding) keep the consecutive groups.
    Replan = Consecutive.Ok && Consecutive.PlanNs <= Ns * (1 + 1e-9);
    for (auto [G, Other] : Sets.Left)
      remarkPlan(R, "PlanInterleaved",
                 "the planned groups of launches " + membersText(Out.Groups[G].Members) +
                     " and " + membersText(Out.Groups[Other].Members) +
                     " overlap, and cannot run one after the other (" + Sets.Why[G] + "); " +
                     (Replan ? "planned with consecutive groups instead"
                             : "the first, predicted to gain less, runs unfused"),
                 /*Missed=*/true);
    if (Replan) {
      Out = std::move(Consecutive);
      Groups = Out.Groups;
    }
  }
  for (std::vector<FusionCandidate> &Parts : Sets.Sets) {
    if (Replan)
      break;
    nameSet(Parts);
    remarkPlan(R, "PlanSet",
               "the planned groups of launches " + setText(Parts) +
                   " overlap; the runtime runs them one after the other, in that order",
               /*Missed=*/false);
    for (FusionCandidate &P : Parts)
      InSet.emplace(P.Members, std::move(P));
  }
  ++NumPlannedSeqs;
  std::string Head = "planned " + std::to_string(N) + " launches for " +
                     ns(Elements) +
                     " elements each on " + Profile.name + ": predicted " + ns(Out.PlanNs) +
                     " ns, " + ns(Out.UnfusedNs) + " ns unfused, gain " +
                     ns(Out.UnfusedNs - Out.PlanNs) + " ns; " +
                     std::to_string(Out.Candidates) + " candidate groups";
  if (Out.Limited && Out.Gap <= 0 && PlansOpt > 1) {
    Head += ", optimal; the work limit stopped the search for alternatives after " +
            std::to_string(Out.Alternatives.size()) + " plans";
  } else if (Out.Limited && Out.Gap >= 1) {
    // No bound: the enumeration stopped before every group was seen.
    Head += "; work limit reached before every candidate group was enumerated: the plan is "
            "the best of those enumerated (-kfuse-plan-work-limit raises the limit)";
  } else if (Out.Limited) {
    char Gap[32];
    std::snprintf(Gap, sizeof Gap, "%.2f%%", 100 * Out.Gap);
    Head += "; work limit reached, best plan found is within " + std::string(Gap) +
            " of the optimum";
  } else {
    Head += ", optimal";
  }
  remarkPlan(R, "Plan", Head, /*Missed=*/false);

  std::vector<FusionCandidate> Plan;
  std::vector<std::pair<unsigned, unsigned>> Spans; // every group, singletons too
  unsigned Next = 0;
  auto Planned = [&](const PlannedGroup &G) -> FusionCandidate & {
    auto It = InSet.find(G.Members);
    return It != InSet.end() ? It->second : GetMembers(G.Members, G.Choice);
  };
  for (const PlannedGroup &G : Groups) {
    if (G.First < Next) { // a later part of a set: one span with the set
      Spans.back().second = std::max(Spans.back().second, G.Last);
      Next = std::max(Next, G.Last + 1);
    } else {
      for (; Next < G.First; ++Next)
        Spans.push_back({Next, Next});
      Spans.push_back({G.First, G.Last});
      Next = G.Last + 1;
    }
    FusionCandidate &C = Planned(G);
    if (!C.isValid()) { // the library only forms groups the callback allowed
      ++NumPlanFallbacks;
      remarkPlan(R, "PlannerFailed",
                 "the plan holds launches " + membersText(G.Members) +
                     ", which are not legal; planned greedily",
                 /*Missed=*/true);
      return planGreedy(R);
    }
    remarkPlan(R, "PlanGroup",
               "launches " + membersText(G.Members) + ": predicted " + ns(G.FusedNs) +
                   " ns fused, " + ns(G.UnfusedNs) + " ns unfused, gain " +
                   ns(G.UnfusedNs - G.FusedNs) + " ns",
               /*Missed=*/false);
    // Why these implementations: the margin to the next cheapest choice.
    if (!G.NextChoice.empty()) {
      std::vector<unsigned> Chosen = G.Choice;
      Chosen.resize(G.Members.size(), 0);
      char Pct[32];
      std::snprintf(Pct, sizeof Pct, "%+.1f %%", 100.0 * (G.NextNs / G.FusedNs - 1));
      remarkPlan(R, "PlanImplementations",
                 "launches " + membersText(G.Members) + " run implementations with " +
                     threadsText(R, G.Members, Chosen) +
                     " threads per instance, predicted " + ns(G.FusedNs) +
                     " ns; the next cheapest choice, " +
                     threadsText(R, G.Members, G.NextChoice) + ", is predicted " +
                     ns(G.NextNs) + " ns (" + Pct +
                     "); -mllvm -kfuse-plans=K builds the K best choices to measure",
                 /*Missed=*/false);
    }
    Predicted[C.Name] = {uint64_t(std::llround(G.UnfusedNs)), uint64_t(std::llround(G.FusedNs))};
  }
  for (; Next < N; ++Next)
    Spans.push_back({Next, Next});
  for (size_t I = 0; I + 1 < Spans.size(); ++I) {
    FusionCandidate &Grown = Get(Spans[I].first, Spans[I + 1].first);
    if (!Grown.isValid()) {
      countGroupRejection(Grown.Stat);
      remarkMissed(Grown);
    } else {
      ++NumNotProfitable;
      bool TooBig = Spans[I + 1].first - Spans[I].first + 1 > 8;
      std::string Why = TooBig ? "the planner forms groups of at most 8 launches"
                               : "the plan without that group is predicted faster";
      remarkPlan(R, "NotProfitable",
                 "launches " + std::to_string(Spans[I].first) + ".." +
                     std::to_string(Spans[I + 1].first) + " are legal to fuse but " + Why,
                 /*Missed=*/true);
      recordMissed(R, Spans[I].first, Spans[I + 1].first, "legal to fuse, but " + Why);
    }
  }
  // Two launches alike on either side of one launched unlike them, none of
  // them fused: why the one between does not move out of their way.
  if (ReorderOpt && Unlike) {
    std::vector<bool> Fused(N, false);
    for (const PlannedGroup &G : Groups)
      for (unsigned I = G.First; I <= G.Last; ++I)
        Fused[I] = true;
    for (unsigned I = 1; I + 1 < N; ++I) {
      if (Fused[I - 1] || Fused[I] || Fused[I + 1] ||
          !launchedAlike(R.Launches[I - 1], R.Launches[I + 1]) ||
          launchedAlike(R.Launches[I - 1], R.Launches[I]))
        continue;
      FusionCandidate &Around = GetMembers({I - 1, I + 1});
      if (!Around.isValid()) {
        countGroupRejection(Around.Stat);
        remarkMissed(Around);
      }
    }
  }
  for (const PlannedGroup &G : Groups)
    Plan.push_back(std::move(Planned(G)));
  if (PlansOpt > 1)
    addAlternatives(R, Out, Plan, GetMembers);
  return Plan;
}

/// Under -kfuse-plans=K: remarks each of the sequence's plans and adds the
/// fused groups of plans 1.. that plan 0 lacks; every group of \p Plan
/// learns which plans hold it. The runtime runs one plan per process
/// (KFUSE_PLAN, kf_rt_select_plan()), so the alternatives cost code size
/// only.
template <typename GetFn>
void DeviceFuser::addAlternatives(const SeqRecord &R, const PlanOutcome &Out,
                                  std::vector<FusionCandidate> &Plan, GetFn &Get) {
  unsigned Count = Out.Alternatives.size();
  const size_t Plan0Size = Plan.size();
  std::map<std::string, size_t> Index; // by kernel name
  // Groups in no set, by members and implementations.
  std::map<std::pair<std::vector<unsigned>, std::vector<unsigned>>, size_t> PlainIndex;
  for (size_t I = 0; I < Plan.size(); ++I) {
    Index[Plan[I].Name] = I;
    if (!Plan[I].SetId)
      PlainIndex[{Plan[I].Members, Plan[I].Choice}] = I;
  }
  // Each set's part names by the set's groups: plan 0's, then the others'.
  std::map<std::vector<std::vector<unsigned>>, std::vector<std::string>> SetNames;
  std::map<unsigned, std::vector<const FusionCandidate *>> Plan0Sets;
  for (const FusionCandidate &C : Plan)
    if (C.SetId)
      Plan0Sets[C.SetId].push_back(&C);
  for (auto &[Id, Parts] : Plan0Sets) {
    llvm::sort(Parts, [](const FusionCandidate *X, const FusionCandidate *Y) {
      return X->SetPart < Y->SetPart;
    });
    std::vector<std::vector<unsigned>> Key;
    std::vector<std::string> Names;
    for (const FusionCandidate *P : Parts) {
      Key.push_back(P->Members);
      Names.push_back(P->Name);
    }
    SetNames.emplace(std::move(Key), std::move(Names));
  }
  for (unsigned Rank = 0; Rank < Count; ++Rank) {
    const PlanAlternative &Alt = Out.Alternatives[Rank];
    std::string Spans;
    for (const PlannedGroup &G : Alt.Groups) {
      std::string Text = G.Members.size() > 1 && G.Last + 1 - G.First != G.Members.size()
                             ? "{" + membersText(G.Members) + "}"
                             : membersText(G.Members);
      if (G.Members.size() == 1)
        Text = std::to_string(G.First);
      // Where members run other implementations: every member's threads
      // per instance, `0..2[1,3,1]`.
      if (!G.Choice.empty())
        Text += "[" + threadsText(R, G.Members, G.Choice) + "]";
      Spans += (Spans.empty() ? "" : " ") + Text;
    }
    remarkPlan(R, "PlanAlternative",
               "plan " + std::to_string(Rank) + " of " + std::to_string(Count) +
                   ": predicted " + ns(Alt.Ns) + " ns: " + Spans,
               /*Missed=*/false);
    // Plan 0 is the plan planSequence built \p Plan from.
    if (Rank == 0) {
      for (size_t I = 0; I < Plan0Size; ++I)
        Plan[I].PlanRanks.push_back(0);
      continue;
    }
    // The plan's groups as they run, each set as its parts: a kernel the
    // plan shares with plan 0 or an earlier plan (the same name: the same
    // members, riders and set) learns the plan's rank.
    PlanSets Sets = formSets(R, Alt.Groups);
    auto Add = [&](FusionCandidate C, const PlannedGroup &G) {
      auto [It, New] = Index.try_emplace(C.Name, Plan.size());
      if (New) {
        Predicted[C.Name] = {uint64_t(std::llround(G.UnfusedNs)),
                             uint64_t(std::llround(G.FusedNs))};
        Plan.push_back(std::move(C));
      }
      Plan[It->second].PlanRanks.push_back(Rank);
    };
    std::map<std::vector<unsigned>, const PlannedGroup *> ByMembers;
    for (const PlannedGroup &G : Sets.Groups)
      ByMembers[G.Members] = &G;
    std::set<std::vector<unsigned>> InASet;
    for (std::vector<FusionCandidate> &Parts : Sets.Sets) {
      std::vector<std::vector<unsigned>> Key;
      for (const FusionCandidate &P : Parts) {
        Key.push_back(P.Members);
        InASet.insert(P.Members);
      }
      auto [It, New] = SetNames.try_emplace(Key);
      if (New) {
        nameSet(Parts);
        for (const FusionCandidate &P : Parts)
          It->second.push_back(P.Name);
      } else {
        for (size_t P = 0; P < Parts.size(); ++P)
          Parts[P].Name = It->second[P];
      }
      for (FusionCandidate &P : Parts) {
        const PlannedGroup &G = *ByMembers.at(P.Members);
        Add(std::move(P), G);
      }
    }
    for (const PlannedGroup &G : Sets.Groups) {
      if (G.Members.size() < 2 || InASet.count(G.Members))
        continue;
      // Plan 0's groups were moved out of Get's cache into Plan.
      auto Plain = PlainIndex.find({G.Members, G.Choice});
      if (Plain != PlainIndex.end()) {
        Plan[Plain->second].PlanRanks.push_back(Rank);
        continue;
      }
      FusionCandidate &C = Get(G.Members, G.Choice);
      if (!C.isValid()) { // the library only forms groups the callback allowed
        remarkPlan(R, "PlannerFailed",
                   "plan " + std::to_string(Rank) + " holds launches " + membersText(G.Members) +
                       ", which are not legal; they run unfused in that plan",
                   /*Missed=*/true);
        continue;
      }
      PlainIndex[{G.Members, G.Choice}] = Plan.size();
      Add(std::move(C), G);
    }
  }
  for (FusionCandidate &C : Plan)
    C.PlanCount = Count;
}

/// Keeps the `missed` line of launches \p First..\p Last of \p R while the
/// module's lines stay within MissedBytes: they cost device memory, and the
/// first reasons of a module are what a reader acts on.
void DeviceFuser::recordMissed(const SeqRecord &R, unsigned First, unsigned Last,
                               StringRef Reason) {
  static constexpr size_t MissedBytes = 8192;
  std::string Line = manifestMissed(R, First, Last, Reason);
  if (MissedText.size() + Line.size() <= MissedBytes)
    MissedText += Line;
}

void DeviceFuser::remarkMissed(const FusionCandidate &C) {
  recordMissed(*C.Seq, C.First, C.Last, C.Reason);
  Function *Where = M.getFunction(C.Seq->Launches[C.First].Kernel);
  if (!Where || Where->isDeclaration())
    Where = anyDefinition();
  if (!Where)
    return;
  Function &F = *Where;
  std::string Kernels;
  for (unsigned S = 0; S < C.size(); ++S)
    Kernels += (S ? ", " : "") + shortName(C.launch(S).Kernel);
  // At the access or call that blocks the group where it has a source line,
  // else at the first kernel.
  const Instruction *At = locatedAt(C.At);
  Function &AtF = At ? *const_cast<Function *>(At->getFunction()) : F;
  ore(AtF).emit([&] {
    auto Rem = At ? OptimizationRemarkMissed(DEBUG_TYPE, "NotFused", remarkLocation(*At),
                                             At->getParent())
                  : OptimizationRemarkMissed(DEBUG_TYPE, "NotFused", &F);
    return Rem << "launches " << membersText(C) << " (" << Kernels << ") of sequence " << std::to_string(C.Seq->Id) << " at "
               << siteText(C.Seq->Site) << " not fused: " << C.Reason;
  });
}

/// The remark that says which records the fused kernel moves through
/// shared memory: "records of A (36 bytes), B (36 bytes) loaded and of F
/// (100 bytes) stored by consecutive threads through shared memory", and
/// what its 16-byte words need of the launches (RecordStaging.h).
static OptimizationRemark recordsRemark(const FusionCandidate &C, const Function &Fused,
                                        const Function &F0) {
  // The fused argument of each stage's parameter: the stages' parameters,
  // one stage after the other (docs/manifest.md).
  std::map<unsigned, std::string> Name;
  unsigned Base = 0;
  for (unsigned S = 0; S < C.size(); ++S) {
    for (unsigned P = 0; P < C.Stages[S]->Params.size(); ++P)
      Name.emplace(Base + P, C.Seq->Values.at(C.arg(S, P)).Text);
    Base += C.Stages[S]->Body->arg_size();
  }
  std::string Text[2];
  for (const StagedRecord &R : C.Staged)
    Text[R.Store] += (Text[R.Store].empty() ? "" : ", ") + Name[R.Arg] + " (" +
                     std::to_string(R.Bytes) + " bytes)";
  std::string What = !Text[0].empty() && !Text[1].empty()
                         ? Text[0] + " loaded and of " + Text[1] + " stored"
                         : Text[0].empty() ? Text[1] + " stored" : Text[0] + " loaded";
  std::vector<std::string> Aligned;
  unsigned Multiple = 0;
  for (const StagedRecord &R : C.Staged) {
    if (R.BaseAlign)
      Aligned.push_back(Name[R.Arg]);
    Multiple = std::max(Multiple, R.BlockMultiple);
  }
  std::vector<std::string> Checks;
  if (!Aligned.empty())
    Checks.push_back(listed(Aligned) + " 16-byte aligned");
  if (Multiple > 1)
    Checks.push_back("the block's threads a multiple of " + std::to_string(Multiple));
  std::string Words;
  if (!Checks.empty())
    Words = ", in 16-byte words: the runtime checks " + listed(Checks) +
            ", and runs the original launches where they are not";
  return OptimizationRemark(DEBUG_TYPE, "RecordsStaged", &F0)
         << Fused.getName() << ": records of " << What
         << " by consecutive threads through shared memory ("
         << std::to_string(C.RecordTileBytes) << " bytes per block)" << Words;
}

void DeviceFuser::fuse(FusionCandidate &C) {
  Function *Fused = buildFusedKernel(M, C, FAM);
  markCovered(*Fused, C);
  uint64_t UnfusedNs = 0, FusedNs = 0;
  if (auto It = Predicted.find(C.Name); It != Predicted.end())
    std::tie(UnfusedNs, FusedNs) = It->second;
  ManifestText += manifestGroup(C, UnfusedNs, FusedNs);
  ++NumFusedGroups;
  NumFusedLaunches += C.size();

  std::string Kernels, Mechs;
  unsigned Flops = 0;
  for (const KernelInfo *K : C.Stages) {
    Kernels += (Kernels.empty() ? "" : ", ") + shortName(K->F->getName());
    Flops += K->Flops;
  }
  GroupBytes Bytes = groupBytes(C);
  // Loops that could not be jammed because a bound reads a struct that each
  // stage reads from its own copy: which one, and why.
  std::string Unshared;
  for (unsigned S = 0; S < C.size() && Unshared.empty(); ++S) {
    const KernelInfo &K = *C.Stages[S];
    if (!K.Grid)
      continue;
    std::optional<int> Field;
    for (auto &[M, Coef] : K.Grid->Bound.Terms)
      for (int Sym : M)
        if (!Field && isFieldSymbol(Sym))
          Field = Sym;
    if (!Field)
      continue;
    unsigned P = fieldParam(*Field);
    if (P < K.Params.size() && !K.Params[P].NotShared.empty())
      Unshared = "; launch " + std::to_string(C.index(S)) + " (" + shortName(K.F->getName()) +
                 ") reads its bound from its own copy of by-value " +
                 paramText(*K.F, P) + ", which it does not share: " + K.Params[P].NotShared;
  }
  for (const Intermediate &I : C.Carried) {
    bool Fwd = I.Mech == Mechanism::Forward;
    Fwd ? ++NumForwarded : ++NumStaged;
    Mechs += (Mechs.empty() ? "" : ", ") + C.Seq->Values.at(I.Value).Text +
             (C.ThroughMemory.count(I.Value)
                  ? " through memory (the grid-stride loops that write and read it could "
                    "not be made one loop" + Unshared + ")"
              : Fwd ? " in registers"
                    : " through shared memory");
    if (I.Mech == Mechanism::Halo && I.HaloGrid) {
      std::string Box;
      for (unsigned D = 0; D < 3; ++D)
        if (I.HaloLo[D] + I.HaloHi[D])
          Box += std::string(Box.empty() ? "" : ", ") + std::to_string(I.HaloLo[D]) +
                 " before and " + std::to_string(I.HaloHi[D]) + " after in " + "xyz"[D];
      Mechs += " with a halo of " + Box + " around each block's box, recomputed by launch " +
               std::to_string(C.index(I.HaloStage)) + " (" +
               shortName(C.Stages[I.HaloStage]->F->getName()) + ")";
    } else if (I.Mech == Mechanism::Halo) {
      Mechs += " with a halo of " + std::to_string(I.HaloLo[0]) + " element" +
               (I.HaloLo[0] == 1 ? "" : "s") + " before and " + std::to_string(I.HaloHi[0]) +
               " after each block's, recomputed by launch " +
               std::to_string(C.index(I.HaloStage)) + " (" +
               shortName(C.Stages[I.HaloStage]->F->getName()) + ")";
    }
  }
  if (Mechs.empty()) {
    // Launches that share no buffer at all fuse horizontally: each thread
    // runs every member, and the group saves launches, not traffic.
    std::map<unsigned, unsigned> Users;
    for (unsigned S = 0; S < C.size(); ++S) {
      std::set<unsigned> Mine;
      for (const Access &A : C.Stages[S]->Accesses)
        Mine.insert(C.arg(S, A.Param));
      for (unsigned V : Mine)
        ++Users[V];
    }
    bool Shared = llvm::any_of(Users, [](const auto &U) { return U.second > 1; });
    if (C.Split)
      Mechs = "horizontal, the launches' blocks side by side (grids of different sizes; "
              "one launch instead of " + std::to_string(C.size()) + ")";
    else
      Mechs = Shared ? "no carried buffer"
                     : "horizontal, the launches share no buffer (one launch instead of " +
                           std::to_string(C.size()) + ")";
  }
  std::string Granularity;
  if (!C.Tpi.empty()) {
    Granularity = "; across granularities, threads per instance ";
    for (unsigned S = 0; S < C.size(); ++S)
      Granularity += (S ? ", " : "") + std::to_string(C.Tpi[S]);
    Granularity += ", " + std::to_string(C.GranIpb) + " instances per block of " +
                   std::to_string(C.GranThreads) + " threads";
    for (const FusionCandidate::ImplStage &I : C.Impls) {
      const std::string &Launched = C.launch(I.Stage).Kernel;
      const ImplMark &Ran = Impls.at(C.Stages[I.Stage]->F->getName().str());
      std::string Threads =
          std::to_string(I.To) + (I.To == 1 ? " thread" : " threads") + " per instance";
      if (Ran.DerivedFrom.empty())
        Granularity += "; launch " + std::to_string(C.index(I.Stage)) + " runs '" +
                       shortName(C.Stages[I.Stage]->F->getName()) + "' (" + Threads +
                       "), another implementation of '" + Impls.at(Launched).Function +
                       "' than '" + shortName(Launched) + "' (" + std::to_string(I.From) + ")";
      else
        Granularity += "; launch " + std::to_string(C.index(I.Stage)) + " runs '" +
                       shortName(Ran.DerivedFrom) + "' with " + Threads +
                       ", an implementation of '" + Impls.at(Launched).Function +
                       "' that kfuse derived from it" +
                       (Ran.DerivedFrom == Launched
                            ? " (launched with " + std::to_string(I.From) + ")"
                            : ", in place of '" + shortName(Launched) + "' (" +
                                  std::to_string(I.From) + ")");
    }
    // Buffers the block copies in 16-byte words, whose starts the runtime
    // checks 16-byte aligned (manifest `align`).
    std::vector<std::string> Aligned;
    if (!C.GranInputs.empty()) {
      Granularity += "; the block loads the records of ";
      for (size_t K = 0; K < C.GranInputs.size(); ++K) {
        const FusionCandidate::GranInput &In = C.GranInputs[K];
        const std::string &Text = C.Seq->Values.at(In.Value).Text;
        Granularity += (K ? ", " : "") + Text;
        if (In.checksAlign() && !llvm::is_contained(Aligned, Text))
          Aligned.push_back(Text);
      }
      Granularity += " into shared memory with consecutive threads";
    }
    if (!C.GranOutputs.empty()) {
      Granularity += "; the block stores the records of ";
      for (size_t K = 0; K < C.GranOutputs.size(); ++K) {
        const std::string &Text = C.Seq->Values.at(C.GranOutputs[K].Value).Text;
        Granularity += (K ? ", " : "") + Text;
        if (C.GranOutputs[K].checksAlign() && !llvm::is_contained(Aligned, Text))
          Aligned.push_back(Text);
      }
      Granularity += " from shared memory with consecutive threads";
    }
    if (!Aligned.empty())
      Granularity += ", in 16-byte words where " + listed(Aligned) +
                     " start 16-byte aligned (the runtime checks)";
  }
  std::string Riders;
  for (bool Before : {true, false}) {
    std::string Side;
    unsigned Count = 0;
    for (size_t X = 0; X < C.Riders.size(); ++X)
      if (C.RiderBefore[X] == Before) {
        Side += (Side.empty() ? "" : ", ") + std::to_string(C.Riders[X]) + " (" +
                shortName(C.Seq->Launches[C.Riders[X]].Kernel) + ")";
        ++Count;
      }
    if (Count)
      Riders += "; launch" + std::string(Count > 1 ? "es " : " ") + Side +
                (Count > 1 ? " run " : " runs ") + (Before ? "before" : "after") +
                " the fused kernel";
  }
  Function &F0 = *C.Stages[0]->F;
  ore(F0).emit([&] {
    return OptimizationRemark(DEBUG_TYPE, "Fused", &F0)
           << "fused launches " << membersText(C) << " (" << Kernels << ") of sequence "
           << std::to_string(C.Seq->Id) << " into " << Fused->getName() << ": " << Mechs
           << (C.NeedsBarrier ? ", with barriers" : "") << Granularity << Riders << "; saves "
           << std::to_string(Bytes.Unfused - Bytes.Fused) << " bytes per element";
  });
  if (!C.Staged.empty())
    ore(F0).emit([&] { return recordsRemark(C, *Fused, F0); });
  for (auto [S, Index] : C.Overwritten) {
    const Access &A = C.Stages[S]->Accesses[Index];
    unsigned V = C.arg(S, A.Param);
    IndexPoly O = C.valueOffset(S, A);
    // The stage that stores the same element next, else the next that
    // stores the buffer at all; none: the store wrote what was there.
    int By = -1;
    for (unsigned Pass = 0; Pass < 2 && By < 0; ++Pass)
      for (unsigned S2 = S + 1; S2 < C.size() && By < 0; ++S2)
        for (const Access &A2 : C.Stages[S2]->Accesses)
          if (A2.IsStore && C.arg(S2, A2.Param) == V &&
              (Pass == 1 || (!A2.UnknownIndex && C.valueOffset(S2, A2) == O))) {
            By = int(S2);
            break;
          }
    ore(F0).emit([&] {
      OptimizationRemarkAnalysis Rem(DEBUG_TYPE, "StoreDropped", &F0);
      Rem << Fused->getName() << ": the store of launch " << std::to_string(C.index(S)) << " ("
          << shortName(C.Stages[S]->F->getName()) << ") to " << C.Seq->Values.at(V).Text
          << ", its parameter " << std::to_string(A.Param + 1) << ", is dropped: ";
      if (By < 0)
        return Rem << "it stores the value the element already holds";
      return Rem << "launch " << std::to_string(C.index(By)) << " ("
                 << shortName(C.Stages[By]->F->getName())
                 << ") stores the same element later, and nothing reads it in between";
    });
  }
  ore(F0).emit([&] {
    return OptimizationRemarkAnalysis(DEBUG_TYPE, "FusionCost", &F0)
           << Fused->getName() << ": " << std::to_string(Bytes.Unfused)
           << " bytes per element unfused, " << std::to_string(Bytes.Fused) << " fused"
           << (Bytes.FusedDead < Bytes.Fused
                   ? " (" + std::to_string(Bytes.FusedDead) + " where the dead buffers' stores are skipped)"
                   : std::string())
           << ", " << std::to_string(Flops)
           << " flops per element, " << std::to_string(C.TileBytes + C.RecordTileBytes)
           << " bytes of shared memory per block; predicted " << std::to_string(UnfusedNs)
           << " ns unfused, " << std::to_string(FusedNs) << " ns fused";
  });
}

/// Checks the planner's numeric flags once per module: a value out of range
/// gets a warning naming the flag and its range, and every sequence is then
/// planned greedily (with a missed remark) instead of handing the planning
/// library sizes it cannot solve.
static std::string checkPlanFlags() {
  auto Num = [](double X) {
    char Buf[32];
    std::snprintf(Buf, sizeof Buf, "%g", X);
    return std::string(Buf);
  };
  if (PlansOpt < 1 || PlansOpt > PlanMaxAlternatives)
    return "-kfuse-plans=" + std::to_string(PlansOpt) + " is out of range (1 to " +
           std::to_string(PlanMaxAlternatives) + ")";
  if (!(ElementsOpt >= 1 && ElementsOpt <= PlanMaxElements))
    return "-kfuse-elements=" + Num(ElementsOpt) + " is out of range (1 to " +
           Num(PlanMaxElements) + ")";
  if (PlanWorkOpt < 1 || PlanWorkOpt > KF_WORK_LIMIT_MAX)
    return "-kfuse-plan-work-limit=" + std::to_string(PlanWorkOpt) +
           " is out of range (1 to " + Num(double(KF_WORK_LIMIT_MAX)) + ")";
  return "";
}

bool DeviceFuser::run() {
  ModuleRecords Recs = readModuleRecords(M);
  Key = Recs.TuKey;
  Impls = Recs.Impls;
  FlagError = checkPlanFlags();
  if (PlanTimeOpt.getNumOccurrences() && !Recs.Seqs.empty())
    M.getContext().diagnose(DiagnosticInfoGeneric(
        "kfuse: -kfuse-plan-time-limit is deprecated and ignored: the planner's search is "
        "bounded by -kfuse-plan-work-limit=N (default " + std::to_string(PlanDefaultWork) +
            "), so the output is the same on any machine",
        DS_Warning));
  if (!FlagError.empty() && !Recs.Seqs.empty())
    M.getContext().diagnose(DiagnosticInfoGeneric("kfuse: " + FlagError +
                                                      "; sequences are planned greedily",
                                                  DS_Warning));
  Rolled = takeRolledCopies(M);
  bool Changed = !Rolled.empty();
  for (Function *F : Recs.Kernels) {
    if (F->getCallingConv() != CallingConv::PTX_Kernel)
      continue;
    if (!F->isDeclaration() && Lanes.split(*F)) {
      Split.push_back(F);
      FAM.invalidate(*F, PreservedAnalyses::none());
    }
    KernelInfo K = analyze(*F);
    // A loop the program's `#pragma unroll N` had unrolled at run time: the
    // analysis reads the kernel's copy made before (RolledLoops.h), and so
    // does everything below.
    Function *Code = F;
    Function *Copy = K.isValid() ? nullptr : Rolled.lookup(F);
    if (Copy && carriesFloat(*Copy)) {
      K.Reason += "; a copy with its loop of a run-time trip count rolled is not used: the "
                  "loop carries a floating-point value from one trip to the next, where the "
                  "kernel's unrolled code may contract a product of one trip with a sum of the "
                  "next, so a fused kernel could not promise the same bits";
      Copy = nullptr;
    }
    if (Copy) {
      if (Lanes.split(*Copy)) {
        if (!is_contained(Split, F))
          Split.push_back(F);
        FAM.invalidate(*Copy, PreservedAnalyses::none());
      }
      K = analyze(*Copy);
      K.F = F;
      Code = Copy;
      ++NumKernelRolled;
    }
    // A pointer parameter handed to a helper kept out of line: the analysis
    // reads the kernel's twin with the helper inlined, and fused kernels
    // clone the twin. Its verdict, either way, is about the helper's code.
    // A struct copied whole (llvm.memcpy or memmove of a parameter's
    // memory): the twin copies it field by field.
    bool Twinned = false;
    bool Helpers = !K.isValid() && callsPointerHelper(*Code);
    bool Copies = !K.isValid() && copiesParamMemory(*Code);
    if (Helpers || Copies)
      if (Function *Twin = Helpers ? inlinedTwin(*Code) : copiedTwin(*Code)) {
        expandParamCopies(*Twin);
        Twins.push_back(Twin);
        FunctionPassManager FPM;
        FPM.addPass(SROAPass(SROAOptions::ModifyCFG));
        FPM.addPass(EarlyCSEPass(true));
        FPM.addPass(InstCombinePass());
        FPM.addPass(SimplifyCFGPass());
        FPM.run(*Twin, FAM);
        if (const Instruction *Add = productAddedAcrossFence(*Twin)) {
          K.At = Add;
          K.Reason = "a product crosses its call of a function kept out of line into an "
                     "addition or subtraction; in the kernel alone ptxas may contract the two "
                     "into one FMA or not, so a fused kernel could not promise the same bits: "
                     "keep the multiply and the add on one side of the call, or let the "
                     "compiler inline the function (no __noinline__)";
          K.Stat = "call";
        } else {
          K = analyze(*Twin);
          K.F = F;
          Twinned = true;
        }
      }
    // Buffers whose addresses are fields of a struct the kernel takes by
    // value (a lambda's captures): the analysis reads a twin that takes
    // them as pointer parameters after its own (FieldParams.h), and fused
    // kernels clone that twin.
    if (!K.isValid() && K.Stat == "indirect") {
      SmallVector<FieldParam, 4> Fields;
      if (Function *Twin = fieldTwin(*K.Body, Fields)) {
        Twins.push_back(Twin);
        KernelInfo T = analyze(*Twin);
        T.F = F;
        T.FieldParams.assign(Fields.begin(), Fields.end());
        K = std::move(T);
        ++NumKernelFieldParams;
      }
    }
    // A loop of the thread's own with a constant trip count, which the
    // compiler kept (ThreadLoops.h): the analysis reads a twin with it
    // unrolled, and fused kernels clone that twin.
    unsigned Unrolled = unrollThreadLoops(*F, K);
    std::string Name = "kernel '" + signature(F->getName()) + "'";
    if (!K.isValid()) {
      countKernelRejection(K.Stat);
      // At the store, call or asm that blocks the kernel where it has a
      // source line, else at the kernel.
      const Instruction *At = locatedAt(K.At);
      ore(*F).emit([&] {
        auto Rem = At ? OptimizationRemarkMissed(DEBUG_TYPE, "KernelNotAnalysable",
                                                 remarkLocation(*At), At->getParent())
                      : OptimizationRemarkMissed(DEBUG_TYPE, "KernelNotAnalysable", F);
        return Rem << Name << " cannot be fused: " << K.Reason;
      });
    } else {
      std::string Gathers, Bounded;
      // Rows of the linear index, by divisor: the parameters indexed so.
      std::map<std::string, std::vector<std::string>> Rows;
      // Loops over the thread's own record of a run-time length.
      std::string Spans, SpanCount;
      for (const Access &A : K.Accesses)
        if (A.Row) {
          std::vector<std::string> &Ps = Rows[polyText(A.Row->Div, F)];
          if (!is_contained(Ps, paramText(*F, A.Param)))
            Ps.push_back(paramText(*F, A.Param));
        } else if (A.Span) {
          std::string P = paramText(*F, A.Param);
          if (Spans.find(" " + P + ",") == std::string::npos)
            Spans += " " + P + ",";
          SpanCount = polyText(A.Span->Count, F);
        } else if (A.UnknownIndex) {
          ++NumGathers;
          std::string P = paramText(*F, A.Param);
          if (!A.GatherHi.empty()) {
            Bounded += "; gathers through " + P + " within bytes [" +
                       exprText(A.GatherLo, F) + ", " + exprText(A.GatherHi, F) + ")";
          } else if (Gathers.find(" " + P + ",") == std::string::npos) {
            Gathers += " " + P + ",";
          }
        }
      if (!Gathers.empty())
        Gathers = "; gathers (unknown index) through" + Gathers.substr(0, Gathers.size() - 1);
      Gathers += Bounded;
      if (!Spans.empty())
        Gathers += "; loops over its own elements of" + Spans.substr(0, Spans.size() - 1) +
                   " (" + SpanCount + " a thread, a number only the launch knows; fused "
                   "where every launch of a group loops over the same elements, which then "
                   "stay in memory)";
      for (auto &[Div, Ps] : Rows) {
        Gathers += "; indexes ";
        for (size_t I = 0; I < Ps.size(); ++I)
          Gathers += (I == 0 ? "" : I + 1 == Ps.size() ? " and " : ", ") + Ps[I];
        Gathers += " by a row of its linear index, (blockIdx.x*blockDim.x + threadIdx.x) / (" +
                   Div + "), that the index does not put back together with the remainder "
                         "(fused where every launch of a group accesses such a buffer at "
                         "that same index)";
      }
      ore(*F).emit([&] {
        return OptimizationRemarkAnalysis(DEBUG_TYPE, "KernelSummary", F)
               << Name << ": " << std::to_string(K.BytesPerThread)
               << " bytes and " << std::to_string(K.Flops) << " flops per element" << Gathers
               << (Code != F ? "; analysed and fused through a copy with its loop of a "
                               "run-time trip count rolled, one element a trip (launched "
                               "alone, it keeps the unrolling that LLVM or its #pragma unroll "
                               "gives it)"
                             : "")
               << (Twinned ? "; analysed and fused with its out-of-line helpers inlined "
                             "(launched alone, it keeps its calls)"
                           : "")
               << (Unrolled ? "; analysed and fused with its " +
                                  (Unrolled == 1 ? std::string("loop")
                                                 : std::to_string(Unrolled) + " loops") +
                                  " of constant trip count unrolled (launched alone, it keeps " +
                                  (Unrolled == 1 ? "it)" : "them)")
                            : "");
      });
    }
    Kernels.emplace(F->getName().str(), std::move(K));
  }
  // Implementations that cannot stand in for each other: a kernel with two
  // different marks, and a kernel whose function has other implementations
  // but none with its parameter types (a template's instantiations pair
  // with those of their own types).
  for (const std::string &Name : Recs.BadImpls)
    if (Function *F = M.getFunction(Name))
      ore(*F).emit([&] {
        return OptimizationRemarkMissed(DEBUG_TYPE, "ImplIgnored", F)
               << "kernel '" << signature(Name) << "' carries two different kfuse_impl marks; "
               << "no other implementation runs in its place, nor it in theirs";
      });
  for (auto &[Name, Mark] : Impls) {
    Function *F = M.getFunction(Name);
    const Function *Other = nullptr;
    bool Sibling = false;
    for (auto &[Name2, Mark2] : Impls) {
      const Function *G = M.getFunction(Name2);
      if (Name2 == Name || Mark2.Function != Mark.Function || !F || !G)
        continue;
      Sibling |= G->getFunctionType() == F->getFunctionType();
      if (!Other)
        Other = G;
    }
    if (!F || Sibling || !Other)
      continue;
    ore(*F).emit([&] {
      return OptimizationRemarkMissed(DEBUG_TYPE, "ImplIgnored", F)
             << "kernel '" << signature(Name) << "' implements '" << Mark.Function
             << "' with other parameter types than '" << signature(Other->getName())
             << "'; the implementations of a function take the same parameters, so none "
             << "runs in place of another";
    });
  }
  // A launch of a kernel analysed through its field twin passes the twin's
  // extra parameters too: the values the Clang plugin gives the fields
  // (`fields=`), or a value equal to no other where it gives none.
  for (SeqRecord &R : Recs.Seqs)
    for (SeqLaunch &La : R.Launches) {
      auto It = Kernels.find(La.Kernel);
      if (It == Kernels.end() || It->second.FieldParams.empty() ||
          La.Args.size() != It->second.F->arg_size())
        continue;
      for (const FieldParam &Fi : It->second.FieldParams) {
        auto Given = llvm::find_if(La.Fields, [&](const SeqLaunch::Field &X) {
          return X.Param == Fi.Struct && X.Offset == Fi.Offset;
        });
        if (Given != La.Fields.end() && R.Values.count(Given->Value)) {
          La.Args.push_back(Given->Value);
          continue;
        }
        unsigned Fresh = R.Values.empty() ? 0 : R.Values.rbegin()->first + 1;
        auto Struct = R.Values.find(La.Args[Fi.Struct]);
        R.Values[Fresh] = {"ptr", (Struct == R.Values.end() ? "?" : Struct->second.Text) +
                                      " at byte " + std::to_string(Fi.Offset)};
        La.Args.push_back(Fresh);
      }
    }
  Seqs = &Recs.Seqs;
  deriveImplementations();
  Function *Any = anyDefinition();
  if (Any && !Recs.Seqs.empty())
    ore(*Any).emit([&] {
      return OptimizationRemarkAnalysis(DEBUG_TYPE, "UnitKey", Any)
             << "translation unit key " << Key
             << (Recs.KeyFromContent ? " (a hash of the module's records: no kfuse.tu key)"
                                     : " (kfuse.tu)")
             << ": the manifest is " << manifestSymbol(Key);
    });
  for (const std::string &Why : Recs.Malformed) {
    ++NumMalformedRecords;
    if (Any)
      ore(*Any).emit([&] {
        return OptimizationRemarkMissed(DEBUG_TYPE, "MalformedRecord", Any)
               << "ignoring launch sequence record " << Why;
      });
  }
  // A group is bound to its sequence's site by the host function and the
  // line and column of the first launch (its `at` line); sequences that
  // share all three (one macro expanding to two sequences) cannot be told
  // apart by the host pass, so neither is fused.
  std::map<std::string, unsigned> SiteUses;
  for (const SeqRecord &R : Recs.Seqs)
    ++SiteUses[siteKey(R.Site) + " " + R.Site.substr(R.Site.rfind(' ') + 1)];
  for (const SeqRecord &R : Recs.Seqs) {
    for (const SeqLaunch &La : R.Launches)
      if (!Kernels.count(La.Kernel))
        ++NumNotMapKernel;
    std::string Key = siteKey(R.Site) + " " + R.Site.substr(R.Site.rfind(' ') + 1);
    if (SiteUses[Key] > 1 || Key.compare(0, 4, "0:0 ") == 0) {
      ++NumSiteNotUnique;
      std::string Why = Key.compare(0, 4, "0:0 ") == 0
                            ? "its site has no line and column, which bind fused kernels to "
                              "the launches of the host code"
                            : "another launch sequence of the same host function starts at "
                              "the same line and column (a macro that expands to both?), and "
                              "fused kernels are bound to the launches of the host code by "
                              "that position";
      remarkPlan(R, "SiteNotUnique", "not fused: " + Why, /*Missed=*/true);
      recordMissed(R, 0, R.Launches.size() - 1, Why);
      continue;
    }
    std::vector<FusionCandidate> Plan = planSequence(R);
    for (FusionCandidate &C : Plan) {
      fuse(C);
      Changed = true;
    }
  }
  if (!ManifestText.empty() || !MissedText.empty()) {
    embedManifest(M, Key, ManifestText + MissedText);
    Changed = true;
  }
  Changed |= eraseSeqRecords(M);
  // The kernels as they were: what the analysis of a split kernel found
  // refers to its lanes, so it goes too; so do the twins.
  for (Function *Twin : Twins) {
    FAM.clear(*Twin, Twin->getName());
    Twin->eraseFromParent();
  }
  Lanes.restore();
  for (auto &[F, Copy] : Rolled) {
    FAM.clear(*Copy, Copy->getName());
    Copy->eraseFromParent();
  }
  for (Function *F : Split) {
    Kernels.erase(F->getName().str());
    FAM.invalidate(*F, PreservedAnalyses::none());
  }
  return Changed;
}

PreservedAnalyses kfuse::DeviceFusionPass::run(Module &M, ModuleAnalysisManager &AM) {
  auto &FAM = AM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager();
  if (!DeviceFuser(M, FAM).run())
    return PreservedAnalyses::all();
  // Existing functions are untouched; fused kernels and globals are new.
  PreservedAnalyses PA;
  PA.preserveSet<AllAnalysesOn<Function>>();
  return PA;
}
