//===- DriverOptions.cpp - `tsc`'s flags into CompileOptions
//---------------===//

#include "compiler/driver/DriverOptions.h"
#include "compiler/pipeline/Prune.h"
#include "compiler/target/cuda/TargetInfo.h"
#include "compiler/target/host/HostCodegen.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tsc;

namespace {

/// The CUDA chips and the host as --target names them.
LogicalResult parseTargets(ArrayRef<std::string> names,
                           CompileOptions &options) {
  bool cpu = false;
  for (StringRef name : names) {
    if (name == "cpu") {
      cpu = true;
    } else if (name.consume_front("cuda:")) {
      if (!cuda::createTargetInfo(name)) {
        llvm::errs() << "tsc: error: --target=cuda:" << name
                     << ": unknown chip (known: " << cuda::getKnownChips()
                     << ")\n";
        return failure();
      }
      options.cudaChips.push_back(name.str());
    } else {
      llvm::errs() << "tsc: error: --target=" << name
                   << ": unsupported target (cpu or cuda:sm_XX)\n";
      return failure();
    }
  }
  if (cpu && !options.cudaChips.empty()) {
    llvm::errs() << "tsc: error: --target: give either cpu or cuda targets\n";
    return failure();
  }
  options.target =
      options.cudaChips.empty() ? TargetKind::Host : TargetKind::Cuda;
  return success();
}

/// `--FLAG=auto|f32|bf16` (`text`) into `result`: auto is bf16 where
/// `autoBf16`, else f32; bf16 is refused unless `bf16Allowed`, the error
/// saying what it `needs`. Failure after saying why.
LogicalResult resolveAutoBf16(StringRef flag, StringRef text, bool autoBf16,
                              bool bf16Allowed, StringRef needs,
                              std::string &result) {
  if (text == "auto") {
    result = autoBf16 ? "bf16" : "f32";
    return success();
  }
  if (text != "f32" && text != "bf16") {
    llvm::errs() << "tsc: error: --" << flag << "=" << text
                 << ": expected auto, f32 or bf16\n";
    return failure();
  }
  if (text == "bf16" && !bf16Allowed) {
    llvm::errs() << "tsc: error: --" << flag << "=bf16 needs " << needs << "\n";
    return failure();
  }
  result = text.str();
  return success();
}

/// Whether `options` quantize GEMMs to int8 (dynamic or static).
bool isInt8(const CompileOptions &options) {
  return options.quantize == Quantization::DynamicInt8 ||
         options.quantize == Quantization::StaticInt8;
}

/// Whether `options` target a host CPU with bf16 products (AVX512_BF16, or
/// AMX, which implies it).
bool hasBf16Products(const CompileOptions &options) {
  FailureOr<HostTarget> host = resolveHostTarget(options.hostCpu);
  return options.target == TargetKind::Host && succeeded(host) &&
         host->avx512bf16;
}

/// `--kept-precision=auto|f32|bf16` into `options.keptPrecision` (after
/// --quantize, --target and --cpu). auto: the bf16 GEMM steps run on the
/// host (the plan leaves CUDA's casts as kernels); a CPU without AMX or
/// AVX512_BF16 would compute them in f32 anyway. With AVX512_BF16 alone
/// (AMD Zen 4/5) a bf16 GEMM still takes about 0.56 of an f32 one; on
/// Intel without AMX more than an f32 one, so `native` there has no bf16
/// products (resolveHostTarget; docs/quantization.md).
LogicalResult resolveKeptPrecision(StringRef text, CompileOptions &options) {
  bool int8Host = isInt8(options) && options.target == TargetKind::Host;
  return resolveAutoBf16(
      "kept-precision", text, int8Host && hasBf16Products(options), int8Host,
      "--quantize=dynamic-int8 or static-int8 and a cpu target",
      options.keptPrecision);
}

/// `--attention-products=auto|f32|bf16` into `options.attentionProducts`
/// (after --quantize, --target and --cpu). auto: int8 GEMMs lose far more
/// than bf16 products (BERT-base static int8 1.7045e-2 with f32 products,
/// 1.7067e-2 with bf16 ones; docs/quantization.md), and without AMX the
/// products run twice as fast on AVX512_BF16.
LogicalResult resolveAttentionProducts(StringRef text,
                                       CompileOptions &options) {
  // --gpu-loop-mapping lowers attention as the CUDA target does (f32
  // tiles), whatever the host has.
  bool pairs = hasBf16Products(options) && !options.gpuLoopMapping;
  return resolveAutoBf16("attention-products", text, pairs && isInt8(options),
                         pairs,
                         "a cpu target with bf16 products: "
                         "--cpu=x86-64-v4+bf16, x86-64-v4+amx, or native on a "
                         "CPU with AMX, or an AMD one with AVX512_BF16 (and no "
                         "--gpu-loop-mapping)",
                         options.attentionProducts);
}

/// `--calibration-method=METHOD` into `calibration`; failure after saying
/// why.
LogicalResult parseCalibrationMethod(StringRef method,
                                     CalibrationOptions &calibration) {
  auto [name, value] = method.split('=');
  if (name == "min-max" && value.empty())
    calibration.method = CalibrationMethod::MinMax;
  else if (name == "entropy" && value.empty())
    calibration.method = CalibrationMethod::Entropy;
  else if (name == "percentile" &&
           (value.empty() ||
            (!value.getAsDouble(calibration.percentile) &&
             calibration.percentile > 0 && calibration.percentile <= 100)))
    calibration.method = CalibrationMethod::Percentile;
  else {
    llvm::errs() << "tsc: error: --calibration-method=" << method
                 << ": expected min-max, percentile[=P] (0 < P <= 100) or "
                    "entropy\n";
    return failure();
  }
  return success();
}

/// Whether `--quantize=fp8` has a target to run on: CUDA chips of sm_89 or
/// later (fp8 tensor cores, cuBLASLt's fp8 GEMMs), or the host's replica of
/// their code (--gpu-loop-mapping, for checking the numerics); failure
/// after saying why not.
LogicalResult checkFp8Target(const DriverOptions &flags,
                             const CompileOptions &options) {
  if (options.target != TargetKind::Cuda && !flags.gpuLoopMapping) {
    llvm::errs()
        << "tsc: error: --quantize=fp8 needs a CUDA target of sm_89 or "
           "later (e.g. --target=cuda:sm_90): the host CPU has no fp8 "
           "arithmetic (AVX512_FP16 and AMX-FP16 would convert through fp16, "
           "no faster than --quantize=dynamic-int8 or --precision=bf16 here); "
           "--gpu-loop-mapping runs the CUDA form on the host to check its "
           "numerics\n";
    return failure();
  }
  for (StringRef chip : options.cudaChips) {
    std::unique_ptr<cuda::TargetInfo> info = cuda::createTargetInfo(chip);
    if (!info || info->getComputeCapability() < 89) {
      llvm::errs() << "tsc: error: --quantize=fp8: " << chip
                   << " has no fp8 tensor cores (cuBLASLt's fp8 GEMMs need "
                      "sm_89 or later)\n";
      return failure();
    }
  }
  return success();
}

/// `--quantize=MODE` and its calibration flags into `options` (after the
/// target and the precision); failure after saying why a mode is refused.
LogicalResult parseQuantization(StringRef mode, const DriverOptions &flags,
                                CompileOptions &options) {
  // static-int8, and fp8 with --calibration (per-tensor activation scales,
  // symmetric: e4m3 has no zero point), take calibration samples.
  bool staticFp8 = mode == "fp8" && flags.calibration.getNumOccurrences();
  bool calibrated = mode == "static-int8" || staticFp8;
  for (const auto *flag : {&flags.calibrationMethod, &flags.calibrationRange})
    if (!calibrated && flag->getNumOccurrences()) {
      llvm::errs() << "tsc: error: --" << flag->ArgStr
                   << " goes with --quantize=static-int8 (or fp8 with "
                      "--calibration)\n";
      return failure();
    }
  // Bias correction needs the calibration's means: static-int8, and fp8,
  // dynamic-int8 and the weight-only modes with --calibration.
  bool meansCalibrated =
      (mode.starts_with("weight-int") || mode == "dynamic-int8") &&
      flags.calibration.getNumOccurrences();
  if (flags.biasCorrection.getNumOccurrences() && !calibrated &&
      !meansCalibrated) {
    llvm::errs() << "tsc: error: --bias-correction goes with "
                    "--quantize=static-int8, or fp8, dynamic-int8 or "
                    "weight-int8/int4 with --calibration\n";
    return failure();
  }
  if (flags.biasCorrection != "on" && flags.biasCorrection != "off") {
    llvm::errs() << "tsc: error: --bias-correction=" << flags.biasCorrection
                 << ": expected on or off\n";
    return failure();
  }
  options.calibration.biasCorrection = flags.biasCorrection == "on";
  if (flags.narrowInt8Weights && mode != "dynamic-int8" &&
      mode != "static-int8") {
    llvm::errs() << "tsc: error: --narrow-int8-weights goes with "
                    "--quantize=dynamic-int8 or static-int8\n";
    return failure();
  }
  options.narrowInt8Weights = flags.narrowInt8Weights;
  // Smoothing needs the calibrated extremes of each channel: static-int8,
  // and dynamic-int8 with --calibration.
  bool dynamicCalibrated =
      mode == "dynamic-int8" && flags.calibration.getNumOccurrences();
  if (flags.smoothing.getNumOccurrences() && mode != "static-int8" &&
      !dynamicCalibrated) {
    llvm::errs() << "tsc: error: --smoothing goes with "
                    "--quantize=static-int8, or dynamic-int8 with "
                    "--calibration\n";
    return failure();
  }
  double alpha = 0;
  if (flags.smoothing != "auto" && flags.smoothing != "off" &&
      (StringRef(flags.smoothing).getAsDouble(alpha) ||
       !(alpha > 0 && alpha < 1))) {
    llvm::errs() << "tsc: error: --smoothing=" << flags.smoothing
                 << ": expected auto, off or an alpha in (0, 1)\n";
    return failure();
  }
  options.smoothingAlpha = alpha;
  options.chooseSmoothing =
      (mode == "static-int8" || dynamicCalibrated) && flags.smoothing == "auto";
  if (staticFp8 && flags.calibrationRange.getNumOccurrences() &&
      flags.calibrationRange != "symmetric") {
    llvm::errs() << "tsc: error: --quantize=fp8 --calibration-range="
                 << flags.calibrationRange
                 << ": fp8 activations are symmetric (e4m3 has no zero point); "
                    "give symmetric or leave it out\n";
    return failure();
  }
  if (mode == "none")
    return success();
  bool fp8 = mode == "fp8";
  if (fp8 && failed(checkFp8Target(flags, options)))
    return failure();
  // weight-int8 / weight-int4 [:group=G] [:zero-points]: G weights per
  // scale along K, or `channel` (weight-int8's default); weight-int4
  // defaults to 128. zero-points: asymmetric codes.
  auto [base, rest] = mode.split(':');
  bool weightOnly = base == "weight-int8" || base == "weight-int4";
  int64_t groupSize = base == "weight-int4" ? 128 : 0;
  bool zeroPoints = false, grouped = false;
  while (weightOnly && !rest.empty()) {
    auto [part, tail] = rest.split(':');
    rest = tail;
    StringRef value = part;
    if (part == "zero-points" && !zeroPoints) {
      zeroPoints = true;
      continue;
    }
    if (grouped || !value.consume_front("group=") ||
        (value != "channel" &&
         (value.getAsInteger(10, groupSize) || groupSize < 8 ||
          groupSize > 4096 || (groupSize & (groupSize - 1))))) {
      llvm::errs() << "tsc: error: --quantize=" << mode << ": expected " << base
                   << "[:group=G][:zero-points] with G a power of two from 8 "
                      "to 4096 (32, 64, 128 are usual) or `channel`\n";
      return failure();
    }
    grouped = true;
    if (value == "channel")
      groupSize = 0;
  }
  if (!weightOnly && mode != "dynamic-int8" && !calibrated && !fp8) {
    llvm::errs() << "tsc: error: --quantize=" << mode
                 << ": expected none, dynamic-int8, static-int8, "
                    "weight-int8[:group=G][:zero-points], "
                    "weight-int4[:group=G][:zero-points] or fp8\n";
    return failure();
  }
  if (options.precision != Precision::FP32) {
    llvm::errs() << "tsc: error: --quantize=" << mode
                 << " with --precision=" << getPrecisionName(options.precision)
                 << ": quantization keeps fp32 around the quantized GEMMs; "
                    "combine it with --precision=fp32 only\n";
    return failure();
  }
  if (calibrated && flags.calibration.empty()) {
    llvm::errs() << "tsc: error: --quantize=static-int8 needs --calibration "
                    "DIR (one folder of NAME.npy inputs per sample)\n";
    return failure();
  }
  if (calibrated && failed(parseCalibrationMethod(flags.calibrationMethod,
                                                  options.calibration)))
    return failure();
  if (flags.calibrationRange != "asymmetric" &&
      flags.calibrationRange != "symmetric") {
    llvm::errs() << "tsc: error: --calibration-range=" << flags.calibrationRange
                 << ": expected asymmetric or symmetric\n";
    return failure();
  }
  options.calibration.asymmetric =
      !staticFp8 && flags.calibrationRange == "asymmetric";
  options.weightGroupSize = groupSize;
  options.weightZeroPoints = zeroPoints;
  options.quantize = weightOnly
                         ? (base == "weight-int8" ? Quantization::WeightInt8
                                                  : Quantization::WeightInt4)
                     : fp8        ? Quantization::Fp8
                     : calibrated ? Quantization::StaticInt8
                                  : Quantization::DynamicInt8;
  return success();
}

} // namespace

