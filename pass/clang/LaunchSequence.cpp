//===- LaunchSequence.cpp - launch sequences of map kernels -----------------===//
//
// Walks host function bodies (present in the device compilation too) and
// records each run of two or more kfuse_map launches that are statements of
// one compound statement, separated only by pure host computations:
//
//   1. declarations and expression statements only (no nested block, no
//      control flow, no asm, no label);
//   2. no call other than to a const/pure builtin, a constexpr function or a
//      trivial special member;
//   3. no assignment or increment of a pointer, or of anything reached through
//      a pointer, reference, array subscript or the member of a non-local.
//
// A call of a launch helper (a void host function whose body is one map
// launch, parameters by value) stands for that launch, read in the caller.
//
// Every configuration and argument expression gets a value number: equal
// numbers mean structurally equal expressions (over the value numbers of the
// variables they read, or Expr::Profile, canonical, where the structure has
// calls or member accesses) that read every variable at the same version; an
// allowed assignment to a scalar gives the variable a new version. Integer
// constant expressions are their values, and a dim3 of one extent is the
// extent, so equal configurations written differently get equal numbers.
//
// Where a map launch follows another in a block but cannot join its
// sequence, the finder says which statement ended the sequence and why; and
// it notes map kernels launched through the runtime API (LaunchRemarks.h).
//
//===----------------------------------------------------------------------===//
#include "LaunchSequence.h"
#include "Kfuse.h"
#include "LaunchRemarks.h"
#include "../ErrorCheckNames.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/RecordLayout.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Mangle.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/APSInt.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/FoldingSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <optional>
#include <set>

using namespace clang;

namespace kfuse {
namespace {

/// Versions of the variables assigned since the sequence began.
using VersionMap = llvm::DenseMap<const VarDecl *, unsigned>;

/// Appends the version of every variable E reads to ID, in traversal order.
void addVersions(const Stmt *S, const VersionMap &Versions,
                 llvm::FoldingSetNodeID &ID) {
  if (!S)
    return;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(S))
    if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl()))
      ID.AddInteger(Versions.lookup(VD->getCanonicalDecl()));
  for (const Stmt *Child : S->children())
    addVersions(Child, Versions, ID);
}

/// The value of \p E when it is an integer constant expression (a literal,
/// `256 * sizeof(float)`, an enumerator, a const or constexpr variable with a
/// constant initialiser, a template argument), or nothing. Such a value
/// cannot change between launches.
std::optional<llvm::APSInt> integerConstant(const ASTContext &Ctx, const Expr *E) {
  if (E->isValueDependent() || E->isTypeDependent() ||
      !E->getType()->isIntegralOrEnumerationType())
    return std::nullopt;
  return E->getIntegerConstantExpr(Ctx);
}

/// Adds integer constant \p C to \p ID by its mathematical value, so that
/// `1024`, `1024u` and `256 * sizeof(float)` are one value and `-1` and
/// `4294967295u` are two.
void addConstant(const llvm::APSInt &C, llvm::FoldingSetNodeID &ID) {
  llvm::APSInt Wide = C.extend(128);
  Wide.setIsSigned(true);
  ID.AddString("kfuse.int");
  Wide.Profile(ID);
}

/// The extent a dim3 holds when it is built from one: `dim3(g)`,
/// `dim3(g, 1, 1)` and `dim3 grid(g)`'s initialiser are g, as the implicit
/// conversion of `<<<g, b>>>` is; a copy of a dim3 is that dim3. Null for
/// any other construction (two extents, a uint3).
const Expr *dim3Extent(const ASTContext &Ctx, const Expr *E) {
  // `dim3(g)` and `dim3 d = g;` wrap the construction in a conversion.
  for (;;) {
    E = E->IgnoreParens();
    const auto *C = dyn_cast<CastExpr>(E);
    if (!C || C->getCastKind() != CK_ConstructorConversion)
      break;
    E = C->getSubExpr();
  }
  const auto *CC = dyn_cast<CXXConstructExpr>(E);
  if (!CC || CC->getNumArgs() == 0)
    return nullptr;
  const CXXRecordDecl *RD = CC->getType()->getAsCXXRecordDecl();
  if (!RD || !RD->getIdentifier() || RD->getName() != "dim3" ||
      !RD->getDeclContext()->getRedeclContext()->isTranslationUnit())
    return nullptr;
  const CXXConstructorDecl *CD = CC->getConstructor();
  if (CD->isCopyOrMoveConstructor())
    return CC->getArg(0);
  if (!CD->getParamDecl(0)->getType()->isIntegerType())
    return nullptr;
  for (unsigned I = 1; I < CC->getNumArgs(); ++I) {
    const Expr *A = CC->getArg(I);
    if (const auto *DA = dyn_cast<CXXDefaultArgExpr>(A))
      A = DA->getExpr();
    std::optional<llvm::APSInt> One = integerConstant(Ctx, A);
    if (!One || *One != 1)
      return nullptr;
  }
  return CC->getArg(0);
}

/// The local variables and parameters of one function body that never
/// change after their initialisation, and the copies among them: a launch
/// argument `tmp` after `float *tmp = buf;` names the same value as `buf`
/// when neither changes anywhere in the function.
class LocalCopies {
public:
  LocalCopies(ASTContext &Ctx, const FunctionDecl *Host) : Ctx(Ctx), Host(Host) {
    Finder F;
    F.TraverseStmt(Host->getBody());
    for (const DeclRefExpr *D : F.Refs)
      if (!F.Reads.contains(D))
        if (const auto *VD = dyn_cast<VarDecl>(D->getDecl()))
          Written.insert(VD->getCanonicalDecl());
  }

  /// E with each unchanged local copy replaced by what it copies (through
  /// conversions that keep the value: reads, qualification, pointer casts),
  /// and each unchanged local dim3 of one extent (`dim3 grid(g);`) by the
  /// extent, as written. E itself when it is no such copy. A conversion that
  /// changes the value (`int narrow = wide;`) stays in the result.
  const Expr *resolve(const Expr *E) const {
    for (unsigned Depth = 0; Depth < 16; ++Depth) {
      const auto *DRE = dyn_cast<DeclRefExpr>(keepValue(E));
      const auto *VD = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
      if (!VD || isa<ParmVarDecl>(VD) || !unchanged(VD) || !VD->getInit())
        return E;
      const Expr *Init = keepValue(VD->getInit());
      QualType T = VD->getType().getCanonicalType().getUnqualifiedType();
      QualType IT = Init->getType().getCanonicalType().getUnqualifiedType();
      bool SameValue = T == IT || (T->isPointerType() && IT->isPointerType());
      // dim3's constructor is not trivial, which HasSideEffects counts as
      // an effect; the extent is what needs to be free of them.
      if (const Expr *Extent = dim3Extent(Ctx, Init)) {
        Init = Extent->IgnoreUnlessSpelledInSource();
        SameValue = true;
      }
      if (!SameValue || Init->HasSideEffects(Ctx) || !readsOnlyUnchanged(Init))
        return E;
      E = Init;
    }
    return E;
  }

private:
  /// Every reference to a variable, and those that only read it.
  struct Finder : RecursiveASTVisitor<Finder> {
    llvm::DenseSet<const DeclRefExpr *> Reads;
    std::vector<const DeclRefExpr *> Refs;
    bool VisitImplicitCastExpr(ImplicitCastExpr *C) {
      if (C->getCastKind() != CK_LValueToRValue && C->getCastKind() != CK_ArrayToPointerDecay)
        return true;
      // A field read by `.` (`v.t[i]`) reads its struct.
      const Expr *E = C->getSubExpr()->IgnoreParens();
      for (const auto *ME = dyn_cast<MemberExpr>(E); ME && !ME->isArrow();
           ME = dyn_cast<MemberExpr>(E))
        E = ME->getBase()->IgnoreParens();
      if (const auto *D = dyn_cast<DeclRefExpr>(E))
        Reads.insert(D);
      return true;
    }
    /// A trivial copy (`<<<grid, ...>>>` copies the dim3 grid) binds its
    /// source to a const reference and only reads it.
    bool VisitCXXConstructExpr(CXXConstructExpr *C) {
      const CXXConstructorDecl *CD = C->getConstructor();
      if (CD->isCopyConstructor() && CD->isTrivial() && C->getNumArgs() == 1)
        if (const auto *D = dyn_cast<DeclRefExpr>(C->getArg(0)->IgnoreParenImpCasts()))
          Reads.insert(D);
      return true;
    }
    bool VisitDeclRefExpr(DeclRefExpr *D) {
      Refs.push_back(D);
      return true;
    }
    /// The visitor walks an initialiser list in its syntactic form, whose
    /// elements are as written (`Fields f{h, u, n};`); its semantic form
    /// holds the same expressions under the conversions that read them.
    bool VisitInitListExpr(InitListExpr *IL) {
      if (InitListExpr *Sem = IL->isSemanticForm() ? IL : IL->getSemanticForm())
        for (Expr *E : Sem->inits()) {
          if (auto *C = dyn_cast_or_null<ImplicitCastExpr>(E))
            VisitImplicitCastExpr(C);
          else if (auto *CC = dyn_cast_or_null<CXXConstructExpr>(E))
            VisitCXXConstructExpr(CC);
        }
      return true;
    }
  };

  /// A non-volatile, non-reference local or parameter of this function that
  /// nothing assigns, increments, takes the address of or binds to a
  /// reference.
  bool unchanged(const VarDecl *VD) const {
    return VD->hasLocalStorage() && VD->getDeclContext() == Host &&
           !VD->getType()->isReferenceType() && !VD->getType().isVolatileQualified() &&
           !Written.contains(VD->getCanonicalDecl());
  }

