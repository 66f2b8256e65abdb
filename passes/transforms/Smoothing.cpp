//===- Smoothing.cpp - activation outliers moved into the weights ---------===//

#include "passes/transforms/Smoothing.h"

#include "dialects/tsc/IR/ConstantData.h"

#include "mlir/IR/BuiltinAttributes.h"

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace mlir;
using namespace mlir::tsc;

namespace {

/// The weight of `g` as f32 values with its rows and columns, or nothing
/// when its data cannot be read.
struct WeightData {
  std::vector<float> values;
  int64_t rows = 0, cols = 0;
};

std::optional<WeightData> readWeight(QuantizableGemm g) {
  std::optional<std::vector<char>> bytes =
      getConstantBytes(g.weight.getValue());
  auto type = cast<RankedTensorType>(g.weight.getType());
  if (!bytes || int64_t(bytes->size()) != type.getNumElements() * 4)
    return std::nullopt;
  WeightData w;
  w.rows = type.getDimSize(0);
  w.cols = type.getDimSize(1);
  w.values.resize(bytes->size() / sizeof(float));
  std::memcpy(w.values.data(), bytes->data(), bytes->size());
  return w;
}

/// Input channel k of element (r, c) of `g`'s weight: the row of a [K, N]
/// weight, the column of an [N, K] one.
int64_t channelOf(const QuantizableGemm &g, int64_t r, int64_t c) {
  return g.kn ? r : c;
}

/// The channel extremes of `op`'s input (K each, finite, min <= max), or
/// nothing.
std::optional<std::pair<ArrayRef<float>, ArrayRef<float>>>
getChannelExtremes(Operation *op, int64_t k) {
  auto lo = op->getAttrOfType<DenseF32ArrayAttr>(kInputChannelMinAttr);
  auto hi = op->getAttrOfType<DenseF32ArrayAttr>(kInputChannelMaxAttr);
  if (!lo || !hi || int64_t(lo.size()) != k || int64_t(hi.size()) != k)
    return std::nullopt;
  for (auto [a, b] : llvm::zip_equal(lo.asArrayRef(), hi.asArrayRef()))
    if (!std::isfinite(a) || !std::isfinite(b) || a > b)
      return std::nullopt;
  return std::make_pair(lo.asArrayRef(), hi.asArrayRef());
}

} // namespace

DenseMap<Operation *, unsigned>
tsc::smoothInputs(ArrayRef<QuantizableGemm> gemms, float alpha, bool symmetric,
                  std::vector<SmoothedInput> &inputs) {
  DenseMap<Operation *, unsigned> smoothed;
  if (!(alpha > 0.0f && alpha < 1.0f))
    return smoothed;
  // The readers of each input, in program order.
  llvm::MapVector<Value, SmallVector<QuantizableGemm>> readers;
  for (const QuantizableGemm &g : gemms)
    readers[g.input].push_back(g);
  for (auto &[x, group] : readers) {
    int64_t k = cast<RankedTensorType>(x.getType()).getShape().back();
    // Every reader must hold the same extremes (one activation).
    auto extremes = getChannelExtremes(group.front().op, k);
    bool usable = extremes.has_value();
    for (const QuantizableGemm &g : group)
      usable = usable && getChannelExtremes(g.op, k) == extremes;
    if (!usable)
      continue;
    auto [channelMin, channelMax] = *extremes;
    std::vector<float> weightMax(size_t(k), 0.0f);
    for (const QuantizableGemm &g : group) {
      std::optional<WeightData> w = readWeight(g);
      usable = usable && w;
      if (!w)
        break;
      for (int64_t r = 0; r < w->rows; ++r)
        for (int64_t c = 0; c < w->cols; ++c) {
          float &m = weightMax[size_t(channelOf(g, r, c))];
          m = std::max(m, std::fabs(w->values[size_t(r * w->cols + c)]));
        }
    }
    if (!usable)
      continue;
    // Channels within kMinOutlierRatio of each other: not worth smoothing.
    if (!hasOutlierChannels(channelMin, channelMax))
      continue;
    SmoothedInput s;
    s.multipliers.resize(size_t(k));
    for (int64_t j = 0; j < k; ++j) {
      double xMax = std::max(std::fabs(double(channelMin[size_t(j)])),
                             std::fabs(double(channelMax[size_t(j)])));
      double wMax = weightMax[size_t(j)];
      // A channel without values on either side keeps its scale.
      double factor = xMax > 0 && wMax > 0 ? std::pow(xMax, double(alpha)) /
                                                 std::pow(wMax, 1.0 - alpha)
                                           : 1.0;
      float m = float(1.0 / factor);
      s.multipliers[size_t(j)] = std::isfinite(m) && m > 0.0f ? m : 1.0f;
      float m32 = s.multipliers[size_t(j)];
      if (symmetric) {
        s.hi = std::max(s.hi, float(xMax) * m32);
      } else {
        s.lo = std::min(s.lo, channelMin[size_t(j)] * m32);
        s.hi = std::max(s.hi, channelMax[size_t(j)] * m32);
      }
    }
    if (symmetric)
      s.lo = -s.hi;
    // Extremes of 0 alone: nothing to smooth (nor to quantize by).
    if (s.lo == s.hi)
      continue;
    OpBuilder b(x.getContext());
    b.setInsertionPointAfterValue(x);
    Location loc = group.front().op->getLoc();
    auto type = RankedTensorType::get({k}, b.getF32Type());
    Value m = ConstantOp::create(
        b, loc,
        cast<ElementsAttr>(getConstantFromValues(
            type, ArrayRef<float>(s.multipliers),
            weightName(group.front().weight, ".smoothing"))));
    s.input = MulOp::create(b, loc, x.getType(), x, m);
    for (const QuantizableGemm &g : group)
      smoothed[g.op] = unsigned(inputs.size());
    inputs.push_back(std::move(s));
  }
  return smoothed;
}

