//===- FusedKernel.cpp - build the fused kernel of a legal candidate ------===//
//
// The fused kernel calls a private clone of every stage's kernel in launch
// order and inlines the calls; each inlined body keeps its own bounds checks
// and ends by branching to the next stage, so code placed between stages
// (the barrier, when staging) runs in every thread. Accesses to carried
// buffers are found after inlining by the !kfuse.access tag put on the
// clones, then rewritten:
//
//  - forwarded buffer: every store also writes a per-thread slot and sets a
//    per-thread flag; every load becomes `flag ? slot : load`. The index is
//    injective, so when this thread stored no element there, no thread did,
//    and the global load reads what the unfused code would read;
//  - staged buffer: the same with a shared tile and a shared "written" flag
//    per element, cleared before a first barrier; the indices are
//    block-local, so an element no thread of the block wrote was written by
//    no thread at all;
//  - halo buffer (a 1-D stencil): a staged buffer whose tile also holds
//    the Lo elements before the block's and the Hi after; after the
//    producer's stage, threads tid.x < Lo+Hi run the producer again as the
//    threads of the neighbouring blocks whose elements those are (a clone
//    whose tid.x and ctaid.x are parameters), into the tile only. Where
//    every element read is proven stored, the tile has no flags and the
//    loads read it unconditionally.
//
// A forwarded or staged value goes through llvm.arithmetic.fence and its
// producing instruction loses `contract`, so neither LLVM nor ptxas
// contracts across the old kernel boundary. The pointer parameters are
// noalias (markNoAlias: the runtime checks the buffers disjoint), and a
// small cleanup pipeline turns slots into registers, loads each element
// once and drops the stores a later stage overwrites. The body is then
// specialised on the dead mask (versionOnDead): the dead buffers' stores
// gone where every bit is set, every store kept otherwise. Last, where a
// branch stores a carried buffer on one side and loads it on the other, the
// two sides run one after the other, the store first (orderOneFallback).
//
// Independent launches of different grids (FusionCandidate::Split) share
// nothing: the fused kernel gives each stage as many blocks as its own
// launch had, one range after another along x (grid-stride stages first),
// and its clone sees blockIdx.x relative to its first block and its own
// gridDim.x (splitStage).
//
//===----------------------------------------------------------------------===//
#include "CallEffects.h"
#include "FusionCandidate.h"
#include "LoopJam.h"
#include "VectorHints.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/Analysis/PostDominators.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PatternMatch.h"
#include "llvm/Transforms/InstCombine/InstCombine.h"
#include "llvm/Transforms/Scalar/DeadStoreElimination.h"
#include "llvm/Transforms/Scalar/EarlyCSE.h"
#include "llvm/Transforms/Scalar/GVN.h"
#include "llvm/Transforms/Scalar/SROA.h"
#include "llvm/Transforms/Scalar/SimplifyCFG.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <set>

using namespace llvm;
using namespace kfuse;

static constexpr unsigned SharedAS = 3;

/// The special registers of each dimension, in the order of the index
/// symbols (KernelAnalysis.h): tid, ntid, ctaid, nctaid.
enum SregKind { Tid, Ntid, Ctaid, Nctaid };
static Intrinsic::ID sregOf(unsigned D, unsigned K) {
  return Intrinsic::ID(sregIntrinsic(int(K) + SymDimStride * int(D)));
}

namespace {
/// Where one carried buffer lives inside the fused kernel.
struct CarriedStorage {
  const Intermediate *I = nullptr;
  /// Forward: an alloca and an i1 "stored" flag per slot of the
  /// intermediate. Stage: the shared tile and its [1024 x i8] written flags.
  SmallVector<Value *, 4> Slot, Flag;
};

/// The (stage, access index) a clone's instruction is tagged with
/// (kfuse.access, kfuse.halo, kfuse.store), and back.
static MDNode *accessTag(LLVMContext &Ctx, unsigned Stage, unsigned Index) {
  Type *I32 = Type::getInt32Ty(Ctx);
  return MDNode::get(Ctx, {ConstantAsMetadata::get(ConstantInt::get(I32, Stage)),
                           ConstantAsMetadata::get(ConstantInt::get(I32, Index))});
}
static std::pair<unsigned, unsigned> accessOfTag(const MDNode *MD) {
  auto Get = [&](unsigned N) {
    return (unsigned)mdconst::extract<ConstantInt>(MD->getOperand(N))->getZExtValue();
  };
  return {Get(0), Get(1)};
}

class FusedKernelBuilder {
  Module &M;
  const FusionCandidate &C;
  LLVMContext &Ctx;
  Function *Fused = nullptr;
  unsigned AccessKind, GridKind, StoreKind, HaloKind;
  /// Where build() reports the stores the cleanup's DSE removed.
  std::vector<std::pair<unsigned, unsigned>> &Overwritten;
  std::map<unsigned, CarriedStorage> Storage;
  /// First fused-kernel argument of each stage.
  std::vector<unsigned> ArgBase;
  /// What each stage's parameters are bound to (see build()).
  std::vector<SmallVector<Value *, 8>> StageArgs;
  /// The fused kernel's argument of every carried buffer.
  SmallPtrSet<Value *, 4> CarriedBases;
  /// The dead-mask bit of each carried buffer whose stores the mask may
  /// skip, by the buffer's argument.
  DenseMap<const Value *, unsigned> DeadBitOf;
  /// Across granularities, each input whose records the block copies
  /// (FusionCandidate::GranInput), by value: its tile, and the byte offset
  /// of the block's first record.
  struct InputTile {
    const FusionCandidate::GranInput *In = nullptr;
    GlobalVariable *Tile = nullptr;
    Value *BlockOff = nullptr;
  };
  std::map<unsigned, InputTile> Inputs;
  /// Across granularities, each output whose records the block stores
  /// (FusionCandidate::GranOutput), by value: its tile, and the byte offset
  /// of the block's first record.
  struct OutputTile {
    const FusionCandidate::GranOutput *Out = nullptr;
    GlobalVariable *Tile = nullptr;
    Value *BlockOff = nullptr;
    uint64_t Bytes = 0;
  };
  std::map<unsigned, OutputTile> Outputs;
  /// Carried buffers that move through memory after all (their grid-stride
  /// loops were not jammed into one; see build()).
  std::set<unsigned> ThroughMemory;

public:
  const std::set<unsigned> &throughMemory() const { return ThroughMemory; }
  FusedKernelBuilder(Module &M, const FusionCandidate &C,
                     std::vector<std::pair<unsigned, unsigned>> &Overwritten)
      : M(M), C(C), Ctx(M.getContext()), AccessKind(Ctx.getMDKindID("kfuse.access")),
        GridKind(Ctx.getMDKindID("kfuse.grid")), StoreKind(Ctx.getMDKindID("kfuse.store")),
        HaloKind(Ctx.getMDKindID("kfuse.halo")),
        Overwritten(Overwritten) {}

  Function *build(FunctionAnalysisManager &FAM);

private:
  void createFunction();
  void createStorage(IRBuilder<> &B);
  bool copyInputs(IRBuilder<> &B);
  void createOutputs(IRBuilder<> &B);
  void copyOutputs(IRBuilder<> &B);
  void copyTail(IRBuilder<> &B, Value *Tid, Value *BlockOff, uint64_t Bytes, Value *Lim16,
                Value *Lim, unsigned Word, function_ref<void(Value *)> Copy);
  void rewriteOutputStore(StoreInst *SI, unsigned Stage, const Access &A, const OutputTile &T);
  GlobalVariable *blockTile(uint64_t Bytes, const Twine &Name);
  Value *recordOffset(IRBuilder<> &B, Value *Ptr, unsigned Stage, const Access &A,
                      Value *BlockOff, const Twine &Name);
  void rewriteInputLoad(LoadInst *LI, unsigned Stage, const Access &A, const InputTile &T);
  Value *barrier(IRBuilder<> &B);
  Value *sreg(IRBuilder<> &B, Intrinsic::ID ID);
  void versionOnDead(FunctionAnalysisManager &FAM);
  void markNoAlias();
  bool orderOneFallback();
  Value *inBlockOffset(Instruction *I, unsigned Stage, const Access &A);
  Value *tileOffset(Instruction *I, unsigned Stage, const Access &A, const Intermediate &In);
  Value *emitPoly(IRBuilder<> &B, const IndexPoly &P);
  Value *haloSlot(IRBuilder<> &B, const Intermediate &I);
  Value *gridSlot(IRBuilder<> &B, const Intermediate &I, ArrayRef<Value *> L);
  const Intermediate *haloOf(unsigned Stage) const;
  Function *haloClone(unsigned Stage, bool Grid);
  CallInst *splitStage(IRBuilder<> &B, unsigned Stage, CallInst *Call, Value *&Off);
  CallInst *granStage(IRBuilder<> &B, unsigned Stage, CallInst *Call);
  Function *cloneWithParams(Function &From, ArrayRef<Type *> Extra, const Twine &Name,
                            ValueToValueMapTy &VMap);
  void emitHalo(IRBuilder<> &B, unsigned Stage, ArrayRef<Value *> Args,
                SmallVectorImpl<CallInst *> &Calls, SmallVectorImpl<Function *> &Clones);
  void emitGridHalo(IRBuilder<> &B, const Intermediate &I, unsigned Stage,
                    ArrayRef<Value *> Args, SmallVectorImpl<CallInst *> &Calls,
                    SmallVectorImpl<Function *> &Clones);
  void rewriteHalo(Instruction &I, MDNode *Tag);
  Value *guardValue(Instruction *Store, Value *V);
  void rewriteStore(Instruction *SI, unsigned Stage, const Access &A, CarriedStorage &S,
                    unsigned K);
  void rewriteLoad(Instruction *LI, unsigned Stage, const Access &A, CarriedStorage &S,
                   unsigned K);
  void cleanup(FunctionAnalysisManager &FAM);
  void keepLaunchBounds();
};
} // namespace

void FusedKernelBuilder::createFunction() {
  SmallVector<Type *, 16> Params;
  for (unsigned S = 0; S < C.size(); ++S) {
    ArgBase.push_back(Params.size());
    for (Argument &A : C.Stages[S]->Body->args())
      Params.push_back(A.getType());
  }
  // Split: each launch's grid.x, before the dead mask, which stays last.
  if (C.Split)
    Params.append(C.size(), Type::getInt32Ty(Ctx));
  Params.push_back(Type::getInt64Ty(Ctx));
  auto *FTy = FunctionType::get(Type::getVoidTy(Ctx), Params, false);
  Fused = Function::Create(FTy, GlobalValue::ExternalLinkage, C.Name, M);
  Fused->setCallingConv(CallingConv::PTX_Kernel);
  Function *F0 = C.Stages[0]->F;
  for (StringRef Attr : {"target-cpu", "target-features", "uniform-work-group-size"})
    if (F0->hasFnAttribute(Attr))
      Fused->addFnAttr(F0->getFnAttribute(Attr));
  Fused->addFnAttr(Attribute::NoUnwind);
  if (C.Tpi.empty())
    keepLaunchBounds();
  for (unsigned S = 0; S < C.size(); ++S)
    for (unsigned P = 0; P < C.Stages[S]->Params.size(); ++P)
      Fused->getArg(ArgBase[S] + P)->setName("l" + Twine(S) + ".p" + Twine(P));
  // A struct passed by value stays one: the launch passes its bytes, not
  // an address (`.param .align 2 .b8 p[4]` for a `__half2`).
  for (unsigned S = 0; S < C.size(); ++S)
    for (Argument &A : C.Stages[S]->Body->args()) {
      if (!A.hasByValAttr())
        continue;
      unsigned I = ArgBase[S] + A.getArgNo();
      Fused->addParamAttr(I, Attribute::getWithByValType(Ctx, A.getParamByValType()));
      if (MaybeAlign Al = A.getParamAlign())
        Fused->addParamAttr(I, Attribute::getWithAlignment(Ctx, *Al));
    }
  if (C.Split)
    for (unsigned S = 0; S < C.size(); ++S)
      Fused->getArg(Params.size() - 1 - C.size() + S)->setName("l" + Twine(S) + ".gx");
  Fused->getArg(Params.size() - 1)->setName("dead");
}

/// The members' launch bounds (`__launch_bounds__(T, B)`, `__maxnreg__(R)`:
/// nvvm.maxntid, nvvm.minctasm, nvvm.maxnreg), called at one granularity,
/// where the fused kernel runs in the members' own block, which meets every
/// member's bounds: it keeps the tightest of each, the fewest threads per
/// block and registers a member allows and the most blocks per SM a member
/// asks for, as a kernel fused by hand would. A bound of more than one
/// dimension (`"16,16"`) stays where every member that has it has the same.
/// Across granularities the fused block is a block of its own, which the
/// members' bounds do not describe: it keeps none.
void FusedKernelBuilder::keepLaunchBounds() {
  auto Merge = [&](StringRef Name, bool Most) {
    std::optional<unsigned> Value;
    std::string First;
    bool Scalar = true, Same = true;
    for (const auto &Stage : C.Stages) {
      if (!Stage->F->hasFnAttribute(Name))
        continue;
      StringRef Text = Stage->F->getFnAttribute(Name).getValueAsString();
      unsigned V;
      if (Text.getAsInteger(10, V))
        Scalar = false;
      else
        Value = !Value ? V : Most ? std::max(*Value, V) : std::min(*Value, V);
      if (First.empty())
        First = Text.str();
      else
        Same = Same && First == Text;
    }
    if (Scalar && Value)
      Fused->addFnAttr(Name, std::to_string(*Value));
    else if (!First.empty() && Same)
      Fused->addFnAttr(Name, First);
  };
  Merge("nvvm.maxntid", /*Most=*/false);
  Merge("nvvm.maxnreg", /*Most=*/false);
  Merge("nvvm.minctasm", /*Most=*/true);
}

