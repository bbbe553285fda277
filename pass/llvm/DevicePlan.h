//===- DevicePlan.h - the device plan as the host compilation reads it -*- C++ -*-===//
//
// clang compiles the device side first and hands the host compilation its
// fatbinary (-fcuda-include-gpubinary), which the host module embeds for
// registration; under -fgpu-rdc it hands over the file's relocatable device
// code instead (a relocatable fatbinary, or with the new offload driver an
// offload binary holding a relocatable cubin, or device bitcode under
// -foffload-lto). Either holds this file's manifest, the one the device pass
// wrote under the translation unit's key. The host pass reads it here
// (manifest/fatbin.h, manifest/manifest.h) and matches each run of launches
// as the runtime will (manifest/match.h), so it hands the runtime only runs
// that a fused kernel can take.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_PASS_LLVM_DEVICEPLAN_H
#define KFUSE_PASS_LLVM_DEVICEPLAN_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringRef.h"

#include <set>
#include <string>
#include <vector>

struct kf__manifest;

namespace llvm {
class Function;
class Module;
} // namespace llvm

namespace kfuse {

/// Launches First..Last of a run, which run as one fused kernel.
struct FusedSpan {
  unsigned First = 0, Last = 0;
  std::string Kernel;
  /// Groups of the same kernels in the manifest, this one included: the
  /// runtime binds every run of those kernels to the first. 0 for a group
  /// bound to its own sequence's site (Bound).
  unsigned Twins = 1;
  /// The group has an `at` line: it is made for this site and no other.
  bool Bound = false;
  /// Launches of the span that the fused kernel leaves out and the runtime
  /// runs after it, and before it (`rider` lines), as indices of the run.
  std::vector<unsigned> Riders, RidersBefore;

  bool operator==(const FusedSpan &O) const {
    return First == O.First && Last == O.Last && Kernel == O.Kernel;
  }
};

/// Launches First..Last of a run, which the device pass did not fuse, and
/// why (the manifest's `missed` line).
struct MissedSpan {
  unsigned First = 0, Last = 0;
  std::string Reason;
};

/// What the runtime will find for one run of launches.
struct RunPlan {
  /// Some cubin, under some plan, has a fused group for launches of the run.
  bool Fused = false;
  /// The groups of the first cubin and plan that fuse any, in launch order.
  std::vector<FusedSpan> Spans;
  /// That cubin ("sm_90") and plan, and whether other cubins or plans cover
  /// the run differently.
  std::string Arch;
  unsigned Plan = 0;
  bool Differs = false;
  /// No cubin has a manifest: the device code has no fused kernel at all.
  bool NoManifest = false;
  /// The device pass's reasons for the spans of this run it left unfused,
  /// in manifest order.
  std::vector<MissedSpan> Missed;
};

class DevicePlan {
public:
  /// Reads the device code embedded in the host module \p M, whose
  /// translation-unit key is \p Key ("" when it has none).
  DevicePlan(llvm::Module &M, llvm::StringRef Key);
  ~DevicePlan();
  DevicePlan(const DevicePlan &) = delete;
  DevicePlan &operator=(const DevicePlan &) = delete;

  /// Whether the device plan could be read; else whyUnknown() says why.
  bool known() const { return Why.empty(); }
  llvm::StringRef whyUnknown() const { return Why; }
  /// Whether the fatbinary has several cubins (one per architecture).
  bool severalCubins() const { return Images.size() > 1; }
  /// The symbol of this file's manifest, "__kfuse_manifest_<key>", which
  /// the sites name for the runtime; "" without a key.
  const std::string &manifestSymbol() const { return Symbol; }
  /// Whether the manifests hold the groups of several plans (-kfuse-plans).
  bool severalPlans() const { return Ranks > 1; }
  /// The fused kernel whose registration anchors this file's sites to this
  /// file's module (kf_site_t.anchor): the first by name that every cubin
  /// defines and lists in its manifest. "" under -fgpu-rdc and the new
  /// offload driver (one linked module, which every kernel leads to) and
  /// where no fused kernel is in every cubin.
  std::string anchorKernel() const;

  /// Matches launches of the kernels of \p Stubs, in order, each with
  /// \p NArgs parameters, at the site \p Where (kf_site_t.where, which names
  /// the host function) whose first launch is at \p Line (0: unknown), as
  /// the runtime will match them. Only for a known plan.
  RunPlan match(llvm::ArrayRef<const llvm::Function *> Stubs,
                llvm::ArrayRef<unsigned> NArgs, llvm::StringRef Where, unsigned Line) const;

  /// The lengths of the sequences whose first launch is at \p Line : \p Col
  /// of host function \p Fn and that have fused groups (their `at` lines),
  /// longest first; empty when there is none.
  std::vector<unsigned> boundLengths(llvm::StringRef Fn, unsigned Line, unsigned Col) const;

private:
  /// One cubin: its manifest (null when it has none) and the functions it
  /// defines, which are the kernels the runtime can find in its module.
  struct Image {
    unsigned Arch = 0;
    kf__manifest *Manifest = nullptr;
    std::set<std::string> Functions;
  };

  void read(llvm::Module &M);
  void readFatbin(llvm::StringRef Bytes, llvm::StringRef What);
  void readOffloadBinaries(llvm::StringRef Bytes);
  void readBitcode(llvm::StringRef Bytes, unsigned Arch);
  void readCubin(llvm::StringRef Elf, unsigned Arch);
  void addImage(Image I, const char *Text, size_t Len, const char *Other);
  void readRegistrations(llvm::Module &M);

  std::vector<Image> Images;
  /// The device name each kernel stub is registered with.
  llvm::DenseMap<const llvm::Function *, std::string> DeviceNames;
  /// Plan ranks the manifests distinguish (-kfuse-plans), at least 1.
  unsigned Ranks = 1;
  /// Whether the device code is the whole-program fatbinary: a module of
  /// this file's own at run time.
  bool WholeProgram = false;
  std::string Symbol;
  std::string Why;
};

} // namespace kfuse

#endif
