//===- LaunchSites.cpp - launch locations from the Clang plugin's list ---===//
//
// In a host compilation without debug locations the Clang plugin lists, for
// each host function, its launches (by stub) and its calls of functions
// that launch (by callee), each with its line and column, in source order
// (`kfuse.launch-sites 1`, docs/annotations.md). Before the host pass
// looks at a function, placeLaunchSites() gives the k-th launch of each
// stub, and the k-th call of each listed callee, the k-th listed location,
// where the function holds as many as the list: clang emits a function's
// statements in source order, so the two orders agree. The locations hang
// from a compile unit of kind NoDebug made for them, which emits nothing;
// the host pass strips it all once the launches are bound.
//
//===----------------------------------------------------------------------===//
#include "HostLaunch.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/BinaryFormat/Dwarf.h"
#include "llvm/IR/DIBuilder.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace {

struct Site {
  unsigned Line = 0, Col = 0;
};

/// One `fn` entry: the function's file and, per stub or callee, its sites
/// in source order.
struct FunctionSites {
  StringRef File;
  StringMap<SmallVector<Site, 4>> Launches, Calls;
};

bool parseLineCol(StringRef S, Site &Out) {
  auto [L, C] = S.split(':');
  return !L.getAsInteger(10, Out.Line) && !C.getAsInteger(10, Out.Col);
}

/// Parses the list; a line it does not understand ends it (what was read
/// before still counts).
MapVector<StringRef, FunctionSites> parse(StringRef Text) {
  MapVector<StringRef, FunctionSites> Fns;
  FunctionSites *Cur = nullptr;
  while (!Text.empty()) {
    auto [Line, Rest] = Text.split('\n');
    Text = Rest;
    SmallVector<StringRef, 3> F;
    Line.split(F, ' ');
    Site S;
    if (F.size() == 3 && F[0] == "fn") {
      Cur = &Fns[F[1]];
      Cur->File = F[2];
    } else if (F.size() == 3 && Cur && (F[0] == "launch" || F[0] == "call") &&
               parseLineCol(F[2], S)) {
      (F[0] == "launch" ? Cur->Launches : Cur->Calls)[F[1]].push_back(S);
    } else {
      break;
    }
  }
  return Fns;
}

} // namespace

bool kfuse::placeLaunchSites(Module &M, StringRef Text) {
  MapVector<StringRef, FunctionSites> Fns = parse(Text);
  DIBuilder DIB(M, /*AllowUnresolved=*/false);
  DICompileUnit *CU = nullptr;
  StringMap<DIFile *> Files;
  for (auto &[Name, Sites] : Fns) {
    Function *F = M.getFunction(Name);
    if (!F || F->isDeclaration() || F->getSubprogram())
      continue;
    // The IR's launches of each stub and calls of each callee, in order.
    StringMap<SmallVector<SmallVector<Instruction *, 2>, 4>> Launches, Calls;
    for (BasicBlock &BB : *F)
      for (Instruction &I : BB) {
        auto *CB = dyn_cast<CallBase>(&I);
        const Function *Callee = CB ? CB->getCalledFunction() : nullptr;
        if (!Callee)
          continue;
        if (isPushCall(I)) {
          Launch L;
          if (matchLaunch(*CB, L) && L.stub())
            Launches[L.stub()->getName()].push_back({L.Push, L.StubCall});
        } else if (Sites.Calls.count(Callee->getName())) {
          Calls[Callee->getName()].push_back({CB});
        }
      }
    DISubprogram *SP = nullptr;
    auto Place = [&](StringMap<SmallVector<Site, 4>> &Listed,
                     StringMap<SmallVector<SmallVector<Instruction *, 2>, 4>> &Found) {
      for (auto &[Target, At] : Listed) {
        auto It = Found.find(Target);
        if (It == Found.end() || It->second.size() != At.size())
          continue; // clang emitted another number of them: no location
        if (!SP) {
          if (!CU) {
            DIFile *Unnamed = DIB.createFile("<kfuse>", "");
            CU = DIB.createCompileUnit(dwarf::DW_LANG_C_plus_plus, Unnamed, "kfuse",
                                       /*isOptimized=*/true, "", 0, "",
                                       DICompileUnit::NoDebug);
          }
          DIFile *&File = Files[Sites.File];
          if (!File)
            File = DIB.createFile(Sites.File, "");
          SP = DIB.createFunction(File, F->getName(), F->getName(), File, 0,
                                  DIB.createSubroutineType(DIB.getOrCreateTypeArray({})), 0,
                                  DINode::FlagZero, DISubprogram::SPFlagDefinition);
          F->setSubprogram(SP);
        }
        for (auto [Insts, S] : zip(It->second, At)) {
          DILocation *Loc = DILocation::get(M.getContext(), S.Line, S.Col, SP);
          for (Instruction *I : Insts)
            I->setDebugLoc(Loc);
        }
      }
    };
    Place(Sites.Launches, Launches);
    Place(Sites.Calls, Calls);
  }
  if (CU)
    DIB.finalize();
  return CU != nullptr;
}
