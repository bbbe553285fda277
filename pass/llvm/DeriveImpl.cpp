//===- DeriveImpl.cpp - finer-grained implementations of a kernel ---------===//
//
// A kernel with one thread per instance of a small-matrix routine computes
// every value of its instance's result in one thread: after unrolling, one
// block of straight-line code ending in S stores. The seed papers' faster
// plans run such a routine with several threads per instance, each
// computing some of the values. This file derives those implementations
// from the kernel itself, so the planner can choose them without the
// program writing them.
//
// The values must be computed alike. Store k's computation (the
// instructions of the body it depends on) is matched against store 0's:
// the same operations with the same flags, the same values from outside
// the body, and integer constants in the same places, which may differ:
// the byte offsets of the loads and of the store, indices and the like.
// Each such constant must follow the value's place k in the instance as
// A * (k / Q) + B * (k % Q) + C for one divisor Q of S (Q = S: B * k + C);
// a 3x3 product reads row k / 3 of one matrix and column k % 3 of the
// other. Then the computation of value k is store 0's with those constants
// evaluated at k. A load or store matches its counterpart where their
// addresses lie a constant apart, whatever instructions compute them (where
// the parameters may alias, the optimiser computes each value's base again).
// The stores write bytes of their own: two threads never store to one place.
//
// The implementation with d threads per original thread (d dividing S)
// runs thread g' as thread g'/d of the kernel, with the values (g' % d) *
// S/d .. (g' % d + 1) * S/d - 1: the kernel's global index is replaced by
// g'/d, its bounds check `g < n` by `g' < n'` on the same parameter, which
// the runtime passes d times as large (manifest `impl`), and the stores'
// computations by S/d copies of store 0's, at the thread's places. Each
// kept value is computed by the same instructions as in the kernel, so its
// bits are the same; each thread loads what its values need, all loads
// before its stores, which is sound because the kernel stores only through
// parameters it does not read, and the fused kernel's guards check that
// the launch's buffers do not overlap.
//
// The place is written with remainders and quotients of g' by divisors of
// d, the forms the kernel analysis reads as an instance's record
// (`9 * (j / 9) + 3 * (j % 9 / 3) + k`); a remainder is written g' - (g' /
// x) * x, which ScalarEvolution keeps as such for every x.
//
//===----------------------------------------------------------------------===//
#include "DeriveImpl.h"

#include "KernelAnalysis.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/GetElementPtrTypeIterator.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PatternMatch.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/Local.h"

#include <map>
#include <optional>
#include <set>

using namespace llvm;
using namespace llvm::PatternMatch;
using namespace kfuse;

namespace {

/// The pseudo operand number of a load's or store's constant byte offset.
constexpr unsigned AddrOp = ~0u;

/// v(k) = A * (k / Q) + B * (k % Q) + C for the places k < S.
struct Fit {
  unsigned Q = 1;
  int64_t A = 0, B = 0, C = 0;
  bool constant() const { return A == 0 && B == 0; }
};

using Position = std::pair<const Instruction *, unsigned>;

/// ctaid.x * ntid.x + tid.x, in the kernel's own arithmetic.
bool isGlobalIndex(const Value *V) {
  return match(V, m_c_Add(m_c_Mul(m_Intrinsic<Intrinsic::nvvm_read_ptx_sreg_ctaid_x>(),
                                  m_Intrinsic<Intrinsic::nvvm_read_ptx_sreg_ntid_x>()),
                          m_Intrinsic<Intrinsic::nvvm_read_ptx_sreg_tid_x>()));
}

/// A pointer as its base and constant byte offset.
std::pair<const Value *, int64_t> addressOf(const Value *Ptr, const DataLayout &DL) {
  APInt Off(DL.getIndexTypeSizeInBits(Ptr->getType()), 0);
  const Value *Base = Ptr->stripAndAccumulateConstantOffsets(DL, Off, /*AllowNonInbounds=*/true);
  return {Base, Off.getSExtValue()};
}

/// Whether operand \p Op of \p I may be a constant that differs from one
/// value's computation to the next (an index, an offset), rather than one
/// the instruction needs as it is (a struct field, an intrinsic's immarg).
bool mayVary(const Instruction *I, unsigned Op) {
  if (isa<BinaryOperator>(I) || isa<ICmpInst>(I) || isa<SelectInst>(I) || isa<CastInst>(I))
    return true;
  if (auto *GEP = dyn_cast<GetElementPtrInst>(I)) {
    if (Op == 0)
      return false;
    auto It = gep_type_begin(GEP);
    std::advance(It, Op - 1);
    return !It.isStruct();
  }
  return false;
}

/// The computations of the body's stores, matched against the first's.
class Slicer {
public:
  Slicer(const BasicBlock &Body, ArrayRef<StoreInst *> Stores, ScalarEvolution &SE)
      : Body(Body), DL(Body.getDataLayout()), Stores(Stores), SE(SE) {}

