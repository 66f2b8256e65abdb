//===- MeasuredError.cpp - error of reduced precision, measured -----------===//

#include "compiler/driver/MeasuredError.h"

#include "tsc/runtime.h"

#include "llvm/ADT/APFloat.h"
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
using Problem = std::optional<std::string>;

/// Takes a runtime status: its message, freeing it.
Problem take(tsc_status_t status) {
  if (!status)
    return std::nullopt;
  std::string message = tsc_status_message(status);
  tsc_status_free(status);
  return message;
}

/// The artifact that `write` writes for this machine's CPU, loaded by the
/// runtime. It goes through a temporary file named after `label` (runtime
/// messages name it), which the runtime maps: its weights are not copied
/// into memory on the way.
Problem load(ArtifactWriter write, StringRef label, tsc_model_t **out) {
  int fd = -1;
  SmallString<128> path;
  if (std::error_code error = llvm::sys::fs::createTemporaryFile(
          "tsc-measured-error-" + label, "tscm", fd, path))
    return "cannot create a temporary file: " + error.message();
  Problem problem;
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
    problem = take(tsc_model_load(nullptr, path.c_str(), out));
  // The runtime maps the file: it may go as soon as the model is loaded (a
  // temporary file that cannot be removed is left behind, harmlessly).
  (void)llvm::sys::fs::remove(path);
  return problem;
}

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
  if (Problem p = take(tsc_tensor_create_host(dtype, dims.size(), dims.data(),
                                              out)))
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

/// Outputs of one run of `artifact` on the inputs `inputs` (in the model's
/// input order), or the problem.
struct Run {
  tsc_model_t *model = nullptr;
  tsc_session_t *session = nullptr;
  ~Run() {
    tsc_session_release(session);
    tsc_model_release(model);
  }
  Problem start(ArtifactWriter write, StringRef label) {
    if (Problem p = load(write, label, &model))
      return p;
    return take(tsc_session_create(model, nullptr, &session));
  }
};

/// ‖out − ref‖₂ / ‖ref‖₂.
double relativeL2(tsc_tensor_t *out, tsc_tensor_t *ref) {
  tsc_dtype_t outType = tsc_tensor_dtype(out), refType = tsc_tensor_dtype(ref);
  size_t count = tsc_tensor_byte_size(ref) / tsc_dtype_size(refType);
  double diff = 0, norm = 0;
  for (size_t i = 0; i < count; ++i) {
    double r = elementAt(tsc_tensor_data(ref), refType, i);
    double o = elementAt(tsc_tensor_data(out), outType, i);
    diff += (o - r) * (o - r);
    norm += r * r;
  }
  return std::sqrt(diff) / std::max(std::sqrt(norm), 1e-30);
}

Problem measure(ArtifactWriter reference, ArtifactWriter reduced,
                StringRef precision, llvm::raw_ostream &os) {
  Run fp32, half;
  if (Problem p = fp32.start(reference, "fp32"))
    return p;
  if (Problem p = half.start(reduced, precision))
    return p;
  // Symbols at their maxima, at most kMaxSymbolValue.
  std::vector<int64_t> symbols;
  std::string at;
  for (size_t i = 0; i < tsc_model_symbol_count(fp32.model); ++i) {
    symbols.push_back(std::max(tsc_model_symbol_min(fp32.model, i),
                               std::min(tsc_model_symbol_max(fp32.model, i),
                                        kMaxSymbolValue)));
    at += (at.empty() ? "" : ", ") +
          std::string(tsc_model_symbol_name(fp32.model, i)) + "=" +
          std::to_string(symbols.back());
  }
  // The same values for both, each in its model's input dtype (half for
  // --precision-io=storage): floats uniform in [-1, 1), integers 1 (a token
  // id every vocabulary has, a mask that keeps every position: random masks
  // leave rows with every key masked, whose outputs are arbitrary in fp32
  // and in half alike).
  std::mt19937_64 rng(0);
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  for (size_t i = 0; i < tsc_model_input_count(fp32.model); ++i) {
    std::vector<int64_t> dims(tsc_model_input_rank(fp32.model, i));
    if (Problem p = take(tsc_model_input_shape(
            fp32.model, i, symbols.data(), symbols.size(), dims.data())))
      return p;
    size_t count = 1;
    for (int64_t d : dims)
      count *= size_t(d);
    bool isFloat = floatSemantics(tsc_model_input_dtype(fp32.model, i));
    std::vector<double> values(count);
    for (double &v : values)
      v = isFloat ? real(rng) : 1.0;
    const char *name = tsc_model_input_name(fp32.model, i);
    for (Run *run : {&fp32, &half}) {
      tsc_tensor_t *input = nullptr;
      Problem p = makeTensor(tsc_model_input_dtype(run->model, i), dims,
                             values, &input);
      if (!p)
        p = take(tsc_session_bind_input(run->session, name, input));
      tsc_tensor_release(input);
      if (p)
        return p;
    }
  }
  if (Problem p = take(tsc_session_run(fp32.session)))
    return p;
  if (Problem p = take(tsc_session_run(half.session)))
    return p;
  os << "measured error of " << precision
     << " (relative L2 against this model in fp32, both on the host, on "
        "random inputs at "
     << (at.empty() ? "its static shapes" : at) << "):";
  for (size_t i = 0; i < tsc_model_output_count(fp32.model); ++i) {
    const char *name = tsc_model_output_name(fp32.model, i);
    tsc_tensor_t *ref = nullptr, *out = nullptr;
    Problem p = take(tsc_session_get_output(fp32.session, name, &ref));
    if (!p)
      p = take(tsc_session_get_output(half.session, name, &out));
    if (!p)
      os << (i ? "," : "") << " " << name << " "
         << llvm::format("%.1e", relativeL2(out, ref));
    tsc_tensor_release(ref);
    tsc_tensor_release(out);
    if (p)
      return p;
  }
  os << "\n";
  return std::nullopt;
}

} // namespace

LogicalResult tsc::reportMeasuredError(ArtifactWriter reference,
                                       ArtifactWriter reduced,
                                       StringRef precision,
                                       llvm::raw_ostream &os) {
  if (Problem p = measure(reference, reduced, precision, os)) {
    llvm::errs() << "tsc: error: measuring the error of --precision="
                 << precision << ": " << *p << "\n";
    return failure();
  }
  return success();
}
