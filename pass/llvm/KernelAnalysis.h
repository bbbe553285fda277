//===- KernelAnalysis.h - what one kfuse_map kernel does --------*- C++ -*-===//
//
// The per-kernel facts the device pass fuses on: which pointer parameters are
// read and written, the byte offset of every global access as a polynomial in
// the thread coordinates and scalar parameters, and why a kernel cannot be
// analysed. Independent of any launch sequence, so it is computed once.
//
//===----------------------------------------------------------------------===//
#ifndef KFUSE_PASS_LLVM_KERNELANALYSIS_H
#define KFUSE_PASS_LLVM_KERNELANALYSIS_H

#include "FieldParams.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Function.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace llvm {
class ScalarEvolution;
class DominatorTree;
class Instruction;
class SCEV;
class Loop;
class LoopInfo;
class PHINode;
class Type;
class Argument;
class Value;
} // namespace llvm

namespace kfuse {

/// Symbols of an index polynomial. The thread and block coordinates of
/// dimension d (0 = x, 1 = y, 2 = z) are Sym*(d): SymTid + SymDimStride * d
/// and so on; the x ones keep the short names.
enum Symbol : int {
  SymTid = 0,   ///< threadIdx.x, in [0, bx)
  SymNtid = 1,  ///< blockDim.x (manifest `bx`)
  SymCtaid = 2, ///< blockIdx.x, in [0, gx)
  SymNctaid = 3, ///< gridDim.x (manifest `gx`)
  SymDimStride = 4, ///< the y symbols are the x ones + 4, the z ones + 8
  /// The iteration count of the outer loop of a nest of grid-stride loops
  /// (KernelInfo::Outer), k' = 0, 1, ...: its variable is Start + Step * k'.
  /// Not a coordinate (13 would be blockDim of a fourth dimension).
  SymOuterIter = 13,
  /// The iteration count k = 0, 1, ... of the kernel's grid-stride loop
  /// (KernelInfo::Grid, the inner loop of a nest): its induction variable
  /// is Start + Step * k.
  SymIter = 15,
  SymParam0 = 16, ///< SymParam0 + p: integer scalar parameter p of the launch
  /// SymField0 + fieldCode(p, off, w): the integer in bytes [off, off + 2^w)
  /// of by-value aggregate parameter p (`Params p`'s `p.nx`), read
  /// sign-extended as an integer parameter is (manifest `s<p>.<off>.<bytes>`).
  SymField0 = 1 << 17,
  SymValue0 = 1 << 20, ///< SymValue0 + v: value number v of a sequence record
  /// SymValueField0 + fieldCode(v, off, w): that field of value number v.
  SymValueField0 = 1 << 24,
  /// SymQuot0 + k: the k-th distinct quotient `a / b` of a kernel's indices.
  /// Only inside polyOf: a quotient that does not cancel (`(a / b) * b + a % b`
  /// is a) leaves the index without a polynomial.
  SymQuot0 = 1 << 28,
  /// The quotient g / Div of an Access::Row, in that access's Offset only.
  SymRow = SymQuot0 + (1 << 27),
  /// The trip k of an Access::Span's loop, in that access's Offset only.
  SymSpan = SymRow + 1,
};

/// Parameters and offsets a field symbol can name.
constexpr unsigned MaxFieldParam = 224, MaxFieldOffset = 1024;
constexpr int fieldCode(unsigned P, unsigned Off, unsigned W) {
  return int(P << 12 | Off << 2 | W);
}
constexpr bool isFieldSymbol(int S) { return S >= SymField0 && S < SymValue0; }
constexpr bool isValueFieldSymbol(int S) { return S >= SymValueField0 && S < SymQuot0; }
/// Whether \p S is an integer parameter itself (not a field of one).
constexpr bool isParamSymbol(int S) { return S >= SymParam0 && S < SymField0; }
/// The parameter (or value), byte offset and log2 width of a field symbol.
constexpr int fieldBase(int S) { return isValueFieldSymbol(S) ? SymValueField0 : SymField0; }
constexpr unsigned fieldParam(int S) { return unsigned((S - fieldBase(S)) >> 12); }
constexpr unsigned fieldOffset(int S) { return unsigned((S - fieldBase(S)) >> 2 & 1023); }
constexpr unsigned fieldLogWidth(int S) { return unsigned((S - fieldBase(S)) & 3); }

constexpr int symTid(unsigned D) { return SymTid + SymDimStride * int(D); }
constexpr int symNtid(unsigned D) { return SymNtid + SymDimStride * int(D); }
constexpr int symCtaid(unsigned D) { return SymCtaid + SymDimStride * int(D); }
constexpr int symNctaid(unsigned D) { return SymNctaid + SymDimStride * int(D); }
/// Whether \p S is a thread or block coordinate (tid.*, ctaid.*).
constexpr bool isCoordinate(int S) {
  return S < SymParam0 && (S % SymDimStride == SymTid || S % SymDimStride == SymCtaid);
}
/// The dimension (0..2) of a coordinate or extent symbol.
constexpr unsigned symDim(int S) { return unsigned(S / SymDimStride); }

/// The terms of an IndexPoly, monomial to coefficient, in increasing order
/// of monomial: a sorted vector with the interface of the std::map it
/// replaces. A polynomial has a handful of terms, and the legality checks
/// build and compare many of them for every candidate group; a map
/// allocated a node per term.
class TermMap {
public:
  using Monomial = llvm::SmallVector<int, 4>; ///< sorted symbols, with repetition
  using value_type = std::pair<Monomial, int64_t>;
  using Storage = llvm::SmallVector<value_type, 4>;
  using iterator = Storage::iterator;
  using const_iterator = Storage::const_iterator;
  using const_reverse_iterator = Storage::const_reverse_iterator;

