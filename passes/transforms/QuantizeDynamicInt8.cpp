//===- QuantizeDynamicInt8.cpp - GEMMs by constant weights in int8 --------===//
//
// `--quantize=dynamic-int8`: each GEMM by a constant f32 weight becomes a
// tsc.linear in quantize-dequantize form, the weight quantized to i8 per
// output channel here, the activation per row by ops that run with the
// model. The form states the arithmetic exactly (the generated kernels
// compute it as written); the host plan turns it into one int8 GEMM step.
//
//===----------------------------------------------------------------------===//

#include "dialects/tsc/IR/ConstantData.h"
#include "dialects/tsc/IR/TscOps.h"
#include "passes/Passes.h"
#include "passes/transforms/DynamicInt8.h"
#include "passes/transforms/KeepFloat.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <cmath>

namespace mlir::tsc {
#define GEN_PASS_DEF_QUANTIZEDYNAMICINT8PASS
#include "passes/Passes.h.inc"
} // namespace mlir::tsc

using namespace mlir;
using namespace mlir::tsc;

namespace {

/// A GEMM the pass may quantize: x · W (W [K, N], `kn`) or x · Wᵀ (W [N, K]).
struct Gemm {
  Operation *op;
  Value input;
  ConstantOp weight;
  bool kn;
};

/// The GEMM `op` is, or why it stays float.
FailureOr<Gemm> matchGemm(Operation *op, int64_t minK, std::string &why) {
  Gemm g{op, {}, {}, false};
  Value weight;
  if (auto linear = dyn_cast<LinearOp>(op)) {
    g.input = linear.getInput();
    weight = linear.getWeight();
    g.kn = linear.getWeightKn();
  } else if (auto matmul = dyn_cast<MatmulOp>(op)) {
    g.input = matmul.getLhs();
    weight = matmul.getRhs();
    g.kn = true;
  } else {
    return failure();
  }
  auto inputType = cast<RankedTensorType>(g.input.getType());
  auto weightType = cast<RankedTensorType>(weight.getType());
  g.weight = weight.getDefiningOp<ConstantOp>();
  if (!g.weight) {
    why = "the weight is computed at run time (a product of activations)";
    return failure();
  }
  if (weightType.getRank() != 2 || inputType.getRank() < 2) {
    why = "not a matrix weight (batched product)";
    return failure();
  }
  if (!inputType.getElementType().isF32() ||
      !weightType.getElementType().isF32()) {
    why = "not an f32 product";
    return failure();
  }
  int64_t k = inputType.getShape().back();
  if (ShapedType::isDynamic(k) || !weightType.hasStaticShape()) {
    why = "K or the weight's shape is dynamic";
    return failure();
  }
  if (k < minK) {
    why = "K = " + std::to_string(k) + " is below min-input-features";
    return failure();
  }
  return g;
}

/// `w` (rows x cols, row-major) quantized symmetrically per channel: along
/// the rows (`perRow`) or the columns. Returns the i8 data; `scales` gets
/// one f32 scale per channel (1 for an all-zero channel).
std::vector<char> quantizeWeight(ArrayRef<float> w, int64_t rows, int64_t cols,
                                 bool perRow, std::vector<float> &scales) {
  int64_t channels = perRow ? rows : cols;
  std::vector<float> amax(channels, 0.0f);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      float &m = amax[perRow ? r : c];
      m = std::max(m, std::fabs(w[r * cols + c]));
    }
  scales.resize(channels);
  for (int64_t ch = 0; ch < channels; ++ch)
    scales[ch] = amax[ch] > 0.0f ? amax[ch] / kInt8Max : 1.0f;
  std::vector<char> q(rows * cols);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      // Round half to even, as tsc.quantize does.
      float v = std::nearbyint(w[r * cols + c] / scales[perRow ? r : c]);
      q[r * cols + c] = static_cast<char>(std::clamp(v, -kInt8Max, kInt8Max));
    }
  return q;
}

/// A 0-d f32 constant.
Value scalar(OpBuilder &b, Location loc, float value) {
  auto type = RankedTensorType::get({}, b.getF32Type());
  return ConstantOp::create(
      b, loc, DenseElementsAttr::get(type, b.getF32FloatAttr(value)));
}

/// The weight name of `weight` with `suffix` (blobs keep their key).
std::string weightName(ConstantOp weight, StringRef suffix) {
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(weight.getValue()))
    return (resource.getRawHandle().getKey() + suffix).str();
  return ("weight" + suffix).str();
}

