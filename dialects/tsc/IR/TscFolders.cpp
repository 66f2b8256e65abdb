//===- TscFolders.cpp - folders and canonicalization patterns -------------===//
//
// Folders evaluate small constant tensors (shape arithmetic that exporters
// emit) and remove no-op shape manipulation. Weights never fold: constant
// evaluation is capped at kMaxFoldedElements and only reads dense literals.
// Floating-point identities are folded only where exact under IEEE 754
// (x * 1, x / 1, x - 0, x + -0).
//
//===----------------------------------------------------------------------===//

#include "dialects/tsc/IR/ConstantData.h"
#include "dialects/tsc/IR/TscLayoutCanonicalize.h"
#include "dialects/tsc/IR/TscOpUtils.h"
#include "dialects/tsc/IR/TscOps.h"

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace mlir;
using namespace mlir::tsc;
using util::BinaryFn;

namespace {
#include "dialects/tsc/IR/TscCanonicalize.inc"
} // namespace

namespace {

/// 1 / x -> reciprocal(x), for a splat 1 that does not widen x.
struct DivideOneToReciprocal : OpRewritePattern<DivOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DivOp op, PatternRewriter &rw) const override {
    SplatElementsAttr one;
    if (op.getRhs().getType() != op.getType() ||
        !isa<FloatType>(op.getType().getElementType()) ||
        !matchPattern(op.getLhs(), m_Constant(&one)) ||
        !one.getSplatValue<APFloat>().isExactlyValue(1.0))
      return failure();
    rw.replaceOpWithNewOp<ReciprocalOp>(op, op.getRhs());
    return success();
  }
};

/// A binding of a value nothing else uses is dead with it (function
/// arguments keep theirs: they define what the symbols mean).
struct EraseDeadBinding : OpRewritePattern<BindShapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BindShapeOp op,
                                PatternRewriter &rw) const override {
    Operation *producer = op.getOperand().getDefiningOp();
    if (!producer || !isPure(producer) ||
        !llvm::all_of(op.getOperand().getUsers(),
                      [](Operation *user) { return isa<BindShapeOp>(user); }))
      return failure();
    rw.eraseOp(op);
    return success();
  }
};

/// A broadcasting op reads expand(x) as x when another of its operands has
/// the expand's shape: the result broadcasts to it either way, and the
/// expand need not be written (T5's bucketing takes the minimum with
/// full_like(x, buckets - 1)).
struct ReadExpandThroughBroadcast : OpRewritePattern<ExpandOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ExpandOp op,
                                PatternRewriter &rw) const override {
    RankedTensorType type = op.getType();
    auto hasExpandedShape = [&](Value other) {
      return other != op.getResult() && other.getType() == type &&
             llvm::all_of(
                 llvm::seq<int64_t>(0, type.getRank()), [&](int64_t d) {
                   return !type.isDynamicDim(d) ||
                          isDimOf(op.getShape()[type.getDynamicDimIndex(d)],
                                  other, d);
                 });
    };
    bool changed = false;
    for (OpOperand &use : llvm::make_early_inc_range(op->getUses())) {
      Operation *user = use.getOwner();
      if (!user->hasTrait<OpTrait::tsc::Broadcasting>() ||
          !llvm::any_of(user->getOperands(), hasExpandedShape))
        continue;
      rw.modifyOpInPlace(user, [&] { use.set(op.getInput()); });
      changed = true;
    }
    return success(changed);
  }
};

} // namespace

void TscDialect::getCanonicalizationPatterns(RewritePatternSet &results) const {
  populateWithGenerated(results);
  results.add<DivideOneToReciprocal, ReadExpandThroughBroadcast>(getContext());
  populateLayoutCanonicalizations(results);
}

void BindShapeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<EraseDeadBinding>(context);
}

/// The most bytes a splat constant is expanded to for a byte-level folder
/// (getConstantBytes: concatenations, conversions of weights).
static constexpr int64_t kMaxExpandedSplatBytes = int64_t(1) << 28;

/// `attr` as a dense literal small enough to evaluate, else null.
static DenseElementsAttr foldableConstant(Attribute attr) {
  auto dense = dyn_cast_or_null<DenseElementsAttr>(attr);
  if (!dense || (!dense.isSplat() && dense.getNumElements() > kMaxFoldedElements))
    return {};
  return dense;
}

