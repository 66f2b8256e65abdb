//===- executor.h - sizing a plan's values and running its steps ----------===//

#ifndef TSC_RUNTIME_EXECUTOR_H
#define TSC_RUNTIME_EXECUTOR_H

#include "model.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace tsc::rt {

/// Everything a run's symbol values decide.
struct Layout {
  std::vector<int64_t> exprValues; // per expression
  std::vector<int64_t> elements;   // per value
  std::vector<uint64_t> bytes;     // per value
};

/// "batch=2, seq=7": symbol values for messages.
std::string describeSymbols(const Plan &plan, const int64_t *symbols);

/// Evaluates every expression at `symbols` and sizes every value, checking
/// that dims are >= 0, views match their base's element count, arena values
/// fit in the arena, and gemm and copy operands fit in their values. Errors
/// are the artifact's fault: DATA_LOSS naming the file and the symbol values.
/// With `bounds` (at load time, at the ends of the symbols' ranges), a plan
/// whose symbols are not independent (format 1.6: some are defined from
/// others) is checked only for dims >= 0 and arena bounds: its views and
/// operands agree at each run's values, where the run checks them.
tsc_status_t computeLayout(const tsc_model_s &model, const int64_t *symbols,
                           Layout &out, bool bounds = false);

class HostGemms;

/// Profiling: per step, milliseconds summed over runs, and where the last
/// run's step began (milliseconds after the run began) and how long it took.
struct StepTimes {
  using Clock = std::chrono::steady_clock;
  std::vector<double> total, lastStart, lastDuration;
  Clock::time_point runStart;
  void resize(size_t steps) {
    total.assign(steps, 0.0);
    lastStart.assign(steps, 0.0);
    lastDuration.assign(steps, 0.0);
  }
  /// Marks the start of a run.
  void beginRun() {
    runStart = Clock::now();
    std::fill(lastStart.begin(), lastStart.end(), 0.0);
    std::fill(lastDuration.begin(), lastDuration.end(), 0.0);
  }
  /// Step `i` ran from `start` to `end`.
  void record(size_t i, Clock::time_point start, Clock::time_point end) {
    using Ms = std::chrono::duration<double, std::milli>;
    lastStart[i] = Ms(start - runStart).count();
    lastDuration[i] = Ms(end - start).count();
    total[i] += lastDuration[i];
  }
};

/// Called after each step with its index (format 1.8: symbols defined from
/// the values it computed); a status stops the run.
using StepHook = std::function<tsc_status_t(size_t)>;

/// Runs the steps in order over the values at `addresses`, GEMM steps through
/// `gemms` (the session's; null when the plan has none). `scratch` is reused
/// for kernels' buffer arrays. `stepTimes`, when not null, records each
/// step's time. `hook`, when set, runs after each step and may
/// change the layout, the addresses and the symbols the next steps see.
tsc_status_t executeSteps(const tsc_model_s &model, const Layout &layout,
                          const std::vector<void *> &addresses,
                          const int64_t *symbols, HostGemms *gemms,
                          std::vector<void *> &scratch,
                          StepTimes *stepTimes = nullptr,
                          const StepHook &hook = nullptr);

/// UNAVAILABLE when the host plan of `model` has GEMM steps and the runtime
/// was built without oneDNN (a standalone build on a machine without it).
tsc_status_t checkHostGemms(const tsc_model_s &model);

/// Sets the calling thread's OpenMP thread count: the one pool that the
/// kernels and oneDNN's matmuls share.
void setHostThreads(int threads);

/// The calling thread's OpenMP thread count set to a session's for a scope
/// (a run, preparing weights) and given back after it, so that a session
/// leaves no thread count behind for the caller's own OpenMP code or for
/// another session run on the same thread.
class ScopedHostThreads {
public:
  explicit ScopedHostThreads(int threads);
  ~ScopedHostThreads();
  ScopedHostThreads(const ScopedHostThreads &) = delete;
  ScopedHostThreads &operator=(const ScopedHostThreads &) = delete;

private:
  int previous;
};

} // namespace tsc::rt

#endif // TSC_RUNTIME_EXECUTOR_H
