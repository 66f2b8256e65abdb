//===- QuantizeGemm.cpp - a GEMM by a constant weight in int8 form --------===//

#include "passes/transforms/QuantizeGemm.h"

#include "dialects/tsc/IR/ConstantData.h"
#include "passes/transforms/DynamicInt8.h"
#include "passes/transforms/KeepFloat.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace mlir;
using namespace mlir::tsc;

FailureOr<QuantizableGemm>
tsc::matchQuantizableGemm(Operation *op, int64_t minK, std::string &why) {
  QuantizableGemm g{op, {}, {}, false};
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

namespace {

/// `w` (rows x cols, row-major) quantized symmetrically per channel: along
/// the rows (`perRow`) or the columns, max|w| onto `max`. Returns the
/// codes, one byte each; `scales` gets one f32 scale per channel (1 for an
/// all-zero channel).
std::vector<char> quantizeWeight(ArrayRef<float> w, int64_t rows, int64_t cols,
                                 bool perRow, Codes codes, float max,
                                 std::vector<float> &scales) {
  int64_t channels = perRow ? rows : cols;
  std::vector<float> amax(channels, 0.0f);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      float &m = amax[perRow ? r : c];
      m = std::max(m, std::fabs(w[r * cols + c]));
    }
  scales.resize(channels);
  for (int64_t ch = 0; ch < channels; ++ch)
    scales[ch] = amax[ch] > 0.0f ? amax[ch] / max : 1.0f;
  std::vector<char> q(rows * cols);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      float v = w[r * cols + c] / scales[perRow ? r : c];
      // Round half to even, as tsc.quantize does.
      q[r * cols + c] =
          codes == Codes::S8
              ? static_cast<char>(std::clamp(std::nearbyint(v), -max, max))
              : static_cast<char>(roundToF8E4M3FN(v));
    }
  return q;
}

/// The value of one code, as tsc.dequantize reads it before the scale.
float getCodeValue(Codes codes, char code) {
  if (codes == Codes::S8)
    return float(static_cast<int8_t>(code));
  APFloat value(APFloat::Float8E4M3FN(), APInt(8, uint8_t(code)));
  bool lost = false;
  value.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &lost);
  return value.convertToFloat();
}

Type getCodesType(MLIRContext *context, Codes codes) {
  return codes == Codes::S8 ? Type(IntegerType::get(context, 8))
                            : Type(Float8E4M3FNType::get(context));
}

} // namespace

std::string tsc::weightName(ConstantOp weight, StringRef suffix) {
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(weight.getValue()))
    return (resource.getRawHandle().getKey() + suffix).str();
  return ("weight" + suffix).str();
}

FailureOr<KeptPrecision> tsc::parseKeptPrecision(MLIRContext *context,
                                                 StringRef text) {
  if (text == "f32")
    return KeptPrecision::F32;
  if (text == "bf16")
    return KeptPrecision::BF16;
  return emitError(UnknownLoc::get(context))
         << "kept-precision: '" << text << "': expected f32 or bf16";
}

void tsc::keepGemm(Operation *op, KeptPrecision precision, int64_t minK,
                   bool remarks) {
  std::string name = getGemmName(op), why;
  FailureOr<Operation *> rounded = failure();
  if (precision == KeptPrecision::BF16)
    if (FailureOr<QuantizableGemm> g = matchQuantizableGemm(op, minK, why);
        succeeded(g))
      rounded = roundGemmToBf16(*g, why);
  if (!remarks)
    return;
  InFlightDiagnostic remark = (succeeded(rounded) ? *rounded : op)->emitRemark()
                              << "kept "
                              << (succeeded(rounded) ? "in bf16" : "float")
                              << ": named by keep-float (" << name << ")";
  // Asked for bf16 and left f32: why.
  if (failed(rounded) && !why.empty())
    remark << "; not in bf16: " << why;
}

void tsc::quantizeGemms(
    Operation *func, const KeepFloat &kept, KeptPrecision keptPrecision,
    int64_t minK, bool remarks,
    function_ref<LogicalResult(QuantizableGemm, std::string &)> quantize) {
  for (Operation *op : getGemmOps(func)) {
    std::string why;
    if (kept.matches(op)) {
      keepGemm(op, keptPrecision, minK, remarks);
      continue;
    }
    FailureOr<QuantizableGemm> g = matchQuantizableGemm(op, minK, why);
    if (succeeded(g) && succeeded(quantize(*g, why)))
      continue;
    // Kept float: say why when asked (lit tests; tsc's report lists the
    // plan's float and quantized GEMMs instead).
    if (remarks && !why.empty())
      op->emitRemark() << "kept float: " << why;
  }
}
SmallVector<Operation *> tsc::getGemmOps(Operation *func) {
  SmallVector<Operation *> gemms;
  func->walk([&](Operation *op) {
    if (isa<LinearOp, MatmulOp>(op))
      gemms.push_back(op);
  });
  return gemms;
}

Value tsc::createScalar(OpBuilder &b, Location loc, float value) {
  auto type = RankedTensorType::get({}, b.getF32Type());
  return ConstantOp::create(
      b, loc, DenseElementsAttr::get(type, b.getF32FloatAttr(value)));
}