/// True if `attr` is a splat constant whose elements satisfy `pred`.
static bool isSplat(Attribute attr, function_ref<bool(const APFloat &)> onFloat,
                    function_ref<bool(const APInt &)> onInt) {
  auto splat = dyn_cast_or_null<SplatElementsAttr>(attr);
  if (!splat)
    return false;
  if (isa<FloatType>(splat.getElementType()))
    return onFloat(splat.getSplatValue<APFloat>());
  return onInt(splat.getSplatValue<APInt>());
}

static bool isSplatOne(Attribute attr) {
  return isSplat(
      attr, [](const APFloat &v) { return v.isExactlyValue(1.0); },
      [](const APInt &v) { return v.isOne(); });
}

/// Zero that leaves `x + zero` equal to x for every x: integer 0 or -0.0.
static bool isSplatAdditiveIdentity(Attribute attr) {
  return isSplat(
      attr, [](const APFloat &v) { return v.isZero() && v.isNegative(); },
      [](const APInt &v) { return v.isZero(); });
}

/// Zero that leaves `x - zero` equal to x for every x: integer 0 or +0.0.
static bool isSplatSubtractiveIdentity(Attribute attr) {
  return isSplat(
      attr, [](const APFloat &v) { return v.isZero() && !v.isNegative(); },
      [](const APInt &v) { return v.isZero(); });
}

/// Linear index into a broadcast operand of shape `operand` for the linear
/// index `linear` of the (static) result shape `result`.
static int64_t broadcastIndex(int64_t linear, ArrayRef<int64_t> result,
                              ArrayRef<int64_t> operand) {
  int64_t index = 0, stride = 1;
  size_t offset = result.size() - operand.size();
  for (int64_t d = result.size() - 1; d >= 0; --d) {
    int64_t coordinate = linear % result[d];
    linear /= result[d];
    if (d < static_cast<int64_t>(offset))
      continue;
    int64_t extent = operand[d - offset];
    if (extent != 1)
      index += coordinate * stride;
    stride *= extent;
  }
  return index;
}

template <typename ElementT>
static Attribute foldBroadcast(DenseElementsAttr lhs, DenseElementsAttr rhs,
                               RankedTensorType resultType,
                               BinaryFn<ElementT> fn) {
  auto lhsValues = lhs.getValues<ElementT>();
  auto rhsValues = rhs.getValues<ElementT>();
  ArrayRef<int64_t> shape = resultType.getShape();
  if (lhs.isSplat() && rhs.isSplat()) {
    std::optional<ElementT> value = fn(lhsValues[0], rhsValues[0]);
    return value ? DenseElementsAttr::get(resultType, *value) : Attribute();
  }
  SmallVector<ElementT> out;
  out.reserve(resultType.getNumElements());
  for (int64_t i = 0, e = resultType.getNumElements(); i < e; ++i) {
    std::optional<ElementT> value =
        fn(lhsValues[broadcastIndex(i, shape, lhs.getType().getShape())],
           rhsValues[broadcastIndex(i, shape, rhs.getType().getShape())]);
    if (!value)
      return {};
    out.push_back(*value);
  }
  return DenseElementsAttr::get(resultType, out);
}

Attribute util::foldArithmetic(Attribute lhsAttr, Attribute rhsAttr,
                               Type resultType, BinaryFn<APFloat> onFloat,
                               BinaryFn<APInt> onInt) {
  auto result = cast<RankedTensorType>(resultType);
  DenseElementsAttr lhs = foldableConstant(lhsAttr);
  DenseElementsAttr rhs = foldableConstant(rhsAttr);
  if (!lhs || !rhs || !result.hasStaticShape() ||
      result.getNumElements() > kMaxFoldedElements)
    return {};
  if (isa<FloatType>(result.getElementType()))
    return foldBroadcast<APFloat>(lhs, rhs, result, onFloat);
  if (isa<IntegerType>(result.getElementType()))
    return foldBroadcast<APInt>(lhs, rhs, result, onInt);
  return {};
}

