//===- HostLaunch.h - kernel launches as clang lowers them for the host ---===//
//
// What the host pass needs to know about one `<<<...>>>` launch in x86-64
// host IR: the configuration push, its branch, the stub call, and how the
// stub turns its ABI-lowered parameters into the kernel's argument array.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_PASS_LLVM_HOSTLAUNCH_H
#define KFUSE_PASS_LLVM_HOSTLAUNCH_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/IR/Instructions.h"

#include <map>
#include <optional>
#include <string>

namespace llvm {
class DataLayout;
class GlobalVariable;
class Module;
class StructType;
} // namespace llvm

namespace kfuse {

/// How a `__device_stub__` builds the `void *args[]` it passes to
/// cudaLaunchKernel. Clang lowers each kernel parameter for the host ABI (a
/// struct may arrive as two registers, a bool as i1, a large struct byval),
/// and the stub's entry block stores those pieces back into one alloca per
/// kernel parameter. Replaying that prologue at a launch site reproduces the
/// exact bytes the kernel receives without knowing the ABI rules ourselves.
struct StubLayout {
  llvm::Function *Stub = nullptr;
  /// Empty when the stub is understood; else why not, for remarks.
  std::string WhyNot;
  /// Entry-block instructions that fill the parameter slots, in order
  /// (allocas excluded: they are recreated on demand).
  llvm::SmallVector<llvm::Instruction *, 16> Prologue;
  /// Per kernel parameter: the stub alloca, byval Argument or indirect
  /// Argument holding it.
  llvm::SmallVector<llvm::Value *, 8> Slots;
  /// Per kernel parameter: its size in bytes (what the kernel receives).
  llvm::SmallVector<uint32_t, 8> Sizes;
  /// The stub's parameters that point to a kernel argument passed
  /// indirectly (the caller's temporary, no byval), each one a slot.
  llvm::SmallVector<llvm::Argument *, 2> Indirect;
  /// Per kernel parameter: index of the stub parameter that is stored into
  /// the slot unchanged when the kernel parameter is a pointer, else -1.
  llvm::SmallVector<int, 8> PointerArg;
  /// Private constant [nargs x i32] with Sizes; null for nargs == 0.
  llvm::GlobalVariable *SizesGlobal = nullptr;
  /// The stub launches through cudaLaunchKernel_ptsz (a translation unit
  /// compiled for the per-thread default stream): there a null stream is
  /// the per-thread default stream, not the legacy one.
  bool PerThreadDefaultStream = false;

  bool isValid() const { return WhyNot.empty(); }
  unsigned numParams() const { return Slots.size(); }

  /// Reads the prologue of \p Stub; WhyNot says what did not match.
  static StubLayout analyze(llvm::Function &Stub);
};

/// The kfuse_map stubs of a module (llvm.global.annotations entries whose
/// string is "kfuse_map", docs/annotations.md), each with its layout.
class AnnotatedStubs {
public:
  explicit AnnotatedStubs(llvm::Module &M);

  /// The layout of \p Stub's prologue, or null when it is not kfuse_map.
  StubLayout *lookup(llvm::Function *Stub);
  bool empty() const { return Layouts.empty(); }

private:
  std::map<llvm::Function *, StubLayout> Layouts;
};

/// One launch: `%r = __cudaPushCallConfiguration(...)`, `icmp ne %r, 0`,
/// `br %c, skip, config_ok`, and in config_ok (after the argument
/// evaluation) the call of the stub. Either call may be an invoke.
struct Launch {
  llvm::CallBase *Push = nullptr;
  llvm::ICmpInst *Cmp = nullptr;
  llvm::BranchInst *Branch = nullptr;
  llvm::BasicBlock *ConfigOK = nullptr;
  llvm::BasicBlock *Skip = nullptr;
  llvm::CallBase *StubCall = nullptr;
  /// Set for stubs of kfuse_map kernels only.
  StubLayout *Layout = nullptr;
  /// Position among the launches of its function, in layout order.
  unsigned Index = 0;