float tsc::getCodesMax(Codes codes) {
  return codes == Codes::S8 ? kInt8Max : 448.0f;
}

FailureOr<Value> tsc::createQuantizedWeight(QuantizableGemm g, std::string &why,
                                            Codes codes,
                                            ArrayRef<float> inputMeans,
                                            std::vector<float> *meanError,
                                            float codesMax) {
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
  std::vector<char> q = quantizeWeight(
      w, rows, cols, /*perRow=*/!g.kn, codes,
      codesMax > 0 && codes == Codes::S8 ? codesMax : getCodesMax(codes),
      scales);
  if (meanError) {
    int64_t k = g.kn ? rows : cols;
    if (int64_t(inputMeans.size()) != k) {
      why = "the input means are not one per input channel";
      return failure();
    }
    *meanError = getMeanError(
        w, rows, cols, g.kn, inputMeans, [&](int64_t i, int64_t, int64_t n) {
          return getCodeValue(codes, q[size_t(i)]) * scales[size_t(n)];
        });
  }

  OpBuilder b(g.op);
  Location loc = g.op->getLoc();
  auto qType = RankedTensorType::get(weightType.getShape(),
                                     getCodesType(b.getContext(), codes));
  auto scaleType =
      RankedTensorType::get({weightType.getDimSize(nDim)}, b.getF32Type());
  Value wq = ConstantOp::create(
      b, loc,
      cast<ElementsAttr>(getConstantFromBytes(
          qType, q, weightName(g.weight, codes == Codes::S8 ? ".s8" : ".f8"))));
  Value ws = ConstantOp::create(
      b, loc,
      cast<ElementsAttr>(getConstantFromValues(
          scaleType, ArrayRef<float>(scales), weightName(g.weight, ".scale"))));
  return DequantizeOp::create(b, loc, weightType, wq, ws, Value(),
                              b.getI64IntegerAttr(nDim), IntegerAttr())
      .getResult();
}

Value tsc::quantizeRows(QuantizableGemm g, Codes codes) {
  OpBuilder b(g.op);
  Location loc = g.op->getLoc();
  auto inputType = cast<RankedTensorType>(g.input.getType());
  int64_t last = inputType.getRank() - 1;
  int64_t k = inputType.getShape().back();
  Value amax = ReduceMaxOp::create(b, loc, AbsOp::create(b, loc, g.input),
                                   ArrayRef<int64_t>{last}, /*keepdim=*/true);
  Value scale = MaxOp::create(
      b, loc,
      DivOp::create(b, loc, amax, createScalar(b, loc, getCodesMax(codes))),
      createScalar(b, loc, kMinInt8Scale));
  IntegerAttr axis = b.getI64IntegerAttr(last), group = b.getI64IntegerAttr(k);
  Value xq = QuantizeOp::create(
      b, loc, inputType.clone(getCodesType(b.getContext(), codes)), g.input,
      scale, Value(), axis, group, /*saturate=*/codes == Codes::F8E4M3FN);
  return DequantizeOp::create(b, loc, inputType, xq, scale, Value(), axis,
                              group);
}

Value tsc::quantizePerTensor(QuantizableGemm g, Codes codes, float scale,
                             std::optional<int8_t> zeroPoint) {
  assert((!zeroPoint || codes == Codes::S8) && "zero points are s8's");
  OpBuilder b(g.op);
  Location loc = g.op->getLoc();
  auto inputType = cast<RankedTensorType>(g.input.getType());
  Value s = createScalar(b, loc, scale);
  Value z;
  if (zeroPoint)
    z = ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(RankedTensorType::get({}, b.getI8Type()),
                               b.getIntegerAttr(b.getI8Type(), *zeroPoint)));
  Value xq = QuantizeOp::create(
      b, loc, inputType.clone(getCodesType(b.getContext(), codes)), g.input, s,
      z, IntegerAttr(), IntegerAttr(), /*saturate=*/codes == Codes::F8E4M3FN);
  return DequantizeOp::create(b, loc, inputType, xq, s, z, IntegerAttr(),
                              IntegerAttr());
}

float tsc::roundToBf16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  // tsc.cast's folder rounds so (without saturation); a NaN stays one,
  // quiet, as a conversion leaves it.
  std::optional<uint16_t> h = roundF32BitsToBf16(bits, /*saturate=*/false);
  bits = h ? uint32_t(*h) << 16 : (bits | 0x00400000u) & 0xFFFF0000u;
  std::memcpy(&value, &bits, sizeof bits);
  return value;
}

