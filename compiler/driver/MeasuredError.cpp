//===- MeasuredError.cpp - error against the fp32 model, measured ---------===//

#include "compiler/driver/MeasuredError.h"

#include "tsc/runtime.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"

#include <cmath>
#include <cstdlib>
#include <memory>
#include <random>

using namespace mlir;
using namespace mlir::tsc;

namespace {

/// The largest value a symbol takes for the measurement: enough for every
/// kernel's tiling to matter, small enough to run in moments.
constexpr int64_t kMaxSymbolValue = 64;

/// An error message, or none.
using Problem = RuntimeProblem;

const llvm::fltSemantics *floatSemantics(tsc_dtype_t dtype) {
  switch (dtype) {
  case TSC_DTYPE_F16:
    return &llvm::APFloat::IEEEhalf();
  case TSC_DTYPE_BF16:
    return &llvm::APFloat::BFloat();
  case TSC_DTYPE_F32:
    return &llvm::APFloat::IEEEsingle();
  case TSC_DTYPE_F64:
    return &llvm::APFloat::IEEEdouble();
  default:
    return nullptr;
  }
}

/// Element `i` of `data` (of `dtype`) as a double.
double elementAt(const void *data, tsc_dtype_t dtype, size_t i) {
  const auto *bytes = static_cast<const uint8_t *>(data);
  size_t size = tsc_dtype_size(dtype);
  APInt bits(unsigned(size * 8), 0);
  llvm::LoadIntFromMemory(bits, bytes + i * size, unsigned(size));
  if (const llvm::fltSemantics *semantics = floatSemantics(dtype))
    return llvm::APFloat(*semantics, bits).convertToDouble();
  bool isSigned = dtype == TSC_DTYPE_I8 || dtype == TSC_DTYPE_I16 ||
                  dtype == TSC_DTYPE_I32 || dtype == TSC_DTYPE_I64;
  return isSigned ? double(bits.getSExtValue()) : double(bits.getZExtValue());
}

/// A tensor of `dtype` and `dims` holding `values` (rounded to the dtype).
Problem makeTensor(tsc_dtype_t dtype, const std::vector<int64_t> &dims,
                   const std::vector<double> &values, tsc_tensor_t **out) {
  if (Problem p = takeStatus(
          tsc_tensor_create_host(dtype, dims.size(), dims.data(), out)))
    return p;
  size_t size = tsc_dtype_size(dtype);
  auto *bytes = static_cast<uint8_t *>(tsc_tensor_data(*out));
  for (size_t i = 0; i < values.size(); ++i) {
    APInt bits(unsigned(size * 8), 0);
    if (const llvm::fltSemantics *semantics = floatSemantics(dtype)) {
      llvm::APFloat v(values[i]);
      bool losesInfo;
      v.convert(*semantics, llvm::APFloat::rmNearestTiesToEven, &losesInfo);
      bits = v.bitcastToAPInt();
    } else {
      bits = APInt(unsigned(size * 8), uint64_t(values[i]));
    }
    llvm::StoreIntToMemory(bits, bytes + i * size, unsigned(size));
  }
  return std::nullopt;
}

/// A loaded artifact and a session of it.
struct Run {
  tsc_model_t *model = nullptr;
  tsc_session_t *session = nullptr;
  ~Run() {
    tsc_session_release(session);
    tsc_model_release(model);
  }
  Problem start(ArtifactWriter write, StringRef label) {
    if (Problem p = loadArtifact(write, label, &model))
      return p;
    return takeStatus(tsc_session_create(model, nullptr, &session));
  }
  /// Binds `input` in this model's dtype for it.
  Problem bind(const InputValues &input) {
    size_t index = 0, count = tsc_model_input_count(model);
    while (index < count && input.name != tsc_model_input_name(model, index))
      ++index;
    if (index == count)
      return "the model has no input " + input.name;
    tsc_tensor_t *tensor = nullptr;
    Problem p = makeTensor(tsc_model_input_dtype(model, index), input.dims,
                           input.values, &tensor);
    if (!p)
      p = takeStatus(
          tsc_session_bind_input(session, input.name.c_str(), tensor));
    tsc_tensor_release(tensor);
    return p;
  }
  /// Runs `sample`; `outputs` gets each output's elements, in the model's
  /// output order.
  Problem run(const Sample &sample, std::vector<std::vector<double>> &outputs) {
    for (const InputValues &input : sample)
      if (Problem p = bind(input))
        return p;
    if (Problem p = takeStatus(tsc_session_run(session)))
      return p;
    outputs.clear();
    for (size_t i = 0; i < tsc_model_output_count(model); ++i) {
      tsc_tensor_t *out = nullptr;
      if (Problem p = takeStatus(tsc_session_get_output(
              session, tsc_model_output_name(model, i), &out)))
        return p;
      tsc_dtype_t dtype = tsc_tensor_dtype(out);
      std::vector<double> &values = outputs.emplace_back(
          tsc_tensor_byte_size(out) / tsc_dtype_size(dtype));
      for (size_t e = 0; e < values.size(); ++e)
        values[e] = elementAt(tsc_tensor_data(out), dtype, e);
      tsc_tensor_release(out);
    }
    return std::nullopt;
  }
};

/// The seeded random sample of `model` (ErrorMeasurement::onRandomInputs),
/// described in `at`. Integers are 1: a token id every vocabulary has, a
/// mask that keeps every position (random masks leave rows with every key
/// masked, whose outputs are arbitrary in fp32 and in half alike).
Problem randomSample(tsc_model_t *model, Sample &sample, std::string &at) {
  std::vector<int64_t> symbols;
  std::string values;
  for (size_t i = 0; i < tsc_model_symbol_count(model); ++i) {
    symbols.push_back(
        std::max(tsc_model_symbol_min(model, i),
                 std::min(tsc_model_symbol_max(model, i), kMaxSymbolValue)));
    values += (values.empty() ? "" : ", ") +
              std::string(tsc_model_symbol_name(model, i)) + "=" +
              std::to_string(symbols.back());
  }
  at = "random inputs at " + (values.empty() ? "its static shapes" : values);
  std::mt19937_64 rng(0);
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  for (size_t i = 0; i < tsc_model_input_count(model); ++i) {
    InputValues &input = sample.emplace_back();
    input.name = tsc_model_input_name(model, i);
    input.dims.resize(tsc_model_input_rank(model, i));
    if (Problem p = takeStatus(tsc_model_input_shape(
            model, i, symbols.data(), symbols.size(), input.dims.data())))
      return p;
    size_t count = 1;
    for (int64_t d : input.dims)
      count *= size_t(d);
    bool isFloat = floatSemantics(tsc_model_input_dtype(model, i));
    input.values.resize(count);
    for (double &v : input.values)
      v = isFloat ? real(rng) : 1.0;
  }
  return std::nullopt;
}

} // namespace