  /// Matches store \p K's computation against store 0's (store 0's own
  /// first: it collects the nodes); false where they differ.
  bool matchStore(unsigned K) {
    Memo.clear();
    Cur = K;
    return match(Stores[0], Stores[K]);
  }
  /// Store 0's computation within the body, in program order.
  std::vector<const Instruction *> nodes() const {
    std::vector<const Instruction *> Out;
    for (const Instruction &I : Body)
      if (Nodes.count(&I))
        Out.push_back(&I);
    return Out;
  }
  /// Each constant that may differ, by position in store 0's computation:
  /// its value in each store's.
  std::map<Position, std::vector<int64_t>> Values;

private:
  const BasicBlock &Body;
  const DataLayout &DL;
  ArrayRef<StoreInst *> Stores;
  ScalarEvolution &SE;
  std::map<const Value *, const Value *> Memo;
  std::set<const Instruction *> Nodes;
  unsigned Cur = 0;

  /// Store 0's value is every store's until matched: a base address only
  /// store 0's computation reaches is shared by all.
  void record(const Instruction *I, unsigned Op, int64_t V) {
    std::vector<int64_t> &Vs = Values[{I, Op}];
    if (Cur == 0)
      Vs.assign(Stores.size(), V);
    else
      Vs[Cur] = V;
  }
  /// Store 0's access at \p P, the other's at \p Q: the other's address
  /// is store 0's base and a constant offset, whatever instructions compute
  /// it (where the parameters may alias, the optimiser computes each
  /// value's base again, after the store before it).
  bool matchAddress(const Instruction *I, const Value *P, const Value *Q) {
    auto [Base, Off] = addressOf(P, DL);
    std::optional<int64_t> Delta = distance(P, Q);
    if (!Delta)
      return false;
    record(I, AddrOp, Off + *Delta);
    return Cur > 0 || match(Base, Base);
  }
  /// How many bytes \p Q lies after \p P, where that is a constant: by
  /// ScalarEvolution, or by the offsets from their parameter as the kernel
  /// analysis reads them, widenings taken for the values they widen (the
  /// optimiser drops the no-wrap flags of `9 * i + 1` where it rewrites it,
  /// which the source's int arithmetic had).
  std::optional<int64_t> distance(const Value *P, const Value *Q) {
    auto *PV = const_cast<Value *>(P), *QV = const_cast<Value *>(Q);
    if (auto *C = dyn_cast<SCEVConstant>(SE.getMinusSCEV(SE.getSCEV(QV), SE.getSCEV(PV))))
      return C->getAPInt().getSignificantBits() <= 32
                 ? std::optional<int64_t>(C->getAPInt().getSExtValue())
                 : std::nullopt;
    auto *A = dyn_cast<Argument>(getUnderlyingObject(P));
    if (!A || getUnderlyingObject(Q) != A)
      return std::nullopt;
    const SCEV *OP = offsetFromParam(SE, PV, A), *OQ = offsetFromParam(SE, QV, A);
    const Function &F = *Body.getParent();
    auto PP = OP ? polyOf(F, SE, OP) : std::nullopt, PQ = OQ ? polyOf(F, SE, OQ) : std::nullopt;
    if (!PP || !PQ || !(*PQ - *PP).isConstant())
      return std::nullopt;
    return (*PQ - *PP).constantTerm();
  }
  bool match(const Value *X, const Value *Y) {
    auto [It, New] = Memo.try_emplace(X, Y);
    if (!New)
      return It->second == Y;
    auto *I = dyn_cast<Instruction>(X);
    auto *J = dyn_cast<Instruction>(Y);
    if (!I || I->getParent() != &Body)
      return X == Y; // from outside the body: the same value
    if (!J || J->getParent() != &Body || !I->isSameOperationAs(J) ||
        !I->hasSameSubclassOptionalData(J) || I->getNumOperands() != J->getNumOperands() ||
        isa<PHINode>(I))
      return false;
    if (Cur == 0)
      Nodes.insert(I);
    if (auto *L = dyn_cast<LoadInst>(I))
      return L->isSimple() &&
             matchAddress(I, L->getPointerOperand(), cast<LoadInst>(J)->getPointerOperand());
    if (auto *S = dyn_cast<StoreInst>(I))
      return matchAddress(I, S->getPointerOperand(), cast<StoreInst>(J)->getPointerOperand()) &&
             match(S->getValueOperand(), cast<StoreInst>(J)->getValueOperand());
    for (unsigned Op = 0; Op < I->getNumOperands(); ++Op) {
      auto *CI = dyn_cast<ConstantInt>(I->getOperand(Op));
      auto *CJ = dyn_cast<ConstantInt>(J->getOperand(Op));
      if (CI && CJ && CI->getType() == CJ->getType() && CI->getBitWidth() <= 64 &&
          mayVary(I, Op)) {
        record(I, Op, CJ->getSExtValue());
        continue;
      }
      if (!match(I->getOperand(Op), J->getOperand(Op)))
        return false;
    }
    return true;
  }
};

/// The fit of \p V over the places 0..S-1, S = V.size() >= 2: the
/// affine one (Q = S) if it fits, else the first divisor Q of S that does.
std::optional<Fit> fitValues(ArrayRef<int64_t> V) {
  const unsigned S = V.size();
  SmallVector<unsigned, 8> Qs{S};
  for (unsigned Q = 2; Q < S; ++Q)
    if (S % Q == 0)
      Qs.push_back(Q);
  for (unsigned Q : Qs) {
    Fit F{Q, Q < S ? V[Q] - V[0] : 0, V[1] - V[0], V[0]};
    bool Ok = true;
    for (unsigned K = 0; K < S && Ok; ++K)
      Ok = V[K] == F.A * int64_t(K / Q) + F.B * int64_t(K % Q) + F.C;
    if (Ok)
      return F;
  }
  return std::nullopt;
}

/// The place of thread g' of an implementation with d threads per
/// original thread, q = S / d values each: s = g' % d, and the values
/// of a fit at its places k = q * s + u.
class Place {
public:
  Place(IRBuilder<> &B, Value *G, unsigned D, unsigned Q) : B(B), G(G), D(D), Q(Q) {}