  bool readsOnlyUnchanged(const Stmt *S) const {
    if (const auto *DRE = dyn_cast<DeclRefExpr>(S))
      if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl()))
        if (!unchanged(VD))
          return false;
    for (const Stmt *Child : S->children())
      if (Child && !readsOnlyUnchanged(Child))
        return false;
    return true;
  }

  /// Strips parentheses, lvalue reads, qualification changes and casts from
  /// a pointer to a pointer that keep the address.
  static const Expr *keepValue(const Expr *E) {
    for (;;) {
      E = E->IgnoreParens();
      const auto *C = dyn_cast<CastExpr>(E);
      if (!C)
        return E;
      const Expr *Sub = C->getSubExpr();
      CastKind K = C->getCastKind();
      bool Keeps = K == CK_LValueToRValue || K == CK_NoOp ||
                   (K == CK_BitCast && C->getType()->isPointerType() &&
                    Sub->getType()->isPointerType());
      if (!Keeps)
        return E;
      E = Sub;
    }
  }

  ASTContext &Ctx;
  const FunctionDecl *Host;
  llvm::DenseSet<const VarDecl *> Written;
};

/// The value kind of docs/annotations.md. A pointer to an incomplete struct
/// is an opaque handle (cudaStream_t, cudaEvent_t), not a buffer: `other`.
const char *valueKind(QualType T) {
  T = T.getCanonicalType();
  if (T->isArrayType() || T->isNullPtrType())
    return "ptr";
  if (const auto *PT = T->getAs<PointerType>()) {
    QualType Pointee = PT->getPointeeType();
    if (Pointee->isRecordType() && Pointee->isIncompleteType())
      return "other";
    return "ptr";
  }
  if (T->isIntegralOrEnumerationType())
    return "int";
  if (T->isRealFloatingType())
    return "float";
  return "other";
}

struct HelperCall;

/// One launch sequence under construction: its launches and value table.
class SequenceBuilder {
public:
  /// Zero is the literal 0 that stands for a configuration argument left out.
  SequenceBuilder(ASTContext &Ctx, ASTNameGenerator &Names, const Expr *Zero,
                  const LocalCopies &Copies)
      : Ctx(Ctx), Names(Names), Zero(Zero), Copies(Copies) {}

  bool empty() const { return Launches.empty(); }

  /// Adds launch K, written in place or, with \p H, as the helper call H.
  void addLaunch(const CUDAKernelCallExpr *K, const VersionMap &Versions,
                 const HelperCall *H = nullptr);

  /// Returns the finished record if there were two launches or more, and
  /// starts a new sequence.
  std::optional<SequenceRecord> finish(const FunctionDecl *Host) {
    std::optional<SequenceRecord> R;
    if (Launches.size() >= 2) {
      R.emplace();
      R->Site = Site;
      llvm::raw_string_ostream OS(R->Text);
      PresumedLoc P =
          Ctx.getSourceManager().getPresumedLoc(
              Ctx.getSourceManager().getExpansionLoc(Site));
      OS << "kfuse.seq 1\nsite ";
      if (P.isValid())
        OS << P.getFilename() << ':' << P.getLine() << ':' << P.getColumn();
      else
        OS << "<unknown>:0:0";
      OS << ' ' << Names.getName(Host) << '\n';
      for (const std::string &L : Launches)
        OS << L << '\n';
      for (unsigned V = 0; V < Values.size(); ++V)
        OS << "value " << V << ' ' << Values[V].Kind << ' ' << Values[V].Text
           << '\n';
    }
    Launches.clear();
    Values.clear();
    return R;
  }

private:
  struct Value {
    llvm::FoldingSetNodeID ID;
    const char *Kind;
    std::string Text;
  };

  /// Implicit conversions (decay, qualification, the dim3 converting
  /// constructor, copies) do not change which value the source names, nor
  /// do explicit casts from a pointer to a pointer (`(const float *)t`): the
  /// address stays, whatever the pointee. Nor does an explicit dim3 of one
  /// extent (`dim3(g)` is `<<<g, ...>>>`'s conversion written out).
  const Expr *spelledValue(const Expr *E) const {
    for (unsigned Depth = 0; Depth < 16; ++Depth) {
      E = E->IgnoreUnlessSpelledInSource();
      if (const auto *C = dyn_cast<ExplicitCastExpr>(E)) {
        const Expr *Sub = C->getSubExpr()->IgnoreUnlessSpelledInSource();
        if ((C->getCastKind() == CK_BitCast || C->getCastKind() == CK_NoOp) &&
            C->getType()->isPointerType() && Sub->getType()->isPointerType()) {
          E = Sub;
          continue;
        }
      }
      const Expr *Extent = dim3Extent(Ctx, E);
      if (!Extent)
        break;
      E = Extent;
    }
    return E;
  }

  unsigned number(const llvm::FoldingSetNodeID &ID, const Expr *E, const Expr *Spelled,
                  std::optional<std::string> Text = std::nullopt) {
    for (unsigned V = 0; V < Values.size(); ++V)
      if (Values[V].ID == ID)
        return V;
    Values.push_back({ID, valueKind(E->getType()), Text ? *Text : sourceText(Spelled)});
    return Values.size() - 1;
  }

  unsigned valueNumber(const Expr *E, const VersionMap &Versions) {
    E = spelledValue(E);
    const Expr *Spelled = E;
    // A local copy that never changes names what it copies.
    E = Copies.resolve(E);
    llvm::FoldingSetNodeID ID;
    // An integer constant is its value, however it is spelled: `1024`,
    // `256 * sizeof(float)`, a constexpr or const variable, a template
    // argument. Its text is the value, which the device pass reads as the
    // dynamic shared memory size.
    if (std::optional<llvm::APSInt> C = integerConstant(Ctx, E)) {
      addConstant(*C, ID);
      return number(ID, E, Spelled, llvm::toString(*C, 10));
    }
    // A pointer field of a struct (`s.u`, `s.in.u`) is the field at its
    // byte of the struct's value, as the fields of a struct passed whole
    // are (addFields), so `k<<<...>>>(s)` and `k2<<<...>>>(s.u)` name one
    // buffer.
    uint64_t Offset = 0;
    SmallVector<const FieldDecl *, 4> Path;
    if (const Expr *Base = fieldBase(E, Offset, Path)) {
      // A field of a struct written as an aggregate (`Fields f{h, u, n};`,
      // unchanged) is what initialised it.
      const Expr *Init = Base;
      for (const FieldDecl *FD : Path)
        Init = Init ? fieldInit(aggregateInit(Init), FD) : nullptr;
      if (Init)
        return valueNumber(Init, Versions);
      fieldID(valueNumber(Base, Versions), Offset, ID);
      return number(ID, E, Spelled);
    }
    // An expression is its structure over the values of the variables it
    // reads (as a helper's expression is over its arguments' values), where
    // hashIn can read it; otherwise Expr::Profile with the variables'
    // versions.
    if (!isa<DeclRefExpr>(E->IgnoreParens())) {
      ID.AddString("kfuse.structure");
      if (hashIn(E, nullptr, Versions, ID))
        return number(ID, E, Spelled);
      ID.clear();
    }
    E->Profile(ID, Ctx, /*Canonical=*/true);
    addVersions(E, Versions, ID);
    return number(ID, E, Spelled);
  }

  unsigned valueIn(const Expr *E, const HelperCall &H, const VersionMap &Versions);
  /// The value of \p E, an expression of helper \p H's launch, or of the
  /// function's own without one.
  unsigned valueOf(const Expr *E, const HelperCall *H, const VersionMap &Versions) {
    return H ? valueIn(E, *H, Versions) : valueNumber(E, Versions);
  }
  void addFields(const Expr *E, const HelperCall *H, const VersionMap &Versions, unsigned Param,
                 unsigned ArgValue, uint64_t Base, std::string &Out, unsigned Depth = 0);
  void addRecordFields(const RecordDecl *RD, unsigned Param, unsigned ArgValue, uint64_t Base,
                       uint64_t InValue, const InitListExpr *Init, const HelperCall *H,
                       const VersionMap &Versions, const std::string &Path, std::string &Out,
                       unsigned Depth);
  unsigned numberID(const llvm::FoldingSetNodeID &ID, const char *Kind, std::string Text) {
    for (unsigned V = 0; V < Values.size(); ++V)
      if (Values[V].ID == ID)
        return V;
    Values.push_back({ID, Kind, std::move(Text)});
    return Values.size() - 1;
  }

  /// Of the identity of the pointer at byte \p Offset of value \p Of.
  static void fieldID(unsigned Of, uint64_t Offset, llvm::FoldingSetNodeID &ID) {
    ID.AddString("kfuse.field");
    ID.AddInteger(Of);
    ID.AddInteger(Offset);
  }

  /// The struct whose pointer field \p E reads by `.` (`s.u`, `s.in.u`;
  /// not through a pointer or a union), with the field's byte in \p Offset;
  /// else null.
  const Expr *fieldBase(const Expr *E, uint64_t &Offset,
                        SmallVectorImpl<const FieldDecl *> &Path) const {
    if (!E->getType()->isPointerType())
      return nullptr;
    Offset = 0;
    const Expr *Base = nullptr;
    for (const auto *ME = dyn_cast<MemberExpr>(E->IgnoreParenImpCasts()); ME;
         ME = dyn_cast<MemberExpr>(Base)) {
      const auto *FD = dyn_cast<FieldDecl>(ME->getMemberDecl());
      if (ME->isArrow() || !FD || FD->isBitField() || FD->getParent()->isUnion() ||
          FD->getParent()->isInvalidDecl() || !FD->getParent()->isCompleteDefinition())
        return nullptr;
      Offset += Ctx.getFieldOffset(FD) / Ctx.getCharWidth();
      Path.insert(Path.begin(), FD);
      Base = ME->getBase()->IgnoreParenImpCasts();
    }
    return Base;
  }