  llvm::Function *stub() const { return StubCall->getCalledFunction(); }
  bool isAnnotated() const { return Layout != nullptr; }
};

/// Matches the launch structure around \p Push; false when it has another
/// shape (then the push is an ordinary call to the pass). With
/// \p ThroughArgument the launch calls its stub through a parameter of the
/// function instead (`template <class K> void launch(K k, ...) { k<<<g,
/// b>>>(...); }`), and L.stub() is null.
bool matchLaunch(llvm::CallBase &Push, Launch &L, bool ThroughArgument = false);

/// The parameter of its function through which \p Call calls: the argument
/// itself, or clang's slot for it (an alloca stored once, with the
/// argument, and otherwise only loaded); nothing for a direct call or
/// another indirect one.
std::optional<unsigned> calleeArgument(const llvm::CallBase &Call);

bool isPushCall(const llvm::Instruction &I);
bool isStubCall(const llvm::Instruction &I);

/// The CUDA runtime function \p F stands for ("cudaMalloc" for cudaMalloc and
/// for the cuda_runtime.h template wrapper `_Z10cudaMallocIfE...`), or "".
llvm::StringRef cudaApiName(const llvm::Function *F);

/// "scale" for `_Z20__device_stub__scalePKfPffi`, "img::scale<float>" for a
/// template in a namespace, for remarks.
std::string kernelName(const llvm::Function &Stub);

/// Gives the launches and launch-helper calls of each function listed in
/// \p Text, the body of the Clang plugin's `kfuse.launch-sites 1`
/// annotation (docs/annotations.md), their listed lines and columns as
/// debug locations under a NoDebug compile unit, for each stub or callee
/// whose count in the function agrees with the list (LaunchSites.cpp).
/// Returns whether it placed any; the caller strips them when done.
bool placeLaunchSites(llvm::Module &M, llvm::StringRef Text);

/// The x86-64 layouts of kf_launch_t and kf_site_t (include/kfuse/rt.h).
llvm::StructType *getLaunchRecordType(llvm::Module &M);
llvm::StructType *getSiteType(llvm::Module &M);

/// kf_scratch_decl_t: { i32 launch, i32 param, ptr name, ptr at }.
llvm::StructType *getScratchDeclType(llvm::Module &M);
/// kf_field_ptr_t: { i32 launch, i32 param, i32 byte, i32 fate }.
llvm::StructType *getFieldPtrType(llvm::Module &M);

/// Field numbers of the kf_launch_t struct type.
enum LaunchField : unsigned {
  LF_Func,
  LF_Grid,
  LF_Block,
  LF_Shmem,
  LF_Stream,
  LF_Args,
  LF_ArgSizes,
  LF_NArgs,
  LF_Rerun,
  LF_Dead,
};

/// Marks \p SI, a store that fills a launch record, its argument array or
/// an argument's slot, as such, and makes it volatile until
/// releaseRecordStores(). All of a run's records are filled before the one
/// call that reads them, so each such store is followed by hundreds of
/// others to allocas: dead store elimination, looking for a read after
/// every store to an alloca (a store nothing reads before the function
/// returns is dead), walks all of them, once per store. For the 21 launches
/// of examples/shallow_water.cu that was 190 million instructions of the
/// host compile, 4 % of it. The call reads every one of these stores, so
/// none is dead; volatile says they all stay, and the pass skips them.
void markRecordStore(llvm::StoreInst &SI);

/// Makes the record stores of \p F plain stores again, once the
/// optimisation pipeline is done with them (HostLiveness, at its end): the
/// back end then combines them as before, where a chain of volatile stores
/// would cost instruction selection more than the pipeline saved.
/// \returns whether there was any.
bool releaseRecordStores(llvm::Function &F);

} // namespace kfuse

#endif
