//===- QuantizeQdqInteger.cpp - ONNX Runtime's integer products as linears ===//
//
// ONNX Runtime's quantized models compute their products in integers:
// quantize_dynamic's MatMulInteger (then Cast and Mul by the scales) and
// the QOperator format's QLinearMatMul (requantized to 8-bit codes). The
// importer builds that arithmetic exactly (an i32 tsc.matmul), which the
// generated kernels compute and no GEMM step takes. tsc-quantize-qdq
// rewrites both, where the weight is a constant, into a tsc.linear of
// dequantized operands: the form whose host plan is one int8 GEMM step
// (compiler/plan/QuantizedGemms.cpp) and whose CUDA form is a cuBLASLt s8
// GEMM.
//
//===----------------------------------------------------------------------===//

#include "passes/transforms/QuantizeQdq.h"

#include "dialects/tsc/IR/ConstantData.h"
#include "dialects/tsc/IR/SymbolicShape.h"
#include "passes/transforms/MatchUtils.h"
#include "passes/transforms/QuantizeGemm.h"

#include <cmath>
#include <cstring>

using namespace mlir;
using namespace mlir::tsc;

namespace {

/// `v` without a tsc.cast from `from` to i32 (nothing when it is not one).
Value uncastFromI32(Value v, function_ref<bool(Type)> from) {
  auto cast = v.getDefiningOp<CastOp>();
  if (!cast || !cast.getType().getElementType().isSignlessInteger(32) ||
      !from(cast.getInput().getType().getElementType()))
    return Value();
  return cast.getInput();
}

/// Whether `t` is a code type of ONNX's 8-bit quantization: ui8 or
/// signless i8 (s8).
bool isCode8(Type t) { return t.isInteger(8) && !t.isSignedInteger(); }

/// The codes of 8-bit code type `t`: [0, 255] for ui8, [-128, 127] for s8.
std::pair<double, double> codeRange(Type t) {
  return t.isUnsignedInteger() ? std::pair(0.0, 255.0)
                               : std::pair(-128.0, 127.0);
}

/// The elements of an i32 constant as s8 bytes when each is within
/// [-128, 127] (a small MatMulInteger weight whose widening cast was
/// folded), else nullopt.
std::optional<std::vector<char>> getS8Values(ConstantOp constant) {
  auto type = cast<RankedTensorType>(constant.getType());
  std::optional<std::vector<char>> bytes =
      type.getElementType().isSignlessInteger(32)
          ? getConstantBytes(constant.getValue())
          : std::nullopt;
  if (!bytes || bytes->size() != size_t(type.getNumElements()) * 4)
    return std::nullopt;
  std::vector<char> codes;
  for (size_t i = 0; i < bytes->size(); i += 4) {
    int32_t v;
    std::memcpy(&v, bytes->data() + i, sizeof v);
    if (v < -128 || v > 127)
      return std::nullopt;
    codes.push_back(char(int8_t(v)));
  }
  return codes;
}

/// The values of a scalar or vector `v` computed from constants by casts
/// and elementwise arithmetic that the graph phase left unfolded (its
/// folders stop at a size: MiniLM's per-channel a_scale·b_scale / y_scale
/// of 384 and the weight zero points stay ops), each op rounded to its
/// result type as its kernel would (f32 arithmetic in float); nullopt for
/// anything else.
std::optional<std::vector<double>> evaluateConstant(Value v, int depth = 0) {
  auto type = v ? dyn_cast<RankedTensorType>(v.getType()) : nullptr;
  if (!type || type.getRank() > 1 || depth > 8)
    return std::nullopt;
  Type element = type.getElementType();
  auto round = [&](double x) { return element.isF32() ? double(float(x)) : x; };
  if (v.getDefiningOp<ConstantOp>())
    return getConstantValues(v);
  if (auto cast = v.getDefiningOp<CastOp>()) {
    Type from = cast.getInput().getType().getElementType();
    bool widening = (from.isF32() && (element.isF32() || element.isF64())) ||
                    (from.isInteger(8) && element.isSignlessInteger(32));
    return widening ? evaluateConstant(cast.getInput(), depth + 1)
                    : std::nullopt;
  }
  Operation *op = v.getDefiningOp();
  if (!op || op->getNumOperands() != 2 ||
      !isa<MulOp, DivOp, SubOp, AddOp>(op) ||
      !(element.isF32() || element.isF64() || element.isSignlessInteger(32)))
    return std::nullopt;
  std::optional<std::vector<double>> a =
      evaluateConstant(op->getOperand(0), depth + 1);
  std::optional<std::vector<double>> b =
      evaluateConstant(op->getOperand(1), depth + 1);
  if (!a || !b ||
      (a->size() != 1 && b->size() != 1 && a->size() != b->size()) ||
      (isa<DivOp>(op) && !element.isF32() && !element.isF64()))
    return std::nullopt;
  std::vector<double> out(std::max(a->size(), b->size()));
  for (size_t i = 0; i < out.size(); ++i) {
    double x = (*a)[a->size() == 1 ? 0 : i], y = (*b)[b->size() == 1 ? 0 : i];
    double r = isa<MulOp>(op)   ? x * y
               : isa<DivOp>(op) ? x / y
               : isa<SubOp>(op) ? x - y
                                : x + y;
    // f32 ops round their operands' f32 values once (x and y are f32
    // values there); i32 ones are exact within its range.
    if (element.isSignlessInteger(32) && (r < INT32_MIN || r > INT32_MAX))
      return std::nullopt;
    out[i] = round(r);
  }
  return out;
}

/// One value per column of `n` from constant `values` (one, or `n`).
std::optional<std::vector<double>> perColumn(Value values, int64_t n) {
  std::optional<std::vector<double>> v = evaluateConstant(values);
  auto type = values ? dyn_cast<RankedTensorType>(values.getType()) : nullptr;
  if (!v || !type ||
      !(type.getRank() == 0 ||
        (type.getRank() == 1 && type.getDimSize(0) == n)))
    return std::nullopt;
  if (v->size() == 1)
    v->assign(size_t(n), v->front());
  return v->size() == size_t(n) ? v : std::nullopt;
}

/// The s8 weight [K, N] of an integer product: its codes widened to i32,
/// or (folded by the graph phase) an i32 constant of s8 values, whose codes
/// `create` makes.
struct WeightCodes {
  ConstantOp constant;
  RankedTensorType type;
  std::optional<std::vector<char>> folded;