FailureOr<CompileOptions>
mlir::tsc::getCompileOptions(const DriverOptions &flags) {
  CompileOptions options;
  if (flags.emit.getNumOccurrences() > 0) {
    Emit emit = flags.emit.getValue();
    static constexpr Phase kPhases[] = {
        Phase::Import, Phase::Graph, Phase::Prune, Phase::Quantize,
        Phase::Fuse,   Phase::Lower, Phase::Ptx};
    if (emit == Emit::Dot)
      options.emitDot = true;
    else
      options.emit = kPhases[static_cast<int>(emit)];
  }
  options.output = flags.output;
  if (failed(parseTargets(flags.targets, options)))
    return failure();
  if (options.emit == Phase::Ptx && options.target != TargetKind::Cuda) {
    llvm::errs() << "tsc: error: --emit=ptx needs a CUDA target "
                    "(--target=cuda:sm_90)\n";
    return failure();
  }
  if (options.emit == Phase::Ptx && options.output == "-") {
    llvm::errs() << "tsc: error: --emit=ptx writes files: give -o DIR\n";
    return failure();
  }
  std::optional<Precision> precision =
      llvm::StringSwitch<std::optional<Precision>>(flags.precision)
          .Case("fp32", Precision::FP32)
          .Case("tf32", Precision::TF32)
          .Case("fp16", Precision::FP16)
          .Case("bf16", Precision::BF16)
          .Default(std::nullopt);
  if (!precision) {
    llvm::errs() << "tsc: error: --precision=" << flags.precision
                 << ": expected fp32, tf32, fp16 or bf16\n";
    return failure();
  }
  options.precision = *precision;
  if (flags.precisionIO != "model" &&
      (flags.precisionIO != "storage" || !isHalfPrecision(*precision))) {
    llvm::errs() << "tsc: error: --precision-io=" << flags.precisionIO
                 << (flags.precisionIO == "storage"
                         ? ": needs --precision=fp16 or bf16"
                         : ": expected model or storage")
                 << "\n";
    return failure();
  }
  if (flags.precisionIO == "storage")
    options.precisionIO = PrecisionIO::Storage;
  if (failed(parseQuantization(flags.quantize, flags, options)))
    return failure();
  bool report = flags.report != ReportFormat::None;
  if (!options.emit && !options.emitDot && !report && options.output == "-") {
    llvm::errs() << "tsc: error: give -o FILE.tscm to write an artifact, "
                    "--emit=PHASE to print IR, or --report\n";
    return failure();
  }
  options.hostCpu = flags.cpu;
  options.gpuLoopMapping = flags.gpuLoopMapping;
  options.fuse = !flags.noFuse;
  options.useGemmLibrary = !flags.generatedGemms;
  options.report = report;
  options.reportJson = flags.report == ReportFormat::Json;
  options.printWeights = flags.printWeights;
  llvm::Expected<PruneSpecs> specs = parsePruneSpecs(flags.prune);
  if (!specs) {
    llvm::errs() << "tsc: error: " << llvm::toString(specs.takeError()) << "\n";
    return failure();
  }
  // Calibration samples: static-int8's ranges, or the structured prune
  // passes' activation-aware importance.
  if (flags.calibration.getNumOccurrences() &&
      options.quantize != Quantization::StaticInt8 &&
      options.quantize != Quantization::Fp8 &&
      options.quantize != Quantization::DynamicInt8 &&
      options.quantize != Quantization::WeightInt8 &&
      options.quantize != Quantization::WeightInt4 && !(specs->heads > 0) &&
      !(specs->ffn > 0)) {
    llvm::errs() << "tsc: error: --calibration goes with --quantize (static "
                    "ranges, bias correction) or --prune=heads=R / ffn=R\n";
    return failure();
  }
  if (flags.calibration.getNumOccurrences() && flags.calibration.empty()) {
    llvm::errs() << "tsc: error: --calibration needs a folder (one folder "
                    "of NAME.npy inputs per sample)\n";
    return failure();
  }
  options.calibration.directory = flags.calibration;
  options.prune.assign(flags.prune.begin(), flags.prune.end());
  options.pruneReport = flags.pruneReport;
  options.keepFloat.assign(flags.keepFloat.begin(), flags.keepFloat.end());
  if (!options.keepFloat.empty() && options.quantize == Quantization::None) {
    llvm::errs() << "tsc: error: --keep-float names GEMMs to leave float: it "
                    "needs --quantize\n";
    return failure();
  }
  if (failed(resolveKeptPrecision(flags.keptPrecision.getValue(), options)) ||
      failed(resolveAttentionProducts(flags.attentionProducts.getValue(),
                                      options)))
    return failure();
  if (!flags.maxError.empty()) {
    double budget = 0;
    if (StringRef(flags.maxError).getAsDouble(budget) || !(budget > 0)) {
      llvm::errs() << "tsc: error: --max-error=" << flags.maxError
                   << ": expected a relative L2 error E > 0 (e.g. 1e-2)\n";
      return failure();
    }
    options.maxError = budget;
  }
  options.progressAfter = flags.progressAfter;
  return options;
}