  /// The aggregate initialiser \p E stands for: E itself, or the
  /// initialiser of the unchanged local it names (`Fields f{h, u, n};`,
  /// LocalCopies); else null.
  const InitListExpr *aggregateInit(const Expr *E) const {
    E = Copies.resolve(E);
    // `Axpy{a, x, y}` passed by value: a temporary built from the list.
    for (unsigned Step = 0; Step < 8; ++Step) {
      E = E->IgnoreParenImpCasts();
      if (const auto *MT = dyn_cast<MaterializeTemporaryExpr>(E))
        E = MT->getSubExpr();
      else if (const auto *FC = dyn_cast<CXXFunctionalCastExpr>(E);
               FC && FC->getCastKind() == CK_NoOp)
        E = FC->getSubExpr();
      else
        break;
    }
    const auto *IL = dyn_cast<InitListExpr>(E);
    if (IL && IL->isSemanticForm() && !IL->getType()->isUnionType() && !IL->isTransparent())
      return IL;
    return nullptr;
  }

  /// The element of aggregate initialiser \p IL that initialises field
  /// \p FD of its struct, or null (none written: zero).
  static const Expr *fieldInit(const InitListExpr *IL, const FieldDecl *FD) {
    unsigned I = FD->getFieldIndex();
    if (!IL || FD->getParent() != IL->getType()->getAsRecordDecl() || I >= IL->getNumInits())
      return nullptr;
    const Expr *E = IL->getInit(I);
    return E && !isa<ImplicitValueInitExpr>(E) ? E : nullptr;
  }
  static bool readsHelper(const Stmt *S, const HelperCall &H);
  unsigned callerArg(const HelperCall &H, const ParmVarDecl *P, const VersionMap &Versions);
  bool hashIn(const Expr *E, const HelperCall *H, const VersionMap &Versions,
              llvm::FoldingSetNodeID &ID);

  std::string sourceText(const Expr *E) {
    if (E == Zero)
      return "0";
    std::string Text;
    CharSourceRange R = Lexer::makeFileCharRange(
        CharSourceRange::getTokenRange(E->getSourceRange()),
        Ctx.getSourceManager(), Ctx.getLangOpts());
    if (R.isValid()) {
      Text = Lexer::getSourceText(R, Ctx.getSourceManager(), Ctx.getLangOpts())
                 .str();
    } else {
      llvm::raw_string_ostream OS(Text);
      E->printPretty(OS, nullptr, Ctx.getPrintingPolicy());
    }
    for (char &C : Text)
      if (C == '\n' || C == '\r' || C == '\t')
        C = ' ';
    return Text;
  }

  ASTContext &Ctx;
  ASTNameGenerator &Names;
  const Expr *Zero;
  const LocalCopies &Copies;
  SourceLocation Site;
  std::vector<std::string> Launches;
  std::vector<Value> Values;
  unsigned Fresh = 0; ///< values that equal no other
  unsigned LocalDepth = 0; ///< helper locals being read through (hashIn)
};

/// The expression an expression statement evaluates (cleanups and
/// parentheses looked through), or null.
const Expr *statementExpr(const Stmt *S) {
  const auto *E = dyn_cast<Expr>(S);
  if (!E)
    return nullptr;
  if (const auto *EWC = dyn_cast<ExprWithCleanups>(E))
    E = EWC->getSubExpr();
  return E->IgnoreParens();
}

/// The map-kernel launch that statement S is, or null.
const CUDAKernelCallExpr *asMapLaunch(const Stmt *S) {
  const auto *K = dyn_cast_or_null<CUDAKernelCallExpr>(statementExpr(S));
  if (!K || !isMapKernel(K->getDirectCallee()))
    return nullptr;
  return K;
}

/// A statement that calls a launch helper: a host function whose body is
/// declarations of local variables initialised by pure host computations,
/// then a single map-kernel launch, with parameters taken by value or by
/// reference, and that changes none of its variables
/// (`void axpy(...) { int g = (n + 255) / 256; k<<<g, b>>>(...); }`); a
/// member function too when nothing in it reads its object. The launch's
/// configuration and arguments are read in the caller, the helper's
/// parameters standing for the call's arguments and its locals for their
/// initialisers.
struct HelperCall {
  const CallExpr *Call = nullptr;
  const FunctionDecl *Helper = nullptr;
  const CUDAKernelCallExpr *Launch = nullptr;
  /// The map kernel the launch runs: its callee, or the kernel the call
  /// passes for the helper's parameter that the launch calls through.
  const FunctionDecl *Kernel = nullptr;
  /// The call's argument for the helper's parameter i is argument i + ArgBase
  /// (1 for a lambda's call operator, whose argument 0 is the lambda).
  unsigned ArgBase = 0;

  const Expr *argFor(const ParmVarDecl *P) const {
    return Call->getArg(P->getFunctionScopeIndex() + ArgBase);
  }
};

/// The map kernel \p E names (`k`, `&k`, `(void (*)(...))k`), or null.
const FunctionDecl *namedMapKernel(const Expr *E) {
  E = E->IgnoreParenCasts();
  if (const auto *UO = dyn_cast<UnaryOperator>(E); UO && UO->getOpcode() == UO_AddrOf)
    E = UO->getSubExpr()->IgnoreParenCasts();
  const auto *DRE = dyn_cast<DeclRefExpr>(E);
  const auto *FD = DRE ? dyn_cast<FunctionDecl>(DRE->getDecl()) : nullptr;
  return FD && isMapKernel(FD) ? FD : nullptr;
}

/// The map kernel that the function pointer variable \p E names was
/// initialised with (`auto *f = k;`), and the variable; nulls otherwise.
/// Which kernel a launch through it runs is the pointer's value when it
/// runs, which kfuse does not follow.
std::pair<const FunctionDecl *, const VarDecl *> pointerToMapKernel(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  if (const auto *UO = dyn_cast<UnaryOperator>(E); UO && UO->getOpcode() == UO_Deref)
    E = UO->getSubExpr()->IgnoreParenImpCasts();
  const auto *DRE = dyn_cast<DeclRefExpr>(E);
  const auto *VD = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  if (!VD || isa<ParmVarDecl>(VD) || !VD->getInit())
    return {};
  const FunctionDecl *Kernel = namedMapKernel(VD->getInit());
  return {Kernel, Kernel ? VD : nullptr};
}

/// The parameter of \p Helper that launch \p K calls its kernel through
/// (`template <class K> void launch(K k, ...) { k<<<g, b>>>(...); }`), or null.
const ParmVarDecl *launchedParameter(const CUDAKernelCallExpr *K, const FunctionDecl *Helper) {
  if (K->getDirectCallee())
    return nullptr;
  const auto *DRE = dyn_cast<DeclRefExpr>(K->getCallee()->IgnoreParenImpCasts());
  const auto *P = DRE ? dyn_cast<ParmVarDecl>(DRE->getDecl()) : nullptr;
  return P && P->getDeclContext() == static_cast<const DeclContext *>(Helper) ? P : nullptr;
}

/// The launch statement \p Def's body ends in, or null.
const CUDAKernelCallExpr *endingLaunch(const FunctionDecl *Def) {
  const auto *Body = dyn_cast_or_null<CompoundStmt>(Def->getBody());
  return Body && Body->size() ? dyn_cast_or_null<CUDAKernelCallExpr>(statementExpr(Body->body_back()))
                              : nullptr;
}

/// Where the callee's parameters start among \p Call's arguments: 1 for
/// an object's call operator (a lambda called by name), whose argument 0 is
/// the object; 0 otherwise.
unsigned argBase(const CallExpr *Call) {
  return isa<CXXOperatorCallExpr>(Call) && isa_and_nonnull<CXXMethodDecl>(Call->getDirectCallee());
}

/// What \p Call passes for the parameter that its callee's last statement,
/// a launch, calls its kernel through (a launch helper given the kernel),
/// or null.
const Expr *kernelArgument(const CallExpr *Call) {
  const FunctionDecl *Def = nullptr;
  if (isa<CUDAKernelCallExpr>(Call) || !Call->getDirectCallee() ||
      !Call->getDirectCallee()->hasBody(Def))
    return nullptr;
  const CUDAKernelCallExpr *K = endingLaunch(Def);
  const ParmVarDecl *P = K ? launchedParameter(K, Def) : nullptr;
  unsigned I = P ? P->getFunctionScopeIndex() + argBase(Call) : 0;
  return P && I < Call->getNumArgs() ? Call->getArg(I) : nullptr;
}

/// Whether the declarations of a helper's local \p VD and its initialiser
/// are pure host computations (defined with PurityCheck below).
bool pureHelperLocal(const VarDecl *VD);

/// Why nothing in \p S changes a variable or reads the helper's object, or
/// "" when nothing does.
std::string helperEffects(const Stmt *S) {
  if (!S)
    return "";
  if (isa<CXXThisExpr>(S))
    return "it reads members of its object";
  if (const auto *BO = dyn_cast<BinaryOperator>(S); BO && BO->isAssignmentOp())
    return "it assigns to a variable";
  if (const auto *UO = dyn_cast<UnaryOperator>(S)) {
    if (UO->isIncrementDecrementOp())
      return "it assigns to a variable";
    if (UO->getOpcode() == UO_AddrOf)
      return "it takes an address";
  }
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(S); OC && OC->isAssignmentOp())
    return "it assigns to a variable";
  for (const Stmt *Child : S->children())
    if (std::string Why = helperEffects(Child); !Why.empty())
      return Why;
  return "";
}

