//===- MeasuredError.h - error against the fp32 model, measured -*- C++ -*-===//
//
// `tsc --precision=fp16|bf16 --report`, `--quantize --report` and
// `--max-error` state what a lossy compile costs on this model: the model
// compiled for the host in fp32 and as asked, both run through the runtime
// on the same inputs, each output's relative L2 error ‖out − ref‖₂ / ‖ref‖₂.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_COMPILER_DRIVER_MEASUREDERROR_H
#define TSC_COMPILER_DRIVER_MEASUREDERROR_H

#include "tsc/runtime.h"

#include "mlir/Support/LLVM.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir::tsc {

/// Writes an artifact for this machine's CPU to the stream.
using ArtifactWriter =
    llvm::function_ref<LogicalResult(llvm::raw_pwrite_stream &)>;

/// An error message from a runtime call, or none.
using RuntimeProblem = std::optional<std::string>;

/// A runtime status as its message, freeing it; none for success.
RuntimeProblem takeStatus(tsc_status_t status);

/// Loads into `*out` the artifact that `write` writes for this machine's
/// CPU, through a temporary file named after `label` (runtime messages name
/// it), which the runtime maps: the weights are not copied into memory on
/// the way. The measured error and the static-int8 calibration both run
/// artifacts in-process this way.
RuntimeProblem loadArtifact(ArtifactWriter write, StringRef label,
                            tsc_model_t **out);

/// One input's values (converted to each model's input dtype when bound).
struct InputValues {
  std::string name;
  std::vector<int64_t> dims;
  std::vector<double> values;
};
/// One set of the model's inputs.
using Sample = std::vector<InputValues>;

/// `tensor`'s dims and elements (any dtype) as input `name`'s values.
InputValues getInputValues(StringRef name, const tsc_tensor_t *tensor);

/// Fills the samples for `model` and describes them ("random inputs at
/// ..."); a problem otherwise (printed after `tsc: error: `).
using SampleReader = llvm::function_ref<RuntimeProblem(
    tsc_model_t *model, std::vector<Sample> &samples,
    std::string &description)>;

/// One output's relative L2 error.
struct OutputError {
  std::string name;
  double error;
};

/// The fp32 reference run once on a set of samples; candidates (the same
/// model compiled otherwise) are measured against its outputs. The error
/// of an output is taken over all samples together.
class ErrorMeasurement {
public:
  ErrorMeasurement(ErrorMeasurement &&);
  ~ErrorMeasurement();

  /// `reference` run on one seeded random sample: floats uniform in
  /// [-1, 1), integers 1, each symbol at its maximum or at most 64.
  static FailureOr<ErrorMeasurement> onRandomInputs(ArtifactWriter reference);

  /// `reference` run on the samples `read` gives (the calibration samples
  /// of `--calibration DIR`: readCalibrationSamples).
  static FailureOr<ErrorMeasurement> onSamples(ArtifactWriter reference,
                                               SampleReader read);

  /// What the samples are, for messages ("random inputs at batch=64, ...").
  StringRef describeInputs() const;

  /// Each output's error of the artifact `candidate` writes; failure (with
  /// a `tsc: error:` line naming `label`) when it fails to compile or run.
  FailureOr<std::vector<OutputError>> measure(ArtifactWriter candidate,
                                              StringRef label) const;

private:
  struct Reference;
  explicit ErrorMeasurement(std::unique_ptr<Reference> reference);
  std::unique_ptr<Reference> reference;
};

/// The largest of `errors` (what a budget bounds).
double getLargestError(ArrayRef<OutputError> errors);

/// Prints ` NAME E, NAME E` (E as %.1e).
void printErrors(ArrayRef<OutputError> errors, llvm::raw_ostream &os);

/// Measures `reduced` (the model in `precision`) against `reference` (the
/// model in fp32) on random inputs and prints a `measured error` line to
/// `os`. Failure (with a message on stderr) when a compilation or run
/// fails.
LogicalResult reportMeasuredError(ArtifactWriter reference,
                                  ArtifactWriter reduced, StringRef precision,
                                  llvm::raw_ostream &os);

} // namespace mlir::tsc

#endif // TSC_COMPILER_DRIVER_MEASUREDERROR_H