//===----------------------------------------------------------------------===//
// Constants and elementwise
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  if (getLhs().getType() == getType() &&
      isSplatAdditiveIdentity(adaptor.getRhs()))
    return getLhs();
  return util::foldArithmetic(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](const APFloat &a, const APFloat &b) -> std::optional<APFloat> {
        return a + b;
      },
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        return a + b;
      });
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  if (getLhs().getType() == getType() &&
      isSplatSubtractiveIdentity(adaptor.getRhs()))
    return getLhs();
  return util::foldArithmetic(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](const APFloat &a, const APFloat &b) -> std::optional<APFloat> {
        return a - b;
      },
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        return a - b;
      });
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  if (getLhs().getType() == getType() && isSplatOne(adaptor.getRhs()))
    return getLhs();
  return util::foldArithmetic(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](const APFloat &a, const APFloat &b) -> std::optional<APFloat> {
        return a * b;
      },
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        return a * b;
      });
}

OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  if (getLhs().getType() == getType() && isSplatOne(adaptor.getRhs()))
    return getLhs();
  bool isUnsigned = getType().getElementType().isUnsignedInteger();
  return util::foldArithmetic(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](const APFloat &a, const APFloat &b) -> std::optional<APFloat> {
        return a / b;
      },
      [&](const APInt &a, const APInt &b) -> std::optional<APInt> {
        // Integer division truncates toward zero (ONNX Div, C semantics).
        if (b.isZero() || (!isUnsigned && a.isMinSignedValue() && b.isAllOnes()))
          return std::nullopt;
        return isUnsigned ? a.udiv(b) : a.sdiv(b);
      });
}

/// Whether the integers `values` holds cannot be negative: positions from a
/// range that starts at a non-negative constant and counts up, through
/// rearrangements and casts to integers at least as wide.
static bool isProvablyNonNegative(Value values) {
  Value v = values;
  while (Operation *op = v.getDefiningOp()) {
    if (auto cast = dyn_cast<CastOp>(op)) {
      auto from =
          dyn_cast<IntegerType>(cast.getInput().getType().getElementType());
      auto to = dyn_cast<IntegerType>(cast.getType().getElementType());
      if (!from || !to || to.getWidth() < from.getWidth())
        return false;
    } else if (!op->hasTrait<OpTrait::tsc::RearrangesElements>()) {
      break;
    }
    v = op->getOperand(0);
  }
  auto range = v.getDefiningOp<RangeOp>();
  IntegerAttr start, delta;
  return range && matchPattern(range.getStart(), m_Constant(&start)) &&
         matchPattern(range.getDelta(), m_Constant(&delta)) &&
         start.getInt() >= 0 && delta.getInt() > 0;
}

OpFoldResult WhereOp::fold(FoldAdaptor adaptor) {
  // where(x < 0, wrapped, x) for indices that cannot be negative: x (the
  // wrap of negative indices that importers put before a gather).
  if (auto less = getCondition().getDefiningOp<LessOp>()) {
    SplatElementsAttr zero;
    if (matchPattern(less.getRhs(), m_Constant(&zero)) &&
        isa<IntegerType>(zero.getElementType()) &&
        zero.getSplatValue<APInt>().isZero() &&
        less.getLhs() == getFalseValue() &&
        getFalseValue().getType() == getType() &&
        isProvablyNonNegative(less.getLhs()))
      return getFalseValue();
  }
  auto condition = dyn_cast_or_null<SplatElementsAttr>(adaptor.getCondition());
  if (!condition)
    return {};
  Value chosen = condition.getSplatValue<bool>() ? getTrueValue()
                                                 : getFalseValue();
  return chosen.getType() == getType() ? chosen : OpFoldResult();
}