/// The launch helper call \p Call is, or nothing; then \p WhyNot (when
/// given) says why the callee is no launch helper.
std::optional<HelperCall> asHelperCall(const CallExpr *Call, std::string *WhyNot = nullptr) {
  auto Fail = [&](const char *Why) -> std::optional<HelperCall> {
    if (WhyNot)
      *WhyNot = Why;
    return std::nullopt;
  };
  if (!Call || isa<CUDAKernelCallExpr>(Call) || !Call->getDirectCallee())
    return Fail("it is no direct call");
  // A lambda called by name (`auto run = [&](auto k, auto... a) { k<<<g,
  // b>>>(a...); }; run(scale, x, t);`) is a helper whose first argument is
  // the lambda itself.
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(Call)) {
    const auto *MD = dyn_cast<CXXMethodDecl>(Call->getDirectCallee());
    if (OC->getOperator() != OO_Call || !MD || !MD->getParent()->isLambda())
      return Fail("it is an operator");
    if (OC->getArg(0)->HasSideEffects(MD->getASTContext()))
      return Fail("its lambda is computed by a call");
  }
  const unsigned ArgBase = argBase(Call);
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call)) {
    const CXXMethodDecl *MD = MC->getMethodDecl();
    if (!MD || (MD->isVirtual() && !MD->hasAttr<FinalAttr>() &&
                !MD->getParent()->hasAttr<FinalAttr>()))
      return Fail("it is a virtual member function");
    const Expr *Obj = MC->getImplicitObjectArgument();
    if (!Obj || Obj->HasSideEffects(MD->getASTContext()))
      return Fail("its object is computed by a call");
  }
  const FunctionDecl *Def = nullptr;
  if (!Call->getDirectCallee()->hasBody(Def) || Def->hasAttr<CUDAGlobalAttr>() ||
      (Def->hasAttr<CUDADeviceAttr>() && !Def->hasAttr<CUDAHostAttr>()))
    return Fail("it is no host function defined here");
  if (!Def->getReturnType()->isVoidType())
    return Fail("it returns a value");
  if (Def->isVariadic() || Call->getNumArgs() != Def->getNumParams() + ArgBase)
    return Fail("it is variadic");
  for (const ParmVarDecl *P : Def->parameters())
    if (P->getType().getNonReferenceType().isVolatileQualified())
      return Fail("it takes a volatile parameter");
  const auto *Body = dyn_cast_or_null<CompoundStmt>(Def->getBody());
  const CUDAKernelCallExpr *K = endingLaunch(Def);
  if (!K)
    return Fail("its body does not end in a launch");
  // The kernel: the launch's callee, or what the call passes for the
  // parameter the launch calls through, named.
  HelperCall H{Call, Def, K, K->getDirectCallee(), ArgBase};
  if (const ParmVarDecl *P = launchedParameter(K, Def))
    H.Kernel = namedMapKernel(H.argFor(P));
  if (!isMapKernel(H.Kernel))
    return Fail("its body does not end in a launch of a kfuse_map kernel");
  for (const Stmt *S : Body->body()) {
    if (S == Body->body_back())
      break;
    const auto *DS = dyn_cast<DeclStmt>(S);
    if (!DS)
      return Fail("its body is more than local variables and one launch");
    for (const Decl *D : DS->decls()) {
      const auto *VD = dyn_cast<VarDecl>(D);
      if (!VD || !VD->hasLocalStorage() || VD->getType()->isReferenceType() ||
          VD->getType().isVolatileQualified() || !pureHelperLocal(VD))
        return Fail("its body is more than local variables and one launch");
    }
  }
  if (std::string Why = helperEffects(Body); !Why.empty()) {
    if (WhyNot)
      *WhyNot = Why;
    return std::nullopt;
  }
  return H;
}

std::optional<HelperCall> asHelperCall(const Stmt *S) {
  return asHelperCall(dyn_cast_or_null<CallExpr>(statementExpr(S)));
}

void SequenceBuilder::addLaunch(const CUDAKernelCallExpr *K, const VersionMap &Versions,
                                const HelperCall *H) {
  if (Launches.empty())
    // Where the host compilation's debug locations put the launch (the
    // configuration push at `<<<`; a helper call's callee, or member name
    // for a member function): the host pass finds the sequence by it
    // (docs/annotations.md).
    Site = H ? H->Call->getExprLoc() : K->getConfig()->getBeginLoc();
  auto Number = [&](const Expr *E) { return valueOf(E, H, Versions); };
    const CallExpr *Config = K->getConfig();
    std::string Line;
    llvm::raw_string_ostream OS(Line);
    OS << "launch " << Launches.size() << ' '
       << Names.getName(H ? H->Kernel : K->getDirectCallee());
    static const char *const ConfigNames[] = {"grid", "block", "shmem",
                                              "stream"};
    // Where the device compilation sees the launch as one from device code
    // (a lambda of host code is __host__ __device__ under -fgpu-rdc), the
    // configuration is cudaLaunchDevice(func, params, grid, block, shmem,
    // stream): the host's four come after two null pointers.
    unsigned First = 0;
    if (const FunctionDecl *FD = Config->getDirectCallee();
        FD && FD->getIdentifier() && FD->getName() == "cudaLaunchDevice")
      First = 2;
    for (unsigned I = 0; I < 4; ++I) {
      // A configuration argument left out in the source is the literal 0.
      const Expr *E = First + I < Config->getNumArgs() ? Config->getArg(First + I) : nullptr;
      if (!E || isa<CXXDefaultArgExpr>(E))
        E = Zero;
      OS << ' ' << ConfigNames[I] << '=' << Number(E);
    }
    OS << " args=";
    std::string Fields;
    for (unsigned I = 0, N = K->getNumArgs(); I < N; ++I) {
      const Expr *E = K->getArg(I);
      if (const auto *DA = dyn_cast<CXXDefaultArgExpr>(E))
        E = DA->getExpr();
      unsigned V = Number(E);
      OS << (I ? "," : "") << V;
      addFields(E, H, Versions, I, V, 0, Fields);
    }
    if (!Fields.empty())
      OS << " fields=" << Fields;
    Launches.push_back(std::move(Line));
  }

/// The value of the argument a helper call passes for parameter \p P.
unsigned SequenceBuilder::callerArg(const HelperCall &H, const ParmVarDecl *P,
                                    const VersionMap &Versions) {
  const Expr *A = H.argFor(P);
  if (const auto *DA = dyn_cast<CXXDefaultArgExpr>(A))
    A = DA->getExpr();
  return valueNumber(A, Versions);
}

/// The value number of \p E, an expression of helper H's launch. A
/// parameter is the call's argument; anything else is compared by its
/// structure with each parameter read as the argument's value number, and
/// what hashIn cannot read equals no other value.
/// The initialiser a local variable of helper \p H that \p E names stands
/// for, or null.
static const Expr *helperLocalInit(const Expr *E, const HelperCall &H) {
  const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
  const auto *VD = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  if (!VD || isa<ParmVarDecl>(VD) ||
      VD->getDeclContext() != static_cast<const DeclContext *>(H.Helper))
    return nullptr;
  return VD->getInit();
}

unsigned SequenceBuilder::valueIn(const Expr *E, const HelperCall &H,
                                  const VersionMap &Versions) {
  const Expr *S = spelledValue(E);
  // A local of the helper (`int g = (n + 255) / 256;`) is its initialiser.
  for (unsigned Depth = 0; Depth < 16; ++Depth) {
    const Expr *Init = helperLocalInit(S, H);
    if (!Init)
      break;
    S = E = spelledValue(Init);
  }
  if (const auto *DRE = dyn_cast<DeclRefExpr>(S))
    if (const auto *P = dyn_cast<ParmVarDecl>(DRE->getDecl());
        P && P->getDeclContext() == static_cast<const DeclContext *>(H.Helper))
      return callerArg(H, P, Versions);
  // What reads nothing of the helper (a literal, a constant) means the same
  // in the caller.
  if (E == Zero || !readsHelper(E, H))
    return valueNumber(E, Versions);
  llvm::FoldingSetNodeID ID;
  ID.AddString("kfuse.structure");
  if (!hashIn(S, &H, Versions, ID)) {
    ID.AddString("kfuse.fresh");
    ID.AddInteger(++Fresh);
  }
  size_t Known = Values.size();
  unsigned V = number(ID, S, S);
  if (V == Known) // new: the text is the helper's
    Values[V].Text += " in " + H.Helper->getNameAsString();
  return V;
}

