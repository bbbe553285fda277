//===- FusionCandidate.h - a group of launches to fuse ----------*- C++ -*-===//
//
// The state shared by the three steps of the device pass: legality fills a
// FusionCandidate, the transform builds its fused kernel, the manifest
// describes it to the runtime.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_PASS_LLVM_FUSIONCANDIDATE_H
#define KFUSE_PASS_LLVM_FUSIONCANDIDATE_H

#include "KernelAnalysis.h"
#include "RecordStaging.h"
#include "SeqRecord.h"

#include "llvm/IR/PassManager.h"

#include <array>
#include <map>
#include <memory>
#include <set>

namespace kfuse {

/// The threads of a fused block across granularities: it runs
/// GranBlock / max(Tpi) instances (at least GranInstances), so the stage
/// with the most threads per instance keeps at most this many threads busy
/// and a stage with more loops over them. The planner's model knows it
/// (PlanBridge.cpp, kf_problem_set_fused_block).
constexpr unsigned GranBlock = 256;
/// The fewest instances a fused block across granularities runs.
constexpr unsigned GranInstances = 64;

/// How a buffer's values reach the later stages that read them: in a
/// register of the thread that stored them, in a shared tile of the block
/// whose threads stored them, or in a shared tile that also holds the
/// elements just outside the block's own, which the block computes again
/// from the producer's inputs (halo recomputation, 1-D).
enum class Mechanism { Forward, Stage, Halo };

/// One register of a forwarded buffer: the element a thread stores at this
/// byte offset (value symbols) and later stages load from it.
struct ForwardSlot {
  IndexPoly Offset;
  llvm::Type *Ty = nullptr;
};

/// A buffer (one value number of the record) that some stage writes and a
/// later stage reads.
struct Intermediate {
  unsigned Value = 0;
  Mechanism Mech = Mechanism::Forward;
  llvm::Type *Ty = nullptr; ///< Stage: element type of every access to it
  unsigned Bytes = 0;       ///< Stage: element bytes
  /// Forward: one slot per distinct offset the group stores at. A thread's
  /// accesses to the buffer form a record of its own (one element, or the
  /// fields of a small struct or matrix), so every value crosses inside the
  /// thread that produced it.
  std::vector<ForwardSlot> Slots;
  int DeadBit = -1;         ///< bit of the dead mask, or -1
  unsigned DeadLaunch = 0, DeadParam = 0; ///< the writer the dead line names
  /// The fused kernel never reads the buffer from memory: every load of it
  /// became the value the same thread stored earlier in the group (manifest
  /// `dead ... covered`, markCovered()).
  bool Covered = false;
  /// Stage, in a group that reads y or z coordinates: each access's tile
  /// slot, a polynomial in tid.* and ntid.* (Legality.cpp blockLocalSlots);
  /// empty for the 1-D tile indexed by the in-block offset.
  std::map<const Access *, IndexPoly> TileSlot;
  /// Stage across granularities (FusionCandidate::Tpi): the tile's
  /// elements, a block's instances times the elements each instance's
  /// record holds; 0 for the 1024-element tile of one granularity.
  unsigned TileElements = 0;
  /// Halo: the stage that stores the buffer, each thread its own element
  /// ctaid.x*ntid.x + tid.x, and the elements before and after the block's
  /// own that later stages read (`t[i-1]`, `t[i+2]`), which the block
  /// recomputes. Every halo buffer a stage stores has that stage's widest
  /// Lo and Hi, so one recomputation fills all their tiles. Indexed by
  /// dimension; only [0] is used unless HaloGrid.
  unsigned HaloStage = 0;
  unsigned HaloLo[3] = {0, 0, 0}, HaloHi[3] = {0, 0, 0};
  /// Halo in 2-D or 3-D: the producer stores element (x, y, z) of a
  /// row-major array (its offset sum_d C_d * g_d + r, C_x the element
  /// size), and later stages read it at constant shifts in each dimension
  /// (`q[(y-1)*w + x]`). The tile is the block's box widened by HaloLo and
  /// HaloHi in each dimension; every element read is proven stored (always
  /// HaloExact), and the block's threads recompute the widening in a loop.
  bool HaloGrid = false;
  /// HaloGrid: each access's shift from its thread's own element, in
  /// elements per dimension (0 for the producer's stores).
  std::map<const Access *, std::array<int64_t, 3>> HaloShift;
  /// Halo: every element a later stage reads is one the producer stores,
  /// as the kernels' own checks prove (haloCovered, Legality.cpp): the tile
  /// needs no written flags, and the buffer is never read from memory.
  bool HaloExact = false;
};

/// The most elements a 2-D or 3-D halo tile holds: the block's box widened
/// by the halo in each dimension, (bx+Lx+Hx)*(by+Ly+Hy)*(bz+Lz+Hz), which a
/// manifest guard keeps within it (a 32 x 32 block with a halo of 2 on
/// every side needs 1296, a 256 x 1 one with a halo of 1 needs 774).
constexpr unsigned GridTileElements = 2048;

/// Launches of one sequence record fused into one kernel: the members,
/// First..Last in launch order with the launches between them that are not
/// members (riders) left out. The runtime runs a rider unfused, after the
/// fused kernel, which moves it past the members after it, or where it
/// depends on one of those, before the fused kernel, which moves it before
/// the members before it (manifest `rider`); checkCandidate() proves the
/// move keeps every dependency, and `disjoint` guards check at run time
/// what it assumed of different values.
struct FusionCandidate : Verdict {
  const SeqRecord *Seq = nullptr;
  unsigned First = 0, Last = 0;
  /// Record indices of the members, ascending, First and Last among them.
  std::vector<unsigned> Members;
  /// Record indices of the riders, ascending, their kernels' analyses, and
  /// whether each runs before the fused kernel (else after it).
  std::vector<unsigned> Riders;
  std::vector<const KernelInfo *> RiderInfos;
  std::vector<bool> RiderBefore;
  /// Riders whose side is decided by the group's set (SetId): 1 before
  /// the fused kernel, 0 after it, -1 where checkCandidate() chooses.
  std::vector<int8_t> RiderForced;
  /// Riders that another group of the set runs (manifest `other`).
  std::vector<bool> RiderOther;
  /// A set of groups whose spans overlap (manifest `part`): the group runs
  /// as part SetPart (0 first, then 1, ...) of set SetId (0: alone);
  /// SetOffset is its first launch's position in the set's span.
  unsigned SetId = 0, SetPart = 0, SetOffset = 0;
  /// (launch, param, launch, param), record indices: a rider's parameter
  /// and a member's or another rider's, of different values of which one is
  /// written, whose footprints must not overlap.
  std::vector<std::array<unsigned, 4>> RiderDisjoint;
  std::vector<const KernelInfo *> Stages;
  std::vector<Intermediate> Carried;
  /// The launches have different grids (the same block, dynamic shared
  /// memory and stream) and are independent: no buffer one of them writes
  /// is accessed by another. The fused kernel gives each launch its own
  /// range of blocks along x (manifest `shape split`; grid-stride stages
  /// first):
  /// the runtime launches the sum of their grid.x and passes each launch's
  /// grid.x; a stage sees its own blockIdx.x and gridDim.x.
  bool Split = false;
  /// The launches run over the same instances at different granularities:
  /// launch S ran Tpi[S] threads per instance (a 3x3 product with one
  /// thread per matrix, a scaling with one per element), as the offsets at
  /// which they meet in a buffer say (`36*i` written, `4*j` read: nine
  /// threads for one). Empty for one granularity. The fused kernel runs
  /// GranIpb instances per block, in blocks of max(Tpi) * GranIpb threads;
  /// stage S runs on the first Tpi[S] * GranIpb of them, which is the
  /// blockDim.x it reads, and the runtime sizes the grid (manifest `shape
  /// gran`).
  std::vector<unsigned> Tpi;
  unsigned GranIpb = 0;
  /// The fused block's threads: max(Tpi) * GranIpb, or fewer, where a
  /// stage loops over its share (a stage of r threads per instance runs
  /// r * GranIpb virtual threads, GranThreads at a time).
  unsigned GranThreads = 0;
  /// Run 256 / max(Tpi) instances per block, no stage looping: what
  /// checkCandidate tries where the larger blocks' tiles do not fit.
  bool GranNarrow = false;
  /// Across granularities: an input no stage writes whose per-instance
  /// records the fused block copies into shared memory with consecutive
  /// threads before its first stage, so that the stages read its fields
  /// from the tile instead of each loading them from memory (Legality.cpp
  /// granularityInputs, FusedKernel.cpp).
  struct GranInput {
    unsigned Value = 0;
    /// The stage whose threads below its check `g < s<BoundParam>` read
    /// the first and the last byte of every complete instance's record
    /// (Access::EveryBelow), so that the bytes of those records may be
    /// read; Param, its parameter that holds the buffer.
    unsigned Stage = 0, Param = 0, BoundParam = 0;
    int64_t Record = 0; ///< bytes per instance
    unsigned Word = 0;  ///< bytes each thread copies at a time: 4 or 8
    /// The block copies the records in 16-byte words, its tail in Word
    /// ones (FusedKernel.cpp copyInputs), which needs the buffer's start
    /// 16-byte aligned (manifest `align` where BaseAlign is less).
    bool Vector = false;
    /// Whether the runtime checks the buffer's start 16-byte aligned.
    bool checksAlign() const { return Vector && BaseAlign < 16; }
    /// The buffer's start is a multiple of this (its loads' alignment), a
    /// power of two.
    unsigned BaseAlign = 0;
    /// The loads that read the tile: each in its thread's instance's
    /// record, of an instance the block copied (manifest `le` guards);
    /// the others read memory.
    std::set<const Access *> Direct;
  };
  std::vector<GranInput> GranInputs;
  /// Across granularities: an output that one stage writes and no stage
  /// reads, each of its threads below its check `g < s<BoundParam>` every
  /// byte of its own Bytes at Bytes * g (12 bytes or more, which a warp
  /// would store Bytes apart). The stage stores into a tile of the block's
  /// records, and after the last stage the block stores the tile with
  /// consecutive threads, bytes [0, Bytes * s) of the buffer and no others
  /// (Legality.cpp granularityOutputs, FusedKernel.cpp copyOutputs).
  struct GranOutput {
    unsigned Value = 0, Stage = 0, Param = 0, BoundParam = 0;
    unsigned Bytes = 0; ///< per thread of the stage
    unsigned Word = 0;  ///< bytes each thread stores at a time: 4 or 8
    /// The block stores its range in 16-byte words, the tail in Word ones
    /// (FusedKernel.cpp copyOutputs), which needs the buffer's start
    /// 16-byte aligned (manifest `align`).
    bool Vector = false;
    /// Whether the runtime checks the buffer's start 16-byte aligned.
    bool checksAlign() const { return Vector; }
    std::set<const Access *> Stores;
  };
  std::vector<GranOutput> GranOutputs;
  /// A stage that runs another implementation of its launch's function
  /// (kfuse_impl) than the kernel the launch names: that launch ran From
  /// threads per instance and the stage's kernel runs To, each counting
  /// its own threads in parameter Param (manifest `impl`; the runtime
  /// passes the stage Param * To / From).
  struct ImplStage {
    unsigned Stage = 0, Param = 0, From = 0, To = 0;
  };
  std::vector<ImplStage> Impls;
  /// The implementation each member runs (the planner's variant index,
  /// DeviceFuser::variantsOf); empty when every member runs its own kernel.
  std::vector<unsigned> Choice;
  /// Where Impls is not empty: each stage's threads per instance as its
  /// kernel declares them (kfuse_impl), which become Tpi.
  std::vector<unsigned> DeclaredTpi;
  /// Where Impls is not empty, Seq points here: the record with each
  /// substituted stage's Param a value of its own, which no other
  /// parameter shares (the runtime scales it for that stage alone).
  std::shared_ptr<SeqRecord> OwnSeq;
  bool NeedsBarrier = false;
  /// The stages after which the fused kernel synchronises the block: the
  /// fewest that separate every access from another thread's access to the
  /// same element in a later stage (a staged or halo buffer's stores from
  /// its reads, or a block-local read from a later write).
  std::set<unsigned> BarrierAfter;
  /// Manifest `le` lines: the layouts the fused code relies on that only the
  /// runtime can check (a row pitch at least the row's width, say).
  std::set<std::string> Layout;
  unsigned TileBytes = 0;   ///< static shared memory per block
  uint64_t DynShmem = 0;
  std::string Name;         ///< fused kernel name
  /// Under -kfuse-plans=K > 1: the ranks of the sequence's plans that hold
  /// this group, and how many plans the sequence has (manifest `plans`).
  std::vector<unsigned> PlanRanks;
  unsigned PlanCount = 1;
  /// The stores the fused kernel no longer makes because a later stage
  /// stores the same element first (dead store elimination over the fused
  /// body, the pointers noalias), as (stage, index into its Accesses), in
  /// program order; filled by buildFusedKernel.
  std::vector<std::pair<unsigned, unsigned>> Overwritten;
  /// The fused kernel's parameters whose per-instance records it moves
  /// through shared memory (RecordStaging.h); filled by buildFusedKernel.
  std::vector<StagedRecord> Staged;
  /// Carried buffers whose values the fused kernel still moves through
  /// memory, every store kept (grid-stride loops that could not be jammed
  /// into one); filled by buildFusedKernel.
  std::set<unsigned> ThroughMemory;
  unsigned RecordTileBytes = 0; ///< their tile's static shared memory per block