/// An internal copy of \p From named \p Name that takes \p Extra parameters
/// after \p From's own, which nothing in it uses yet; \p VMap maps \p From's
/// values to the copy's.
Function *FusedKernelBuilder::cloneWithParams(Function &From, ArrayRef<Type *> Extra,
                                              const Twine &Name, ValueToValueMapTy &VMap) {
  SmallVector<Type *, 16> Params(From.getFunctionType()->params());
  Params.append(Extra.begin(), Extra.end());
  Function *H = Function::Create(FunctionType::get(Type::getVoidTy(Ctx), Params, false),
                                 GlobalValue::InternalLinkage, Name, M);
  for (Argument &A : From.args())
    VMap[&A] = H->getArg(A.getArgNo());
  SmallVector<ReturnInst *, 4> Returns;
  CloneFunctionInto(H, &From, VMap, CloneFunctionChangeType::LocalChangesOnly, Returns);
  H->setLinkage(GlobalValue::InternalLinkage);
  H->setCallingConv(CallingConv::C);
  return H;
}

/// Split: the blocks of stage \p Stage are ctaid.x in [Off, Off + gx), Off
/// the sum of the gx of the stages placed before it (advanced here). The
/// stage's call \p Call, just emitted, moves under that test, and its clone
/// is replaced by one that reads ctaid.x - Off and gx wherever the kernel
/// read ctaid.x and nctaid.x (KernelAnalysis refuses helpers that read
/// them). All the threads of a block take the same branch.
CallInst *FusedKernelBuilder::splitStage(IRBuilder<> &B, unsigned Stage, CallInst *Call,
                                         Value *&Off) {
  Function *Clone = Call->getCalledFunction();
  Value *Gx = Fused->getArg(Fused->arg_size() - 1 - C.size() + Stage);
  Value *Rel = B.CreateSub(sreg(B, Intrinsic::nvvm_read_ptx_sreg_ctaid_x), Off,
                           "kfuse.split.ctaid");
  BasicBlock *Run = BasicBlock::Create(Ctx, "kfuse.split", Fused);
  BasicBlock *Join = BasicBlock::Create(Ctx, "kfuse.split.join", Fused);
  B.CreateCondBr(B.CreateICmpULT(Rel, Gx), Run, Join);
  B.SetInsertPoint(Join);
  Off = B.CreateAdd(Off, Gx, "kfuse.split.off");

  unsigned N = Clone->arg_size();
  Type *I32 = Type::getInt32Ty(Ctx);
  ValueToValueMapTy VMap;
  Function *H = cloneWithParams(*Clone, {I32, I32}, Clone->getName() + ".split", VMap);
  for (Instruction &I : make_early_inc_range(instructions(*H)))
    if (auto *II = dyn_cast<IntrinsicInst>(&I)) {
      Value *To = nullptr;
      if (II->getIntrinsicID() == Intrinsic::nvvm_read_ptx_sreg_ctaid_x)
        To = H->getArg(N);
      else if (II->getIntrinsicID() == Intrinsic::nvvm_read_ptx_sreg_nctaid_x)
        To = H->getArg(N + 1);
      if (To) {
        II->replaceAllUsesWith(To);
        II->eraseFromParent();
      }
    }
  SmallVector<Value *, 16> Args(Call->args());
  Args.push_back(Rel);
  Args.push_back(Gx);
  IRBuilder<> R(Run);
  CallInst *New = R.CreateCall(H, Args);
  R.CreateBr(Join);
  Call->eraseFromParent();
  Clone->eraseFromParent();
  return New;
}

/// Across granularities (FusionCandidate::Tpi): stage \p Stage runs
/// Tpi * GranIpb threads, which its clone reads as blockDim.x, so that its
/// global index covers the same instances as the other stages' in every
/// block. Where they are fewer than the block's GranThreads, the stage's
/// call \p Call, just emitted, moves under the test tid.x < Tpi * GranIpb;
/// where they are more, the block's threads loop over them, GranThreads at
/// a time, and the clone reads the loop's counter as threadIdx.x. The code
/// after it (a barrier) runs in every thread.
CallInst *FusedKernelBuilder::granStage(IRBuilder<> &B, unsigned Stage, CallInst *Call) {
  unsigned Threads = C.Tpi[Stage] * C.GranIpb;
  Function *Clone = Call->getCalledFunction();
  for (Instruction &I : make_early_inc_range(instructions(*Clone)))
    if (auto *II = dyn_cast<IntrinsicInst>(&I);
        II && II->getIntrinsicID() == Intrinsic::nvvm_read_ptx_sreg_ntid_x) {
      II->replaceAllUsesWith(B.getInt32(Threads));
      II->eraseFromParent();
    }
  if (Threads == C.GranThreads)
    return Call;
  BasicBlock *Run = BasicBlock::Create(Ctx, "kfuse.gran", Fused);
  BasicBlock *Join = BasicBlock::Create(Ctx, "kfuse.gran.join", Fused);
  Value *Tid = sreg(B, Intrinsic::nvvm_read_ptx_sreg_tid_x);
  if (Threads < C.GranThreads) {
    Call->removeFromParent();
    B.CreateCondBr(B.CreateICmpULT(Tid, B.getInt32(Threads)), Run, Join);
    Call->insertInto(Run, Run->end());
    BranchInst::Create(Join, Run);
    B.SetInsertPoint(Join);
    return Call;
  }
  // for (v = tid.x; v < Threads; v += GranThreads) stage(v): the clone
  // takes v where it read tid.x.
  unsigned N = Clone->arg_size();
  Type *I32 = B.getInt32Ty();
  ValueToValueMapTy VMap;
  Function *H = cloneWithParams(*Clone, {I32}, Clone->getName() + ".loop", VMap);
  for (Instruction &I : make_early_inc_range(instructions(*H)))
    if (auto *II = dyn_cast<IntrinsicInst>(&I);
        II && II->getIntrinsicID() == Intrinsic::nvvm_read_ptx_sreg_tid_x) {
      II->replaceAllUsesWith(H->getArg(N));
      II->eraseFromParent();
    }
  BasicBlock *Pre = B.GetInsertBlock();
  B.CreateBr(Run);
  IRBuilder<> R(Run);
  PHINode *V = R.CreatePHI(I32, 2, "kfuse.gran.tid");
  V->addIncoming(Tid, Pre);
  SmallVector<Value *, 16> Args(Call->args());
  Args.push_back(V);
  CallInst *New = R.CreateCall(H, Args);
  Value *Next = R.CreateAdd(V, R.getInt32(C.GranThreads), "kfuse.gran.next");
  V->addIncoming(Next, Run);
  R.CreateCondBr(R.CreateICmpULT(Next, R.getInt32(Threads)), Run, Join);
  // Every thread runs the first round: GranThreads < Threads.
  Call->eraseFromParent();
  Clone->eraseFromParent();
  B.SetInsertPoint(Join);
  return New;
}

Value *FusedKernelBuilder::sreg(IRBuilder<> &B, Intrinsic::ID ID) {
  return B.CreateIntrinsic(B.getInt32Ty(), ID, ArrayRef<Value *>{});
}

Value *FusedKernelBuilder::barrier(IRBuilder<> &B) {
  return B.CreateIntrinsic(Intrinsic::nvvm_barrier_cta_sync_aligned_all, ArrayRef<Type *>{},
                           {B.getInt32(0)});
}

void FusedKernelBuilder::createStorage(IRBuilder<> &B) {
  bool Staged = false;
  for (const Intermediate &I : C.Carried) {
    CarriedStorage S;
    S.I = &I;
    if (I.Mech == Mechanism::Forward) {
      for (unsigned K = 0; K < I.Slots.size(); ++K) {
        std::string Name = "v" + std::to_string(I.Value) + "." + std::to_string(K);
        S.Slot.push_back(B.CreateAlloca(I.Slots[K].Ty, nullptr, "fwd." + Name));
        S.Flag.push_back(B.CreateAlloca(B.getInt1Ty(), nullptr, "fwd.set." + Name));
        B.CreateStore(B.getFalse(), S.Flag.back());
      }
    } else {
      std::string Base = C.Name + ".v" + std::to_string(I.Value);
      unsigned Elements = I.TileElements ? I.TileElements
                          : I.HaloGrid   ? GridTileElements
                                         : 1024 + I.HaloLo[0] + I.HaloHi[0];
      auto *TileTy = ArrayType::get(B.getInt8Ty(), Elements * I.Bytes);
      auto *Tile = new GlobalVariable(M, TileTy, false, GlobalValue::InternalLinkage,
                                      PoisonValue::get(TileTy), Base + ".tile", nullptr,
                                      GlobalValue::NotThreadLocal, SharedAS);
      Tile->setAlignment(Align(16));
      S.Slot.push_back(Tile);
      if (I.HaloExact) {
        Storage[I.Value] = S; // every element read is stored first: no flags
        continue;
      }
      auto *FlagTy = ArrayType::get(B.getInt8Ty(), Elements);
      auto *Flags = new GlobalVariable(M, FlagTy, false, GlobalValue::InternalLinkage,
                                       PoisonValue::get(FlagTy), Base + ".written", nullptr,
                                       GlobalValue::NotThreadLocal, SharedAS);
      S.Flag.push_back(Flags);
      // Each thread clears its own flag; the barrier below orders the clears
      // before any stage's stores. A 2-D or 3-D tile's slots are the
      // block's linear thread indices.
      Value *Tid =
          I.TileSlot.empty()
              ? B.CreateZExt(sreg(B, Intrinsic::nvvm_read_ptx_sreg_tid_x), B.getInt64Ty())
              : emitPoly(B, IndexPoly::symbol(symTid(0)) +
                                IndexPoly::symbol(symNtid(0)) *
                                    (IndexPoly::symbol(symTid(1)) +
                                     IndexPoly::symbol(symNtid(1)) * IndexPoly::symbol(symTid(2))));
      if (I.Mech == Mechanism::Halo) {
        // Slot Lo + tid is the thread's own element; the halo's slots, [0,
        // Lo) and [Lo + ntid, Lo + ntid + Hi), are cleared by the threads
        // that fill them (haloSlot), the others clearing their own again.
        Value *Own = B.CreateAdd(Tid, B.getInt64(I.HaloLo[0]));
        Value *Halo = B.CreateSelect(
            B.CreateICmpULT(Tid, B.getInt64(I.HaloLo[0] + I.HaloHi[0])), haloSlot(B, I), Own);
        B.CreateStore(B.getInt8(0), B.CreateInBoundsGEP(B.getInt8Ty(), Flags, Own));
        B.CreateStore(B.getInt8(0), B.CreateInBoundsGEP(B.getInt8Ty(), Flags, Halo));
      } else if (I.TileElements) {
        // Across granularities a tile may hold more elements than the block
        // has threads (each instance's record, read a field per thread by
        // fewer threads): each thread clears every Threads-th flag.
        unsigned Threads = C.GranThreads;
        for (unsigned K = 0; K < I.TileElements; K += Threads) {
          Value *Slot = B.CreateAdd(Tid, B.getInt64(K));
          if (K + Threads > I.TileElements)
            Slot = B.CreateBinaryIntrinsic(Intrinsic::umin, Slot, B.getInt64(I.TileElements - 1));
          B.CreateStore(B.getInt8(0), B.CreateInBoundsGEP(B.getInt8Ty(), Flags, Slot));
        }
      } else {
        B.CreateStore(B.getInt8(0), B.CreateInBoundsGEP(B.getInt8Ty(), Flags, Tid));
      }
      Staged = true;
    }
    Storage[I.Value] = S;
  }
  createOutputs(B);
  if (copyInputs(B) || Staged)
    barrier(B);
}

/// The tiles of FusionCandidate::GranOutputs: Bytes * r * GranIpb bytes,
/// the records of the block's instances, r the stage's threads per
/// instance.
void FusedKernelBuilder::createOutputs(IRBuilder<> &B) {
  if (C.GranOutputs.empty())
    return;
  Value *Ctaid = B.CreateZExt(sreg(B, Intrinsic::nvvm_read_ptx_sreg_ctaid_x), B.getInt64Ty());
  for (const FusionCandidate::GranOutput &Out : C.GranOutputs) {
    OutputTile &T = Outputs[Out.Value];
    T.Out = &Out;
    T.Bytes = uint64_t(Out.Bytes) * C.Tpi[Out.Stage] * C.GranIpb;
    T.Tile = blockTile(T.Bytes, C.Name + ".v" + std::to_string(Out.Value) + ".out");
    T.BlockOff = B.CreateMul(Ctaid, B.getInt64(T.Bytes), "kfuse.out.block");
  }
}

/// A static shared array of \p Bytes, 16-byte aligned, uninitialised.
GlobalVariable *FusedKernelBuilder::blockTile(uint64_t Bytes, const Twine &Name) {
  auto *TileTy = ArrayType::get(Type::getInt8Ty(Ctx), Bytes);
  auto *Tile = new GlobalVariable(M, TileTy, false, GlobalValue::InternalLinkage,
                                  PoisonValue::get(TileTy), Name, nullptr,
                                  GlobalValue::NotThreadLocal, SharedAS);
  Tile->setAlignment(Align(16));
  return Tile;
}

