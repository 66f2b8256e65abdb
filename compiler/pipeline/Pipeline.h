//===- Pipeline.h - the tsc compilation pipeline, phase by phase -*- C++ -*-===//

#ifndef TSC_COMPILER_PIPELINE_PIPELINE_H
#define TSC_COMPILER_PIPELINE_PIPELINE_H

#include "compiler/pipeline/Precision.h"

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace mlir::tsc {

/// What the quantize phase does (`--quantize=MODE`).
enum class Quantization {
  None,
  /// Weights s8 per output channel at compile time, activations s8 per row
  /// at run time, i32 accumulation.
  DynamicInt8,
  /// Weights as DynamicInt8, activations s8 per tensor by scales from
  /// calibration (`input-ranges`).
  StaticInt8,
  /// Weights only, i8 or i4, per output channel or per group along K
  /// (`weight-group-size`); activations float.
  WeightInt8,
  WeightInt4,
  /// Weights f8E4M3FN per output channel at compile time, activations
  /// f8E4M3FN per row at run time, f32 accumulation (CUDA sm_89+).
  Fp8,
};

/// The mode's name as `--quantize` and tsc-pipeline's `quantize=` spell it.
llvm::StringRef getQuantizationName(Quantization quantize);

/// Phases of the pipeline, in order. `tsc --emit=PHASE` prints the IR after
/// one. A phase is listed here once it is implemented.
enum class Phase {
  /// The module as the importer produced it (or as parsed from .mlir).
  Import,
  /// Canonical tsc graph: folded shape arithmetic, every dynamic dim bound.
  Graph,
  /// Attention heads and FFN neurons removed, weights sparsified, as
  /// `--prune` asks (docs/pruning.md).
  Prune,
  /// GEMMs quantized as `quantize=` asks (the graph as it is without it).
  Quantize,
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
          clEnumValN(Phase::Prune, "prune", "stop after the prune phase"),
          clEnumValN(Phase::Quantize, "quantize",
                     "stop after the quantize phase"),
          clEnumValN(Phase::Fuse, "fuse", "stop after the fuse phase"))};
  ListOption<std::string> prune{
      *this, "prune",
      llvm::cl::desc("Pruning specs (heads=R[:global], ffn=R[:global], "
                     "magnitude=R, 2:4; docs/pruning.md)")};
  Option<bool> pruneDead{
      *this, "prune-dead",
      llvm::cl::desc("Remove FFN neurons and attention heads whose consumer "
                     "weights are all zero (an already-pruned model; exact) "
                     "where --prune does not prune that kind"),
      llvm::cl::init(true)};
  Option<bool> detectPruned{
      *this, "detect-pruned",
      llvm::cl::desc("Record weights that arrive pruned (zero rows and "
                     "columns, 2:4 patterns) for the report"),
      llvm::cl::init(false)};
  Option<Quantization> quantize{
      *this, "quantize",
      llvm::cl::desc("Quantization of the quantize phase (docs/"
                     "quantization.md)"),
      llvm::cl::init(Quantization::None),
      llvm::cl::values(
          clEnumValN(Quantization::None, "none", "no quantization (default)"),
          clEnumValN(Quantization::DynamicInt8, "dynamic-int8",
                     "GEMMs by constant weights in int8: weights per "
                     "channel at compile time, activations per row at run "
                     "time"),
          clEnumValN(Quantization::StaticInt8, "static-int8",
                     "weights as dynamic-int8, activations per tensor by "
                     "the calibrated input-ranges"),
          clEnumValN(Quantization::WeightInt8, "weight-int8",
                     "weights in i8 (per channel or per group along K), "
                     "activations float"),
          clEnumValN(Quantization::WeightInt4, "weight-int4",
                     "weights in i4 (per channel or per group along K), "
                     "activations float"),
          clEnumValN(Quantization::Fp8, "fp8",
                     "GEMMs by constant weights in f8E4M3FN: weights per "
                     "channel at compile time, activations per row at run "
                     "time"))};
  Option<int64_t> weightGroupSize{
      *this, "weight-group-size",
      llvm::cl::desc("weight-int8/int4: weights per scale along K (0: one "
                     "scale per output channel)"),
      llvm::cl::init(0)};
  Option<bool> weightZeroPoints{
      *this, "weight-zero-points",
      llvm::cl::desc("weight-int8/int4: asymmetric codes, a zero point per "
                     "scale"),
      llvm::cl::init(false)};
  Option<bool> narrowInt8Weights{
      *this, "narrow-int8-weights",
      llvm::cl::desc("dynamic-int8/static-int8: weight codes in [-64, 64] "
                     "(7 bits; the quantize passes' narrow-weights)"),
      llvm::cl::init(false)};
  ListOption<float> inputRanges{
      *this, "input-ranges",
      llvm::cl::desc("static-int8 (and fp8, per-tensor scales): the "
                     "calibrated range of each GEMM op's input "
                     "(tsc-quantize-static-int8's and tsc-quantize-fp8's "
                     "option)")};
  ListOption<float> inputMinima{
      *this, "input-minima",
      llvm::cl::desc("static-int8: the calibrated minimum of each GEMM op's "
                     "input, for asymmetric activations (input-ranges then "
                     "holds the maxima)")};
  Option<double> smoothingAlpha{
      *this, "smoothing-alpha",
      llvm::cl::desc("static-int8 and dynamic-int8: smoothing's migration "
                     "strength in (0, 1) for the GEMMs whose inputs carry "
                     "calibrated channel extremes (the quantize passes' "
                     "option); 0: none"),
      llvm::cl::init(0.0)};
  ListOption<std::string> keepFloat{
      *this, "keep-float",
      llvm::cl::desc("GEMMs the quantize phase leaves float, as glob "
                     "patterns over their location names (what tsc "
                     "--max-error chooses; passes/transforms/KeepFloat.h)")};
  Option<std::string> keptPrecision{
      *this, "kept-precision",
      llvm::cl::desc("dynamic-int8/static-int8: what the GEMMs keep-float "
                     "names compute in: f32 (default) or bf16 (operands "
                     "rounded to bf16, f32 accumulation)"),
      llvm::cl::init("f32")};
  Option<std::string> attentionProducts{
      *this, "attention-products",
      llvm::cl::desc("After the fuse phase: f32 (default), or bf16 (f32 "
                     "attention's products may round to bf16: "
                     "tsc-attention-bf16-products)"),
      llvm::cl::init("f32")};
  Option<bool> fuse{*this, "fuse",
                    llvm::cl::desc("Run the fuse phase's passes (off: the "
                                   "graph as it is, for comparison)"),
                    llvm::cl::init(true)};
  Option<Precision> precision{
      *this, "precision",
      llvm::cl::desc("Storage precision after the fuse phase (fp16/bf16: "
                     "float tensors stored in half precision; fp32 and tf32 "
                     "leave the graph as it is)"),
      llvm::cl::init(Precision::FP32),
      llvm::cl::values(
          clEnumValN(Precision::FP32, "fp32", "fp32 (the default)"),
          clEnumValN(Precision::TF32, "tf32",
                     "fp32 storage (TF32 is the GEMM library's choice)"),
          clEnumValN(Precision::FP16, "fp16", "fp16 storage"),
          clEnumValN(Precision::BF16, "bf16", "bf16 storage"))};
  Option<bool> erfGeluEpilogue{
      *this, "erf-gelu-epilogue",
      llvm::cl::desc("Fold exact (erf) GELUs into GEMM epilogues (off for "
                     "CUDA targets: cuBLASLt's GELU epilogue is the tanh "
                     "approximation only)"),
      llvm::cl::init(true)};
  Option<bool> expandQuantizedGemms{
      *this, "expand-quantized-gemms",
      llvm::cl::desc("After the fuse phase, int8 and fp8 GEMMs as an s8 or "
                     "f8 product and a float epilogue "
                     "(tsc-expand-quantized-gemms; on for CUDA targets, "
                     "whose GEMM library has no quantized step)"),
      llvm::cl::init(false)};
  Option<PrecisionIO> precisionIO{
      *this, "precision-io",
      llvm::cl::desc("With fp16/bf16: what the function's float inputs and "
                     "outputs take"),
      llvm::cl::init(PrecisionIO::Model),
      llvm::cl::values(clEnumValN(PrecisionIO::Model, "model",
                                  "the model's types (the default)"),
                       clEnumValN(PrecisionIO::Storage, "storage",
                                  "the storage precision's"))};
  Option<bool> freeReplacedWeights{
      *this, "free-replaced-weights",
      llvm::cl::desc("Free the data of weights that GEMM merging and the "
                     "precision phase replace (only when no other module "
                     "shares the weights)"),
      llvm::cl::init(false)};
};

/// Adds the passes of every phase up to `options.until` to `pm` (anchored on
/// builtin.module).
void buildTscPipeline(OpPassManager &pm, const TscPipelineOptions &options);

/// Registers `tsc-pipeline` for tsc-opt.
void registerTscPipeline();

} // namespace mlir::tsc

#endif // TSC_COMPILER_PIPELINE_PIPELINE_H
