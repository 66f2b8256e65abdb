//===- QuantizeWeightOnly.cpp - GEMM weights in i8 or i4 ------------------===//
//
// `--quantize=weight-int8|weight-int4[:group=G][:zero-points]`: each GEMM
// by a constant f32 weight becomes a tsc.linear by the dequantized weight,
// quantized here per output channel or per group along K, symmetrically or
// (zero-points) with a zero point each; the activation stays f32. The host plan
// runs the linear as a weight-only GEMM step that dequantizes the weight once
// per session (docs/quantization.md).
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/transforms/KeepFloat.h"
#include "passes/transforms/QuantizeGemm.h"

#include "dialects/tsc/IR/ConstantData.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <algorithm>
#include <cmath>

namespace mlir::tsc {
#define GEN_PASS_DEF_QUANTIZEWEIGHTONLYPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tsc

using namespace mlir;
using namespace mlir::tsc;

namespace {

/// How `w` ([K, N] when `kn`, else [N, K]) is quantized: symmetric codes in
/// [-qmax, qmax], or asymmetric ones in [-qmax - 1, qmax] with a zero point
/// each, a scale per output channel (`group` 0) or per group of `group`
/// along K.
struct Quantized {
  std::vector<int8_t> codes; // w's layout
  std::vector<float> scales; // [groups, N] (kn) or [N, groups]; [N] per channel
  std::vector<int8_t> zeroPoints; // as the scales; empty when symmetric
  int64_t groups = 0;             // 0: per channel

  /// The index of the scale (and zero point) of weight (kk, j), for N = `n`
  /// output channels and groups of `group` along K (0: per channel).
  size_t scaleIndex(int64_t kk, int64_t j, int64_t n, bool kn,
                    int64_t group) const {
    if (!group)
      return size_t(j);
    return size_t(kn ? (kk / group) * n + j : j * groups + kk / group);
  }
};

Quantized quantizeWeight(ArrayRef<float> w, int64_t k, int64_t n, bool kn,
                         int64_t group, int qmax, bool asymmetric) {
  Quantized out;
  out.groups = group ? (k + group - 1) / group : 0;
  int64_t perChannel = group ? out.groups : 1;
  out.scales.assign(size_t(n * perChannel), 0.0f);
  auto at = [&](int64_t kk, int64_t j) { return kn ? kk * n + j : j * k + kk; };
  auto indexAt = [&](int64_t kk, int64_t j) {
    return out.scaleIndex(kk, j, n, kn, group);
  };
  auto scaleAt = [&](int64_t kk, int64_t j) -> float & {
    return out.scales[indexAt(kk, j)];
  };
  if (asymmetric) {
    // [lo, hi] (0 included) onto [-qmax - 1, qmax]: scale (hi - lo) /
    // (2 qmax + 1), zero point round(-lo / scale) - qmax - 1; codes
    // clamp(round(w / scale) + zero point), round half to even as
    // tsc.quantize does.
    std::vector<float> lo(out.scales.size(), 0.0f), hi(out.scales.size(), 0.0f);
    for (int64_t kk = 0; kk < k; ++kk)
      for (int64_t j = 0; j < n; ++j) {
        float v = w[size_t(at(kk, j))];
        size_t s = indexAt(kk, j);
        lo[s] = std::min(lo[s], v);
        hi[s] = std::max(hi[s], v);
      }
    out.zeroPoints.assign(out.scales.size(), 0);
    for (size_t s = 0; s < out.scales.size(); ++s) {
      float scale = (hi[s] - lo[s]) / float(2 * qmax + 1);
      out.scales[s] = scale > 0.0f ? scale : 1.0f;
      float z = std::nearbyint(-lo[s] / out.scales[s]) - float(qmax + 1);
      out.zeroPoints[s] =
          static_cast<int8_t>(std::clamp(z, -float(qmax + 1), float(qmax)));
    }
    out.codes.resize(w.size());
    for (int64_t kk = 0; kk < k; ++kk)
      for (int64_t j = 0; j < n; ++j) {
        size_t s = indexAt(kk, j);
        float v = std::nearbyint(w[size_t(at(kk, j))] / out.scales[s]) +
                  float(out.zeroPoints[s]);
        out.codes[size_t(at(kk, j))] =
            static_cast<int8_t>(std::clamp(v, -float(qmax + 1), float(qmax)));
      }
    return out;
  }
  for (int64_t kk = 0; kk < k; ++kk)
    for (int64_t j = 0; j < n; ++j) {
      float &s = scaleAt(kk, j);
      s = std::max(s, std::fabs(w[size_t(at(kk, j))]));
    }
  for (float &s : out.scales)
    s = s > 0.0f ? s / float(qmax) : 1.0f;
  out.codes.resize(w.size());
  for (int64_t kk = 0; kk < k; ++kk)
    for (int64_t j = 0; j < n; ++j) {
      // Round half to even, as tsc.quantize does.
      float v = std::nearbyint(w[size_t(at(kk, j))] / scaleAt(kk, j));
      out.codes[size_t(at(kk, j))] =
          static_cast<int8_t>(std::clamp(v, -float(qmax), float(qmax)));
    }
  return out;
}

/// The codes as an i8 or (two a byte, the first in the low bits, as the
/// artifact packs them) an i4 constant of `type`.
Attribute codesConstant(RankedTensorType type, ArrayRef<int8_t> codes,
                        unsigned bits, StringRef name) {
  if (bits == 8)
    return getConstantFromValues(type, codes, name);
  std::vector<char> packed((codes.size() + 1) / 2, 0);
  for (size_t i = 0; i < codes.size(); ++i)
    packed[i / 2] |= char((uint8_t(codes[i]) & 0xF) << (4 * (i & 1)));
  return DenseResourceElementsAttr::get(
      type, name, HeapAsmResourceBlob::allocateAndCopyWithAlign(packed, 64));
}

struct QuantizeWeightOnlyPass
    : public tsc::impl::QuantizeWeightOnlyPassBase<QuantizeWeightOnlyPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override {
    if (bits != 8 && bits != 4)
      return emitError(UnknownLoc::get(context))
             << "tsc-quantize-weight-only: bits must be 8 or 4, not "
             << static_cast<unsigned>(bits);
    if (groupSize < 0)
      return emitError(UnknownLoc::get(context))
             << "tsc-quantize-weight-only: group-size must be 0 (per "
                "channel) or positive, not "
             << static_cast<int64_t>(groupSize);
    return KeepFloat::parse(context, keepFloat, kept);
  }

