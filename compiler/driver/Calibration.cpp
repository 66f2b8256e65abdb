//===- Calibration.cpp - activation ranges measured on samples ------------===//
//
// Built with exceptions (the .npy reader of tsc-run throws); none leaves
// this file.
//
//===----------------------------------------------------------------------===//

#include "compiler/driver/Calibration.h"

#include "npy.h"
#include "tsc/runtime.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <stdexcept>

using namespace mlir;
using namespace mlir::tsc;

namespace {

/// An error message, or none.
using Problem = RuntimeProblem;

/// The calibration artifact, loaded, and one session of it.
struct Loaded {
  tsc_model_t *model = nullptr;
  tsc_session_t *session = nullptr;
  ~Loaded() {
    tsc_session_release(session);
    tsc_model_release(model);
  }
  /// Loads what `write` writes (loadArtifact) and makes its session.
  Problem start(ArtifactWriter write) {
    if (Problem problem = loadArtifact(write, "calibration", &model))
      return problem;
    return takeStatus(tsc_session_create(model, nullptr, &session));
  }
};

/// One sample: its folder and a tensor per model input, in input order.
struct CalibrationSample {
  std::string directory;
  std::vector<::tsc::Tensor> inputs;
};

/// The sample folders of `directory`, sorted, those of `fold`; a file
/// beside them, or none at all, is a problem.
Problem listSamples(StringRef directory, std::vector<std::string> &out,
                    SampleFold fold = SampleFold::All) {
  std::error_code error;
  for (llvm::sys::fs::directory_iterator it(directory, error), end;
       it != end && !error; it.increment(error)) {
    if (it->type() != llvm::sys::fs::file_type::directory_file)
      return it->path() + " is not a folder: " + directory.str() +
             " holds one folder per sample";
    out.push_back(it->path());
  }
  if (error)
    return "cannot read " + directory.str() + ": " + error.message();
  if (out.empty())
    return directory.str() + " holds no samples (expected one folder per "
                             "sample, with NAME.npy for each model input)";
  llvm::sort(out);
  if (fold != SampleFold::All) {
    std::vector<std::string> half;
    for (size_t i = fold == SampleFold::Even ? 0 : 1; i < out.size(); i += 2)
      half.push_back(std::move(out[i]));
    if (half.empty())
      return directory.str() + " holds one sample; calibrating on some and "
                               "measuring on others needs two";
    out = std::move(half);
  }
  return std::nullopt;
}

/// Reads the inputs of the sample in `directory`: exactly one NAME.npy per
/// model input, each of the input's dtype.
Problem readSample(tsc_model_t *model, const std::string &directory,
                   CalibrationSample &sample) {
  sample.directory = directory;
  llvm::StringSet<> expected;
  for (size_t i = 0; i < tsc_model_input_count(model); ++i)
    expected.insert((tsc_model_input_name(model, i) + std::string(".npy")));
  std::error_code error;
  for (llvm::sys::fs::directory_iterator it(directory, error), end;
       it != end && !error; it.increment(error))
    if (!expected.contains(llvm::sys::path::filename(it->path())))
      return it->path() + " is not an input of the model (expected one "
                          "NAME.npy per model input)";
  if (error)
    return "cannot read " + directory + ": " + error.message();
  for (size_t i = 0; i < tsc_model_input_count(model); ++i) {
    std::string name = tsc_model_input_name(model, i);
    SmallString<128> path(directory);
    llvm::sys::path::append(path, name + ".npy");
    if (!llvm::sys::fs::exists(path))
      return directory + " has no " + name + ".npy (model input '" + name +
             "')";
    try {
      sample.inputs.push_back(::tsc::run::readNpy(path.str().str()));
    } catch (const std::exception &e) {
      return std::string(e.what());
    }
    tsc_dtype_t want = tsc_model_input_dtype(model, i);
    if (sample.inputs.back().dtype() != want)
      return path.str().str() + " holds " +
             tsc_dtype_name(sample.inputs.back().dtype()) + ", input '" + name +
             "' is " + tsc_dtype_name(want);
  }
  return std::nullopt;
}

/// Calls `see(i, data, count, channels)` on each observed output: its
/// elements and the size of its last dim.
using Observer =
    llvm::function_ref<void(size_t, const float *, size_t, size_t)>;

/// Runs `sample` and shows each observed output to `see`.
Problem runSample(Loaded &loaded, const CalibrationSample &sample,
                  ArrayRef<std::string> observed, Observer see) {
  for (size_t i = 0; i < sample.inputs.size(); ++i)
    if (Problem p = takeStatus(tsc_session_bind_input(
            loaded.session, tsc_model_input_name(loaded.model, i),
            sample.inputs[i].get())))
      return sample.directory + ": " + *p;
  if (Problem p = takeStatus(tsc_session_run(loaded.session)))
    return sample.directory + ": " + *p;
  for (auto [i, name] : llvm::enumerate(observed)) {
    tsc_tensor_t *out = nullptr;
    if (Problem p = takeStatus(
            tsc_session_get_output(loaded.session, name.c_str(), &out)))
      return p;
    size_t rank = tsc_tensor_rank(out);
    see(i, static_cast<const float *>(tsc_tensor_data(out)),
        tsc_tensor_byte_size(out) / sizeof(float),
        rank ? size_t(tsc_tensor_dims(out)[rank - 1]) : 1);
    tsc_tensor_release(out);
  }
  return std::nullopt;
}

/// KL(P || Q) of two unnormalized distributions; a bin where P has mass and
/// Q none counts as Q holding a small epsilon (it is a distribution the
/// quantization cannot represent, hence a large divergence).
double divergence(ArrayRef<double> p, ArrayRef<double> q) {
  double sumP = 0, sumQ = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    sumP += p[i];
    sumQ += q[i];
  }
  if (sumP == 0 || sumQ == 0)
    return INFINITY;
  const double epsilon = 1e-12;
  double kl = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i] == 0)
      continue;
    double pi = p[i] / sumP, qi = std::max(q[i] / sumQ, epsilon);
    kl += pi * std::log(pi / qi);
  }
  return kl;
}

