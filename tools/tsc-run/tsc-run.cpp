//===- tsc-run.cpp - run a compiled .tscm artifact ------------------------===//
//
// Loads an artifact, binds inputs from .npy files or random data fitting the
// signature, runs it (optionally timed), and writes the outputs as .npy files.
//
//===----------------------------------------------------------------------===//

#include "compare.h"
#include "npy.h"
#include "npz.h"
#include "options.h"
#include "profile.h"
#include "public_key.h"
#include "report.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

using namespace tsc;
using tsc::run::kUsage;
using tsc::run::Options;
using tsc::run::parseArgs;
using tsc::run::shapeText;

namespace {

std::string sanitize(const std::string &name) {
  std::string out = name;
  for (char &c : out)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' &&
        c != '-')
      c = '_';
  if (out.empty() || out == "." || out == "..")
    out = "_" + out;
  return out;
}

// Symbol values for random inputs: --dim, else what a given input's dims set,
// else the maximum. The runtime checks ranges and agreement when it runs.
std::vector<int64_t> chooseSymbols(const Model &model, const Options &o,
                                   const std::map<std::string, Tensor> &given) {
  size_t count = model.symbolCount();
  std::vector<int64_t> values(count);
  std::vector<bool> set(count, false);
  for (const auto &[name, value] : o.dims) {
    size_t j = 0;
    while (j < count && model.symbolName(j) != name)
      ++j;
    if (j == count) {
      std::string valid;
      for (size_t k = 0; k < count; ++k)
        valid += (k ? ", " : "") + model.symbolName(k);
      throw std::runtime_error(
          "--dim " + name + ": the model has no symbol '" + name +
          "' (symbols: " + (valid.empty() ? "none" : valid) + ")");
    }
    // Checked before any input of that size is made.
    if (value < model.symbolMin(j) || value > model.symbolMax(j))
      throw std::runtime_error(
          "--dim " + name + "=" + std::to_string(value) +
          ": outside the range the model was compiled for, [" +
          std::to_string(model.symbolMin(j)) + ", " +
          std::to_string(model.symbolMax(j)) + "]");
    values[j] = value;
    set[j] = true;
  }
  std::vector<bool> fromDim = set;
  for (size_t i = 0; i < model.inputCount(); ++i) {
    auto it = given.find(model.inputName(i));
    if (it == given.end())
      continue;
    std::vector<int64_t> dims = it->second.dims();
    for (size_t d = 0; d < dims.size() && d < model.inputRank(i); ++d) {
      int64_t j = model.inputDimSymbol(i, d);
      if (j < 0)
        continue;
      // A --dim that a given input contradicts would be ignored: say so.
      if (fromDim[size_t(j)] && values[size_t(j)] != dims[d])
        throw std::runtime_error("--dim " + model.symbolName(size_t(j)) + "=" +
                                 std::to_string(values[size_t(j)]) +
                                 ", but input '" + model.inputName(i) +
                                 "' has " + std::to_string(dims[d]) +
                                 " there (dim " + std::to_string(d) + ")");
      if (!set[size_t(j)]) {
        values[size_t(j)] = dims[d];
        set[size_t(j)] = true;
      }
    }
  }
  for (size_t j = 0; j < count; ++j)
    if (!set[j])
      values[j] = model.symbolMax(j);
  return values;
}