/// The byte of \p Ptr, an address stage \p Stage's access \p A forms,
/// in a tile of the block's records: its offset from the buffer's start
/// less \p BlockOff, the block's first record's.
Value *FusedKernelBuilder::recordOffset(IRBuilder<> &B, Value *Ptr, unsigned Stage,
                                        const Access &A, Value *BlockOff, const Twine &Name) {
  Type *I64 = B.getInt64Ty();
  Value *Base = B.CreatePtrToInt(StageArgs[Stage][A.Param], I64);
  return B.CreateSub(B.CreateSub(B.CreatePtrToInt(Ptr->stripPointerCasts(), I64), Base),
                     BlockOff, Name);
}

/// A store of an output the block stores (GranOutput::Stores) writes its
/// tile instead: the byte of its address less the block's first record.
void FusedKernelBuilder::rewriteOutputStore(StoreInst *SI, unsigned Stage, const Access &A,
                                            const OutputTile &T) {
  IRBuilder<> B(SI);
  Value *Off = recordOffset(B, SI->getPointerOperand(), Stage, A, T.BlockOff, "kfuse.out.off");
  uint64_t Al = std::min<uint64_t>({SI->getAlign().value(), T.Out->Word, MinAlign(T.Bytes, 16)});
  StoreInst *ToTile = B.CreateAlignedStore(
      SI->getValueOperand(), B.CreateInBoundsGEP(B.getInt8Ty(), T.Tile, Off), Align(Al));
  ToTile->copyMetadata(*SI, {LLVMContext::MD_tbaa});
  SI->eraseFromParent();
}

/// After the last stage and a barrier, the block stores each output's tile
/// with consecutive threads: the tile's word at At goes to the buffer's
/// byte BlockOff + At where that lies below Lim = Bytes * n, n the
/// stage's bound: exactly the bytes the stage's threads below n wrote
/// (GranOutput), which are those of the block's threads of that stage.
void FusedKernelBuilder::copyOutputs(IRBuilder<> &B) {
  if (C.GranOutputs.empty())
    return;
  barrier(B);
  Type *I64 = B.getInt64Ty();
  Value *Tid = B.CreateZExt(sreg(B, Intrinsic::nvvm_read_ptx_sreg_tid_x), I64);
  unsigned Threads = C.GranThreads;
  for (const FusionCandidate::GranOutput &Out : C.GranOutputs) {
    const OutputTile &T = Outputs[Out.Value];
    Value *N = B.CreateSExtOrTrunc(Fused->getArg(ArgBase[Out.Stage] + Out.BoundParam), I64);
    Value *Lim = B.CreateMul(B.CreateBinaryIntrinsic(Intrinsic::smax, N, B.getInt64(0)),
                             B.getInt64(Out.Bytes), "kfuse.out.lim");
    Value *Global = B.CreateAddrSpaceCast(Fused->getArg(ArgBase[Out.Stage] + Out.Param),
                                          PointerType::get(Ctx, 1));
    // In 16-byte words below Lim16, Lim rounded down to one, then the
    // tail [Lim16, Lim) in Word ones (Out.Vector); else Word ones below Lim.
    const unsigned U = Out.Vector ? 16 : Out.Word;
    Value *Below =
        Out.Vector ? B.CreateAnd(Lim, B.getInt64(~uint64_t(15)), "kfuse.out.lim16") : Lim;
    Type *WordTy = copyWordType(Ctx, U);
    auto StoreWord = [&](Value *Mine, Value *At, Type *Ty, unsigned Al) {
      BasicBlock *Store = BasicBlock::Create(Ctx, "kfuse.out.store", Fused);
      BasicBlock *Next = BasicBlock::Create(Ctx, "kfuse.out.next", Fused);
      B.CreateCondBr(Mine, Store, Next);
      B.SetInsertPoint(Store);
      Value *W = B.CreateAlignedLoad(Ty, B.CreateInBoundsGEP(B.getInt8Ty(), T.Tile, At),
                                     Align(Al), "kfuse.out.word");
      Value *To = B.CreateAdd(T.BlockOff, At);
      B.CreateAlignedStore(W, B.CreateInBoundsGEP(B.getInt8Ty(), Global, To), Align(Al));
      B.CreateBr(Next);
      B.SetInsertPoint(Next);
    };
    for (uint64_t Off = 0; Off < T.Bytes; Off += uint64_t(Threads) * U) {
      Value *At = B.CreateAdd(B.CreateMul(Tid, B.getInt64(U)), B.getInt64(Off));
      Value *Mine = B.CreateICmpULT(B.CreateAdd(T.BlockOff, At), Below);
      if (Off + uint64_t(Threads) * U > T.Bytes)
        Mine = B.CreateAnd(Mine, B.CreateICmpULT(At, B.getInt64(T.Bytes)));
      StoreWord(Mine, At, WordTy, U);
    }
    if (Out.Vector)
      copyTail(B, Tid, T.BlockOff, T.Bytes, Below, Lim, Out.Word, [&](Value *At) {
        StoreWord(B.getTrue(), At, copyWordType(Ctx, Out.Word), Out.Word);
      });
  }
}

/// The words of a 16-byte block copy past its last whole word: bytes
/// [max(Lim16, BlockOff), min(Lim, BlockOff + Bytes)) of the buffer, fewer
/// than 16, one Word a thread, each handed to \p Copy as its offset in the
/// block's tile, under a branch on the thread's word being one of them.
void FusedKernelBuilder::copyTail(IRBuilder<> &B, Value *Tid, Value *BlockOff, uint64_t Bytes,
                                  Value *Lim16, Value *Lim, unsigned Word,
                                  function_ref<void(Value *)> Copy) {
  Value *Lo = B.CreateBinaryIntrinsic(Intrinsic::umax, Lim16, BlockOff);
  Value *Hi = B.CreateBinaryIntrinsic(Intrinsic::umin, Lim,
                                      B.CreateAdd(BlockOff, B.getInt64(Bytes)));
  Value *Idx = B.CreateAdd(Lo, B.CreateMul(Tid, B.getInt64(Word)), "kfuse.tail");
  BasicBlock *Do = BasicBlock::Create(Ctx, "kfuse.tail.copy", Fused);
  BasicBlock *Next = BasicBlock::Create(Ctx, "kfuse.tail.next", Fused);
  B.CreateCondBr(B.CreateICmpULT(Idx, Hi), Do, Next);
  B.SetInsertPoint(Do);
  Copy(B.CreateSub(Idx, BlockOff));
  B.CreateBr(Next);
  B.SetInsertPoint(Next);
}

/// Across granularities: the block copies the records of its instances of
/// each input of FusionCandidate::GranInputs into a tile of its own,
/// consecutive threads moving consecutive words, before the barrier that
/// precedes the first stage. The records it may read are those of the
/// instances below Lim = (n / r) * W bytes, n the bound and r the threads
/// per instance of the stage that reads every record's first and last
/// byte: so each thread's word is read at min(its offset, Lim - word), all
/// of the loads in one block and none behind a branch. The manifest guards
/// that no Lim is 0; the branch around the copy keeps it from reading
/// memory where one is all the same. \returns whether there is an input.
bool FusedKernelBuilder::copyInputs(IRBuilder<> &B) {
  if (C.GranInputs.empty())
    return false;
  Type *I64 = B.getInt64Ty();
  unsigned Threads = C.GranThreads;
  Value *Tid = B.CreateZExt(sreg(B, Intrinsic::nvvm_read_ptx_sreg_tid_x), I64);
  Value *Ctaid = B.CreateZExt(sreg(B, Intrinsic::nvvm_read_ptx_sreg_ctaid_x), I64);
  std::vector<Value *> Lim;
  Value *AllPositive = B.getTrue();
  for (const FusionCandidate::GranInput &In : C.GranInputs) {
    Value *N = B.CreateSExtOrTrunc(Fused->getArg(ArgBase[In.Stage] + In.BoundParam), I64);
    Value *Complete = B.CreateSDiv(B.CreateBinaryIntrinsic(Intrinsic::smax, N, B.getInt64(0)),
                                   B.getInt64(C.Tpi[In.Stage]), "kfuse.in.instances");
    Lim.push_back(B.CreateMul(Complete, B.getInt64(In.Record), "kfuse.in.lim"));
    AllPositive = B.CreateAnd(AllPositive, B.CreateICmpSGT(Lim.back(), B.getInt64(0)));
  }
  for (size_t K = 0; K < C.GranInputs.size(); ++K) {
    const FusionCandidate::GranInput &In = C.GranInputs[K];
    uint64_t Bytes = uint64_t(In.Record) * C.GranIpb;
    InputTile &T = Inputs[In.Value];
    T.In = &In;
    T.Tile = blockTile(Bytes, C.Name + ".v" + std::to_string(In.Value) + ".in");
    T.BlockOff = B.CreateMul(Ctaid, B.getInt64(Bytes), "kfuse.in.block");
  }
  BasicBlock *Copy = BasicBlock::Create(Ctx, "kfuse.in.copy", Fused);
  BasicBlock *Join = BasicBlock::Create(Ctx, "kfuse.in.join", Fused);
  B.CreateCondBr(AllPositive, Copy, Join);
  B.SetInsertPoint(Copy);
  // Every load first, then the stores: a thread's words are in flight
  // together.
  // An input copied in 16-byte words (GranInput::Vector) reads them below
  // Lim16, Lim rounded down to one (at least 16: Lim >= Record > 16), each
  // at min(its offset, Lim16 - 16), and stores those below Lim16; its tail
  // [Lim16, Lim) follows in Word ones.
  struct Word {
    const InputTile *T;
    Value *At, *V;
    bool Partial;
    Value *Below; ///< a 16-byte word's store only below Lim16
  };
  std::vector<Word> Words;
  std::vector<Value *> Lim16(C.GranInputs.size(), nullptr);
  for (size_t K = 0; K < C.GranInputs.size(); ++K) {
    const FusionCandidate::GranInput &In = C.GranInputs[K];
    const InputTile &T = Inputs[In.Value];
    uint64_t Bytes = uint64_t(In.Record) * C.GranIpb;
    const unsigned U = In.Vector ? 16 : In.Word;
    Type *WordTy = copyWordType(Ctx, U);
    Value *Base = Fused->getArg(ArgBase[In.Stage] + In.Param);
    Value *Global = B.CreateAddrSpaceCast(Base, PointerType::get(Ctx, 1));
    if (In.Vector)
      Lim16[K] = B.CreateAnd(Lim[K], B.getInt64(~uint64_t(15)), "kfuse.in.lim16");
    Value *Last = B.CreateSub(In.Vector ? Lim16[K] : Lim[K], B.getInt64(U));
    for (uint64_t Off = 0; Off < Bytes; Off += uint64_t(Threads) * U) {
      Value *At = B.CreateAdd(B.CreateMul(Tid, B.getInt64(U)), B.getInt64(Off));
      Value *From = B.CreateBinaryIntrinsic(Intrinsic::umin, B.CreateAdd(T.BlockOff, At), Last);
      LoadInst *L = B.CreateAlignedLoad(WordTy, B.CreateInBoundsGEP(B.getInt8Ty(), Global, From),
                                        Align(U), "kfuse.in.word");
      L->setMetadata(LLVMContext::MD_invariant_load, MDNode::get(Ctx, {}));
      Words.push_back({&T, At, L, Off + uint64_t(Threads) * U > Bytes,
                       In.Vector ? B.CreateICmpULT(B.CreateAdd(T.BlockOff, At), Lim16[K])
                                 : nullptr});
    }
  }
  for (const Word &W : Words) {
    uint64_t Bytes = uint64_t(W.T->In->Record) * C.GranIpb;
    BasicBlock *Next = nullptr;
    Value *Mine = W.Partial ? B.CreateICmpULT(W.At, B.getInt64(Bytes)) : nullptr;
    if (W.Below)
      Mine = Mine ? B.CreateAnd(Mine, W.Below) : W.Below;
    if (Mine) {
      BasicBlock *Store = BasicBlock::Create(Ctx, "kfuse.in.store", Fused);
      Next = BasicBlock::Create(Ctx, "kfuse.in.next", Fused);
      B.CreateCondBr(Mine, Store, Next);
      B.SetInsertPoint(Store);
    }
    B.CreateAlignedStore(W.V, B.CreateInBoundsGEP(B.getInt8Ty(), W.T->Tile, W.At),
                         Align(W.T->In->Vector ? 16 : W.T->In->Word));
    if (Next) {
      B.CreateBr(Next);
      B.SetInsertPoint(Next);
    }
  }
  for (size_t K = 0; K < C.GranInputs.size(); ++K) {
    const FusionCandidate::GranInput &In = C.GranInputs[K];
    if (!In.Vector)
      continue;
    const InputTile &T = Inputs[In.Value];
    Value *Global = B.CreateAddrSpaceCast(Fused->getArg(ArgBase[In.Stage] + In.Param),
                                          PointerType::get(Ctx, 1));
    copyTail(B, Tid, T.BlockOff, uint64_t(In.Record) * C.GranIpb, Lim16[K], Lim[K], In.Word,
             [&](Value *At) {
               Type *Ty = copyWordType(Ctx, In.Word);
               LoadInst *L = B.CreateAlignedLoad(
                   Ty, B.CreateInBoundsGEP(B.getInt8Ty(), Global, B.CreateAdd(T.BlockOff, At)),
                   Align(In.Word), "kfuse.in.tail");
               L->setMetadata(LLVMContext::MD_invariant_load, MDNode::get(Ctx, {}));
               B.CreateAlignedStore(L, B.CreateInBoundsGEP(B.getInt8Ty(), T.Tile, At),
                                    Align(In.Word));
             });
  }
  B.CreateBr(Join);
  B.SetInsertPoint(Join);
  return true;
}

