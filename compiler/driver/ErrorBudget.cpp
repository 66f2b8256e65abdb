//===- ErrorBudget.cpp - `--max-error`: lossy options under a budget ------===//
//
// Quantization: each quantizable GEMM is measured quantized alone (every
// other GEMM float): its error then is its own contribution, not buried in
// the noise of the others as "all but one" would leave it (N GEMMs, N
// compiles either way). The GEMMs are kept float in the order of their
// errors, the number kept found by bisection on the whole model's
// measured error (about log2 N compiles more). Pruning: every spec's ratio
// is scaled by t = k/16, and the largest k within budget is found by
// bisection (4-5 compiles). Both searches assume the error grows with what
// is quantized or removed; the chosen configuration is measured itself, so
// its printed error is the artifact's.
//
//===----------------------------------------------------------------------===//

#include "compiler/driver/ErrorBudget.h"
#include "compiler/driver/CalibrateGraph.h"
#include "compiler/driver/Calibration.h"
#include "compiler/driver/MeasuredError.h"
#include "compiler/pipeline/Prune.h"
#include "dialects/tsc/IR/TscOps.h"
#include "passes/transforms/KeepFloat.h"
#include "passes/transforms/Smoothing.h"

#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <map>

using namespace mlir;
using namespace mlir::tsc;

namespace {

/// Steps of the pruning ratios' scale: t = k / kPruneSteps.
constexpr int kPruneSteps = 16;

/// `name` as a glob pattern that matches it alone.
std::string escapeGlob(StringRef name) {
  std::string out;
  for (char c : name) {
    if (StringRef("*?[]{}\\").contains(c))
      out += '\\';
    out += c;
  }
  return out;
}

/// Measures compiles of one model against its fp32 compile.
struct Measurer {
  ModuleOp imported;
  ErrorMeasurement measurement;
  unsigned compiles = 0;

