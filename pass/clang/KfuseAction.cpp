//===- KfuseAction.cpp - the kfuse Clang plugin action ----------------------===//
//
// Runs before the main action, so its HandleTranslationUnit precedes
// codegen's. There it checks that every kfuse_map function is __global__ and,
// in the device compilation, writes each launch sequence found in host code
// as an internal __device__ variable __kfuse_seq_<N> annotated with the
// record. Kernels are emitted as soon as they are parsed, so the records
// cannot ride on the kernels; a new used variable handed to codegen at the end
// of the translation unit still reaches llvm.global.annotations, which keeps
// the record in the IR (visible to opt and kept by -save-temps). Map launches
// that cannot join a sequence get -Rpass-missed=kfuse remarks.
//
// In both compilations it also writes the translation unit's key (`kfuse.tu`
// on a variable __kfuse_tu): a hash of what the file declares, which the
// device and the host compilation of one .cu compute alike. The device pass
// names its symbols after it and the host pass tells the runtime which
// manifest is this file's (docs/manifest.md, "Translation-unit keys").
//
// The host pass binds launches to sequences by their lines and columns. In a
// host compilation without debug locations (no -g, no remark flag) it
// lists where each host function launches (`kfuse.launch-sites` on
// __kfuse_tu, LaunchSites.h), also in a file with no kfuse_map function;
// the host pass places those locations on the launches, binds them and
// strips them again. Location tracking, which would give them too, costs
// the host compilation up to a tenth of its time.
//
//===----------------------------------------------------------------------===//
#include "Kfuse.h"
#include "LaunchSequence.h"
#include "LaunchSites.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/CodeGenOptions.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendPluginRegistry.h"
#include "clang/Lex/PreprocessorOptions.h"
#include "clang/Sema/Sema.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>

using namespace clang;

namespace {

/// Reports each kfuse_map function that is not __global__. Run at the end of
/// the translation unit, once every attribute of every redeclaration is known.
class PlacementCheck : public RecursiveASTVisitor<PlacementCheck> {
public:
  bool TraverseDecl(Decl *D) {
    return kfuse::inSystemHeader(D) || RecursiveASTVisitor::TraverseDecl(D);
  }

  explicit PlacementCheck(DiagnosticsEngine &Diags) : Diags(Diags) {
    DiagID = Diags.getCustomDiagID(
        DiagnosticsEngine::Error,
        "'%2' attribute only applies to __global__ functions; %0 is "
        "%select{a host|a __device__|a __host__ __device__}1 function");
  }

  bool VisitVarDecl(VarDecl *VD) {
    if (VD->hasGlobalStorage() && !VD->isStaticLocal() &&
        VD->isThisDeclarationADefinition() != VarDecl::DeclarationOnly)
      noteDefinition(VD, VD->getASTContext().GetGVALinkageForVariable(VD));
    return true;
  }

  bool VisitFunctionDecl(FunctionDecl *FD) {
    // Two declarations of one kernel that name different implementations.
    const AnnotateAttr *Impl = nullptr;
    for (const auto *A : FD->specific_attrs<AnnotateAttr>())
      if (A->getAnnotation().starts_with(kfuse::ImplMark)) {
        if (Impl && Impl->getAnnotation() != A->getAnnotation() && !A->isInherited())
          Diags.Report(A->getLocation(), ImplDiffersID);
        Impl = A;
      }
    const AnnotateAttr *Mark = kfuse::getMapMark(FD);
    AnyMark |= Mark != nullptr;
    if (Mark)
      Identity.push_back("map " + FD->getQualifiedNameAsString() + " " +
                         FD->getType().getAsString());
    if (FD->doesThisDeclarationHaveABody())
      noteDefinition(FD, FD->getASTContext().GetGVALinkageForFunction(FD));
    if (!Mark || Mark->isInherited() || FD->hasAttr<CUDAGlobalAttr>())
      return true;
    unsigned Where = 0;
    if (FD->hasAttr<CUDADeviceAttr>())
      Where = FD->hasAttr<CUDAHostAttr>() ? 2 : 1;
    // kfuse_impl adds the kfuse_map mark at its own place: name it.
    StringRef Spelled = "kfuse_map";
    for (const auto *A : FD->specific_attrs<AnnotateAttr>())
      if (A->getAnnotation().starts_with(kfuse::ImplMark) && A->getLocation() == Mark->getLocation())
        Spelled = "kfuse_impl";
    Diags.Report(Mark->getLocation(), DiagID) << FD << Where << Spelled;
    return true;
  }

