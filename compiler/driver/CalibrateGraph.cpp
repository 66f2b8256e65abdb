//===- CalibrateGraph.cpp - activations on calibration samples -----------===//
//
// What the compile measures on `--calibration DIR` before its pipeline
// runs: a copy of the graph returns the values to observe besides its
// outputs and runs on the samples in-process (Calibration.h).
//
//===----------------------------------------------------------------------===//

#include "compiler/driver/CalibrateGraph.h"
#include "compiler/driver/ErrorBudget.h"
#include "compiler/pipeline/Prune.h"
#include "passes/transforms/PruneRegion.h"
#include "passes/transforms/QuantizeGemm.h"
#include "passes/transforms/Smoothing.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;
using namespace mlir::tsc;

namespace {

/// `module`'s function with `extra` appended to its results, named
/// `tsc.calibration.I`.
void returnAlso(func::FuncOp func, ArrayRef<Value> extra) {
  auto ret = cast<func::ReturnOp>(func.getBody().back().getTerminator());
  SmallVector<Value> results(ret.getOperands());
  SmallVector<DictionaryAttr> attrs;
  func.getAllResultAttrs(attrs);
  Builder b(func.getContext());
  for (auto [i, value] : llvm::enumerate(extra)) {
    results.push_back(value);
    attrs.push_back(b.getDictionaryAttr(b.getNamedAttr(
        "tsc.name", b.getStringAttr("tsc.calibration." + Twine(i)))));
  }
  ret->setOperands(results);
  func.setType(b.getFunctionType(func.getArgumentTypes(),
                                 ValueRange(results).getTypes()));
  func.setAllResultAttrs(attrs);
}

/// The one function of `module`, or an error.
FailureOr<func::FuncOp> getOnlyFunction(ModuleOp module) {
  auto funcs = llvm::to_vector(module.getOps<func::FuncOp>());
  if (funcs.size() != 1)
    return module.emitError()
           << "expected one function to compile, found " << funcs.size();
  return funcs.front();
}

/// Calls `measure` on `graph` (its function past the phases that are not
/// to run again) with `observed` appended to its results: the rest of the
/// compile in fp32 for the host, without pruning (done already) or
/// quantization, and the artifact's writer and the observed outputs' names
/// (`tsc.calibration.I`) given to `measure`.
LogicalResult measureObserved(
    ModuleOp graph, func::FuncOp func, ArrayRef<Value> observed,
    const CompileOptions &options,
    llvm::function_ref<LogicalResult(ArtifactWriter, ArrayRef<std::string>)>
        measure) {
  returnAlso(func, observed);
  CompileOptions fp32 = options;
  fp32.quantize = Quantization::None;
  fp32.precision = Precision::FP32;
  fp32.precisionIO = PrecisionIO::Model;
  fp32.target = TargetKind::Host;
  fp32.gpuLoopMapping = false;
  // The graph phase again is a no-op on its own output, pruning is not.
  fp32.prune.clear();
  auto write = [&](llvm::raw_pwrite_stream &os) {
    return writeHostArtifact(graph, fp32, os);
  };
  std::vector<std::string> names;
  for (size_t i = 0; i < observed.size(); ++i)
    names.push_back("tsc.calibration." + std::to_string(i));
  return measure(write, names);
}

} // namespace

FailureOr<std::vector<ActivationRange>>
tsc::calibrateInputRanges(ModuleOp module, const CompileOptions &options) {
  OwningOpRef<ModuleOp> graph = module.clone();
  CompileOptions fp32 = options;
  fp32.quantize = Quantization::None;
  if (failed(runTscPipeline(*graph, fp32, Phase::Prune)))
    return failure();
  FailureOr<func::FuncOp> func = getOnlyFunction(*graph);
  if (failed(func))
    return failure();
  SmallVector<Operation *> gemms = getGemmOps(*func);
  // One output per distinct input (Q, K and V read one).
  SmallVector<Value> observed;
  DenseMap<Value, unsigned> outputOf;
  SmallVector<int> gemmOutput;
  for (Operation *op : gemms) {
    std::string why;
    FailureOr<QuantizableGemm> g = matchQuantizableGemm(op, 16, why);
    if (failed(g)) {
      gemmOutput.push_back(-1);
      continue;
    }
    auto [it, added] = outputOf.try_emplace(g->input, observed.size());
    if (added)
      observed.push_back(g->input);
    gemmOutput.push_back(int(it->second));
  }
  std::vector<ActivationRange> ranges(gemms.size());
  if (observed.empty())
    return ranges;
  FailureOr<std::vector<ActivationRange>> measured;
  if (failed(measureObserved(
          *graph, *func, observed, options,
          [&](ArtifactWriter write, ArrayRef<std::string> names) {
            measured = measureInputRanges(write, names, options.calibration);
            return failure(failed(measured));
          })))
    return failure();
  for (auto [range, output] : llvm::zip_equal(ranges, gemmOutput))
    if (output >= 0)
      range = (*measured)[size_t(output)];
  return ranges;
}

