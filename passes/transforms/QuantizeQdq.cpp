//===- QuantizeQdq.cpp - QDQ pairs around GEMMs in the int8 GEMM form -----===//
//
// A QDQ model (ONNX Runtime's quantize_static with QuantFormat.QDQ, QAT
// exports) imports to
//
//   %xd = tsc.dequantize (tsc.quantize %x, %s, %z), %s, %z   (per tensor)
//   %wd = tsc.dequantize %wq, %ws, %zw axis = N              (constant s8)
//   %y  = tsc.matmul %xd, %wd
//
// which computes the quantized product in float. This pass rewrites such a
// GEMM into the form the int8 passes make and the host plan runs as an int8
// GEMM step (compiler/plan/QuantizedGemms.cpp): symmetric s8 activations
// with one constant scale, s8 weights with one scale per output channel.
//
// The activation's zero point z (u8 or s8) becomes an s8 zero point: with
// o = 128 for u8 and 0 for s8, q - o is an s8 value,
//   q - o = clamp(round(x / s) + (z - o), -128, 127)
// exactly (the s8 range [-128, 127] is q - o's whole range, so saturation
// happens at the same values), and (q - z) s = ((q - o) - (z - o)) s. So
// the activation is quantize(x, s, z - o) to s8, dequantized by the same:
// static int8's asymmetric form, whose int8 GEMM step (format 1.17) takes
// the zero point's product with the weight's column sums out of the
// product itself. The weight's zero point must be 0 (ONNX Runtime's s8
// weights are symmetric); a per-tensor weight scale is repeated per
// channel.
//
// fp8 QDQ pairs (f8E4M3FN codes, opset 19: what NVIDIA's Model Optimizer
// exports for TensorRT, or ONNX Runtime's quantize_static with
// QFLOAT8E4M3FN) become tsc-quantize-fp8's form the same way: the
// activation per tensor with its saturate flag, the weight's scales per
// output channel; zero points must be 0 (f8 zero points are +0 in
// practice). CUDA targets of sm_89+ then run the product as cuBLASLt's fp8
// GEMM (tsc-expand-quantized-gemms); elsewhere it is computed as written.
//
// Anything else stays the ops the model has (dequantize(quantize(x)) in
// float, the model's semantics): QDQ around other ops, a computed weight,
// scales or zero points that differ between the pair or are not constants.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialects/tsc/IR/ConstantData.h"
#include "dialects/tsc/IR/TscOps.h"
#include "passes/transforms/MatchUtils.h"
#include "passes/transforms/QuantizeGemm.h"
#include "passes/transforms/QuantizeQdq.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Matchers.h"

#include <cstring>
#include <optional>
#include <string>

namespace mlir::tsc {
#define GEN_PASS_DEF_QUANTIZEQDQPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tsc

using namespace mlir;
using namespace mlir::tsc;

std::optional<std::vector<double>> mlir::tsc::getConstantValues(Value v) {
  auto constant = v ? v.getDefiningOp<ConstantOp>() : ConstantOp();
  if (!constant)
    return std::nullopt;
  Type element = cast<RankedTensorType>(v.getType()).getElementType();
  std::optional<std::vector<char>> bytes =
      getConstantBytes(constant.getValue());
  if (!bytes)
    return std::nullopt;
  std::vector<double> values;
  if (element.isF32()) {
    ArrayRef<float> f(reinterpret_cast<const float *>(bytes->data()),
                      bytes->size() / sizeof(float));
    values.assign(f.begin(), f.end());
  } else if (element.isF64()) {
    ArrayRef<double> d(reinterpret_cast<const double *>(bytes->data()),
                       bytes->size() / sizeof(double));
    values.assign(d.begin(), d.end());
  } else if (element.isSignlessInteger(32)) {
    for (size_t i = 0; i + sizeof(int32_t) <= bytes->size();
         i += sizeof(int32_t)) {
      int32_t v;
      std::memcpy(&v, bytes->data() + i, sizeof v);
      values.push_back(double(v));
    }
  } else if (element.isInteger(8)) {
    for (char c : *bytes)
      values.push_back(element.isUnsignedInteger() ? double(uint8_t(c))
                                                   : double(int8_t(c)));
  } else if (auto f8 = dyn_cast<Float8E4M3FNType>(element)) {
    for (char c : *bytes) {
      APFloat code(f8.getFloatSemantics(), APInt(8, uint8_t(c)));
      bool losesInfo;
      code.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven,
                   &losesInfo);
      values.push_back(code.convertToDouble());
    }
  } else {
    return std::nullopt;
  }
  return values;
}

