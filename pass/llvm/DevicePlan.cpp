//===- DevicePlan.cpp - the device plan as the host compilation reads it --===//
//
// Where the bytes are: clang's CUDA codegen puts the fatbinary in a private
// constant byte array and points @__cuda_fatbin_wrapper (magic, version,
// data, null; section .nvFatBinSegment) at it, for __cudaRegisterFatBinary;
// the old driver's -fgpu-rdc does the same with a relocatable fatbinary
// (section __nv_relfatbin). The new offload driver (-fgpu-rdc,
// --offload-new-driver) embeds offload binaries instead (@llvm.embedded.object,
// section .llvm.offloading), each holding a relocatable cubin, a fatbinary or,
// under -foffload-lto, device bitcode. Each kernel's device name is the
// string its stub is registered with, which is the name the runtime gets
// back from the driver. Everything that cannot be read makes the plan
// unknown, and the host pass then hands runs over as it would without a
// plan.
//
//===----------------------------------------------------------------------===//
#include "DevicePlan.h"

#include "kfuse/error.h"
#include "manifest/fatbin.h"
#include "manifest/manifest.h"
#include "manifest/match.h"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Object/OffloadBinary.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/TargetParser/Triple.h"

#include <algorithm>
#include <cstdlib>
#include <tuple>

using namespace llvm;
using namespace kfuse;

namespace {
/// Collects the names of the functions a cubin defines.
int addFunction(void *Ctx, const kf__elf_symbol_t *Sym) {
  if (Sym->defined && Sym->type == 2 /* STT_FUNC */)
    static_cast<std::set<std::string> *>(Ctx)->insert(Sym->name);
  return 0;
}
} // namespace

DevicePlan::DevicePlan(Module &M, StringRef Key) {
  if (Key.empty()) {
    Why = "the module has no translation-unit key (the Clang plugin's kfuse.tu), so "
          "its sites cannot name their manifest";
    return;
  }
  Symbol = KF__MANIFEST_PREFIX + Key.str();
  read(M);
  if (!known())
    return;
  readRegistrations(M);
}

DevicePlan::~DevicePlan() {
  for (Image &I : Images)
    kf__manifest_free(I.Manifest);
}

/// The device name of each kernel stub: the string it is registered with,
/// by __cudaRegisterFunction(handle, stub, name, name, ...) (whole-program
/// and the old driver's -fgpu-rdc), or by an offloading entry { ..., stub,
/// name, ... } in section llvm_offload_entries (the new offload driver's).
/// That is the name the runtime gets back from the driver.
void DevicePlan::readRegistrations(Module &M) {
  auto CString = [](Value *V) -> std::string {
    auto *GV = dyn_cast<GlobalVariable>(V->stripPointerCasts());
    auto *Str = GV && GV->hasDefinitiveInitializer()
                    ? dyn_cast<ConstantDataArray>(GV->getInitializer())
                    : nullptr;
    return Str && Str->isCString() ? Str->getAsCString().str() : std::string();
  };
  if (Function *Reg = M.getFunction("__cudaRegisterFunction"))
    for (User *U : Reg->users()) {
      auto *CB = dyn_cast<CallBase>(U);
      if (!CB || CB->getCalledOperand() != Reg || CB->arg_size() < 3)
        continue;
      auto *Stub = dyn_cast<Function>(CB->getArgOperand(1)->stripPointerCasts());
      std::string Name = CString(CB->getArgOperand(2));
      if (Stub && !Name.empty())
        DeviceNames[Stub] = Name;
    }
  for (GlobalVariable &G : M.globals()) {
    if (G.getSection() != "llvm_offload_entries" || !G.hasInitializer()) // weak
      continue;
    auto *Entry = dyn_cast<ConstantStruct>(G.getInitializer());
    if (!Entry)
      continue;
    const Function *Stub = nullptr;
    std::string Name;
    for (Use &Op : Entry->operands()) {
      if (auto *F = dyn_cast<Function>(Op->stripPointerCasts()); F && !Stub)
        Stub = F;
      else if (Stub && Name.empty())
        Name = CString(Op.get());
    }
    if (Stub && !Name.empty())
      DeviceNames[Stub] = Name;
  }
}