  static std::optional<WeightCodes> match(Value rhs) {
    if (auto sub = rhs.getDefiningOp<SubOp>())
      return matchShifted(sub);
    auto isS8 = [](Type t) { return t.isSignlessInteger(8); };
    Value codes = uncastFromI32(rhs, isS8);
    auto constant = (codes ? codes : rhs).getDefiningOp<ConstantOp>();
    if (!constant)
      return std::nullopt;
    WeightCodes w{constant, constant.getType(), std::nullopt};
    if (!codes) {
      w.folded = getS8Values(constant);
      if (!w.folded)
        return std::nullopt;
      w.type = w.type.clone(IntegerType::get(rhs.getContext(), 8));
    }
    if (w.type.getRank() != 2 || !w.type.hasStaticShape())
      return std::nullopt;
    return w;
  }

  /// `sub(cast(codes to i32), z)` of 8-bit constant codes (u8 or s8) and a
  /// constant zero point per tensor or per column that the graph phase did
  /// not fold (a QLinearMatMul's u8 weight with zero point 128), when
  /// every difference is an s8 value.
  static std::optional<WeightCodes> matchShifted(SubOp sub) {
    auto is8 = [](Type t) { return t.isInteger(8); };
    Value codes = uncastFromI32(sub.getLhs(), is8);
    auto constant = codes ? codes.getDefiningOp<ConstantOp>() : ConstantOp();
    if (!constant || constant.getType().getRank() != 2 ||
        !constant.getType().hasStaticShape())
      return std::nullopt;
    int64_t n = constant.getType().getDimSize(1);
    std::optional<std::vector<double>> values = getConstantValues(codes);
    std::optional<std::vector<double>> zeros = perColumn(sub.getRhs(), n);
    if (!values || !zeros)
      return std::nullopt;
    std::vector<char> folded;
    for (size_t i = 0; i < values->size(); ++i) {
      double v = (*values)[i] - (*zeros)[i % size_t(n)];
      if (v < -128.0 || v > 127.0)
        return std::nullopt;
      folded.push_back(char(int8_t(v)));
    }
    return WeightCodes{
        constant,
        constant.getType().clone(IntegerType::get(sub.getContext(), 8)),
        std::move(folded)};
  }