  /// g' / x, signed as a program writes it (`j / 9` of an int): of an
  /// unsigned quotient, ScalarEvolution folds a widening into the division,
  /// and then the quotients of one index no longer cancel.
  Value *quot(unsigned X) {
    Value *&V = Quots[X];
    if (!V)
      V = B.CreateSDiv(G, B.getInt32(X), "kfuse.q" + Twine(X));
    return V;
  }
  /// g' % x, as g' - (g' / x) * x.
  Value *rem(unsigned X) {
    Value *&V = Rems[X];
    if (!V)
      V = B.CreateSub(G, B.CreateMul(quot(X), B.getInt32(X)), "kfuse.r" + Twine(X));
    return V;
  }
  /// The fit's value at place q * s + \p U, in type \p Ty.
  Value *value(const Fit &F, unsigned U, Type *Ty) {
    const unsigned S = D * Q;
    int64_t Const = F.C;
    SmallVector<std::pair<int64_t, Value *>, 2> Terms;
    if (F.constant()) {
      // nothing varies
    } else if (F.Q == S) {
      Terms.push_back({F.B * Q, rem(D)});
      Const += F.B * U;
    } else if (F.Q % Q == 0) {
      // k / Q' = s / r and k % Q' = (g' % r) * q + u, r = Q' / q dividing d.
      unsigned R = F.Q / Q;
      Terms.push_back({F.A, R == 1 ? rem(D) : B.CreateSDiv(rem(D), B.getInt32(R))});
      if (R > 1)
        Terms.push_back({F.B * Q, rem(R)});
      Const += F.B * U;
    } else if (Q % F.Q == 0) {
      // k / Q' = (q / Q') * s + u / Q' and k % Q' = u % Q'.
      Terms.push_back({F.A * (Q / F.Q), rem(D)});
      Const += F.A * (U / F.Q) + F.B * (U % F.Q);
    } else {
      Value *K = B.CreateAdd(B.CreateMul(rem(D), B.getInt32(Q)), B.getInt32(U));
      Value *KQ = B.CreateSDiv(K, B.getInt32(F.Q));
      Terms.push_back({F.A, KQ});
      Terms.push_back({F.B, B.CreateSub(K, B.CreateMul(KQ, B.getInt32(F.Q)))});
    }
    Value *V = nullptr;
    for (auto [Coef, Atom] : Terms) {
      if (Coef == 0)
        continue;
      Value *T = B.CreateMul(B.CreateZExtOrTrunc(Atom, Ty), ConstantInt::get(Ty, Coef, true));
      V = V ? B.CreateAdd(V, T) : T;
    }
    Value *C = ConstantInt::get(Ty, Const, /*IsSigned=*/true);
    return V ? (Const ? B.CreateAdd(V, C) : V) : C;
  }

private:
  IRBuilder<> &B;
  Value *G;
  unsigned D, Q;
  std::map<unsigned, Value *> Quots, Rems;
};

/// What deriveImpls found of the kernel, shared by its implementations.
struct Shape {
  BasicBlock *Body = nullptr;
  std::vector<StoreInst *> Stores;
  std::vector<const Instruction *> Nodes;
  std::map<Position, Fit> Fits;
};

/// Whether \p I reads a thread coordinate or extent.
bool readsSreg(const Instruction &I) { return sregSymbol(&I) >= 0; }

/// The implementation of \p F with \p D threads per original thread, or
/// null with \p Why set.
Function *deriveOne(Function &F, StringRef Name, const Shape &Sh, unsigned BoundParam,
                    unsigned D, std::string &Why) {
  ValueToValueMapTy VMap;
  Function *G = CloneFunction(&F, VMap);
  G->setName(Name + ".kfuse.split" + Twine(D));
  G->setLinkage(GlobalValue::InternalLinkage);
  auto Fail = [&](const std::string &Text) {
    Why = Text;
    G->eraseFromParent();
    return nullptr;
  };
  SmallVector<Instruction *, 2> Olds;
  for (Instruction &I : instructions(*G))
    if (isGlobalIndex(&I))
      Olds.push_back(&I);
  if (Olds.empty())
    return Fail("it computes its global index other than as blockIdx.x * blockDim.x + "
                "threadIdx.x in 32 bits");

  BasicBlock &Entry = G->getEntryBlock();
  IRBuilder<> B(&Entry, Entry.getFirstInsertionPt());
  Value *Ctaid = B.CreateIntrinsic(B.getInt32Ty(), Intrinsic::nvvm_read_ptx_sreg_ctaid_x, ArrayRef<Value *>());
  Value *Ntid = B.CreateIntrinsic(B.getInt32Ty(), Intrinsic::nvvm_read_ptx_sreg_ntid_x, ArrayRef<Value *>());
  Value *Tid = B.CreateIntrinsic(B.getInt32Ty(), Intrinsic::nvvm_read_ptx_sreg_tid_x, ArrayRef<Value *>());
  Value *GPrime = B.CreateAdd(B.CreateMul(Ctaid, Ntid), Tid, "kfuse.g");
  SmallPtrSet<const Value *, 4> Fresh{Ctaid, Ntid, Tid};

  // The bounds check, `g < n` (or `g >= n`), becomes `g' < n'`: g'/d < n
  // exactly where g' < d*n. Any other comparison of g with n (`g <= n`)
  // keeps g'/d and n'/d, like every other use.
  Argument *N = G->getArg(BoundParam);
  SmallPtrSet<const User *, 2> Checks;
  for (Instruction *Old : Olds)
    for (User *U : make_early_inc_range(Old->users()))
      if (auto *Cmp = dyn_cast<ICmpInst>(U)) {
        ICmpInst::Predicate Pred = Cmp->getOperand(0) == Old ? Cmp->getPredicate()
                                                             : Cmp->getSwappedPredicate();
        bool Strict = Pred == ICmpInst::ICMP_SLT || Pred == ICmpInst::ICMP_ULT ||
                      Pred == ICmpInst::ICMP_SGE || Pred == ICmpInst::ICMP_UGE;
        if (Strict && (Cmp->getOperand(0) == N || Cmp->getOperand(1) == N)) {
          Cmp->replaceUsesOfWith(Old, GPrime);
          Checks.insert(Cmp);
        }
      }
  if (Checks.empty())
    return Fail("it checks its global index against no integer parameter");

  Place P(B, GPrime, D, Sh.Stores.size() / D);
  Value *Inst = P.quot(D);
  for (Instruction *Old : Olds)
    Old->replaceAllUsesWith(Inst);
  Value *NOrig = B.CreateSDiv(N, B.getInt32(D), "kfuse.n", /*isExact=*/true);
  N->replaceUsesWithIf(NOrig, [&](Use &U) {
    return U.getUser() != NOrig && !Checks.count(U.getUser());
  });
  for (Instruction *Old : Olds)
    RecursivelyDeleteTriviallyDeadInstructions(Old);
  for (Instruction &I : instructions(*G))
    if (readsSreg(I) && !Fresh.count(&I))
      return Fail("it reads the thread's coordinates other than through its global index");

  // Each thread's values: q copies of store 0's computation, all loads and
  // arithmetic first, then the stores.
  auto *Body = cast<BasicBlock>(VMap[Sh.Body]);
  B.SetInsertPoint(Body->getTerminator());
  const DataLayout &DL = F.getDataLayout();
  const Argument *NF = F.getArg(BoundParam);
  const unsigned Q = Sh.Stores.size() / D;
  std::vector<Instruction *> Stores;
  for (unsigned U = 0; U < Q; ++U) {
    std::map<const Value *, Value *> Map;
    auto Mapped = [&](const Value *V) -> Value * {
      if (auto It = Map.find(V); It != Map.end())
        return It->second;
      if (V == NF)
        return NOrig;
      if (Value *W = VMap.lookup(V))
        return W;
      return const_cast<Value *>(V); // a constant or a global
    };
    auto Address = [&](const Instruction *I, const Value *Ptr) {
      const Value *Base = addressOf(Ptr, DL).first;
      Value *Off = P.value(Sh.Fits.at({I, AddrOp}), U, B.getInt64Ty());
      auto *C = dyn_cast<ConstantInt>(Off);
      return C && C->isZero() ? Mapped(Base) : B.CreatePtrAdd(Mapped(Base), Off);
    };
    for (const Instruction *I : Sh.Nodes) {
      Instruction *C = I->clone();
      for (unsigned Op = 0; Op < I->getNumOperands(); ++Op) {
        auto Fit = Sh.Fits.find({I, Op});
        C->setOperand(Op, Fit != Sh.Fits.end()
                              ? P.value(Fit->second, U, I->getOperand(Op)->getType())
                              : Mapped(I->getOperand(Op)));
      }
      if (auto *L = dyn_cast<LoadInst>(I))
        cast<LoadInst>(C)->setOperand(0, Address(I, L->getPointerOperand()));
      if (auto *S = dyn_cast<StoreInst>(I))
        cast<StoreInst>(C)->setOperand(1, Address(I, S->getPointerOperand()));
      if (isa<StoreInst>(C)) {
        Stores.push_back(C);
        continue;
      }
      B.Insert(C);
      Map[I] = C;
    }
  }
  for (Instruction *S : Stores)
    B.Insert(S);
  for (StoreInst *S : Sh.Stores)
    cast<Instruction>(VMap[S])->eraseFromParent();
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (Instruction &I : make_early_inc_range(reverse(*Body)))
      if (isInstructionTriviallyDead(&I)) {
        I.eraseFromParent();
        Changed = true;
      }
  }
  if (NOrig->use_empty())
    cast<Instruction>(NOrig)->eraseFromParent();
  return G;
}

} // namespace