  iterator begin() { return V.begin(); }
  iterator end() { return V.end(); }
  const_iterator begin() const { return V.begin(); }
  const_iterator end() const { return V.end(); }
  const_reverse_iterator rbegin() const { return V.rbegin(); }
  const_reverse_iterator rend() const { return V.rend(); }
  size_t size() const { return V.size(); }
  bool empty() const { return V.empty(); }
  const_iterator find(const Monomial &M) const {
    auto It = lowerBound(M);
    return It != V.end() && It->first == M ? It : V.end();
  }
  /// The coefficient of \p M, a 0 inserted where it had none.
  int64_t &operator[](const Monomial &M) {
    auto It = lowerBound(M);
    if (It == V.end() || It->first != M)
      It = V.insert(It, value_type(M, 0));
    return It->second;
  }
  void erase(const Monomial &M) {
    auto It = lowerBound(M);
    if (It != V.end() && It->first == M)
      V.erase(It);
  }
  bool operator==(const TermMap &O) const { return V == O.V; }
  bool operator!=(const TermMap &O) const { return !(V == O.V); }
  /// Appends a term greater than every term held, with a non-zero
  /// coefficient (the merges of IndexPoly's arithmetic).
  void append(Monomial M, int64_t C) { V.emplace_back(std::move(M), C); }
  /// Sorts terms appended in any order and adds up equal monomials,
  /// dropping the sums that are 0.
  void normalise();

private:
  iterator lowerBound(const Monomial &M) {
    return V.begin() + (std::as_const(*this).lowerBound(M) - V.begin());
  }
  const_iterator lowerBound(const Monomial &M) const {
    return std::lower_bound(V.begin(), V.end(), M,
                            [](const value_type &T, const Monomial &K) { return T.first < K; });
  }
  Storage V;
};

/// An integer polynomial over Symbol, with int64 coefficients: the byte
/// offset of an access from its base pointer. Products of symbols are kept
/// (blockIdx.x * blockDim.x is the common one).
class IndexPoly {
public:
  using Monomial = TermMap::Monomial;
  TermMap Terms;

