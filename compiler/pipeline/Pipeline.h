//===- Pipeline.h - the tsc compilation pipeline, phase by phase -*- C++ -*-===//

#ifndef TSC_COMPILER_PIPELINE_PIPELINE_H
#define TSC_COMPILER_PIPELINE_PIPELINE_H

#include "compiler/pipeline/Precision.h"

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace mlir::tsc {

/// Phases of the pipeline, in order. `tsc --emit=PHASE` prints the IR after
/// one. A phase is listed here once it is implemented.
enum class Phase {
  /// The module as the importer produced it (or as parsed from .mlir).
  Import,
  /// Canonical tsc graph: folded shape arithmetic, every dynamic dim bound.
  Graph,
  /// Decomposed norms and activations recognised as single ops.
  Fuse,
  /// The plan's kernels lowered to linalg on tensors (driver only: the
  /// lowering runs on outlined kernels, not as passes on the graph).
  Lower,
  /// Device code: one PTX module per kernel launch (driver only, CUDA
  /// targets; `--emit=ptx -o DIR`).
  Ptx,
};

/// Name of `phase` as used by --emit and the `until` option.
StringRef getPhaseName(Phase phase);

struct TscPipelineOptions : public PassPipelineOptions<TscPipelineOptions> {
  Option<Phase> until{
      *this, "until", llvm::cl::desc("Last phase to run"),
      llvm::cl::init(Phase::Fuse),
      llvm::cl::values(
          clEnumValN(Phase::Import, "import", "stop after import"),
          clEnumValN(Phase::Graph, "graph", "stop after the graph phase"),
          clEnumValN(Phase::Fuse, "fuse", "stop after the fuse phase"))};
  Option<bool> fuse{*this, "fuse",
                    llvm::cl::desc("Run the fuse phase's passes (off: the "
                                   "graph as it is, for comparison)"),
                    llvm::cl::init(true)};
  Option<std::string> precision{
      *this, "precision",
      llvm::cl::desc("fp32 (default), or fp16/bf16: float tensors stored in "
                     "half precision after the fuse phase"),
      llvm::cl::init("fp32")};
  Option<bool> erfGeluEpilogue{
      *this, "erf-gelu-epilogue",
      llvm::cl::desc("Fold exact (erf) GELUs into GEMM epilogues (off for "
                     "CUDA targets: cuBLASLt's GELU epilogue is the tanh "
                     "approximation only)"),
      llvm::cl::init(true)};
  Option<std::string> precisionIO{
      *this, "precision-io",
      llvm::cl::desc("model (default: float inputs and outputs keep the "
                     "model's types) or storage (they take the precision's)"),
      llvm::cl::init("model")};
};

/// Adds the passes of every phase up to `options.until` to `pm` (anchored on
/// builtin.module).
void buildTscPipeline(OpPassManager &pm, const TscPipelineOptions &options);

/// The fuse phase alone, for a module that went through the graph phase.
/// With `freeReplacedWeights` (nothing outside the module shares its
/// weights), the weights that GEMM merging replaces are freed as it goes;
/// without `erfGeluEpilogue` (a target whose GEMM library has no exact GELU
/// epilogue), erf GELUs stay their own ops.
void buildFusePhase(OpPassManager &pm, bool freeReplacedWeights = false,
                    bool erfGeluEpilogue = true);

/// Half-precision storage (`type` f16 or bf16) for a module after the fuse
/// phase: `--precision=fp16|bf16`; with `convertIO` the function's float
/// inputs and outputs too (`--precision-io=storage`); with
/// `freeReplacedWeights`, each f32 weight is freed once converted.
void buildPrecisionPhase(OpPassManager &pm, StringRef type,
                         bool convertIO = false,
                         bool freeReplacedWeights = false);

/// Registers `tsc-pipeline` for tsc-opt.
void registerTscPipeline();

} // namespace mlir::tsc

#endif // TSC_COMPILER_PIPELINE_PIPELINE_H
