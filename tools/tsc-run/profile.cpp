//===- profile.cpp - tsc-run's --profile and --trace over measured runs ---===//

#include "profile.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <stdexcept>
#include <sys/syscall.h>
#include <unistd.h>
#include <utility>

namespace tsc::run {

namespace {

/// A JSON string literal of `text`.
std::string quoted(const std::string &text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
      out += escaped;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string orEmpty(const char *text) { return text ? text : ""; }

/// A kernel's name without its `tsc_kernel_N_` prefix (the ops it runs).
std::string kindOf(std::string name) {
  const std::string prefix = "tsc_kernel_";
  if (name.rfind(prefix, 0) == 0) {
    size_t end = name.find('_', prefix.size());
    name = end == std::string::npos ? name : name.substr(end + 1);
  }
  return name;
}

} // namespace

Profiler::Profiler(const Model &model, const Session &session, std::string path,
                   bool trace)
    : model(model), session(session), path(std::move(path)), trace(trace),
      excludedMs(tsc_model_step_count(model.get()), 0.0),
      threadId(long(syscall(SYS_gettid))) {}

void Profiler::exclude() {
  for (size_t i = 0; i < excludedMs.size(); ++i)
    excludedMs[i] = session.stepTime(i);
  excludedRuns = session.runCount();
  events.clear();
}

void Profiler::recordRun(Clock::time_point start) {
  if (!trace)
    return;
  using Us = std::chrono::duration<double, std::micro>;
  double runStart = Us(start - origin).count();
  double runEnd = Us(Clock::now() - origin).count();
  unsigned run = unsigned(session.runCount() - excludedRuns);
  events.push_back({~size_t(0), run, runStart, runEnd - runStart});
  for (size_t i = 0; i < excludedMs.size(); ++i) {
    double at = 0, ms = 0;
    if (tsc_session_last_step_time(session.get(), i, &at, &ms))
      events.push_back({i, run, runStart + at * 1e3, ms * 1e3});
  }
}

double Profiler::meanMs(size_t step) const {
  uint64_t runs = session.runCount() - excludedRuns;
  return runs ? (session.stepTime(step) - excludedMs[step]) / double(runs)
              : 0.0;
}

void Profiler::print(FILE *out) const {
  size_t steps = excludedMs.size();
  std::map<std::string, std::pair<double, int>> kinds, layers; // ms, steps
  std::vector<std::string> layerOrder;
  for (size_t i = 0; i < steps; ++i) {
    std::string kind = kindOf(orEmpty(tsc_model_step_name(model.get(), i)));
    kinds[kind].first += meanMs(i);
    kinds[kind].second += 1;
    std::string layer = orEmpty(tsc_model_step_layer(model.get(), i));
    if (layer.empty())
      layer = "(outside layers)";
    if (!layers.count(layer))
      layerOrder.push_back(layer);
    layers[layer].first += meanMs(i);
    layers[layer].second += 1;
  }
  std::vector<std::pair<std::string, std::pair<double, int>>> rows(
      kinds.begin(), kinds.end());
  std::sort(rows.begin(), rows.end(), [](const auto &a, const auto &b) {
    return a.second.first > b.second.first;
  });
  std::fprintf(
      out,
      "profile: mean ms per run over %llu runs (%llu earlier runs "
      "excluded)\n",
      static_cast<unsigned long long>(session.runCount() - excludedRuns),
      static_cast<unsigned long long>(excludedRuns));
  if (const char *gemms = tsc_session_gemm_library(session.get()))
    std::fprintf(out, "gemm: %s\n", gemms);
  for (const auto &[name, entry] : rows)
    std::fprintf(out, "  %10.3f  %3d x %s\n", entry.first, entry.second,
                 name.c_str());
  std::fprintf(out, "per layer:\n");
  for (const std::string &layer : layerOrder)
    std::fprintf(out, "  %10.3f  %3d steps  %s\n", layers.at(layer).first,
                 layers.at(layer).second, layer.c_str());
  std::fprintf(out, "per step:\n");
  for (size_t i = 0; i < steps; ++i)
    std::fprintf(out, "  %4zu %10.3f  %-40s %-24s %s\n", i, meanMs(i),
                 orEmpty(tsc_model_step_name(model.get(), i)).c_str(),
                 orEmpty(tsc_model_step_layer(model.get(), i)).c_str(),
                 orEmpty(tsc_model_step_nodes(model.get(), i)).c_str());
}

void Profiler::writeTrace(const std::string &file_path) const {
  std::ofstream file(file_path);
  if (!file)
    throw std::runtime_error(file_path + ": cannot write this file");
  long pid = long(getpid());
  file << "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n";
  file << "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": " << pid
       << ", \"tid\": " << threadId
       << ", \"args\": {\"name\": " << quoted("tsc-run " + path) << "}}";
  char number[64];
  auto fixed = [&](double value) {
    std::snprintf(number, sizeof number, "%.3f", value);
    return std::string(number);
  };
  for (const Event &e : events) {
    bool run = e.step == ~size_t(0);
    std::string name = run ? "run " + std::to_string(e.run)
                           : orEmpty(tsc_model_step_name(model.get(), e.step));
    file << ",\n{\"name\": " << quoted(name) << ", \"cat\": \""
         << (run ? "run" : "step")
         << "\", \"ph\": \"X\", \"ts\": " << fixed(e.startUs)
         << ", \"dur\": " << fixed(e.durationUs) << ", \"pid\": " << pid
         << ", \"tid\": " << threadId << ", \"args\": {\"run\": " << e.run;
    if (!run)
      file << ", \"step\": " << e.step << ", \"layer\": "
           << quoted(orEmpty(tsc_model_step_layer(model.get(), e.step)))
           << ", \"nodes\": "
           << quoted(orEmpty(tsc_model_step_nodes(model.get(), e.step)));
    file << "}}";
  }
  file << "\n]}\n";
  if (!file.flush())
    throw std::runtime_error(file_path + ": cannot write this file");
}

} // namespace tsc::run