/// A load of an input the block copied, in its thread's instance's record
/// (GranInput::Direct), reads the tile: the manifest guards that the block
/// copied every instance such loads touch, and no stage writes the input
/// (the runtime checks it disjoint from every buffer the group writes).
void FusedKernelBuilder::rewriteInputLoad(LoadInst *LI, unsigned Stage, const Access &A,
                                          const InputTile &T) {
  IRBuilder<> B(LI);
  Value *Off = recordOffset(B, LI->getPointerOperand(), Stage, A, T.BlockOff, "kfuse.in.off");
  // The tile's byte Off and the input's byte at the load's address have
  // the same alignment up to the input's start and the block's first byte.
  uint64_t Al = std::min<uint64_t>({LI->getAlign().value(), T.In->BaseAlign,
                                    MinAlign(uint64_t(T.In->Record) * C.GranIpb, 16)});
  LoadInst *FromTile = B.CreateAlignedLoad(
      LI->getType(), B.CreateInBoundsGEP(B.getInt8Ty(), T.Tile, Off), Align(Al), "kfuse.in");
  LI->replaceAllUsesWith(FromTile);
  LI->eraseFromParent();
}

/// L of Offset = Bytes*ctaid*ntid + L, computed from the address itself.
Value *FusedKernelBuilder::inBlockOffset(Instruction *I, unsigned Stage, const Access &A) {
  IRBuilder<> B(I);
  // The generic address: through `__ldg`'s cast to the global space too.
  Value *Ptr = B.CreatePtrToInt(accessPointer(*I)->stripPointerCasts(), B.getInt64Ty());
  Value *Base = B.CreatePtrToInt(StageArgs[Stage][A.Param], B.getInt64Ty());
  Value *Ctaid = B.CreateZExt(sreg(B, Intrinsic::nvvm_read_ptx_sreg_ctaid_x), B.getInt64Ty());
  Value *Ntid = B.CreateZExt(sreg(B, Intrinsic::nvvm_read_ptx_sreg_ntid_x), B.getInt64Ty());
  Value *BlockBase = B.CreateMul(B.CreateMul(Ctaid, Ntid), B.getInt64(A.Bytes));
  return B.CreateSub(B.CreateSub(Ptr, Base), BlockBase, "kfuse.local");
}

/// \p P, a polynomial in the thread and block coordinates and extents, as
/// an i64 computed from the special registers.
Value *FusedKernelBuilder::emitPoly(IRBuilder<> &B, const IndexPoly &P) {
  Value *Sum = B.getInt64(0);
  for (auto &[M, K] : P.Terms) {
    Value *T = B.getInt64(K);
    for (int S : M) {
      assert(S < SymParam0 && S != SymIter && S != SymOuterIter && "a coordinate or an extent");
      T = B.CreateMul(T, B.CreateZExt(sreg(B, sregOf(symDim(S), S % SymDimStride)),
                                      B.getInt64Ty()));
    }
    Sum = B.CreateAdd(Sum, T);
  }
  return Sum;
}

/// The tile slot of the element thread tid.x < Lo+Hi recomputes for the
/// halo of \p I: for tid.x < Lo the element Lo - tid.x places before the
/// block's first, slot tid.x; else the element tid.x - Lo places after its
/// last, slot ntid.x + tid.x. The block's own element k is in slot Lo + k.
Value *FusedKernelBuilder::haloSlot(IRBuilder<> &B, const Intermediate &I) {
  Value *T = B.CreateZExt(sreg(B, Intrinsic::nvvm_read_ptx_sreg_tid_x), B.getInt64Ty());
  Value *NT = B.CreateZExt(sreg(B, Intrinsic::nvvm_read_ptx_sreg_ntid_x), B.getInt64Ty());
  return B.CreateSelect(B.CreateICmpULT(T, B.getInt64(I.HaloLo[0])), T, B.CreateAdd(NT, T),
                        "kfuse.haloslot");
}

/// A halo buffer stage \p Stage stores, or null; all of a stage's halo
/// buffers have the same Lo and Hi (Legality.cpp).
const Intermediate *FusedKernelBuilder::haloOf(unsigned Stage) const {
  for (const Intermediate &I : C.Carried)
    if (I.Mech == Mechanism::Halo && I.HaloStage == Stage)
      return &I;
  return nullptr;
}

/// A private clone of stage \p Stage's body that runs as another thread:
/// more i32 parameters, that thread's tid.x and ctaid.x (with \p Grid, its
/// tid.x, .y, .z and ctaid.x, .y, .z, then the i64 tile slot of its
/// element), replace every read of those registers (Legality.cpp checked
/// that the functions it calls read none). Its accesses are tagged
/// kfuse.halo; with \p Grid its stores of the stage's halo buffers go to
/// their tiles' slot here.
Function *FusedKernelBuilder::haloClone(unsigned Stage, bool Grid) {
  const KernelInfo &K = *C.Stages[Stage];
  unsigned N = K.Body->arg_size();
  SmallVector<Type *, 7> Extra(Grid ? 6 : 2, Type::getInt32Ty(Ctx));
  if (Grid)
    Extra.push_back(Type::getInt64Ty(Ctx));
  ValueToValueMapTy VMap;
  Function *H = cloneWithParams(*K.Body, Extra, C.Name + ".halo" + Twine(Stage), VMap);
  H->removeFnAttr(Attribute::NoInline);
  for (unsigned Idx = 0; Idx < K.Accesses.size(); ++Idx)
    cast<Instruction>(VMap[K.Accesses[Idx].Inst])->setMetadata(HaloKind, accessTag(Ctx, Stage, Idx));
  for (Instruction &I : make_early_inc_range(instructions(*H)))
    if (auto *II = dyn_cast<IntrinsicInst>(&I)) {
      // Parameters N.. are tid.x(, .y, .z), then ctaid.x(, .y, .z).
      Value *To = nullptr;
      for (unsigned D = 0; D < (Grid ? 3u : 1u); ++D) {
        if (II->getIntrinsicID() == sregOf(D, Tid))
          To = H->getArg(N + D);
        if (II->getIntrinsicID() == sregOf(D, Ctaid))
          To = H->getArg(N + (Grid ? 3 : 1) + D);
      }
      if (To) {
        II->replaceAllUsesWith(To);
        II->eraseFromParent();
      }
    }
  if (!Grid)
    return H;
  for (unsigned Idx = 0; Idx < K.Accesses.size(); ++Idx) {
    const Access &A = K.Accesses[Idx];
    auto It = Storage.find(C.arg(Stage, A.Param));
    if (It == Storage.end() || It->second.I->Mech != Mechanism::Halo)
      continue;
    const Intermediate &In = *It->second.I;
    auto *AI = cast<Instruction>(VMap[A.Inst]);
    IRBuilder<> B(AI);
    if (A.IsStore) {
      Value *V = guardValue(AI, memoryAccessOf(*AI)->Stored);
      B.SetInsertPoint(AI);
      Value *Off = B.CreateMul(H->getArg(N + 6), B.getInt64(In.Bytes));
      B.CreateAlignedStore(V, B.CreateInBoundsGEP(B.getInt8Ty(), It->second.Slot[0], Off),
                           Align(In.Bytes));
      AI->eraseFromParent();
      continue;
    }
    // A halo buffer of an earlier stage, recomputed for this frame too
    // (Legality.cpp's growHalos): the cell the virtual thread reads, from
    // its coordinates relative to the block, (ctaid' - ctaid) * ntid + tid'
    // in each dimension, shifted as the read is, in that buffer's tile.
    const std::array<int64_t, 3> &Shift = In.HaloShift.at(&A);
    Value *L[3];
    for (unsigned D = 0; D < 3; ++D)
      L[D] = B.CreateAdd(
          B.CreateAdd(B.CreateMul(B.CreateSub(H->getArg(N + 3 + D), sreg(B, sregOf(D, Ctaid))),
                                  sreg(B, sregOf(D, Ntid))),
                      H->getArg(N + D)),
          B.getInt32(uint32_t(Shift[D])));
    Value *Off = B.CreateMul(B.CreateZExt(gridSlot(B, In, L), B.getInt64Ty()), B.getInt64(In.Bytes));
    Value *Tile = B.CreateAlignedLoad(AI->getType(),
                                      B.CreateInBoundsGEP(B.getInt8Ty(), It->second.Slot[0], Off),
                                      Align(In.Bytes), "kfuse.tile");
    AI->replaceAllUsesWith(Tile);
    AI->eraseFromParent();
  }
  return H;
}

/// The tile slot, an i32, of in-block coordinates \p L (i32, each relative
/// to the block's first element, in [-Lo_d, ntid.d + Hi_d)) of the 2-D or
/// 3-D halo buffer \p I: its box is ntid.x + Lo_x + Hi_x elements wide and
/// ntid.y + Lo_y + Hi_y high, and holds at most GridTileElements.
Value *FusedKernelBuilder::gridSlot(IRBuilder<> &B, const Intermediate &I, ArrayRef<Value *> L) {
  Value *Slot = B.getInt32(0);
  for (unsigned D = 3; D-- > 0;) {
    Value *Width = B.CreateAdd(sreg(B, sregOf(D, Ntid)), B.getInt32(I.HaloLo[D] + I.HaloHi[D]));
    Slot = B.CreateAdd(B.CreateMul(Slot, Width), B.CreateAdd(L[D], B.getInt32(I.HaloLo[D])));
  }
  return Slot;
}

/// After stage \p Stage's call: the threads tid.x < Lo+Hi run the stage
/// again as the thread of the neighbouring block whose element is the
/// halo's slot haloSlot() (the slot its stores then find from their
/// addresses): for tid.x < Lo, thread ntid.x + tid.x - Lo of
/// block ctaid.x - 1, else thread tid.x - Lo of block ctaid.x + 1, where
/// that block exists (an element no launched thread stores keeps its flag
/// clear, and its readers read memory, as unfused). Every thread reaches
/// the barrier that follows.
void FusedKernelBuilder::emitHalo(IRBuilder<> &B, unsigned Stage, ArrayRef<Value *> Args,
                                  SmallVectorImpl<CallInst *> &Calls,
                                  SmallVectorImpl<Function *> &Clones) {
  const Intermediate *I = haloOf(Stage);
  if (!I)
    return;
  if (I->HaloGrid)
    return emitGridHalo(B, *I, Stage, Args, Calls, Clones);
  Value *T = sreg(B, Intrinsic::nvvm_read_ptx_sreg_tid_x);
  Value *NT = sreg(B, Intrinsic::nvvm_read_ptx_sreg_ntid_x);
  Value *Cta = sreg(B, Intrinsic::nvvm_read_ptx_sreg_ctaid_x);
  Value *NCta = sreg(B, Intrinsic::nvvm_read_ptx_sreg_nctaid_x);
  Value *Lo = B.getInt32(I->HaloLo[0]);
  Value *Left = B.CreateICmpULT(T, Lo);
  Value *HaloCta = B.CreateSelect(Left, B.CreateSub(Cta, B.getInt32(1)),
                                  B.CreateAdd(Cta, B.getInt32(1)), "kfuse.halo.ctaid");
  Value *HaloTid = B.CreateSelect(Left, B.CreateSub(B.CreateAdd(NT, T), Lo), B.CreateSub(T, Lo),
                                  "kfuse.halo.tid");
  Value *Run = B.CreateAnd(B.CreateICmpULT(T, B.getInt32(I->HaloLo[0] + I->HaloHi[0])),
                           B.CreateICmpULT(HaloCta, NCta), "kfuse.halo.run");
  BasicBlock *Then = BasicBlock::Create(Ctx, "kfuse.halo", Fused);
  BasicBlock *Join = BasicBlock::Create(Ctx, "kfuse.halo.join", Fused);
  B.CreateCondBr(Run, Then, Join);
  B.SetInsertPoint(Then);
  Function *H = haloClone(Stage, /*Grid=*/false);
  SmallVector<Value *, 16> HArgs(Args.begin(), Args.end());
  HArgs.push_back(HaloTid);
  HArgs.push_back(HaloCta);
  Calls.push_back(B.CreateCall(H, HArgs));
  Clones.push_back(H);
  B.CreateBr(Join);
  B.SetInsertPoint(Join);
}