  FailureOr<std::vector<OutputError>> measure(const CompileOptions &options,
                                              StringRef label) {
    ++compiles;
    return measurement.measure(
        [&](llvm::raw_pwrite_stream &os) {
          return writeHostArtifact(imported, options, os);
        },
        label);
  }
};

FailureOr<Measurer> startMeasuring(ModuleOp imported,
                                   const CompileOptions &options) {
  CompileOptions fp32 = options;
  fp32.quantize = Quantization::None;
  fp32.keepFloat.clear();
  fp32.inputRanges.clear();
  fp32.inputMinima.clear();
  fp32.prune.clear();
  fp32.precision = Precision::FP32;
  fp32.precisionIO = PrecisionIO::Model;
  auto reference = [&](llvm::raw_pwrite_stream &os) {
    return writeHostArtifact(imported, fp32, os);
  };
  // With --calibration the samples that ranked the groups measure the error.
  StringRef calibration = options.calibration.directory;
  FailureOr<ErrorMeasurement> measurement =
      calibration.empty()
          ? ErrorMeasurement::onRandomInputs(reference)
          : ErrorMeasurement::onSamples(
                reference, [&](tsc_model_t *model, std::vector<Sample> &samples,
                               std::string &description) {
                  return readCalibrationSamples(model, calibration, samples,
                                                description,
                                                options.calibration.fold);
                });
  if (failed(measurement))
    return failure();
  return Measurer{imported, std::move(*measurement), 1};
}

/// The names of the GEMMs `options`' quantize phase quantizes, in program
/// order, each once.
std::vector<std::string> getQuantizedGemms(ModuleOp imported,
                                           const CompileOptions &options) {
  OwningOpRef<ModuleOp> module = imported.clone();
  std::vector<std::string> names;
  PassManager pm(module->getContext());
  TscPipelineOptions pipeline;
  pipeline.until = Phase::Quantize;
  pipeline.quantize = options.quantize;
  pipeline.keepFloat = options.keepFloat;
  pipeline.keptPrecision = options.keptPrecision;
  pipeline.weightGroupSize = options.weightGroupSize;
  pipeline.weightZeroPoints = options.weightZeroPoints;
  pipeline.narrowInt8Weights = options.narrowInt8Weights;
  pipeline.inputRanges = options.inputRanges;
  pipeline.inputMinima = options.inputMinima;
  buildTscPipeline(pm, pipeline);
  if (failed(pm.run(*module)))
    return names;
  module->walk([&](LinearOp linear) {
    if (!linear.getWeight().getDefiningOp<DequantizeOp>())
      return;
    std::string name = getGemmName(linear);
    if (!llvm::is_contained(names, name))
      names.push_back(std::move(name));
  });
  return names;
}

void printLine(llvm::raw_ostream &os, StringRef what,
               ArrayRef<OutputError> errors) {
  os << "  " << what << ":";
  printErrors(errors, os);
  os << "\n";
}

FailureOr<CompileOptions> fitQuantization(Measurer &m, CompileOptions options,
                                          double budget,
                                          llvm::raw_ostream &os) {
  StringRef mode = getQuantizationName(options.quantize);
  FailureOr<std::vector<OutputError>> all = m.measure(options, mode);
  if (failed(all))
    return failure();
  bool int8 = options.quantize == Quantization::DynamicInt8 ||
              options.quantize == Quantization::StaticInt8;
  printLine(os,
            int8 ? std::string("every GEMM int8")
                 : "every GEMM quantized (" + mode.str() + ")",
            *all);
  if (getLargestError(*all) <= budget) {
    os << "  kept float: none\n";
    return options;
  }
  // Kept GEMMs in bf16 with --kept-precision=bf16 (auto's choice on AMX
  // and AVX512_BF16 CPUs): when
  // even all but one of them in bf16 exceed the budget, in f32 instead.
  bool bf16 = options.keptPrecision == "bf16";
  std::vector<std::string> gemms = getQuantizedGemms(m.imported, options);
  if (gemms.empty()) {
    llvm::errs() << "tsc: error: --max-error: no quantized GEMM found\n";
    return failure();
  }
  // Each GEMM quantized alone: its contribution.
  std::vector<std::pair<double, std::string>> ranked;
  os << "  per GEMM, quantized alone (the others float):\n";
  for (const std::string &gemm : gemms) {
    CompileOptions alone = options;
    alone.keptPrecision = "f32"; // its error alone, not the others' bf16
    for (const std::string &other : gemms)
      if (other != gemm)
        alone.keepFloat.push_back(escapeGlob(other));
    FailureOr<std::vector<OutputError>> errors = m.measure(alone, gemm);
    if (failed(errors))
      return failure();
    ranked.push_back({getLargestError(*errors), gemm});
    os << "    " << gemm << " " << llvm::format("%.1e", ranked.back().first)
       << "\n";
  }
  // Largest error first; equal errors in program order (std::sort with
  // the position as the tie-break: libstdc++'s stable_sort is deprecated
  // for clang-tidy).
  std::vector<size_t> order(ranked.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  llvm::sort(order, [&](size_t a, size_t b) {
    return ranked[a].first != ranked[b].first
               ? ranked[a].first > ranked[b].first
               : a < b;
  });
  std::vector<std::pair<double, std::string>> sorted;
  for (size_t i : order)
    sorted.push_back(std::move(ranked[i]));
  ranked = std::move(sorted);
  auto keeping = [&](size_t count) {
    CompileOptions kept = options;
    kept.keptPrecision = bf16 ? "bf16" : "f32";
    for (size_t i = 0; i < count; ++i)
      kept.keepFloat.push_back(escapeGlob(ranked[i].second));
    return kept;
  };
  // The fewest most-sensitive GEMMs kept float within the budget: 0 fails
  // (measured above), all of them is the fp32 model, which is no
  // quantization at all and is refused.
  std::map<size_t, std::vector<OutputError>> measured;
  auto search = [&]() -> FailureOr<size_t> {
    size_t lo = 1, hi = ranked.size();
    StringRef as = bf16 ? "bf16" : "float";
    while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      FailureOr<std::vector<OutputError>> errors = m.measure(
          keeping(mid), "keep " + std::to_string(mid) + " " + as.str());
      if (failed(errors))
        return failure();
      printLine(os, std::to_string(mid) + " most sensitive " + as.str(),
                *errors);
      if (getLargestError(*errors) <= budget) {
        hi = mid;
        measured[mid] = *errors;
      } else {
        lo = mid + 1;
      }
    }
    return hi;
  };
  FailureOr<size_t> found = search();
  if (succeeded(found) && *found == ranked.size() && bf16) {
    os << "  kept in bf16, all but one GEMM exceed the budget: kept in f32 "
          "instead\n";
    bf16 = false;
    found = search();
  }
  if (failed(found))
    return failure();
  size_t hi = *found;
  if (hi == ranked.size()) {
    llvm::errs() << "tsc: error: --max-error=" << llvm::format("%g", budget)
                 << ": only keeping every GEMM float (no quantization) "
                    "meets the budget; the least sensitive GEMM alone "
                    "costs "
                 << llvm::format("%.1e", ranked.back().first) << "\n";
    return failure();
  }
  CompileOptions fitted = keeping(hi);
  os << "  kept float (" << (bf16 ? "bf16, " : "") << hi << " of "
     << ranked.size() << " GEMMs, most sensitive first):";
  for (size_t i = 0; i < hi; ++i)
    os << (i ? ", " : " ") << ranked[i].second;
  os << "\n";
  printLine(os, "final error", measured[hi]);
  os << "  replay: --tsc-pipeline=\"quantize=" << mode;
  if (options.weightGroupSize)
    os << " weight-group-size=" << options.weightGroupSize;
  if (options.weightZeroPoints)
    os << " weight-zero-points=1";
  if (options.narrowInt8Weights)
    os << " narrow-int8-weights=1";
  os << " keep-float=";
  for (size_t i = 0; i < hi; ++i)
    os << (i ? "," : "") << fitted.keepFloat[options.keepFloat.size() + i];
  os << " kept-precision=" << fitted.keptPrecision;
  if (fitted.attentionProducts != "f32")
    os << " attention-products=" << fitted.attentionProducts;
  if (options.smoothingAlpha > 0)
    os << " smoothing-alpha=" << options.smoothingAlpha;
  // Static int8's calibrated ranges, one per GEMM op.
  for (auto [i, range] : llvm::enumerate(options.inputRanges))
    os << (i ? "," : " input-ranges=") << llvm::format("%.9g", range);
  for (auto [i, minimum] : llvm::enumerate(options.inputMinima))
    os << (i ? "," : " input-minima=") << llvm::format("%.9g", minimum);
  os << "\"\n";
  return fitted;
}

/// `specs` with every ratio scaled by `scale` (2:4 stays as it is).
std::vector<std::string> scaleSpecs(ArrayRef<std::string> specs, double scale) {
  std::vector<std::string> out;
  for (StringRef spec : specs) {
    auto [key, value] = spec.split('=');
    bool global = value.consume_back(":global");
    double ratio = 0;
    if (spec == "2:4" || value.getAsDouble(ratio)) {
      out.push_back(spec.str());
      continue;
    }
    std::string scaled;
    llvm::raw_string_ostream(scaled)
        << key << "=" << llvm::format("%.4g", ratio * scale)
        << (global ? ":global" : "");
    out.push_back(scaled);
  }
  return out;
}

std::string joinSpecs(ArrayRef<std::string> specs) {
  std::string out;
  for (const std::string &spec : specs)
    out += (out.empty() ? "" : ",") + spec;
  return out;
}

/// {output: error} as JSON.
llvm::json::Object toJson(ArrayRef<OutputError> errors) {
  llvm::json::Object out;
  for (const OutputError &e : errors)
    out[e.name] = e.error;
  return out;
}

FailureOr<CompileOptions> fitPruning(Measurer &m, CompileOptions options,
                                     double budget, llvm::raw_ostream &os) {
  // The largest k with the ratios scaled by k / kPruneSteps within budget.
  int lo = 0, hi = kPruneSteps;
  std::map<int, std::vector<OutputError>> measured;
  llvm::json::Array trials;
  while (lo < hi) {
    int mid = (lo + hi + 1) / 2;
    CompileOptions scaled = options;
    scaled.prune = scaleSpecs(options.prune, double(mid) / kPruneSteps);
    std::string label = joinSpecs(scaled.prune);
    FailureOr<std::vector<OutputError>> errors = m.measure(scaled, label);
    if (failed(errors))
      return failure();
    printLine(os, "--prune=" + label, *errors);
    trials.push_back(llvm::json::Object{{"prune", label},
                                        {"scale", double(mid) / kPruneSteps},
                                        {"error", toJson(*errors)},
                                        {"largest", getLargestError(*errors)}});
    if (getLargestError(*errors) <= budget) {
      lo = mid;
      measured[mid] = *errors;
    } else {
      hi = mid - 1;
    }
  }
  if (lo == 0) {
    llvm::errs() << "tsc: error: --max-error=" << llvm::format("%g", budget)
                 << ": --prune=" << joinSpecs(options.prune) << " scaled by "
                 << "1/" << kPruneSteps
                 << " already exceeds the budget: nothing to prune within "
                    "it\n";
    return failure();
  }
  std::string asked = joinSpecs(options.prune);
  options.prune = scaleSpecs(options.prune, double(lo) / kPruneSteps);
  options.errorBudget =
      llvm::json::Object{{"max_error", budget},
                         {"inputs", m.measurement.describeInputs().str()},
                         {"asked", asked},
                         {"chosen", joinSpecs(options.prune)},
                         {"scale", double(lo) / kPruneSteps},
                         {"trials", std::move(trials)},
                         {"final_error", toJson(measured[lo])}};
  os << "  chosen: --prune=" << joinSpecs(options.prune) << " (" << lo << "/"
     << kPruneSteps << " of the asked ratios)\n";
  printLine(os, "final error", measured[lo]);
  return options;
}

} // namespace