  /// The number of stages (members).
  unsigned size() const { return Members.size(); }
  /// The record index of stage \p Stage.
  unsigned index(unsigned Stage) const { return Members[Stage]; }
  /// The position of record launch \p Index in the group's span, which is
  /// how the manifest numbers launches.
  unsigned spanPos(unsigned Index) const { return Index - First; }
  const SeqLaunch &launch(unsigned Stage) const { return Seq->Launches[Members[Stage]]; }
  /// The value number launch \p Stage passes for parameter \p P.
  unsigned arg(unsigned Stage, unsigned P) const { return launch(Stage).Args[P]; }
  const Intermediate *carried(unsigned Value) const {
    for (const Intermediate &I : Carried)
      if (I.Value == Value)
        return &I;
    return nullptr;
  }
  /// \p A's byte offset with scalar params renamed to the record's values.
  IndexPoly valueOffset(unsigned Stage, const Access &A) const;
  /// \p P, a polynomial of stage \p Stage's kernel, over value numbers: its
  /// integer parameters and their fields renamed as valueOffset does.
  IndexPoly valuePoly(unsigned Stage, const IndexPoly &P) const;
  /// Whether stage \p Stage's launch gives its grid and block as integers
  /// (a launch in x alone).
  bool oneDimensional(unsigned Stage) const;
  /// Symbol \p S of stage \p Stage (an integer parameter, or a field of a
  /// by-value one) as the value its launch passes: SymValue0 + v, or that
  /// field of value v (SymValueField0); any other symbol as it is.
  int valueSymbol(unsigned Stage, int S) const;
  /// The forward slot of \p I that an access at \p Offset uses, or -1.
  static int slotOf(const Intermediate &I, const IndexPoly &Offset) {
    for (size_t S = 0; S < I.Slots.size(); ++S)
      if (I.Slots[S].Offset == Offset)
        return (int)S;
    return -1;
  }
};

/// Checks legality of the candidate and fills in Carried, NeedsBarrier,
/// TileBytes (Legality.cpp).
void checkCandidate(FusionCandidate &C);

/// Whether every access the analysable launches of \p C make to value \p V
/// lies in a record of its thread's own (condition 5, Legality.cpp): any
/// group that fuses its producer and consumers forwards it in registers.
bool inThreadRecords(const FusionCandidate &C, unsigned V);

/// Whether launches X and Y of \p R (record indices) may run in the other
/// order: no buffer (value number) that one writes does the other access.
/// Pairs of parameters of different values where one is written, which the
/// swap assumes disjoint, are appended to \p Disjoint as (X, param, Y,
/// param), for the runtime to check.
bool swapKeepsOrder(const SeqRecord &R, unsigned X, const KernelInfo &KX, unsigned Y,
                    const KernelInfo &KY, std::vector<std::array<unsigned, 4>> &Disjoint);
/// Whether launch \p A of kernel \p KA and launch \p B of kernel \p KB pass
/// one buffer (value number) that both access and either writes: swapping
/// them would reverse a dependency (Legality.cpp).
bool launchesConflict(const SeqLaunch &A, const KernelInfo &KA, const SeqLaunch &B,
                      const KernelInfo &KB);

/// One pointer parameter of one stage.
struct ParamRef {
  unsigned S = 0, P = 0;
};

/// The accessed pointer parameters of \p C whose footprints the runtime
/// checks disjoint before every fused launch (manifest `disjoint` lines,
/// Manifest.cpp): pairs of different values where a write in one stage
/// meets an access in another, either touches a carried buffer, a gathered
/// buffer meets a written one, or a buffer no stage writes meets a written
/// one. The fused kernel relies on the last: it reads such buffers as
/// invariant for its whole run (FusedKernel.cpp).
std::vector<std::pair<ParamRef, ParamRef>> disjointPairs(const FusionCandidate &C);

/// Global memory traffic per element (per thread of a stage), counted one
/// way by the remarks, the manifest's estimate and the tests: every access
/// of every stage unfused; fused, each element (buffer and offset) loaded
/// once where its first access in the group is a load, and stored once
/// where any stage stores it (the last store: the fused kernel's pointers
/// are noalias, so a store a later stage overwrites goes, FusedKernel.cpp),
/// a gather every time; and fused with the stores of every buffer that has
/// a dead bit skipped, as when the runtime passes the full dead mask.
struct GroupBytes {
  unsigned Unfused = 0, Fused = 0, FusedDead = 0;
};
GroupBytes groupBytes(const FusionCandidate &C);

/// (c, d) of an offset c*(ctaid.x*ntid.x + tid.x) + d, c > 0: the thread
/// with global index g touches byte d of the g-th c-byte record
/// (Legality.cpp).
std::optional<std::pair<int64_t, int64_t>> globalLinear(const IndexPoly &O);

/// The shift d of an access at byte offset Bytes*(ctaid.x*ntid.x + tid.x +
/// d) from its buffer: the element d places from the thread's own, `t[i +
/// d]`; std::nullopt for any other offset (Legality.cpp).
std::optional<int64_t> elementShift(const IndexPoly &Offset, unsigned Bytes);

/// The shift (s_x, s_y, s_z), in elements per dimension, of a byte offset
/// \p Diff = sum_d s_d * C_d over the coefficients C_d of \p Digits (Global
/// digits, at most one per dimension, x's the element size \p Bytes): the
/// element `q[(y + s_y) * w + x + s_x]` is from `q[y * w + x]`. A constant
/// coefficient is matched by the nearest multiple, which is exact for the
/// shifts halo fusion accepts; std::nullopt when Diff has another form
/// (Legality.cpp).
std::optional<std::array<int64_t, 3>> gridShift(IndexPoly Diff,
                                                const std::vector<IndexDigit> &Digits,
                                                unsigned Bytes);

/// Whether no stage of \p C writes through value \p V.
bool readOnlyValue(const FusionCandidate &C, unsigned V);

/// Builds the fused kernel of a legal candidate (FusedKernel.cpp), and
/// fills C.Overwritten.
llvm::Function *buildFusedKernel(llvm::Module &M, FusionCandidate &C,
                                 llvm::FunctionAnalysisManager &FAM);

/// Sets Intermediate::Covered for each carried buffer of \p C that the built
/// kernel \p Fused never loads (FusedKernel.cpp).
void markCovered(const llvm::Function &Fused, FusionCandidate &C);

/// Appends the candidate's manifest group text (Manifest.cpp). Nonzero
/// \p UnfusedNs and \p FusedNs (the planner's prediction) go into `predict`
/// as they are; otherwise a bandwidth-only estimate is written and returned.
std::string manifestGroup(const FusionCandidate &C, uint64_t &UnfusedNs,
                          uint64_t &FusedNs);

/// The manifest's `missed` line: launches \p First..\p Last of \p R were
/// not fused, for \p Reason (a remark's text, shortened to whole clauses of
/// at most MissedReasonBytes bytes).
std::string manifestMissed(const SeqRecord &R, unsigned First, unsigned Last,
                           llvm::StringRef Reason);

/// "<line>:<col>" of the first launch of a record's site (its `at` key,
/// docs/manifest.md), "0:0" when the site has none.
std::string siteKey(llvm::StringRef Site);

/// The longest reason a `missed` line carries: the manifest lives in device
/// memory, and the host pass's remark needs the first clauses only.
constexpr size_t MissedReasonBytes = 320;

/// The manifest's symbol in a module whose translation-unit key is \p Key:
/// `__kfuse_manifest_<Key>`, so the manifests of the files of a -fgpu-rdc
/// program, linked into one device image, keep their own names.
std::string manifestSymbol(llvm::StringRef Key);

/// Creates or extends @__kfuse_manifest_<Key> with \p Lines (groups and
/// `missed` lines).
void embedManifest(llvm::Module &M, llvm::StringRef Key, llvm::StringRef Lines);

} // namespace kfuse

#endif
