//===- report.cpp - tsc-run's --info and --bench output, text or JSON -----===//

#include "report.h"

#include "format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <numeric>

#ifndef TSC_RUN_VERSION
#define TSC_RUN_VERSION "unknown"
#endif

using namespace tsc;
using namespace tsc::run;

namespace {

/// `text` as a JSON string literal.
std::string jsonString(const std::string &text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += char(c);
    } else if (c < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
      out += escaped;
    } else {
      out += char(c);
    }
  }
  return out + "\"";
}

/// A finite number for JSON (which has no inf or NaN): null otherwise.
std::string number(double value) {
  if (!std::isfinite(value))
    return "null";
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

/// One input's or output's dims: a size, a symbol's name, or "?" for a dim
/// computed from the symbols.
struct Port {
  std::string name;
  tsc_dtype_t dtype;
  std::vector<std::string> dims;
};

std::vector<Port> ports(const Model &model, bool inputs) {
  std::vector<Port> out;
  size_t count = inputs ? model.inputCount() : model.outputCount();
  for (size_t i = 0; i < count; ++i) {
    Port port{inputs ? model.inputName(i) : model.outputName(i),
              inputs ? model.inputDtype(i) : model.outputDtype(i),
              {}};
    size_t rank = inputs ? model.inputRank(i) : model.outputRank(i);
    for (size_t d = 0; d < rank; ++d) {
      int64_t size =
          inputs ? model.inputDimSize(i, d) : model.outputDimSize(i, d);
      int64_t symbol =
          inputs ? model.inputDimSymbol(i, d) : model.outputDimSymbol(i, d);
      port.dims.push_back(size >= 0     ? std::to_string(size)
                          : symbol >= 0 ? model.symbolName(size_t(symbol))
                                        : "?");
    }
    out.push_back(std::move(port));
  }
  return out;
}

std::string mib(uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f MiB", double(bytes) / (1024.0 * 1024));
  return text;
}

} // namespace

std::string tsc::run::shapeText(const std::vector<int64_t> &dims) {
  std::string text = "[";
  for (size_t d = 0; d < dims.size(); ++d)
    text += (d ? ", " : "") + std::to_string(dims[d]);
  return text + "]";
}

std::string tsc::run::versionText() {
  return std::string("tsc-run ") + TSC_RUN_VERSION + " (runtime API " +
         std::to_string(tsc_api_version()) + ", artifact format 1.0 to 1." +
         std::to_string(tscm::kMinor) + ")";
}

