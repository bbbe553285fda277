//===- RecordStaging.cpp - per-instance records through shared memory -----===//
//
// A map kernel with one thread per instance of a record (a 3x3 matrix, a
// particle, a cell's state) reads and writes the R bytes of its own instance
// at p + R*g + c, g = ctaid.x*ntid.x + tid.x, 0 <= c < R. Each load of one
// field is then a warp instruction over 32 records R bytes apart: for R = 36
// or 100 bytes it touches 9 to 25 times the sectors it uses, and the kernel
// is bound by the load/store unit and L1 rather than by DRAM (the mapped
// function of Fousek, Filipovic and Madzin runs at 17 % of the copy
// bandwidth so, fused or not). Staging moves the block's records as one
// contiguous range with consecutive threads, through a shared tile. The
// guarded body (`if (g < n) { body }`, one basic block) is run by every
// thread of the block, its accesses other than the staged ones under the
// guard's condition, so that points inside it may hold barriers:
//
//  - before an input's first access, in rounds of T of the block's
//    instances, the block copies the round's records from global memory to
//    the tile, consecutive threads loading consecutive words; after a
//    barrier each thread of the round below n copies its own record into a
//    private array, and after a second barrier the next round may reuse the
//    tile. The body's loads read the private array, which SROA turns into
//    registers;
//  - the body's stores of an output write a private array; after its last
//    store, round by round, each thread of the round below n writes its
//    record into the tile and, after a barrier, the block stores the tile
//    with consecutive threads.
//
// In the tile a record of an even number of 4- or 8-byte words takes one
// word more: each thread copies its own record word by word, and with an
// odd stride the threads of a warp reach 32 different banks where a stride
// of 16 words would reach 2.
//
// Inputs whose first accesses lie close together (at most 16 instructions
// of work between them) share a point, and so do outputs whose last stores
// do. A point's block copy is one loop over all its records, each thread
// loading up to -kfuse-record-copy-batch words of them before it stores
// any, so that its code does not grow with the records. A thread above n
// runs the body on values it never stores: the body may hold nothing that
// could trap or misbehave on them (a call with effects, a division by a
// variable, a convergent operation).
//
// It moves bytes and nothing else, so results are bit for bit the same.
// It applies to a body and a pointer parameter where:
//  - the guard `g < n` (or `g >= n` to the exit; signed or unsigned, n any
//    value computed before it) is reached by every thread of the block: the
//    branches on the way to it test block-uniform values (parameters, ntid,
//    ctaid, nctaid), as the dead mask's versions do; and the body is one
//    block that branches to the guard's other successor;
//  - the parameter is noalias (the runtime checks the fused kernel's
//    buffers disjoint, markNoAlias) and only forms addresses of plain loads,
//    or only of plain stores, anywhere in the kernel;
//  - every access of the body through it is at R*g + c with the same R
//    (12 to 512 bytes, at most 64 copy words), [c, c + size) within the
//    record, and size at most R/2 (an access of more than half a record is
//    coalesced as it is, and so is a record of 16 bytes or less aligned to
//    its size, a float4 or a double2, which the back end moves as one
//    vector);
//  - an input's first and last bytes are read (the copied range is one the
//    kernel reads); every byte of an output is written, and every store of
//    the kernel through it lies in a body that stages it (the private array
//    holds the whole record, and no store is left behind a staged one).
// The copy word is the largest of 8, 4, 2, 1 bytes that divides R and that
// an access proves the record aligned to. With words of at least 4 bytes
// (-kfuse-record-vector-copy), the block copies move 16-byte vectors
// instead: a record of a multiple of 16 bytes word by word; a record of
// more than 16 bytes that lies in the tile as in memory (an odd number of
// words, no padding) as one range per round, its tail of fewer than 16
// bytes in the record's own words. Either needs the buffer's start 16-byte
// aligned, and a range every round's start too, so ntid.x a multiple of
// 16 / gcd(R, 16): the runtime checks both (manifest `align` and `le`) and
// runs the original launches where either fails; cudaMalloc's allocations
// are always aligned. In a block copy a 16-byte word counts as two against
// -kfuse-record-copy-batch, so that a trip holds as many bytes in
// registers as with 8-byte words. T is the largest of 256, 128, 64,
// 32 whose tile fits the budget; records that do not fit at 32 are left as
// they are, the largest first.
//
//===----------------------------------------------------------------------===//
#include "RecordStaging.h"
#include "KernelAnalysis.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/PostDominators.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Transforms/InstCombine/InstCombine.h"
#include "llvm/Transforms/Scalar/EarlyCSE.h"
#include "llvm/Transforms/Scalar/SROA.h"
#include "llvm/Transforms/Scalar/SimplifyCFG.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

using namespace llvm;
using namespace kfuse;

