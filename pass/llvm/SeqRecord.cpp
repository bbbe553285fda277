//===- SeqRecord.cpp - the Clang plugin's records in the IR ---------------===//
//
// llvm.global.annotations is an array of { ptr annotated, ptr string, ptr
// file, i32 line, ptr args }. Marks annotate kernels with "kfuse_map";
// records annotate __kfuse_seq_<N> byte variables with the record text.
//
//===----------------------------------------------------------------------===//
#include "SeqRecord.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/Support/xxhash.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

using namespace llvm;
using namespace kfuse;

static constexpr StringLiteral SeqPrefix = "__kfuse_seq_";
static constexpr StringLiteral TuSymbol = "__kfuse_tu";
static constexpr StringLiteral TuTag = "kfuse.tu ";
static constexpr StringLiteral LaunchSitesTag = "kfuse.launch-sites 1\n";
/// What clang appends to an internal kernel's name when -fgpu-rdc makes it
/// external (CodeGenModule::printPostfixForExternalizedDecl), before a hash
/// of the CUID.
static constexpr StringLiteral InternInfix = "__intern__";

/// The string an annotation entry points at, or "" when it is not one.
static StringRef annotationString(Constant *C) {
  auto *GV = dyn_cast<GlobalVariable>(C->stripPointerCasts());
  if (!GV || !GV->hasInitializer())
    return "";
  auto *CDA = dyn_cast<ConstantDataArray>(GV->getInitializer());
  if (!CDA || !CDA->isString())
    return "";
  return CDA->isCString() ? CDA->getAsCString() : CDA->getAsString();
}

static bool parseUnsigned(StringRef S, unsigned &V) {
  return !S.empty() && !S.getAsInteger(10, V);
}

/// Parses "key=<v>" into V.
static bool parseKeyed(StringRef Field, StringRef Key, unsigned &V) {
  return Field.consume_front(Key) && Field.consume_front("=") && parseUnsigned(Field, V);
}

bool kfuse::parseSeqRecord(StringRef Text, SeqRecord &R, std::string &Err) {
  SmallVector<StringRef, 16> Lines;
  Text.split(Lines, '\n', -1, /*KeepEmpty=*/false);
  if (Lines.empty() || Lines[0].trim() != "kfuse.seq 1") {
    Err = "does not start with 'kfuse.seq 1'";
    return false;
  }
  for (size_t L = 1; L < Lines.size(); ++L) {
    StringRef Line = Lines[L].rtrim("\r");
    auto [Tag, Rest] = Line.split(' ');
    if (Tag == "site") {
      R.Site = Rest.str();
    } else if (Tag == "launch") {
      SmallVector<StringRef, 8> F;
      Rest.split(F, ' ', -1, false);
      SeqLaunch La;
      if ((F.size() != 7 && (F.size() != 8 || !F[7].starts_with("fields="))) ||
          !parseUnsigned(F[0], La.Index) ||
          !parseKeyed(F[2], "grid", La.Grid) || !parseKeyed(F[3], "block", La.Block) ||
          !parseKeyed(F[4], "shmem", La.Shmem) || !parseKeyed(F[5], "stream", La.Stream) ||
          !F[6].starts_with("args=")) {
        Err = "malformed launch line '" + Line.str() + "'";
        return false;
      }
      La.Kernel = F[1].str();
      SmallVector<StringRef, 8> Args;
      F[6].drop_front(5).split(Args, ',', -1, false);
      for (StringRef A : Args) {
        unsigned V;
        if (!parseUnsigned(A, V)) {
          Err = "malformed argument list in '" + Line.str() + "'";
          return false;
        }
        La.Args.push_back(V);
      }
      SmallVector<StringRef, 8> Fields;
      if (F.size() == 8)
        F[7].drop_front(7).split(Fields, ',', -1, false);
      for (StringRef Fi : Fields) {
        auto [ParamOff, Val] = Fi.split(':');
        auto [Param, Off] = ParamOff.split('+');
        SeqLaunch::Field X;
        if (!parseUnsigned(Param, X.Param) || X.Param >= La.Args.size() ||
            Off.getAsInteger(10, X.Offset) || X.Offset >= (1u << 20) ||
            !parseUnsigned(Val, X.Value)) {
          Err = "malformed field list in '" + Line.str() + "'";
          return false;
        }
        La.Fields.push_back(X);
      }
      if (La.Index != R.Launches.size()) {
        Err = "launch " + std::to_string(La.Index) + " out of order";
        return false;
      }
      R.Launches.push_back(std::move(La));
    } else if (Tag == "value") {
      auto [Num, KindText] = Rest.split(' ');
      auto [Kind, ValText] = KindText.split(' ');
      unsigned V;
      if (!parseUnsigned(Num, V) ||
          (Kind != "ptr" && Kind != "int" && Kind != "float" && Kind != "other")) {
        Err = "malformed value line '" + Line.str() + "'";
        return false;
      }
      R.Values[V] = {Kind.str(), ValText.str()};
    } else {
      Err = "unknown line '" + Line.str() + "'";
      return false;
    }
  }
  if (R.Launches.size() < 2) {
    Err = "has fewer than two launches";
    return false;
  }
  for (const SeqLaunch &La : R.Launches) {
    for (unsigned V : {La.Grid, La.Block, La.Shmem, La.Stream})
      if (!R.Values.count(V)) {
        Err = "launch " + std::to_string(La.Index) + " uses undefined value " +
              std::to_string(V);
        return false;
      }
    for (unsigned V : La.Args)
      if (!R.Values.count(V)) {
        Err = "launch " + std::to_string(La.Index) + " uses undefined value " +
              std::to_string(V);
        return false;
      }
  }
  return true;
}