  /// `dequantize(codes, perColumn) axis = 1`, the scales named after the
  /// weight.
  Value create(OpBuilder &b, Location loc, ArrayRef<float> perColumn) {
    int64_t n = type.getDimSize(1);
    Value scales =
        ConstantOp::create(b, loc,
                           cast<ElementsAttr>(getConstantFromValues(
                               RankedTensorType::get({n}, b.getF32Type()),
                               perColumn, weightName(constant, ".scale"))));
    Value codes = constant;
    if (folded)
      codes =
          ConstantOp::create(b, loc,
                             cast<ElementsAttr>(getConstantFromBytes(
                                 type, *folded, weightName(constant, ".s8"))));
    return DequantizeOp::create(b, loc, type.clone(b.getF32Type()), codes,
                                scales, Value(), b.getI64IntegerAttr(1),
                                IntegerAttr());
  }
};

/// The f32 dequantization of codes `xq` with its own scale and zero point,
/// made once, right after them, for every product of one input (Q, K and V
/// then merge into one GEMM).
Value dequantizeOnce(QuantizeOp xq, Value zeroPoint,
                     DenseMap<Value, Value> &dequantized) {
  Value &xd = dequantized[xq];
  if (!xd) {
    OpBuilder after(xq);
    after.setInsertionPointAfter(xq);
    xd = DequantizeOp::create(after, xq.getLoc(), xq.getInput().getType(), xq,
                              xq.getScale(), zeroPoint, IntegerAttr(),
                              IntegerAttr());
  }
  return xd;
}

/// The 0-d constant `value` of the integer type `element`.
Value createInteger(OpBuilder &b, Location loc, Type element, int64_t value) {
  return ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(RankedTensorType::get({}, element),
                             b.getIntegerAttr(element, value)));
}

/// 8-bit `codes` that are no quantization of f32 (another QLinear op's,
/// a reshape of them) as a QDQ pair of scale 1: `x = dequantize(codes, 1,
/// z)` (the integers q - z in f32, exact) and `dequantize(quantize(x, 1,
/// z), 1, z)`, whose quantization gives the codes back exactly; an int8
/// step then quantizes x itself. Made once, right after the codes.
Value requantizeOnce(Value codes, int64_t zeroPoint,
                     DenseMap<Value, Value> &dequantized) {
  Value &xd = dequantized[codes];
  if (xd)
    return xd;
  OpBuilder b(codes.getContext());
  if (Operation *def = codes.getDefiningOp())
    b.setInsertionPointAfter(def);
  else
    b.setInsertionPointToStart(cast<BlockArgument>(codes).getOwner());
  Location loc = codes.getLoc();
  auto type = cast<RankedTensorType>(codes.getType());
  Value one = createScalar(b, loc, 1.0f);
  Value z = zeroPoint ? createInteger(b, loc, type.getElementType(), zeroPoint)
                      : Value();
  auto f32 = type.clone(b.getF32Type());
  Value x = DequantizeOp::create(b, loc, f32, codes, one, z, IntegerAttr(),
                                 IntegerAttr());
  Value q =
      QuantizeOp::create(b, loc, type, x, one, z, IntegerAttr(), IntegerAttr());
  xd = DequantizeOp::create(b, loc, f32, q, one, z, IntegerAttr(),
                            IntegerAttr());
  return xd;
}

