//===- report.h - tsc-run's --info and --bench output, text or JSON -------===//

#ifndef TSC_TOOLS_TSC_RUN_REPORT_H
#define TSC_TOOLS_TSC_RUN_REPORT_H

#include "tsc/runtime.hpp"

#include <string>
#include <vector>

namespace tsc::run {

/// `--info`: what the artifact at `path` holds, without running it.
void printInfo(const Model &model, const std::string &path, bool json);

/// Latency statistics of `--bench` over the timed runs (warm-up excluded).
struct BenchStats {
  size_t runs = 0;
  double min = 0, median = 0, mean = 0, p90 = 0, p95 = 0, p99 = 0, max = 0,
         stddev = 0;
  /// Runs per second at the mean latency.
  double throughput = 0;
};

/// Statistics of `ms` (one entry per run, any order; not empty). Percentiles
/// are nearest-rank: the smallest latency that at least p % of the runs do
/// not exceed.
BenchStats benchStats(std::vector<double> ms);

/// Prints `stats` for the artifact at `path` run with `threads` (0: all cores)
/// after `warmup` runs.
void printBench(const BenchStats &stats, const std::string &path, int warmup,
                int threads, bool json);

/// `dims` as "[2, 3]".
std::string shapeText(const std::vector<int64_t> &dims);

/// The version line of `--version`.
std::string versionText();

} // namespace tsc::run

#endif // TSC_TOOLS_TSC_RUN_REPORT_H
