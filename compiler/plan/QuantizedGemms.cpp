//===- QuantizedGemms.cpp - linear ops in int8 form, as int8 GEMM steps ---===//
//
// tsc-quantize-dynamic-int8 and tsc-quantize-static-int8 leave each
// quantized GEMM as a tsc.linear on dequantized operands
// (docs/quantization.md). The plan runs such a linear as one int8 GEMM
// step, which quantizes the activation per row (dynamic) or by a constant
// (static), multiplies s8 by s8 into s32 and dequantizes in its epilogue:
// the ops computing the scale and the (de)quantized operands become part
// of the step. Anything
// else (another scale formula, a quantized value read elsewhere) stays the
// ops the IR has, which the generated kernels compute exactly.
//
//===----------------------------------------------------------------------===//

#include "compiler/plan/Planning.h"

#include "dialects/tsc/IR/ConstantData.h"
#include "dialects/tsc/IR/TscOps.h"
#include "passes/transforms/DynamicInt8.h"

#include "mlir/IR/Matchers.h"

#include <cmath>
#include <cstring>

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::plan;

namespace {

/// Whether `v` is a constant whose every element is `value` (f32).
bool isSplat(Value v, float value) {
  DenseElementsAttr attr;
  if (!matchPattern(v, m_Constant(&attr)) || !attr.isSplat() ||
      !attr.getElementType().isF32())
    return false;
  return attr.getSplatValue<APFloat>().convertToFloat() == value;
}

/// Whether `scale` is `max(max|x| / 127, FLT_MIN)` over the last dim of `x`
/// (kept), appending its ops to `ops`.
bool isRowScale(Value scale, Value x, SmallVectorImpl<Operation *> &ops) {
  auto max = scale.getDefiningOp<MaxOp>();
  if (!max || !isSplat(max.getRhs(), kMinInt8Scale))
    return false;
  auto div = max.getLhs().getDefiningOp<DivOp>();
  if (!div || !isSplat(div.getRhs(), kInt8Max))
    return false;
  auto reduce = div.getLhs().getDefiningOp<ReduceMaxOp>();
  int64_t last = cast<RankedTensorType>(x.getType()).getRank() - 1;
  if (!reduce || !reduce.getKeepdim() ||
      reduce.getDims() != ArrayRef<int64_t>{last})
    return false;
  auto abs = reduce.getInput().getDefiningOp<AbsOp>();
  if (!abs || abs.getInput() != x)
    return false;
  ops.append({abs, reduce, div, max});
  return true;
}

/// Whether a (de)quantization is symmetric (no zero point) per row of the
/// last dim: axis = rank - 1, one group of the whole row.
template <typename OpT> bool isPerRow(OpT op, RankedTensorType data) {
  int64_t last = data.getRank() - 1;
  return !op.getZeroPoint() && op.getAxis() == uint64_t(last) &&
         !ShapedType::isDynamic(data.getShape().back()) &&
         op.getGroupSize() == uint64_t(data.getShape().back());
}

/// The positive, finite value of `scale` when it is a 0-d f32 constant
/// (static int8's calibrated scale), else 0.
float getConstantScale(Value scale) {
  DenseElementsAttr attr;
  auto type = cast<RankedTensorType>(scale.getType());
  if (type.getRank() != 0 || !type.getElementType().isF32() ||
      !matchPattern(scale, m_Constant(&attr)))
    return 0.0f;
  float value = attr.getSplatValue<APFloat>().convertToFloat();
  return std::isfinite(value) && value > 0.0f ? value : 0.0f;
}

/// Whether a (de)quantization is per tensor: no axis or group.
template <typename OpT> bool isPerTensor(OpT op) {
  return !op.getAxis() && !op.getGroupSize();
}

/// The value of `zeroPoint` when it is a 0-d constant of a signed or
/// signless i8 (0 when absent), else nullopt.
std::optional<int32_t> getConstantZeroPoint(Value zeroPoint) {
  if (!zeroPoint)
    return 0;
  return getInt8Scalar(zeroPoint);
}

/// `op`'s operands as (a, b) with `a` defined by an OpT and `b` the f32
/// splat `value`, in either order; nulls otherwise.
template <typename OpT, typename BinaryOp>
OpT withSplat(BinaryOp op, float value) {
  for (auto [a, b] : {std::pair(op.getLhs(), op.getRhs()),
                      std::pair(op.getRhs(), op.getLhs())})
    if (auto def = a.template getDefiningOp<OpT>(); def && isSplat(b, value))
      return def;
  return OpT();
}

/// Whether `scale` and `zeroPoint` are ONNX DynamicQuantizeLinear's of `x`,
/// as the importer builds them (passes/conversion/OnnxToTsc/
/// Quantization.cpp): lo = min(reduce_min(x), 0), hi = max(reduce_max(x),
/// 0) over every dim, scale = (hi - lo) / 255, zeroPoint = quantize(-lo,
/// scale) to u8. Appends their ops to `ops`.
bool isRange(Value scale, Value zeroPoint, Value x,
             SmallVectorImpl<Operation *> &ops) {
  auto div = scale.getDefiningOp<DivOp>();
  auto span = div && isSplat(div.getRhs(), 255.0f)
                  ? div.getLhs().getDefiningOp<SubOp>()
                  : SubOp();
  auto hi = span ? span.getLhs().getDefiningOp<MaxOp>() : MaxOp();
  auto lo = span ? span.getRhs().getDefiningOp<MinOp>() : MinOp();
  auto reduceMax = hi ? withSplat<ReduceMaxOp>(hi, 0.0f) : ReduceMaxOp();
  auto reduceMin = lo ? withSplat<ReduceMinOp>(lo, 0.0f) : ReduceMinOp();
  int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
  auto all = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  if (!reduceMax || !reduceMin || reduceMax.getInput() != x ||
      reduceMin.getInput() != x || reduceMax.getDims() != ArrayRef(all) ||
      reduceMin.getDims() != ArrayRef(all))
    return false;
  auto zq = zeroPoint ? zeroPoint.getDefiningOp<QuantizeOp>() : QuantizeOp();
  auto neg = zq ? zq.getInput().getDefiningOp<NegOp>() : NegOp();
  if (!neg || neg.getInput() != lo || zq.getScale() != scale ||
      zq.getZeroPoint() || !isPerTensor(zq) ||
      !zq.getType().getElementType().isUnsignedInteger(8) ||
      zq.getType().getRank() != 0)
    return false;
  ops.append({reduceMin, reduceMax, lo, hi, span, div, neg, zq});
  return true;
}

/// Whether `xq` and `xd` quantize the activation in one of the int8 forms:
/// per row by the dynamic formula (appending the scale's ops to
/// `g.absorbed`), per tensor by a constant (setting `g.inputScale`) and
/// a constant zero point, the same in both (`g.inputZeroPoint`), or (with
/// `hostForms`, u8 codes) per tensor by its range (`g.inputRange`).
bool matchActivation(QuantizeOp xq, DequantizeOp xd, planner::Int8Gemm &g,
                     bool hostForms) {
  auto data = xq.getInput().getType();
  if (xq.getType().getElementType().isUnsignedInteger(8))
    return hostForms && isPerTensor(xq) && isPerTensor(xd) &&
           xq.getZeroPoint() == xd.getZeroPoint() &&
           (g.inputRange = isRange(xq.getScale(), xq.getZeroPoint(),
                                   xq.getInput(), g.absorbed));
  if (isPerTensor(xq) && isPerTensor(xd)) {
    std::optional<int32_t> zq = getConstantZeroPoint(xq.getZeroPoint());
    std::optional<int32_t> zd = getConstantZeroPoint(xd.getZeroPoint());
    if (!zq || zq != zd)
      return false;
    g.inputScale = getConstantScale(xq.getScale());
    g.inputZeroPoint = *zq;
    return g.inputScale > 0.0f;
  }
  return !xq.getZeroPoint() && !xd.getZeroPoint() &&
         isPerRow(xd, xd.getInput().getType()) && isPerRow(xq, data) &&
         isRowScale(xq.getScale(), xq.getInput(), g.absorbed);
}

/// `linear` in weight-only form (an f32 activation by a dequantized i8 or
/// i4 constant, per output channel or per group along K, with or without
/// constant zero points of the codes' type, one per scale), or nothing.
std::optional<planner::Int8Gemm> matchWeightOnly(LinearOp linear) {
  auto wd = linear.getWeight().getDefiningOp<DequantizeOp>();
  Value zeroPoint = wd ? wd.getZeroPoint() : Value();
  if (zeroPoint &&
      (!zeroPoint.getDefiningOp<ConstantOp>() ||
       cast<RankedTensorType>(zeroPoint.getType()).getElementType() !=
           wd.getInput().getType().getElementType() ||
       cast<RankedTensorType>(zeroPoint.getType()).getShape() !=
           wd.getScale().getType().getShape()))
    return std::nullopt;
  if (!wd || !linear.getInput().getType().getElementType().isF32() ||
      !linear.getType().getElementType().isF32() ||
      !wd.getInput().getDefiningOp<ConstantOp>() ||
      !wd.getScale().getDefiningOp<ConstantOp>() ||
      !wd.getScale().getType().getElementType().isF32() || !wd.getAxis())
    return std::nullopt;
  Type element = wd.getInput().getType().getElementType();
  if (!element.isSignlessInteger(8) && !element.isSignlessInteger(4))
    return std::nullopt;
  int64_t outputDim = linear.getOutputFeaturesDim();
  int64_t axis = int64_t(*wd.getAxis());
  planner::Int8Gemm g;
  if (!wd.getGroupSize()) {
    if (axis != outputDim)
      return std::nullopt;
  } else {
    // Groups along K, the dim that is not the output features'.
    int64_t k = wd.getInput().getType().getDimSize(1 - outputDim);
    if (axis != 1 - outputDim || *wd.getGroupSize() == 0 ||
        int64_t(*wd.getGroupSize()) > k)
      return std::nullopt;
    g.groupSize = unsigned(*wd.getGroupSize());
  }
  g.weightOnly = true;
  g.input = linear.getInput();
  g.weight = wd.getInput();
  g.scale = wd.getScale();
  g.zeroPoint = zeroPoint;
  g.absorbed.push_back(wd);
  return g;
}

/// Whether every element of the f32 constant `weight` is a bf16 value.
bool holdsBf16Values(ConstantOp weight) {
  std::optional<std::vector<char>> bytes = getConstantBytes(weight.getValue());
  if (!bytes)
    return false;
  for (size_t i = 0; i + sizeof(float) <= bytes->size(); i += sizeof(float)) {
    uint32_t bits;
    std::memcpy(&bits, bytes->data() + i, sizeof bits);
    // A NaN's payload need not survive; a number's low half must be 0.
    if ((bits & 0xFFFFu) && (bits & 0x7F800000u) != 0x7F800000u)
      return false;
  }
  return true;
}

/// `linear` with bf16 inputs (roundGemmToBf16's form), or nothing.
std::optional<planner::Int8Gemm> matchBf16(LinearOp linear) {
  auto widen = linear.getInput().getDefiningOp<CastOp>();
  if (!widen || !linear.getType().getElementType().isF32() ||
      !widen.getType().getElementType().isF32())
    return std::nullopt;
  auto narrow = widen.getInput().getDefiningOp<CastOp>();
  if (!narrow || !narrow.getType().getElementType().isBF16() ||
      !narrow.getInput().getType().getElementType().isF32() ||
      narrow.getSaturate() || widen.getSaturate())
    return std::nullopt;
  auto weight = linear.getWeight().getDefiningOp<ConstantOp>();
  if (!weight || !weight.getType().getElementType().isF32() ||
      !holdsBf16Values(weight))
    return std::nullopt;
  planner::Int8Gemm g;
  g.bf16 = true;
  g.input = narrow.getInput();
  g.weight = weight;
  g.absorbed.append({narrow, widen});
  return g;
}

/// Whether `x` is `mul(a, m)` with m a [K] f32 constant, K the last dim of
/// the f32 `a`, the smoothing of tsc-quantize-static-int8 and
/// tsc-quantize-dynamic-int8 (whose row scale then reads the product too):
/// `g.input` becomes a, `g.inputMultiplier` m, and the mul is absorbed.
bool matchMultiplier(Value x, planner::Int8Gemm &g) {
  auto mul = x.getDefiningOp<MulOp>();
  if (!mul)
    return false;
  auto type = cast<RankedTensorType>(x.getType());
  int64_t k = type.getShape().back();
  for (auto [a, m] : {std::pair(mul.getLhs(), mul.getRhs()),
                      std::pair(mul.getRhs(), mul.getLhs())}) {
    auto mType = cast<RankedTensorType>(m.getType());
    if (a.getType() != type || !m.getDefiningOp<ConstantOp>() ||
        mType.getRank() != 1 || mType.getDimSize(0) != k ||
        !mType.getElementType().isF32())
      continue;
    g.input = a;
    g.inputMultiplier = m;
    g.absorbed.push_back(mul);
    return true;
  }
  return false;
}

/// `linear` in int8 form, or nothing; with `hostForms`, a smoothed
/// activation too.
std::optional<planner::Int8Gemm> match(LinearOp linear, bool hostForms) {
  planner::Int8Gemm g;
  auto xd = linear.getInput().getDefiningOp<DequantizeOp>();
  if (!xd || !xd.getInput().getType().getElementType().isInteger(8))
    return std::nullopt;
  auto xq = xd.getInput().getDefiningOp<QuantizeOp>();
  if (!xq || xq.getScale() != xd.getScale() ||
      !xq.getType().getElementType().isInteger(8) ||
      xq.getType().getElementType().isSignedInteger() ||
      !xq.getInput().getType().getElementType().isF32() ||
      !matchActivation(xq, xd, g, hostForms))
    return std::nullopt;
  auto wd = linear.getWeight().getDefiningOp<DequantizeOp>();
  if (!wd || wd.getZeroPoint() || wd.getGroupSize() ||
      wd.getAxis() != uint64_t(linear.getOutputFeaturesDim()) ||
      !wd.getInput().getDefiningOp<ConstantOp>() ||
      !wd.getScale().getDefiningOp<ConstantOp>() ||
      !wd.getInput().getType().getElementType().isSignlessInteger(8) ||
      !wd.getScale().getType().getElementType().isF32())
    return std::nullopt;
  g.weight = wd.getInput();
  g.scale = wd.getScale();
  g.absorbed.append({xq, xd, wd});
  // (A range form's reductions read the activation itself.)
  if (!(hostForms && !g.inputRange && matchMultiplier(xq.getInput(), g)))
    g.input = xq.getInput();
  return g;
}

} // namespace