struct ErrorMeasurement::Reference {
  std::vector<Sample> samples;
  std::string inputs;
  std::vector<std::string> outputNames;
  /// Per sample, per output, the reference's elements.
  std::vector<std::vector<std::vector<double>>> outputs;
};

ErrorMeasurement::ErrorMeasurement(std::unique_ptr<Reference> reference)
    : reference(std::move(reference)) {}
ErrorMeasurement::ErrorMeasurement(ErrorMeasurement &&) = default;
ErrorMeasurement::~ErrorMeasurement() = default;

FailureOr<ErrorMeasurement>
ErrorMeasurement::onRandomInputs(ArtifactWriter reference) {
  return onSamples(reference,
                   [](tsc_model_t *model, std::vector<Sample> &samples,
                      std::string &description) -> Problem {
                     if (Problem p = randomSample(model, samples.emplace_back(),
                                                  description))
                       return "running the fp32 reference: " + *p;
                     return std::nullopt;
                   });
}

FailureOr<ErrorMeasurement>
ErrorMeasurement::onSamples(ArtifactWriter reference, SampleReader read) {
  Run run;
  auto ref = std::make_unique<Reference>();
  if (Problem p = run.start(reference, "fp32")) {
    llvm::errs() << "tsc: error: running the fp32 reference: " << *p << "\n";
    return failure();
  }
  if (Problem p = read(run.model, ref->samples, ref->inputs)) {
    llvm::errs() << "tsc: error: " << *p << "\n";
    return failure();
  }
  Problem p;
  for (size_t i = 0; !p && i < ref->samples.size(); ++i)
    p = run.run(ref->samples[i], ref->outputs.emplace_back());
  if (p) {
    llvm::errs() << "tsc: error: running the fp32 reference: " << *p << "\n";
    return failure();
  }
  for (size_t i = 0; i < tsc_model_output_count(run.model); ++i)
    ref->outputNames.push_back(tsc_model_output_name(run.model, i));
  return ErrorMeasurement(std::move(ref));
}

