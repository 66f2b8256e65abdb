//===- profile.h - tsc-run's --profile and --trace over measured runs -----===//
//
// Step times of the runs tsc-run measures (the --bench runs after the
// warm-up, else the one run), from a profiling session: summed per kernel
// kind, per layer and per step with the source nodes the compiler recorded
// (artifact format 1.13), and as a Chrome trace (trace-event format).
//
//===----------------------------------------------------------------------===//

#ifndef TSC_TOOLS_TSC_RUN_PROFILE_H
#define TSC_TOOLS_TSC_RUN_PROFILE_H

#include "tsc/runtime.hpp"

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace tsc::run {

class Profiler {
public:
  using Clock = std::chrono::steady_clock;

  /// For a session created with profiling of the artifact at `path`;
  /// `trace` keeps every step of every measured run for writeTrace.
  Profiler(const Model &model, const Session &session, std::string path,
           bool trace);

  /// The runs so far (warm-up) are left out of the profile.
  void exclude();
  /// After a measured run that tsc-run started at `start`.
  void recordRun(Clock::time_point start);

  /// The mean ms per measured run by kernel kind, by layer, then per step
  /// with its layer and source nodes.
  void print(FILE *out) const;
  /// The measured runs as a Chrome trace: one "X" event per run and one per
  /// step of each run, on the thread that ran it. Throws on a file error.
  void writeTrace(const std::string &path) const;

private:
  struct Event {
    size_t step; // ~0: the run itself
    unsigned run;
    double startUs, durationUs;
  };
  const Model &model;
  const Session &session;
  std::string path;
  bool trace;
  Clock::time_point origin = Clock::now();
  std::vector<double> excludedMs;
  uint64_t excludedRuns = 0;
  std::vector<Event> events;
  long threadId;

  double meanMs(size_t step) const;
};

} // namespace tsc::run

#endif // TSC_TOOLS_TSC_RUN_PROFILE_H