/// TensorRT's entropy calibration: for each threshold of `levels` bins or
/// more, P is the histogram up to it with the mass beyond added to its last
/// bin, Q the same bins merged into `levels` equal groups and spread back
/// over each group's nonempty bins; the threshold of least KL(P || Q).
size_t entropyThreshold(ArrayRef<double> bins, size_t levels) {
  size_t n = bins.size();
  std::vector<double> beyond(n + 1, 0.0);
  for (size_t i = n; i-- > 0;)
    beyond[i] = beyond[i + 1] + bins[i];
  double best = INFINITY;
  size_t bestEnd = n;
  std::vector<double> p, q;
  for (size_t end = levels; end <= n; ++end) {
    p.assign(bins.begin(), bins.begin() + end);
    p.back() += beyond[end];
    q.assign(end, 0.0);
    for (size_t level = 0; level < levels; ++level) {
      size_t from = level * end / levels, to = (level + 1) * end / levels;
      double total = 0;
      size_t nonempty = 0;
      for (size_t j = from; j < to; ++j) {
        total += bins[j];
        nonempty += bins[j] != 0;
      }
      for (size_t j = from; j < to; ++j)
        q[j] = bins[j] != 0 ? total / double(nonempty) : 0.0;
    }
    double kl = divergence(p, q);
    if (kl < best) {
      best = kl;
      bestEnd = end;
    }
  }
  return bestEnd;
}

} // namespace

float mlir::tsc::chooseRange(ArrayRef<double> bins, float amax,
                             CalibrationMethod method, double percentile) {
  if (method == CalibrationMethod::MinMax || amax == 0.0f || bins.empty())
    return amax;
  double width = double(amax) / double(bins.size());
  if (method == CalibrationMethod::Entropy)
    return float(double(entropyThreshold(bins, 128)) * width);
  double total = 0;
  for (double b : bins)
    total += b;
  double wanted = total * percentile / 100.0, seen = 0;
  for (size_t i = 0; i < bins.size(); ++i) {
    seen += bins[i];
    if (seen >= wanted)
      return float(double(i + 1) * width);
  }
  return amax;
}