/// Converts one element for tsc.cast; nullopt where the result is not defined
/// (NaN or out-of-range float to int).
static std::optional<Attribute> castElement(Attribute value, Type from,
                                            Type to) {
  auto toInt = dyn_cast<IntegerType>(to);
  if (auto floatValue = dyn_cast<FloatAttr>(value)) {
    APFloat v = floatValue.getValue();
    if (auto toFloat = dyn_cast<FloatType>(to)) {
      bool losesInfo;
      v.convert(toFloat.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                &losesInfo);
      return FloatAttr::get(to, v);
    }
    if (toInt.getWidth() == 1)
      return IntegerAttr::get(to, APInt(1, !v.isZero()));
    APSInt out(toInt.getWidth(), toInt.isUnsigned());
    bool exact;
    if (v.convertToInteger(out, APFloat::rmTowardZero, &exact) &
        APFloat::opInvalidOp)
      return std::nullopt;
    return IntegerAttr::get(to, out);
  }
  APInt v = cast<IntegerAttr>(value).getValue();
  bool isSigned = !from.isUnsignedInteger() && !from.isInteger(1);
  if (auto toFloat = dyn_cast<FloatType>(to)) {
    APFloat out(toFloat.getFloatSemantics());
    out.convertFromAPInt(v, isSigned, APFloat::rmNearestTiesToEven);
    return FloatAttr::get(to, out);
  }
  if (toInt.getWidth() == 1)
    return IntegerAttr::get(to, APInt(1, !v.isZero()));
  return IntegerAttr::get(to, isSigned ? v.sextOrTrunc(toInt.getWidth())
                                       : v.zextOrTrunc(toInt.getWidth()));
}

std::optional<uint16_t> tsc::roundF32BitsToBf16(uint32_t f32Bits,
                                                bool saturate) {
  uint32_t magnitude = f32Bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u)
    return std::nullopt;
  bool finite = magnitude != 0x7f800000u;
  auto h =
      static_cast<uint16_t>((f32Bits + 0x7fffu + ((f32Bits >> 16) & 1u)) >> 16);
  if (saturate && finite && (h & 0x7fffu) == 0x7f80u)
    h = static_cast<uint16_t>((h & 0x8000u) | 0x7f7fu);
  return h;
}

uint8_t tsc::roundToF8E4M3FN(float value) {
  // From the bits (every weight of --quantize=fp8 goes through here).
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  auto sign = uint8_t((bits >> 24) & 0x80u);
  uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) // NaN
    return 0x7f;
  if (magnitude >= 0x43e80000u) // 464 and up round past 448: saturate
    return sign | 0x7e;
  if (magnitude < 0x3c800000u) {
    // Below 2^-6, the smallest normal: multiples of 2^-9 (8 of them is
    // 2^-6 itself, code 8). Scaling by 2^9 is exact; nearbyint rounds ties
    // to even.
    float scaled;
    std::memcpy(&scaled, &magnitude, sizeof scaled);
    return sign | uint8_t(std::nearbyint(scaled * 512.0f));
  }
  // A normal: f32's exponent rebiased (127 -> 7) and 3 of its 23 mantissa
  // bits, rounded to nearest even on the 20 dropped (a carry moves into the
  // exponent, as it should).
  uint32_t rounded = magnitude + 0x7ffffu + ((magnitude >> 20) & 1u);
  return sign |
         uint8_t(std::min<uint32_t>((rounded >> 20) - (120u << 3), 0x7e));
}

std::optional<std::vector<char>> tsc::getConstantBytes(Attribute attr) {
  auto elements = dyn_cast_or_null<ElementsAttr>(attr);
  if (!elements)
    return std::nullopt;
  auto type = cast<ShapedType>(elements.getType());
  unsigned bits = type.getElementType().getIntOrFloatBitWidth();
  if (bits % 8 != 0 || !type.hasStaticShape())
    return std::nullopt;
  // Sizes of hostile shapes overflow: such a constant is left unfolded.
  int64_t count = 1, size = 0;
  for (int64_t d : type.getShape())
    if (d < 0 || llvm::MulOverflow(count, d, count))
      return std::nullopt;
  if (llvm::MulOverflow(count, int64_t(bits / 8), size))
    return std::nullopt;
  ArrayRef<char> data;
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    data = dense.getRawData();
  } else if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return std::nullopt;
    data = blob->getData();
  } else {
    return std::nullopt;
  }
  if (data.size() == static_cast<size_t>(size))
    return std::vector<char>(data.begin(), data.end());
  // A splat holds one element; it is expanded only up to
  // kMaxExpandedSplatBytes, so that a model declaring a splat of 2^40
  // elements keeps its op instead of exhausting memory at compile time.
  if (data.size() != static_cast<size_t>(bits / 8) ||
      size > kMaxExpandedSplatBytes)
    return std::nullopt;
  std::vector<char> out;
  out.reserve(size);
  for (int64_t i = 0; i < count; ++i)
    out.insert(out.end(), data.begin(), data.end());
  return out;
}

