//===- Pipeline.cpp - the one definition of the tsc pipeline --------------===//

#include "compiler/pipeline/Pipeline.h"
#include "compiler/pipeline/Prune.h"
#include "passes/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::tsc;

StringRef tsc::getPhaseName(Phase phase) {
  switch (phase) {
  case Phase::Import:
    return "import";
  case Phase::Graph:
    return "graph";
  case Phase::Prune:
    return "prune";
  case Phase::Quantize:
    return "quantize";
  case Phase::Lower:
    return "lower";
  case Phase::Ptx:
    return "ptx";
  case Phase::Fuse:
    return "fuse";
  }
  llvm_unreachable("unknown phase");
}

StringRef tsc::getQuantizationName(Quantization quantize) {
  switch (quantize) {
  case Quantization::None:
    return "none";
  case Quantization::DynamicInt8:
    return "dynamic-int8";
  case Quantization::StaticInt8:
    return "static-int8";
  case Quantization::WeightInt8:
    return "weight-int8";
  case Quantization::WeightInt4:
    return "weight-int4";
  case Quantization::Fp8:
    return "fp8";
  }
  llvm_unreachable("unknown quantization");
}

StringRef tsc::getPrecisionName(Precision precision) {
  switch (precision) {
  case Precision::FP32:
    return "fp32";
  case Precision::TF32:
    return "tf32";
  case Precision::FP16:
    return "fp16";
  case Precision::BF16:
    return "bf16";
  }
  llvm_unreachable("unknown precision");
}

StringRef tsc::getStorageTypeName(Precision precision) {
  assert(isHalfPrecision(precision) && "no storage type for fp32 and tf32");
  return precision == Precision::FP16 ? "f16" : "bf16";
}