namespace {

constexpr unsigned GlobalAS = 1, SharedAS = 3;
constexpr unsigned MinRecordBytes = 12, MaxRecordBytes = 512, MaxWords = 64;
constexpr unsigned MaxRound = 256, MinRound = 32;
/// Words of a block copy in flight at once per thread, at most.
constexpr unsigned MaxCopyBatch = 16;
cl::opt<unsigned> CopyBatch(
    "kfuse-record-copy-batch", cl::init(16),
    cl::desc("kfuse: words of staged records that each thread of a block copy loads "
             "before it stores any, per trip of the copy loop (1 to 16, default 16)"));
cl::opt<bool> VectorCopy(
    "kfuse-record-vector-copy", cl::init(true),
    cl::desc("kfuse: block copies of records in 16-byte words where the records allow, "
             "the runtime checking the alignment they need (default on)"));
/// The vector word, and the base alignment it needs.
constexpr unsigned VectorUnit = 16;
/// Instructions of work between the accesses of records that share a point.
constexpr unsigned MaxBetween = 16;

/// Bytes [Lo, Lo + Size) of the record that \p I loads or stores.
struct RecordAccess {
  Instruction *I = nullptr;
  unsigned Lo = 0, Size = 0;
};

/// One staged parameter of one body.
struct Record {
  Argument *Arg = nullptr;
  bool Store = false;
  unsigned Bytes = 0, Unit = 0;
  /// The block copy's word: Unit, or 16 where it moves a round's records
  /// as one contiguous range of 16-byte words and a tail of Unit words
  /// (contiguous()).
  unsigned CopyUnit = 0;
  /// The base alignment the copy assumes beyond what the accesses prove,
  /// and the multiple of 16 / gcd(Bytes, 16) that the block's threads must
  /// be for every round to start 16-byte aligned; both checked by the
  /// runtime (StagedRecord); 0 for none.
  unsigned BaseAlign = 0, BlockMultiple = 0;
  bool Invariant = true; ///< every load was !invariant.load
  SmallVector<RecordAccess, 32> Accesses;
  unsigned TileOff = 0;
  AllocaInst *Priv = nullptr;
  unsigned words() const { return Bytes / Unit; }
  bool contiguous() const { return CopyUnit != Unit; }
  /// The block copy's words per instance (of a contiguous copy, rounded up).
  unsigned copyWords() const { return (Bytes + CopyUnit - 1) / CopyUnit; }
  Type *wordType(LLVMContext &Ctx) const { return copyWordType(Ctx, Unit); }
  /// Bytes from one record to the next in the tile: an odd number of words
  /// (an even one padded by one), so that the threads of a warp, each
  /// copying its own record word by word, hit different banks.
  unsigned tileStride() const { return Unit >= 4 && words() % 2 == 0 ? Bytes + Unit : Bytes; }
};

/// Where the body copies records: before instruction At (inputs) or after
/// it (outputs), in rounds of Round instances.
struct Point {
  Instruction *At = nullptr;
  bool Out = false;
  SmallVector<unsigned, 8> Records; ///< indices into Body::Records
  unsigned Round = 0;
};

/// A guarded body: Guard ends in `br (g < n), Body, Exit` (either way round).
struct Body {
  BasicBlock *Guard = nullptr, *Entry = nullptr, *Exit = nullptr;
  Value *N = nullptr; ///< the bound, of g's type
  bool Signed = false;
  bool BodyOnTrue = true;
  std::vector<Record> Records;
  std::vector<Point> Points;
};

/// A pointer parameter used only to address plain loads or plain stores.
struct ParamUse {
  bool Clean = true;
  bool Loads = false, Stores = false;
  SmallVector<Instruction *, 32> Accesses;
};

Intrinsic::ID sregX(int Sym) { return Intrinsic::ID(sregIntrinsic(Sym)); }

/// Whether every thread of a block computes the same \p V: parameters,
/// constants, the block's and the grid's coordinates and extents, and
/// arithmetic on them.
bool blockUniform(const Value *V, unsigned Depth = 0) {
  if (isa<Constant>(V) || isa<Argument>(V))
    return true;
  const auto *I = dyn_cast<Instruction>(V);
  if (!I || Depth > 16)
    return false;
  int S = sregSymbol(I);
  if (S >= 0)
    return S % SymDimStride != SymTid;
  if (isa<CallBase>(I) || isa<PHINode>(I) || I->mayReadOrWriteMemory())
    return false;
  return llvm::all_of(I->operands(), [&](const Use &U) { return blockUniform(U, Depth + 1); });
}

/// Whether every thread of a block reaches \p BB: each block on the way from
/// the entry has one predecessor, whose branch tests a block-uniform value.
bool reachedByAll(BasicBlock *BB) {
  BasicBlock *Entry = &BB->getParent()->getEntryBlock();
  for (unsigned Depth = 0; BB != Entry; ++Depth) {
    BasicBlock *P = BB->getSinglePredecessor();
    auto *Br = P ? dyn_cast<BranchInst>(P->getTerminator()) : nullptr;
    if (!Br || Depth > 64 || (Br->isConditional() && !blockUniform(Br->getCondition())))
      return false;
    BB = P;
  }
  return true;
}

/// Whether a thread above n may run \p I on values it never stores: no
/// trap, no effect beyond memory (which the guard's condition keeps), no
/// convergent operation whose set of threads would grow.
bool runsAnywhere(const Instruction &I) {
  if (const auto *L = dyn_cast<LoadInst>(&I))
    return L->isSimple();
  if (const auto *S = dyn_cast<StoreInst>(&I))
    return S->isSimple();
  if (const auto *CB = dyn_cast<CallBase>(&I))
    return sregSymbol(CB) >= 0 || (CB->doesNotAccessMemory() && CB->willReturn() &&
                                   !CB->isConvergent() && !CB->isInlineAsm());
  switch (I.getOpcode()) {
  case Instruction::UDiv:
  case Instruction::URem:
  case Instruction::SDiv:
  case Instruction::SRem: {
    const auto *C = dyn_cast<ConstantInt>(I.getOperand(1));
    return C && !C->isZero() && !C->isMinusOne();
  }
  default:
    return !I.mayHaveSideEffects();
  }
}

class Stager {
  Function &F;
  ScalarEvolution &SE;
  DominatorTree &DT;
  PostDominatorTree &PDT;
  const DataLayout &DL;
  unsigned Budget;
  /// The parameters that may be staged, in argument order (so is the
  /// tile's layout: nothing depends on addresses).
  std::vector<std::pair<Argument *, ParamUse>> Params;
  std::vector<Body> Bodies;
  GlobalVariable *Tile = nullptr;

public:
  Stager(Function &F, ScalarEvolution &SE, DominatorTree &DT, PostDominatorTree &PDT,
         unsigned Budget)
      : F(F), SE(SE), DT(DT), PDT(PDT), DL(F.getDataLayout()), Budget(Budget) {}