  static IndexPoly constant(int64_t C);
  static IndexPoly symbol(int S);
  IndexPoly operator+(const IndexPoly &O) const;
  IndexPoly operator-(const IndexPoly &O) const;
  IndexPoly operator*(const IndexPoly &O) const;
  bool operator==(const IndexPoly &O) const { return Terms == O.Terms; }
  bool operator!=(const IndexPoly &O) const { return !(*this == O); }
  bool isConstant() const;
  int64_t constantTerm() const;
  bool uses(int Sym) const;
  /// Renames symbols (scalar params to value numbers, say).
  IndexPoly rename(const std::map<int, int> &Map) const;
  /// Manifest expression syntax (docs/manifest.md): decimal constants, bx, gx,
  /// s<p>; no spaces. Only for polynomials over Ntid, Nctaid and params.
  std::string toExpr() const;
  /// Debug and remark text, any symbols; \p Name, when given, spells each
  /// symbol (RemarkText.cpp's polyText: threadIdx.x, a parameter's name).
  std::string str(llvm::function_ref<std::string(int)> Name = nullptr) const;

  /// Bounds over all threads of the grid (tid.d in [0, ntid.d), ctaid.d in
  /// [0, nctaid.d)), as polynomials over the extents and params;
  /// std::nullopt when a term mixes a coordinate with a parameter (its sign
  /// is unknown) or counts loop iterations.
  std::optional<std::pair<IndexPoly, IndexPoly>> gridRange() const;
};

/// A coordinate an index is linear in, seen as one digit of a mixed-radix
/// number: the global coordinate ctaid.d*ntid.d + tid.d of dimension d, or
/// tid.d or ctaid.d alone where the index does not combine them so.
struct IndexDigit {
  /// Iteration: the grid-stride loop's iteration count (SymIter), of no
  /// known extent.
  enum Kind { Global, Thread, Block, Iteration };
  Kind K = Global;
  unsigned Dim = 0;
  IndexPoly Coef; ///< free of coordinates
  bool operator==(const IndexDigit &O) const {
    return K == O.K && Dim == O.Dim && Coef == O.Coef;
  }
  bool operator!=(const IndexDigit &O) const { return !(*this == O); }
  /// Whether the digit stands for coordinate symbol \p Sym.
  bool covers(int Sym) const {
    return K != Iteration && symDim(Sym) == Dim &&
           (K == Global || (K == Thread) == (Sym % SymDimStride == SymTid));
  }
  /// How many values the digit takes over the grid: ntid.d*nctaid.d, ntid.d
  /// or nctaid.d.
  IndexPoly extent() const;
};

/// An offset as sum(Coef * digit) + Rest, Rest free of coordinates; digits
/// in x, y, z order, Global before Thread before Block. std::nullopt when a
/// term holds two coordinates (tid.x*tid.y, tid.x*tid.x).
struct DigitForm {
  std::vector<IndexDigit> Digits;
  IndexPoly Rest;
};
std::optional<DigitForm> digitsOf(const IndexPoly &O);

/// One load or store through a pointer parameter.
struct Access {
  llvm::Instruction *Inst = nullptr;
  unsigned Param = 0;     ///< the kernel parameter it goes through
  bool IsStore = false;
  unsigned Bytes = 0;     ///< access size (element bytes)
  llvm::Type *Ty = nullptr;
  IndexPoly Offset;       ///< byte offset from the parameter
  /// A load whose offset is not a polynomial (a gather: `t[idx[i]]`,
  /// `b[i % c]`). Offset is then meaningless and the access has no
  /// footprint; legality accepts it only from a buffer no stage writes.
  /// Stores never have an unknown index: such a kernel is not analysed.
  bool UnknownIndex = false;
  /// Another access of the same kind (load or store) to the same element
  /// came before it: the kernel moves those bytes once (a loop that reads
  /// v[3*i] for every row of a matrix), and they are counted once.
  bool Repeat = false;
  /// For a gather whose index is still bounded (a remainder, `b[i % c]`):
  /// the bytes it touches, [GatherLo, GatherHi) from the parameter, as
  /// manifest expressions (docs/manifest.md). Empty when unbounded.
  std::string GatherLo, GatherHi;
  /// For a gather whose index is its thread's instance, Coef * (g / Div) +
  /// Rest with g = ctaid.x*ntid.x + tid.x and Div a constant above 1 (a
  /// per-instance scalar read by one of Div threads, `nrm[j / 25]`): fusion
  /// across granularities reads it as the instance's element
  /// (Legality.cpp). Everything else treats the access as a gather.
  struct InstanceIndex {
    int64_t Coef = 0, Div = 0, Rest = 0;
  };
  std::optional<InstanceIndex> Instance;
  /// For a gather whose index is Coef * (g / Div) + f(g % Div), f taking
  /// the thread's place in its instance through remainders and quotients
  /// of g by divisors of Div (`9 * (j / 9) + 3 * (j % 9 / 3) + k`, `j % 3`):
  /// f's least and greatest values, and its values in the instance's
  /// first thread and in its last (Instance, where f is constant, has them
  /// all equal). Fusion across granularities reads records through it
  /// (Legality.cpp granularityInputs).
  struct InstanceRecord {
    int64_t Coef = 0, Div = 0, Lo = 0, Hi = 0, First = 0, Last = 0;
  };
  std::optional<InstanceRecord> Record;
  /// For an access at Coef * g + QCoef * (g / Div) + Rest bytes, g =
  /// ctaid.x*ntid.x + tid.x and Div a polynomial in integer parameters: a
  /// row taken from the linear index by a division that the index does not
  /// undo with the remainder (CloverLeaf's `glob_id + row` for the arrays
  /// one element wider than the rows the grid counts, `row = glob_id /
  /// (x_max + 4)`). Everything but the legality check takes the access for
  /// a gather (UnknownIndex, its footprint in GatherLo and GatherHi), stores
  /// included; the check lets a buffer that a stage writes be accessed so
  /// where every access of the group has the same form (Legality.cpp
  /// rowCarried), each thread then touching its own element. Offset is
  /// Coef * g + QCoef * SymRow + Rest, which names the element among the
  /// accesses of one such buffer.
  struct RowIndex {
    int64_t Coef = 0, QCoef = 0;
    IndexPoly Div, Rest;
  };
  std::optional<RowIndex> Row;
  /// For an access in a loop of the thread's own whose trip count only the
  /// launch knows (`for (c = 0; c < ncomp; c++) v[i * ncomp + c]`): at
  /// Coef * g + Rest + Step * k bytes for k from 0 to Count - 1, g =
  /// ctaid.x*ntid.x + tid.x, Coef, Rest and Count polynomials in integer
  /// parameters, Step a positive constant: each thread's record of Count
  /// elements. Like Row, a gather everywhere but in the legality check,
  /// which lets a buffer that a stage writes be accessed so where every
  /// access of the group has the same form and the records of two threads
  /// do not meet (Legality.cpp spanCarried); the buffer then stays in
  /// memory, each thread reading back what it wrote. Offset is Coef * g +
  /// Rest + Step * SymSpan.
  struct SpanIndex {
    IndexPoly Coef, Rest, Count;
    int64_t Step = 0;
  };
  std::optional<SpanIndex> Span;
  /// The narrowest truncation of each block index that the offset or its
  /// checks read through (polyOf's CtaidBits; 32: none).
  unsigned CtaidBits[3] = {32, 32, 32};
  /// Byte bound from a dominating `idx < s<p>` bounds check, when the check's
  /// index is this access's index: the access stays below Bytes * s<p>.
  std::optional<unsigned> BoundParam;
  /// Without BoundParam, the same from a check `idx < P` against an
  /// expression P of integer parameters and fields that the kernel computes
  /// without wrapping (`i < w * h`): footprints only.
  std::optional<IndexPoly> BoundPoly;
  /// The check compares unsigned: the manifest reads s<p> sign-extended, so
  /// a bound of 2^31 or more (a 4-byte parameter) reads negative there.
  bool BoundUnsigned = false;
  /// Per dimension d, a dominating check `ctaid.d*ntid.d + tid.d < s<p>`
  /// (`x < width`): only threads whose global coordinate is below s<p>
  /// make the access.
  struct CoordBound {
    unsigned Param = 0;
    bool Unsigned = false;
    /// Where the bound is a field of a by-value struct parameter instead
    /// (`x < p.nx`): its symbol (SymField0; Param is then meaningless),
    /// else 0.
    int Field = 0;
    bool operator==(const CoordBound &O) const {
      return Param == O.Param && Unsigned == O.Unsigned && Field == O.Field;
    }
    /// The bound's symbol, SymParam0 + Param or Field.
    int symbol() const { return Field ? Field : SymParam0 + int(Param); }
    /// Its manifest spelling: s<p>, or s<p>.<off>.<bytes> for a field.
    std::string text() const;
  };
  std::optional<CoordBound> GlobalBound[3];
  /// What the kernel's own signed checks on the way to the access say of
  /// each global coordinate g_d = ctaid.d*ntid.d + tid.d: g_d >= MinG[d],
  /// and g_d <= s<p> + c for each (p, c) of MaxG[d] (`if (i > 0 && i < n -
  /// 1)`: MinG[0] 1, MaxG[0] {(n, -2)}).
  int64_t MinG[3] = {0, 0, 0};
  llvm::SmallVector<std::pair<unsigned, int64_t>, 2> MaxG[3];
  /// An access every thread with g_d < s<p> in each dimension d that has
  /// an entry makes: one check, `g < n` or `x < w && y < h` (or `if (x >= w
  /// || y >= h) return;`), is reached by every thread and is the only
  /// condition on the access.
  std::optional<unsigned> EveryBelow[3];
};

struct ParamInfo {
  bool IsPointer = false;
  bool IsInteger = false;
  bool IsByVal = false; ///< a struct by value, whose integer fields indices may name
  /// IsByVal, the kernel only reads it (readOnlyByVal), and every load
  /// lies within the bytes of its fields (FieldBytes): the fused kernel
  /// reads one copy for every stage that passes the same value, and the
  /// runtime compares the arguments' field bytes.
  bool ByValShared = false;
  /// Under ByValShared, where the struct has padding: its field bytes as
  /// ascending, maximal inclusive ranges [first, last], the only bytes the
  /// manifest's `equal` line has the runtime compare (a struct passed in
  /// registers is put back together around uninitialised padding). Empty:
  /// no padding, every byte compared.
  llvm::SmallVector<std::pair<uint32_t, uint32_t>, 4> FieldBytes;
  /// IsByVal without ByValShared: why each stage reads its own copy ("the
  /// kernel loads bytes of its padding", ...), for remarks.
  std::string NotShared;
  /// Whether a later launch's argument of the same value reads this one's
  /// parameter in the fused kernel (FusedKernel.cpp), which the manifest's
  /// `equal` line makes the runtime check.
  bool merged() const { return IsPointer || IsInteger || ByValShared; }
  bool Read = false;
  bool Written = false;
  bool Gathered = false; ///< some load through it has an unknown index
};

/// Whether a kernel or a group may be fused, and if not the first reason.
struct Verdict {
  bool Valid = true;
  std::string Reason; ///< why not Valid, a sentence fragment for remarks
  std::string Stat;   ///< short key of the rejection, for statistics
  /// The instruction the reason is about (the store, the call, the asm), if
  /// any: the remark points at its source line.
  const llvm::Instruction *At = nullptr;