DenseMap<Operation *, planner::Int8Gemm>
planner::findInt8Gemms(func::FuncOp func, bool hostForms) {
  DenseMap<Operation *, Int8Gemm> gemms;
  func.walk([&](LinearOp linear) {
    std::optional<Int8Gemm> g = match(linear, hostForms);
    if (!g && hostForms)
      g = matchWeightOnly(linear);
    if (!g && hostForms)
      g = matchBf16(linear);
    if (g)
      gemms[linear] = std::move(*g);
  });
  // An absorbed op whose result something else reads (a quantized tensor
  // returned, a dequantized one also added to the residual: a QDQ model's
  // pair, which CSE may have merged with the GEMM's) stays an op of the IR,
  // computed by a kernel for its other readers, and so do the absorbed ops
  // it reads; the GEMM step still computes them itself from its input.
  DenseSet<Operation *> absorbed;
  for (auto &entry : gemms)
    absorbed.insert(entry.second.absorbed.begin(), entry.second.absorbed.end());
  auto inside = [&](Operation *user) {
    return absorbed.contains(user) || gemms.count(user) ||
           isa<BindShapeOp>(user);
  };
  bool changed = true;
  while (changed) {
    changed = false;
    for (Operation *op : llvm::to_vector(absorbed))
      if (!llvm::all_of(op->getUsers(), inside)) {
        absorbed.erase(op);
        changed = true;
      }
  }
  for (auto &entry : gemms)
    llvm::erase_if(entry.second.absorbed,
                   [&](Operation *op) { return !absorbed.contains(op); });
  return gemms;
}

