//===- Compile.h - a model compiled as typed options say --------*- C++ -*-===//
//
// The one compile path: `tsc` turns its flags into CompileOptions and calls
// compile(); the report's baselines are the same compile with other options
// (fusion off, fp32). The passes come from buildTscPipeline alone, so
// `tsc-opt --tsc-pipeline` replays what `tsc` runs.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_COMPILER_DRIVER_COMPILE_H
#define TSC_COMPILER_DRIVER_COMPILE_H

#include "compiler/driver/Calibration.h"
#include "compiler/pipeline/Pipeline.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::tsc {

/// What the generated code runs on.
enum class TargetKind {
  /// This kind of CPU (x86-64): a host shared object in the artifact.
  Host,
  /// NVIDIA GPUs: PTX and SASS per chip.
  Cuda,
};

struct CompileOptions {
  /// Print the IR after this phase (import, graph, fuse, lower), or write
  /// one PTX module per launch (ptx), instead of writing an artifact.
  std::optional<Phase> emit;
  /// `--emit=dot`: print the plan as a Graphviz graph to `output` instead
  /// of writing an artifact.
  bool emitDot = false;
  /// The artifact, the printed IR (`-`: stdout) or, for ptx, a directory.
  /// Without `emit`, `-` writes nothing (a run for the report alone).
  std::string output = "-";
  TargetKind target = TargetKind::Host;
  /// Host: the x86-64 level of the kernels (resolveHostTarget's names).
  std::string hostCpu = "x86-64-v3";
  /// Host: the kernels take the CUDA target's loop mapping (a check of its
  /// numerics without a GPU).
  bool gpuLoopMapping = false;
  /// Cuda: the chips, in order ("sm_80", "sm_90", ...).
  std::vector<std::string> cudaChips;
  Precision precision = Precision::FP32;
  /// The quantize phase's mode (docs/quantization.md).
  Quantization quantize = Quantization::None;
  /// weight-int8/int4: weights per scale along K (0: per output channel).
  int64_t weightGroupSize = 0;
  /// weight-int8/int4: asymmetric codes, a zero point per scale.
  bool weightZeroPoints = false;
  /// dynamic-int8/static-int8: weight codes in [-64, 64] (7 bits), which
  /// the runtime multiplies with u8 x s8 kernels exactly on a CPU without
  /// VNNI.
  bool narrowInt8Weights = false;
  /// --quantize=static-int8: the samples and observer of calibration.
  CalibrationOptions calibration;
  /// --quantize=static-int8: each GEMM op's calibrated input range, in
  /// program order (calibrateInputRanges), set by compile() before any
  /// pipeline runs; empty: not calibrated yet.
  std::vector<float> inputRanges;
  /// With asymmetric activations (calibration.asymmetric): each GEMM op's
  /// calibrated minimum, inputRanges then holding the maxima; else empty.
  std::vector<float> inputMinima;
  /// --quantize=static-int8 (dynamic-int8 with --calibration): smoothing's
  /// alpha in (0, 1), 0 none
  /// (docs/quantization.md, "Smoothing"); with `chooseSmoothing`, compile()
  /// sets it to the candidate of least measured error before the compile.
  double smoothingAlpha = 0.0;
  bool chooseSmoothing = false;
  PrecisionIO precisionIO = PrecisionIO::Model;
  /// The fuse phase's passes and fused kernels (off: one kernel per op).
  bool fuse = true;
  /// matmul/linear to the GEMM library where the layout fits (off:
  /// generated kernels).
  bool useGemmLibrary = true;
  /// Print the plan report on stdout: kernels, traffic against the plan
  /// without fusion, and with fp16/bf16 the measured error against fp32.
  bool report = false;
  /// `--report=json`: the report as one JSON object instead of text.
  bool reportJson = false;
  /// Printed IR: weight blobs in full rather than elided.
  bool printWeights = false;
  /// Quantize phase: GEMMs left float, as glob patterns over their
  /// location names (passes/transforms/KeepFloat.h).
  std::vector<std::string> keepFloat;
  /// What those GEMMs compute in: "f32", or "bf16" (the quantize passes'
  /// kept-precision; --kept-precision, resolved).
  std::string keptPrecision = "f32";
  /// What f32 attention's products round to: "f32", or "bf16"
  /// (--attention-products, resolved; tsc-attention-bf16-products).
  std::string attentionProducts = "f32";
  /// `--max-error=E`: the quantization's kept-float GEMMs or the pruning's
  /// ratios chosen so that the measured error is at most E
  /// (ErrorBudget.h); none: compiled as asked.
  std::optional<double> maxError;
  /// What the --max-error search tried and chose, for the prune report's
  /// JSON (`error_budget`); set by fitErrorBudget.
  std::optional<llvm::json::Object> errorBudget;
  /// `--prune` specs, as parsePruneSpecs accepts them.
  std::vector<std::string> prune;
  /// `--prune-report`: a JSON file of what the prune phase removed and
  /// found already pruned (docs/pruning.md); empty: none.
  std::string pruneReport;
  /// A progress line on stderr at each phase once the compile has taken
  /// this many seconds (negative: never).
  double progressAfter = 3.0;
};

/// Compiles `module` (as imported, symbol ranges set) as `options` say; the
/// module is changed. Failure once the reason has been reported (MLIR
/// diagnostics, or `tsc: error:` lines on stderr).
/// With `timing` (--time-phases), each phase is timed under it and the
/// pipeline's passes under their phase; `summary`, when given, is filled
/// once the plan is built.
/// What a compile that planned says about its plan (for the driver's
/// messages).
struct CompileSummary {
  /// The activation arena at the symbols' maxima, and the weights, in bytes.
  uint64_t arenaBytes = 0, weightBytes = 0;
  /// The plan's steps: generated kernels, GEMM library calls, copies.
  unsigned kernels = 0, gemmCalls = 0, copies = 0;
};

LogicalResult compile(ModuleOp module, const CompileOptions &options,
                      TimingScope *timing = nullptr,
                      CompileSummary *summary = nullptr);

/// Writes the artifact of `imported` (not changed: a clone is compiled)
/// for this machine's CPU as `options` say, whatever their target: what
/// an error measurement runs.
LogicalResult writeHostArtifact(ModuleOp imported,
                                const CompileOptions &options,
                                llvm::raw_pwrite_stream &os);

/// Runs the pipeline on `module` up to `until` (at most the fuse phase) as
/// compile() runs it with `options`: what calibration runs on its copies.
LogicalResult runTscPipeline(ModuleOp module, const CompileOptions &options,
                             Phase until);

/// How many plans compile() has built in this process (every plan of the
/// compile path is built by it).
unsigned getNumPlansBuilt();

} // namespace mlir::tsc

#endif // TSC_COMPILER_DRIVER_COMPILE_H