/// Finds the device code the host module embeds and reads this file's
/// manifest out of each of its images.
void DevicePlan::read(Module &M) {
  if (GlobalVariable *Wrapper = M.getNamedGlobal("__cuda_fatbin_wrapper");
      Wrapper && Wrapper->hasDefinitiveInitializer()) {
    auto *Init = dyn_cast<ConstantStruct>(Wrapper->getInitializer());
    auto *Data = Init && Init->getNumOperands() >= 3
                     ? dyn_cast<GlobalVariable>(Init->getOperand(2)->stripPointerCasts())
                     : nullptr;
    auto *Bytes = Data && Data->hasDefinitiveInitializer()
                      ? dyn_cast<ConstantDataSequential>(Data->getInitializer())
                      : nullptr;
    if (!Bytes || !Bytes->getElementType()->isIntegerTy(8)) {
      Why = "@__cuda_fatbin_wrapper does not point at the bytes of a fatbinary";
      return;
    }
    // Under the old driver's -fgpu-rdc (section __nv_relfatbin) the cubins
    // are relocatable; symbols are read the same way.
    WholeProgram = Data->getSection() != "__nv_relfatbin";
    readFatbin(Bytes->getRawDataValues(), Data->getSection() == "__nv_relfatbin"
                                              ? "the relocatable fatbinary (-fgpu-rdc)"
                                              : "the embedded fatbinary");
  } else {
    // The new offload driver (clang's default for -fgpu-rdc): the device
    // object is embedded as one or more offload binaries.
    bool Any = false;
    for (GlobalVariable &G : M.globals()) {
      if (G.getSection() != ".llvm.offloading" || !G.hasDefinitiveInitializer())
        continue;
      auto *Bytes = dyn_cast<ConstantDataSequential>(G.getInitializer());
      if (!Bytes || !Bytes->getElementType()->isIntegerTy(8))
        continue;
      Any = true;
      readOffloadBinaries(Bytes->getRawDataValues());
      if (!known())
        return;
    }
    if (!Any) {
      Why = "the host module embeds no device code (--cuda-host-only, or IR compiled "
            "without its device side)";
      return;
    }
  }
  if (known() && Images.empty())
    Why = "the embedded device code holds no cubin or device bitcode for kfuse to read";
}

void DevicePlan::readFatbin(StringRef Raw, StringRef What) {
  kf__fatbin_image_t Found[KF__FATBIN_MAX_IMAGES];
  unsigned N = 0;
  char Err[256] = "";
  int RC = kf__fatbin_images(reinterpret_cast<const unsigned char *>(Raw.data()), Raw.size(),
                             Symbol.c_str(), Found, KF__FATBIN_MAX_IMAGES, &N, Err, sizeof Err);
  if (RC != 0) {
    Why = What.str() + " cannot be read: " + std::string(Err);
    return;
  }
  for (unsigned K = 0; K < N && known(); ++K) {
    Image I;
    I.Arch = Found[K].arch;
    char FnErr[160] = "";
    if (kf__cubin_symbols(Found[K].elf, Found[K].elf_size, addFunction, &I.Functions, FnErr,
                          sizeof FnErr) != 0) {
      Why = "the sm_" + std::to_string(I.Arch) + " cubin cannot be read: " + FnErr;
      return;
    }
    addImage(std::move(I), Found[K].manifest, Found[K].manifest_len, Found[K].other);
  }
}

void DevicePlan::readCubin(StringRef Elf, unsigned Arch) {
  kf__fatbin_image_t Found;
  char Err[256] = "";
  const auto *Bytes = reinterpret_cast<const unsigned char *>(Elf.data());
  if (kf__cubin_image(Bytes, Elf.size(), Arch, Symbol.c_str(), &Found, Err, sizeof Err) != 0) {
    Why = std::string("the embedded relocatable cubin cannot be read: ") + Err;
    return;
  }
  Image I;
  I.Arch = Arch;
  if (kf__cubin_symbols(Bytes, Elf.size(), addFunction, &I.Functions, Err, sizeof Err) != 0) {
    Why = "the sm_" + std::to_string(Arch) + " cubin cannot be read: " + Err;
    return;
  }
  addImage(std::move(I), Found.manifest, Found.manifest_len, Found.other);
}