  /// Whether some function of the translation unit is marked kfuse_map.
  bool AnyMark = false;
  /// What identifies the translation unit: each strong external definition
  /// outside system headers (no other file of a program may define it) and
  /// each kfuse_map function, by qualified name and type.
  std::vector<std::string> Identity;
  /// How many of those are strong external definitions.
  unsigned Strong = 0;

private:
  void noteDefinition(const DeclaratorDecl *D, GVALinkage L) {
    const SourceManager &SM = D->getASTContext().getSourceManager();
    if (L != GVA_StrongExternal || D->getLocation().isInvalid() ||
        SM.isInSystemHeader(D->getLocation()))
      return;
    Identity.push_back("def " + D->getQualifiedNameAsString() + " " +
                       D->getType().getAsString());
    ++Strong;
  }

  DiagnosticsEngine &Diags;
  unsigned DiagID;
  unsigned ImplDiffersID = Diags.getCustomDiagID(
      DiagnosticsEngine::Error,
      "'kfuse_impl' attribute differs from the one an earlier declaration of this kernel gives");
};

class KfuseConsumer : public ASTConsumer {
public:
  KfuseConsumer(CompilerInstance &CI, bool ListSites) : CI(CI), ListSites(ListSites) {}

  void HandleTranslationUnit(ASTContext &Ctx) override {
    PlacementCheck Check(CI.getDiagnostics());
    Check.TraverseDecl(Ctx.getTranslationUnitDecl());
    if (CI.getDiagnostics().hasErrorOccurred())
      return;
    if ((Check.AnyMark || ListSites) && Ctx.getLangOpts().CUDA)
      emitKey(Ctx, Check);
    // Without a kfuse_map kernel there is no sequence to find.
    if (!Ctx.getLangOpts().CUDAIsDevice || !Check.AnyMark)
      return;
    kfuse::HostLaunches Found = kfuse::findLaunchSequences(Ctx);
    unsigned N = 0;
    for (const kfuse::SequenceRecord &R : Found.Sequences)
      emitRecord(Ctx, R, N++);
    reportMissed(Found.Missed);
  }

private:
  /// Shows each missed launch as a remark under -Rpass-missed=kfuse, as the
  /// device pass's remarks are: in the group of clang's backend remarks and
  /// only when the pattern matches "kfuse". Only the device compilation
  /// scans host code, so each is shown once.
  void reportMissed(const std::vector<kfuse::MissedLaunch> &Missed) {
    if (Missed.empty() || !CI.getCodeGenOpts().OptimizationRemarkMissed.patternMatches("kfuse"))
      return;
    DiagnosticsEngine &Diags = CI.getDiagnostics();
    unsigned ID = Diags.getDiagnosticIDs()->getCustomDiagID(DiagnosticIDs::CustomDiagDesc(
        diag::Severity::Remark, "%0", DiagnosticIDs::CLASS_REMARK,
        /*ShowInSystemHeader=*/false, /*ShowInSystemMacro=*/true,
        diag::Group::BackendOptimizationRemarkMissed));
    for (const kfuse::MissedLaunch &M : Missed)
      Diags.Report(M.Loc, ID) << M.Message << AddFlagValue("kfuse");
  }

  /// The translation unit's key: 16 hex digits of a hash of what the file
  /// defines with strong external linkage (outside system headers) and of
  /// its kfuse_map functions, by qualified name and type, and of the
  /// command line's -D/-U macros; each list sorted. Both cc1 processes of a
  /// .cu parse the same declarations (host function bodies are parsed in
  /// the device compilation too) under the same macros, also from the
  /// preprocessed files of -save-temps, so they compute the same key, and
  /// it depends on no path, time or address. No two files of one program
  /// define the same strong external symbol, so two files that define any
  /// have different keys. A file that defines none (every function static)
  /// adds its main file's bytes.
  std::string translationUnitKey(ASTContext &Ctx, PlacementCheck &Check) {
    std::vector<std::string> Parts = Check.Identity;
    for (const auto &[Macro, IsUndef] : CI.getPreprocessorOpts().Macros)
      Parts.push_back((IsUndef ? "-U" : "-D") + Macro);
    std::sort(Parts.begin(), Parts.end());
    std::string Buf = "kfuse.tu 1";
    for (const std::string &P : Parts) {
      Buf += '\0';
      Buf += P;
    }
    if (Check.Strong == 0) {
      const SourceManager &SM = Ctx.getSourceManager();
      Buf += '\0';
      Buf += SM.getBufferData(SM.getMainFileID());
    }
    uint64_t H = llvm::xxh3_64bits(llvm::StringRef(Buf));
    std::string Hex;
    llvm::raw_string_ostream(Hex) << llvm::format_hex_no_prefix(H, 16);
    return Hex;
  }