void tsc::run::printInfo(const Model &model, const std::string &path,
                         bool json) {
  uint32_t major = 0, minor = 0;
  tsc_model_format_version(model.get(), &major, &minor);
  std::vector<Port> inputs = ports(model, true), outputs = ports(model, false);
  // GEMMs: "gemm", "gemm int8", "gemm 2:4" (2:4 sparse, format 1.14).
  size_t kernels = 0, gemms = 0, copies = 0, sparse = 0;
  for (size_t i = 0; i < tsc_model_step_count(model.get()); ++i) {
    std::string step = tsc_model_step_name(model.get(), i);
    bool gemm = step == "gemm" || step.rfind("gemm ", 0) == 0;
    (gemm ? gemms : step == "copy" ? copies : kernels) += 1;
    sparse += step == "gemm 2:4";
  }
  std::string file = std::filesystem::path(path).filename().string();
  uint64_t arena = tsc_model_arena_bytes(model.get()),
           weights = tsc_model_weight_bytes(model.get());
  if (!json) {
    std::printf("artifact: %s (format %u.%u, producer %s)\n", file.c_str(),
                major, minor, model.producer().c_str());
    std::printf("target: %s; host code ISA: %s\n", model.target().c_str(),
                tsc_model_isa(model.get()));
    for (size_t j = 0; j < model.symbolCount(); ++j)
      std::printf("symbol %s: [%lld, %lld]\n", model.symbolName(j).c_str(),
                  static_cast<long long>(model.symbolMin(j)),
                  static_cast<long long>(model.symbolMax(j)));
    for (const auto *list : {&inputs, &outputs})
      for (const Port &port : *list) {
        std::string dims;
        for (const std::string &d : port.dims)
          dims += (dims.empty() ? "" : ", ") + d;
        std::printf("%s %s: %s[%s]\n", list == &inputs ? "input" : "output",
                    port.name.c_str(), tsc_dtype_name(port.dtype),
                    dims.c_str());
      }
    std::printf("steps: %zu (%zu kernels, %zu GEMM library calls, %zu "
                "copies)\n",
                kernels + gemms + copies, kernels, gemms, copies);
    if (sparse)
      std::printf("2:4 sparse GEMMs: %zu (cuSPARSELt, compressed weights)\n",
                  sparse);
    std::printf("arena: %s at the symbols' maxima; weights: %s\n",
                mib(arena).c_str(), mib(weights).c_str());
    return;
  }
  std::string out =
      "{\"artifact\": " + jsonString(file) + ", \"format\": " +
      jsonString(std::to_string(major) + "." + std::to_string(minor)) +
      ", \"producer\": " + jsonString(model.producer()) +
      ", \"target\": " + jsonString(model.target()) +
      ", \"isa\": " + jsonString(tsc_model_isa(model.get())) +
      ", \"symbols\": [";
  for (size_t j = 0; j < model.symbolCount(); ++j)
    out += std::string(j ? ", " : "") +
           "{\"name\": " + jsonString(model.symbolName(j)) +
           ", \"min\": " + std::to_string(model.symbolMin(j)) +
           ", \"max\": " + std::to_string(model.symbolMax(j)) + "}";
  out += "]";
  for (const auto *list : {&inputs, &outputs}) {
    out += list == &inputs ? ", \"inputs\": [" : ", \"outputs\": [";
    for (size_t i = 0; i < list->size(); ++i) {
      const Port &port = (*list)[i];
      out += std::string(i ? ", " : "") +
             "{\"name\": " + jsonString(port.name) +
             ", \"dtype\": " + jsonString(tsc_dtype_name(port.dtype)) +
             ", \"dims\": [";
      for (size_t d = 0; d < port.dims.size(); ++d) {
        const std::string &dim = port.dims[d];
        bool numeric = !dim.empty() &&
                       std::all_of(dim.begin(), dim.end(),
                                   [](char c) { return c >= '0' && c <= '9'; });
        out += std::string(d ? ", " : "") + (numeric ? dim : jsonString(dim));
      }
      out += "]}";
    }
    out += "]";
  }
  out += ", \"steps\": {\"kernels\": " + std::to_string(kernels) +
         ", \"gemm\": " + std::to_string(gemms) +
         ", \"copies\": " + std::to_string(copies) +
         ", \"gemm_sparse24\": " + std::to_string(sparse) + "}" +
         ", \"arena_bytes\": " + std::to_string(arena) +
         ", \"weight_bytes\": " + std::to_string(weights) + "}";
  std::printf("%s\n", out.c_str());
}

BenchStats tsc::run::benchStats(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  BenchStats s;
  size_t n = s.runs = ms.size();
  auto rank = [&](double p) {
    size_t k = size_t(std::ceil(p / 100.0 * double(n)));
    return ms[std::min(n, std::max<size_t>(k, 1)) - 1];
  };
  s.min = ms.front();
  s.max = ms.back();
  s.median = n % 2 ? ms[n / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2;
  s.mean = std::accumulate(ms.begin(), ms.end(), 0.0) / double(n);
  s.p90 = rank(90);
  s.p95 = rank(95);
  s.p99 = rank(99);
  double squares = 0;
  for (double x : ms)
    squares += (x - s.mean) * (x - s.mean);
  s.stddev = n > 1 ? std::sqrt(squares / double(n - 1)) : 0.0;
  s.throughput = s.mean > 0 ? 1000.0 / s.mean : 0.0;
  return s;
}

void tsc::run::printBench(const BenchStats &s, const std::string &path,
                          int warmup, int threads, bool json) {
  std::string file = std::filesystem::path(path).filename().string();
  if (json) {
    std::printf(
        "{\"artifact\": %s, \"runs\": %zu, \"warmup\": %d, "
        "\"threads\": %d, \"latency_ms\": {\"min\": %s, \"median\": %s, "
        "\"mean\": %s, \"p90\": %s, \"p95\": %s, \"p99\": %s, "
        "\"max\": %s, \"stddev\": %s}, \"runs_per_second\": %s}\n",
        jsonString(file).c_str(), s.runs, warmup, threads,
        number(s.min).c_str(), number(s.median).c_str(), number(s.mean).c_str(),
        number(s.p90).c_str(), number(s.p95).c_str(), number(s.p99).c_str(),
        number(s.max).c_str(), number(s.stddev).c_str(),
        number(s.throughput).c_str());
    return;
  }
  std::printf("bench: %s, %zu runs after %d warmup, threads %s\n", file.c_str(),
              s.runs, warmup,
              threads ? std::to_string(threads).c_str() : "all");
  std::printf("latency ms: min %.4f  median %.4f  mean %.4f  p90 %.4f  p95 "
              "%.4f  p99 %.4f  max %.4f  stddev %.4f\n",
              s.min, s.median, s.mean, s.p90, s.p95, s.p99, s.max, s.stddev);
  std::printf("throughput: %.2f runs/s\n", s.throughput);
}