FailureOr<double> tsc::chooseSmoothing(ModuleOp imported,
                                       const CompileOptions &options,
                                       llvm::raw_ostream &os) {
  // Ranges calibrated on the samples that measure them fit those samples
  // exactly (min-max, for a smoothed input), so each candidate is
  // calibrated on the even-numbered samples and measured on the others:
  // on all-MiniLM-L6-v2 the samples' own error chose 0.8, which held-out
  // sentences rank worst (docs/quantization.md, "Smoothing").
  // No input with outlier channels (the extremes calibrated on every
  // sample): every alpha compiles what none does.
  if (!hasInputsToSmooth(imported)) {
    os << "smoothing: none (no GEMM input has a channel "
       << llvm::formatv("{0}", kMinOutlierRatio)
       << "x beyond its median channel's extremes)\n";
    return 0.0;
  }
  FailureOr<size_t> samples =
      countCalibrationSamples(options.calibration.directory);
  if (failed(samples))
    return failure();
  if (*samples < 2) {
    os << "smoothing: none (one calibration sample: none left to measure "
          "the candidates on)\n";
    return 0.0;
  }
  OwningOpRef<ModuleOp> half = imported.clone();
  CompileOptions calibrating = options;
  calibrating.calibration.fold = SampleFold::Even;
  // Every GEMM int8: the choice does not depend on what --keep-float (or
  // the budget after it) keeps, so that the budget's kept list replays.
  calibrating.keepFloat.clear();
  calibrating.inputRanges.clear();
  calibrating.inputMinima.clear();
  // Dynamic int8 takes the channel extremes and means alone, which the
  // first run over the samples measures: no histograms (a second run).
  if (options.quantize == Quantization::DynamicInt8)
    calibrating.calibration.method = CalibrationMethod::MinMax;
  FailureOr<std::vector<ActivationRange>> ranges =
      calibrateInputRanges(*half, calibrating);
  if (failed(ranges) ||
      failed(attachInputStatistics(*half, calibrating, *ranges,
                                   options.calibration.biasCorrection,
                                   /*extremes=*/true)))
    return failure();
  appendInputRanges(calibrating, *ranges);
  CompileOptions measuring = calibrating;
  measuring.calibration.fold = SampleFold::Odd;
  FailureOr<Measurer> m = startMeasuring(*half, measuring);
  if (failed(m))
    return failure();
  os << "smoothing ("
     << (options.quantize == Quantization::StaticInt8 ? "static" : "dynamic")
     << " int8, calibrated on the even-numbered samples; "
        "the largest relative L2 over the outputs, against this model in "
        "fp32, on "
     << m->measurement.describeInputs() << "):\n";
  std::vector<double> alphas{0.0};
  alphas.insert(alphas.end(), std::begin(kSmoothingCandidates),
                std::end(kSmoothingCandidates));
  double best = 0.0, bestError = INFINITY;
  for (double alpha : alphas) {
    CompileOptions trial = calibrating;
    trial.smoothingAlpha = alpha;
    trial.chooseSmoothing = false;
    std::string label =
        alpha > 0 ? llvm::formatv("alpha {0}", alpha).str() : "none";
    FailureOr<std::vector<OutputError>> errors = m->measure(trial, label);
    if (failed(errors))
      return failure();
    printLine(os, label, *errors);
    // Strictly less: none unless smoothing lowers the error.
    if (double error = getLargestError(*errors); error < bestError) {
      bestError = error;
      best = alpha;
    }
  }
  os << "  chosen: "
     << (best > 0 ? llvm::formatv("alpha {0}", best).str() : "none") << "\n";
  return best;
}