LogicalResult tsc::attachInputStatistics(ModuleOp module,
                                         const CompileOptions &options,
                                         ArrayRef<ActivationRange> ranges,
                                         bool means, bool extremes) {
  CompileOptions graphOnly = options;
  graphOnly.prune.clear();
  graphOnly.quantize = Quantization::None;
  if (failed(runTscPipeline(module, graphOnly, Phase::Graph)))
    return failure();
  FailureOr<func::FuncOp> func = getOnlyFunction(module);
  if (failed(func))
    return failure();
  SmallVector<Operation *> gemms = getGemmOps(*func);
  if (gemms.size() != ranges.size())
    return success();
  for (auto [op, range] : llvm::zip_equal(gemms, ranges)) {
    std::string why;
    FailureOr<QuantizableGemm> g = matchQuantizableGemm(op, 1, why);
    if (failed(g) || range.mean.empty() ||
        cast<RankedTensorType>(g->input.getType()).getShape().back() !=
            int64_t(range.mean.size()))
      continue;
    MLIRContext *context = op->getContext();
    if (means)
      op->setAttr(kInputMeanAttr, DenseF32ArrayAttr::get(context, range.mean));
    if (extremes && range.channelMin.size() == range.mean.size() &&
        range.channelMax.size() == range.mean.size()) {
      op->setAttr(kInputChannelMinAttr,
                  DenseF32ArrayAttr::get(context, range.channelMin));
      op->setAttr(kInputChannelMaxAttr,
                  DenseF32ArrayAttr::get(context, range.channelMax));
    }
  }
  return success();
}

void tsc::appendInputRanges(CompileOptions &options,
                            ArrayRef<ActivationRange> ranges) {
  for (const ActivationRange &range : ranges) {
    options.inputRanges.push_back(range.hi);
    if (options.calibration.asymmetric)
      options.inputMinima.push_back(range.lo);
  }
}