/// The pointer fields of a struct or lambda argument \p E (kernel parameter
/// \p Param, of value \p ArgValue) at byte \p Base and on: `<param>+<byte>:<value>`
/// each, appended to \p Out (docs/annotations.md, `fields=`). A lambda's
/// captured pointer is the value of what it captured, as the caller names
/// it; a field of anything else is the field of the argument's value.
void SequenceBuilder::addFields(const Expr *E, const HelperCall *H, const VersionMap &Versions,
                                unsigned Param, unsigned ArgValue, uint64_t Base,
                                std::string &Out, unsigned Depth) {
  const RecordDecl *RD = E->getType()->getAsRecordDecl();
  if (!RD || RD->isUnion() || RD->isInvalidDecl() || !RD->isCompleteDefinition() ||
      Depth > 4)
    return;
  // The expression the argument copies: through copies, temporaries, a
  // helper's parameter (the call's argument, read in the caller) and a
  // local initialised with a lambda (a closure cannot be assigned).
  const Expr *S = E;
  for (unsigned Step = 0; Step < 16; ++Step) {
    S = S->IgnoreParens();
    if (const auto *EWC = dyn_cast<ExprWithCleanups>(S))
      S = EWC->getSubExpr();
    else if (const auto *MT = dyn_cast<MaterializeTemporaryExpr>(S))
      S = MT->getSubExpr();
    else if (const auto *BT = dyn_cast<CXXBindTemporaryExpr>(S))
      S = BT->getSubExpr();
    else if (const auto *IC = dyn_cast<ImplicitCastExpr>(S);
             IC && (IC->getCastKind() == CK_NoOp || IC->getCastKind() == CK_LValueToRValue))
      S = IC->getSubExpr();
    else if (const auto *CC = dyn_cast<CXXConstructExpr>(S);
             CC && CC->getNumArgs() == 1 && CC->getConstructor()->isCopyOrMoveConstructor())
      S = CC->getArg(0);
    else if (const auto *DRE = dyn_cast<DeclRefExpr>(S)) {
      const auto *P = dyn_cast<ParmVarDecl>(DRE->getDecl());
      if (H && P && P->getDeclContext() == static_cast<const DeclContext *>(H->Helper)) {
        S = H->argFor(P);
        if (const auto *DA = dyn_cast<CXXDefaultArgExpr>(S))
          S = DA->getExpr();
        H = nullptr;
        continue;
      }
      const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
      const auto *Closure = VD ? VD->getType()->getAsCXXRecordDecl() : nullptr;
      if (VD && !isa<ParmVarDecl>(VD) && VD->hasLocalStorage() && Closure &&
          Closure->isLambda() && !VD->getType()->isReferenceType() && VD->getInit()) {
        S = VD->getInit();
        continue;
      }
      break;
    } else
      break;
  }
  const auto *L = dyn_cast<LambdaExpr>(S);
  if (!L) {
    // A capture's expression is spelled by the capture default (`=`):
    // name the variable.
    std::string Text = sourceText(E);
    if (const auto *DRE = dyn_cast<DeclRefExpr>(S);
        DRE && Text.find_first_not_of("=&") == std::string::npos)
      Text = DRE->getDecl()->getNameAsString();
    addRecordFields(RD, Param, ArgValue, Base, 0, H ? nullptr : aggregateInit(S), H, Versions,
                    Text, Out, Depth);
    return;
  }
  const ASTRecordLayout &Layout = Ctx.getASTRecordLayout(L->getLambdaClass());
  unsigned Index = 0;
  auto Init = L->capture_init_begin();
  for (const FieldDecl *FD : L->getLambdaClass()->fields()) {
    const Expr *Captured = Init == L->capture_init_end() ? nullptr : *Init++;
    uint64_t Off = Base + Layout.getFieldOffset(Index++) / Ctx.getCharWidth();
    if (!Captured)
      break;
    if (FD->getType()->isPointerType() && Out.size() < 4096) {
      unsigned V = valueOf(Captured, H, Versions);
      // An implicit capture's expression is spelled by the capture default
      // (`=`): name the variable.
      const auto *DRE = dyn_cast<DeclRefExpr>(Captured->IgnoreImplicit());
      if (DRE && Values[V].Text.find_first_not_of("=&") == std::string::npos)
        Values[V].Text = DRE->getDecl()->getNameAsString();
      Out += (Out.empty() ? "" : ",") + std::to_string(Param) + "+" + std::to_string(Off) +
             ":" + std::to_string(V);
    } else if (FD->getType()->isRecordType()) {
      unsigned V = valueOf(Captured, H, Versions);
      addFields(Captured, H, Versions, Param, V, Off, Out, Depth + 1);
    }
  }
}

/// The pointer fields of struct \p RD at byte \p InValue of value
/// \p ArgValue and at byte \p Base of parameter \p Param: what aggregate
/// initialiser \p Init gives each (read with \p H), else the field of that
/// value.
void SequenceBuilder::addRecordFields(const RecordDecl *RD, unsigned Param, unsigned ArgValue,
                                      uint64_t Base, uint64_t InValue, const InitListExpr *Init,
                                      const HelperCall *H, const VersionMap &Versions,
                                      const std::string &Path, std::string &Out, unsigned Depth) {
  if (RD->isUnion() || RD->isInvalidDecl() || !RD->isCompleteDefinition() || Depth > 4)
    return;
  if (const auto *CRD = dyn_cast<CXXRecordDecl>(RD); CRD && CRD->getNumBases())
    return;
  const ASTRecordLayout &Layout = Ctx.getASTRecordLayout(RD);
  unsigned Index = 0;
  for (const FieldDecl *FD : RD->fields()) {
    uint64_t Off = Layout.getFieldOffset(Index++) / Ctx.getCharWidth();
    std::string Named = Path + "." + FD->getNameAsString();
    if (FD->isBitField())
      continue;
    const Expr *Given = fieldInit(Init, FD);
    if (FD->getType()->isPointerType() && Out.size() < 4096) {
      unsigned V;
      if (Given) {
        V = valueOf(Given, H, Versions);
      } else {
        llvm::FoldingSetNodeID ID;
        fieldID(ArgValue, InValue + Off, ID);
        V = numberID(ID, valueKind(FD->getType()), Named);
      }
      Out += (Out.empty() ? "" : ",") + std::to_string(Param) + "+" +
             std::to_string(Base + Off) + ":" + std::to_string(V);
    } else if (const RecordDecl *Inner = FD->getType()->getAsRecordDecl()) {
      addRecordFields(Inner, Param, ArgValue, Base + Off, InValue + Off,
                      Given ? aggregateInit(Given) : nullptr, H, Versions, Named, Out, Depth + 1);
    }
  }
}

/// Whether \p S reads a parameter or local variable of helper H.
bool SequenceBuilder::readsHelper(const Stmt *S, const HelperCall &H) {
  if (const auto *DRE = dyn_cast<DeclRefExpr>(S))
    if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
        VD && VD->getDeclContext() == static_cast<const DeclContext *>(H.Helper))
      return true;
  for (const Stmt *Child : S->children())
    if (Child && readsHelper(Child, H))
      return true;
  return false;
}

/// Adds the structure of \p E to \p ID: literals, enumerators, template
/// arguments, the helper's parameters (as the call's value numbers), other
/// variables (as their value numbers in the caller), casts, arithmetic,
/// conditionals, and calls of trivial or constexpr constructors (dim3).
/// False for anything else.
bool SequenceBuilder::hashIn(const Expr *E, const HelperCall *H, const VersionMap &Versions,
                             llvm::FoldingSetNodeID &ID) {
  E = E->IgnoreParens();
  // A constant part is its value: `(n + bs - 1) / bs` with `const int bs =
  // 384` is `(n + 384 - 1) / 384`, a defaulted dim3 extent is a written 1.
  if (std::optional<llvm::APSInt> C = integerConstant(Ctx, E)) {
    addConstant(*C, ID);
    return true;
  }
  // `dim3(x, y)` (a temporary object) and `dim3 g(x, y)` are one construction.
  ID.AddInteger(isa<CXXConstructExpr>(E) ? Stmt::CXXConstructExprClass : E->getStmtClass());
  // Qualifiers do not change a value: a `const int &n` parameter reads as `int n`.
  ID.AddPointer(E->getType().getCanonicalType().getUnqualifiedType().getAsOpaquePtr());
  if (const auto *DA = dyn_cast<CXXDefaultArgExpr>(E))
    return hashIn(DA->getExpr(), H, Versions, ID);
  if (const auto *MT = dyn_cast<MaterializeTemporaryExpr>(E))
    return hashIn(MT->getSubExpr(), H, Versions, ID);
  if (const auto *ST = dyn_cast<SubstNonTypeTemplateParmExpr>(E))
    return hashIn(ST->getReplacement(), H, Versions, ID);
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    if (const auto *P = dyn_cast<ParmVarDecl>(DRE->getDecl());
        H && P && P->getDeclContext() == static_cast<const DeclContext *>(H->Helper)) {
      ID.AddInteger(callerArg(*H, P, Versions));
      return true;
    }
    if (const Expr *Init = H ? helperLocalInit(DRE, *H) : nullptr) {
      if (++LocalDepth > 16)
        return false;
      bool Ok = hashIn(spelledValue(Init), H, Versions, ID);
      --LocalDepth;
      return Ok;
    }
    if (const auto *EC = dyn_cast<EnumConstantDecl>(DRE->getDecl())) {
      ID.AddInteger(EC->getInitVal().getExtValue());
      return true;
    }
    // A variable of the caller's scope (`constexpr int BLOCK = 256;`): its
    // value there, version included.
    if (isa<VarDecl>(DRE->getDecl())) {
      ID.AddInteger(valueNumber(DRE, Versions));
      return true;
    }
    return false;
  }
  if (const auto *IL = dyn_cast<IntegerLiteral>(E)) {
    ID.AddInteger(IL->getValue().getLimitedValue());
    return true;
  }
  if (const auto *FL = dyn_cast<FloatingLiteral>(E)) {
    ID.AddInteger(FL->getValue().bitcastToAPInt().getLimitedValue());
    return true;
  }
  if (const auto *BL = dyn_cast<CXXBoolLiteralExpr>(E)) {
    ID.AddBoolean(BL->getValue());
    return true;
  }
  if (const auto *C = dyn_cast<CastExpr>(E)) {
    ID.AddInteger(C->getCastKind());
    return hashIn(C->getSubExpr(), H, Versions, ID);
  }
  if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
    ID.AddInteger(BO->getOpcode());
    return !BO->isAssignmentOp() && hashIn(BO->getLHS(), H, Versions, ID) &&
           hashIn(BO->getRHS(), H, Versions, ID);
  }
  if (const auto *UO = dyn_cast<UnaryOperator>(E)) {
    ID.AddInteger(UO->getOpcode());
    return !UO->isIncrementDecrementOp() && UO->getOpcode() != UO_AddrOf &&
           UO->getOpcode() != UO_Deref && hashIn(UO->getSubExpr(), H, Versions, ID);
  }
  if (const auto *CO = dyn_cast<ConditionalOperator>(E))
    return hashIn(CO->getCond(), H, Versions, ID) && hashIn(CO->getTrueExpr(), H, Versions, ID) &&
           hashIn(CO->getFalseExpr(), H, Versions, ID);
  // A field read by `.` (`f.n` of a helper's `const Fields &f`) is that
  // field of the struct's value.
  if (const auto *ME = dyn_cast<MemberExpr>(E)) {
    const auto *FD = dyn_cast<FieldDecl>(ME->getMemberDecl());
    if (ME->isArrow() || !FD)
      return false;
    ID.AddPointer(FD->getCanonicalDecl());
    return hashIn(ME->getBase(), H, Versions, ID);
  }
  // A call of a named function (`grid_for(n, block)`) is the function
  // applied to its arguments' values: equal calls are one value. The
  // runtime's guards check what fusion assumes of it (equal grids, equal
  // pointers), so a function that returns different values for the same
  // arguments makes a guard fail, not a wrong fusion.
  if (const auto *CE = dyn_cast<CallExpr>(E);
      CE && !isa<CXXMemberCallExpr>(CE) && !isa<CXXOperatorCallExpr>(CE) &&
      !isa<CUDAKernelCallExpr>(CE)) {
    const FunctionDecl *FD = CE->getDirectCallee();
    if (!FD || FD->isVariadic() || CE->getType()->isVoidType())
      return false;
    ID.AddPointer(FD->getCanonicalDecl());
    for (const Expr *A : CE->arguments())
      if (!hashIn(A, H, Versions, ID))
        return false;
    return true;
  }
  if (const auto *CC = dyn_cast<CXXConstructExpr>(E)) {
    const CXXConstructorDecl *CD = CC->getConstructor();
    if (!CD->isConstexpr() && !CD->isTrivial())
      return false;
    ID.AddPointer(CD->getCanonicalDecl());
    for (const Expr *A : CC->arguments())
      if (!hashIn(A, H, Versions, ID))
        return false;
    return true;
  }
  return false;
}