/// After stage \p Stage's call, for the 2-D or 3-D halo buffer \p I: the
/// block's threads take the cells of the frame around the block's box in
/// turn (frame cell t, t + nthreads, ...), and for each whose block is one
/// of the launch's, run the stage again as that cell's thread, into the
/// cell's tile slot. The frame, plane by plane: Lo_z whole planes of the
/// widened box, then ntid.z planes of Lo_y whole rows, ntid.y rows of Lo_x
/// and Hi_x cells, and Hi_y whole rows, then Hi_z whole planes. A cell at
/// in-block coordinate v_d in [-Lo_d, ntid.d + Hi_d) is thread v_d - q *
/// ntid.d of block ctaid.d + q, q = -1, 0 or 1 (the manifest guards Lo_d,
/// Hi_d <= ntid.d). Every thread leaves the loop and reaches the barrier
/// that follows.
void FusedKernelBuilder::emitGridHalo(IRBuilder<> &B, const Intermediate &I, unsigned Stage,
                                      ArrayRef<Value *> Args, SmallVectorImpl<CallInst *> &Calls,
                                      SmallVectorImpl<Function *> &Clones) {
  // All 32-bit: a tile holds GridTileElements.
  Type *I32 = B.getInt32Ty();
  auto Reg = [&](unsigned D, SregKind K) { return sreg(B, sregOf(D, K)); };
  auto C32 = [&](uint64_t V) { return B.getInt32(uint32_t(V)); };
  const unsigned *Lo = I.HaloLo, *Hi = I.HaloHi;
  Value *Tid[3], *Ntid[3], *Width[3];
  for (unsigned D = 0; D < 3; ++D) {
    Tid[D] = Reg(D, SregKind::Tid);
    Ntid[D] = Reg(D, SregKind::Ntid);
    Width[D] = B.CreateAdd(Ntid[D], C32(Lo[D] + Hi[D]));
  }
  Value *First = B.CreateAdd(Tid[0], B.CreateMul(Ntid[0], B.CreateAdd(Tid[1], B.CreateMul(Ntid[1], Tid[2]))));
  Value *Step = B.CreateMul(B.CreateMul(Ntid[0], Ntid[1]), Ntid[2]);
  // Cells per whole plane, per plane's frame, and in all.
  Value *Plane = B.CreateMul(Width[0], Width[1]);
  Value *TopRows = B.CreateMul(C32(Lo[1]), Width[0]);
  Value *Sides = B.CreateMul(Ntid[1], C32(Lo[0] + Hi[0]));
  Value *Frame = B.CreateAdd(B.CreateAdd(TopRows, Sides), B.CreateMul(C32(Hi[1]), Width[0]));
  Value *Before = B.CreateMul(C32(Lo[2]), Plane);
  Value *Middle = B.CreateMul(Ntid[2], Frame);
  Value *Total = B.CreateAdd(B.CreateAdd(Before, Middle), B.CreateMul(C32(Hi[2]), Plane));
  BasicBlock *Pre = B.GetInsertBlock();
  BasicBlock *Head = BasicBlock::Create(Ctx, "kfuse.halo.loop", Fused);
  BasicBlock *Cell = BasicBlock::Create(Ctx, "kfuse.halo.cell", Fused);
  BasicBlock *Run = BasicBlock::Create(Ctx, "kfuse.halo", Fused);
  BasicBlock *Next = BasicBlock::Create(Ctx, "kfuse.halo.next", Fused);
  BasicBlock *Exit = BasicBlock::Create(Ctx, "kfuse.halo.join", Fused);
  B.CreateBr(Head);
  B.SetInsertPoint(Head);
  PHINode *H = B.CreatePHI(I32, 2, "kfuse.halo.cell");
  H->addIncoming(First, Pre);
  B.CreateCondBr(B.CreateICmpULT(H, Total), Cell, Exit);
  B.SetInsertPoint(Cell);
  // The cell's widened-box coordinates (cx, cy, cz), from 0: in the whole
  // planes before or after the box (with a z halo), or in a plane's frame
  // (with an x or y halo).
  bool HasZ = Lo[2] + Hi[2] > 0, HasXY = Lo[0] + Hi[0] + Lo[1] + Hi[1] > 0;
  Value *CX = nullptr, *CY = nullptr, *CZ = nullptr;
  Value *InPlanes = HasXY ? nullptr : B.getTrue();
  if (HasZ) {
    Value *InBefore = B.CreateICmpULT(H, Before);
    Value *After = B.CreateSub(H, B.CreateAdd(Before, Middle));
    Value *PlaneCell = B.CreateSelect(InBefore, H, After);
    Value *PZ = B.CreateUDiv(PlaneCell, Plane);
    Value *PR = B.CreateURem(PlaneCell, Plane);
    CX = B.CreateURem(PR, Width[0]);
    CY = B.CreateUDiv(PR, Width[0]);
    CZ = B.CreateSelect(InBefore, PZ, B.CreateAdd(PZ, B.CreateAdd(Ntid[2], C32(Lo[2]))));
    if (HasXY)
      InPlanes = B.CreateOr(InBefore, B.CreateICmpUGE(H, B.CreateAdd(Before, Middle)));
  }
  if (HasXY) {
    // Rows above, the sides of the box's rows, rows below.
    Value *M = B.CreateSub(H, Before);
    Value *MZ = B.CreateAdd(B.CreateUDiv(M, Frame), C32(Lo[2]));
    Value *F = B.CreateURem(M, Frame);
    Value *InTop = B.CreateICmpULT(F, TopRows);
    Value *InBottom = B.CreateICmpUGE(F, B.CreateAdd(TopRows, Sides));
    Value *Row = B.CreateSelect(InTop, F, B.CreateSub(F, B.CreateAdd(TopRows, Sides)));
    Value *RY = B.CreateUDiv(Row, Width[0]);
    Value *RX = B.CreateURem(Row, Width[0]);
    RY = B.CreateSelect(InTop, RY, B.CreateAdd(RY, B.CreateAdd(Ntid[1], C32(Lo[1]))));
    Value *FX = RX, *FY = RY;
    if (Lo[0] + Hi[0]) {
      Value *Side = B.CreateSub(F, TopRows);
      Value *SY = B.CreateAdd(B.CreateUDiv(Side, C32(Lo[0] + Hi[0])), C32(Lo[1]));
      Value *SC = B.CreateURem(Side, C32(Lo[0] + Hi[0]));
      Value *SX = B.CreateSelect(B.CreateICmpULT(SC, C32(Lo[0])), SC, B.CreateAdd(SC, Ntid[0]));
      Value *InRows = B.CreateOr(InTop, InBottom);
      FX = B.CreateSelect(InRows, RX, SX);
      FY = B.CreateSelect(InRows, RY, SY);
    }
    CX = HasZ ? B.CreateSelect(InPlanes, CX, FX) : FX;
    CY = HasZ ? B.CreateSelect(InPlanes, CY, FY) : FY;
    CZ = HasZ ? B.CreateSelect(InPlanes, CZ, MZ) : MZ;
  }
  Value *CXYZ[3] = {CX, CY, CZ};
  Value *V[3], *NewTid[3], *NewCta[3], *Inside = B.getTrue();
  for (unsigned D = 0; D < 3; ++D) {
    V[D] = B.CreateSub(CXYZ[D], C32(Lo[D]));
    if (Lo[D] + Hi[D] == 0) { // a thread of this block's in this dimension
      NewTid[D] = V[D];
      NewCta[D] = Reg(D, SregKind::Ctaid);
      continue;
    }
    Value *Q = B.CreateSelect(B.CreateICmpSLT(V[D], C32(0)), C32(-1),
                              B.CreateZExt(B.CreateICmpUGE(V[D], Ntid[D]), I32));
    NewCta[D] = B.CreateAdd(Reg(D, SregKind::Ctaid), Q, "kfuse.halo.ctaid");
    NewTid[D] = B.CreateSub(V[D], B.CreateMul(Q, Ntid[D]), "kfuse.halo.tid");
    // A block of the launch: 0 <= ctaid.d + q < nctaid.d.
    Inside = B.CreateAnd(Inside, B.CreateICmpULT(NewCta[D], Reg(D, SregKind::Nctaid)));
  }
  B.CreateCondBr(Inside, Run, Next);
  B.SetInsertPoint(Run);
  Function *Clone = haloClone(Stage, /*Grid=*/true);
  SmallVector<Value *, 16> HArgs(Args.begin(), Args.end());
  HArgs.append(NewTid, NewTid + 3);
  HArgs.append(NewCta, NewCta + 3);
  HArgs.push_back(B.CreateZExt(gridSlot(B, I, V), B.getInt64Ty()));
  Calls.push_back(B.CreateCall(Clone, HArgs));
  Clones.push_back(Clone);
  B.CreateBr(Next);
  B.SetInsertPoint(Next);
  H->addIncoming(B.CreateAdd(H, Step), Next);
  B.CreateBr(Head);
  B.SetInsertPoint(Exit);
}

/// An access of a halo recomputation: its store of a halo buffer fills the
/// tile slot instead (the element's own block stores it to memory), every
/// other store goes (its own thread makes it), its loads of an earlier
/// stage's halo buffer read that tile, and its other loads, all of buffers
/// no stage writes, are invariant.
void FusedKernelBuilder::rewriteHalo(Instruction &I, MDNode *Tag) {
  auto [Stage, Index] = accessOfTag(Tag);
  const Access &A = C.Stages[Stage]->Accesses[Index];
  I.setMetadata(HaloKind, nullptr);
  if (!A.IsStore) {
    // A halo buffer of an earlier stage, recomputed for this halo too
    // (Legality.cpp's growHalos): the address, formed from the virtual
    // thread's coordinates, finds the element in that stage's tile.
    if (auto It = Storage.find(C.arg(Stage, A.Param)); It != Storage.end()) {
      assert(It->second.I->Mech == Mechanism::Halo && "a recomputed stage reads halo tiles only");
      rewriteLoad(&I, Stage, A, It->second, 0);
      return;
    }
    if (isa<LoadInst>(I))
      I.setMetadata(LLVMContext::MD_invariant_load, MDNode::get(Ctx, {}));
    if (auto *CB = dyn_cast<CallBase>(&I))
      CB->setMemoryEffects(MemoryEffects::argMemOnly(ModRefInfo::Ref));
    return;
  }
  // Its store's address, formed from the virtual thread's coordinates, is
  // its element's: the store to the tile is the producer's own.
  auto It = Storage.find(C.arg(Stage, A.Param));
  if (It != Storage.end() && It->second.I->Mech == Mechanism::Halo)
    rewriteStore(&I, Stage, A, It->second, 0);
  I.eraseFromParent();
}

/// The byte offset of \p I's element in its staging tile: the in-block
/// offset of the address (1-D), or the slot Legality.cpp found for the
/// access times the element size (2-D and 3-D).
Value *FusedKernelBuilder::tileOffset(Instruction *I, unsigned Stage, const Access &A,
                                      const Intermediate &In) {
  if (In.Mech == Mechanism::Halo && In.HaloGrid) {
    // A thread's own accesses (a recomputation's stores were placed by
    // haloClone): its tid shifted by the access's shift.
    IRBuilder<> B(I);
    auto It = In.HaloShift.find(&A);
    Value *L[3];
    for (unsigned D = 0; D < 3; ++D)
      L[D] = B.CreateAdd(sreg(B, sregOf(D, Tid)),
                         B.getInt32(It == In.HaloShift.end() ? 0 : It->second[D]));
    return B.CreateMul(B.CreateZExt(gridSlot(B, In, L), B.getInt64Ty()),
                       B.getInt64(In.Bytes), "kfuse.halo");
  }
  if (In.Mech == Mechanism::Halo) {
    Value *L = inBlockOffset(I, Stage, A);
    IRBuilder<> B(I);
    return B.CreateAdd(L, B.getInt64(uint64_t(In.HaloLo[0]) * In.Bytes), "kfuse.halo");
  }
  if (In.TileElements) {
    // Across granularities: the block's instances are the tile's
    // TileElements elements from the block's first, whatever thread, real
    // or looped over (granStage), makes the access.
    IRBuilder<> B(I);
    Type *I64 = B.getInt64Ty();
    Value *Ptr = B.CreatePtrToInt(accessPointer(*I)->stripPointerCasts(), I64);
    Value *Base = B.CreatePtrToInt(StageArgs[Stage][A.Param], I64);
    Value *Ctaid = B.CreateZExt(sreg(B, Intrinsic::nvvm_read_ptx_sreg_ctaid_x), I64);
    Value *First = B.CreateMul(Ctaid, B.getInt64(uint64_t(In.TileElements) * In.Bytes));
    return B.CreateSub(B.CreateSub(Ptr, Base), First, "kfuse.local");
  }
  auto It = In.TileSlot.find(&A);
  if (It == In.TileSlot.end())
    return inBlockOffset(I, Stage, A);
  IRBuilder<> B(I);
  return B.CreateMul(emitPoly(B, It->second), B.getInt64(In.Bytes), "kfuse.local");
}

/// The value that crosses the old boundary keeps the rounding it had when it
/// went through memory. Two things could change it: LLVM contracting the
/// producer's last operation with a consumer operation (the fence stops that),
/// and ptxas doing the same with a plain `mul.f32`/`mul.f64`/`mul.f16`, which
/// is what NVPTX prints for every multiply under clang's default
/// -ffp-contract=fast, whatever the instruction's own flags say, and what
/// cuda_fp16.h's and cuda_bf16.h's `__hmul` write in their asm. So a
/// forwarded product is recomputed as an explicit round-to-nearest multiply
/// (`mul.rn`), which ptxas never contracts; the original multiply stays for
/// the producer's own uses, so the producer contracts internally exactly as it
/// did unfused. Products of an fneg are handled the same way; sums and
/// differences need nothing, since a contraction needs the multiply on the
/// producing side. A value computed by inline asm is opaque to LLVM; its
/// copy with `mul.rn` (roundedAsmCopy) crosses instead where its text
/// multiplies without a rounding mode.
Value *FusedKernelBuilder::guardValue(Instruction *Store, Value *V) {
  IRBuilder<> B(Store);
  if (auto *CI = dyn_cast<CallInst>(V); CI && CI->isInlineAsm())
    if (CallInst *Rounded = roundedAsmCopy(*CI))
      V = Rounded;
  if (!V->getType()->isFPOrFPVectorTy())
    return V;
  Value *Crossing = V;
  Instruction *Neg = nullptr;
  // A value fenced already (a twin's value that crossed a helper's call,
  // HelperInline.cpp) is still the product it fences.
  for (auto *II = dyn_cast<IntrinsicInst>(V); II && II->getIntrinsicID() == Intrinsic::arithmetic_fence;
       II = dyn_cast<IntrinsicInst>(V))
    V = II->getArgOperand(0);
  Value *Prod = V;
  if (auto *N = dyn_cast<UnaryOperator>(V); N && N->getOpcode() == Instruction::FNeg) {
    Neg = N;
    Prod = N->getOperand(0);
  }
  if (auto *Mul = dyn_cast<BinaryOperator>(Prod); Mul && Mul->getOpcode() == Instruction::FMul) {
    Value *Exact = roundedProduct(B, Mul);
    if (Exact)
      Crossing = Neg ? B.CreateFNeg(Exact) : Exact;
    else
      Mul->setHasAllowContract(false); // vectors: at least keep LLVM from contracting
  }
  return B.CreateArithmeticFence(Crossing, Crossing->getType(), "kfuse.fence");
}