FailureOr<CompileOptions> tsc::fitErrorBudget(ModuleOp imported,
                                              const CompileOptions &options,
                                              llvm::raw_ostream &os) {
  double budget = *options.maxError;
  CompileOptions fitted = options;
  fitted.maxError.reset();
  bool quantizing = options.quantize != Quantization::None;
  llvm::Expected<PruneSpecs> specs = parsePruneSpecs(options.prune);
  if (!specs) {
    llvm::errs() << "tsc: error: " << llvm::toString(specs.takeError()) << "\n";
    return failure();
  }
  bool pruning = specs->heads > 0 || specs->ffn > 0 || specs->magnitude > 0;
  if (!quantizing && !pruning) {
    llvm::errs() << "tsc: error: --max-error needs --quantize or --prune "
                    "with a ratio (heads=, ffn=, magnitude=), or both\n";
    return failure();
  }
  FailureOr<Measurer> m = startMeasuring(imported, options);
  if (failed(m))
    return failure();
  os << "error budget " << llvm::format("%.1e", budget)
     << " (the largest relative L2 over the outputs, against this model in "
        "fp32, both on the host, on "
     << m->measurement.describeInputs() << "):\n";
  FailureOr<CompileOptions> result;
  if (quantizing && pruning) {
    // Both under one budget: the ratios first, within half of it (no
    // quantization), then the quantization of the pruned model within all
    // of it, whose final error (both together) is the one printed last.
    CompileOptions pruneOnly = fitted;
    pruneOnly.quantize = Quantization::None;
    pruneOnly.keepFloat.clear();
    os << "  pruning first, within half the budget ("
       << llvm::format("%.1e", budget / 2) << "), unquantized:\n";
    result = fitPruning(*m, pruneOnly, budget / 2, os);
    if (succeeded(result)) {
      result->quantize = fitted.quantize;
      result->weightGroupSize = fitted.weightGroupSize;
      result->weightZeroPoints = fitted.weightZeroPoints;
      result->narrowInt8Weights = fitted.narrowInt8Weights;
      result->keepFloat = fitted.keepFloat;
      os << "  then the quantization of the pruned model, within the "
            "budget:\n";
      result = fitQuantization(*m, *result, budget, os);
    }
  } else {
    result = quantizing ? fitQuantization(*m, fitted, budget, os)
                        : fitPruning(*m, fitted, budget, os);
  }
  if (succeeded(result))
    os << "  (" << m->compiles << " compiles measured)\n";
  return result;
}