Tensor randomTensor(tsc_dtype_t dtype, const std::vector<int64_t> &dims,
                    const Options &o, std::mt19937_64 &rng) {
  Tensor t = Tensor::createHost(dtype, dims);
  std::uniform_int_distribution<unsigned> smallCode(0, 255);
  if (run::isPacked(dtype)) {
    // Every code of the packed types is a number: uniform bytes.
    for (size_t i = 0; i < t.byteSize(); ++i)
      t.data<uint8_t>()[i] = uint8_t(smallCode(rng));
    return t;
  }
  size_t n = t.byteSize() / tsc_dtype_size(dtype);
  std::uniform_real_distribution<float> real(-1.0f, 1.0f);
  std::uniform_int_distribution<int64_t> integer(o.intLo, o.intHi - 1);
  std::uniform_int_distribution<int> boolean(0, 1);
  for (size_t i = 0; i < n; ++i) {
    switch (dtype) {
    case TSC_DTYPE_F32:
      t.data<float>()[i] = real(rng);
      break;
    case TSC_DTYPE_F64:
      t.data<double>()[i] = real(rng);
      break;
    case TSC_DTYPE_F16:
      t.data<uint16_t>()[i] = run::floatToHalf(real(rng));
      break;
    case TSC_DTYPE_BF16:
      t.data<uint16_t>()[i] = run::floatToBf16(real(rng));
      break;
    case TSC_DTYPE_I8:
      t.data<int8_t>()[i] = int8_t(integer(rng));
      break;
    case TSC_DTYPE_U8:
      t.data<uint8_t>()[i] = uint8_t(integer(rng));
      break;
    case TSC_DTYPE_I16:
      t.data<int16_t>()[i] = int16_t(integer(rng));
      break;
    case TSC_DTYPE_I32:
      t.data<int32_t>()[i] = int32_t(integer(rng));
      break;
    case TSC_DTYPE_I64:
      t.data<int64_t>()[i] = integer(rng);
      break;
    case TSC_DTYPE_U16:
      t.data<uint16_t>()[i] = uint16_t(integer(rng));
      break;
    case TSC_DTYPE_U32:
      t.data<uint32_t>()[i] = uint32_t(integer(rng));
      break;
    case TSC_DTYPE_U64:
      t.data<uint64_t>()[i] = uint64_t(integer(rng));
      break;
    case TSC_DTYPE_BOOL:
      t.data<uint8_t>()[i] = uint8_t(boolean(rng));
      break;
    case TSC_DTYPE_F8E8M0:
      // Powers of two from 2^-3 to 2^3.
      t.data<uint8_t>()[i] = uint8_t(124 + smallCode(rng) % 7);
      break;
    case TSC_DTYPE_F8E4M3FN:
    case TSC_DTYPE_F8E4M3FNUZ:
    case TSC_DTYPE_F8E5M2:
    case TSC_DTYPE_F8E5M2FNUZ: {
      // Magnitudes below 2 (codes under 0x40 in all four), either sign but
      // never 0x80, the NaN of the FNUZ types.
      uint8_t code = uint8_t(smallCode(rng) & 0x3F);
      t.data<uint8_t>()[i] =
          code ? uint8_t(code | (smallCode(rng) & 0x80)) : code;
      break;
    }
    default:
      throw std::runtime_error("cannot make random data of dtype " +
                               std::to_string(int(dtype)));
    }
  }
  return t;
}

// A bf16 input may be given as <f4 (NumPy has no bf16).
Tensor toBf16(const Tensor &f32) {
  Tensor t = Tensor::createHost(TSC_DTYPE_BF16, f32.dims());
  size_t n = f32.byteSize() / sizeof(float);
  for (size_t i = 0; i < n; ++i)
    t.data<uint16_t>()[i] = run::floatToBf16(f32.data<float>()[i]);
  return t;
}

// An 8-bit float input is given as |u1 holding its bits.
Tensor reinterpret(const Tensor &bytes, tsc_dtype_t dtype) {
  Tensor t = Tensor::createHost(dtype, bytes.dims());
  std::memcpy(t.data(), bytes.data(), bytes.byteSize());
  return t;
}

/// --bench: the warm-up runs, then the timed ones, which `profiler` (when
/// profiling) records.
void bench(Session &session, const Options &o, run::Profiler *profiler) {
  for (int i = 0; i < o.warmup; ++i)
    session.run();
  if (profiler)
    profiler->exclude();
  std::vector<double> ms;
  for (int i = 0; i < o.bench; ++i) {
    auto start = std::chrono::steady_clock::now();
    session.run();
    auto end = std::chrono::steady_clock::now();
    if (profiler)
      profiler->recordRun(start);
    ms.push_back(
        std::chrono::duration<double, std::milli>(end - start).count());
  }
  run::printBench(run::benchStats(std::move(ms)), o.model, o.warmup, o.threads,
                  o.json);
}

/// The index of input (or output) `name`; an error naming `what` gave it
/// (--input NAME, or the archive and the array) and listing the model's
/// names if it has none.
size_t findPort(const Model &model, const std::string &name, bool input,
                const std::string &what) {
  size_t count = input ? model.inputCount() : model.outputCount();
  std::string valid;
  for (size_t i = 0; i < count; ++i) {
    std::string port = input ? model.inputName(i) : model.outputName(i);
    if (port == name)
      return i;
    valid += (i ? ", " : "") + port;
  }
  const char *kind = input ? "input" : "output";
  throw std::runtime_error(what + ": the model has no " + kind + " '" + name +
                           "' (" + kind +
                           "s: " + (valid.empty() ? "none" : valid) + ")");
}