FailureOr<CompileOptions>
tsc::calibrateForQuantization(ModuleOp module, const CompileOptions &options) {
  CompileOptions calibrated = options;
  // static-int8's ranges, and fp8's with --calibration (static fp8).
  bool staticFp8 = options.quantize == Quantization::Fp8 &&
                   !options.calibration.directory.empty();
  if ((options.quantize == Quantization::StaticInt8 || staticFp8) &&
      options.inputRanges.empty()) {
    FailureOr<std::vector<ActivationRange>> ranges =
        calibrateInputRanges(module, options);
    if (failed(ranges))
      return failure();
    appendInputRanges(calibrated, *ranges);
    // Not for --emit=import, which would print the graph phase's form.
    // Smoothing is static int8's (fp8's e4m3 has the dynamic range).
    bool extremes = options.quantize == Quantization::StaticInt8 &&
                    (options.smoothingAlpha > 0 || options.chooseSmoothing);
    if ((options.calibration.biasCorrection || extremes) &&
        (!options.emit || *options.emit >= Phase::Graph) &&
        failed(attachInputStatistics(module, options, *ranges,
                                     options.calibration.biasCorrection,
                                     extremes)))
      return failure();
  }
  // Dynamic int8 and the weight-only modes with --calibration: the means,
  // for the bias correction, and dynamic int8's channel extremes for its
  // smoothing (the ranges' histograms are not needed: min-max).
  bool meansOnly = options.quantize == Quantization::DynamicInt8 ||
                   options.quantize == Quantization::WeightInt8 ||
                   options.quantize == Quantization::WeightInt4;
  bool dynamicExtremes =
      options.quantize == Quantization::DynamicInt8 &&
      (options.smoothingAlpha > 0 || options.chooseSmoothing);
  if (meansOnly && !options.calibration.directory.empty() &&
      (options.calibration.biasCorrection || dynamicExtremes) &&
      (!options.emit || *options.emit >= Phase::Graph)) {
    CompileOptions means = options;
    means.calibration.method = CalibrationMethod::MinMax;
    // Smoothed under a budget: the statistics from the even-numbered
    // samples, the budget measured on the odd-numbered ones. Measured on
    // the samples whose extremes set the factors, the error is the fitted
    // one: MiniLM calibrated on sixteen sentences measured 4.4e-2 there,
    // 5.5e-2 on held-out ones (docs/quantization.md).
    if (dynamicExtremes && options.maxError) {
      FailureOr<size_t> samples =
          countCalibrationSamples(options.calibration.directory);
      if (failed(samples))
        return failure();
      if (*samples >= 2) {
        means.calibration.fold = SampleFold::Even;
        calibrated.calibration.fold = SampleFold::Odd;
      }
    }
    FailureOr<std::vector<ActivationRange>> ranges =
        calibrateInputRanges(module, means);
    if (failed(ranges) ||
        failed(attachInputStatistics(module, options, *ranges,
                                     options.calibration.biasCorrection,
                                     dynamicExtremes)))
      return failure();
  }
  // Smoothing's alpha by measured error, before the budget keeps anything;
  // the measurements printed with --report or --max-error.
  if (calibrated.chooseSmoothing &&
      (calibrated.quantize == Quantization::StaticInt8 ||
       calibrated.quantize == Quantization::DynamicInt8) &&
      (!options.emit || *options.emit >= Phase::Quantize)) {
    FailureOr<double> alpha = chooseSmoothing(
        module, calibrated,
        (options.report && !options.reportJson) || options.maxError
            ? llvm::outs()
            : llvm::nulls());
    if (failed(alpha))
      return failure();
    calibrated.smoothingAlpha = *alpha;
    calibrated.chooseSmoothing = false;
  }
  return calibrated;
}

bool tsc::pruneByActivations(const CompileOptions &options) {
  if (options.calibration.directory.empty() ||
      (options.emit && *options.emit < Phase::Prune))
    return false;
  llvm::Expected<PruneSpecs> specs = parsePruneSpecs(options.prune);
  if (!specs) {
    llvm::consumeError(specs.takeError());
    return false;
  }
  return specs->heads > 0 || specs->ffn > 0;
}

LogicalResult tsc::attachInputNorms(ModuleOp module,
                                    const CompileOptions &options) {
  CompileOptions graphOnly = options;
  graphOnly.prune.clear();
  graphOnly.quantize = Quantization::None;
  if (failed(runTscPipeline(module, graphOnly, Phase::Graph)))
    return failure();
  OwningOpRef<ModuleOp> graph = module.clone();
  FailureOr<func::FuncOp> func = getOnlyFunction(*graph);
  if (failed(func))
    return failure();
  // The module and its copy walk alike: their GEMMs pair up in order.
  SmallVector<Operation *> gemms;
  module.walk([&](Operation *op) {
    if (prune::matchGemm(op))
      gemms.push_back(op);
  });
  SmallVector<Value> observed;
  DenseMap<Value, unsigned> outputOf;
  SmallVector<unsigned> gemmOutput;
  graph->walk([&](Operation *op) {
    if (std::optional<prune::Gemm> gemm = prune::matchGemm(op)) {
      auto [it, added] = outputOf.try_emplace(gemm->input, observed.size());
      if (added)
        observed.push_back(gemm->input);
      gemmOutput.push_back(it->second);
    }
  });
  if (observed.empty())
    return success();
  FailureOr<std::vector<std::vector<double>>> norms;
  if (failed(measureObserved(
          *graph, *func, observed, options,
          [&](ArtifactWriter write, ArrayRef<std::string> names) {
            norms = measureChannelNorms(write, names,
                                        options.calibration.directory);
            return failure(failed(norms));
          })))
    return failure();
  for (auto [op, output] : llvm::zip_equal(gemms, gemmOutput))
    op->setAttr(prune::kInputNormsAttr,
                DenseF64ArrayAttr::get(op->getContext(), (*norms)[output]));
  return success();
}
