//===- Calibration.h - activation ranges measured on samples ----*- C++ -*-===//
//
// `tsc --quantize=static-int8 --calibration DIR`: the model is compiled for
// the host in fp32 with the input of each GEMM to quantize as an extra
// output, run through the runtime on every sample of DIR, and an observer
// turns what each extra output held into a range (max|x|) for
// tsc-quantize-static-int8 (docs/quantization.md). `tsc --prune=heads=R,
// ffn=R --calibration DIR` observes each GEMM's input the same way, as one
// L2 norm per input channel, for the structured prune passes'
// activation-aware importance (docs/pruning.md).
//
//===----------------------------------------------------------------------===//

#ifndef TSC_COMPILER_DRIVER_CALIBRATION_H
#define TSC_COMPILER_DRIVER_CALIBRATION_H

#include "compiler/driver/MeasuredError.h"

#include <string>
#include <vector>

namespace mlir::tsc {

/// How a range is chosen from the values a tensor took on the samples.
enum class CalibrationMethod {
  /// max|x| over every sample: nothing saturates.
  MinMax,
  /// The `percentile`-th percentile of |x| (a 2048-bin histogram).
  Percentile,
  /// The threshold whose 128-level quantization of the |x| histogram has
  /// the least KL divergence from it (TensorRT's entropy calibrator).
  Entropy,
};

/// An activation's calibrated range: symmetric ones have lo = -hi; and
/// the mean, minimum and maximum of each channel of its last dim over every
/// other element of every sample (static int8's bias correction and
/// smoothing, docs/quantization.md; NaNs skipped, the extremes taken with
/// 0).
struct ActivationRange {
  float lo = 0.0f, hi = 0.0f;
  std::vector<float> mean, channelMin, channelMax;
};

/// Which of a calibration folder's samples (sorted by name) a run takes:
/// all, or every other one (0, 2, 4, ... or 1, 3, 5, ...), so that one half
/// can calibrate and the other measure (static int8's smoothing).
enum class SampleFold { All, Even, Odd };

struct CalibrationOptions {
  /// One folder per sample, each holding NAME.npy for every model input.
  std::string directory;
  CalibrationMethod method = CalibrationMethod::Percentile;
  /// Percentile: in (0, 100]. 99.999 (ONNX Runtime's default too) measured
  /// best on all-MiniLM-L6-v2 of 99.99, 99.999 and min-max
  /// (docs/quantization.md).
  double percentile = 99.999;
  /// [min, max] (each end chosen by `method` from its side's histogram)
  /// rather than [-max|x|, max|x|]: static int8's activations get a zero
  /// point (docs/quantization.md, "Asymmetric activations").
  bool asymmetric = true;
  /// Every quantize mode given samples: each quantized GEMM's bias
  /// corrected by its input's calibrated means (kInputMeanAttr;
  /// docs/quantization.md, "Bias correction").
  bool biasCorrection = true;
  /// The samples of `directory` the calibration runs on.
  SampleFold fold = SampleFold::All;
};

/// Bins of the |x| histograms of the percentile and entropy observers.
constexpr unsigned kCalibrationBins = 2048;

/// Runs the artifact that `write` writes (for this machine's CPU) on every
/// sample of `options.directory` and returns the range of each output named
/// in `observed`, in that order: [-r, r] for r the range `options.method`
/// chooses from |x|, or with `options.asymmetric`, each end chosen from
/// the histogram of its own side (0 included); each with its channels'
/// means (NaNs counted as 0). Failure, with a `tsc: error:`
/// line naming the sample, file or input, for a directory without samples, a
/// missing, extra or ill-typed file, or a run that fails.
FailureOr<std::vector<ActivationRange>>
measureInputRanges(ArtifactWriter write, ArrayRef<std::string> observed,
                   const CalibrationOptions &options);

/// Runs the artifact that `write` writes (for this machine's CPU) on every
/// sample of `directory` and returns, for each output named in `observed`,
/// one L2 norm per channel of its last dim over all its other elements
/// and every sample. Failure as measureInputRanges.
FailureOr<std::vector<std::vector<double>>>
measureChannelNorms(ArtifactWriter write, ArrayRef<std::string> observed,
                    StringRef directory);

/// Reads the samples of `directory` in `fold` for `model` (as
/// measureInputRanges does) into `out`, each input's values in double, and
/// describes them in `description`; a problem names the folder and the
/// sample, file or input.
RuntimeProblem readCalibrationSamples(tsc_model_t *model, StringRef directory,
                                      std::vector<Sample> &out,
                                      std::string &description,
                                      SampleFold fold = SampleFold::All);

/// How many samples `directory` holds (failure after a `tsc: error:` line
/// naming the problem, as measureInputRanges reports it).
FailureOr<size_t> countCalibrationSamples(StringRef directory);

/// The range `method` chooses from a histogram of |x| (`bins` counts over
/// [0, amax], equal widths); `amax` for MinMax. Exposed for tests.
float chooseRange(ArrayRef<double> bins, float amax, CalibrationMethod method,
                  double percentile);

} // namespace mlir::tsc

#endif // TSC_COMPILER_DRIVER_CALIBRATION_H