void planner::findIntegerGemms(func::FuncOp func,
                               DenseMap<Operation *, Int8Gemm> &gemms) {
  func.walk([&](MatmulOp matmul) {
    auto lhs = cast<RankedTensorType>(matmul.getLhs().getType());
    Type codes = lhs.getElementType();
    bool fp8 = isa<Float8E4M3FNType>(codes);
    auto transpose = matmul.getRhs().getDefiningOp<TransposeOp>();
    if (!(codes.isSignlessInteger(8) || fp8) || lhs.getRank() < 2 ||
        !transpose || transpose.getPerm() != ArrayRef<int64_t>{1, 0} ||
        !transpose->hasOneUse())
      return;
    auto weight = transpose.getInput().getDefiningOp<ConstantOp>();
    auto type = cast<RankedTensorType>(transpose.getInput().getType());
    // cuBLASLt's int8 kernels want leading dims (K for A and B, N for C)
    // that are multiples of 4; its fp8 ones 16-byte aligned rows of A and B
    // (K % 16), and N % 16 keeps every f32 row of C 64-byte aligned.
    int64_t multiple = fp8 ? kFp8GemmMultiple : kInt8GemmMultiple;
    if (!weight || type.getElementType() != codes || !type.hasStaticShape() ||
        type.getDimSize(0) % multiple || type.getDimSize(1) % multiple)
      return;
    Int8Gemm g;
    g.input = matmul.getLhs();
    g.weight = weight;
    g.integer = true;
    g.absorbed.push_back(transpose);
    gemms[matmul] = std::move(g);
  });
}