Derivation kfuse::deriveImpls(Function &F, ScalarEvolution &SE, unsigned BoundParam,
                              unsigned Threads, unsigned MaxThreads, StringRef Name) {
  Derivation Out;
  // The entry checks the bound and branches to the body or to the exit;
  // the body runs straight to the exit, which returns.
  BasicBlock &Entry = F.getEntryBlock();
  auto *Br = dyn_cast<BranchInst>(Entry.getTerminator());
  BasicBlock *Body = nullptr;
  if (Br && Br->isConditional())
    for (unsigned T = 0; T < 2; ++T) {
      BasicBlock *S = Br->getSuccessor(T), *Other = Br->getSuccessor(1 - T);
      auto *Next = dyn_cast<BranchInst>(S->getTerminator());
      if (S->getSinglePredecessor() == &Entry && Next && !Next->isConditional() &&
          Next->getSuccessor(0) == Other && Other->size() == 1 &&
          isa<ReturnInst>(Other->front()))
        Body = S;
    }
  if (!Body || BoundParam >= F.arg_size()) {
    Out.Why = "its code is not one block of straight-line code under its bounds check";
    return Out;
  }
  for (const Instruction &I : Entry)
    if (I.mayReadOrWriteMemory()) {
      Out.Why = "it accesses memory before its bounds check";
      return Out;
    }
  std::vector<StoreInst *> Stores;
  SmallPtrSet<const Value *, 4> Read, Written;
  for (Instruction &I : *Body) {
    if (auto *S = dyn_cast<StoreInst>(&I)) {
      if (!S->isSimple()) {
        Out.Why = "it makes a volatile or atomic store";
        return Out;
      }
      Stores.push_back(S);
      Written.insert(getUnderlyingObject(S->getPointerOperand()));
      continue;
    }
    if (auto *L = dyn_cast<LoadInst>(&I)) {
      if (!L->isSimple()) {
        Out.Why = "it makes a volatile or atomic load";
        return Out;
      }
      Read.insert(getUnderlyingObject(L->getPointerOperand()));
      continue;
    }
    auto *Call = dyn_cast<CallBase>(&I);
    if (isa<PHINode>(I) || I.mayReadOrWriteMemory() || I.mayHaveSideEffects() ||
        (Call && (Call->isInlineAsm() || Call->isConvergent() || !Call->doesNotAccessMemory()))) {
      Out.Why = "its body does more than load, compute and store (" +
                std::string(I.getOpcodeName()) + ")";
      return Out;
    }
  }
  Out.Stores = Stores.size();
  if (Stores.size() < 2) {
    Out.Why = Stores.empty() ? "it stores nothing" : "each thread stores one value";
    return Out;
  }
  for (const Value *V : Read) {
    if (!isa<Argument>(V) || Written.count(V)) {
      Out.Why = isa<Argument>(V) ? "it reads a parameter it writes"
                                 : "it reads memory that is not a parameter's";
      return Out;
    }
  }
  for (const Value *V : Written)
    if (!isa<Argument>(V)) {
      Out.Why = "it writes memory that is not a parameter's";
      return Out;
    }

  Slicer Sl(*Body, Stores, SE);
  for (unsigned K = 0; K < Stores.size(); ++K)
    if (!Sl.matchStore(K)) {
      Out.Why = "its values are not computed alike: value " + std::to_string(K) +
                " of each thread differs from value 0 in more than constants";
      return Out;
    }
  // Each value in bytes of its own: two stores to one place would race
  // once different threads make them.
  std::vector<int64_t> At = Sl.Values.at({Stores[0], AddrOp});
  llvm::sort(At);
  const uint64_t Size = F.getDataLayout().getTypeStoreSize(Stores[0]->getValueOperand()->getType());
  for (size_t K = 1; K < At.size(); ++K)
    if (uint64_t(At[K] - At[K - 1]) < Size) {
      Out.Why = "two of its stores write overlapping bytes";
      return Out;
    }
  Shape Sh;
  Sh.Body = Body;
  Sh.Stores = Stores;
  Sh.Nodes = Sl.nodes();
  for (auto &[Pos, Vs] : Sl.Values) {
    std::optional<Fit> Fv = fitValues(Vs);
    if (!Fv) {
      Out.Why = "a constant of its values' computation does not follow the value's place "
                "in the instance (a * (k / q) + b * (k % q) + c)";
      return Out;
    }
    Sh.Fits[Pos] = *Fv;
  }
  const unsigned S = Stores.size();
  for (unsigned D = 2; D <= S && uint64_t(D) * Threads <= MaxThreads; ++D) {
    if (S % D)
      continue;
    std::string Why;
    if (Function *G = deriveOne(F, Name.empty() ? F.getName() : Name, Sh, BoundParam, D, Why)) {
      Out.Impls.push_back({G, D});
    } else {
      Out.Why = Why;
      break; // what fails for one split fails for the others
    }
  }
  if (Out.Impls.empty() && Out.Why.empty())
    Out.Why = "a split of its " + std::to_string(S) + " values would need more than " +
              std::to_string(MaxThreads) + " threads per instance";
  return Out;
}