  std::vector<StagedRecord> run();
  unsigned tileBytes() const {
    return Tile ? unsigned(Tile->getValueType()->getArrayNumElements()) : 0;
  }

private:
  void collectParams();
  void walkUses(Value *V, ParamUse &U);
  std::optional<Body> bodyAt(BasicBlock &Guard);
  std::optional<Record> recordOf(const Body &B, Argument *A, const ParamUse &U);
  void placePoints(Body &B);
  bool dropPartialOutputs();
  void transform(Body &B);
  void emitRounds(Body &B, const Point &P, BasicBlock *From, const struct Coords &X);
};

void Stager::walkUses(Value *V, ParamUse &U) {
  for (User *Us : V->users()) {
    if (isa<GetElementPtrInst>(Us) || isa<AddrSpaceCastInst>(Us) || isa<BitCastInst>(Us)) {
      walkUses(Us, U);
    } else if (auto *L = dyn_cast<LoadInst>(Us); L && L->isSimple()) {
      U.Loads = true;
      U.Accesses.push_back(L);
    } else if (auto *S = dyn_cast<StoreInst>(Us);
               S && S->isSimple() && S->getPointerOperand() == V && S->getValueOperand() != V) {
      U.Stores = true;
      U.Accesses.push_back(S);
    } else {
      U.Clean = false;
    }
  }
}

void Stager::collectParams() {
  for (Argument &A : F.args()) {
    if (!A.getType()->isPointerTy() || !A.hasNoAliasAttr())
      continue;
    ParamUse U;
    walkUses(&A, U);
    if (U.Clean && U.Loads != U.Stores)
      Params.emplace_back(&A, std::move(U));
  }
}

std::optional<Body> Stager::bodyAt(BasicBlock &Guard) {
  auto *Br = dyn_cast<BranchInst>(Guard.getTerminator());
  auto *Cmp = Br && Br->isConditional() ? dyn_cast<ICmpInst>(Br->getCondition()) : nullptr;
  if (!Cmp || Br->getSuccessor(0) == Br->getSuccessor(1))
    return std::nullopt;
  Body B;
  B.Guard = &Guard;
  Value *G = Cmp->getOperand(0), *N = Cmp->getOperand(1);
  ICmpInst::Predicate P = Cmp->getPredicate();
  if (ICmpInst::isGT(P) || ICmpInst::isLE(P)) { // n > g, n <= g
    std::swap(G, N);
    P = ICmpInst::getSwappedPredicate(P);
  }
  // g < n to the body, or g >= n to the exit.
  if (P == ICmpInst::ICMP_SLT || P == ICmpInst::ICMP_ULT)
    B.BodyOnTrue = true;
  else if (P == ICmpInst::ICMP_SGE || P == ICmpInst::ICMP_UGE)
    B.BodyOnTrue = false;
  else
    return std::nullopt;
  B.Signed = ICmpInst::isSigned(P);
  B.N = N;
  B.Entry = Br->getSuccessor(B.BodyOnTrue ? 0 : 1);
  B.Exit = Br->getSuccessor(B.BodyOnTrue ? 1 : 0);
  if (!G->getType()->isIntegerTy() || !SE.isSCEVable(G->getType()) ||
      B.Entry->getSinglePredecessor() != &Guard || !B.Exit->phis().empty() ||
      !reachedByAll(&Guard))
    return std::nullopt;
  IndexPoly Global = IndexPoly::symbol(symCtaid(0)) * IndexPoly::symbol(symNtid(0)) +
                     IndexPoly::symbol(symTid(0));
  auto GP = polyOf(F, SE, SE.getSCEV(G));
  if (!GP || *GP != Global)
    return std::nullopt;
  auto *Next = dyn_cast<BranchInst>(B.Entry->getTerminator());
  if (!Next || Next->isConditional() || Next->getSuccessor(0) != B.Exit ||
      !llvm::all_of(*B.Entry, runsAnywhere))
    return std::nullopt;
  return B;
}

std::optional<Record> Stager::recordOf(const Body &B, Argument *A, const ParamUse &U) {
  Record R;
  R.Arg = A;
  R.Store = U.Stores;
  int64_t Stride = 0;
  unsigned Aligned = 1; // what the accesses prove of the record's alignment
  for (Instruction *I : U.Accesses) {
    if (I->getParent() != B.Entry)
      continue;
    Value *Ptr = getLoadStorePointerOperand(I);
    Type *Ty = getLoadStoreType(I);
    const SCEV *Off = offsetFromParam(SE, Ptr, A);
    std::optional<IndexPoly> P = Off ? polyOf(F, SE, Off) : std::nullopt;
    std::optional<DigitForm> D = P ? digitsOf(*P) : std::nullopt;
    if (!D || D->Digits.size() != 1 || D->Digits[0].K != IndexDigit::Global ||
        D->Digits[0].Dim != 0 || !D->Digits[0].Coef.isConstant() || !D->Rest.isConstant())
      return std::nullopt;
    int64_t Rb = D->Digits[0].Coef.constantTerm(), C = D->Rest.constantTerm();
    uint64_t Size = DL.getTypeStoreSize(Ty).getFixedValue();
    if ((Stride && Rb != Stride) || Rb < MinRecordBytes || Rb > MaxRecordBytes || C < 0 ||
        C + int64_t(Size) > Rb)
      return std::nullopt;
    Stride = Rb;
    Align Al = isa<LoadInst>(I) ? cast<LoadInst>(I)->getAlign() : cast<StoreInst>(I)->getAlign();
    Aligned = std::max<unsigned>(Aligned, commonAlignment(Al, uint64_t(C)).value());
    if (auto *L = dyn_cast<LoadInst>(I))
      R.Invariant &= L->hasMetadata(LLVMContext::MD_invariant_load);
    R.Accesses.push_back({I, unsigned(C), unsigned(Size)});
  }
  if (R.Accesses.empty())
    return std::nullopt;
  R.Bytes = unsigned(Stride);
  // An access of half the record or more is coalesced as it is: a warp's
  // instruction uses at least half of what it moves. So is a record of 16
  // bytes or less aligned to its size (a float4, a double2): the back end
  // loads and stores its fields as one vector.
  for (const RecordAccess &X : R.Accesses)
    if (2 * X.Size > R.Bytes)
      return std::nullopt;
  if (R.Bytes <= 16 && isPowerOf2_32(R.Bytes) && Aligned >= R.Bytes)
    return std::nullopt;
  R.Unit = 8;
  while (R.Unit > 1 && (R.Bytes % R.Unit || Aligned < R.Unit))
    R.Unit /= 2;
  R.CopyUnit = R.Unit;
  if (VectorCopy && R.Unit >= 4 && R.Bytes % VectorUnit == 0) {
    R.BaseAlign = Aligned < VectorUnit ? VectorUnit : 0;
    R.Unit = R.CopyUnit = VectorUnit;
  } else if (VectorCopy && R.Unit >= 4 && R.Bytes > VectorUnit && R.tileStride() == R.Bytes) {
    // Records laid out in the tile as in memory (an odd number of words):
    // a round's records are one range, copied in 16-byte words where it
    // starts 16-byte aligned, which needs ntid.x * Bytes a multiple of 16.
    R.CopyUnit = VectorUnit;
    R.BaseAlign = Aligned < VectorUnit ? VectorUnit : 0;
    R.BlockMultiple = VectorUnit / std::gcd(R.Bytes, VectorUnit);
  }
  if (R.words() > MaxWords)
    return std::nullopt;
  // The bytes every thread of the body reads or writes.
  BitVector Every(R.Bytes);
  for (const RecordAccess &X : R.Accesses)
    if (PDT.dominates(X.I->getParent(), B.Entry))
      Every.set(X.Lo, X.Lo + X.Size);
  if (R.Store ? !Every.all() : !(Every.test(0) && Every.test(R.Bytes - 1)))
    return std::nullopt;
  return R;
}

/// Whether \p I only computes an address or loads: what may lie between the
/// accesses of records that share a point.
static bool addressOrLoad(const Instruction &I) {
  return isa<LoadInst>(I) || isa<GetElementPtrInst>(I) || isa<CastInst>(I) ||
         (I.isBinaryOp() && I.getType()->isIntegerTy()) || sregSymbol(&I) >= 0;
}

/// Places the body's points: each input before its first access, each
/// output after its last store, records sharing a point where at most
/// MaxBetween instructions of work lie between; then picks each point's round
/// and the records' places in the tile, leaving out the largest records
/// while even a round of MinRound does not fit.
void Stager::placePoints(Body &B) {
  B.Points.clear();
  BasicBlock &BB = *B.Entry;
  DenseMap<const Instruction *, unsigned> Pos;
  unsigned N = 0;
  for (Instruction &I : BB)
    Pos[&I] = N++;
  // (position, record): inputs at their first access, outputs at their last.
  SmallVector<std::pair<unsigned, unsigned>, 16> In, Out;
  for (unsigned R = 0; R < B.Records.size(); ++R) {
    unsigned First = ~0u, Last = 0;
    for (const RecordAccess &X : B.Records[R].Accesses) {
      First = std::min(First, Pos[X.I]);
      Last = std::max(Last, Pos[X.I]);
    }
    (B.Records[R].Store ? Out : In).push_back({B.Records[R].Store ? Last : First, R});
  }
  llvm::sort(In);
  llvm::sort(Out);
  SmallVector<Instruction *, 0> Order;
  for (Instruction &I : BB)
    Order.push_back(&I);
  // Records share a point where at most MaxBetween instructions that do
  // more than address, load or store lie between theirs: one point's
  // barriers instead of two, a few registers held longer.
  auto Between = [&](unsigned From, unsigned To) {
    unsigned Work = 0;
    for (unsigned K = From; K < To; ++K)
      Work += !addressOrLoad(*Order[K]) && !isa<StoreInst>(Order[K]);
    return Work <= MaxBetween;
  };
  for (size_t K = 0; K < In.size(); ++K) {
    if (K && Between(In[K - 1].first, In[K].first)) {
      B.Points.back().Records.push_back(In[K].second);
      continue;
    }
    Point P;
    P.At = Order[In[K].first];
    P.Records.push_back(In[K].second);
    B.Points.push_back(P);
  }
  for (size_t K = 0; K < Out.size(); ++K) {
    if (K && Between(Out[K - 1].first + 1, Out[K].first + 1)) {
      B.Points.back().At = Order[Out[K].first];
      B.Points.back().Records.push_back(Out[K].second);
      continue;
    }
    Point P;
    P.Out = true;
    P.At = Order[Out[K].first];
    P.Records.push_back(Out[K].second);
    B.Points.push_back(P);
  }
  // Rounds, and the records' places in the tile (the points copy one after
  // the other, each from offset 0).
  std::set<unsigned> Dropped;
  for (Point &P : B.Points) {
    for (;;) {
      unsigned Per = 0;
      for (unsigned R : P.Records)
        Per += B.Records[R].tileStride();
      if (!Per)
        break;
      for (P.Round = MaxRound; P.Round > MinRound && P.Round * Per > Budget; P.Round /= 2)
        ;
      if (P.Round * Per <= Budget)
        break;
      auto Largest = std::max_element(P.Records.begin(), P.Records.end(),
                                      [&](unsigned X, unsigned Y) {
                                        return B.Records[X].Bytes < B.Records[Y].Bytes;
                                      });
      Dropped.insert(*Largest);
      P.Records.erase(Largest);
    }
    unsigned At = 0;
    for (unsigned R : P.Records) {
      B.Records[R].TileOff = At;
      At += B.Records[R].tileStride() * P.Round; // a multiple of 32: Round is
    }
  }
  llvm::erase_if(B.Points, [](const Point &P) { return P.Records.empty(); });
  // A dropped record is not staged at all: renumber the points' indices.
  if (Dropped.empty())
    return;
  std::vector<unsigned> NewIndex(B.Records.size(), ~0u);
  std::vector<Record> Kept;
  for (unsigned R = 0; R < B.Records.size(); ++R)
    if (!Dropped.count(R)) {
      NewIndex[R] = Kept.size();
      Kept.push_back(std::move(B.Records[R]));
    }
  B.Records = std::move(Kept);
  for (Point &P : B.Points)
    for (unsigned &R : P.Records)
      R = NewIndex[R];
}

/// Thread coordinates every point of a body uses, computed before it.
struct Coords {
  Value *Tid, *Lin, *NLin, *Ntid, *Base, *Avail;
};

/// The rounds of point \p P: a loop over r0 = 0, T, 2T, ... below ntid.x
/// between \p From, whose branch it replaces, and that branch's successor.
void Stager::emitRounds(Body &B, const Point &P, BasicBlock *From, const Coords &X) {
  LLVMContext &Ctx = F.getContext();
  const bool Out = P.Out;
  const char *Tag = Out ? "kfuse.rec.out" : "kfuse.rec.in";
  BasicBlock *To = From->getSingleSuccessor();
  From->getTerminator()->eraseFromParent();
  IRBuilder<> IB(From);
  Type *I32 = IB.getInt32Ty(), *I64 = IB.getInt64Ty();
  BasicBlock *Head = BasicBlock::Create(Ctx, Tag, &F);
  BasicBlock *Work = BasicBlock::Create(Ctx, Twine(Tag) + ".work", &F);
  BasicBlock *Latch = BasicBlock::Create(Ctx, Twine(Tag) + ".next", &F);
  IB.CreateBr(Head);

  IB.SetInsertPoint(Head);
  PHINode *R0 = IB.CreatePHI(I32, 2, "kfuse.rec.r0");
  R0->addIncoming(IB.getInt32(0), From);
  Value *Left = IB.CreateSub(X.Ntid, R0);
  Value *Size = IB.CreateZExt(
      IB.CreateSelect(IB.CreateICmpULT(Left, IB.getInt32(P.Round)), Left, IB.getInt32(P.Round)),
      I64);
  Value *Avail0 = IB.CreateSub(X.Avail, IB.CreateZExt(R0, I64));
  Value *Cnt64 = IB.CreateSelect(IB.CreateICmpSLT(Avail0, IB.getInt64(0)), IB.getInt64(0),
                                 IB.CreateSelect(IB.CreateICmpSLT(Avail0, Size), Avail0, Size));
  Value *Cnt = IB.CreateTrunc(Cnt64, I32, "kfuse.rec.count");
  IB.CreateCondBr(IB.CreateICmpNE(Cnt, IB.getInt32(0)), Work, Latch);

  IB.SetInsertPoint(Work);
  Value *First = IB.CreateAdd(X.Base, IB.CreateZExt(R0, I64)); // the round's first instance
  Value *Mine = IB.CreateSub(X.Tid, R0);
  Value *IsMine = IB.CreateICmpULT(Mine, Cnt);
  // Record R's bytes in the tile from byte \p Off (i32) of its round.
  auto TileAt = [&](const Record &R, Value *Off) {
    return IB.CreateInBoundsGEP(IB.getInt8Ty(), Tile,
                                IB.CreateZExt(IB.CreateAdd(IB.getInt32(R.TileOff), Off), I64));
  };
  // Thread Mine's own words, between the private array and the tile, where
  // Mine is an instance of the round below n. One address per record, the
  // words at constant offsets from it.
  auto OwnCopy = [&] {
    BasicBlock *Copy = BasicBlock::Create(Ctx, Twine(Tag) + ".own", &F);
    BasicBlock *After = BasicBlock::Create(Ctx, Twine(Tag) + ".own.done", &F);
    IB.CreateCondBr(IsMine, Copy, After);
    IB.SetInsertPoint(Copy);
    for (unsigned Idx : P.Records) {
      const Record &R = B.Records[Idx];
      Type *WordTy = R.wordType(Ctx);
      Value *Own = TileAt(R, IB.CreateMul(Mine, IB.getInt32(R.tileStride())));
      for (unsigned K = 0; K < R.words(); ++K) {
        Value *T = IB.CreateConstInBoundsGEP1_32(IB.getInt8Ty(), Own, K * R.Unit);
        Value *Pv = IB.CreateConstInBoundsGEP1_32(WordTy, R.Priv, K);
        if (Out)
          IB.CreateAlignedStore(IB.CreateAlignedLoad(WordTy, Pv, Align(R.Unit)), T,
                                Align(R.Unit));
        else
          IB.CreateAlignedStore(IB.CreateAlignedLoad(WordTy, T, Align(R.Unit)), Pv,
                                Align(R.Unit));
      }
    }
    IB.CreateBr(After);
    IB.SetInsertPoint(After);
  };
  // The block's copy of the round's words, one loop for the point's
  // records: record R's words e = Lin + k*NLin below Lim_R = words(R) * Cnt
  // (Cnt <= NLin), in Trips trips of U_R words each: Trips the records'
  // words over -kfuse-record-copy-batch, U_R = words(R) / Trips, both
  // rounded up. A trip's words are in flight at once, and the code does not
  // grow with the records. Every word is tested against Lim_R (a trip may
  // start past it, in a round of fewer than NLin instances): an input's
  // loads come first, each from a word clamped into its range (never a
  // byte the kernel does not read; Lim_R >= 1 since Cnt >= 1), then the
  // stores into the tile of the words below Lim_R.
  auto BlockCopy = [&] {
    // A 16-byte word counts as two.
    const unsigned Batch = std::clamp(unsigned(CopyBatch), 1u, MaxCopyBatch);
    unsigned Words = 0;
    for (unsigned Idx : P.Records)
      Words += B.Records[Idx].copyWords() * (B.Records[Idx].CopyUnit == VectorUnit ? 2 : 1);
    const unsigned Trips = (Words + Batch - 1) / Batch;
    struct Copy {
      const Record *R = nullptr;
      Type *WordTy = nullptr;
      unsigned U = 0;
      Value *Lim = nullptr, *Last = nullptr, *G = nullptr, *Stride = nullptr;
      Value *Bytes = nullptr; ///< a contiguous copy's bytes: Cnt * R.Bytes
      SmallVector<Value *, MaxCopyBatch> Step; // u * NLin, u < U
    };
    SmallVector<Copy, 8> Copies;
    for (unsigned Idx : P.Records) {
      const Record &R = B.Records[Idx];
      Copy C;
      C.R = &R;
      C.WordTy = copyWordType(Ctx, R.CopyUnit);
      C.U = (R.copyWords() + Trips - 1) / Trips;
      if (R.contiguous()) {
        // The round's bytes in whole words (at least one: Bytes > 16).
        C.Bytes = IB.CreateMul(Cnt, IB.getInt32(R.Bytes), "kfuse.rec.bytes");
        C.Lim = IB.CreateUDiv(C.Bytes, IB.getInt32(R.CopyUnit), "kfuse.rec.words");
      } else {
        C.Lim = IB.CreateMul(Cnt, IB.getInt32(R.words()), "kfuse.rec.words");
      }
      C.Last = IB.CreateSub(C.Lim, IB.getInt32(1));
      C.G = IB.CreateGEP(IB.getInt8Ty(),
                         IB.CreateAddrSpaceCast(R.Arg, PointerType::get(Ctx, GlobalAS)),
                         IB.CreateMul(First, IB.getInt64(R.Bytes)));
      for (unsigned K = 0; K < C.U; ++K)
        C.Step.push_back(IB.CreateMul(X.NLin, IB.getInt32(K)));
      C.Stride = IB.CreateMul(X.NLin, IB.getInt32(C.U));
      Copies.push_back(std::move(C));
    }
    BasicBlock *Pre = IB.GetInsertBlock();
    BasicBlock *Loop = BasicBlock::Create(Ctx, Twine(Tag) + ".copy", &F);
    BasicBlock *Done = BasicBlock::Create(Ctx, Twine(Tag) + ".copy.done", &F);
    IB.CreateBr(Loop);
    IB.SetInsertPoint(Loop);
    PHINode *Trip = IB.CreatePHI(I32, 2, "kfuse.rec.trip");
    Trip->addIncoming(IB.getInt32(0), Pre);
    struct Word {
      const Copy *C;
      Value *E, *V;
    };
    SmallVector<Word, MaxCopyBatch> Ws;
    for (const Copy &C : Copies) {
      Value *E0 = IB.CreateAdd(X.Lin, IB.CreateMul(Trip, C.Stride));
      for (unsigned K = 0; K < C.U; ++K) {
        Value *E = K ? IB.CreateAdd(E0, C.Step[K]) : E0;
        Value *V = nullptr;
        if (!Out) {
          Value *Ec = IB.CreateSelect(IB.CreateICmpULT(E, C.Lim), E, C.Last);
          Value *At =
              IB.CreateGEP(IB.getInt8Ty(), C.G,
                           IB.CreateMul(IB.CreateZExt(Ec, I64), IB.getInt64(C.R->CopyUnit)));
          auto *L = IB.CreateAlignedLoad(C.WordTy, At, Align(C.R->CopyUnit));
          if (C.R->Invariant)
            L->setMetadata(LLVMContext::MD_invariant_load, MDNode::get(Ctx, {}));
          V = L;
        }
        Ws.push_back({&C, E, V});
      }
    }
    for (const Word &W : Ws) {
      const Record &R = *W.C->R;
      BasicBlock *Do = BasicBlock::Create(Ctx, Twine(Tag) + ".word", &F);
      BasicBlock *Next = BasicBlock::Create(Ctx, Twine(Tag) + ".word.done", &F);
      IB.CreateCondBr(IB.CreateICmpULT(W.E, W.C->Lim), Do, Next);
      IB.SetInsertPoint(Do);
      // Word E of the round's records is word E % words of record E / words,
      // which starts E / words units further in a padded tile.
      const unsigned U = R.CopyUnit;
      Value *InTile = R.tileStride() == R.Bytes
                          ? W.E
                          : IB.CreateAdd(W.E, IB.CreateUDiv(W.E, IB.getInt32(R.words())));
      Value *T = TileAt(R, IB.CreateMul(InTile, IB.getInt32(U)));
      if (Out) {
        Value *G = IB.CreateGEP(IB.getInt8Ty(), W.C->G,
                                IB.CreateMul(IB.CreateZExt(W.E, I64), IB.getInt64(U)));
        IB.CreateAlignedStore(IB.CreateAlignedLoad(W.C->WordTy, T, Align(U)), G, Align(U));
      } else {
        IB.CreateAlignedStore(W.V, T, Align(U));
      }
      IB.CreateBr(Next);
      IB.SetInsertPoint(Next);
    }
    Value *Trip1 = IB.CreateAdd(Trip, IB.getInt32(1));
    Trip->addIncoming(Trip1, IB.GetInsertBlock());
    // A loop of Trips trips, kept a loop: its point is the code size.
    auto *Back = IB.CreateCondBr(IB.CreateICmpULT(Trip1, IB.getInt32(Trips)), Loop, Done);
    MDNode *Disable = MDNode::get(Ctx, MDString::get(Ctx, "llvm.loop.unroll.disable"));
    MDNode *Id = MDNode::getDistinct(Ctx, {nullptr, Disable});
    Id->replaceOperandWith(0, Id); // a loop ID names itself first
    Back->setMetadata(LLVMContext::MD_loop, Id);
    IB.SetInsertPoint(Done);
    // A contiguous copy's tail, the round's bytes past its last whole
    // 16-byte word: fewer than 16 / Unit words, one a thread (the block's
    // threads are a multiple of 16 / gcd(Bytes, 16) >= 16 / Unit).
    for (const Copy &C : Copies) {
      if (!C.R->contiguous())
        continue;
      const Record &R = *C.R;
      Value *Head = IB.CreateMul(C.Lim, IB.getInt32(R.CopyUnit));
      Value *Tail = IB.CreateUDiv(IB.CreateSub(C.Bytes, Head), IB.getInt32(R.Unit));
      BasicBlock *Do = BasicBlock::Create(Ctx, Twine(Tag) + ".tail", &F);
      BasicBlock *Next = BasicBlock::Create(Ctx, Twine(Tag) + ".tail.done", &F);
      IB.CreateCondBr(IB.CreateICmpULT(X.Lin, Tail), Do, Next);
      IB.SetInsertPoint(Do);
      Type *WordTy = R.wordType(Ctx);
      Value *Off = IB.CreateAdd(Head, IB.CreateMul(X.Lin, IB.getInt32(R.Unit)));
      Value *T = TileAt(R, Off);
      Value *G = IB.CreateGEP(IB.getInt8Ty(), C.G, IB.CreateZExt(Off, I64));
      if (Out) {
        IB.CreateAlignedStore(IB.CreateAlignedLoad(WordTy, T, Align(R.Unit)), G, Align(R.Unit));
      } else {
        auto *L = IB.CreateAlignedLoad(WordTy, G, Align(R.Unit));
        if (R.Invariant)
          L->setMetadata(LLVMContext::MD_invariant_load, MDNode::get(Ctx, {}));
        IB.CreateAlignedStore(L, T, Align(R.Unit));
      }
      IB.CreateBr(Next);
      IB.SetInsertPoint(Next);
    }
  };
  auto Barrier = [&] {
    IB.CreateIntrinsic(Intrinsic::nvvm_barrier_cta_sync_aligned_all, ArrayRef<Type *>{},
                       {IB.getInt32(0)});
  };
  if (Out) {
    OwnCopy();
    Barrier();
    BlockCopy();
  } else {
    BlockCopy();
    Barrier();
    OwnCopy();
  }
  Barrier(); // the next round, or the next point, reuses the tile
  IB.CreateBr(Latch);

  IB.SetInsertPoint(Latch);
  Value *Next = IB.CreateAdd(R0, IB.getInt32(P.Round));
  R0->addIncoming(Next, Latch);
  IB.CreateCondBr(IB.CreateICmpULT(Next, X.Ntid), Head, To);
}

void Stager::transform(Body &B) {
  auto *Guard = cast<BranchInst>(B.Guard->getTerminator());
  Value *Active = Guard->getCondition();
  IRBuilder<> IB(Guard);
  if (!B.BodyOnTrue)
    Active = IB.CreateNot(Active);
  // The coordinates, before the body.
  Type *I32 = IB.getInt32Ty(), *I64 = IB.getInt64Ty();
  auto Sreg = [&](unsigned K) { return IB.CreateIntrinsic(I32, sregX(K), ArrayRef<Value *>{}); };
  Coords X;
  X.Tid = Sreg(symTid(0));
  X.Ntid = Sreg(symNtid(0));
  X.Lin = IB.CreateAdd(X.Tid, IB.CreateMul(X.Ntid, IB.CreateAdd(Sreg(symTid(1)),
                                                               IB.CreateMul(Sreg(symNtid(1)),
                                                                            Sreg(symTid(2))))));
  X.NLin = IB.CreateMul(X.Ntid, IB.CreateMul(Sreg(symNtid(1)), Sreg(symNtid(2))));
  X.Base = IB.CreateMul(IB.CreateZExt(Sreg(symCtaid(0)), I64), IB.CreateZExt(X.Ntid, I64));
  Value *N64 = B.Signed ? IB.CreateSExtOrTrunc(B.N, I64) : IB.CreateZExtOrTrunc(B.N, I64);
  X.Avail = IB.CreateSub(N64, X.Base); // the block's instances below n, from its first
  // Every thread runs the body.
  IB.CreateBr(B.Entry);
  Guard->eraseFromParent();

  // The private arrays, and the body's accesses of records on them.
  IRBuilder<> Entry(&*F.getEntryBlock().getFirstInsertionPt());
  for (Record &R : B.Records) {
    Type *WordTy = R.wordType(F.getContext());
    R.Priv = Entry.CreateAlloca(ArrayType::get(WordTy, R.words()), nullptr,
                                R.Store ? "kfuse.rec.out" : "kfuse.rec.in");
    R.Priv->setAlignment(Align(std::max(R.Unit, 4u)));
  }
  DenseMap<Instruction *, std::pair<Record *, unsigned>> Staged; // access -> record, Lo
  for (Record &R : B.Records)
    for (RecordAccess &A : R.Accesses)
      Staged[A.I] = {&R, A.Lo};
  // Where the points go: before an input point's instruction, after an
  // output point's; the instruction itself may be rewritten below, so mark
  // the place with the instruction next to it.
  SmallVector<std::pair<Instruction *, const Point *>, 8> Places;
  for (const Point &P : B.Points)
    Places.push_back({P.Out ? P.At->getNextNode() : P.At, &P});
  SmallVector<Instruction *, 64> Body;
  for (Instruction &I : *B.Entry)
    Body.push_back(&I);
  DenseMap<Instruction *, Instruction *> NewOf;
  SmallVector<Instruction *, 16> Others;
  for (Instruction *I : Body) {
    auto It = Staged.find(I);
    if (It == Staged.end()) {
      if (isa<LoadInst>(I) || isa<StoreInst>(I))
        Others.push_back(I);
      continue;
    }
    auto [R, Lo] = It->second;
    IRBuilder<> At(I);
    Value *Pv = At.CreateConstInBoundsGEP1_32(At.getInt8Ty(), R->Priv, Lo);
    Align Al = commonAlignment(Align(R->Unit), Lo);
    Instruction *New;
    if (auto *L = dyn_cast<LoadInst>(I)) {
      New = At.CreateAlignedLoad(L->getType(), Pv, Al);
      New->takeName(L);
      L->replaceAllUsesWith(New);
    } else {
      New = At.CreateAlignedStore(cast<StoreInst>(I)->getValueOperand(), Pv, Al);
    }
    NewOf[I] = New;
    I->eraseFromParent();
  }
  for (auto [At, P] : Places) {
    if (auto It = NewOf.find(At); It != NewOf.end())
      At = It->second;
    BasicBlock *Before = At->getParent();
    Before->splitBasicBlock(At, "kfuse.rec.cont");
    emitRounds(B, *P, Before, X);
  }
  // Any other access happens where it did, under the guard's condition.
  for (Instruction *I : Others) {
    Instruction *Term = SplitBlockAndInsertIfThen(Active, I, false);
    I->moveBefore(Term->getIterator());
    if (auto *L = dyn_cast<LoadInst>(I)) {
      BasicBlock *Then = L->getParent(), *Join = Term->getSuccessor(0);
      PHINode *Phi = PHINode::Create(L->getType(), 2, "", Join->begin());
      L->replaceUsesWithIf(Phi, [&](Use &U) { return U.getUser() != Phi; });
      Phi->addIncoming(L, Then);
      Phi->addIncoming(PoisonValue::get(L->getType()), Then->getSinglePredecessor());
    }
  }
}

/// Unstages every output that has a store outside the bodies staging it: a
/// store left to global memory would land before the staged ones of its
/// body.
bool Stager::dropPartialOutputs() {
  bool Dropped = false;
  for (auto &[A, U] : Params) {
    if (!U.Stores)
      continue;
    Argument *Arg = A;
    auto StagesArg = [&](const Record &R) { return R.Arg == Arg; };
    bool Everywhere = llvm::all_of(U.Accesses, [&](Instruction *I) {
      return llvm::any_of(Bodies, [&](const Body &B) {
        return I->getParent() == B.Entry && llvm::any_of(B.Records, StagesArg);
      });
    });
    if (!Everywhere)
      for (Body &B : Bodies) {
        size_t Before = B.Records.size();
        llvm::erase_if(B.Records, StagesArg);
        Dropped |= B.Records.size() != Before;
      }
  }
  return Dropped;
}

std::vector<StagedRecord> Stager::run() {
  collectParams();
  if (Params.empty())
    return {};
  for (BasicBlock &BB : F) {
    std::optional<Body> B = bodyAt(BB);
    if (!B)
      continue;
    for (auto &[A, U] : Params)
      if (std::optional<Record> R = recordOf(*B, A, U))
        B->Records.push_back(std::move(*R));
    if (!B->Records.empty())
      Bodies.push_back(std::move(*B));
  }
  // Placing points may leave records out, and an output left out of one
  // body must be left out of all.
  for (bool Changed = true; Changed;) {
    Changed = dropPartialOutputs();
    for (Body &B : Bodies) {
      size_t Before = B.Records.size();
      placePoints(B);
      Changed |= B.Records.size() != Before;
    }
  }
  llvm::erase_if(Bodies, [](const Body &B) { return B.Records.empty(); });
  if (Bodies.empty())
    return {};
  unsigned TileBytes = 0;
  for (const Body &B : Bodies)
    for (const Point &P : B.Points)
      for (unsigned R : P.Records)
        TileBytes =
            std::max(TileBytes, B.Records[R].TileOff + B.Records[R].tileStride() * P.Round);

  auto *TileTy = ArrayType::get(Type::getInt8Ty(F.getContext()), TileBytes);
  Tile = new GlobalVariable(*F.getParent(), TileTy, false, GlobalValue::InternalLinkage,
                            PoisonValue::get(TileTy), F.getName() + ".records", nullptr,
                            GlobalValue::NotThreadLocal, SharedAS);
  Tile->setAlignment(Align(16));
  std::map<unsigned, StagedRecord> Staged;
  for (Body &B : Bodies) {
    for (const Record &R : B.Records) {
      StagedRecord &S = Staged[R.Arg->getArgNo()];
      S = StagedRecord{R.Arg->getArgNo(), R.Bytes, R.Store, std::max(S.BaseAlign, R.BaseAlign),
                       std::max(S.BlockMultiple, R.BlockMultiple)};
    }
    transform(B);
  }
  std::vector<StagedRecord> Out;
  for (auto &[Arg, S] : Staged)
    Out.push_back(S);
  return Out;
}

} // namespace

