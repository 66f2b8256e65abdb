//===- CalibrateGraph.h - activations on calibration samples ---*- C++ -*-===//
//
// `--calibration DIR` before the compile's pipeline: static-int8's input
// ranges (docs/quantization.md) and the structured prune passes' input
// norms (docs/pruning.md), measured by running a copy of the graph that
// returns the values to observe, compiled for the host in fp32.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_COMPILER_DRIVER_CALIBRATEGRAPH_H
#define TSC_COMPILER_DRIVER_CALIBRATEGRAPH_H

#include "compiler/driver/Compile.h"

namespace mlir::tsc {

/// --quantize=static-int8: the range of each GEMM op's input in the order
/// tsc-quantize-static-int8 takes them ([0, 0]: stays float); symmetric
/// ([-max|x|, max|x|]) or not as `options.calibration.asymmetric` says. A copy
/// of `module` goes through the graph and prune phases as the compile runs them
/// (so its GEMM ops are the quantize pass's, in the same order), returns each
/// quantizable GEMM's input besides its outputs, is compiled for the host
/// in fp32 and runs on the calibration samples in-process.
FailureOr<std::vector<ActivationRange>>
calibrateInputRanges(ModuleOp module, const CompileOptions &options);

/// `options.inputRanges` (and with asymmetric calibration
/// `options.inputMinima`) appended from `ranges`, one per GEMM op: the
/// form the quantize passes take them in.
void appendInputRanges(CompileOptions &options,
                       ArrayRef<ActivationRange> ranges);

/// The quantize passes' bias correction (static-int8, and the other modes
/// with --calibration) and static-int8's smoothing: `module` goes through
/// the graph phase (which the compile's pipeline then finds done) and each
/// GEMM op gets, from `ranges` (calibrateInputRanges' for `module`), with
/// `means` kInputMeanAttr, the calibrated mean of each channel of its
/// input, and with `extremes` kInputChannelMinAttr and kInputChannelMaxAttr,
/// each channel's extremes, for the quantize passes. Where pruning has
/// changed the GEMM ops since (the ranges were measured past it), only those
/// that still have one value per input channel get them, and none when
/// their number differs.
LogicalResult attachInputStatistics(ModuleOp module,
                                    const CompileOptions &options,
                                    ArrayRef<ActivationRange> ranges,
                                    bool means, bool extremes);

/// What compile() measures on `options.calibration`'s samples before any
/// trial or final compile: static int8's (and static fp8's) ranges (unless
/// `options.inputRanges` holds them already), the means and extremes the
/// quantize passes correct and smooth by (attached to `module`), and with
/// `--smoothing=auto` the alpha (chooseSmoothing). Returns `options` with
/// the ranges and the alpha set; failure once reported.
FailureOr<CompileOptions>
calibrateForQuantization(ModuleOp module, const CompileOptions &options);

/// Whether the compile ranks heads or neurons by calibration: structured
/// pruning with --calibration, and a phase to print (if any) past graph.
bool pruneByActivations(const CompileOptions &options);

/// --prune=heads/ffn with --calibration: `module` goes through the graph
/// phase (which the compile's pipeline then finds done) and each GEMM op
/// (prune::matchGemm) gets `tsc.input_norms`, the L2 norm of each channel
/// of its input over every token of the calibration samples, measured on
/// a copy that returns those inputs, compiled for the host in fp32. Every
/// compile of `module` from here (the --max-error trials, the report's
/// baselines, static-int8's calibration) sees the same norms.
LogicalResult attachInputNorms(ModuleOp module, const CompileOptions &options);

} // namespace mlir::tsc

#endif // TSC_COMPILER_DRIVER_CALIBRATEGRAPH_H