/// The widening cast of a weight `rhs` = sub(cast(codes), z), else null.
Operation *shiftedCodes(Value rhs) {
  auto sub = rhs.getDefiningOp<SubOp>();
  return sub ? sub.getLhs().getDefiningOp<CastOp>() : nullptr;
}

/// Erases each of `ops` (nulls skipped) that only shape bindings read, in
/// order, with those bindings.
void eraseUnread(ArrayRef<Operation *> ops) {
  for (Operation *op : ops) {
    if (!op || !llvm::all_of(op->getUsers(), llvm::IsaPred<BindShapeOp>))
      continue;
    for (Operation *binding : llvm::to_vector(op->getUsers()))
      binding->erase();
    op->erase();
  }
}

} // namespace

/// ONNX Runtime's quantize_dynamic form (DynamicQuantizeLinear, then
/// MatMulInteger, Cast and Mul by the product of the scales), as imported:
///
///   %xq = tsc.quantize %x, %s, %z                  (u8 per tensor: DQL's)
///   %a  = tsc.sub (tsc.cast %xq to i32), (tsc.cast %z to i32)
///   %p  = tsc.matmul %a, (tsc.cast %wq to i32)      (%wq constant s8 [K, N])
///   %y  = tsc.mul (tsc.cast %p to f32), (tsc.mul %s, %ws)
///
/// with %ws a constant scale, per tensor or per column, becomes
///
///   %y = tsc.linear (tsc.dequantize %xq, %s, %z), (tsc.dequantize %wq, %ws
///        axis = 1)
///
/// the same product, Σ_k (q_k - z)·s · wq_kn·ws_n, in the form whose host
/// plan is one int8 GEMM step (format 1.23: the step takes A's range and
/// quantizes it as DynamicQuantizeLinear does; compiler/plan/
/// QuantizedGemms.cpp) and whose bias and activation the fuse phase folds
/// in. The integer form computes it exactly in i32 and scales once; the
/// linear (where no step takes it, as generated kernels) rounds each
/// product in f32: within ~K·2⁻²⁴ relative of it. A weight zero point
/// (ONNX Runtime's s8 weights have none; DynamicQuantizeMatMul's may) is
/// taken out of the codes at compile time where every B - zb is an s8
/// value (WeightCodes::matchShifted); elsewhere the integer form stays.
LogicalResult
mlir::tsc::rewriteIntegerProduct(MulOp mul,
                                 DenseMap<Value, Value> &dequantized) {
  for (auto [product, scales] : {std::pair(mul.getLhs(), mul.getRhs()),
                                 std::pair(mul.getRhs(), mul.getLhs())}) {
    auto isI32 = [](Type t) { return t.isSignlessInteger(32); };
    auto widen = product.getDefiningOp<CastOp>();
    if (!widen || !widen.getType().getElementType().isF32() ||
        !isI32(widen.getInput().getType().getElementType()) ||
        !hasUsesIgnoringBindings(widen, 1))
      continue;
    auto matmul = widen.getInput().getDefiningOp<MatmulOp>();
    if (!matmul || !hasUsesIgnoringBindings(matmul, 1))
      continue;
    auto sub = matmul.getLhs().getDefiningOp<SubOp>();
    auto isU8 = [](Type t) { return t.isUnsignedInteger(8); };
    Value codes = sub ? uncastFromI32(sub.getLhs(), isU8) : Value();
    Value zero = sub ? uncastFromI32(sub.getRhs(), isU8) : Value();
    auto xq = codes ? codes.getDefiningOp<QuantizeOp>() : QuantizeOp();
    // (A linear takes a matrix or a batch of them: a vector stays.)
    if (!xq || xq.getZeroPoint() != zero || xq.getAxis() || xq.getGroupSize() ||
        !xq.getInput().getType().getElementType().isF32() ||
        xq.getInput().getType().getRank() < 2)
      continue;
    std::optional<WeightCodes> w = WeightCodes::match(matmul.getRhs());
    if (!w)
      continue;
    // The product of the scales: xq's scale by a constant one.
    auto both = scales.getDefiningOp<MulOp>();
    if (!both)
      continue;
    Value s = xq.getScale(), ws;
    if (both.getLhs() == s)
      ws = both.getRhs();
    else if (both.getRhs() == s)
      ws = both.getLhs();
    std::optional<std::vector<double>> wScales =
        perColumn(ws, w->type.getDimSize(1));
    if (!wScales ||
        !cast<RankedTensorType>(ws.getType()).getElementType().isF32() ||
        mul.getType() != cast<RankedTensorType>(product.getType()))
      continue;
    OpBuilder b(mul);
    // Named as the MatMulInteger node, as a float GEMM is as its MatMul.
    Location loc = matmul.getLoc();
    std::vector<float> columns(wScales->begin(), wScales->end());
    Value xd = dequantizeOnce(xq, zero, dequantized);
    Value linear =
        LinearOp::create(b, loc, mul.getType(), xd, w->create(b, loc, columns),
                         Value(), Value(), /*weight_kn=*/true);
    mul.getResult().replaceAllUsesWith(linear);
    // The integer product, and its operands and scales no one else reads
    // (Q, K and V share the activation's).
    eraseUnread({mul, widen, matmul, both, ws.getDefiningOp(),
                 matmul.getRhs().getDefiningOp(), shiftedCodes(matmul.getRhs()),
                 sub, sub.getLhs().getDefiningOp(),
                 sub.getRhs().getDefiningOp()});
    return success();
  }
  return failure();
}