std::optional<planner::GemmOperands>
planner::gemmOperands(Operation *op,
                      const DenseMap<Operation *, Int8Gemm> &int8Gemms) {
  GemmOperands g;
  if (auto matmul = dyn_cast<MatmulOp>(op)) {
    g.lhs = matmul.getLhs();
    g.rhs = matmul.getRhs();
    if (auto integer = int8Gemms.find(op); integer != int8Gemms.end()) {
      g.rhs = integer->second.weight;
      g.transB = true;
      g.integer = true;
    }
    return g;
  }
  auto linear = dyn_cast<LinearOp>(op);
  if (!linear)
    return std::nullopt;
  switch (linear.getActivation()) {
  case GemmActivation::none:
    break;
  case GemmActivation::gelu:
    g.activation = 1;
    break;
  case GemmActivation::gelu_tanh:
    g.activation = 2;
    break;
  }
  g.lhs = linear.getInput();
  g.rhs = linear.getWeight();
  if (auto int8 = int8Gemms.find(op); int8 != int8Gemms.end()) {
    const Int8Gemm &q = int8->second;
    g.lhs = q.input;
    g.rhs = q.weight;
    g.weightScale = q.scale;
    g.inputScale = q.inputScale;
    g.inputZeroPoint = q.inputZeroPoint;
    g.inputMultiplier = q.inputMultiplier;
    g.inputRange = q.inputRange;
    g.weightOnly = q.weightOnly;
    g.groupSize = q.groupSize;
    g.weightZeroPoint = q.zeroPoint;
    g.bf16Inputs = q.bf16;
  }
  g.bias = linear.getBias();
  g.residual = linear.getResidual();
  g.transB = !linear.getWeightKn();
  if (cast<RankedTensorType>(g.rhs.getType()).getRank() != 2 ||
      (g.bias && cast<RankedTensorType>(g.bias.getType()).getRank() != 1))
    return std::nullopt;
  return g;
}