namespace {

/// The artifact `write` writes, loaded, and the samples of `directory`
/// read for it; failure after a `tsc: error: --calibration DIR:` line.
LogicalResult openSamples(ArtifactWriter write, StringRef directory,
                          Loaded &loaded,
                          std::vector<CalibrationSample> &samples,
                          SampleFold fold = SampleFold::All) {
  std::vector<std::string> directories;
  Problem p = listSamples(directory, directories, fold);
  if (!p)
    p = loaded.start(write);
  samples.resize(directories.size());
  for (size_t i = 0; !p && i < samples.size(); ++i)
    p = readSample(loaded.model, directories[i], samples[i]);
  if (!p)
    return success();
  llvm::errs() << "tsc: error: --calibration " << directory << ": " << *p
               << "\n";
  return failure();
}

/// Runs every sample, showing the observed outputs to `see`; failure after
/// a `tsc: error:` line naming the sample.
LogicalResult runSamples(Loaded &loaded, ArrayRef<CalibrationSample> samples,
                         ArrayRef<std::string> observed, StringRef directory,
                         Observer see) {
  for (const CalibrationSample &sample : samples)
    if (Problem p = runSample(loaded, sample, observed, see)) {
      llvm::errs() << "tsc: error: --calibration " << directory << ": " << *p
                   << "\n";
      return failure();
    }
  return success();
}

} // namespace

FailureOr<std::vector<ActivationRange>>
mlir::tsc::measureInputRanges(ArtifactWriter write,
                              ArrayRef<std::string> observed,
                              const CalibrationOptions &options) {
  Loaded loaded;
  std::vector<CalibrationSample> samples;
  if (failed(
          openSamples(write, options.directory, loaded, samples, options.fold)))
    return failure();
  // The extents first, max x and max -x (NaNs skipped, 0 included), and
  // each channel's sum; the histograms over [0, extent] then need a second
  // run.
  std::vector<std::array<float, 2>> extent(observed.size(), {0.0f, 0.0f});
  std::vector<std::vector<double>> sums(observed.size());
  std::vector<std::vector<float>> lows(observed.size()), highs(observed.size());
  std::vector<double> rows(observed.size(), 0.0);
  if (failed(
          runSamples(loaded, samples, observed, options.directory,
                     [&](size_t i, const float *x, size_t n, size_t channels) {
                       sums[i].resize(channels, 0.0);
                       lows[i].resize(channels, 0.0f);
                       highs[i].resize(channels, 0.0f);
                       rows[i] += channels ? double(n) / double(channels) : 0.0;
                       for (size_t j = 0, c = 0; j < n;
                            ++j, c = c + 1 == channels ? 0 : c + 1) {
                         extent[i][0] = std::max(extent[i][0], x[j]);
                         extent[i][1] = std::max(extent[i][1], -x[j]);
                         if (std::isnan(x[j]))
                           continue;
                         sums[i][c] += x[j];
                         lows[i][c] = std::min(lows[i][c], x[j]);
                         highs[i][c] = std::max(highs[i][c], x[j]);
                       }
                     })))
    return failure();
  // Percentile, asymmetric: each side's end from its own histogram (side
  // 0 counts x >= 0, side 1 -x), so that a side clips the same share of
  // its own values. Otherwise one histogram of |x| gives a threshold T:
  // symmetric [-T, T], or asymmetric [max(min, -T), min(max, T)] (the
  // entropy observer's KL is defined on |x|'s 128 levels, TensorRT's).
  const bool perSide =
      options.asymmetric && options.method == CalibrationMethod::Percentile;
  auto absMax = [&](size_t i) { return std::max(extent[i][0], extent[i][1]); };
  std::vector<std::array<std::vector<double>, 2>> bins(observed.size());
  if (options.method != CalibrationMethod::MinMax) {
    for (auto &sides : bins)
      for (int side = 0; side < (perSide ? 2 : 1); ++side)
        sides[side].assign(kCalibrationBins, 0.0);
    if (failed(runSamples(
            loaded, samples, observed, options.directory,
            [&](size_t i, const float *x, size_t n, size_t) {
              double perBin[2];
              for (int side = 0; side < 2; ++side) {
                float e = perSide ? extent[i][side] : absMax(i);
                perBin[side] = e > 0 ? double(kCalibrationBins) / e : 0.0;
              }
              for (size_t j = 0; j < n; ++j) {
                if (std::isnan(x[j]))
                  continue;
                int side = perSide && x[j] < 0.0f;
                if (perBin[side] > 0)
                  ++bins[i][side][std::min<size_t>(
                      size_t(double(std::fabs(x[j])) * perBin[side]),
                      kCalibrationBins - 1)];
              }
            })))
      return failure();
  }
  std::vector<ActivationRange> ranges(observed.size());
  for (size_t i = 0; i < observed.size(); ++i) {
    ActivationRange &r = ranges[i];
    for (double sum : sums[i])
      r.mean.push_back(rows[i] > 0 ? float(sum / rows[i]) : 0.0f);
    r.channelMin = std::move(lows[i]);
    r.channelMax = std::move(highs[i]);
    if (perSide) {
      r.hi = chooseRange(bins[i][0], extent[i][0], options.method,
                         options.percentile);
      r.lo = -chooseRange(bins[i][1], extent[i][1], options.method,
                          options.percentile);
      continue;
    }
    float t =
        chooseRange(bins[i][0], absMax(i), options.method, options.percentile);
    r.hi = options.asymmetric ? std::min(extent[i][0], t) : t;
    r.lo = options.asymmetric ? -std::min(extent[i][1], t) : -t;
  }
  return ranges;
}