/// \p Mul's product rounded to nearest by an instruction ptxas does not
/// contract: the NVVM intrinsics for float and double, PTX asm for half and
/// bfloat (`fma.rn.bf16` with a -0.0 addend is the product, rounded once, on
/// sm_80 too). Null for vectors.
Value *kfuse::roundedProduct(IRBuilder<> &B, BinaryOperator *Mul) {
  Type *Ty = Mul->getType();
  Value *X = Mul->getOperand(0), *Y = Mul->getOperand(1);
  if (Ty->isFloatTy()) {
    bool FTZ = Mul->getFunction()->getDenormalMode(APFloat::IEEEsingle()).Output ==
               DenormalMode::PreserveSign;
    return B.CreateIntrinsic(FTZ ? Intrinsic::nvvm_mul_rn_ftz_f : Intrinsic::nvvm_mul_rn_f, {},
                             {X, Y}, nullptr, "kfuse.rn");
  }
  if (Ty->isDoubleTy())
    return B.CreateIntrinsic(Intrinsic::nvvm_mul_rn_d, {}, {X, Y}, nullptr, "kfuse.rn");
  if (!Ty->isHalfTy() && !Ty->isBFloatTy())
    return nullptr;
  Type *I16 = B.getInt16Ty();
  auto *FTy = FunctionType::get(I16, {I16, I16}, false);
  const char *Text = Ty->isHalfTy()
                         ? "mul.rn.f16 $0, $1, $2;"
                         : "{ .reg .b16 z; mov.b16 z, 0x8000; fma.rn.bf16 $0, $1, $2, z; }";
  Value *R = B.CreateCall(InlineAsm::get(FTy, Text, "=h,h,h", false),
                          {B.CreateBitCast(X, I16), B.CreateBitCast(Y, I16)}, "kfuse.rn");
  return B.CreateBitCast(R, Ty);
}

/// Rewrites a store to carried buffer S; K is the forward slot (0 for a
/// staged buffer).
void FusedKernelBuilder::rewriteStore(Instruction *SI, unsigned Stage, const Access &A,
                                      CarriedStorage &S, unsigned K) {
  const Intermediate &I = *S.I;
  Value *V = guardValue(SI, memoryAccessOf(*SI)->Stored);
  IRBuilder<> B(SI);
  if (I.Mech == Mechanism::Forward) {
    B.CreateStore(V, S.Slot[K]);
    B.CreateStore(B.getTrue(), S.Flag[K]);
  } else {
    Value *L = tileOffset(SI, Stage, A, I);
    B.SetInsertPoint(SI);
    B.CreateAlignedStore(V, B.CreateInBoundsGEP(B.getInt8Ty(), S.Slot[K], L), Align(I.Bytes));
    if (!S.Flag.empty()) {
      Value *Elt = B.CreateUDiv(L, B.getInt64(I.Bytes));
      B.CreateStore(B.getInt8(1), B.CreateInBoundsGEP(B.getInt8Ty(), S.Flag[K], Elt));
    }
  }
  if (I.DeadBit >= 0)
    DeadBitOf[StageArgs[Stage][A.Param]] = I.DeadBit;
}

/// Rewrites a load (or a cache-hint asm load, which stays as it is on the
/// fallback path, its hint kept) from carried buffer S.
void FusedKernelBuilder::rewriteLoad(Instruction *LI, unsigned Stage, const Access &A,
                                     CarriedStorage &S, unsigned K) {
  const Intermediate &I = *S.I;
  IRBuilder<> B(LI);
  if (S.Flag.empty()) {
    // An exact halo: the element is in the tile.
    Value *L = tileOffset(LI, Stage, A, I);
    B.SetInsertPoint(LI);
    Value *Tile = B.CreateAlignedLoad(LI->getType(), B.CreateInBoundsGEP(B.getInt8Ty(), S.Slot[K], L),
                                      Align(I.Bytes), "kfuse.tile");
    LI->replaceAllUsesWith(Tile);
    LI->eraseFromParent();
    return;
  }
  Value *Set, *Elt = nullptr, *L = nullptr;
  if (I.Mech == Mechanism::Forward) {
    Set = B.CreateLoad(B.getInt1Ty(), S.Flag[K], "kfuse.set");
  } else {
    L = tileOffset(LI, Stage, A, I);
    B.SetInsertPoint(LI);
    Elt = B.CreateUDiv(L, B.getInt64(I.Bytes));
    Set = B.CreateICmpNE(
        B.CreateLoad(B.getInt8Ty(), B.CreateInBoundsGEP(B.getInt8Ty(), S.Flag[K], Elt)),
        B.getInt8(0), "kfuse.set");
  }
  Instruction *ThenT, *ElseT;
  SplitBlockAndInsertIfThenElse(Set, LI, &ThenT, &ElseT);
  B.SetInsertPoint(ThenT);
  Value *Fwd =
      I.Mech == Mechanism::Forward
          ? B.CreateLoad(LI->getType(), S.Slot[K], "kfuse.fwd")
          : B.CreateAlignedLoad(LI->getType(), B.CreateInBoundsGEP(B.getInt8Ty(), S.Slot[K], L),
                                Align(I.Bytes), "kfuse.tile");
  BasicBlock *Tail = LI->getParent();
  LI->moveBefore(ElseT->getIterator());
  PHINode *Phi = PHINode::Create(LI->getType(), 2, "kfuse.val");
  Phi->insertBefore(Tail->begin());
  LI->replaceAllUsesWith(Phi);
  Phi->addIncoming(Fwd, ThenT->getParent());
  Phi->addIncoming(LI, ElseT->getParent());
}

/// Specialises the body on the dead mask, after the cleanup has dropped the
/// stores a later stage overwrites: one copy for the mask with every bit
/// set, the usual case where the buffers are dead, without those stores
/// (nor the work that only fed them), and one for any other mask, which
/// keeps every store, untested. The mask is a kernel parameter, so every
/// thread takes the same copy and a staged group's barriers stay uniform.
///
/// A mask with some bits set but not all takes the copy that stores every
/// buffer: its dead buffers are written, which costs bandwidth but changes
/// no result. The alternatives cost more. Testing each bit before its store
/// puts a branch around the store, a region ptxas does not predicate; a
/// divergent warp then runs whichever side ptxas puts first, and where the
/// other side loads the same lines the stores can wait for those loads
/// (bench/ldst_order.cu: 476 us with such a test, 150 us without;
/// bench/HISTORY.md, GPU runs 13 and 14). The tested body alone ran
/// shallow_water 10 % slower (its 13..20 kernel with every bit set 427 us
/// against 355 us: 37 registers against 32, so 6 blocks per SM against 8)
/// and mapped_f 2 % slower (GPU runs 54 and 57). A third copy with the
/// tests, for the masks with some bits set, was within noise of these two
/// on every program measured, and cost half as much again in compilation:
/// each copy is code that the back end and ptxas compile, and ptxas's work
/// grows with the code it is given (bench/compile-work.sh: shallow_water's
/// fused kernels 1519 million instructions with three copies, 570 with the
/// tested body alone).
void FusedKernelBuilder::versionOnDead(FunctionAnalysisManager &FAM) {
  uint64_t All = 0;
  for (auto &[Arg, Bit] : DeadBitOf)
    All |= uint64_t(1) << Bit;
  if (!All)
    return;
  Argument *Dead = Fused->getArg(Fused->arg_size() - 1);
  BasicBlock *Entry = &Fused->getEntryBlock();
  auto Split = Entry->begin();
  while (isa<AllocaInst>(*Split))
    ++Split;
  BasicBlock *Body = Entry->splitBasicBlock(Split, "body");

  SmallVector<BasicBlock *, 32> Orig;
  for (BasicBlock &BB : *Fused)
    if (&BB != Entry)
      Orig.push_back(&BB);
  auto Copy = [&](uint64_t Mask, const char *Suffix) {
    ValueToValueMapTy VMap;
    VMap[Dead] = ConstantInt::get(Dead->getType(), Mask);
    SmallVector<BasicBlock *, 32> Copies;
    for (BasicBlock *BB : Orig) {
      BasicBlock *C = CloneBasicBlock(BB, VMap, Suffix, Fused);
      VMap[BB] = C;
      Copies.push_back(C);
    }
    remapInstructionsInBlocks(Copies, VMap);
    return std::make_pair(cast<BasicBlock>(VMap[Body]), Copies);
  };
  auto [Kept, KeptBlocks] = Copy(0, ".kept");
  auto [None, NoneBlocks] = Copy(All, ".dead");
  SmallVector<Instruction *, 8> DeadStores;
  for (BasicBlock *BB : NoneBlocks)
    for (Instruction &I : *BB)
      if (auto M = memoryAccessOf(I); M && M->IsStore)
        if (DeadBitOf.count(getUnderlyingObject(M->Ptr)))
          DeadStores.push_back(&I);
  for (Instruction *I : DeadStores)
    I->eraseFromParent();

  Entry->getTerminator()->eraseFromParent();
  IRBuilder<> B(Entry);
  B.CreateCondBr(B.CreateICmpEQ(Dead, B.getInt64(All), "kfuse.alldead"), None, Kept);
  DeleteDeadBlocks(Orig);
  cleanup(FAM);
}

/// Marks every pointer parameter noalias. Before each fused launch the
/// runtime checks that distinct buffers of the group, one of them written,
/// do not overlap in what the group accesses (the manifest's `disjoint`
/// lines, disjointPairs()), and a value passed again reaches the stages as
/// its first argument only: that is what noalias states, for the memory the
/// kernel reaches through its parameters. So the optimiser keeps a loaded
/// value across a store to another buffer, and drops a store that a later
/// stage overwrites at the same element (DSE in cleanup()). The fact says
/// nothing about memory reached otherwise, so where an access's address may
/// come from anything but a parameter, a local or the shared or constant
/// space (a __device__ variable, a pointer loaded from memory), or a call
/// may touch memory it does not name, no parameter is marked.
void FusedKernelBuilder::markNoAlias() {
  auto Known = [&](const Value *Ptr) {
    SmallVector<const Value *, 4> Objs;
    getUnderlyingObjects(Ptr, Objs, nullptr, 0);
    return llvm::all_of(Objs, [&](const Value *O) {
      if (const auto *A = dyn_cast<Argument>(O))
        return A->getParent() == Fused;
      if (isa<AllocaInst>(O))
        return true;
      const auto *GV = dyn_cast<GlobalVariable>(O);
      return GV && (GV->getAddressSpace() == SharedAS || GV->getAddressSpace() == 4 ||
                    GV->isConstant());
    });
  };
  for (Instruction &I : instructions(*Fused)) {
    if (!I.mayReadOrWriteMemory())
      continue;
    if (auto M = memoryAccessOf(I)) {
      if (!Known(M->Ptr))
        return;
      continue;
    }
    if (auto *II = dyn_cast<IntrinsicInst>(&I)) {
      // A barrier, a vote or a shuffle names no memory; a barrier orders
      // accesses, it reaches none itself.
      if (II->isConvergent() && llvm::none_of(II->args(), [](const Use &U) {
            return U->getType()->isPointerTy();
          }))
        continue;
      switch (II->getIntrinsicID()) {
      case Intrinsic::lifetime_start:
      case Intrinsic::lifetime_end:
      case Intrinsic::assume:
      case Intrinsic::experimental_noalias_scope_decl:
        continue;
      default:
        break;
      }
    }
    if (isa<FenceInst>(I))
      continue;
    auto *CB = dyn_cast<CallBase>(&I);
    if (CB && CB->onlyAccessesArgMemory() &&
        llvm::all_of(CB->args(), [&](const Use &U) {
          return !U->getType()->isPointerTy() || Known(U.get());
        }))
      continue;
    if (auto *RMW = dyn_cast<AtomicRMWInst>(&I); RMW && Known(RMW->getPointerOperand()))
      continue;
    if (auto *CX = dyn_cast<AtomicCmpXchgInst>(&I); CX && Known(CX->getPointerOperand()))
      continue;
    return;
  }
  for (Argument &A : Fused->args())
    if (A.getType()->isPointerTy())
      A.addAttr(Attribute::NoAlias);
}

namespace {
/// The blocks of a single-entry region: everything reachable from \p Head
/// before \p Merge. Empty when \p Head is \p Merge, when the region has a
/// second entry, or when it holds a convergent intrinsic (moving one would
/// change which threads meet at it). Inline asm and calls of defined
/// functions are convergent for clang too, but the kernel analysis accepted
/// only asm and callees without a collective (CallEffects.cpp): they may move.
SmallVector<BasicBlock *, 8> regionBlocks(BasicBlock *Head, BasicBlock *Merge,
                                          const DominatorTree &DT) {
  SmallVector<BasicBlock *, 8> Blocks;
  if (Head == Merge || !Head->getSinglePredecessor())
    return Blocks;
  SmallPtrSet<BasicBlock *, 8> Seen{Head};
  Blocks.push_back(Head);
  for (unsigned I = 0; I < Blocks.size(); ++I) {
    BasicBlock *BB = Blocks[I];
    if (!DT.dominates(Head, BB))
      return {};
    for (Instruction &Inst : *BB)
      if (auto *CB = dyn_cast<IntrinsicInst>(&Inst); CB && CB->isConvergent())
        return {};
    for (BasicBlock *Succ : successors(BB))
      if (Succ != Merge && Seen.insert(Succ).second)
        Blocks.push_back(Succ);
  }
  return Blocks;
}

/// Whether \p Blocks hold a load (\p Loads) or a store (otherwise), plain or
/// cache-hint asm, whose address lies in buffer \p Base.
bool accessesBuffer(ArrayRef<BasicBlock *> Blocks, const Value *Base, bool Loads) {
  for (BasicBlock *BB : Blocks)
    for (Instruction &I : *BB)
      if (auto M = memoryAccessOf(I);
          M && M->IsStore != Loads && getUnderlyingObject(M->Ptr) == Base)
        return true;
  return false;
}
} // namespace