  void invalidate(std::string Why, std::string Key, const llvm::Instruction *Where = nullptr) {
    if (!Valid)
      return;
    Valid = false;
    Reason = std::move(Why);
    Stat = std::move(Key);
    At = Where;
  }
  bool isValid() const { return Valid; }
};

/// Everything the fuser needs to know about one kernel.
/// A grid-stride loop, `for (i = blockIdx.x*blockDim.x + threadIdx.x; i < n;
/// i += blockDim.x*gridDim.x)`: every thread runs its own iterations, Start +
/// Step * k below the bound, k = 0, 1, ...
struct GridStride {
  llvm::PHINode *IV = nullptr; ///< the induction variable, in the loop's header
  IndexPoly Start, Step;       ///< over the coordinates and extents
  /// n: an integer parameter (SymParam0 + p), an integer field of a
  /// by-value struct the kernel does not change (SymField0 + ...), or a
  /// polynomial of them that the kernel computes without wrapping (`w * h`).
  IndexPoly Bound;
  unsigned BoundBits = 32;     ///< n's width
  bool Unsigned = false;       ///< the loop continues while i <u n (else i <s n)
  /// An `int` or `unsigned` variable the optimiser keeps in 64 bits (`for
  /// (int i = grid.thread_rank(); ...; i += grid.size())`): it is Start +
  /// Step * k only while n + Step stays within 2^31 (2^32 for unsigned, n
  /// read as not negative), which the manifest guards.
  bool Narrow = false;
};

struct KernelInfo : Verdict {
  llvm::Function *F = nullptr;
  /// The function the analysis read, whose instructions Accesses and Grid
  /// point into, and which the fused kernel clones: F itself, or F's twin
  /// with its pointer-taking helpers inlined (HelperInline.h).
  llvm::Function *Body = nullptr;
  /// The kernel's accesses lie in this loop and their offsets count its
  /// iterations (SymIter).
  std::optional<GridStride> Grid;
  /// A nest of two grid-stride loops, one per dimension (`for (y = ...; y <
  /// h; y += blockDim.y * gridDim.y) for (x = ...; x < w; x += ...)`): the
  /// outer loop, over the global y or z coordinate, whose only loop is Grid
  /// (over the global x coordinate). Offsets count its iterations
  /// (SymOuterIter).
  std::optional<GridStride> Outer;
  std::vector<ParamInfo> Params;
  std::vector<Access> Accesses;
  unsigned Flops = 0;
  unsigned BytesPerThread = 0; ///< bytes loaded + stored by one thread, each element once
  /// Bit S for every coordinate symbol S (tid.d, ctaid.d) the kernel reads.
  unsigned CoordsRead = 0;
  /// Body's parameters after F's: the pointers at bytes of F's by-value
  /// parameters (FieldParams.h), in order. Params covers them too.
  std::vector<FieldParam> FieldParams;
  /// The narrowest truncation of each block index its accesses read
  /// through (Access::CtaidBits): a launch of more than 2^(W-1) blocks in
  /// that dimension runs unfused (a guard, Legality.cpp).
  unsigned CtaidBits[3] = {32, 32, 32};
  /// The parameters of F itself, which the launch passes.
  unsigned ownParams() const { return unsigned(Params.size() - FieldParams.size()); }
};

/// The dimension d whose global coordinate ctaid.d * ntid.d + tid.d \p P
/// is, or -1.
int globalDim(const IndexPoly &P);

/// The coefficient of coordinate \p Sym in \p P (of tid.x in `4 * (y * w +
/// x)`: 4), where every term names Sym at most once and the coefficient
/// names no coordinate or iteration count; std::nullopt otherwise.
std::optional<IndexPoly> coefficientOf(const IndexPoly &P, int Sym);

/// An offset in a nest of grid-stride loops (KernelInfo::Outer) as CX * x +
/// CY * y + Rest, x the inner loop's variable (from the global x
/// coordinate), y the outer's (from that of dimension DimY), CX, CY and
/// Rest free of coordinates and iteration counts.
struct NestIndex {
  IndexPoly CX, CY, Rest;
  int DimY = 1;
};
/// \p Offset, of kernel \p K, so; std::nullopt when it is not linear in x
/// and y alone.
std::optional<NestIndex> nestIndex(const KernelInfo &K, const IndexPoly &Offset);

/// The symbol an sreg read stands for (a thread or block coordinate or
/// extent of any dimension), -1 for any other value.
int sregSymbol(const llvm::Value *V);
/// The sreg intrinsic of a coordinate or extent symbol (sregSymbol's
/// inverse), an llvm::Intrinsic::ID.
unsigned sregIntrinsic(int Sym);

/// The value a grid-stride loop's latch tests, read through a widening: an
/// `int i` or `unsigned i` against a `size_t n` tests sext(i) or zext(i),
/// and findGridLoop and the loop jam match the variable itself.
llvm::Value *unwidened(llvm::Value *V);

/// Manifest expression for min(H, K * p), p the unsigned integer parameter
/// The field symbol (SymField0) of \p V when it loads an integer from a
/// constant offset of a by-value aggregate parameter of \p F that the
/// kernel never writes (`p.nx` of `Params p`).
std::optional<int> fieldSymbol(const llvm::Function &F, const llvm::Value *V);

/// Whether by-value parameter \p A is only read, by simple loads at
/// constant offsets.
bool readOnlyByVal(const llvm::Argument &A);

/// The scalar fields of \p T, as (byte offset from \p Base, type), in
/// layout order, appended to \p Out; false when there are more than \p Max.
bool fieldsOf(llvm::Type *T, uint64_t Base, const llvm::DataLayout &DL,
              llvm::SmallVectorImpl<std::pair<uint64_t, llvm::Type *>> &Out, unsigned Max);

/// \p Param: the manifest reads s<p> sign-extended, so a value of 2^31 or
/// more (4 bytes) reads negative, and then the bound is H alone:
/// max(min(H,K*s),min(H,-s*(H))).
std::string minUnsignedParam(const std::string &H, unsigned K, unsigned Param);
/// The same for any expression \p P in place of s<p>.
std::string minUnsignedExpr(const std::string &H, unsigned K, const std::string &P);

/// Analyses \p F. Never fails: an unanalysable kernel comes back !isValid()
/// with the reason.
KernelInfo analyzeKernel(llvm::Function &F, llvm::ScalarEvolution &SE,
                         llvm::DominatorTree &DT, llvm::LoopInfo &LI);

/// The SCEV-to-polynomial conversion the analysis uses, exposed for the
/// transform (which recomputes nothing, but names symbols the same way).
/// An add recurrence of \p Grid, {a,+,b}, is a + b * SymIter.
/// Where \p CtaidBits is given (3 widths, one per dimension), a block index
/// read through a truncation to W bits and back (`__mul24(blockIdx.x,
/// blockDim.x)`: sext(trunc(ctaid.x to i24))) reads as the index itself,
/// and CtaidBits[d] becomes at most W: the two agree while the grid has at
/// most 2^(W-1) blocks in that dimension, which the caller must guard.
/// An add recurrence of \p Outer, the outer loop of a nest, is a + b *
/// SymOuterIter.
std::optional<IndexPoly> polyOf(const llvm::Function &F, llvm::ScalarEvolution &SE,
                                const llvm::SCEV *S, const llvm::Loop *Grid = nullptr,
                                unsigned *CtaidBits = nullptr,
                                const llvm::Loop *Outer = nullptr);

/// The byte offset of \p Ptr from the pointer parameter \p Base, through
/// GEPs and address space casts (`__ldg(&t[i])` loads through
/// `addrspacecast (gep t, i)`); null when ScalarEvolution cannot describe it.
const llvm::SCEV *offsetFromParam(llvm::ScalarEvolution &SE, llvm::Value *Ptr,
                                  const llvm::Argument *Base);

} // namespace kfuse

#endif