/// ONNX Runtime's QLinearMatMul (QOperator static models) by a constant
/// weight, as imported (passes/conversion/OnnxToTsc/Matmul.cpp) and folded:
///
///   %codes                                         (u8 or s8, from anywhere)
///   %a  = tsc.sub (tsc.cast %codes to i32), %zi    (%zi: z as i32; absent
///                                                   when z is 0)
///   %p  = tsc.matmul %a, %w                        (s8 codes widened, or
///                                                   an i32 constant of s8
///                                                   values: B - b_zp)
///   %y  = tsc.round (tsc.add (tsc.mul (tsc.cast %p to f64), %m), %yz)
///   %q  = tsc.cast (tsc.min (tsc.max %y, lo), hi) to u8 or s8
///
/// with %m = a_scale·b_scale / y_scale (f64, per tensor or per column; its
/// ops and the weight's zero points computed here where the graph phase
/// left them unfolded) and %yz the output zero point, becomes the QDQ form
///
///   %x = tsc.dequantize %codes, 1, %z
///   %q = tsc.quantize (tsc.linear (tsc.dequantize (tsc.quantize %x, 1, %z),
///                      1, %z), (tsc.dequantize %wq, %m axis = 1)), 1, %yz
///
/// which the pass's QDQ rewrite then makes static int8's form: an int8 step
/// that quantizes %x (the integers q - z in f32) back into the codes,
/// exactly, and scales the exact s32 sum by m_n alone. Scale 1 on both
/// sides is what makes it ONNX Runtime's arithmetic, not a rescaled copy of
/// it: the product is one f32 multiply of the sum by the f32 multiplier,
/// rounded and offset by the zero point, as its requantization does (the
/// real scales would round s·ws_n, then divide by y_scale). The codes may
/// come from anywhere (a
/// QuantizeLinear's, another QLinear op's, reshaped: attention's output
/// projection, the FFN's down projection after QLinearMul). A weight zero
/// point (a u8 weight's 128) is taken out of the codes at compile time
/// where every B - zb is an s8 value; otherwise, or with a per-row
/// activation zero point, the integer form stays.
LogicalResult
mlir::tsc::rewriteRequantizedProduct(CastOp codes,
                                     DenseMap<Value, Value> &dequantized) {
  Type element = codes.getType().getElementType();
  if (!isCode8(element))
    return failure();
  auto [lo, hi] = codeRange(element);
  auto min = codes.getInput().getDefiningOp<MinOp>();
  auto max = min && isSplat(min.getRhs(), hi, 0.0)
                 ? min.getLhs().getDefiningOp<MaxOp>()
                 : MaxOp();
  auto round = max && isSplat(max.getRhs(), lo, 0.0)
                   ? max.getLhs().getDefiningOp<RoundOp>()
                   : RoundOp();
  if (!round || !round.getType().getElementType().isF64())
    return failure();
  Value scaled = round.getInput();
  double outZero = 0.0;
  auto add = scaled.getDefiningOp<AddOp>();
  if (add) {
    std::optional<double> z = splatValue(add.getRhs());
    if (!z || *z != std::round(*z) || *z < lo || *z > hi)
      return failure();
    outZero = *z;
    scaled = add.getLhs();
  }
  auto mul = scaled.getDefiningOp<MulOp>();
  auto widen = mul ? mul.getLhs().getDefiningOp<CastOp>() : CastOp();
  auto matmul = widen ? widen.getInput().getDefiningOp<MatmulOp>() : MatmulOp();
  if (!matmul || !hasUsesIgnoringBindings(widen, 1) ||
      !hasUsesIgnoringBindings(matmul, 1) ||
      !matmul.getType().getElementType().isSignlessInteger(32))
    return failure();
  // The activation: 8-bit codes from anywhere, widened to i32, less their
  // constant zero point (no sub when it is 0), one in the codes' range.
  Value shifted = matmul.getLhs();
  auto sub = shifted.getDefiningOp<SubOp>();
  Value aCast = sub ? sub.getLhs() : shifted;
  Value aCodes = uncastFromI32(aCast, isCode8);
  std::optional<double> inZero = 0.0;
  if (sub) {
    std::optional<std::vector<double>> z = evaluateConstant(sub.getRhs());
    inZero = z && z->size() == 1 ? std::optional(z->front()) : std::nullopt;
  }
  auto aType = aCodes ? cast<RankedTensorType>(aCodes.getType()) : nullptr;
  if (!aType || !inZero || aType.getRank() < 2 ||
      *inZero != std::round(*inZero))
    return failure();
  auto [aLo, aHi] = codeRange(aType.getElementType());
  if (*inZero < aLo || *inZero > aHi)
    return failure();
  std::optional<WeightCodes> w = WeightCodes::match(matmul.getRhs());
  if (!w)
    return failure();
  int64_t n = w->type.getDimSize(1);
  std::optional<std::vector<double>> multipliers = perColumn(mul.getRhs(), n);
  if (!multipliers)
    return failure();
  std::vector<float> columns;
  for (double m : *multipliers) {
    float ws = float(m);
    if (!std::isfinite(ws))
      return failure();
    columns.push_back(ws);
  }

  OpBuilder b(codes);
  // Named as the QLinearMatMul node, as a float GEMM is as its MatMul.
  Location loc = matmul.getLoc();
  Value xd = requantizeOnce(aCodes, int64_t(*inZero), dequantized);
  auto type = cast<RankedTensorType>(matmul.getType()).clone(b.getF32Type());
  Value linear = LinearOp::create(b, loc, type, xd, w->create(b, loc, columns),
                                  Value(), Value(), /*weight_kn=*/true);
  Value yz = outZero != 0.0 ? createInteger(b, loc, element, int64_t(outZero))
                            : Value();
  Value q = QuantizeOp::create(b, loc, codes.getType(), linear,
                               createScalar(b, loc, 1.0f), yz, IntegerAttr(),
                               IntegerAttr());
  codes.getResult().replaceAllUsesWith(q);
  eraseUnread({codes, min, max, round, add, mul, widen, matmul,
               matmul.getRhs().getDefiningOp(), shiftedCodes(matmul.getRhs()),
               sub, aCast.getDefiningOp()});
  return success();
}