std::optional<int32_t> tsc::getInt8Scalar(Value value) {
  DenseElementsAttr attr;
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getRank() != 0 || !type.getElementType().isInteger(8) ||
      type.getElementType().isUnsignedInteger() ||
      !matchPattern(value, m_Constant(&attr)))
    return std::nullopt;
  return int32_t(attr.getSplatValue<APInt>().getSExtValue());
}

Attribute tsc::getConstantFromBytes(RankedTensorType type, ArrayRef<char> bytes,
                                    StringRef name) {
  if (type.getNumElements() <= kMaxFoldedElements)
    return DenseElementsAttr::getFromRawBuffer(type, bytes);
  return DenseResourceElementsAttr::get(
      type, name, HeapAsmResourceBlob::allocateAndCopyWithAlign(bytes, 64));
}

/// Whether every value of float type `narrow` converts to float type `wide`
/// and back unchanged.
static bool widensExactly(Type narrow, Type wide) {
  auto n = dyn_cast<FloatType>(narrow);
  auto w = dyn_cast<FloatType>(wide);
  return n && w &&
         APFloat::isRepresentableBy(n.getFloatSemantics(),
                                    w.getFloatSemantics());
}

Attribute tsc::convertFloatConstant(Attribute attr, RankedTensorType to,
                                   bool saturate) {
  auto from = dyn_cast_or_null<ElementsAttr>(attr);
  auto fromType = from ? dyn_cast<FloatType>(from.getElementType()) : nullptr;
  auto toType = dyn_cast<FloatType>(to.getElementType());
  if (!fromType || !toType || !to.hasStaticShape() ||
      fromType.getWidth() % 8 || toType.getWidth() % 8)
    return {};
  const llvm::fltSemantics &semantics = toType.getFloatSemantics();
  auto convert = [&](APFloat v) {
    bool losesInfo;
    bool finite = v.isFinite();
    v.convert(semantics, APFloat::rmNearestTiesToEven, &losesInfo);
    if (saturate && finite && v.isInfinity())
      v = APFloat::getLargest(semantics, v.isNegative());
    return v;
  };
  if (auto splat = dyn_cast<SplatElementsAttr>(attr))
    return SplatElementsAttr::get(
        to, FloatAttr::get(toType, convert(splat.getSplatValue<APFloat>())));
  std::optional<std::vector<char>> bytes = getConstantBytes(attr);
  if (!bytes)
    return {};
  unsigned fromBytes = fromType.getWidth() / 8, toBytes = toType.getWidth() / 8;
  size_t count = bytes->size() / fromBytes;
  std::vector<char> out(count * toBytes);
  // f32 -> bf16 or f16 (`--precision`'s weights, 10^8 of them in BERT-base)
  // by the bits where that is simple: bf16 has f32's exponent range, so
  // rounding the low 16 bits to nearest even is the whole conversion; f16
  // rebiases the exponent and rounds the low 13 bits, for results that are
  // normal and finite. NaNs, f16 subnormals and overflows go through APFloat.
  const bool f32ToBf16 = fromType.isF32() && toType.isBF16();
  const bool f32ToF16 = fromType.isF32() && toType.isF16();
  for (size_t i = 0; i < count; ++i) {
    if (f32ToBf16 || f32ToF16) {
      uint32_t x;
      std::memcpy(&x, bytes->data() + i * 4, 4);
      uint32_t magnitude = x & 0x7fffffffu;
      std::optional<uint16_t> h;
      if (f32ToBf16) {
        h = roundF32BitsToBf16(x, saturate);
      } else if (f32ToF16 && (magnitude == 0 || (magnitude >= 0x38800000u &&
                                                 magnitude < 0x477ff000u))) {
        uint32_t v = magnitude ? magnitude - 0x38000000u : 0;
        v += 0xfffu + ((v >> 13) & 1u);
        h = static_cast<uint16_t>(((x >> 16) & 0x8000u) | (v >> 13));
      }
      if (h) {
        std::memcpy(out.data() + i * 2, &*h, 2);
        continue;
      }
    }
    APInt bits(fromType.getWidth(), 0);
    llvm::LoadIntFromMemory(
        bits, reinterpret_cast<const uint8_t *>(bytes->data() + i * fromBytes),
        fromBytes);
    APFloat v = convert(APFloat(fromType.getFloatSemantics(), bits));
    llvm::StoreIntToMemory(v.bitcastToAPInt(),
                           reinterpret_cast<uint8_t *>(out.data() + i * toBytes),
                           toBytes);
  }
  std::string name = "converted";
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr))
    name = (resource.getRawHandle().getKey() + "_" + Twine(toType.getWidth()) +
            "bit")
               .str();
  return getConstantFromBytes(to, out, name);
}

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  Type from = getInput().getType().getElementType();
  Type to = getType().getElementType();
  // Narrow to wide and back: the narrow value itself.
  if (auto inner = getInput().getDefiningOp<CastOp>())
    if (inner.getInput().getType() == getType() && widensExactly(to, from))
      return inner.getInput();
  // The 8- and 4-bit floats convert by ONNX's rules (saturation, NaN
  // encodings, the exponent's rounding), which only the kernels implement.
  auto minifloat = [](Type t) {
    return isa<FloatType>(t) && t.getIntOrFloatBitWidth() < 16;
  };
  if (minifloat(from) || minifloat(to))
    return {};
  if (Attribute converted =
          convertFloatConstant(adaptor.getInput(), getType(), getSaturate()))
    return converted;
  DenseElementsAttr input = foldableConstant(adaptor.getInput());
  auto numeric = [](Type t) { return isa<FloatType, IntegerType>(t); };
  if (!input || !numeric(from) || !numeric(to) || !getType().hasStaticShape())
    return {};
  SmallVector<Attribute> out;
  for (Attribute value : input.getValues<Attribute>()) {
    std::optional<Attribute> converted = castElement(value, from, to);
    if (!converted)
      return {};
    out.push_back(*converted);
    if (input.isSplat())
      return SplatElementsAttr::get(getType(), out.front());
  }
  return DenseElementsAttr::get(getType(), out);
}

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