/// Runs `read`, prefixing the message of what it throws with `option` (the
/// option that named the file).
template <typename Read>
auto withOption(const std::string &option, Read read) -> decltype(read()) {
  try {
    return read();
  } catch (const std::exception &e) {
    throw std::runtime_error(option + ": " + e.what());
  }
}

/// An array --input or --expected gave: its name, and what gave it for
/// messages (`--input x`, or `--input all.npz: array 'x'`).
struct GivenArray {
  std::string name;
  Tensor tensor;
  std::string what;
};

/// The arrays --input or --expected (`option`) name: NAME=FILE.npy pairs and
/// every array of each .npz archive (an empty name), in order; file errors
/// name the option.
std::vector<GivenArray>
readArrays(const std::vector<std::pair<std::string, std::string>> &given,
           const std::string &option) {
  std::vector<GivenArray> arrays;
  for (const auto &[name, file] : given) {
    if (name.empty()) {
      for (auto &[key, tensor] :
           withOption(option, [&path = file] { return run::readNpz(path); }))
        arrays.push_back({key, std::move(tensor),
                          option + " " + file + ": array '" + key + "'"});
      continue;
    }
    if (run::isNpzFile(file))
      throw std::runtime_error(option + " " + name + ": " + file +
                               " is a .npz archive: give it as " + option +
                               " " + file + " (its arrays by name)");
    arrays.push_back({name,
                      withOption(option + " " + name,
                                 [&path = file] { return run::readNpy(path); }),
                      option + " " + name});
  }
  return arrays;
}

double msSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - start)
      .count();
}