/// Device bitcode (-foffload-lto): the device pass ran on it before it was
/// embedded, so the manifest is its initializer and the kernels are the
/// module's definitions. The device link may still internalize or drop
/// functions; the runtime's matching is the final word.
void DevicePlan::readBitcode(StringRef Bytes, unsigned Arch) {
  LLVMContext Ctx;
  Expected<std::unique_ptr<Module>> Dev =
      parseBitcodeFile(MemoryBufferRef(Bytes, "device bitcode"), Ctx);
  if (!Dev) {
    Why = "the embedded device bitcode cannot be read: " + toString(Dev.takeError());
    return;
  }
  Image I;
  I.Arch = Arch;
  for (Function &F : **Dev)
    if (!F.isDeclaration())
      I.Functions.insert(F.getName().str());
  std::string Text, Other;
  bool Has = false;
  for (GlobalVariable &G : (*Dev)->globals()) {
    if (!G.getName().starts_with(KF__MANIFEST_PREFIX) || G.isDeclaration())
      continue;
    auto *CDA = G.hasInitializer() ? dyn_cast<ConstantDataArray>(G.getInitializer())
                                             : nullptr;
    if (G.getName() != Symbol) {
      if (Other.empty())
        Other = G.getName().str();
    } else if (CDA && CDA->isString()) {
      Text = CDA->getAsString().str();
      Has = true;
    } else {
      Why = "the device bitcode's " + Symbol + " is not a byte string";
      return;
    }
  }
  addImage(std::move(I), Has ? Text.data() : nullptr, Text.size(),
           Other.empty() ? nullptr : Other.c_str());
}

void DevicePlan::readOffloadBinaries(StringRef Raw) {
  SmallVector<object::OffloadFile, 4> Files;
  if (Error E = object::extractOffloadBinaries(MemoryBufferRef(Raw, "offload"), Files)) {
    Why = "the embedded offload binary cannot be read: " + toString(std::move(E));
    return;
  }
  for (const object::OffloadFile &File : Files) {
    const object::OffloadBinary &B = *File.getBinary();
    if (!Triple(B.getTriple()).isNVPTX())
      continue;
    unsigned Arch = 0;
    StringRef A = B.getArch();
    if (!A.consume_front("sm_") || A.consumeInteger(10, Arch))
      Arch = 0;
    switch (B.getImageKind()) {
    case object::IMG_Object:
    case object::IMG_Cubin:
      readCubin(B.getImage(), Arch);
      break;
    case object::IMG_Fatbinary:
      readFatbin(B.getImage(), "the embedded fatbinary");
      break;
    case object::IMG_Bitcode:
      readBitcode(B.getImage(), Arch);
      break;
    default:
      Why = "the embedded device code is " + object::getImageKindName(B.getImageKind()).str() +
            ", which kfuse does not read";
      break;
    }
    if (!known())
      return;
  }
}

/// Keeps image \p I with its manifest text (\p Text, \p Len; null: none).
/// Where the image has no manifest of this key but has another's, the two
/// compilations of this file computed different keys: the runtime would
/// not find the manifest either, so that is said, not matched.
void DevicePlan::addImage(Image I, const char *Text, size_t Len, const char *Other) {
  if (!Text && Other) {
    Why = "the device code's manifest is " + std::string(Other) + ", but this compilation's "
          "key names " + Symbol + ": the device and host compilations of this file saw "
          "different sources or macros, so the runtime will not find the manifest";
    return;
  }
  unsigned Line = 0;
  if (Text) {
    int RC = kf__manifest_parse(Text, Len, &I.Manifest, &Line);
    if (RC != 0) {
      Why = "the manifest of the sm_" + std::to_string(I.Arch) + " cubin is malformed (line " +
            std::to_string(Line) + ": " + kf_strerror(RC) + ")";
      return;
    }
    for (uint32_t G = 0; G < I.Manifest->ngroups; ++G)
      Ranks = std::max<unsigned>(Ranks, I.Manifest->groups[G].plan_count);
  }
  Images.push_back(std::move(I));
}

std::string DevicePlan::anchorKernel() const {
  if (!known() || !WholeProgram || Images.empty() || !Images.front().Manifest)
    return "";
  const kf__manifest_t &First = *Images.front().Manifest;
  std::string Best;
  for (uint32_t G = 0; G < First.ngroups; ++G) {
    std::string Name = First.groups[G].name;
    if (!Best.empty() && Name >= Best)
      continue;
    bool Everywhere = true;
    for (const Image &I : Images) {
      bool Listed = false;
      for (uint32_t H = 0; I.Manifest && H < I.Manifest->ngroups && !Listed; ++H)
        Listed = Name == I.Manifest->groups[H].name;
      Everywhere &= Listed && I.Functions.count(Name);
    }
    if (Everywhere)
      Best = std::move(Name);
  }
  return Best;
}

