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
// allowed assignment to a scalar gives the variable a new version.
//
//===----------------------------------------------------------------------===//
#include "LaunchSequence.h"
#include "Kfuse.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Mangle.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/FoldingSet.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <optional>

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
  /// conversions that keep the value: reads, qualification, pointer casts).
  /// E itself when it is no such copy. A conversion that changes the value
  /// (`int narrow = wide;`) stays in the result.
  const Expr *resolve(const Expr *E) const {
    for (unsigned Depth = 0; Depth < 16; ++Depth) {
      const auto *DRE = dyn_cast<DeclRefExpr>(keepValue(E));
      const auto *VD = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
      if (!VD || isa<ParmVarDecl>(VD) || !unchanged(VD) || !VD->getInit())
        return E;
      const Expr *Init = keepValue(VD->getInit());
      QualType T = VD->getType().getCanonicalType().getUnqualifiedType();
      QualType IT = Init->getType().getCanonicalType().getUnqualifiedType();
      if (!(T == IT || (T->isPointerType() && IT->isPointerType())) ||
          Init->HasSideEffects(Ctx) || !readsOnlyUnchanged(Init))
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
      if (C->getCastKind() == CK_LValueToRValue || C->getCastKind() == CK_ArrayToPointerDecay)
        if (const auto *D = dyn_cast<DeclRefExpr>(C->getSubExpr()->IgnoreParens()))
          Reads.insert(D);
      return true;
    }
    bool VisitDeclRefExpr(DeclRefExpr *D) {
      Refs.push_back(D);
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
  /// address stays, whatever the pointee.
  static const Expr *spelledValue(const Expr *E) {
    E = E->IgnoreUnlessSpelledInSource();
    while (const auto *C = dyn_cast<ExplicitCastExpr>(E)) {
      const Expr *Sub = C->getSubExpr()->IgnoreUnlessSpelledInSource();
      if (!(C->getCastKind() == CK_BitCast || C->getCastKind() == CK_NoOp) ||
          !C->getType()->isPointerType() || !Sub->getType()->isPointerType())
        break;
      E = Sub;
    }
    return E;
  }

  unsigned number(const llvm::FoldingSetNodeID &ID, const Expr *E, const Expr *Spelled) {
    for (unsigned V = 0; V < Values.size(); ++V)
      if (Values[V].ID == ID)
        return V;
    Values.push_back({ID, valueKind(E->getType()), sourceText(Spelled)});
    return Values.size() - 1;
  }

  unsigned valueNumber(const Expr *E, const VersionMap &Versions) {
    E = spelledValue(E);
    // A local copy that never changes names what it copies.
    const Expr *Spelled = E;
    E = Copies.resolve(E);
    llvm::FoldingSetNodeID ID;
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

/// A statement that calls a launch helper: a host function whose body is a
/// single map-kernel launch, with parameters taken by value
/// (`void axpy(...) { k<<<g, b>>>(...); }`). The launch's configuration and
/// arguments are read in the caller, the helper's parameters standing for
/// the call's arguments.
struct HelperCall {
  const CallExpr *Call = nullptr;
  const FunctionDecl *Helper = nullptr;
  const CUDAKernelCallExpr *Launch = nullptr;
};

std::optional<HelperCall> asHelperCall(const Stmt *S) {
  const auto *Call = dyn_cast_or_null<CallExpr>(statementExpr(S));
  if (!Call || isa<CUDAKernelCallExpr>(Call) || isa<CXXMemberCallExpr>(Call) ||
      isa<CXXOperatorCallExpr>(Call) || !Call->getDirectCallee())
    return std::nullopt;
  const FunctionDecl *Def = nullptr;
  if (!Call->getDirectCallee()->hasBody(Def) || !Def->getReturnType()->isVoidType() ||
      Def->isVariadic() || Def->hasAttr<CUDAGlobalAttr>() ||
      (Def->hasAttr<CUDADeviceAttr>() && !Def->hasAttr<CUDAHostAttr>()) ||
      Call->getNumArgs() != Def->getNumParams())
    return std::nullopt;
  for (const ParmVarDecl *P : Def->parameters())
    if (P->getType()->isReferenceType() || P->getType().isVolatileQualified())
      return std::nullopt;
  const auto *Body = dyn_cast_or_null<CompoundStmt>(Def->getBody());
  if (!Body || Body->size() != 1)
    return std::nullopt;
  const CUDAKernelCallExpr *K = asMapLaunch(Body->body_front());
  if (!K)
    return std::nullopt;
  return HelperCall{Call, Def, K};
}

void SequenceBuilder::addLaunch(const CUDAKernelCallExpr *K, const VersionMap &Versions,
                                const HelperCall *H) {
  if (Launches.empty())
    Site = H ? H->Call->getBeginLoc() : K->getConfig()->getBeginLoc();
  auto Number = [&](const Expr *E) {
    return H ? valueIn(E, *H, Versions) : valueNumber(E, Versions);
  };
    const CallExpr *Config = K->getConfig();
    std::string Line;
    llvm::raw_string_ostream OS(Line);
    OS << "launch " << Launches.size() << ' '
       << Names.getName(K->getDirectCallee());
    static const char *const ConfigNames[] = {"grid", "block", "shmem",
                                              "stream"};
    for (unsigned I = 0; I < 4; ++I) {
      // A configuration argument left out in the source is the literal 0.
      const Expr *E = I < Config->getNumArgs() ? Config->getArg(I) : nullptr;
      if (!E || isa<CXXDefaultArgExpr>(E))
        E = Zero;
      OS << ' ' << ConfigNames[I] << '=' << Number(E);
    }
    OS << " args=";
    for (unsigned I = 0, N = K->getNumArgs(); I < N; ++I) {
      const Expr *E = K->getArg(I);
      if (const auto *DA = dyn_cast<CXXDefaultArgExpr>(E))
        E = DA->getExpr();
      OS << (I ? "," : "") << Number(E);
    }
    Launches.push_back(std::move(Line));
  }

/// The value of the argument a helper call passes for parameter \p P.
unsigned SequenceBuilder::callerArg(const HelperCall &H, const ParmVarDecl *P,
                                    const VersionMap &Versions) {
  const Expr *A = H.Call->getArg(P->getFunctionScopeIndex());
  if (const auto *DA = dyn_cast<CXXDefaultArgExpr>(A))
    A = DA->getExpr();
  return valueNumber(A, Versions);
}

/// The value number of \p E, an expression of helper H's launch. A
/// parameter is the call's argument; anything else is compared by its
/// structure with each parameter read as the argument's value number, and
/// what hashIn cannot read equals no other value.
unsigned SequenceBuilder::valueIn(const Expr *E, const HelperCall &H,
                                  const VersionMap &Versions) {
  const Expr *S = spelledValue(E);
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
  ID.AddInteger(E->getStmtClass());
  ID.AddPointer(E->getType().getCanonicalType().getAsOpaquePtr());
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
/// computation, and bumps the version of each variable it assigns.
class PurityCheck {
public:
  PurityCheck(ASTContext &Ctx, VersionMap &Versions)
      : Ctx(Ctx), Versions(Versions) {}

  bool isPureStmt(const Stmt *S) {
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
        if (!isa<TypedefNameDecl>(D) && !isa<UsingDecl>(D) &&
            !isa<StaticAssertDecl>(D))
          return false;
      }
      return true;
    }
    if (const auto *E = dyn_cast<Expr>(S))
      return isPureExpr(E);
    return false;
  }

private:
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

  /// Records an assignment to Target; false if the target is not a scalar
  /// local (or a member of a local struct) reached directly.
  bool assign(const Expr *Target) {
    if (Target->IgnoreParens()->getType()->isPointerType())
      return false;
    bool ThroughMember, Arrow;
    const VarDecl *VD = assignedVariable(Target, ThroughMember, Arrow);
    if (!VD || Arrow || VD->getType()->isReferenceType())
      return false;
    if (ThroughMember && !VD->hasLocalStorage())
      return false;
    // Host code can write __managed__ variables, which kernels read.
    if (VD->hasAttr<HIPManagedAttr>() || VD->hasAttr<CUDADeviceAttr>() ||
        VD->hasAttr<CUDAConstantAttr>())
      return false;
    ++Versions[VD->getCanonicalDecl()];
    return true;
  }

  bool isPureExpr(const Stmt *S) {
    if (!S)
      return true;
    if (isa<StmtExpr>(S) || isa<CXXThrowExpr>(S) || isa<CXXNewExpr>(S) ||
        isa<CXXDeleteExpr>(S) || isa<LambdaExpr>(S) ||
        isa<CXXBindTemporaryExpr>(S) || isa<BlockExpr>(S))
      return false;
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
      if (!isAllowedCallee(OC->getDirectCallee()))
        return false;
    } else if (const auto *CE = dyn_cast<CallExpr>(S)) {
      if (!isAllowedCallee(CE->getDirectCallee()))
        return false;
    } else if (const auto *CCE = dyn_cast<CXXConstructExpr>(S)) {
      const CXXConstructorDecl *CD = CCE->getConstructor();
      if (!CD->isConstexpr() && !CD->isTrivial())
        return false;
    }
    for (const Stmt *Child : S->children())
      if (!isPureExpr(Child))
        return false;
    return true;
  }

  ASTContext &Ctx;
  VersionMap &Versions;
};

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

  bool VisitFunctionDecl(FunctionDecl *FD) {
    if (!FD->doesThisDeclarationHaveABody() || FD->isDependentContext() ||
        FD->hasAttr<CUDAGlobalAttr>() ||
        (FD->hasAttr<CUDADeviceAttr>() && !FD->hasAttr<CUDAHostAttr>()))
      return true;
    scanStmt(FD->getBody(), FD);
    return true;
  }

  std::vector<SequenceRecord> takeRecords() { return std::move(Records); }

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
    for (const Stmt *Child : S->children())
      scanStmt(Child, Host);
  }

  void scanCompound(const CompoundStmt *CS, const FunctionDecl *Host) {
    auto &Copies = CopiesOf[Host];
    if (!Copies)
      Copies = std::make_unique<LocalCopies>(Ctx, Host);
    SequenceBuilder Seq(Ctx, Names, Zero, *Copies);
    VersionMap Versions;
    PurityCheck Purity(Ctx, Versions);
    for (const Stmt *S : CS->body()) {
      if (const CUDAKernelCallExpr *K = asMapLaunch(S)) {
        Seq.addLaunch(K, Versions);
        bumpAssigned(S, Versions);
        continue;
      }
      if (std::optional<HelperCall> H = asHelperCall(S)) {
        Seq.addLaunch(H->Launch, Versions, &*H);
        bumpAssigned(S, Versions);
        continue;
      }
      if (Seq.empty() || Purity.isPureStmt(S))
        continue;
      flush(Seq, Host);
      Versions.clear();
    }
    flush(Seq, Host);
  }

  void flush(SequenceBuilder &Seq, const FunctionDecl *Host) {
    if (std::optional<SequenceRecord> R = Seq.finish(Host))
      Records.push_back(std::move(*R));
  }

  ASTContext &Ctx;
  ASTNameGenerator Names;
  const Expr *Zero;
  std::vector<SequenceRecord> Records;
  llvm::DenseMap<const FunctionDecl *, std::unique_ptr<LocalCopies>> CopiesOf;
};

} // namespace

std::vector<SequenceRecord> findLaunchSequences(ASTContext &Ctx) {
  SequenceFinder Finder(Ctx);
  Finder.TraverseDecl(Ctx.getTranslationUnitDecl());
  return Finder.takeRecords();
}

} // namespace kfuse