namespace {

/// A per-tensor constant (one value), or nullopt.
std::optional<double> getScalar(Value v) {
  std::optional<std::vector<double>> values = getConstantValues(v);
  if (!values || values->size() != 1)
    return std::nullopt;
  return values->front();
}

/// The activation of a QDQ GEMM: its f32 input, scale and zero point, and
/// its codes (u8, s8 or f8E4M3FN, with the quantization's saturate flag).
struct Activation {
  Value x;
  float scale;
  int64_t zeroPoint;
  bool isUnsigned;
  bool fp8, saturate;
};

FailureOr<Activation> matchActivation(Value input, std::string &why) {
  auto xd = input.getDefiningOp<DequantizeOp>();
  auto xq = xd ? xd.getInput().getDefiningOp<QuantizeOp>() : QuantizeOp();
  if (!xq) {
    why = "its input is not dequantize(quantize(x))";
    return failure();
  }
  auto element = dyn_cast<IntegerType>(xq.getType().getElementType());
  bool fp8 = isa<Float8E4M3FNType>(xq.getType().getElementType());
  if ((!fp8 && (!element || element.getWidth() != 8)) ||
      !xq.getInput().getType().getElementType().isF32() ||
      !xd.getType().getElementType().isF32()) {
    why = "the activation is not f32 quantized to 8-bit integers or "
          "f8E4M3FN";
    return failure();
  }
  if (xq.getAxis() || xq.getGroupSize() || xd.getAxis() || xd.getGroupSize()) {
    why = "the activation is not quantized per tensor";
    return failure();
  }
  std::optional<double> s = getScalar(xq.getScale());
  std::optional<double> sd = getScalar(xd.getScale());
  std::optional<double> z = xq.getZeroPoint() ? getScalar(xq.getZeroPoint())
                                              : std::optional<double>(0.0);
  std::optional<double> zd = xd.getZeroPoint() ? getScalar(xd.getZeroPoint())
                                               : std::optional<double>(0.0);
  if (!s || !sd || !z || !zd) {
    why = "the activation's scale or zero point is not a constant";
    return failure();
  }
  if (*s != *sd || *z != *zd) {
    why = "the quantize and dequantize scales or zero points differ";
    return failure();
  }
  if (!(*s > 0.0) || !std::isfinite(*s)) {
    why = "the activation scale is not a positive finite number";
    return failure();
  }
  if (fp8 && *z != 0.0) {
    why = "the fp8 activation's zero point is not 0";
    return failure();
  }
  return Activation{xq.getInput(), float(*s),
                    int64_t(*z),   element && element.isUnsignedInteger(),
                    fp8,           xq.getSaturate()};
}

/// The weight of a QDQ GEMM: s8 (f8E4M3FN) data with one f32 scale per
/// output channel.
struct Weight {
  ConstantOp data;
  std::vector<float> scales;
};

FailureOr<Weight> matchWeight(Value weight, int64_t nDim, std::string &why) {
  auto wd = weight.getDefiningOp<DequantizeOp>();
  if (!wd) {
    why = "its weight is not a dequantized constant";
    return failure();
  }
  auto data = wd.getInput().getDefiningOp<ConstantOp>();
  RankedTensorType type = wd.getInput().getType();
  if (!data || type.getRank() != 2 || !type.hasStaticShape()) {
    why = "its weight is not a constant matrix";
    return failure();
  }
  if (!(type.getElementType().isSignlessInteger(8) ||
        isa<Float8E4M3FNType>(type.getElementType())) ||
      !wd.getType().getElementType().isF32()) {
    why = "its weight is not s8 or f8E4M3FN dequantized to f32";
    return failure();
  }
  if (wd.getGroupSize() || (wd.getAxis() && *wd.getAxis() != uint64_t(nDim))) {
    why = "its weight is not quantized per tensor or per output channel";
    return failure();
  }
  std::optional<std::vector<double>> scales = getConstantValues(wd.getScale());
  std::optional<std::vector<double>> zeros =
      wd.getZeroPoint()
          ? getConstantValues(wd.getZeroPoint())
          : std::optional<std::vector<double>>(std::vector<double>{0.0});
  if (!scales || !zeros) {
    why = "its weight's scale or zero point is not a constant";
    return failure();
  }
  if (llvm::any_of(*zeros, [](double z) { return z != 0.0; })) {
    why = "its weight has a nonzero zero point";
    return failure();
  }
  int64_t n = type.getDimSize(nDim);
  Weight w{data, {}};
  for (int64_t i = 0; i < n; ++i)
    w.scales.push_back(float((*scales)[scales->size() == 1 ? 0 : i]));
  return w;
}

/// `op` (tsc.linear or tsc.matmul) rewritten into the int8 GEMM form;
/// `inputs` caches the new activation of each dequantized input (Q, K and V
/// share one).
LogicalResult rewrite(Operation *op, DenseMap<Value, Value> &inputs,
                      std::string &why) {
  Value input, weight;
  bool kn = true;
  if (auto linear = dyn_cast<LinearOp>(op)) {
    input = linear.getInput();
    weight = linear.getWeight();
    kn = linear.getWeightKn();
  } else if (auto matmul = dyn_cast<MatmulOp>(op)) {
    input = matmul.getLhs();
    weight = matmul.getRhs();
  } else {
    return failure();
  }
  auto inputType = cast<RankedTensorType>(input.getType());
  if (inputType.getRank() < 2 ||
      cast<RankedTensorType>(weight.getType()).getRank() != 2) {
    why = "not a product by a matrix";
    return failure();
  }
  int64_t nDim = kn ? 1 : 0;
  FailureOr<Activation> act = matchActivation(input, why);
  if (failed(act))
    return failure();
  FailureOr<Weight> w = matchWeight(weight, nDim, why);
  if (failed(w))
    return failure();
  Type codes = w->data.getType().getElementType();
  if (act->fp8 != isa<Float8E4M3FNType>(codes)) {
    why = "the activation's and the weight's codes are not both integers or "
          "both f8E4M3FN";
    return failure();
  }

  OpBuilder b(op);
  Location loc = op->getLoc();
  int64_t zeroPoint = act->zeroPoint - (act->isUnsigned ? 128 : 0);
  if (zeroPoint < -128 || zeroPoint > 127) {
    why = "the activation's zero point is outside its type's range";
    return failure();
  }
  Value &xd = inputs[input];
  if (!xd) {
    Value s = createScalar(b, loc, act->scale);
    Value z;
    if (zeroPoint != 0)
      z = ConstantOp::create(
          b, loc,
          DenseElementsAttr::get(RankedTensorType::get({}, b.getI8Type()),
                                 b.getIntegerAttr(b.getI8Type(), zeroPoint)));
    Value xq = QuantizeOp::create(
        b, loc, inputType.clone(act->fp8 ? codes : b.getI8Type()), act->x, s, z,
        IntegerAttr(), IntegerAttr(), /*saturate=*/act->fp8 && act->saturate);
    xd = DequantizeOp::create(b, loc, inputType, xq, s, z, IntegerAttr(),
                              IntegerAttr());
  }

  // The weight without zero point, one scale per output channel.
  RankedTensorType qType = w->data.getType();
  int64_t n = qType.getDimSize(nDim);
  auto scaleType = RankedTensorType::get({n}, b.getF32Type());
  Value ws = ConstantOp::create(
      b, loc,
      cast<ElementsAttr>(getConstantFromValues(
          scaleType, ArrayRef<float>(w->scales), "qdq.weight.scale")));
  Value wd =
      DequantizeOp::create(b, loc, weight.getType(), w->data, ws, Value(),
                           b.getI64IntegerAttr(nDim), IntegerAttr());

  replaceGemm(QuantizableGemm{op, input, {}, kn}, xd, wd);
  return success();
}

/// `gather(dequantize(Wq, s, z), ids)` of a constant table (an embedding
/// that ONNX Runtime's quantize_static quantized) becomes `dequantize(
/// gather(Wq, ids), s, z)`: the same values, as dequantization is
/// elementwise, but each run dequantizes the rows it reads instead of the
/// whole table (BERT-base's 30522 x 768 words: 7.4 of 56 ms a run at batch
/// 1). Per tensor, or per channel along a dim the gather keeps; per group,
/// or per channel along the gathered dim, it stays as it is.
void gatherCodes(GatherOp gather) {
  auto dq = gather.getData().getDefiningOp<DequantizeOp>();
  if (!dq || !dq.getInput().getDefiningOp<ConstantOp>() || dq.getGroupSize())
    return;
  int64_t axis = gather.getAxis();
  OpBuilder b(gather);
  IntegerAttr channels;
  if (std::optional<uint64_t> along = dq.getAxis()) {
    int64_t a = int64_t(*along);
    if (a == axis)
      return;
    // The gathered dim becomes the indices' dims.
    if (a > axis)
      a += gather.getIndices().getType().getRank() - 1;
    channels = b.getI64IntegerAttr(a);
  }
  Location loc = gather.getLoc();
  Value codes =
      GatherOp::create(b, loc, dq.getInput(), gather.getIndices(), axis);
  Value values =
      DequantizeOp::create(b, loc, gather.getType(), codes, dq.getScale(),
                           dq.getZeroPoint(), channels, IntegerAttr());
  gather.getResult().replaceAllUsesWith(values);
  gather.erase();
}

/// `dequantize(Wq, s[, z])` of constants of at most kMaxFoldedElements (the
/// dialect folders' bound) that no GEMM reads (ONNX Runtime's
/// quantize_static quantizes the norms' weights and the biases of MatMul +
/// Add to 8 bits) becomes the f32 constant it computes, with
/// the arithmetic of its kernel: `f32(i32(q) - i32(z)) * s`, the same bits.
/// Each was a kernel launch per run (BERT-base: 120 of them), and a bias
/// that is a constant can be the int8 GEMM step's own.
void foldConstantDequantize(DequantizeOp dq) {
  RankedTensorType type = dq.getType();
  auto codes = dq.getInput().getDefiningOp<ConstantOp>();
  auto integer =
      dyn_cast<IntegerType>(dq.getInput().getType().getElementType());
  if (!codes || !integer || !type.getElementType().isF32() ||
      dq.getGroupSize() || !type.hasStaticShape() ||
      type.getNumElements() > kMaxFoldedElements ||
      !dq.getScale().getType().getElementType().isF32() ||
      llvm::any_of(dq->getUsers(), [](Operation *user) {
        return isa<LinearOp, MatmulOp>(user);
      }))
    return;
  // tsc.dequantize takes 2- to 16-bit integer codes; 2 and 4 are packed.
  unsigned width = integer.getWidth();
  if (width != 8 && width != 16)
    return;
  std::optional<std::vector<char>> q = getConstantBytes(codes.getValue());
  std::optional<std::vector<double>> scales = getConstantValues(dq.getScale());
  std::optional<std::vector<char>> zeros;
  if (Value zeroPoint = dq.getZeroPoint()) {
    auto z = zeroPoint.getDefiningOp<ConstantOp>();
    if (!z)
      return;
    zeros = getConstantBytes(z.getValue());
    if (!zeros)
      return;
  }
  if (!q || !scales)
    return;
  // The element at `i` of raw bytes `bytes`, widened to i32 by the codes'
  // signedness as the kernel widens it.
  auto code = [&](const std::vector<char> &bytes, int64_t i) -> int32_t {
    const char *at = bytes.data() + i * (width / 8);
    if (width == 8)
      return integer.isUnsigned() ? int32_t(uint8_t(*at))
                                  : int32_t(int8_t(*at));
    uint16_t u;
    std::memcpy(&u, at, sizeof u);
    return integer.isUnsigned() ? int32_t(u) : int32_t(int16_t(u));
  };
  int64_t count = type.getNumElements(), stride = 1, channels = 1;
  if (std::optional<uint64_t> axis = dq.getAxis()) {
    channels = type.getDimSize(int64_t(*axis));
    for (int64_t d = int64_t(*axis) + 1; d < type.getRank(); ++d)
      stride *= type.getDimSize(d);
  }
  size_t params = channels;
  if (scales->size() != params ||
      (zeros && zeros->size() != params * (width / 8)) ||
      q->size() != size_t(count) * (width / 8))
    return;
  std::vector<float> values(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    int64_t c = (i / stride) % channels;
    // |q - z| < 2^17: exact in i32 and in f32.
    int32_t difference = code(*q, i) - (zeros ? code(*zeros, c) : 0);
    values[size_t(i)] = float(difference) * float((*scales)[size_t(c)]);
  }
  OpBuilder b(dq);
  Value folded = ConstantOp::create(
      b, dq.getLoc(),
      cast<ElementsAttr>(getConstantFromValues(
          type, ArrayRef<float>(values), weightName(codes, ".dequantized"))));
  dq.getResult().replaceAllUsesWith(folded);
}

struct QuantizeQdqPass
    : public tsc::impl::QuantizeQdqPassBase<QuantizeQdqPass> {
  using QuantizeQdqPassBase::QuantizeQdqPassBase;

  void runOnOperation() override {
    SmallVector<GatherOp> gathers;
    getOperation().walk([&](GatherOp op) { gathers.push_back(op); });
    for (GatherOp gather : gathers)
      gatherCodes(gather);
    // QLinearMatMul's integer form first: it becomes a QDQ product, which
    // the loop below rewrites like any other.
    DenseMap<Value, Value> dequantized;
    SmallVector<CastOp> casts;
    getOperation().walk([&](CastOp op) { casts.push_back(op); });
    for (CastOp cast : casts)
      (void)rewriteRequantizedProduct(cast, dequantized);
    DenseMap<Value, Value> inputs;
    for (Operation *op : getGemmOps(getOperation())) {
      auto operands = op->getOperands().take_front(2);
      bool qdq = llvm::any_of(operands, [](Value v) {
        return v.getDefiningOp<DequantizeOp>() != nullptr;
      });
      std::string why;
      if (qdq && failed(rewrite(op, inputs, why)) && remarks)
        op->emitRemark() << "kept float: " << why;
    }
    SmallVector<MulOp> muls;
    getOperation().walk([&](MulOp op) { muls.push_back(op); });
    for (MulOp mul : muls)
      (void)rewriteIntegerProduct(mul, dequantized);
    // The integer products left (both operands run-time codes) in f32
    // where that is exact.
    rewriteExactIntegerProducts(getOperation());
    // The pairs the GEMMs no longer read (before folding: a rewritten
    // product's first weight dequantization would become an f32 copy of the
    // weight), and then the folded dequantizations.
    eraseUnreadPairs();
    getOperation().walk([](DequantizeOp dq) { foldConstantDequantize(dq); });
    eraseUnreadPairs();
  }

  void eraseUnreadPairs() {
    SmallVector<Operation *> dead;
    getOperation().walk([&](Operation *op) {
      if (isa<DequantizeOp, QuantizeOp>(op))
        dead.push_back(op);
    });
    for (Operation *op : llvm::reverse(dead))
      if (op->use_empty())
        op->erase();
  }
};

} // namespace