/// Puts a carried buffer's store before the fallback load that shares a
/// branch with it. After GVN a consumer's `if (c) t[i] = v; r = t[i];` is a
/// diamond: one side stores t, the other loads t where this thread stored
/// nothing. A divergent warp runs the side that falls through in the PTX
/// first, and where that is the load, the other lanes' stores to the same
/// lines issue while the load is in flight and wait for it: a group 3.6
/// times slower than its launches (bench/HISTORY.md, GPU run 13;
/// bench/ldst_order.cu). Each thread runs one side only, so running them one
/// after the other, the store side first, computes the same:
///
///   H: br c, S, F        H: br c, S, J
///   S: ... br M    =>    S: ... br J
///   F: ... br M          J: br c, M, F      (phis of S's values)
///                        F: ... br M
///
/// J post-dominates H, so a divergent warp reconverges there before any of
/// its lanes reaches the load: the stores issue first however ptxas lays out
/// the blocks (checked in SASS, GPU run 15). Rewrites one branch; returns
/// false when none is left.
bool FusedKernelBuilder::orderOneFallback() {
  if (CarriedBases.empty())
    return false;
  DominatorTree DT(*Fused);
  PostDominatorTree PDT(*Fused);
  for (Instruction &I : instructions(*Fused)) {
    auto M = memoryAccessOf(I);
    Instruction *LI = M && !M->IsStore ? &I : nullptr;
    const Value *Base = LI ? getUnderlyingObject(M->Ptr) : nullptr;
    if (!Base || !CarriedBases.contains(Base))
      continue;
    DomTreeNode *Node = DT.getNode(LI->getParent());
    for (DomTreeNode *N = Node ? Node->getIDom() : nullptr; N; N = N->getIDom()) {
      BasicBlock *H = N->getBlock();
      auto *Br = dyn_cast<BranchInst>(H->getTerminator());
      if (!Br || !Br->isConditional() || Br->getSuccessor(0) == Br->getSuccessor(1))
        continue;
      BasicBlock *M = PDT.findNearestCommonDominator(Br->getSuccessor(0), Br->getSuccessor(1));
      if (!M)
        continue;
      unsigned LoadSide = DT.dominates(Br->getSuccessor(0), LI->getParent()) ? 0 : 1;
      BasicBlock *F = Br->getSuccessor(LoadSide), *S = Br->getSuccessor(1 - LoadSide);
      if (!DT.dominates(F, LI->getParent()))
        continue;
      SmallVector<BasicBlock *, 8> SBlocks = regionBlocks(S, M, DT);
      SmallVector<BasicBlock *, 8> FBlocks = regionBlocks(F, M, DT);
      if (SBlocks.empty() || FBlocks.empty() || !accessesBuffer(SBlocks, Base, false) ||
          accessesBuffer(SBlocks, Base, true))
        continue;

      BasicBlock *J = BasicBlock::Create(Ctx, "kfuse.ordered", Fused, F);
      SmallPtrSet<BasicBlock *, 8> InS(SBlocks.begin(), SBlocks.end());
      for (PHINode &Phi : M->phis()) {
        PHINode *JPhi = PHINode::Create(Phi.getType(), 0, "kfuse.side", J);
        for (unsigned K = Phi.getNumIncomingValues(); K-- > 0;)
          if (InS.contains(Phi.getIncomingBlock(K))) {
            JPhi->addIncoming(Phi.getIncomingValue(K), Phi.getIncomingBlock(K));
            Phi.removeIncomingValue(K, false);
          }
        JPhi->addIncoming(PoisonValue::get(Phi.getType()), H);
        Phi.addIncoming(JPhi, J);
      }
      for (BasicBlock *BB : SBlocks)
        BB->getTerminator()->replaceSuccessorWith(M, J);
      Br->setSuccessor(LoadSide, J);
      F->replacePhiUsesWith(H, J);
      Value *C = Br->getCondition();
      if (LoadSide == 0)
        BranchInst::Create(F, M, C, J);
      else
        BranchInst::Create(M, F, C, J);
      return true;
    }
  }
  return false;
}

void FusedKernelBuilder::cleanup(FunctionAnalysisManager &FAM) {
  // The body changed by hand since any analysis of it was cached.
  FAM.invalidate(*Fused, PreservedAnalyses::none());
  FunctionPassManager FPM;
  FPM.addPass(SROAPass(SROAOptions::ModifyCFG));
  FPM.addPass(EarlyCSEPass(true));
  FPM.addPass(InstCombinePass());
  FPM.addPass(SimplifyCFGPass());
  FPM.addPass(GVNPass());
  FPM.run(*Fused, FAM);
  // The stages' stores still tagged (build()) before DSE; those it deletes
  // are overwritten by a later stage's store to the same element (or store
  // what the element already holds), which the remarks report.
  struct Tagged {
    WeakVH I;
    unsigned Stage, Index;
  };
  std::vector<Tagged> Before;
  for (Instruction &I : instructions(*Fused))
    if (MDNode *MD = I.getMetadata(StoreKind)) {
      auto [Stage, Index] = accessOfTag(MD);
      Before.push_back({WeakVH(&I), Stage, Index});
    }
  FunctionPassManager DSE;
  DSE.addPass(DSEPass());
  DSE.run(*Fused, FAM);
  for (const Tagged &T : Before)
    if (!T.I)
      Overwritten.emplace_back(T.Stage, T.Index);
  llvm::sort(Overwritten);
  Overwritten.erase(std::unique(Overwritten.begin(), Overwritten.end()), Overwritten.end());
  for (Instruction &I : instructions(*Fused))
    I.setMetadata(StoreKind, nullptr);
  FunctionPassManager Late;
  Late.addPass(SimplifyCFGPass());
  Late.run(*Fused, FAM);
}

/// A grid-stride loop's `int` or `unsigned` variable kept in 64 bits
/// (GridStride::Narrow) read as the 64-bit variable it equals where the
/// manifest's guard holds (no value reaches 2^31, or 2^32): its extended
/// low half is the variable itself, and the latch tests the 64-bit next
/// value against n widened. The loop is then an affine recurrence like any
/// other, which jamGridLoops() can make one with the next stage's.
static void widenNarrowLoop(PHINode &IV, bool Unsigned) {
  using namespace PatternMatch;
  Function &F = *IV.getFunction();
  if (IV.getNumIncomingValues() != 2)
    return;
  SmallVector<Instruction *, 8> Halves;
  for (Instruction &I : instructions(F)) {
    bool Half = Unsigned ? match(&I, m_And(m_Specific(&IV), m_SpecificInt(0xffffffffULL))) ||
                               match(&I, m_ZExt(m_Trunc(m_Specific(&IV))))
                         : match(&I, m_AShr(m_Shl(m_Specific(&IV), m_SpecificInt(32)),
                                            m_SpecificInt(32))) ||
                               match(&I, m_SExt(m_Trunc(m_Specific(&IV))));
    if (Half && (isa<BinaryOperator>(I) ||
                 cast<Instruction>(I.getOperand(0))->getType()->isIntegerTy(32)))
      Halves.push_back(&I);
  }
  for (Instruction *I : Halves)
    I->replaceAllUsesWith(&IV);
  // The latch: the incoming block whose conditional branch tests the low
  // half of the next value, trunc(Next) <pred> n.
  for (unsigned K = 0; K < 2; ++K) {
    BasicBlock *Latch = IV.getIncomingBlock(K), *Pre = IV.getIncomingBlock(1 - K);
    auto *Br = dyn_cast<BranchInst>(Latch->getTerminator());
    auto *Cmp = Br && Br->isConditional() ? dyn_cast<ICmpInst>(Br->getCondition()) : nullptr;
    if (!Cmp || Cmp->isEquality() || Cmp->isSigned() == Unsigned)
      continue;
    Value *Next = IV.getIncomingValue(K), *N = nullptr;
    bool NextFirst = false;
    for (unsigned O = 0; O < 2; ++O)
      if (match(Cmp->getOperand(O), m_Trunc(m_Specific(Next))) &&
          Cmp->getOperand(O)->getType()->isIntegerTy(32)) {
        NextFirst = O == 0;
        N = Cmp->getOperand(1 - O);
      }
    // n widened in the preheader, invariant in the loop: a parameter, or a
    // field loaded in the entry block.
    auto *NI = dyn_cast_or_null<Instruction>(N);
    if (!N || (NI && NI->getParent() != &F.getEntryBlock()))
      continue;
    IRBuilder<> B(Pre->getTerminator());
    Value *Wide = Unsigned ? B.CreateZExt(N, Next->getType()) : B.CreateSExt(N, Next->getType());
    B.SetInsertPoint(Cmp);
    Br->setCondition(NextFirst ? B.CreateICmp(Cmp->getPredicate(), Next, Wide)
                               : B.CreateICmp(Cmp->getPredicate(), Wide, Next));
  }
}

/// A fused kernel whose launches all have integer grids and blocks runs in
/// x alone: its y and z coordinates read 0 and their extents 1. Said so in
/// the IR, an index written for any shape (cooperative groups'
/// `thread_rank()`, `grid.size()`) becomes the 1-D index the other stages
/// compute, so that their grid-stride loops are seen to be one
/// (jamGridLoops()) and the code computes no rank of y and z.
static void flattenToX(Function &F) {
  SmallVector<Instruction *, 16> Reads;
  for (Instruction &I : instructions(F))
    if (int Sym = sregSymbol(&I); Sym >= 0 && symDim(Sym) > 0)
      Reads.push_back(&I);
  for (Instruction *I : Reads) {
    I->replaceAllUsesWith(ConstantInt::get(I->getType(), isCoordinate(sregSymbol(I)) ? 0 : 1));
    I->eraseFromParent();
  }
}

/// Loads every field of a by-value parameter that the fused kernel only
/// reads once, in the entry block, for all the stages' loads of it: the
/// stages that read one struct read one copy of it (build()), and a
/// grid-stride loop bounded by its field (`i < p.n`) then has the same
/// bound as the next stage's loop, which jamGridLoops() compares, and a
/// field the next stage reads before its loop does not stand between the
/// two. Loading a parameter cannot fault, so the load may move there.
static void shareFields(Function &F) {
  const DataLayout &DL = F.getDataLayout();
  // In the order of the first load of each field: the output must not
  // depend on where in memory the IR lies.
  MapVector<std::tuple<Argument *, int64_t, Type *>, SmallVector<LoadInst *, 4>> Loads;
  for (Instruction &I : instructions(F)) {
    auto *LI = dyn_cast<LoadInst>(&I);
    if (!LI || !LI->isSimple())
      continue;
    APInt Off(DL.getIndexTypeSizeInBits(LI->getPointerOperandType()), 0);
    auto *A = dyn_cast<Argument>(
        LI->getPointerOperand()->stripAndAccumulateConstantOffsets(DL, Off, true));
    if (A && A->hasByValAttr() && !Off.isNegative() && readOnlyByVal(*A))
      Loads[{A, Off.getSExtValue(), LI->getType()}].push_back(LI);
  }
  IRBuilder<> B(F.getEntryBlock().getTerminator());
  for (auto &[Key, Group] : Loads) {
    auto [A, Off, Ty] = Key;
    Align Al = Group.front()->getAlign();
    for (LoadInst *LI : Group)
      Al = std::min(Al, LI->getAlign());
    LoadInst *One = B.CreateAlignedLoad(Ty, B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), A, Off),
                                        Al);
    for (LoadInst *LI : Group) {
      LI->replaceAllUsesWith(One);
      LI->eraseFromParent();
    }
  }
}