int runMain(const Options &o) {
  auto start = std::chrono::steady_clock::now();
  tsc_model_options_t modelOptions;
  tsc_model_options_init(&modelOptions);
  std::array<uint8_t, 32> key{};
  if (!o.publicKey.empty()) {
    key = withOption("--public-key",
                     [&] { return run::readPublicKey(o.publicKey); });
    modelOptions.public_key = key.data();
  }
  Model model = Model::load(o.model, &modelOptions);
  double loadMs = msSince(start);
  if (o.info) {
    run::printInfo(model, o.model, o.json);
    return 0;
  }
  // With --json, stdout carries only the JSON object.
  FILE *text = o.json ? stderr : stdout;
  tsc_session_options_t sessionOptions;
  tsc_session_options_init(&sessionOptions);
  sessionOptions.thread_count = o.threads;
  bool profiling = o.profile || !o.trace.empty();
  sessionOptions.profile = profiling;
  sessionOptions.cuda_device = o.cudaDevice;
  sessionOptions.cuda_graphs = o.cudaGraphs;
  start = std::chrono::steady_clock::now();
  Session session(model, sessionOptions);
  double sessionMs = msSince(start);

  std::map<std::string, Tensor> given;
  for (auto &[name, t, what] : readArrays(o.inputs, "--input")) {
    size_t i = findPort(model, name, /*input=*/true, what);
    if (model.inputDtype(i) == TSC_DTYPE_BF16 && t.dtype() == TSC_DTYPE_F32)
      t = toBf16(t);
    if (run::isFloat8(model.inputDtype(i)) && t.dtype() == TSC_DTYPE_U8)
      t = reinterpret(t, model.inputDtype(i));
    if (run::isPacked(model.inputDtype(i)))
      t = run::packTensor(t, model.inputDtype(i), what);
    if (!given.emplace(name, t).second)
      throw std::runtime_error(what + ": input '" + name + "' given twice");
  }
  // The reference arrays and the output folder are checked before any run.
  std::vector<std::pair<std::string, Tensor>> expected;
  for (auto &[name, t, what] : readArrays(o.expected, "--expected")) {
    findPort(model, name, /*input=*/false, what);
    expected.emplace_back(name, std::move(t));
  }
  if (!o.outputDir.empty())
    withOption("--output-dir", [&] {
      std::error_code error;
      std::filesystem::create_directories(o.outputDir, error);
      if (error || !std::filesystem::is_directory(o.outputDir))
        throw std::runtime_error(
            o.outputDir + ": cannot create this folder" +
            (error ? ": " + error.message() : std::string()));
      return 0;
    });
  if (!o.outputNpz.empty())
    withOption("--output-npz", [&] {
      if (!std::ofstream(o.outputNpz, std::ios::binary))
        throw std::runtime_error(o.outputNpz + ": cannot create this file");
      return 0;
    });
  std::vector<int64_t> symbols = chooseSymbols(model, o, given);
  std::mt19937_64 rng(o.seed);
  for (size_t i = 0; i < model.inputCount(); ++i) {
    std::string name = model.inputName(i);
    auto it = given.find(name);
    Tensor t = it != given.end()
                   ? it->second
                   : randomTensor(model.inputDtype(i),
                                  model.inputShape(i, symbols), o, rng);
    std::fprintf(text, "input %s: shape %s dtype %s%s\n", name.c_str(),
                 shapeText(t.dims()).c_str(), tsc_dtype_name(t.dtype()),
                 it != given.end() ? "" : " (random)");
    session.bindInput(name, t);
  }

  // The first run pays for what loading defers (weights paged in from the
  // mapped artifact, the host code's first calls), so it is timed alone.
  // The profile covers the --bench runs after the warm-up, else the one run.
  std::optional<run::Profiler> profiler;
  if (profiling)
    profiler.emplace(model, session, o.model, !o.trace.empty());
  if (o.timing || !o.bench) {
    start = std::chrono::steady_clock::now();
    session.run();
    if (profiler)
      profiler->recordRun(start);
  }
  if (o.timing)
    std::fprintf(text, "timing ms: load %.1f  session %.1f  first run %.1f\n",
                 loadMs, sessionMs, msSince(start));
  if (o.bench)
    bench(session, o, profiler ? &*profiler : nullptr);
  if (o.profile)
    profiler->print(text);
  if (!o.trace.empty())
    withOption("--trace", [&] {
      profiler->writeTrace(o.trace);
      return 0;
    });

  std::vector<std::pair<std::string, Tensor>> outputs;
  for (size_t i = 0; i < model.outputCount(); ++i) {
    std::string name = model.outputName(i);
    Tensor t = session.output(name);
    if (!o.outputNpz.empty())
      outputs.emplace_back(name, t);
    std::fprintf(text, "output %s: shape %s dtype %s\n", name.c_str(),
                 shapeText(t.dims()).c_str(), tsc_dtype_name(t.dtype()));
    if (!o.outputDir.empty())
      withOption("--output-dir", [&] {
        run::writeNpy(
            (std::filesystem::path(o.outputDir) / (sanitize(name) + ".npy"))
                .string(),
            t);
        return 0;
      });
  }
  if (!o.outputNpz.empty())
    withOption("--output-npz", [&] {
      run::writeNpz(o.outputNpz, outputs);
      return 0;
    });
  int failed = 0;
  for (const auto &[name, reference] : expected) {
    std::string problem = run::compareOutput(name, session.output(name),
                                             reference, o.rtol, o.atol);
    if (problem.empty()) {
      std::fprintf(text, "expected %s: match\n", name.c_str());
      continue;
    }
    std::fflush(text);
    std::fprintf(stderr, "tsc-run: mismatch: %s\n", problem.c_str());
    ++failed;
  }
  if (failed)
    return 3;
  return 0;
}

/// `--list-devices`: one line per CUDA device, or why there is none.
int listDevices() {
  size_t count = 0;
  if (tsc_status_t status = tsc_cuda_device_count(&count)) {
    std::printf("cuda: unavailable: %s\n", tsc_status_message(status));
    tsc_status_free(status);
    return 0;
  }
  std::printf("cuda: %zu device(s)\n", count);
  for (size_t i = 0; i < count; ++i) {
    tsc_cuda_device_t device;
    if (tsc_status_t status = tsc_cuda_device_get(i, &device)) {
      std::printf("  %zu: %s\n", i, tsc_status_message(status));
      tsc_status_free(status);
      continue;
    }
    std::printf("  %zu: %s, sm_%d%d, %.1f GiB\n", i, device.name, device.major,
                device.minor, double(device.memory) / (1024.0 * 1024 * 1024));
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  try {
    Options o = parseArgs(argc, argv);
    if (o.help) {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (o.listDevices)
      return listDevices();
    if (o.version) {
      std::printf("%s\n", run::versionText().c_str());
      return 0;
    }
    return runMain(o);
  } catch (const std::exception &e) {
    std::fflush(stdout);
    std::fprintf(stderr, "tsc-run: error: %s\n", e.what());
    return 1;
  }
}
