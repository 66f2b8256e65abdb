//===- DriverOptions.h - the `tsc` command line's options -------*- C++ -*-===//
//
// The flags of `tsc` (llvm::cl options of one DriverOptions, constructed once
// per run) and their translation into typed CompileOptions: every flag is
// parsed and checked here, and nothing past this point compares strings.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_COMPILER_DRIVER_DRIVEROPTIONS_H
#define TSC_COMPILER_DRIVER_DRIVEROPTIONS_H

#include "compiler/driver/Compile.h"

#include "llvm/Support/CommandLine.h"

#include <string>

namespace mlir::tsc {

/// What --emit prints: the IR after a phase (the Phase of the same name),
/// or the plan as a Graphviz graph.
enum class Emit { Import, Graph, Prune, Quantize, Fuse, Lower, Ptx, Dot };

/// `--report` (text), `--report=json`, or no report.
enum class ReportFormat { None, Text, Json };

/// The options of `tsc`, constructed once per run of the driver.
struct DriverOptions {
  llvm::cl::OptionCategory category{"tsc options"};
  llvm::cl::opt<std::string> input{
      llvm::cl::Positional, llvm::cl::Required,
      llvm::cl::desc(
          "<model: .onnx, .onnxtxt (textual ONNX), .pt2 (torch.export "
          "archive), .pt/.pth (TorchScript archive) or .mlir>"),
      llvm::cl::cat(category)};
  llvm::cl::opt<std::string> output{
      "o", llvm::cl::desc("Output file ('-' for stdout)"),
      llvm::cl::value_desc("file"), llvm::cl::init("-"),
      llvm::cl::cat(category)};
  llvm::cl::opt<Emit> emit{
      "emit",
      llvm::cl::desc(
          "Print the IR after this phase instead of writing an artifact"),
      llvm::cl::values(
          clEnumValN(Emit::Import, "import", "as imported"),
          clEnumValN(Emit::Graph, "graph",
                     "canonical tsc graph with bound symbolic dims"),
          clEnumValN(Emit::Prune, "prune",
                     "after --prune: heads and neurons removed, "
                     "weights sparsified"),
          clEnumValN(Emit::Quantize, "quantize",
                     "GEMMs quantized as --quantize says"),
          clEnumValN(Emit::Fuse, "fuse",
                     "norms and activations recognised as single ops"),
          clEnumValN(Emit::Lower, "lower",
                     "the plan's kernels in linalg on tensors"),
          clEnumValN(Emit::Ptx, "ptx",
                     "CUDA targets: one .ptx and .cubin per kernel "
                     "launch, written to -o DIR/<chip>/"),
          clEnumValN(Emit::Dot, "dot",
                     "the plan as a Graphviz graph: one node per kernel or "
                     "library call, coloured by precision")),
      llvm::cl::cat(category)};
  llvm::cl::list<std::string> targets{
      "target",
      llvm::cl::desc("Code generation target: cpu (default), or cuda:sm_80, "
                     "cuda:sm_90, ... (several may be given, comma-separated)"),
      llvm::cl::CommaSeparated, llvm::cl::cat(category)};
  llvm::cl::opt<std::string> cpu{
      "cpu",
      llvm::cl::desc(
          "x86-64 level of host kernels: x86-64-v3 (default: AVX2 and "
          "FMA, which runs on any x86-64 CPU since 2015), x86-64, "
          "x86-64-v4 (AVX-512), x86-64-v4+bf16 (AVX-512 and AVX512_BF16: "
          "bf16 attention's products as vdpbf16ps), x86-64-v4+amx (AVX-512 "
          "and AMX: bf16 attention's products on AMX tiles) or native (the "
          "best this machine runs)"),
      llvm::cl::init("x86-64-v3"), llvm::cl::cat(category)};
  llvm::cl::opt<bool> narrowInt8Weights{
      "narrow-int8-weights",
      llvm::cl::desc(
          "dynamic-int8 and static-int8: weight codes in [-64, 64] (7 "
          "bits, twice the rounding) rather than [-127, 127], so that a CPU "
          "without VNNI (AVX2) multiplies them with its u8 x s8 kernels, "
          "exactly and faster than the f32 products full-range codes take "
          "there (docs/quantization.md, \"7-bit weights\")"),
      llvm::cl::init(false), llvm::cl::cat(category)};
  llvm::cl::opt<bool> generatedGemms{
      "generated-gemms",
      llvm::cl::desc(
          "Generate fp32 matmul/linear kernels instead of calling the "
          "GEMM library (for comparison)"),
      llvm::cl::init(false), llvm::cl::cat(category)};
  llvm::cl::opt<std::string> precision{
      "precision",
      llvm::cl::desc(
          "Storage and compute precision: fp32 (default, TF32 off), "
          "tf32 (GEMMs may round their inputs to TF32; CUDA only, the "
          "CPU computes fp32), fp16 or bf16 (weights and activations "
          "stored in half precision, computed and accumulated in fp32; "
          "the model's inputs and outputs keep their types)"),
      llvm::cl::init("fp32"), llvm::cl::cat(category)};
  llvm::cl::opt<std::string> precisionIO{
      "precision-io",
      llvm::cl::desc(
          "With --precision=fp16|bf16: model (default: float inputs "
          "and outputs keep the model's types, converted at the edges) "
          "or storage (they are fp16/bf16 too, for callers holding "
          "half-precision tensors)"),
      llvm::cl::init("model"), llvm::cl::cat(category)};
  llvm::cl::opt<std::string> quantize{
      "quantize",
      llvm::cl::desc(
          "Quantization (docs/quantization.md): none (default), "
          "dynamic-int8 (GEMMs by constant weights in int8: weights per "
          "output channel at compile time, activations per row at run "
          "time), static-int8 (activations per tensor by scales "
          "calibrated on --calibration), weight-int8[:group=G] or "
          "weight-int4[:group=G] (weights only, a scale per output channel "
          "or per G weights along K; int4's default G is 128; "
          ":zero-points adds a zero point per scale), fp8 (e4m3 weights per "
          "output channel and activations per row, or per tensor with "
          "--calibration; CUDA sm_89 and later only); fp32 precision"),
      llvm::cl::init("none"), llvm::cl::cat(category)};
  llvm::cl::opt<std::string> calibration{
      "calibration",
      llvm::cl::desc(
          "--quantize=static-int8 or fp8 (activation ranges), any other "
          "--quantize mode (bias correction), or --prune=heads=R / ffn=R "
          "(activation-aware importance): a folder with one folder per "
          "sample, each holding NAME.npy for every model input"),
      llvm::cl::value_desc("DIR"), llvm::cl::cat(category)};
  llvm::cl::opt<std::string> calibrationMethod{
      "calibration-method",
      llvm::cl::desc("How calibration picks each activation range: min-max, "
                     "percentile[=P] (default, P = 99.999) or entropy (KL, as "
                     "TensorRT's calibrator)"),
      llvm::cl::init("percentile"), llvm::cl::cat(category)};
  llvm::cl::opt<std::string> calibrationRange{
      "calibration-range",
      llvm::cl::desc("static-int8: asymmetric (default: each activation's "
                     "[min, max], a zero point per tensor) or symmetric "
                     "([-max|x|, max|x|], no zero point)"),
      llvm::cl::init("asymmetric"), llvm::cl::cat(category)};
  llvm::cl::opt<std::string> biasCorrection{
      "bias-correction",
      llvm::cl::desc(
          "static-int8, and fp8, dynamic-int8 or weight-int8/int4 with "
          "--calibration: on (default: each quantized GEMM's bias "
          "corrected by what its weight's rounding takes from "
          "the product at the calibrated mean input) or off"),
      llvm::cl::init("on"), llvm::cl::cat(category)};
  llvm::cl::opt<std::string> smoothing{
      "smoothing",
      llvm::cl::desc(
          "static-int8, and dynamic-int8 with --calibration: auto (default: "
          "the alpha of least measured error on "
          "half the calibration samples, calibrated on the other half, among "
          "none, 0.5, 0.6 and 0.7), off, or an "
          "alpha in (0, 1): each GEMM input's outlier channels divided by "
          "max|x|^alpha / max|W|^(1 - alpha) and the weight multiplied by "
          "it (SmoothQuant; docs/quantization.md)"),
      llvm::cl::init("auto"), llvm::cl::cat(category)};
  llvm::cl::opt<bool> noFuse{
      "no-fuse",
      llvm::cl::desc(
          "No fusion: skip the fuse phase's passes (attention, norms, "
          "activations, GEMM epilogues and merging) and plan one kernel "
          "per op (for comparison)"),
      llvm::cl::init(false), llvm::cl::cat(category)};
  llvm::cl::opt<ReportFormat> report{
      "report",
      llvm::cl::desc(
          "Print the plan: kernels and library calls per layer, "
          "estimated memory traffic with fusion on and off, arena and "
          "weights (--report=json: the same as one JSON object)"),
      llvm::cl::ValueOptional,
      llvm::cl::values(
          clEnumValN(ReportFormat::Text, "", "text (the default)"),
          clEnumValN(ReportFormat::Text, "text", "text"),
          clEnumValN(ReportFormat::Json, "json", "one JSON object")),
      llvm::cl::init(ReportFormat::None),
      llvm::cl::cat(category)};
  llvm::cl::list<std::string> dims{
      "dim", llvm::cl::desc("Range of a symbolic dim, e.g. --dim seq=1..512"),
      llvm::cl::value_desc("NAME=MIN..MAX"), llvm::cl::cat(category)};
  llvm::cl::opt<bool> gpuLoopMapping{
      "gpu-loop-mapping",
      llvm::cl::desc(
          "Host kernels with the CUDA target's loop mapping (tiles of "
          "256, bounds guards, one-iteration launches): checks that "
          "mapping's numerics on the CPU"),
      llvm::cl::init(false), llvm::cl::Hidden, llvm::cl::cat(category)};
  llvm::cl::list<std::string> inputs{
      "input",
      llvm::cl::desc(
          "Element type and dims of an input of a TorchScript model's "
          "forward, e.g. --input input_ids=i64[batch,seq] (named dims "
          "are symbols; ranges from --dim)"),
      llvm::cl::value_desc("NAME=TYPE[DIMS]"), llvm::cl::cat(category)};
  llvm::cl::opt<std::string> signKey{
      "sign-key",
      llvm::cl::desc("Sign the artifact with this Ed25519 private key (PEM): "
                     "writes OUT.tscm.sig, which the runtime verifies when the "
                     "product gives it the public key"),
      llvm::cl::value_desc("KEY.pem"), llvm::cl::cat(category)};
  llvm::cl::opt<bool> allowExternalDataOutside{
      "allow-external-data-outside",
      llvm::cl::desc("Let an ONNX model's external data lie outside its folder "
                     "(absolute paths, '..', symbolic links): only for trusted "
                     "models"),
      llvm::cl::init(false), llvm::cl::cat(category)};
  llvm::cl::opt<bool> printPlanCount{
      "print-plan-count",
      llvm::cl::desc("Print on stderr how many plans the compile built"),
      llvm::cl::init(false), llvm::cl::Hidden, llvm::cl::cat(category)};
  llvm::cl::list<std::string> prune{
      "prune",
      llvm::cl::desc(
          "Prune: heads=R (attention heads), ffn=R (FFN neurons), each "
          "per layer or with :global over all layers, magnitude=R "
          "(global L1 over the linear weights), 2:4 (semi-structured); "
          "comma-separated, R in [0, 1) (docs/pruning.md)"),
      llvm::cl::value_desc("SPEC[,SPEC...]"), llvm::cl::CommaSeparated,
      llvm::cl::cat(category)};
  llvm::cl::opt<std::string> maxError{
      "max-error",
      llvm::cl::desc(
          "Error budget for --quantize or --prune: the largest relative "
          "L2 of an output against the model in fp32, measured on the "
          "host; GEMMs are kept float, or the pruning ratios scaled "
          "down, until it holds (docs/quantization.md, docs/pruning.md)"),
      llvm::cl::value_desc("E"), llvm::cl::init(""), llvm::cl::cat(category)};
  llvm::cl::list<std::string> keepFloat{
      "keep-float",
      llvm::cl::desc(
          "With --quantize: GEMMs left float, glob patterns over their "
          "names (the source nodes'), as --max-error prints them"),
      llvm::cl::value_desc("PATTERN[,PATTERN...]"), llvm::cl::CommaSeparated,
      llvm::cl::cat(category)};
  llvm::cl::opt<std::string> keptPrecision{
      "kept-precision",
      llvm::cl::desc(
          "With --quantize=dynamic-int8|static-int8: what the GEMMs kept out "
          "of int8 (--keep-float, --max-error) compute in: f32, bf16 "
          "(operands rounded to bf16, f32 accumulation: AMX or AVX512_BF16 "
          "on the host) or auto (default: bf16 when --cpu has AMX or "
          "AVX512_BF16, x86-64-v4+bf16, x86-64-v4+amx or native on such a "
          "CPU, else f32)"),
      llvm::cl::init("auto"), llvm::cl::cat(category)};
  llvm::cl::opt<std::string> attentionProducts{
      "attention-products",
      llvm::cl::desc(
          "What f32 attention's two products (Q.K^T, P.V) round their "
          "operands to: f32, bf16 (Q, K, V and the probabilities rounded "
          "to bf16, f32 accumulation; scores, softmax and output f32; a "
          "cpu target with AVX512_BF16 or AMX) or auto (default: bf16 with "
          "--quantize=dynamic-int8|static-int8 on such a target, else f32)"),
      llvm::cl::init("auto"), llvm::cl::cat(category)};
  llvm::cl::opt<std::string> pruneReport{
      "prune-report",
      llvm::cl::desc(
          "Write what the prune phase removed (weights, indices, "
          "parameters and FLOPs per layer) and found already pruned as "
          "JSON"),
      llvm::cl::value_desc("file"), llvm::cl::init(""),
      llvm::cl::cat(category)};
  llvm::cl::opt<bool> timePhases{
      "time-phases",
      llvm::cl::desc(
          "Print the wall time of each phase (import, the pipeline's "
          "passes, plan, report, lower, codegen, write) on stderr, as "
          "MLIR's --mlir-timing does"),
      llvm::cl::init(false), llvm::cl::cat(category)};
  llvm::cl::opt<double> progressAfter{
      "progress-after",
      llvm::cl::desc(
          "Print a progress line on stderr at each phase once the "
          "compile has taken this many seconds (default 3; negative: "
          "never)"),
      llvm::cl::init(3.0), llvm::cl::Hidden, llvm::cl::cat(category)};
  llvm::cl::opt<bool> printWeights{
      "print-weights",
      llvm::cl::desc("Print weight blobs in full instead of eliding them"),
      llvm::cl::init(false), llvm::cl::cat(category)};
};

/// The compile options `flags` ask for; failure after printing why a flag or
/// a combination of flags is refused.
FailureOr<CompileOptions> getCompileOptions(const DriverOptions &flags);

} // namespace mlir::tsc

#endif // TSC_COMPILER_DRIVER_DRIVEROPTIONS_H