InputValues tsc::getInputValues(StringRef name, const tsc_tensor_t *tensor) {
  InputValues input;
  input.name = name.str();
  const int64_t *dims = tsc_tensor_dims(tensor);
  input.dims.assign(dims, dims + tsc_tensor_rank(tensor));
  tsc_dtype_t dtype = tsc_tensor_dtype(tensor);
  input.values.resize(tsc_tensor_byte_size(tensor) / tsc_dtype_size(dtype));
  for (size_t i = 0; i < input.values.size(); ++i)
    input.values[i] = elementAt(tsc_tensor_data(tensor), dtype, i);
  return input;
}

StringRef ErrorMeasurement::describeInputs() const { return reference->inputs; }

FailureOr<std::vector<OutputError>>
ErrorMeasurement::measure(ArtifactWriter candidate, StringRef label) const {
  Run run;
  Problem p = run.start(candidate, label);
  size_t numOutputs = reference->outputNames.size();
  std::vector<double> diff(numOutputs), norm(numOutputs);
  std::vector<std::vector<double>> outputs;
  for (size_t s = 0; !p && s < reference->samples.size(); ++s) {
    p = run.run(reference->samples[s], outputs);
    for (size_t o = 0; !p && o < numOutputs; ++o) {
      const std::vector<double> &ref = reference->outputs[s][o];
      if (o >= outputs.size() || outputs[o].size() != ref.size()) {
        p = "output " + reference->outputNames[o] +
            " differs in size from the reference's";
        break;
      }
      for (size_t e = 0; e < ref.size(); ++e) {
        diff[o] += (outputs[o][e] - ref[e]) * (outputs[o][e] - ref[e]);
        norm[o] += ref[e] * ref[e];
      }
    }
  }
  if (p) {
    llvm::errs() << "tsc: error: measuring the error of " << label << ": " << *p
                 << "\n";
    return failure();
  }
  std::vector<OutputError> errors;
  for (size_t o = 0; o < numOutputs; ++o)
    errors.push_back(
        {reference->outputNames[o],
         std::sqrt(diff[o]) / std::max(std::sqrt(norm[o]), 1e-30)});
  return errors;
}

double tsc::getLargestError(ArrayRef<OutputError> errors) {
  double largest = 0;
  for (const OutputError &e : errors)
    largest = std::max(largest, e.error);
  return largest;
}

void tsc::printErrors(ArrayRef<OutputError> errors, llvm::raw_ostream &os) {
  for (auto [i, e] : llvm::enumerate(errors))
    os << (i ? "," : "") << " " << e.name << " "
       << llvm::format("%.1e", e.error);
}

LogicalResult tsc::reportMeasuredError(ArtifactWriter reference,
                                       ArtifactWriter reduced,
                                       StringRef precision,
                                       llvm::raw_ostream &os) {
  FailureOr<ErrorMeasurement> measurement =
      ErrorMeasurement::onRandomInputs(reference);
  if (failed(measurement))
    return failure();
  FailureOr<std::vector<OutputError>> errors =
      measurement->measure(reduced, precision);
  if (failed(errors))
    return failure();
  os << "measured error of " << precision
     << " (relative L2 against this model in fp32, both on the host, on "
     << measurement->describeInputs() << "):";
  printErrors(*errors, os);
  os << "\n";
  return success();
}

RuntimeProblem tsc::takeStatus(tsc_status_t status) {
  if (!status)
    return std::nullopt;
  std::string message = tsc_status_message(status);
  tsc_status_free(status);
  return message;
}

RuntimeProblem tsc::loadArtifact(ArtifactWriter write, StringRef label,
                                 tsc_model_t **out) {
  int fd = -1;
  SmallString<128> path;
  std::string prefix = "tsc-" + label.str();
  for (char &c : prefix)
    if (!llvm::isAlnum(c) && c != '-')
      c = '_';
  if (std::error_code error =
          llvm::sys::fs::createTemporaryFile(prefix, "tscm", fd, path))
    return "cannot create a temporary file: " + error.message();
  RuntimeProblem problem;
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    if (failed(write(os)))
      problem = "compiling for the host failed";
    os.close();
    if (!problem && os.has_error())
      problem =
          "cannot write " + path.str().str() + ": " + os.error().message();
    os.clear_error();
  }
  if (!problem)
    problem = takeStatus(tsc_model_load(nullptr, path.c_str(), out));
  // The runtime maps the file: it may go as soon as the model is loaded (a
  // temporary file that cannot be removed is left behind, harmlessly).
  (void)llvm::sys::fs::remove(path);
  return problem;
}