bool mlir::tsc::isDimOf(Value size, Value tensor, int64_t d) {
  if (auto dim = size.getDefiningOp<DimOp>())
    return dim.getInput() == tensor && static_cast<int64_t>(dim.getDim()) == d;
  for (Operation *user : tensor.getUsers()) {
    auto bind = dyn_cast<BindShapeOp>(user);
    if (!bind)
      continue;
    auto symbol = dyn_cast<AffineSymbolExpr>(bind.getShape().getResult(d));
    if (symbol && bind.getSymbols()[symbol.getPosition()] == size)
      return true;
  }
  return false;
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  // Equal types with every dynamic size equal to the input's own: identity.
  // (With at most one dynamic dim the element count pins it down.)
  if (getInput().getType() == getType()) {
    RankedTensorType type = getType();
    bool identity = type.getNumDynamicDims() <= 1;
    if (!identity) {
      identity = true;
      for (int64_t d = 0; d < type.getRank(); ++d)
        if (type.isDynamicDim(d))
          identity &= isDimOf(getShape()[type.getDynamicDimIndex(d)],
                              getInput(), d);
    }
    if (identity)
      return getInput();
  }
  if (auto inner = getInput().getDefiningOp<ReshapeOp>()) {
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput()))
    if (getType().hasStaticShape() &&
        dense.getType().getNumElements() == getType().getNumElements())
      return dense.reshape(getType());
  return {};
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  ArrayRef<int64_t> perm = getPerm();
  if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())) &&
      getInput().getType() == getType())
    return getInput();
  if (auto inner = getInput().getDefiningOp<TransposeOp>()) {
    SmallVector<int64_t> composed;
    for (int64_t p : perm)
      composed.push_back(inner.getPerm()[p]);
    getInputMutable().assign(inner.getInput());
    setPerm(composed);
    return getResult();
  }
  if (auto splat = dyn_cast_or_null<SplatElementsAttr>(adaptor.getInput()))
    if (getType().hasStaticShape())
      return splat.resizeSplat(getType());
  return {};
}