bool kfuse::recordVectorCopy() { return VectorCopy; }

Type *kfuse::copyWordType(LLVMContext &Ctx, unsigned Bytes) {
  if (Bytes == VectorUnit)
    return FixedVectorType::get(Type::getInt32Ty(Ctx), 4);
  return Type::getIntNTy(Ctx, 8 * Bytes);
}

std::vector<StagedRecord> kfuse::stageRecords(Function &F, FunctionAnalysisManager &FAM,
                                              unsigned SharedBudget, unsigned &TileBytes) {
  FAM.invalidate(F, PreservedAnalyses::none());
  auto &SE = FAM.getResult<ScalarEvolutionAnalysis>(F);
  auto &DT = FAM.getResult<DominatorTreeAnalysis>(F);
  auto &PDT = FAM.getResult<PostDominatorTreeAnalysis>(F);
  Stager S(F, SE, DT, PDT, SharedBudget);
  std::vector<StagedRecord> Staged = S.run();
  if (Staged.empty())
    return Staged;
  TileBytes += S.tileBytes();
  FAM.invalidate(F, PreservedAnalyses::none());
  FunctionPassManager FPM;
  FPM.addPass(SROAPass(SROAOptions::ModifyCFG));
  FPM.addPass(EarlyCSEPass(true));
  FPM.addPass(InstCombinePass());
  FPM.addPass(SimplifyCFGPass());
  FPM.run(F, FAM);
  return Staged;
}
