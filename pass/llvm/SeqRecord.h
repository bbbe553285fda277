//===- SeqRecord.h - the Clang plugin's records in the IR -------*- C++ -*-===//
//
// Reads the `kfuse_map` kernel marks and the `kfuse.seq 1` launch-sequence
// records (docs/annotations.md) out of llvm.global.annotations, and removes
// the records once they are consumed.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_PASS_LLVM_SEQRECORD_H
#define KFUSE_PASS_LLVM_SEQRECORD_H

#include "llvm/ADT/SetVector.h"
#include "llvm/IR/Module.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kfuse {

struct SeqLaunch {
  unsigned Index = 0;
  std::string Kernel; ///< mangled name
  unsigned Grid = 0, Block = 0, Shmem = 0, Stream = 0; ///< value numbers
  std::vector<unsigned> Args;                           ///< value numbers
  /// The pointer at byte Offset of by-value parameter Param has value Value
  /// (`fields=`, docs/annotations.md): a struct's field, a lambda's capture.
  struct Field {
    unsigned Param = 0;
    uint64_t Offset = 0;
    unsigned Value = 0;
  };
  std::vector<Field> Fields;
};

struct SeqValue {
  std::string Kind; ///< ptr, int, float, other
  std::string Text;
};

/// One `kfuse.seq 1` record.
struct SeqRecord {
  unsigned Id = 0;    ///< N of __kfuse_seq_<N>
  std::string Site;   ///< "<file>:<line>:<col> <host-function>"
  std::vector<SeqLaunch> Launches;
  std::map<unsigned, SeqValue> Values;
};

/// A kernel's `kfuse_impl <function> <threads>` mark (docs/annotations.md):
/// it is one implementation of Function, with Threads threads per instance.
struct ImplMark {
  std::string Function;
  unsigned Threads = 0;
  /// For an implementation the device pass derived (DeriveImpl.h), the
  /// kernel it derived it from; empty for a kernel the program marked.
  std::string DerivedFrom;
};

/// What the module says: the marked kernels, the well-formed records, and
/// one message per record that could not be read.
struct ModuleRecords {
  llvm::SetVector<llvm::Function *> Kernels;
  /// The kfuse_impl marks of defined kernels, by kernel name; a kernel with
  /// two different marks, or one that does not read, has none, and its name
  /// is in BadImpls.
  std::map<std::string, ImplMark> Impls;
  std::vector<std::string> BadImpls;
  std::vector<SeqRecord> Seqs;
  std::vector<std::string> Malformed;
  /// The translation unit's key (readTuKey); where the module has none but
  /// has records, a hash of the records and the marked kernels' names.
  std::string TuKey;
  bool KeyFromContent = false;
};

/// The key the Clang plugin wrote on __kfuse_tu (`kfuse.tu <16 hex digits>`,
/// docs/annotations.md), "" when the module has none or it is malformed.
std::string readTuKey(const llvm::Module &M);

/// The body of the Clang plugin's `kfuse.launch-sites 1` annotation on
/// __kfuse_tu (docs/annotations.md): in a host compilation without debug
/// locations (no -g, no remark flag), where each host function launches.
/// std::nullopt when the module has none: its debug locations, if any,
/// are clang's.
std::optional<std::string> readLaunchSites(const llvm::Module &M);

/// The name of the function that a record's kernel \p Name denotes in
/// \p M: \p Name itself, or, for an internal kernel that clang
/// externalized under -fgpu-rdc, the one defined function named
/// `<Name>__intern__<suffix>`; "" when neither is defined here.
std::string deviceKernelName(const llvm::Module &M, llvm::StringRef Name);

/// Parses the text of one record; on failure returns false and says why in
/// \p Err.
bool parseSeqRecord(llvm::StringRef Text, SeqRecord &R, std::string &Err);

/// Collects marks, records and the key from llvm.global.annotations; each
/// launch's kernel is named as the module defines it (deviceKernelName).
ModuleRecords readModuleRecords(llvm::Module &M);

/// Erases every __kfuse_seq_* variable, __kfuse_tu, and their annotation
/// entries (the annotation array is rebuilt without them). \returns whether
/// anything changed.
bool eraseSeqRecords(llvm::Module &M);

} // namespace kfuse

#endif