RunPlan DevicePlan::match(ArrayRef<const Function *> Stubs, ArrayRef<unsigned> NArgs,
                          StringRef Where, unsigned Line) const {
  RunPlan P;
  const unsigned N = Stubs.size();
  std::string WhereZ = Where.str();
  size_t FnLen = 0;
  const char *FnPtr = kf__where_function(WhereZ.c_str(), &FnLen);
  StringRef Fn(FnPtr, FnLen);
  std::vector<std::string> Names(N);
  for (unsigned K = 0; K < N; ++K)
    Names[K] = DeviceNames.lookup(Stubs[K]);
  bool Described = false;
  std::vector<std::vector<FusedSpan>> Seen; // every cubin's and plan's spans
  P.NoManifest = true;
  for (const Image &I : Images) {
    P.NoManifest &= I.Manifest == nullptr;
    // A launch belongs to this cubin's manifest only when the cubin defines
    // its kernel (the runtime asks the kernel's own module).
    std::vector<kf__launch_id_t> Ids(N);
    for (unsigned K = 0; K < N; ++K) {
      bool Here = !Names[K].empty() && I.Functions.count(Names[K]);
      Ids[K] = {Names[K].empty() ? nullptr : Names[K].c_str(), NArgs[K],
                Here ? I.Manifest : nullptr};
    }
    for (unsigned Rank = 0; Rank < Ranks; ++Rank) {
      kf__cover_t *Covers = nullptr;
      uint32_t NC = 0;
      if (kf__match(Ids.data(), N, Rank, WhereZ.c_str(), &Covers, &NC) != 0)
        continue;
      std::vector<FusedSpan> Spans;
      for (uint32_t C = 0; C < NC; ++C) {
        // A group whose kernel the module lacks is dropped by the runtime,
        // and a set (`part`) with it: a span per part, in the order they run.
        bool Whole = true;
        for (const kf__group_t *G = Covers[C].group; G; G = G->part_next)
          Whole &= I.Functions.count(G->name) != 0;
        for (const kf__group_t *G = Covers[C].group; G && Whole; G = G->part_next) {
          FusedSpan S;
          S.First = Covers[C].first + G->part_offset;
          S.Last = S.First + G->nlaunches - 1;
          S.Kernel = G->name;
          S.Twins = kf__group_twins(I.Manifest, G);
          S.Bound = G->at_function != nullptr;
          for (uint32_t K = 0; K < G->nlaunches && G->nriders; ++K)
            if (kf__group_rider(G, K) && !kf__group_rider_other(G, K))
              (kf__group_rider_before(G, K) ? S.RidersBefore : S.Riders).push_back(S.First + K);
          Spans.push_back(std::move(S));
        }
      }
      std::free(Covers);
      if (!Described && !Spans.empty()) {
        Described = true;
        P.Fused = true;
        P.Spans = Spans;
        P.Arch = "sm_" + std::to_string(I.Arch);
        P.Plan = Rank;
      }
      Seen.push_back(std::move(Spans));
    }
  }
  for (const std::vector<FusedSpan> &S : Seen)
    P.Differs |= Described && S != P.Spans;

  // The device pass's reasons for this sequence: same host function, same
  // number of launches, and the same line where both sides know it.
  std::set<std::tuple<unsigned, unsigned, std::string>> Taken;
  for (const Image &I : Images) {
    if (!I.Manifest)
      continue;
    for (uint32_t K = 0; K < I.Manifest->nmissed; ++K) {
      const kf__missed_t &X = I.Manifest->missed[K];
      if (Fn != X.function || X.length != N || (Line && X.line && Line != X.line))
        continue;
      if (Taken.insert({X.first, X.last, X.reason}).second)
        P.Missed.push_back({X.first, X.last, X.reason});
    }
  }
  return P;
}

std::vector<unsigned> DevicePlan::boundLengths(StringRef Fn, unsigned Line, unsigned Col) const {
  std::set<unsigned> Lengths;
  for (const Image &I : Images)
    for (uint32_t G = 0; I.Manifest && G < I.Manifest->ngroups; ++G) {
      const kf__group_t &Gr = I.Manifest->groups[G];
      if (Gr.at_function && Gr.at_line == Line && Gr.at_col == Col && Fn == Gr.at_function)
        Lengths.insert(Gr.at_length);
    }
  return std::vector<unsigned>(Lengths.rbegin(), Lengths.rend());
}
