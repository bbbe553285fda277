//===- HostLaunch.cpp - kernel launches as clang lowers them for the host -===//
//
// Recognises the IR clang emits for `k<<<g, b, shmem, stream>>>(args)` in the
// host compilation, and reads each `__device_stub__` prologue to learn how
// the kernel's arguments are laid out. See HostLaunch.h.
//
//===----------------------------------------------------------------------===//
#include "HostLaunch.h"
#include "RemarkText.h"

#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"


using namespace llvm;

namespace kfuse {

bool isPushCall(const Instruction &I) {
  const auto *CB = dyn_cast<CallBase>(&I);
  const Function *F = CB ? CB->getCalledFunction() : nullptr;
  return F && F->getName() == "__cudaPushCallConfiguration";
}

bool isStubCall(const Instruction &I) {
  const auto *CB = dyn_cast<CallBase>(&I);
  const Function *F = CB ? CB->getCalledFunction() : nullptr;
  return F && F->getName().contains("__device_stub__");
}

StringRef cudaApiName(const Function *F) {
  if (!F)
    return "";
  StringRef Name = F->getName();
  if (Name.starts_with("cuda"))
    return Name;
  // cuda_runtime.h wraps several C entry points in templates and static
  // inline overloads (`_Z10cudaMallocIfE9cudaErrorPPT_m`); they forward to
  // the C function unchanged, so they stand for it.
  if (!Name.consume_front("_Z"))
    return "";
  Name.consume_front("L");
  unsigned Len = 0;
  if (Name.consumeInteger(10, Len) || Len > Name.size())
    return "";
  StringRef Ident = Name.take_front(Len);
  return Ident.starts_with("cuda") ? Ident : "";
}

std::string kernelName(const Function &Stub) {
  // The device pass names the kernel itself the same way (RemarkText.h).
  std::string D = shortName(Stub.getName());
  static constexpr StringRef Prefix = "__device_stub__";
  size_t At = D.find(Prefix.data());
  if (At != std::string::npos)
    D.erase(At, Prefix.size());
  return D;
}

std::optional<unsigned> calleeArgument(const CallBase &Call) {
  const Value *Callee = Call.getCalledOperand()->stripPointerCasts();
  if (isa<Function>(Callee))
    return std::nullopt;
  // Clang's code for a parameter: spilled to a slot at entry, loaded where
  // it is used.
  if (const auto *LI = dyn_cast<LoadInst>(Callee); LI && LI->isSimple()) {
    const auto *Slot = dyn_cast<AllocaInst>(LI->getPointerOperand());
    if (!Slot)
      return std::nullopt;
    const Value *Stored = nullptr;
    for (const User *U : Slot->users()) {
      if (const auto *L = dyn_cast<LoadInst>(U); L && L->isSimple())
        continue;
      const auto *SI = dyn_cast<StoreInst>(U);
      if (!SI || !SI->isSimple() || SI->getPointerOperand() != Slot || Stored)
        return std::nullopt;
      Stored = SI->getValueOperand();
    }
    Callee = Stored ? Stored->stripPointerCasts() : nullptr;
  }
  if (const auto *A = dyn_cast_or_null<Argument>(Callee); A && A->getParent() == Call.getFunction())
    return A->getArgNo();
  return std::nullopt;
}

/// Walks the straight-line code that starts at \p From, following
/// unconditional branches and invoke normal edges into blocks that have no
/// other predecessor, and returns the first stub call, or null: a call of a
/// `__device_stub__`, or with \p ThroughArgument a call through a parameter
/// of the function (calleeArgument).
static CallBase *findStubCall(BasicBlock *From, bool ThroughArgument) {
  BasicBlock *BB = From;
  for (unsigned Steps = 0; BB && Steps < 64; ++Steps) {
    for (Instruction &I : *BB) {
      if (!ThroughArgument && isStubCall(I))
        return cast<CallBase>(&I);
      if (auto *CB = dyn_cast<CallBase>(&I); ThroughArgument && CB && calleeArgument(*CB))
        return CB;
    }
    BasicBlock *Next = nullptr;
    Instruction *T = BB->getTerminator();
    if (auto *Br = dyn_cast<BranchInst>(T); Br && Br->isUnconditional())
      Next = Br->getSuccessor(0);
    else if (auto *II = dyn_cast<InvokeInst>(T))
      Next = II->getNormalDest();
    BB = Next && Next->getSinglePredecessor() == BB ? Next : nullptr;
  }
  return nullptr;
}

bool matchLaunch(CallBase &Push, Launch &L, bool ThroughArgument) {
  // dim3 is passed as {i64 xy, i32 z} on x86-64; anything else is an ABI we
  // do not decode.
  FunctionType *FT = Push.getFunctionType();
  if (FT->getNumParams() != 6 || !FT->getParamType(0)->isIntegerTy(64) ||
      !FT->getParamType(1)->isIntegerTy(32) ||
      !FT->getParamType(2)->isIntegerTy(64) ||
      !FT->getParamType(3)->isIntegerTy(32) ||
      !FT->getParamType(4)->isIntegerTy() ||
      !FT->getParamType(5)->isPointerTy())
    return false;
  if (!Push.hasOneUse())
    return false;
  Instruction *AfterPush = Push.getNextNode();
  if (auto *II = dyn_cast<InvokeInst>(&Push)) {
    if (II->getNormalDest()->getSinglePredecessor() != II->getParent())
      return false;
    AfterPush = &*II->getNormalDest()->getFirstNonPHIOrDbg();
  }
  auto *Cmp = dyn_cast_or_null<ICmpInst>(AfterPush);
  if (!Cmp || Cmp->getOperand(0) != &Push || !Cmp->hasOneUse() ||
      !isa<ConstantInt>(Cmp->getOperand(1)) ||
      !cast<ConstantInt>(Cmp->getOperand(1))->isZero() || !Cmp->isEquality())
    return false;
  // Clang starts the lifetime of a temporary that the arguments create (a
  // struct a function returns through sret, `k<<<g, b>>>(f(a).x)`) between
  // the test and its branch.
  Instruction *Next = Cmp->getNextNode();
  while (Next && (Next->isLifetimeStartOrEnd() || Next->isDebugOrPseudoInst()))
    Next = Next->getNextNode();
  auto *Br = dyn_cast_or_null<BranchInst>(Next);
  if (!Br || !Br->isConditional() || Br->getCondition() != Cmp)
    return false;
  bool NE = Cmp->getPredicate() == ICmpInst::ICMP_NE;
  BasicBlock *OK = Br->getSuccessor(NE ? 1 : 0);
  BasicBlock *Skip = Br->getSuccessor(NE ? 0 : 1);
  if (OK == Skip || OK->getSinglePredecessor() != Br->getParent())
    return false;
  CallBase *Stub = findStubCall(OK, ThroughArgument);
  if (!Stub)
    return false;
  L.Push = &Push;
  L.Cmp = Cmp;
  L.Branch = Br;
  L.ConfigOK = OK;
  L.Skip = Skip;
  L.StubCall = Stub;
  return true;
}

/// The one instruction kinds a stub prologue may contain: they only move
/// bytes between the stub's parameters and its own allocas.
static bool isPrologueInst(const Instruction &I) {
  if (auto *LI = dyn_cast<LoadInst>(&I))
    return LI->isSimple();
  if (auto *SI = dyn_cast<StoreInst>(&I))
    return SI->isSimple();
  if (auto *MI = dyn_cast<MemIntrinsic>(&I))
    return !MI->isVolatile();
  return isa<GetElementPtrInst>(I) || isa<CastInst>(I) ||
         isa<BinaryOperator>(I) || isa<ExtractValueInst>(I) ||
         isa<InsertValueInst>(I) || isa<ExtractElementInst>(I) ||
         isa<InsertElementInst>(I) || isa<ShuffleVectorInst>(I);
}

/// The size of the kernel parameter that \p A, a pointer parameter of
/// \p Stub stored into the argument array as it is, points to: an argument
/// passed indirectly (a class that is not trivially copyable, as `__half2`,
/// goes by address on x86-64, without byval). Its type is in no declaration
/// the stub keeps; the callers' temporaries have it. Nothing when a call
/// does not pass a local of a fixed type there, or two disagree.
static std::optional<uint64_t> indirectArgBytes(const Function &Stub, const Argument &A) {
  if (!A.getType()->isPointerTy() || A.hasByValAttr())
    return std::nullopt;
  const DataLayout &DL = Stub.getDataLayout();
  std::optional<uint64_t> Bytes;
  for (const User *U : Stub.users()) {
    const auto *CB = dyn_cast<CallBase>(U);
    if (!CB || CB->getCalledOperand() != &Stub)
      continue;
    const auto *Tmp = dyn_cast<AllocaInst>(getUnderlyingObject(CB->getArgOperand(A.getArgNo())));
    if (!Tmp || !Tmp->isStaticAlloca() || !Tmp->getAllocationSize(DL))
      return std::nullopt;
    uint64_t Size = Tmp->getAllocationSize(DL)->getFixedValue();
    if (Bytes && *Bytes != Size)
      return std::nullopt;
    Bytes = Size;
  }
  return Bytes;
}

StubLayout StubLayout::analyze(Function &Stub) {
  StubLayout S;
  S.Stub = &Stub;
  if (Stub.isDeclaration()) {
    S.WhyNot = "its stub has no body in this module";
    return S;
  }
  const DataLayout &DL = Stub.getDataLayout();
  CallBase *LaunchCall = nullptr;
  for (Instruction &I : instructions(Stub))
    if (auto *CB = dyn_cast<CallBase>(&I))
      if (Function *F = CB->getCalledFunction())
        if (F->getName() == "cudaLaunchKernel" ||
            F->getName() == "cudaLaunchKernel_ptsz")
          LaunchCall = CB;
  if (!LaunchCall || LaunchCall->arg_size() != 8) {
    S.WhyNot = "its stub does not call cudaLaunchKernel";
    return S;
  }
  S.PerThreadDefaultStream =
      LaunchCall->getCalledFunction()->getName() == "cudaLaunchKernel_ptsz";
  auto *Array = dyn_cast<AllocaInst>(LaunchCall->getArgOperand(5));
  BasicBlock &Entry = Stub.getEntryBlock();
  if (!Array || Array->getParent() != &Entry) {
    S.WhyNot = "its stub's argument array is not a local array";
    return S;
  }

  // Which pointer lands in args[j].
  std::map<uint64_t, Value *> Stored;
  auto Record = [&](uint64_t J, Value *V) {
    return Stored.emplace(J, V).second;
  };
  for (User *U : Array->users()) {
    if (U == LaunchCall)
      continue;
    if (auto *SI = dyn_cast<StoreInst>(U);
        SI && SI->getPointerOperand() == Array && Record(0, SI->getValueOperand()))
      continue;
    auto *GEP = dyn_cast<GetElementPtrInst>(U);
    auto *Idx = GEP && GEP->getNumIndices() == 1
                    ? dyn_cast<ConstantInt>(GEP->getOperand(1))
                    : nullptr;
    auto *SI = GEP && GEP->hasOneUse() ? dyn_cast<StoreInst>(GEP->user_back())
                                       : nullptr;
    if (!Idx || !GEP->getSourceElementType()->isPointerTy() || !SI ||
        SI->getPointerOperand() != GEP ||
        !Record(Idx->getZExtValue(), SI->getValueOperand())) {
      S.WhyNot = "its stub fills the argument array in an unexpected way";
      return S;
    }
  }
  for (uint64_t J = 0; J < Stored.size(); ++J) {
    auto It = Stored.find(J);
    if (It == Stored.end()) {
      S.WhyNot = "its stub leaves a hole in the argument array";
      return S;
    }
    Value *Slot = It->second;
    if (auto *AI = dyn_cast<AllocaInst>(Slot);
        AI && AI->getParent() == &Entry && AI->isStaticAlloca() &&
        AI->comesBefore(Array)) {
      S.Sizes.push_back(DL.getTypeAllocSize(AI->getAllocatedType()));
      int PtrArg = -1;
      if (AI->getAllocatedType()->isPointerTy()) {
        unsigned NStores = 0;
        for (User *U : AI->users())
          if (auto *SI = dyn_cast<StoreInst>(U); SI && SI->getPointerOperand() == AI) {
            ++NStores;
            if (auto *A = dyn_cast<Argument>(SI->getValueOperand()))
              PtrArg = A->getArgNo();
          }
        if (NStores != 1)
          PtrArg = -1;
      }
      S.PointerArg.push_back(PtrArg);
    } else if (auto *A = dyn_cast<Argument>(Slot); A && A->hasByValAttr()) {
      S.Sizes.push_back(DL.getTypeAllocSize(A->getParamByValType()));
      S.PointerArg.push_back(-1);
    } else if (std::optional<uint64_t> Bytes = A ? indirectArgBytes(Stub, *A) : std::nullopt) {
      S.Sizes.push_back(*Bytes);
      S.PointerArg.push_back(-1);
      S.Indirect.push_back(A);
    } else {
      S.WhyNot = "its stub passes a kernel argument that is neither a local "
                 "nor a byval parameter";
      return S;
    }
    S.Slots.push_back(Slot);
  }

  for (Instruction &I : Entry) {
    if (&I == Array)
      break;
    if (isa<AllocaInst>(I) || I.isDebugOrPseudoInst() || I.isLifetimeStartOrEnd())
      continue;
    if (!isPrologueInst(I)) {
      S.WhyNot = "its stub's prologue does more than copy its parameters";
      return S;
    }
    S.Prologue.push_back(&I);
  }
  return S;
}

AnnotatedStubs::AnnotatedStubs(Module &M) {
  GlobalVariable *GA = M.getGlobalVariable("llvm.global.annotations");
  auto *Arr = GA && GA->hasInitializer()
                  ? dyn_cast<ConstantArray>(GA->getInitializer())
                  : nullptr;
  if (!Arr)
    return;
  for (Value *Op : Arr->operands()) {
    auto *Entry = dyn_cast<ConstantStruct>(Op);
    if (!Entry || Entry->getNumOperands() < 2)
      continue;
    auto *F = dyn_cast<Function>(Entry->getOperand(0)->stripPointerCasts());
    auto *StrGV =
        dyn_cast<GlobalVariable>(Entry->getOperand(1)->stripPointerCasts());
    auto *Str = StrGV && StrGV->hasInitializer()
                    ? dyn_cast<ConstantDataArray>(StrGV->getInitializer())
                    : nullptr;
    if (F && Str && Str->isCString() && Str->getAsCString() == "kfuse_map" &&
        !Layouts.count(F))
      Layouts.emplace(F, StubLayout::analyze(*F));
  }
}

StubLayout *AnnotatedStubs::lookup(Function *Stub) {
  auto It = Layouts.find(Stub);
  return It == Layouts.end() ? nullptr : &It->second;
}

/// Returns the named struct \p Name with body \p Body, creating it (under a
/// fresh name if a different type took \p Name).
static StructType *getNamedStruct(Module &M, StringRef Name,
                                  ArrayRef<Type *> Body) {
  if (StructType *T = StructType::getTypeByName(M.getContext(), Name))
    if (T->elements() == Body)
      return T;
  return StructType::create(M.getContext(), Body, Name);
}

StructType *getLaunchRecordType(Module &M) {
  LLVMContext &C = M.getContext();
  const DataLayout &DL = M.getDataLayout();
  Type *Ptr = PointerType::getUnqual(C);
  Type *I32 = Type::getInt32Ty(C);
  Type *SizeT = DL.getIntPtrType(C);
  Type *Dim = ArrayType::get(I32, 3);
  // Field order and types follow kf_launch_t; LaunchField names them.
  return getNamedStruct(M, "kfuse.launch",
                        {Ptr, Dim, Dim, SizeT, Ptr, Ptr, Ptr, I32, I32,
                         Type::getInt64Ty(C)});
}

StructType *getSiteType(Module &M) {
  LLVMContext &C = M.getContext();
  Type *Ptr = PointerType::getUnqual(C);
  Type *I32 = Type::getInt32Ty(C);
  return getNamedStruct(M, "kfuse.site", {Ptr, Ptr, I32, I32, Ptr, Ptr, Ptr, I32, Ptr});
}

StructType *getFieldPtrType(Module &M) {
  Type *I32 = Type::getInt32Ty(M.getContext());
  return getNamedStruct(M, "kfuse.fieldptr", {I32, I32, I32, I32});
}

StructType *getScratchDeclType(Module &M) {
  LLVMContext &C = M.getContext();
  Type *Ptr = PointerType::getUnqual(C);
  Type *I32 = Type::getInt32Ty(C);
  return getNamedStruct(M, "kfuse.scratch", {I32, I32, Ptr, Ptr});
}

static constexpr const char *RecordStoreKind = "kfuse.record";

void markRecordStore(StoreInst &SI) {
  SI.setVolatile(true);
  SI.setMetadata(RecordStoreKind, MDNode::get(SI.getContext(), {}));
}

bool releaseRecordStores(Function &F) {
  bool Any = false;
  for (Instruction &I : instructions(F))
    if (I.hasMetadata() && I.getMetadata(RecordStoreKind)) {
      if (auto *SI = dyn_cast<StoreInst>(&I))
        SI->setVolatile(false);
      I.setMetadata(RecordStoreKind, nullptr);
      Any = true;
    }
  return Any;
}

} // namespace kfuse