LogicalResult tsc::useSmoothedInput(QuantizableGemm &g,
                                    const SmoothedInput &smoothed,
                                    std::string &why) {
  std::optional<WeightData> w = readWeight(g);
  if (!w) {
    why = "the weight's data is not available";
    return failure();
  }
  for (int64_t r = 0; r < w->rows; ++r)
    for (int64_t c = 0; c < w->cols; ++c)
      w->values[size_t(r * w->cols + c)] /=
          smoothed.multipliers[size_t(channelOf(g, r, c))];
  OpBuilder b(g.op);
  auto type = cast<RankedTensorType>(g.weight.getType());
  g.weight = ConstantOp::create(b, g.op->getLoc(),
                                cast<ElementsAttr>(getConstantFromValues(
                                    type, ArrayRef<float>(w->values),
                                    weightName(g.weight, ".smoothed"))));
  g.input = smoothed.input;
  return success();
}

FailureOr<std::vector<float>> tsc::prepareInput(QuantizableGemm &g,
                                                const SmoothedInput *smoothed,
                                                std::string &why) {
  std::vector<float> means(getInputMeans(g));
  if (!smoothed)
    return means;
  if (failed(useSmoothedInput(g, *smoothed, why)))
    return failure();
  for (auto [mean, m] : llvm::zip(means, smoothed->multipliers))
    mean *= m;
  return means;
}

bool tsc::hasOutlierChannels(ArrayRef<float> channelMin,
                             ArrayRef<float> channelMax) {
  if (channelMin.empty() || channelMin.size() != channelMax.size())
    return false;
  std::vector<float> spread(channelMin.size());
  for (size_t j = 0; j < spread.size(); ++j)
    spread[j] = std::max(-channelMin[j], channelMax[j]);
  float largest = *std::max_element(spread.begin(), spread.end());
  // The lower median: of two channels, the smaller.
  auto median = spread.begin() + (spread.size() - 1) / 2;
  std::nth_element(spread.begin(), median, spread.end());
  return largest >= kMinOutlierRatio * *median;
}

bool tsc::hasInputsToSmooth(Operation *func) {
  return llvm::any_of(getGemmOps(func), [](Operation *op) {
    auto lo = op->getAttrOfType<DenseF32ArrayAttr>(kInputChannelMinAttr);
    auto hi = op->getAttrOfType<DenseF32ArrayAttr>(kInputChannelMaxAttr);
    return lo && hi && hasOutlierChannels(lo.asArrayRef(), hi.asArrayRef());
  });
}

void tsc::removeChannelExtremes(Operation *func) {
  for (Operation *op : getGemmOps(func)) {
    op->removeAttr(kInputChannelMinAttr);
    op->removeAttr(kInputChannelMaxAttr);
  }
}