OpFoldResult ExpandOp::fold(FoldAdaptor adaptor) {
  // An expand to the shape its input has already (transformers' mask
  // functions expand a mask built at [B, 1, S, S] to [B, 1, S, S]).
  RankedTensorType type = getType();
  if (getInput().getType() == type &&
      llvm::all_of(llvm::seq<int64_t>(0, type.getRank()), [&](int64_t d) {
        return !type.isDynamicDim(d) ||
               isDimOf(getShape()[type.getDynamicDimIndex(d)], getInput(), d);
      }))
    return getInput();
  if (auto splat = dyn_cast_or_null<SplatElementsAttr>(adaptor.getInput()))
    if (getType().hasStaticShape())
      return splat.resizeSplat(getType());
  return {};
}

/// Concatenation of constants at compile time (weights merged by the fuse
/// phase): a dense literal when small, else a new 64-byte aligned blob.
static Attribute concatConstants(ConcatOp op, ArrayRef<Attribute> inputs) {
  RankedTensorType type = op.getType();
  if (!type.hasStaticShape())
    return {};
  auto axis = static_cast<int64_t>(op.getAxis());
  int64_t outer = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= type.getDimSize(d);
  if (outer == 0)
    return {};
  SmallVector<std::vector<char>> parts;
  SmallVector<size_t> chunks;
  for (auto [value, attr] : llvm::zip_equal(op.getInputs(), inputs)) {
    std::optional<std::vector<char>> bytes = getConstantBytes(attr);
    if (!bytes)
      return {};
    chunks.push_back(bytes->size() / outer);
    parts.push_back(std::move(*bytes));
  }
  std::vector<char> out;
  for (int64_t o = 0; o < outer; ++o)
    for (auto [part, chunk] : llvm::zip_equal(parts, chunks))
      out.insert(out.end(), part.begin() + o * chunk,
                 part.begin() + (o + 1) * chunk);
  std::string name = "concat";
  if (auto first = dyn_cast<DenseResourceElementsAttr>(inputs.front()))
    name = (first.getRawHandle().getKey() + "_concat").str();
  return getConstantFromBytes(type, out, name);
}

OpFoldResult ConcatOp::fold(FoldAdaptor adaptor) {
  if (getInputs().size() == 1 && getInputs().front().getType() == getType())
    return getInputs().front();
  if (llvm::all_of(adaptor.getInputs(), [](Attribute a) { return a != nullptr; }))
    return concatConstants(*this, adaptor.getInputs());
  return {};
}

OpFoldResult SliceOp::fold(FoldAdaptor) {
  // The whole input: offsets 0, strides 1, each size the input's (static,
  // or a size value that is the input's dim: a traced x[:, :, :] slices
  // [batch, seq, ...] of a value bound to those symbols).
  auto type = getInput().getType();
  if (type != getType())
    return {};
  bool identity =
      llvm::all_of(getStaticOffsets(), [](int64_t o) { return o == 0; }) &&
      llvm::all_of(getStaticStrides(), [](int64_t s) { return s == 1; });
  unsigned dynamic = 0;
  for (auto [d, size] : llvm::enumerate(getStaticSizes()))
    identity = identity && (ShapedType::isDynamic(size)
                                ? isDimOf(getSizes()[dynamic++], getInput(), d)
                                : size == type.getDimSize(d));
  return identity ? getInput() : OpFoldResult();
}

LogicalResult SplitOp::fold(FoldAdaptor, SmallVectorImpl<OpFoldResult> &results) {
  if (getNumResults() != 1 || getResult(0).getType() != getInput().getType())
    return failure();
  results.push_back(getInput());
  return success();
}

OpFoldResult SqueezeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType() && getDims().empty())
    return getInput();
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput()))
    if (getType().hasStaticShape())
      return dense.reshape(getType());
  auto inner = getInput().getDefiningOp<UnsqueezeOp>();
  if (inner && inner.getDims() == getDims() &&
      inner.getInput().getType() == getType())
    return inner.getInput();
  return {};
}

OpFoldResult UnsqueezeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType() && getDims().empty())
    return getInput();
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput()))
    if (getType().hasStaticShape())
      return dense.reshape(getType());
  auto inner = getInput().getDefiningOp<SqueezeOp>();
  if (inner && inner.getDims() == getDims() &&
      inner.getInput().getType() == getType())
    return inner.getInput();
  return {};
}

