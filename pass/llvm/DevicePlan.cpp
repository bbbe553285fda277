//===- DevicePlan.cpp - the device plan as the host compilation reads it --===//
//
// Where the bytes are: clang's CUDA codegen puts the fatbinary in a private
// constant byte array and points @__cuda_fatbin_wrapper (magic, version,
// data, null; section .nvFatBinSegment) at it, for __cudaRegisterFatBinary.
// Each kernel's device name is the string its stub is registered with
// (__cudaRegisterFunction(handle, stub, name, name, ...)), which is the name
// the runtime gets back from the driver. Everything that cannot be read
// makes the plan unknown, and the host pass then hands runs over as it
// would without a plan.
//
//===----------------------------------------------------------------------===//
#include "DevicePlan.h"

#include "kfuse/error.h"
#include "manifest/fatbin.h"
#include "manifest/manifest.h"
#include "manifest/match.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

#include <algorithm>
#include <cstdlib>
#include <tuple>

using namespace llvm;
using namespace kfuse;

DevicePlan::DevicePlan(Module &M) {
  read(M);
  if (!known())
    return;
  for (Function &F : M) {
    if (F.getName() != "__cudaRegisterFunction")
      continue;
    for (User *U : F.users()) {
      auto *CB = dyn_cast<CallBase>(U);
      if (!CB || CB->getCalledOperand() != &F || CB->arg_size() < 3)
        continue;
      auto *Stub = dyn_cast<Function>(CB->getArgOperand(1)->stripPointerCasts());
      auto *Name = dyn_cast<GlobalVariable>(CB->getArgOperand(2)->stripPointerCasts());
      auto *Str = Name && Name->hasDefinitiveInitializer()
                      ? dyn_cast<ConstantDataArray>(Name->getInitializer())
                      : nullptr;
      if (Stub && Str && Str->isCString())
        DeviceNames[Stub] = Str->getAsCString().str();
    }
  }
}

DevicePlan::~DevicePlan() {
  for (Image &I : Images)
    kf__manifest_free(I.Manifest);
}

/// Finds the fatbinary and reads the manifest of each of its cubins.
void DevicePlan::read(Module &M) {
  GlobalVariable *Wrapper = M.getNamedGlobal("__cuda_fatbin_wrapper");
  if (!Wrapper || !Wrapper->hasDefinitiveInitializer()) {
    bool Offload = M.getNamedGlobal("llvm.embedded.object");
    for (GlobalVariable &G : M.globals())
      Offload |= G.getSection() == ".llvm.offloading";
    Why = Offload ? "the device code is linked later (-fgpu-rdc), so this compilation "
                    "has no device binary of its own"
                  : "the host module embeds no device binary (--cuda-host-only, or IR "
                    "compiled without its device side)";
    return;
  }
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
  if (Data->getSection() == "__nv_relfatbin") {
    Why = "the device code is linked later (-fgpu-rdc), so this compilation has no "
          "device binary of its own";
    return;
  }
  StringRef Raw = Bytes->getRawDataValues();
  kf__fatbin_image_t Found[KF__FATBIN_MAX_IMAGES];
  unsigned N = 0;
  char Err[256] = "";
  int RC = kf__fatbin_images(reinterpret_cast<const unsigned char *>(Raw.data()), Raw.size(),
                             Found, KF__FATBIN_MAX_IMAGES, &N, Err, sizeof Err);
  if (RC != 0) {
    Why = "the embedded fatbinary cannot be read: " + std::string(Err);
    return;
  }
  for (unsigned K = 0; K < N && known(); ++K)
    readImage(Found[K].elf, Found[K].elf_size, Found[K].arch, Found[K].manifest,
              Found[K].manifest_len);
}

namespace {
/// Collects the names of the functions a cubin defines.
int addFunction(void *Ctx, const kf__elf_symbol_t *Sym) {
  if (Sym->defined && Sym->type == 2 /* STT_FUNC */)
    static_cast<std::set<std::string> *>(Ctx)->insert(Sym->name);
  return 0;
}
} // namespace

void DevicePlan::readImage(const void *Elf, size_t Size, unsigned Arch, const char *Text,
                           size_t Len) {
  Image I;
  I.Arch = Arch;
  char Err[160] = "";
  if (kf__cubin_symbols(static_cast<const unsigned char *>(Elf), Size, addFunction,
                        &I.Functions, Err, sizeof Err) != 0) {
    Why = "the sm_" + std::to_string(Arch) + " cubin cannot be read: " + Err;
    return;
  }
  unsigned Line = 0;
  if (Text) {
    int RC = kf__manifest_parse(Text, Len, &I.Manifest, &Line);
    if (RC != 0) {
      Why = "the manifest of the sm_" + std::to_string(Arch) + " cubin is malformed (line " +
            std::to_string(Line) + ": " + kf_strerror(RC) + ")";
      return;
    }
    for (uint32_t G = 0; G < I.Manifest->ngroups; ++G)
      Ranks = std::max<unsigned>(Ranks, I.Manifest->groups[G].plan_count);
  }
  Images.push_back(std::move(I));
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
      for (uint32_t C = 0; C < NC; ++C)
        // A group whose kernel the module lacks is dropped by the runtime.
        if (Covers[C].group && I.Functions.count(Covers[C].group->name))
          Spans.push_back({Covers[C].first, Covers[C].first + Covers[C].count - 1,
                           Covers[C].group->name,
                           kf__group_twins(I.Manifest, Covers[C].group),
                           Covers[C].group->at_function != nullptr});
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