static ConstantArray *annotationArray(Module &M) {
  GlobalVariable *GA = M.getNamedGlobal("llvm.global.annotations");
  if (!GA || !GA->hasInitializer())
    return nullptr;
  return dyn_cast<ConstantArray>(GA->getInitializer());
}

/// What follows \p Tag in the first annotation of __kfuse_tu that starts
/// with it; std::nullopt when none does.
static std::optional<StringRef> tuAnnotation(const Module &M, StringRef Tag) {
  const GlobalVariable *GA = M.getNamedGlobal("llvm.global.annotations");
  auto *CA = GA && GA->hasInitializer() ? dyn_cast<ConstantArray>(GA->getInitializer()) : nullptr;
  if (!CA)
    return std::nullopt;
  for (const Use &U : CA->operands()) {
    auto *E = dyn_cast<ConstantStruct>(U.get());
    if (!E || E->getNumOperands() < 2)
      continue;
    auto *GV = dyn_cast<GlobalVariable>(E->getOperand(0)->stripPointerCasts());
    if (!GV || GV->getName() != TuSymbol)
      continue;
    StringRef Text = annotationString(E->getOperand(1));
    if (Text.consume_front(Tag))
      return Text; // else another of the variable's annotations
  }
  return std::nullopt;
}

std::string kfuse::readTuKey(const Module &M) {
  std::optional<StringRef> Key = tuAnnotation(M, TuTag);
  if (!Key || Key->size() != 16 || Key->find_first_not_of("0123456789abcdef") != StringRef::npos)
    return "";
  return Key->str();
}

std::optional<std::string> kfuse::readLaunchSites(const Module &M) {
  if (std::optional<StringRef> Text = tuAnnotation(M, LaunchSitesTag))
    return Text->str();
  return std::nullopt;
}

std::string kfuse::deviceKernelName(const Module &M, StringRef Name) {
  if (const Function *F = M.getFunction(Name); F && !F->isDeclaration())
    return Name.str();
  std::string Found;
  for (const Function &F : M) {
    StringRef N = F.getName();
    if (F.isDeclaration() || !N.consume_front(Name) || !N.consume_front(InternInfix) ||
        N.empty() || N.find_first_not_of("0123456789abcdefABCDEF") != StringRef::npos)
      continue;
    if (!Found.empty())
      return ""; // two candidates: neither is certain
    Found = F.getName().str();
  }
  return Found;
}

