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
// on a variable __kfuse_tu): a hash of the main file's bytes and the
// command line's macros, which the device and the host compilation of one
// .cu compute alike. The device pass names its symbols after it and the host
// pass tells the runtime which manifest is this file's (docs/manifest.md).
//
//===----------------------------------------------------------------------===//
#include "Kfuse.h"
#include "LaunchSequence.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
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
  explicit PlacementCheck(DiagnosticsEngine &Diags) : Diags(Diags) {
    DiagID = Diags.getCustomDiagID(
        DiagnosticsEngine::Error,
        "'kfuse_map' attribute only applies to __global__ functions; %0 is "
        "%select{a host|a __device__|a __host__ __device__}1 function");
  }

  bool VisitFunctionDecl(FunctionDecl *FD) {
    const AnnotateAttr *Mark = kfuse::getMapMark(FD);
    AnyMark |= Mark != nullptr;
    if (!Mark || Mark->isInherited() || FD->hasAttr<CUDAGlobalAttr>())
      return true;
    unsigned Where = 0;
    if (FD->hasAttr<CUDADeviceAttr>())
      Where = FD->hasAttr<CUDAHostAttr>() ? 2 : 1;
    Diags.Report(Mark->getLocation(), DiagID) << FD << Where;
    return true;
  }

  /// Whether some function of the translation unit is marked kfuse_map.
  bool AnyMark = false;

private:
  DiagnosticsEngine &Diags;
  unsigned DiagID;
};

class KfuseConsumer : public ASTConsumer {
public:
  explicit KfuseConsumer(CompilerInstance &CI) : CI(CI) {}

  void HandleTranslationUnit(ASTContext &Ctx) override {
    PlacementCheck Check(CI.getDiagnostics());
    Check.TraverseDecl(Ctx.getTranslationUnitDecl());
    if (CI.getDiagnostics().hasErrorOccurred())
      return;
    if (Check.AnyMark && Ctx.getLangOpts().CUDA)
      emitKey(Ctx);
    if (!Ctx.getLangOpts().CUDAIsDevice)
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

  /// The translation unit's key: 16 hex digits of a hash of the main file's
  /// bytes and of the -D/-U macros of the command line (sorted, so their
  /// order does not matter). Both cc1 processes of a .cu read the same file
  /// under the same macros, so they compute the same key; it depends on no
  /// path, time or address. Two files differ in their bytes or in their
  /// macros, or are the same program twice.
  std::string translationUnitKey(ASTContext &Ctx) {
    const SourceManager &SM = Ctx.getSourceManager();
    std::string Buf = "kfuse.tu 1";
    Buf += '\0';
    Buf += SM.getBufferData(SM.getMainFileID());
    std::vector<std::string> Macros;
    for (const auto &[Macro, IsUndef] : CI.getPreprocessorOpts().Macros)
      Macros.push_back((IsUndef ? "-U" : "-D") + Macro);
    std::sort(Macros.begin(), Macros.end());
    for (const std::string &M : Macros) {
      Buf += '\0';
      Buf += M;
    }
    uint64_t H = llvm::xxh3_64bits(llvm::StringRef(Buf));
    std::string Hex;
    llvm::raw_string_ostream(Hex) << llvm::format_hex_no_prefix(H, 16);
    return Hex;
  }

  /// Declares `static char __kfuse_tu` (a `__device__` variable in the
  /// device compilation, a host one in the host compilation, so neither side
  /// registers it with the other) annotated `kfuse.tu <key>`. The passes
  /// read the key and erase the variable.
  void emitKey(ASTContext &Ctx) {
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
    VD->addAttr(AnnotateAttr::CreateImplicit(Ctx, "kfuse.tu " + translationUnitKey(Ctx),
                                             nullptr, 0));
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
};

class KfuseAction : public PluginASTAction {
protected:
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
                                                 llvm::StringRef) override {
    return std::make_unique<KfuseConsumer>(CI);
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