OpFoldResult RangeOp::fold(FoldAdaptor adaptor) {
  RankedTensorType type = getType();
  if (!type.hasStaticShape() || type.getNumElements() > kMaxFoldedElements)
    return {};
  auto ints = {adaptor.getStart(), adaptor.getLimit(), adaptor.getDelta()};
  if (llvm::all_of(ints, [](Attribute a) { return isa_and_nonnull<IntegerAttr>(a); })) {
    int64_t start = cast<IntegerAttr>(adaptor.getStart()).getInt();
    int64_t delta = cast<IntegerAttr>(adaptor.getDelta()).getInt();
    SmallVector<APInt> values;
    unsigned width = type.getElementType().getIntOrFloatBitWidth();
    for (int64_t i = 0; i < type.getNumElements(); ++i)
      values.push_back(APInt(width, start + i * delta, /*isSigned=*/true,
                             /*implicitTrunc=*/true));
    return DenseElementsAttr::get(type, values);
  }
  if (llvm::all_of(ints, [](Attribute a) { return isa_and_nonnull<FloatAttr>(a); })) {
    double start = cast<FloatAttr>(adaptor.getStart()).getValueAsDouble();
    double delta = cast<FloatAttr>(adaptor.getDelta()).getValueAsDouble();
    SmallVector<Attribute> values;
    for (int64_t i = 0; i < type.getNumElements(); ++i)
      values.push_back(FloatAttr::get(type.getElementType(), start + i * delta));
    return DenseElementsAttr::get(type, values);
  }
  return {};
}

//===----------------------------------------------------------------------===//
// Shape queries
//===----------------------------------------------------------------------===//

OpFoldResult DimOp::fold(FoldAdaptor) {
  // Walk up through producers whose shape rules make the dim an operand dim
  // until a static size, a size operand (a reshape's, a slice's) or a binding
  // answers.
  Value input = getInput();
  auto dim = static_cast<int64_t>(getDim());
  auto indexAttr = [&](int64_t v) {
    return IntegerAttr::get(IndexType::get(getContext()), v);
  };
  for (int steps = 0; steps < 64; ++steps) {
    auto type = cast<RankedTensorType>(input.getType());
    if (!type.isDynamicDim(dim))
      return indexAttr(type.getDimSize(dim));
    Operation *producer = input.getDefiningOp();
    PlaceholderReader reader(getContext());
    std::optional<AffineExpr> expr =
        producer
            ? deriveResultDim(producer, cast<OpResult>(input).getResultNumber(),
                              dim, reader)
            : std::nullopt;
    if (expr && *expr && isa<AffineConstantExpr>(*expr))
      return indexAttr(cast<AffineConstantExpr>(*expr).getValue());
    // A size operand: a reshape's, or a slice's (the Q, K and V slices of a
    // fused projection: the symbols the split read).
    std::optional<ValueDim> source = expr ? reader.source(*expr) : std::nullopt;
    if (source && source->dim == PlaceholderReader::kValue &&
        isa<IndexType>(source->value.getType()))
      return source->value;
    // A dim bound to a single symbol is that symbol's value, when the
    // declaration precedes this op in the same block (it then dominates it).
    for (Operation *user : input.getUsers()) {
      auto bind = dyn_cast<BindShapeOp>(user);
      if (!bind)
        continue;
      AffineExpr bound = bind.getShape().getResult(dim);
      if (auto constant = dyn_cast<AffineConstantExpr>(bound))
        return indexAttr(constant.getValue());
      auto symbol = dyn_cast<AffineSymbolExpr>(bound);
      if (!symbol)
        continue;
      Value value = bind.getSymbols()[symbol.getPosition()];
      Operation *decl = value.getDefiningOp();
      if (decl && decl->getBlock() == (*this)->getBlock() &&
          decl->isBeforeInBlock(*this))
        return value;
    }
    if (!source || source->dim == PlaceholderReader::kValue)
      break;
    input = source->value;
    dim = source->dim;
  }
  if (input == getInput())
    return {};
  getInputMutable().assign(input);
  setDim(static_cast<uint64_t>(dim));
  return getResult();
}

OpFoldResult ShapeOfOp::fold(FoldAdaptor) {
  RankedTensorType type = getInput().getType();
  if (!type.hasStaticShape())
    return {};
  return DenseElementsAttr::get(getType(), type.getShape());
}