  /// Rewrites `g`; failure (with `why`) when the weight's data is missing.
  LogicalResult quantize(QuantizableGemm g, std::string &why) {
    std::optional<std::vector<char>> bytes =
        getConstantBytes(g.weight.getValue());
    if (!bytes) {
      why = "the weight's data is not available";
      return failure();
    }
    auto weightType = cast<RankedTensorType>(g.weight.getType());
    ArrayRef<float> w(reinterpret_cast<const float *>(bytes->data()),
                      bytes->size() / sizeof(float));
    int64_t kDim = g.kn ? 0 : 1, nDim = 1 - kDim;
    int64_t k = weightType.getDimSize(kDim), n = weightType.getDimSize(nDim);
    // A group covering all of K is one scale per channel.
    int64_t group = groupSize > 0 && groupSize < k ? groupSize : 0;
    Quantized q =
        quantizeWeight(w, k, n, g.kn, group, bits == 8 ? 127 : 7, zeroPoints);

    OpBuilder b(g.op);
    Location loc = g.op->getLoc();
    auto codeType =
        RankedTensorType::get(weightType.getShape(), b.getIntegerType(bits));
    SmallVector<int64_t> scaleShape = {n};
    if (group)
      scaleShape = g.kn ? SmallVector<int64_t>{q.groups, n}
                        : SmallVector<int64_t>{n, q.groups};
    auto scaleType = RankedTensorType::get(scaleShape, b.getF32Type());
    std::string suffix = bits == 8 ? ".s8" : ".s4";
    Value wq = ConstantOp::create(
        b, loc,
        cast<ElementsAttr>(codesConstant(codeType, q.codes, bits,
                                         weightName(g.weight, suffix))));
    Value ws =
        ConstantOp::create(b, loc,
                           cast<ElementsAttr>(getConstantFromValues(
                               scaleType, ArrayRef<float>(q.scales),
                               weightName(g.weight, suffix + ".scale"))));
    Value wz;
    if (!q.zeroPoints.empty())
      wz = ConstantOp::create(
          b, loc,
          cast<ElementsAttr>(codesConstant(
              RankedTensorType::get(scaleShape, b.getIntegerType(bits)),
              q.zeroPoints, bits,
              weightName(g.weight, suffix + ".zero_point"))));
    Value wd = DequantizeOp::create(b, loc, weightType, wq, ws, wz,
                                    b.getI64IntegerAttr(group ? kDim : nDim),
                                    group ? b.getI64IntegerAttr(group)
                                          : IntegerAttr());
    ArrayRef<float> means = getInputMeans(g);
    Value bias;
    if (!means.empty())
      bias = correctBias(
          g, getMeanError(w, weightType.getDimSize(0), weightType.getDimSize(1),
                          g.kn, means, [&](int64_t i, int64_t kk, int64_t j) {
                            size_t s = q.scaleIndex(kk, j, n, g.kn, group);
                            int32_t zero =
                                q.zeroPoints.empty() ? 0 : q.zeroPoints[s];
                            return float(int32_t(q.codes[size_t(i)]) - zero) *
                                   q.scales[s];
                          }));
    replaceGemm(g, g.input, wd, bias);
    return success();
  }

  void runOnOperation() override {
    quantizeGemms(
        getOperation(), kept, KeptPrecision::F32, minInputFeatures, remarks,
        [&](QuantizableGemm g, std::string &why) { return quantize(g, why); });
    removeInputMeans(getOperation());
  }

  KeepFloat kept;
};

} // namespace