Function *FusedKernelBuilder::build(FunctionAnalysisManager &FAM) {
  createFunction();
  BasicBlock *Entry = BasicBlock::Create(Ctx, "entry", Fused);
  IRBuilder<> B(Entry);
  createStorage(B);
  // The stages start in a block of their own, so that the storage set-up
  // stays shared when the body is versioned on the dead mask (versionOnDead).
  BasicBlock *Body = BasicBlock::Create(Ctx, "body", Fused);
  B.CreateBr(Body);
  B.SetInsertPoint(Body);

  // One private clone per stage, its accesses tagged with (stage, index).
  SmallVector<CallInst *, 8> Calls;
  SmallVector<Function *, 8> Clones;
  std::map<unsigned, Value *> FirstArg;
  Value *SplitOff = B.getInt32(0);
  // Split: the stages' blocks in launch order, except that grid-stride
  // stages come first: their blocks each loop over many elements, and the
  // block scheduler starts blocks in order, so the long ones overlap the
  // short ones instead of running last, alone.
  SmallVector<unsigned, 8> Order;
  for (unsigned S = 0; S < C.size(); ++S)
    if (C.Split && C.Stages[S]->Grid)
      Order.push_back(S);
  for (unsigned S = 0; S < C.size(); ++S)
    if (!(C.Split && C.Stages[S]->Grid))
      Order.push_back(S);
  StageArgs.resize(C.size());
  for (unsigned S : Order) {
    const KernelInfo &K = *C.Stages[S];
    ValueToValueMapTy VMap;
    Function *Clone = CloneFunction(K.Body, VMap);
    Clone->setName(C.Name + ".stage" + Twine(S));
    Clone->setLinkage(GlobalValue::InternalLinkage);
    Clone->setCallingConv(CallingConv::C);
    Clone->removeFnAttr(Attribute::NoInline);
    // A struct by value that the stage only reads (ParamInfo::ByValShared)
    // is read from the fused kernel's own copy: inlining makes no copy of
    // it, and the stages' loads of one field load the same bytes
    // (shareFields).
    for (unsigned P = 0; P < K.Params.size(); ++P)
      if (K.Params[P].ByValShared)
        Clone->removeParamAttr(P, Attribute::ByVal);
    if (K.Grid && K.Grid->Narrow)
      widenNarrowLoop(*cast<PHINode>(VMap[K.Grid->IV]), K.Grid->Unsigned);
    if (K.Grid && !C.Split) // split stages run in different blocks: no jam
      cast<Instruction>(VMap[K.Grid->IV])
          ->setMetadata(GridKind, MDNode::get(Ctx, {ConstantAsMetadata::get(B.getInt32(S)),
                                                    ConstantAsMetadata::get(B.getInt32(0))}));
    if (K.Outer && !C.Split)
      cast<Instruction>(VMap[K.Outer->IV])
          ->setMetadata(GridKind, MDNode::get(Ctx, {ConstantAsMetadata::get(B.getInt32(S)),
                                                    ConstantAsMetadata::get(B.getInt32(1))}));
    for (unsigned Idx = 0; Idx < K.Accesses.size(); ++Idx) {
      auto *I = cast<Instruction>(VMap[K.Accesses[Idx].Inst]);
      I->setMetadata(AccessKind, accessTag(Ctx, S, Idx));
    }
    // A pointer, integer or shared struct value passed again is its first
    // occurrence (ParamInfo::merged): the manifest's `equal` lines make the
    // runtime check exactly these, and one
    // SSA value lets the optimiser see, say, that both stages have the same
    // bounds check, so the forwarded value needs no "was it stored" test.
    SmallVector<Value *, 8> Args;
    for (unsigned P = 0; P < K.Params.size(); ++P) {
      Value *Arg = Fused->getArg(ArgBase[S] + P);
      if (K.Params[P].merged()) {
        Value *&First = FirstArg[C.arg(S, P)];
        if (!First)
          First = Arg;
        else if (First->getType() == Arg->getType())
          Arg = First;
      }
      Args.push_back(Arg);
    }
    CallInst *Call = B.CreateCall(Clone, Args);
    if (C.Split) {
      Call = splitStage(B, S, Call, SplitOff);
      Clone = Call->getCalledFunction();
    }
    if (!C.Tpi.empty()) {
      Call = granStage(B, S, Call);
      Clone = Call->getCalledFunction();
    }
    Calls.push_back(Call);
    StageArgs[S] = Args;
    Clones.push_back(Clone);
    emitHalo(B, S, Args, Calls, Clones);
    if (C.BarrierAfter.count(S) && S + 1 < C.size())
      barrier(B);
  }
  copyOutputs(B);
  B.CreateRetVoid();
  for (CallInst *CI : Calls) {
    InlineFunctionInfo IFI;
    InlineResult R = InlineFunction(*CI, IFI);
    if (!R.isSuccess()) {
      Ctx.emitError("kfuse: cannot inline a stage into '" + C.Name +
                    "': " + R.getFailureReason());
      return Fused;
    }
  }
  for (Function *Clone : Clones)
    Clone->eraseFromParent();

  // Grid-stride stages: one loop where they run the same iterations.
  // (A nest's outer loop is tagged with level 1.)
  std::vector<PHINode *> IVs(C.size(), nullptr), OuterIVs(C.size(), nullptr);
  for (Instruction &I : instructions(*Fused))
    if (MDNode *MD = I.getMetadata(GridKind)) {
      auto Stage = mdconst::extract<ConstantInt>(MD->getOperand(0))->getZExtValue();
      bool Outer = !mdconst::extract<ConstantInt>(MD->getOperand(1))->isZero();
      (Outer ? OuterIVs : IVs)[Stage] = cast<PHINode>(&I);
      I.setMetadata(GridKind, nullptr);
    }
  shareFields(*Fused);
  if (llvm::all_of(llvm::seq(C.size()), [&](unsigned S) { return C.oneDimensional(S); }))
    flattenToX(*Fused);
  std::vector<int> Jam = jamGridLoops(*Fused, IVs, OuterIVs);
  // A buffer carried between grid-stride stages moves through registers only
  // within one jammed loop, whose iterations then reset its forward flags;
  // elsewhere a thread reads what it stored itself, through memory, and
  // every store stays.
  std::map<unsigned, int> LoopOf; // carried value -> first stage of its loop
  for (const Intermediate &I : C.Carried)
    for (unsigned S = 0; S < C.size(); ++S)
      for (const Access &A : C.Stages[S]->Accesses) {
        if (C.arg(S, A.Param) != I.Value || !A.Offset.uses(SymIter))
          continue;
        auto [It, New] = LoopOf.try_emplace(I.Value, Jam[S]);
        if (Jam[S] < 0 || It->second != Jam[S])
          ThroughMemory.insert(I.Value);
      }

  SmallVector<std::pair<Instruction *, MDNode *>, 16> HaloWork;
  for (Instruction &I : instructions(*Fused))
    if (MDNode *MD = I.getMetadata(HaloKind))
      HaloWork.push_back({&I, MD});
  for (auto [I, MD] : HaloWork)
    rewriteHalo(*I, MD);

  struct Tagged {
    Instruction *I;
    unsigned Stage;
    const Access *A;
  };
  std::vector<Tagged> Work;
  for (Instruction &I : instructions(*Fused))
    if (MDNode *MD = I.getMetadata(AccessKind)) {
      auto [Stage, Index] = accessOfTag(MD);
      Work.push_back({&I, Stage, &C.Stages[Stage]->Accesses[Index]});
    }
  for (Tagged &T : Work) {
    T.I->setMetadata(AccessKind, nullptr);
    if (isa<StoreInst>(T.I))
      T.I->setMetadata(StoreKind, accessTag(Ctx, T.Stage,
                                            unsigned(T.A - C.Stages[T.Stage]->Accesses.data())));
    // A buffer no stage writes is checked disjoint from every buffer the
    // group writes (disjointPairs), so nothing changes it while the fused
    // kernel runs: its loads may go through the read-only path
    // (ld.global.nc), which lets ptxas issue a later stage's loads before an
    // earlier stage's stores.
    if (isa<LoadInst>(T.I) && readOnlyValue(C, C.arg(T.Stage, T.A->Param)))
      T.I->setMetadata(LLVMContext::MD_invariant_load, MDNode::get(Ctx, {}));
    if (auto In = Inputs.find(C.arg(T.Stage, T.A->Param));
        In != Inputs.end() && In->second.In->Direct.count(T.A)) {
      rewriteInputLoad(cast<LoadInst>(T.I), T.Stage, *T.A, In->second);
      continue;
    }
    if (auto Out = Outputs.find(C.arg(T.Stage, T.A->Param));
        Out != Outputs.end() && Out->second.Out->Stores.count(T.A)) {
      rewriteOutputStore(cast<StoreInst>(T.I), T.Stage, *T.A, Out->second);
      continue;
    }
    // A cache-hint asm is memory(none) for LLVM where it has no memory
    // clobber, as clang marks every such asm; in one kernel with other
    // stages' accesses it must neither move across them nor, a store, go
    // away, so it says what it does: read or write through its pointer.
    if (auto *CB = dyn_cast<CallBase>(T.I))
      CB->setMemoryEffects(
          MemoryEffects::argMemOnly(T.A->IsStore ? ModRefInfo::Mod : ModRefInfo::Ref));
    auto It = Storage.find(C.arg(T.Stage, T.A->Param));
    if (It == Storage.end() || ThroughMemory.count(It->first))
      continue;
    CarriedStorage &S = It->second;
    CarriedBases.insert(StageArgs[T.Stage][T.A->Param]);
    int K = 0;
    if (S.I->Mech == Mechanism::Forward &&
        (K = FusionCandidate::slotOf(*S.I, C.valueOffset(T.Stage, *T.A))) < 0)
      continue; // a field no stage stores: it stays a load from memory
    if (T.A->IsStore)
      rewriteStore(T.I, T.Stage, *T.A, S, K);
    else
      rewriteLoad(T.I, T.Stage, *T.A, S, K);
  }
  for (auto &[V, Head] : LoopOf) {
    if (ThroughMemory.count(V) || !Storage.count(V))
      continue;
    IRBuilder<> H(&*IVs[Head]->getParent()->getFirstInsertionPt());
    for (Value *Flag : Storage[V].Flag)
      H.CreateStore(H.getFalse(), Flag);
  }
  markNoAlias();
  cleanup(FAM);
  versionOnDead(FAM);
  for (unsigned Round = 0; Round < 64 && orderOneFallback(); ++Round)
    ;
  // Vector cache-hint accesses the analysis saw as lanes are one access
  // again wherever their lanes still go together (an input's, a store's,
  // a fallback's), so the fused kernel keeps the width of the originals.
  joinLanes(*Fused);
  return Fused;
}

static cl::opt<bool> RecordStagingOpt(
    "kfuse-record-staging", cl::init(true),
    cl::desc("kfuse: let fused kernels load and store per-instance records (a thread's "
             "R*i .. R*i+R-1 bytes, R from 12 to 512) with consecutive threads through "
             "shared memory (default on)"));

/// The shared memory a fused kernel's staged records may take: what the
/// static limit leaves beside its other tiles and the launches' dynamic
/// shared memory, and no more than 32 KiB, so that a block of records does
/// not take an SM's shared memory alone.
static unsigned recordBudget(const FusionCandidate &C) {
  constexpr uint64_t StaticLimit = 48 * 1024, Cap = 32 * 1024;
  uint64_t Used = uint64_t(C.TileBytes) + C.DynShmem;
  return unsigned(Used >= StaticLimit ? 0 : std::min(Cap, StaticLimit - Used));
}

Function *kfuse::buildFusedKernel(Module &M, FusionCandidate &C,
                                  FunctionAnalysisManager &FAM) {
  C.Overwritten.clear();
  C.Staged.clear();
  C.RecordTileBytes = 0;
  std::vector<std::pair<unsigned, unsigned>> Overwritten;
  FusedKernelBuilder Builder(M, C, Overwritten);
  Function *F = Builder.build(FAM);
  C.Overwritten = std::move(Overwritten);
  C.ThroughMemory = Builder.throughMemory();
  // Across granularities the stages run on different threads, so no
  // record's accesses are reached by every thread of the block.
  if (RecordStagingOpt && C.Tpi.empty())
    C.Staged = stageRecords(*F, FAM, recordBudget(C), C.RecordTileBytes);
  return F;
}

/// A carried buffer is covered when no instruction of the cleaned fused
/// kernel may read it from memory: its loads all became the forwarded value,
/// because in each the flag was set on every path, that is, the same thread
/// stored that element earlier in the group. The fused kernel's parameters
/// are merged only where the Clang plugin's value numbers say two launch
/// arguments are one host expression, so what the proof used holds in every
/// execution of the run, and the original launches, run one by one, write
/// the same elements before reading them as the fused kernel does: whatever
/// the buffer held before the run is never read. The runtime relies on this
/// to skip the stores of a buffer only the run's next execution reads
/// (docs/runtime.md). A staged buffer's flags live in shared memory, which
/// the cleanup cannot see through: it is never covered, except a halo
/// buffer that has no flags because legality proved every element read is
/// stored first (Intermediate::HaloExact): its loads all read the tile.
void kfuse::markCovered(const Function &Fused, FusionCandidate &C) {
  DenseMap<const Argument *, unsigned> ValueOf;
  unsigned Base = 0;
  for (unsigned S = 0; S < C.size(); ++S) {
    for (unsigned P = 0; P < C.Stages[S]->Params.size(); ++P)
      ValueOf[Fused.getArg(Base + P)] = C.arg(S, P);
    Base += C.Stages[S]->Body->arg_size();
  }
  std::set<unsigned> Read;
  auto Note = [&](const Value *Ptr) {
    if (const auto *A = dyn_cast<Argument>(getUnderlyingObject(Ptr)))
      if (auto It = ValueOf.find(A); It != ValueOf.end())
        Read.insert(It->second);
  };
  bool Opaque = false;
  for (const Instruction &I : instructions(Fused)) {
    if (const auto *L = dyn_cast<LoadInst>(&I)) {
      Note(L->getPointerOperand());
    } else if (const auto *CB = dyn_cast<CallBase>(&I)) {
      if (CB->onlyWritesMemory() || CB->doesNotAccessMemory())
        continue;
      // The barrier between stages orders the block's accesses; it reads
      // no buffer itself.
      if (const auto *II = dyn_cast<IntrinsicInst>(CB);
          II && II->getIntrinsicID() == Intrinsic::nvvm_barrier_cta_sync_aligned_all)
        continue;
      if (!CB->onlyAccessesArgMemory())
        Opaque = true;
      for (const Use &U : CB->args())
        if (U->getType()->isPointerTy())
          Note(U);
    } else if (I.mayReadFromMemory() && !isa<StoreInst>(I)) {
      Opaque = true; // an atomic or a fence: trust nothing
    }
  }
  for (Intermediate &I : C.Carried)
    I.Covered = !Opaque && (I.Mech == Mechanism::Forward || I.HaloExact) &&
                !Read.count(I.Value);
}