FailureOr<std::vector<std::vector<double>>> mlir::tsc::measureChannelNorms(
    ArtifactWriter write, ArrayRef<std::string> observed, StringRef directory) {
  Loaded loaded;
  std::vector<CalibrationSample> samples;
  if (failed(openSamples(write, directory, loaded, samples)))
    return failure();
  std::vector<std::vector<double>> sums(observed.size());
  if (failed(
          runSamples(loaded, samples, observed, directory,
                     [&](size_t i, const float *x, size_t n, size_t channels) {
                       sums[i].resize(channels, 0.0);
                       for (size_t j = 0; j < n; ++j)
                         sums[i][j % channels] += double(x[j]) * x[j];
                     })))
    return failure();
  for (std::vector<double> &channel : sums)
    for (double &sum : channel)
      sum = std::sqrt(sum);
  return sums;
}

RuntimeProblem mlir::tsc::readCalibrationSamples(tsc_model_t *model,
                                                 StringRef directory,
                                                 std::vector<Sample> &out,
                                                 std::string &description,
                                                 SampleFold fold) {
  std::vector<std::string> directories;
  if (Problem p = listSamples(directory, directories, fold))
    return "--calibration " + directory.str() + ": " + *p;
  for (const std::string &folder : directories) {
    CalibrationSample sample;
    if (Problem p = readSample(model, folder, sample))
      return "--calibration " + directory.str() + ": " + *p;
    Sample &values = out.emplace_back();
    for (auto [i, tensor] : llvm::enumerate(sample.inputs))
      values.push_back(
          getInputValues(tsc_model_input_name(model, i), tensor.get()));
  }
  description = "the " + std::to_string(directories.size()) +
                (fold == SampleFold::All    ? ""
                 : fold == SampleFold::Even ? " even-numbered"
                                            : " odd-numbered") +
                " calibration samples of " + directory.str();
  return std::nullopt;
}

FailureOr<size_t> mlir::tsc::countCalibrationSamples(StringRef directory) {
  std::vector<std::string> directories;
  if (Problem p = listSamples(directory, directories)) {
    llvm::errs() << "tsc: error: --calibration " << directory << ": " << *p
                 << "\n";
    return failure();
  }
  return directories.size();
}