  /// Declares `static char __kfuse_tu` (a `__device__` variable in the
  /// device compilation, a host one in the host compilation, so neither side
  /// registers it with the other) annotated `kfuse.tu <key>` where the file
  /// has a kfuse_map function, and `kfuse.launch-sites` in a host
  /// compilation without debug locations (LaunchSites.h). The passes read
  /// them and erase the variable.
  void emitKey(ASTContext &Ctx, PlacementCheck &Check) {
    TranslationUnitDecl *TU = Ctx.getTranslationUnitDecl();
    const SourceManager &SM = Ctx.getSourceManager();
    SourceLocation Loc = SM.getLocForStartOfFile(SM.getMainFileID());
    StringRef Symbol = "__kfuse_tu";
    auto *VD = VarDecl::Create(Ctx, TU, Loc, Loc, &Ctx.Idents.get(Symbol), Ctx.CharTy,
                               Ctx.getTrivialTypeSourceInfo(Ctx.CharTy), SC_Static);
    if (Ctx.getLangOpts().CUDAIsDevice)
      VD->addAttr(CUDADeviceAttr::CreateImplicit(Ctx));
    VD->addAttr(UsedAttr::CreateImplicit(Ctx));
    VD->addAttr(AsmLabelAttr::CreateImplicit(Ctx, Symbol));
    if (Check.AnyMark)
      VD->addAttr(AnnotateAttr::CreateImplicit(Ctx, "kfuse.tu " + translationUnitKey(Ctx, Check),
                                               nullptr, 0));
    if (ListSites) {
      std::string Sites = kfuse::launchSites(Ctx, CI.getCodeGenOpts());
      VD->addAttr(AnnotateAttr::CreateImplicit(
          Ctx, Sites.empty() ? "kfuse.launch-sites 1\n" : Sites, nullptr, 0));
    }
    TU->addDecl(VD);
    CI.getSema().getASTConsumer().HandleTopLevelDecl(DeclGroupRef(VD));
  }

  /// Declares `static __device__ char __kfuse_seq_<N>` annotated with the
  /// record and passes it to codegen through Sema's (multiplexing) consumer.
  /// This consumer's own HandleTopLevelDecl is the default no-op, so the
  /// variables it creates come back to it without effect.
  void emitRecord(ASTContext &Ctx, const kfuse::SequenceRecord &R,
                  unsigned N) {
    TranslationUnitDecl *TU = Ctx.getTranslationUnitDecl();
    std::string Symbol = "__kfuse_seq_" + std::to_string(N);
    IdentifierInfo &Name = Ctx.Idents.get(Symbol);
    auto *VD = VarDecl::Create(Ctx, TU, R.Site, R.Site, &Name, Ctx.CharTy,
                               Ctx.getTrivialTypeSourceInfo(Ctx.CharTy),
                               SC_Static);
    VD->addAttr(CUDADeviceAttr::CreateImplicit(Ctx));
    VD->addAttr(UsedAttr::CreateImplicit(Ctx));
    // The device pass finds records by this exact symbol name; without the
    // label a C++ internal variable would be mangled (_ZL13__kfuse_seq_0).
    VD->addAttr(AsmLabelAttr::CreateImplicit(Ctx, Symbol));
    VD->addAttr(AnnotateAttr::CreateImplicit(Ctx, R.Text, nullptr, 0));
    TU->addDecl(VD);
    CI.getSema().getASTConsumer().HandleTopLevelDecl(DeclGroupRef(VD));
  }

  CompilerInstance &CI;
  bool ListSites;
};

class KfuseAction : public PluginASTAction {
protected:
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
                                                 llvm::StringRef) override {
    // The host pass binds each run of launches to the device side's launch
    // sequence by the line and column of its first launch. Where the host
    // compilation has no debug locations (no -g, no remark flag), the
    // consumer lists them (LaunchSites.h).
    const CodeGenOptions &CG = CI.getCodeGenOpts();
    bool ListSites = !CI.getLangOpts().CUDAIsDevice && CI.getLangOpts().CUDA &&
                     CG.getDebugInfo() == llvm::codegenoptions::NoDebugInfo;
    return std::make_unique<KfuseConsumer>(CI, ListSites);
  }

  bool ParseArgs(const CompilerInstance &,
                 const std::vector<std::string> &) override {
    return true;
  }

  ActionType getActionType() override { return AddBeforeMainAction; }
};

} // namespace

static FrontendPluginRegistry::Add<KfuseAction>
    Y("kfuse", "kfuse: kfuse_map checks and launch-sequence records");