/// Rewrites `g` in quantize-dequantize form; failure (with `why`) when the
/// weight's data cannot be read.
LogicalResult quantize(Gemm g, std::string &why) {
  std::optional<std::vector<char>> bytes =
      getConstantBytes(g.weight.getValue());
  auto weightType = cast<RankedTensorType>(g.weight.getType());
  if (!bytes) {
    why = "the weight's data is not available";
    return failure();
  }
  ArrayRef<float> w(reinterpret_cast<const float *>(bytes->data()),
                    bytes->size() / sizeof(float));
  int64_t rows = weightType.getDimSize(0), cols = weightType.getDimSize(1);
  int64_t nDim = g.kn ? 1 : 0;
  std::vector<float> scales;
  std::vector<char> q = quantizeWeight(w, rows, cols, /*perRow=*/!g.kn, scales);

  OpBuilder b(g.op);
  Location loc = g.op->getLoc();
  auto i8 = b.getIntegerType(8);
  auto qType = RankedTensorType::get(weightType.getShape(), i8);
  auto scaleType =
      RankedTensorType::get({weightType.getDimSize(nDim)}, b.getF32Type());
  Value wq = ConstantOp::create(b, loc,
                                cast<ElementsAttr>(getConstantFromBytes(
                                    qType, q, weightName(g.weight, ".s8"))));
  Value ws = ConstantOp::create(
      b, loc,
      cast<ElementsAttr>(getConstantFromBytes(
          scaleType,
          ArrayRef<char>(reinterpret_cast<const char *>(scales.data()),
                         scales.size() * sizeof(float)),
          weightName(g.weight, ".scale"))));
  Value wd = DequantizeOp::create(b, loc, weightType, wq, ws, Value(),
                                  b.getI64IntegerAttr(nDim), IntegerAttr());

  // The activation's scale per row: max(max|x| / 127, FLT_MIN).
  auto inputType = cast<RankedTensorType>(g.input.getType());
  int64_t last = inputType.getRank() - 1;
  int64_t k = inputType.getShape().back();
  Value amax = ReduceMaxOp::create(b, loc, AbsOp::create(b, loc, g.input),
                                   ArrayRef<int64_t>{last}, /*keepdim=*/true);
  Value scale = MaxOp::create(
      b, loc, DivOp::create(b, loc, amax, scalar(b, loc, kInt8Max)),
      scalar(b, loc, kMinInt8Scale));
  IntegerAttr axis = b.getI64IntegerAttr(last), group = b.getI64IntegerAttr(k);
  Value xq = QuantizeOp::create(b, loc, inputType.clone(i8), g.input, scale,
                                Value(), axis, group, /*saturate=*/false);
  Value xd =
      DequantizeOp::create(b, loc, inputType, xq, scale, Value(), axis, group);

  Value result = g.op->getResult(0);
  LinearOp linear;
  if (auto old = dyn_cast<LinearOp>(g.op))
    linear = LinearOp::create(b, loc, result.getType(), xd, wd, old.getBias(),
                              old.getResidual(), old.getWeightKn(),
                              old.getActivation());
  else
    linear = LinearOp::create(b, loc, result.getType(), xd, wd, Value(),
                              Value(), /*weight_kn=*/true);
  result.replaceAllUsesWith(linear.getResult());
  g.op->erase();
  return success();
}

struct QuantizeDynamicInt8Pass
    : public tsc::impl::QuantizeDynamicInt8PassBase<QuantizeDynamicInt8Pass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override {
    llvm::Expected<KeepFloat> parsed = KeepFloat::parse(keepFloat);
    if (!parsed)
      return emitError(UnknownLoc::get(context))
             << llvm::toString(parsed.takeError());
    kept = std::move(*parsed);
    return success();
  }

  void runOnOperation() override {
    SmallVector<Operation *> gemms;
    getOperation().walk([&](Operation *op) {
      if (isa<LinearOp, MatmulOp>(op))
        gemms.push_back(op);
    });
    for (Operation *op : gemms) {
      std::string why;
      if (kept.matches(op)) {
        if (remarks)
          op->emitRemark() << "kept float: named by keep-float ("
                           << getGemmName(op) << ")";
        continue;
      }
      FailureOr<Gemm> g = matchGemm(op, minInputFeatures, why);
      if (succeeded(g) && succeeded(quantize(*g, why)))
        continue;
      // Kept float: say why when asked (lit tests; tsc's report lists the
      // plan's float and int8 GEMMs instead).
      if (remarks && !why.empty())
        op->emitRemark() << "kept float: " << why;
    }
  }

  KeepFloat kept;
};

} // namespace