/// The variable an assignment to \p Target writes (through member accesses;
/// \p Arrow is set when one of them goes through a pointer), or null.
const VarDecl *assignedVariable(const Expr *Target, bool &ThroughMember, bool &Arrow) {
  ThroughMember = Arrow = false;
  Target = Target->IgnoreParenImpCasts();
  while (const auto *ME = dyn_cast<MemberExpr>(Target)) {
    ThroughMember = true;
    Arrow |= ME->isArrow();
    Target = ME->getBase()->IgnoreParenImpCasts();
  }
  const auto *DRE = dyn_cast<DeclRefExpr>(Target);
  return DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
}

/// Gives each variable that launch statement \p S assigns or increments in
/// its arguments (`k<<<g, b>>>(t, n++)`) a new version, so that later reads
/// of it are other values.
void bumpAssigned(const Stmt *S, VersionMap &Versions) {
  if (!S)
    return;
  const Expr *Target = nullptr;
  if (const auto *BO = dyn_cast<BinaryOperator>(S); BO && BO->isAssignmentOp())
    Target = BO->getLHS();
  else if (const auto *UO = dyn_cast<UnaryOperator>(S); UO && UO->isIncrementDecrementOp())
    Target = UO->getSubExpr();
  else if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(S); OC && OC->isAssignmentOp())
    Target = OC->getArg(0);
  bool ThroughMember, Arrow;
  if (const VarDecl *VD = Target ? assignedVariable(Target, ThroughMember, Arrow) : nullptr)
    ++Versions[VD->getCanonicalDecl()];
  for (const Stmt *Child : S->children())
    bumpAssigned(Child, Versions);
}

/// Decides whether a statement between two launches is a pure host
/// computation, and bumps the version of each variable it assigns. When it
/// is not, why() says what in it is not.
class PurityCheck {
public:
  PurityCheck(ASTContext &Ctx, VersionMap &Versions)
      : Ctx(Ctx), Versions(Versions) {}

  bool isPureStmt(const Stmt *S) {
    Why.clear();
    return pureStmt(S);
  }

  /// Whether \p S is (part of) an error check that may stand between two
  /// launches of a sequence (HostChecks.h has the host pass's exact rule):
  /// it asks for the last error, may end the program (an exit, an abort, an
  /// assert, or a function of this file that is handed the error or asks
  /// for it), and otherwise only tests, prints and assigns locals: `CHECK(
  /// cudaGetLastError());`, `gpuErrchk(cudaPeekAtLastError());`,
  /// `getLastCudaError("k");`. A return, a throw or a loop in it, or any
  /// other call, makes it an ordinary statement. why() is left as it was.
  enum class Check {
    None,
    /// Asks for the last error and may end the program.
    Whole,
    /// Only asks: `err = cudaGetLastError();`, whole with a Test after it.
    Query,
    /// Only may end the program: `if (err != cudaSuccess) { ...; exit(1); }`.
    Test,
  };
  Check errorCheck(const Stmt *S) {
    std::string Was = std::move(Why);
    Why.clear();
    InCheck = true;
    Asks = Ends = false;
    bool Ok = checkStmt(S);
    InCheck = false;
    Why = std::move(Was);
    if (!Ok || (!Asks && !Ends))
      return Check::None;
    return Asks && Ends ? Check::Whole : Asks ? Check::Query : Check::Test;
  }

private:
  bool pureStmt(const Stmt *S) {
    if (isa<NullStmt>(S))
      return true;
    if (const auto *DS = dyn_cast<DeclStmt>(S)) {
      for (const Decl *D : DS->decls()) {
        if (const auto *VD = dyn_cast<VarDecl>(D)) {
          if (const Expr *Init = VD->getInit())
            if (!isPureExpr(Init))
              return false;
          continue;
        }
        // A type (`struct { float *p; int n; } v{t, n};` declares one)
        // runs nothing.
        if (!isa<TypedefNameDecl>(D) && !isa<UsingDecl>(D) && !isa<TagDecl>(D) &&
            !isa<StaticAssertDecl>(D))
          return fail(std::string("a declaration of a ") + D->getDeclKindName());
      }
      return true;
    }
    if (const auto *E = dyn_cast<Expr>(S))
      return isPureExpr(E);
    return fail(describeStmt(S));
  }

  bool checkStmt(const Stmt *S) {
    if (!S || isa<NullStmt>(S))
      return true;
    if (const auto *CS = dyn_cast<CompoundStmt>(S))
      return llvm::all_of(CS->body(), [&](const Stmt *C) { return checkStmt(C); });
    if (const auto *DS = dyn_cast<DoStmt>(S)) {
      // `do { ... } while (0)`, a macro's statement.
      bool Again = true;
      if (!DS->getCond()->EvaluateAsBooleanCondition(Again, Ctx) || Again)
        return fail("a 'do' loop");
      return checkStmt(DS->getBody());
    }
    if (const auto *IS = dyn_cast<IfStmt>(S)) {
      if (IS->isConsteval())
        return fail("an 'if consteval'");
      return checkStmt(IS->getInit()) && checkStmt(IS->getConditionVariableDeclStmt()) &&
             isPureExpr(IS->getCond()) && checkStmt(IS->getThen()) &&
             checkStmt(IS->getElse());
    }
    if (isa<DeclStmt>(S) || isa<Expr>(S))
      return pureStmt(S);
    return fail(describeStmt(S));
  }

  /// `os << v` on a std::ostream (`std::cerr << cudaGetErrorString(e)`).
  static bool isStreamOutput(const CXXOperatorCallExpr *OC) {
    if (OC->getOperator() != OO_LessLess || OC->getNumArgs() != 2)
      return false;
    const CXXRecordDecl *RD = OC->getArg(0)->getType()->getAsCXXRecordDecl();
    return RD && RD->getIdentifier() && RD->getName() == "basic_ostream" &&
           RD->isInStdNamespace();
  }

  /// A call an error check may make; notes whether it asks for the error
  /// and whether it may end the program.
  bool isCheckCall(const CallExpr *CE) {
    const FunctionDecl *FD = CE->getDirectCallee();
    if (!FD || !FD->getIdentifier())
      return false;
    StringRef Name = FD->getName();
    if (Name == "cudaGetLastError" || Name == "cudaPeekAtLastError") {
      Asks = true;
      return true;
    }
    if (Name == "cudaGetErrorString" || Name == "cudaGetErrorName" ||
        Name == "cudaDeviceReset" || llvm::is_contained(CheckOutputFunctions, Name))
      return true;
    if (llvm::is_contained(CheckEndFunctions, Name) || Name == "__builtin_trap" ||
        Name == "__builtin_abort") {
      Ends = true;
      return true;
    }
    // A check of this file's own (`gpuAssert(code, __FILE__, __LINE__)`):
    // values and strings in, handed the error or asking for it.
    const FunctionDecl *Def = nullptr;
    if (!FD->hasBody(Def) || FD->isVariadic() || isa<CXXMethodDecl>(FD))
      return false;
    for (const ParmVarDecl *P : FD->parameters()) {
      QualType T = P->getType();
      bool String = T->isPointerType() && T->getPointeeType().isConstQualified() &&
                    T->getPointeeType()->isCharType();
      if (!String && (T->isPointerType() || T->isReferenceType() || T->isMemberPointerType() ||
                      (T->isRecordType() && !T.isTriviallyCopyableType(Ctx))))
        return false;
    }
    bool Handed = llvm::any_of(CE->arguments(), [](const Expr *A) { return queriesLastError(A); });
    if (!Handed && !queriesLastError(Def->getBody()))
      return false;
    Asks = Ends = true;
    return true;
  }

public:
  /// What made the last statement impure: "a call to 'opaque'".
  const std::string &why() const { return Why; }

private:
  bool fail(std::string Reason) {
    if (Why.empty())
      Why = std::move(Reason);
    return false;
  }

  bool isAllowedCallee(const FunctionDecl *FD) {
    if (!FD)
      return false;
    if (unsigned ID = FD->getBuiltinID())
      return Ctx.BuiltinInfo.isConst(ID) || Ctx.BuiltinInfo.isPure(ID);
    if (FD->isConstexpr())
      return true;
    if (const auto *MD = dyn_cast<CXXMethodDecl>(FD))
      return MD->isTrivial();
    return false;
  }