namespace {

/// The largest |x| of an i32 product operand `x` = sub(cast(codes), z) or
/// cast(codes), codes 8-bit, z integral constants (one, or per row or
/// column); nullopt for anything else.
std::optional<double> codeBound(Value x) {
  auto sub = x.getDefiningOp<SubOp>();
  Value codes = uncastFromI32(sub ? sub.getLhs() : x, isCode8);
  if (!codes)
    return std::nullopt;
  auto [lo, hi] =
      codeRange(cast<RankedTensorType>(codes.getType()).getElementType());
  if (!sub)
    return std::max(-lo, hi);
  std::optional<std::vector<double>> zeros = evaluateConstant(sub.getRhs());
  if (!zeros || zeros->empty())
    return std::nullopt;
  double bound = 0.0;
  for (double z : *zeros) {
    if (z != std::round(z) || std::abs(z) > 1e6)
      return std::nullopt;
    bound = std::max({bound, std::abs(lo - z), std::abs(hi - z)});
  }
  return bound;
}

} // namespace

/// An i32 product of 8-bit codes less their zero points (QLinearMatMul's
/// and MatMulInteger's on two run-time operands: attention's Q·Kᵀ and P·V
/// in ONNX Runtime's QOperator models), as
///
///   %p = tsc.cast (tsc.matmul (tsc.cast %a to f32), (tsc.cast %b to f32))
///        to i32
///
/// where that is exact: every term and partial sum an integer of magnitude
/// at most K·|a|max·|b|max <= 2^24 (f32's exact integers), K at the
/// symbols' maxima, whatever the order of summation. The float product is
/// what the plan runs as a GEMM step or attention's kernels; the i32 one
/// ran in generated loops (MiniLM: 86 ms of ONNX Runtime's 18). Products
/// that could exceed 2^24 keep the integer form.
void mlir::tsc::rewriteExactIntegerProducts(Operation *scope) {
  SmallVector<MatmulOp> products;
  scope->walk([&](MatmulOp op) {
    if (cast<RankedTensorType>(op.getType())
            .getElementType()
            .isSignlessInteger(32))
      products.push_back(op);
  });
  if (products.empty())
    return;
  SymbolicShapes shapes(scope);
  for (MatmulOp product : products) {
    std::optional<double> lhs = codeBound(product.getLhs());
    std::optional<double> rhs = codeBound(product.getRhs());
    auto lhsType = cast<RankedTensorType>(product.getLhs().getType());
    std::optional<SmallVector<int64_t>> max =
        shapes.getMaxShape(product.getLhs());
    if (!lhs || !rhs || !max || max->empty() || lhsType.getRank() < 1)
      continue;
    double k = double(max->back());
    if (k < 1 || k * *lhs * *rhs > double(1 << 24))
      continue;
    OpBuilder b(product);
    Location loc = product.getLoc();
    auto toF32 = [&](Value v) -> Value {
      auto type = cast<RankedTensorType>(v.getType());
      return CastOp::create(b, loc, type.clone(b.getF32Type()), v,
                            /*saturate=*/false, ExponentRoundingAttr());
    };
    Value sum = MatmulOp::create(
        b, loc, cast<RankedTensorType>(product.getType()).clone(b.getF32Type()),
        toF32(product.getLhs()), toF32(product.getRhs()));
    Value exact = CastOp::create(b, loc, product.getType(), sum,
                                 /*saturate=*/false, ExponentRoundingAttr());
    product.getResult().replaceAllUsesWith(exact);
    eraseUnread({product});
  }
}