/// The fuse phase, for a module that went through the graph phase. With
/// `freeReplacedWeights` (nothing outside the module shares its weights),
/// the weights that GEMM merging replaces are freed as it goes; without
/// `erfGeluEpilogue` (a target whose GEMM library has no exact GELU
/// epilogue), erf GELUs stay their own ops.
static void buildFusePhase(OpPassManager &pm, bool freeReplacedWeights,
                           bool erfGeluEpilogue) {
  // fuse: norms first, so their square roots are not mistaken for parts of
  // other formulas; then GELU and SiLU.
  pm.addNestedPass<func::FuncOp>(createFuseNormsPass());
  pm.addNestedPass<func::FuncOp>(createFuseActivationsPass());
  // fuse: attention after the canonicalizer has composed the head-split
  // transposes.
  pm.addPass(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(createFuseAttentionPass());
  // fuse: bias adds, GELUs and residual adds into the GEMMs (after
  // FuseActivations made the GELUs), then projections of one input (Q/K/V,
  // gate/up) as one GEMM, the weights and biases concatenated at compile
  // time (and the originals freed group by group when asked).
  FuseGemmEpiloguesPassOptions epilogues;
  epilogues.erfGelu = erfGeluEpilogue;
  pm.addNestedPass<func::FuncOp>(createFuseGemmEpiloguesPass(epilogues));
  MergeGemmsPassOptions merge;
  merge.freeReplacedWeights = freeReplacedWeights;
  pm.addNestedPass<func::FuncOp>(createMergeGemmsPass(merge));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // fuse: the new ops get their bindings; the contract holds after each phase.
  BindSymbolicShapesPassOptions bindOptions;
  bindOptions.requireAll = true;
  pm.addNestedPass<func::FuncOp>(createBindSymbolicShapesPass(bindOptions));
}

/// The exact removal of dead heads and neurons (`prune-dead`) for the
/// kinds `specs` does not prune by a ratio: changes nothing in a model
/// without all-zero consumer weights.
static void addPruneDead(OpPassManager &pm, const PruneSpecs &specs) {
  if (!(specs.heads > 0)) {
    PruneHeadsPassOptions heads;
    heads.exact = true;
    pm.addPass(createPruneHeadsPass(heads));
  }
  if (!(specs.ffn > 0)) {
    PruneFfnPassOptions ffn;
    ffn.exact = true;
    pm.addPass(createPruneFfnPass(ffn));
  }
}

/// The prune phase: one pass per kind `specs` asks for, structured first
/// (heads, then FFN neurons: their shapes shrink), then the sparsities,
/// which zero weights of the shrunk GEMMs; with `detect`, weights that
/// arrive pruned are recorded first; with `dead`, the kinds not pruned by
/// a ratio lose their dead groups.
static void buildPrunePhase(OpPassManager &pm, const PruneSpecs &specs,
                            bool detect, bool dead) {
  if (detect)
    pm.addPass(createDetectPrunedPass());
  if (dead)
    addPruneDead(pm, specs);
  if (specs.heads > 0) {
    PruneHeadsPassOptions heads;
    heads.ratio = specs.heads;
    heads.globalRanking = specs.headsGlobal;
    pm.addPass(createPruneHeadsPass(heads));
  }
  if (specs.ffn > 0) {
    PruneFfnPassOptions ffn;
    ffn.ratio = specs.ffn;
    ffn.globalRanking = specs.ffnGlobal;
    pm.addPass(createPruneFfnPass(ffn));
  }
  // Calibration's input norms (tsc --calibration) have been ranked by.
  if (specs.heads > 0 || specs.ffn > 0)
    pm.addPass(createDropInputNormsPass());
  if (specs.magnitude > 0) {
    PruneMagnitudePassOptions magnitude;
    magnitude.ratio = specs.magnitude;
    pm.addPass(createPruneMagnitudePass(magnitude));
  }
  if (specs.twoFour)
    pm.addPass(createPruneSemiStructuredPass());
  // The pruned weights fold into their constants; shrunk shapes simplify.
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Projections split out of merged ones get their bindings.
  BindSymbolicShapesPassOptions bindOptions;
  bindOptions.requireAll = true;
  pm.addNestedPass<func::FuncOp>(createBindSymbolicShapesPass(bindOptions));
}

/// Half-precision storage (`type` f16 or bf16) for a module after the fuse
/// phase; with `convertIO` the function's float inputs and outputs too;
/// with `freeReplacedWeights`, each f32 weight is freed once converted.
static void buildPrecisionPhase(OpPassManager &pm, StringRef type,
                                bool convertIO, bool freeReplacedWeights) {
  // precision: after fusion, whose patterns match the model's f32 formulas.
  ReducePrecisionPassOptions precision;
  precision.type = type.str();
  precision.convertIO = convertIO;
  precision.freeReplacedWeights = freeReplacedWeights;
  pm.addNestedPass<func::FuncOp>(createReducePrecisionPass(precision));
  // Cast pairs that undo each other fold, weights convert.
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // The casts get their bindings.
  BindSymbolicShapesPassOptions bindOptions;
  bindOptions.requireAll = true;
  pm.addNestedPass<func::FuncOp>(createBindSymbolicShapesPass(bindOptions));
}

void tsc::buildTscPipeline(OpPassManager &pm,
                           const TscPipelineOptions &options) {
  if (options.until == Phase::Import)
    return;

  // graph: give imported nodes their tsc semantics; the shape subgraphs
  // exporters emit fold into dims and symbols on the way. Fails with the
  // unsupported-op report if anything is left. Each pass converts its own
  // framework's nodes (ONNX, or TorchScript's aten/prim) and does nothing
  // on a model from the other.
  pm.addNestedPass<func::FuncOp>(createConvertOnnxToTscPass());
  pm.addNestedPass<func::FuncOp>(createConvertTorchToTscPass());
  // graph: fold what conversion exposed and drop no-op reshapes, so that
  // later phases see the simplest graph.
  pm.addPass(createCanonicalizerPass());
  // graph: merge duplicate subgraphs (exporters repeat shape computations).
  pm.addPass(createCSEPass());
  // graph: symbol maxima from what the model can index (position tables),
  // so memory is planned for sizes the model can actually run.
  pm.addNestedPass<func::FuncOp>(createInferSymbolRangesPass());
  // graph: the contract every later phase relies on: each dynamic dim of each
  // tensor is a known affine expression of the declared symbols.
  BindSymbolicShapesPassOptions bindOptions;
  bindOptions.requireAll = true;
  pm.addNestedPass<func::FuncOp>(createBindSymbolicShapesPass(bindOptions));
  // graph: with every value bound, size queries fold to the symbols.
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (options.until == Phase::Graph)
    return;
  // prune: the specs were checked by the driver; tsc-opt reports a bad one
  // and runs no pruning pass.
  llvm::Expected<PruneSpecs> specs = parsePruneSpecs(options.prune);
  if (!specs)
    llvm::errs() << "tsc-pipeline: " << llvm::toString(specs.takeError())
                 << "\n";
  else if (specs->any() || options.detectPruned)
    buildPrunePhase(pm, *specs, options.detectPruned, options.pruneDead);
  else if (options.pruneDead)
    addPruneDead(pm, *specs);
  if (options.until == Phase::Prune)
    return;
  // quantize: after the graph phase has made every GEMM a tsc.linear or
  // tsc.matmul with its constant weight in sight, before fusion, so that
  // the fuse phase folds bias, GELU and residual into the quantized
  // product's epilogue as it does for a float one. QDQ models' pairs
  // around GEMMs first, with or without --quantize: they are the model's
  // own quantization (docs/quantization-qdq.md, "QDQ models"); their new ops
  // get shape bindings.
  pm.addNestedPass<func::FuncOp>(createQuantizeQdqPass());
  pm.addNestedPass<func::FuncOp>(createBindSymbolicShapesPass(bindOptions));
  if (options.quantize == Quantization::DynamicInt8) {
    QuantizeDynamicInt8PassOptions quantize;
    quantize.keepFloat.assign(options.keepFloat.begin(),
                              options.keepFloat.end());
    quantize.keptPrecision = options.keptPrecision;
    quantize.smoothingAlpha = options.smoothingAlpha;
    quantize.narrowWeights = options.narrowInt8Weights;
    pm.addNestedPass<func::FuncOp>(createQuantizeDynamicInt8Pass(quantize));
    // Smoothing's muls get their bindings.
    if (options.smoothingAlpha > 0)
      pm.addNestedPass<func::FuncOp>(createBindSymbolicShapesPass(bindOptions));
    // Projections of one input (Q/K/V) get one quantization of it, which
    // tsc-merge-gemms needs to see to make them one int8 GEMM.
    pm.addPass(createCSEPass());
  } else if (options.quantize == Quantization::Fp8) {
    QuantizeFp8PassOptions fp8;
    fp8.keepFloat.assign(options.keepFloat.begin(), options.keepFloat.end());
    fp8.inputRanges.assign(options.inputRanges.begin(),
                           options.inputRanges.end());
    pm.addNestedPass<func::FuncOp>(createQuantizeFp8Pass(fp8));
    // Calibrated (static) scales are new ops that need their bindings.
    if (!options.inputRanges.empty())
      pm.addNestedPass<func::FuncOp>(createBindSymbolicShapesPass(bindOptions));
    pm.addPass(createCSEPass());
  } else if (options.quantize == Quantization::WeightInt8 ||
             options.quantize == Quantization::WeightInt4) {
    QuantizeWeightOnlyPassOptions weightOnly;
    weightOnly.bits = options.quantize == Quantization::WeightInt8 ? 8 : 4;
    weightOnly.groupSize = options.weightGroupSize;
    weightOnly.zeroPoints = options.weightZeroPoints;
    weightOnly.keepFloat.assign(options.keepFloat.begin(),
                                options.keepFloat.end());
    pm.addNestedPass<func::FuncOp>(createQuantizeWeightOnlyPass(weightOnly));
  } else if (options.quantize == Quantization::StaticInt8) {
    // The ranges the driver's calibration measured on this graph.
    QuantizeStaticInt8PassOptions staticOptions;
    staticOptions.inputRanges.assign(options.inputRanges.begin(),
                                     options.inputRanges.end());
    staticOptions.inputMinima.assign(options.inputMinima.begin(),
                                     options.inputMinima.end());
    staticOptions.keepFloat.assign(options.keepFloat.begin(),
                                   options.keepFloat.end());
    staticOptions.keptPrecision = options.keptPrecision;
    staticOptions.smoothingAlpha = options.smoothingAlpha;
    staticOptions.narrowWeights = options.narrowInt8Weights;
    pm.addNestedPass<func::FuncOp>(createQuantizeStaticInt8Pass(staticOptions));
    // The new scale and quantization ops get their bindings.
    pm.addNestedPass<func::FuncOp>(createBindSymbolicShapesPass(bindOptions));
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
  }
  if (options.until == Phase::Quantize)
    return;
  if (options.fuse)
    buildFusePhase(pm, options.freeReplacedWeights, options.erfGeluEpilogue);
  if (options.attentionProducts == "bf16")
    pm.addNestedPass<func::FuncOp>(createAttentionBf16ProductsPass());
  if (isHalfPrecision(options.precision))
    buildPrecisionPhase(pm, getStorageTypeName(options.precision),
                        options.precisionIO == PrecisionIO::Storage,
                        options.freeReplacedWeights);
  // fuse, for CUDA: int8 and fp8 GEMMs as cuBLASLt's s8 or f8 product and
  // kernels around it, after the epilogues were folded into their linear ops;
  // the new ops get their bindings.
  if (options.expandQuantizedGemms) {
    pm.addNestedPass<func::FuncOp>(createExpandQuantizedGemmsPass());
    pm.addNestedPass<func::FuncOp>(createBindSymbolicShapesPass(bindOptions));
  }
}

void tsc::registerTscPipeline() {
  PassPipelineRegistration<TscPipelineOptions>(
      "tsc-pipeline", "The tsc compilation pipeline, up to a given phase",
      buildTscPipeline);
}