  /// A call of a function defined in this file that takes every argument
  /// by value (`__float2half(a)`, `alpha(step)`): it cannot write the
  /// caller's variables. What it does to other memory the host pass judges
  /// from its body (HostMemory::hazard), and keeps the launches apart where
  /// that could reach a kernel.
  bool isValueCall(const CallExpr *CE) {
    const FunctionDecl *FD = CE->getDirectCallee();
    if (!FD || !FD->isDefined() || FD->isVariadic() || isa<CXXMethodDecl>(FD))
      return false;
    for (const ParmVarDecl *P : FD->parameters()) {
      QualType T = P->getType();
      if (T->isPointerType() || T->isReferenceType() || T->isMemberPointerType() ||
          T->isBlockPointerType() || (T->isRecordType() && !T.isTriviallyCopyableType(Ctx)))
        return false;
    }
    return true;
  }

  /// Records an assignment to Target; false if the target is not a scalar
  /// local (or a member of a local struct) reached directly.
  bool assign(const Expr *Target) {
    bool ThroughMember, Arrow;
    const VarDecl *VD = assignedVariable(Target, ThroughMember, Arrow);
    std::string Name = VD ? " '" + VD->getNameAsString() + "'" : "";
    if (Target->IgnoreParens()->getType()->isPointerType())
      return fail("an assignment to the pointer" + Name);
    if (!VD || Arrow)
      return fail("a store through a pointer or subscript");
    if (VD->getType()->isReferenceType())
      return fail("a store through the reference" + Name);
    if (ThroughMember && !VD->hasLocalStorage())
      return fail("a store to a member of the non-local" + Name);
    // Host code can write __managed__ variables, which kernels read.
    if (VD->hasAttr<HIPManagedAttr>() || VD->hasAttr<CUDADeviceAttr>() ||
        VD->hasAttr<CUDAConstantAttr>())
      return fail("an assignment to the device variable" + Name);
    ++Versions[VD->getCanonicalDecl()];
    return true;
  }

  bool isPureExpr(const Stmt *S) {
    if (!S)
      return true;
    if (isa<StmtExpr>(S))
      return fail("a statement expression");
    if (isa<CXXThrowExpr>(S))
      return fail("a 'throw'");
    if (isa<CXXNewExpr>(S) || isa<CXXDeleteExpr>(S))
      return fail(isa<CXXNewExpr>(S) ? "a 'new'" : "a 'delete'");
    // A lambda that copies what it captures only makes an object (`auto f
    // = [=] __device__ (int i) { ... };`, to launch later): its body runs
    // where it is called.
    if (const auto *L = dyn_cast<LambdaExpr>(S)) {
      for (const LambdaCapture &C : L->captures())
        if (C.getCaptureKind() == LCK_ByRef || C.getCaptureKind() == LCK_VLAType)
          return fail("a lambda that captures by reference");
      for (const Expr *Init : L->capture_inits())
        if (!isPureExpr(Init))
          return false;
      return true;
    }
    if (isa<BlockExpr>(S))
      return fail("a lambda");
    if (isa<CXXBindTemporaryExpr>(S))
      return fail("a temporary with a destructor");
    if (const auto *BO = dyn_cast<BinaryOperator>(S)) {
      if (BO->isAssignmentOp())
        return isPureExpr(BO->getRHS()) && isPureExpr(BO->getLHS()) &&
               assign(BO->getLHS());
    } else if (const auto *UO = dyn_cast<UnaryOperator>(S)) {
      if (UO->isIncrementDecrementOp())
        return isPureExpr(UO->getSubExpr()) && assign(UO->getSubExpr());
    } else if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(S)) {
      // A trivial copy or move assignment of a struct is an assignment.
      const auto *MD = dyn_cast_or_null<CXXMethodDecl>(OC->getDirectCallee());
      if (OC->isAssignmentOp() && MD && MD->isTrivial() &&
          OC->getNumArgs() == 2)
        return isPureExpr(OC->getArg(1)) && isPureExpr(OC->getArg(0)) &&
               assign(OC->getArg(0));
      if (!isAllowedCallee(OC->getDirectCallee()) && !(InCheck && isStreamOutput(OC)))
        return fail(describeCall(OC));
    } else if (const auto *CE = dyn_cast<CallExpr>(S)) {
      if (!isAllowedCallee(CE->getDirectCallee()) && !isValueCall(CE) &&
          !(InCheck && isCheckCall(CE)))
        return fail(describeCall(CE));
    } else if (const auto *CCE = dyn_cast<CXXConstructExpr>(S)) {
      const CXXConstructorDecl *CD = CCE->getConstructor();
      if (!CD->isConstexpr() && !CD->isTrivial())
        return fail("a call of the constructor of '" +
                    CD->getParent()->getQualifiedNameAsString() + "'");
    }
    for (const Stmt *Child : S->children())
      if (!isPureExpr(Child))
        return false;
    return true;
  }

  ASTContext &Ctx;
  VersionMap &Versions;
  std::string Why;
  /// While isErrorCheck() reads a statement: whether it asks for the last
  /// error, and whether it may end the program.
  bool InCheck = false, Asks = false, Ends = false;
};

/// One step of a block: a statement, an operand of a comma expression
/// statement, or a label or return (Edge) around them.
struct BlockStep {
  const Stmt *S;
  enum Kind { Plain, Edge } K;
};

/// Appends the operands \p E evaluates in turn: those of a comma, the
/// operand of a cast to void, else \p E itself.
void expressionSteps(const Expr *E, SmallVectorImpl<BlockStep> &Out) {
  E = E->IgnoreParens();
  if (const auto *EWC = dyn_cast<ExprWithCleanups>(E); EWC && !EWC->cleanupsHaveSideEffects())
    return expressionSteps(EWC->getSubExpr(), Out);
  if (const auto *C = dyn_cast<CastExpr>(E); C && C->getCastKind() == CK_ToVoid)
    return expressionSteps(C->getSubExpr(), Out);
  if (const auto *BO = dyn_cast<BinaryOperator>(E); BO && BO->getOpcode() == BO_Comma) {
    expressionSteps(BO->getLHS(), Out);
    return expressionSteps(BO->getRHS(), Out);
  }
  Out.push_back({E, BlockStep::Plain});
}

/// Appends the steps of statement \p S of a block: `case 0: k<<<...>>>(...);`
/// is the label, then the launch; `return (void)k<<<...>>>(...);` the
/// launch, then the return; `k1<<<...>>>(...), k2<<<...>>>(...);` two launches.
void blockSteps(const Stmt *S, SmallVectorImpl<BlockStep> &Out) {
  if (const auto *SC = dyn_cast<SwitchCase>(S)) {
    Out.push_back({S, BlockStep::Edge});
    return blockSteps(SC->getSubStmt(), Out);
  }
  if (const auto *LS = dyn_cast<LabelStmt>(S)) {
    Out.push_back({S, BlockStep::Edge});
    return blockSteps(LS->getSubStmt(), Out);
  }
  if (const auto *RS = dyn_cast<ReturnStmt>(S)) {
    if (const Expr *V = RS->getRetValue())
      expressionSteps(V, Out);
    Out.push_back({S, BlockStep::Edge});
    return;
  }
  if (const auto *E = dyn_cast<Expr>(S))
    return expressionSteps(E, Out);
  Out.push_back({S, BlockStep::Plain});
}

bool pureHelperLocal(const VarDecl *VD) {
  if (VD->isStaticLocal() || VD->getType()->isReferenceType())
    return false;
  const Expr *Init = VD->getInit();
  if (!Init)
    return false;
  VersionMap Versions;
  PurityCheck Purity(const_cast<ASTContext &>(VD->getASTContext()), Versions);
  return Purity.isPureStmt(Init);
}

/// Visits every host function with a body, including template
/// instantiations, and scans each of its compound statements.
class SequenceFinder : public RecursiveASTVisitor<SequenceFinder> {
public:
  explicit SequenceFinder(ASTContext &Ctx)
      : Ctx(Ctx), Names(Ctx),
        Zero(IntegerLiteral::Create(
            Ctx, llvm::APInt(Ctx.getIntWidth(Ctx.IntTy), 0), Ctx.IntTy,
            SourceLocation())) {}

  bool shouldVisitTemplateInstantiations() const { return true; }

  bool TraverseDecl(Decl *D) {
    return kfuse::inSystemHeader(D) || RecursiveASTVisitor::TraverseDecl(D);
  }

  bool VisitFunctionDecl(FunctionDecl *FD) {
    if (!FD->doesThisDeclarationHaveABody() || FD->isDependentContext() ||
        FD->hasAttr<CUDAGlobalAttr>() ||
        (FD->hasAttr<CUDADeviceAttr>() && !FD->hasAttr<CUDAHostAttr>()))
      return true;
    scanStmt(FD->getBody(), FD);
    return true;
  }

  HostLaunches take() { return std::move(Found); }

private:
  void scanStmt(const Stmt *S, const FunctionDecl *Host) {
    if (!S)
      return;
    // A lambda's body is scanned as the body of its own call operator, which
    // names the sequences found there.
    if (const auto *L = dyn_cast<LambdaExpr>(S)) {
      const CXXMethodDecl *Call = L->getCallOperator();
      if (!Call->isDependentContext())
        scanStmt(L->getBody(), Call);
      return;
    }
    if (const auto *CS = dyn_cast<CompoundStmt>(S))
      scanCompound(CS, Host);
    // A launch through a function pointer, in place or by a launch helper
    // given the pointer.
    const auto *CE = dyn_cast<CallExpr>(S);
    const auto *K = dyn_cast_or_null<CUDAKernelCallExpr>(CE);
    if (const Expr *Through = K && !K->getDirectCallee() ? K->getCallee()
                              : CE                       ? kernelArgument(CE)
                                                         : nullptr)
      if (auto [Kernel, Ptr] = pointerToMapKernel(Through); Kernel)
        miss(CE->getBeginLoc(), "launch of '" + Kernel->getQualifiedNameAsString() +
                                    "' through function pointer '" + Ptr->getNameAsString() +
                                    "' is not fused: kfuse fuses launches that name their "
                                    "kernel, in place or as the argument of a launch helper");
    if (CE) {
      std::string API;
      if (const FunctionDecl *Launched = runtimeApiLaunch(CE, API))
        miss(CE->getBeginLoc(), "launch of '" + Launched->getQualifiedNameAsString() + "' through " +
                                    API + " is not fused: kfuse fuses only <<<...>>> launches "
                                    "of kfuse_map kernels");
    }
    for (const Stmt *Child : S->children())
      scanStmt(Child, Host);
  }