FailureOr<Operation *> tsc::roundGemmToBf16(QuantizableGemm g,
                                            std::string &why) {
  std::optional<std::vector<char>> bytes =
      getConstantBytes(g.weight.getValue());
  if (!bytes) {
    why = "the weight's data is not available";
    return failure();
  }
  for (size_t i = 0; i + sizeof(float) <= bytes->size(); i += sizeof(float)) {
    float w;
    std::memcpy(&w, bytes->data() + i, sizeof w);
    w = roundToBf16(w);
    std::memcpy(bytes->data() + i, &w, sizeof w);
  }
  OpBuilder b(g.op);
  Location loc = g.op->getLoc();
  auto weightType = cast<RankedTensorType>(g.weight.getType());
  Value weight = ConstantOp::create(
      b, loc,
      cast<ElementsAttr>(getConstantFromBytes(weightType, *bytes,
                                              weightName(g.weight, ".bf16"))));
  // Exactly rounded and widened: the finite values that would overflow bf16
  // become infinite, as the GEMM's conversion makes them.
  auto inputType = cast<RankedTensorType>(g.input.getType());
  Value narrow =
      CastOp::create(b, loc, inputType.clone(b.getBF16Type()), g.input,
                     /*saturate=*/false, ExponentRoundingAttr());
  Value input = CastOp::create(b, loc, inputType, narrow, /*saturate=*/false,
                               ExponentRoundingAttr());
  return replaceGemm(g, input, weight).getOperation();
}

ArrayRef<float> tsc::getInputMeans(QuantizableGemm g) {
  auto means = g.op->getAttrOfType<DenseF32ArrayAttr>(kInputMeanAttr);
  int64_t k = cast<RankedTensorType>(g.input.getType()).getShape().back();
  if (!means || int64_t(means.size()) != k ||
      !llvm::all_of(means.asArrayRef(),
                    [](float m) { return std::isfinite(m); }))
    return {};
  return means.asArrayRef();
}

void tsc::removeInputMeans(Operation *func) {
  for (Operation *op : getGemmOps(func))
    op->removeAttr(kInputMeanAttr);
}

Value tsc::correctBias(QuantizableGemm g, ArrayRef<float> meanError) {
  // A weight with an infinity or NaN: no correction rather than a NaN bias.
  if (!llvm::all_of(meanError, [](float e) { return std::isfinite(e); }))
    return Value();
  OpBuilder b(g.op);
  Location loc = g.op->getLoc();
  auto type =
      RankedTensorType::get({int64_t(meanError.size())}, b.getF32Type());
  Value correction =
      ConstantOp::create(b, loc,
                         cast<ElementsAttr>(getConstantFromValues(
                             type, meanError, weightName(g.weight, ".bias"))));
  auto linear = dyn_cast<LinearOp>(g.op);
  Value bias = linear ? linear.getBias() : Value();
  if (!bias)
    return correction;
  Value sum = addBiases(b, loc, bias, correction);
  // Summed into one constant: the correction's own is dead.
  if (correction.use_empty())
    correction.getDefiningOp()->erase();
  return sum;
}

Value tsc::addBiases(OpBuilder &b, Location loc, Value first, Value second) {
  auto x = first.getDefiningOp<ConstantOp>();
  auto y = second.getDefiningOp<ConstantOp>();
  auto type = cast<RankedTensorType>(first.getType());
  if (x && y && type == second.getType() && type.getElementType().isF32())
    if (std::optional<std::vector<char>> a = getConstantBytes(x.getValue()))
      if (std::optional<std::vector<char>> c = getConstantBytes(y.getValue());
          c && a->size() == c->size()) {
        std::vector<float> sum(a->size() / sizeof(float));
        for (size_t i = 0; i < sum.size(); ++i)
          sum[i] = reinterpret_cast<const float *>(a->data())[i] +
                   reinterpret_cast<const float *>(c->data())[i];
        return ConstantOp::create(
            b, loc,
            cast<ElementsAttr>(getConstantFromValues(type, ArrayRef<float>(sum),
                                                     weightName(x, "+bias"))));
      }
  return AddOp::create(b, loc, first, second);
}

std::vector<float> tsc::getMeanError(
    ArrayRef<float> w, int64_t rows, int64_t cols, bool kn,
    ArrayRef<float> means,
    function_ref<float(int64_t i, int64_t k, int64_t n)> dequantized) {
  std::vector<double> error(size_t(kn ? cols : rows), 0.0);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      int64_t i = r * cols + c, k = kn ? r : c, n = kn ? c : r;
      error[size_t(n)] += double(means[size_t(k)]) *
                          (double(w[size_t(i)]) - double(dequantized(i, k, n)));
    }
  return std::vector<float>(error.begin(), error.end());
}

LinearOp tsc::replaceGemm(QuantizableGemm g, Value input, Value weight,
                          Value bias) {
  OpBuilder b(g.op);
  Location loc = g.op->getLoc();
  Value result = g.op->getResult(0);
  auto old = dyn_cast<LinearOp>(g.op);
  if (!bias && old)
    bias = old.getBias();
  LinearOp linear;
  if (old)
    linear = LinearOp::create(b, loc, result.getType(), input, weight, bias,
                              old.getResidual(), old.getWeightKn(),
                              old.getActivation());
  else
    linear = LinearOp::create(b, loc, result.getType(), input, weight, bias,
                              Value(), /*weight_kn=*/true);
  result.replaceAllUsesWith(linear.getResult());
  g.op->erase();
  return linear;
}