ModuleRecords kfuse::readModuleRecords(Module &M) {
  ModuleRecords Out;
  Out.TuKey = readTuKey(M);
  std::vector<std::pair<std::string, std::string>> Texts; // (symbol, record)
  ConstantArray *CA = annotationArray(M);
  if (!CA)
    return Out;
  for (Use &U : CA->operands()) {
    auto *E = dyn_cast<ConstantStruct>(U.get());
    if (!E || E->getNumOperands() < 2)
      continue;
    Value *Target = E->getOperand(0)->stripPointerCasts();
    StringRef Text = annotationString(E->getOperand(1));
    if (auto *F = dyn_cast<Function>(Target)) {
      if (Text == "kfuse_map" && !F->isDeclaration())
        Out.Kernels.insert(F);
      StringRef Fn, Threads;
      if (Text.consume_front("kfuse_impl ") && !F->isDeclaration()) {
        std::tie(Fn, Threads) = Text.split(' ');
        ImplMark Mark;
        Mark.Function = Fn.str();
        bool Ok = !Fn.empty() && parseUnsigned(Threads, Mark.Threads) && Mark.Threads >= 1 &&
                  Mark.Threads <= 1024;
        std::string Name = F->getName().str();
        auto It = Out.Impls.find(Name);
        if (!Ok || (It != Out.Impls.end() && (It->second.Function != Mark.Function ||
                                               It->second.Threads != Mark.Threads))) {
          if (!llvm::is_contained(Out.BadImpls, Name))
            Out.BadImpls.push_back(Name);
        } else {
          Out.Impls[Name] = Mark;
        }
      }
      continue;
    }
    auto *GV = dyn_cast<GlobalVariable>(Target);
    if (!GV || !GV->getName().starts_with(SeqPrefix))
      continue;
    SeqRecord R;
    std::string Err;
    Texts.push_back({GV->getName().str(), Text.str()});
    if (!parseUnsigned(GV->getName().drop_front(SeqPrefix.size()), R.Id)) {
      Out.Malformed.push_back(GV->getName().str() + ": name has no sequence number");
      continue;
    }
    if (!parseSeqRecord(Text, R, Err)) {
      Out.Malformed.push_back(GV->getName().str() + ": record " + Err);
      continue;
    }
    for (SeqLaunch &La : R.Launches)
      if (std::string Defined = deviceKernelName(M, La.Kernel); !Defined.empty())
        La.Kernel = std::move(Defined);
    Out.Seqs.push_back(std::move(R));
  }
  for (const std::string &Name : Out.BadImpls)
    Out.Impls.erase(Name);
  llvm::sort(Out.Seqs, [](const SeqRecord &A, const SeqRecord &B) { return A.Id < B.Id; });
  if (Out.TuKey.empty() && !Texts.empty()) {
    // IR that did not come through the Clang plugin's device compilation
    // (opt on a hand-written module): the key is a hash of what the module
    // says, its records and marked kernels, so it is still content-derived.
    llvm::sort(Texts);
    std::string Buf = "kfuse.tu content";
    for (auto &[Sym, Text] : Texts)
      Buf += "\n" + Sym + "\n" + Text;
    for (Function *F : Out.Kernels)
      Buf += "\n" + F->getName().str();
    Out.TuKey = utohexstr(xxh3_64bits(StringRef(Buf)), /*LowerCase=*/true, /*Width=*/16);
    Out.KeyFromContent = true;
  }
  return Out;
}

bool kfuse::eraseSeqRecords(Module &M) {
  SmallVector<GlobalVariable *, 8> Seqs;
  for (GlobalVariable &GV : M.globals())
    if (GV.getName().starts_with(SeqPrefix) || GV.getName() == TuSymbol)
      Seqs.push_back(&GV);
  if (Seqs.empty())
    return false;

  if (ConstantArray *CA = annotationArray(M)) {
    GlobalVariable *GA = M.getNamedGlobal("llvm.global.annotations");
    SmallVector<Constant *, 16> Keep;
    SmallPtrSet<GlobalVariable *, 8> Strings;
    for (Use &U : CA->operands()) {
      auto *E = dyn_cast<ConstantStruct>(U.get());
      Value *Target = E ? E->getOperand(0)->stripPointerCasts() : nullptr;
      if (Target && llvm::is_contained(Seqs, Target)) {
        if (auto *S = dyn_cast<GlobalVariable>(E->getOperand(1)->stripPointerCasts()))
          Strings.insert(S);
        continue;
      }
      Keep.push_back(cast<Constant>(U.get()));
    }
    // The old array refers to the variables; it goes first.
    GA->setInitializer(nullptr);
    if (Keep.empty()) {
      GA->eraseFromParent();
    } else {
      auto *Ty = ArrayType::get(CA->getType()->getElementType(), Keep.size());
      auto *NewGA = new GlobalVariable(M, Ty, GA->isConstant(), GA->getLinkage(),
                                       ConstantArray::get(Ty, Keep), "", GA,
                                       GA->getThreadLocalMode(), GA->getAddressSpace());
      NewGA->setSection(GA->getSection());
      NewGA->takeName(GA);
      GA->eraseFromParent();
    }
    if (CA->use_empty())
      CA->destroyConstant();
    for (GlobalVariable *S : Strings) {
      S->removeDeadConstantUsers();
      if (S->use_empty())
        S->eraseFromParent();
    }
  }
  // A record may also be kept alive through llvm.used; it goes there too.
  removeFromUsedLists(M, [&](Constant *C) {
    return llvm::is_contained(Seqs, C->stripPointerCasts());
  });
  for (GlobalVariable *GV : Seqs) {
    GV->removeDeadConstantUsers();
    if (GV->use_empty())
      GV->eraseFromParent();
    else
      M.getContext().emitError("kfuse: cannot remove '" + GV->getName() +
                               "': it is used outside llvm.global.annotations");
  }
  return true;
}