  /// A map launch that statement S holds deeper than a statement of its
  /// own block: in a nested statement, or in the body of a function it calls
  /// that is no launch helper. First and Last are the first and last such
  /// kernels; each Where says why its launch is apart from S's block.
  struct NestedLaunch {
    const FunctionDecl *First = nullptr, *Last = nullptr;
    std::string FirstWhere, LastWhere;
  };

  /// Fills \p N with the map launches under \p S; \p Outer is the
  /// statement of the block being scanned.
  void findNested(const Stmt *S, const Stmt *Outer, bool ThroughCalls, NestedLaunch &N) {
    if (!S || isa<LambdaExpr>(S))
      return;
    auto Found = [&](const FunctionDecl *K, std::string Where) {
      if (!N.First) {
        N.First = K;
        N.FirstWhere = Where;
      }
      N.Last = K;
      N.LastWhere = std::move(Where);
    };
    if (const auto *K = dyn_cast<CUDAKernelCallExpr>(S); K && isMapKernel(K->getDirectCallee())) {
      std::string Name = K->getDirectCallee()->getQualifiedNameAsString();
      if (ThroughCalls)
        Found(K->getDirectCallee(), "the launch of '" + Name + "' is inside " +
                                        describeStmt(Outer) + fromMacro(Outer->getBeginLoc(), Ctx));
      else
        Found(K->getDirectCallee(), "");
    } else if (const auto *CE = dyn_cast<CallExpr>(S); CE && ThroughCalls) {
      const FunctionDecl *Def = nullptr;
      std::string WhyNot;
      if (CE->getDirectCallee() && CE->getDirectCallee()->hasBody(Def) &&
          !asHelperCall(CE, &WhyNot)) {
        NestedLaunch InCallee;
        findNested(Def->getBody(), Outer, false, InCallee);
        if (InCallee.First) {
          std::string Where = "is launched in '" + Def->getQualifiedNameAsString() +
                              "', which is not a launch helper (" + WhyNot + ")";
          Found(InCallee.First, "'" + InCallee.First->getQualifiedNameAsString() + "' " + Where);
          Found(InCallee.Last, "'" + InCallee.Last->getQualifiedNameAsString() + "' " + Where);
        }
      }
    }
    for (const Stmt *Child : S->children())
      findNested(Child, Outer, ThroughCalls, N);
  }

  void scanCompound(const CompoundStmt *CS, const FunctionDecl *Host) {
    auto &Copies = CopiesOf[Host];
    if (!Copies)
      Copies = std::make_unique<LocalCopies>(Ctx, Host);
    // A statement of the block is read as the steps it is made of: a
    // label, then the statement it labels; a comma expression's operands
    // in turn, and a cast to void's operand; a return's value, then the
    // return.
    SmallVector<BlockStep, 16> Steps;
    for (const Stmt *S : CS->body())
      blockSteps(S, Steps);
    // An error check between launches stands only where one follows the
    // sequence's last launch (the host pass's rule, HostChecks.h); where
    // none does, the last check crossed ends the sequence instead, and the
    // block is read again.
    std::set<size_t> Ending;
    const size_t Sequences = Found.Sequences.size(), Missed = Found.Missed.size();
    std::vector<std::pair<unsigned, std::string>> Journal;
    Reporting = &Journal;
    while (!scanSteps(Steps, Host, *Copies, Ending)) {
      Found.Sequences.erase(Found.Sequences.begin() + Sequences, Found.Sequences.end());
      Found.Missed.erase(Found.Missed.begin() + Missed, Found.Missed.end());
      for (const auto &Key : Journal)
        Reported.erase(Key);
      Journal.clear();
    }
    Reporting = nullptr;
  }

  /// Reads one block's steps into sequences; false when an error check was
  /// crossed that must end its sequence, now in \p Ending.
  bool scanSteps(ArrayRef<BlockStep> Steps, const FunctionDecl *Host, const LocalCopies &Copies,
                 std::set<size_t> &Ending) {
    SequenceBuilder Seq(Ctx, Names, Zero, Copies);
    VersionMap Versions;
    PurityCheck Purity(Ctx, Versions);
    // The last map launch of this block so far, and where and why the
    // launches after it cannot join its sequence: reported when a next map
    // launch comes.
    const FunctionDecl *Prev = nullptr;
    std::optional<std::pair<SourceLocation, std::string>> Broken;
    auto Arrive = [&](const FunctionDecl *Next) {
      if (Prev && Broken)
        miss(Broken->first, "launch of '" + Next->getQualifiedNameAsString() +
                                "' is not fused with the launch of '" +
                                Prev->getQualifiedNameAsString() + "' before it: " +
                                Broken->second);
      Broken.reset();
      Prev = Next;
    };
    // The error checks of the sequence: the first since its last launch,
    // and the last crossed between two of its launches.
    std::optional<size_t> CheckSinceLaunch, LastCrossed;
    auto AddLaunch = [&]() {
      if (CheckSinceLaunch)
        LastCrossed = CheckSinceLaunch;
      CheckSinceLaunch.reset();
    };
    // Ends the sequence; false where a check crossed in it is not backed by
    // one after its last launch.
    auto End = [&]() {
      if (LastCrossed && !CheckSinceLaunch) {
        Ending.insert(*LastCrossed);
        return false;
      }
      flush(Seq, Host);
      LastCrossed.reset();
      CheckSinceLaunch.reset();
      return true;
    };
    for (size_t Index = 0; Index < Steps.size(); ++Index) {
      const BlockStep &Step = Steps[Index];
      const Stmt *S = Step.S;
      if (Step.K != BlockStep::Plain) {
        // A label is a way in from elsewhere, a return a way out: the
        // launches before it and those after it are two sequences.
        if (!End())
          return false;
        Versions.clear();
        if (!Broken)
          Broken.emplace(S->getBeginLoc(), describeStmt(S) + fromMacro(S->getBeginLoc(), Ctx) +
                                               " ends the launch sequence");
        continue;
      }
      if (const CUDAKernelCallExpr *K = asMapLaunch(S)) {
        Arrive(K->getDirectCallee());
        AddLaunch();
        Seq.addLaunch(K, Versions);
        bumpAssigned(S, Versions);
        continue;
      }
      if (std::optional<HelperCall> H = asHelperCall(S)) {
        Arrive(H->Kernel);
        AddLaunch();
        Seq.addLaunch(H->Launch, Versions, &*H);
        bumpAssigned(S, Versions);
        continue;
      }
      NestedLaunch N;
      findNested(S, S, true, N);
      if (N.First) {
        if (!Broken)
          Broken.emplace(S->getBeginLoc(), N.FirstWhere);
        Arrive(N.First);
        Prev = N.Last;
        Broken.emplace(S->getBeginLoc(), N.LastWhere);
        if (!End())
          return false;
        Versions.clear();
        continue;
      }
      if (Seq.empty() || Purity.isPureStmt(S))
        continue;
      // An error check, or a query followed by its test.
      PurityCheck::Check Kind = Purity.errorCheck(S);
      bool Check = Kind == PurityCheck::Check::Whole;
      if (Kind == PurityCheck::Check::Query && Index + 1 < Steps.size() &&
          Steps[Index + 1].K == BlockStep::Plain &&
          Purity.errorCheck(Steps[Index + 1].S) == PurityCheck::Check::Test) {
        Check = true;
        ++Index;
      }
      if (Check && !Ending.count(Index)) {
        if (!CheckSinceLaunch)
          CheckSinceLaunch = Index;
        continue;
      }
      // A check that ends the sequence is still one after its last launch.
      if (Check && !CheckSinceLaunch)
        CheckSinceLaunch = Index;
      if (!End())
        return false;
      Versions.clear();
      if (!Broken)
        Broken.emplace(S->getBeginLoc(),
                       Check ? "an error check" + fromMacro(S->getBeginLoc(), Ctx) +
                                   " ends the launch sequence, since no error check follows "
                                   "the last launch after it; check errors after that launch "
                                   "too"
                             : Purity.why() + fromMacro(S->getBeginLoc(), Ctx) +
                                   " ends the launch sequence" + endAdvice(S));
    }
    return End();
  }

  void flush(SequenceBuilder &Seq, const FunctionDecl *Host) {
    if (std::optional<SequenceRecord> R = Seq.finish(Host))
      Found.Sequences.push_back(std::move(*R));
  }

  /// Adds a remark, once: a template instantiated twice is scanned twice.
  void miss(SourceLocation Loc, std::string Message) {
    if (Reported.insert({Loc.getRawEncoding(), Message}).second) {
      if (Reporting)
        Reporting->push_back({Loc.getRawEncoding(), Message});
      Found.Missed.push_back({Loc, std::move(Message)});
    }
  }

  ASTContext &Ctx;
  ASTNameGenerator Names;
  const Expr *Zero;
  HostLaunches Found;
  std::set<std::pair<unsigned, std::string>> Reported;
  /// Where miss() notes what it reports while a block may be read again.
  std::vector<std::pair<unsigned, std::string>> *Reporting = nullptr;
  llvm::DenseMap<const FunctionDecl *, std::unique_ptr<LocalCopies>> CopiesOf;
};

} // namespace

HostLaunches findLaunchSequences(ASTContext &Ctx) {
  SequenceFinder Finder(Ctx);
  Finder.TraverseDecl(Ctx.getTranslationUnitDecl());
  return Finder.take();
}

} // namespace kfuse
