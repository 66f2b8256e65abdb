//===- Minifloat.cpp - 8- and 4-bit float conversions as integer code -----===//
//
// The 8-bit floats (f8E4M3FN, f8E4M3FNUZ, f8E5M2, f8E5M2FNUZ, f8E8M0FNU) and
// f4E2M1FN have no instructions on the host and no LLVM types; ONNX gives
// their conversions rules of their own (saturation, where NaN and the sign
// of zero go, the exponent-only type's rounding modes). Every conversion is
// built here as integer arithmetic on the bits: a minifloat is decoded to
// f32 exactly, and a wider float is encoded with one rounding, to nearest
// even, from its own bits (f64 from its 64, so no double rounding). The
// kernels then only load, store and bitcast the types, which the LLVM and
// NVPTX lowerings map to i8 (i4 for f4E2M1FN).
//
//===----------------------------------------------------------------------===//

#include "passes/conversion/TscToLinalg/TscToLinalg.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::tolinalg;

namespace {

/// What a minifloat does with values it cannot hold.
enum class Specials {
  InfAndNaN,    // IEEE-like: all-ones exponent (f8E5M2)
  NaNOnly,      // only S.1111.111 is NaN; no infinity (f8E4M3FN)
  NaNIsNegZero, // 0x80 is the one NaN; no -0, no infinity (FNUZ)
  None,         // every code is a number (f4E2M1FN)
};

/// A sign-exponent-mantissa format of `width` bits.
struct Format {
  unsigned width, exponent, mantissa;
  int bias;
  Specials specials;

  uint64_t signBit() const { return uint64_t(1) << (width - 1); }
  /// The largest finite magnitude's code.
  uint64_t maxCode() const {
    uint64_t all = signBit() - 1;
    switch (specials) {
    case Specials::InfAndNaN:
      return all - (uint64_t(1) << mantissa); // below the all-ones exponent
    case Specials::NaNOnly:
      return all - 1;
    case Specials::NaNIsNegZero:
    case Specials::None:
      return all;
    }
    llvm_unreachable("unknown specials");
  }
};

std::optional<Format> getFormat(Type type) {
  if (isa<Float8E4M3FNType>(type))
    return Format{8, 4, 3, 7, Specials::NaNOnly};
  if (isa<Float8E4M3FNUZType>(type))
    return Format{8, 4, 3, 8, Specials::NaNIsNegZero};
  if (isa<Float8E5M2Type>(type))
    return Format{8, 5, 2, 15, Specials::InfAndNaN};
  if (isa<Float8E5M2FNUZType>(type))
    return Format{8, 5, 2, 16, Specials::NaNIsNegZero};
  if (isa<Float4E2M1FNType>(type))
    return Format{4, 2, 1, 1, Specials::None};
  return std::nullopt;
}

/// Integer helpers over one signless integer type; an operand is a value or
/// a constant of the type.
struct Bits {
  OpBuilder &b;
  Location loc;
  IntegerType type;

  Value c(uint64_t v) const {
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, v));
  }
  Value operand(Value v) const { return v; }
  Value operand(uint64_t v) const { return c(v); }
  template <typename OpTy, typename... Operands>
  Value make(Operands... operands) const {
    return OpTy::create(b, loc, operand(operands)...);
  }

  template <typename Y> Value andi(Value x, Y y) const {
    return make<arith::AndIOp>(x, y);
  }
  Value ori(Value x, Value y) const { return make<arith::OrIOp>(x, y); }
  template <typename Y> Value shr(Value x, Y y) const {
    return make<arith::ShRUIOp>(x, y);
  }
  template <typename Y> Value shl(Value x, Y y) const {
    return make<arith::ShLIOp>(x, y);
  }
  Value add(Value x, Value y) const { return make<arith::AddIOp>(x, y); }
  Value sub(Value x, Value y) const { return make<arith::SubIOp>(x, y); }
  template <typename Y> Value cmp(arith::CmpIPredicate p, Value x, Y y) const {
    return arith::CmpIOp::create(b, loc, p, x, operand(y));
  }
  template <typename X> Value select(Value cond, X x, Value y) const {
    return arith::SelectOp::create(b, loc, cond, operand(x), y);
  }
  Value extend(Value i1) const {
    return arith::ExtUIOp::create(b, loc, type, i1);
  }
};

using P = arith::CmpIPredicate;

/// The bits of `v` (a minifloat or an integer of its width) as i32.
Value minifloatBits(OpBuilder &b, Location loc, Value v) {
  unsigned width = v.getType().getIntOrFloatBitWidth();
  if (isa<FloatType>(v.getType()))
    v = arith::BitcastOp::create(b, loc, b.getIntegerType(width), v);
  return arith::ExtUIOp::create(b, loc, b.getI32Type(), v);
}

/// The f32 of f8E8M0FNU `v`: 2^(e - 127), NaN for 0xFF.
Value decodeE8M0(OpBuilder &b, Location loc, Value v) {
  Bits i{b, loc, b.getI32Type()};
  Value e = minifloatBits(b, loc, v);
  // 2^-127 is f32's subnormal 0x00400000.
  Value bits = i.select(i.cmp(P::eq, e, 0), 0x00400000, i.shl(e, 23));
  bits = i.select(i.cmp(P::eq, e, 0xFF), 0x7FC00000, bits);
  return arith::BitcastOp::create(b, loc, b.getF32Type(), bits);
}

/// The f32 of minifloat `v` in `format`, exactly.
Value decode(OpBuilder &b, Location loc, Value v, const Format &format) {
  Bits i{b, loc, b.getI32Type()};
  Type f32 = b.getF32Type();
  Value bits = minifloatBits(b, loc, v);
  Value mag = i.andi(bits, format.signBit() - 1);
  Value e = i.shr(mag, format.mantissa);
  Value m = i.andi(mag, (uint64_t(1) << format.mantissa) - 1);
  // Normal: rebias the exponent, widen the mantissa.
  Value normal = i.ori(i.shl(i.add(e, i.c(127 - format.bias)), 23),
                       i.shl(m, 23 - format.mantissa));
  // Subnormal: m units of 2^(1 - bias - mantissa), exact in f32.
  Value unit = scalarConstant(
      b, loc, f32,
      std::ldexp(1.0, 1 - format.bias - static_cast<int>(format.mantissa)));
  Value subnormal = arith::MulFOp::create(
      b, loc, arith::UIToFPOp::create(b, loc, f32, m), unit);
  Value magnitude =
      arith::SelectOp::create(b, loc, i.cmp(P::eq, e, 0), subnormal,
                              arith::BitcastOp::create(b, loc, f32, normal));
  uint64_t all = format.signBit() - 1;
  Value nan = scalarConstant(b, loc, f32, std::nan(""));
  switch (format.specials) {
  case Specials::InfAndNaN: {
    uint64_t infCode = all - ((uint64_t(1) << format.mantissa) - 1);
    Value inf = scalarConstant(b, loc, f32, INFINITY);
    magnitude = arith::SelectOp::create(b, loc, i.cmp(P::eq, mag, infCode), inf,
                                        magnitude);
    magnitude = arith::SelectOp::create(b, loc, i.cmp(P::ugt, mag, infCode),
                                        nan, magnitude);
    break;
  }
  case Specials::NaNOnly:
    magnitude =
        arith::SelectOp::create(b, loc, i.cmp(P::eq, mag, all), nan, magnitude);
    break;
  case Specials::NaNIsNegZero:
    // 0x80 is NaN, not -0: answered below, before the sign applies.
    break;
  case Specials::None:
    break;
  }
  Value negative = i.cmp(P::ne, i.andi(bits, format.signBit()), 0);
  Value result = arith::SelectOp::create(
      b, loc, negative, arith::NegFOp::create(b, loc, magnitude), magnitude);
  if (format.specials == Specials::NaNIsNegZero)
    result = arith::SelectOp::create(
        b, loc, i.cmp(P::eq, bits, format.signBit()), nan, result);
  return result;
}

/// f8E8M0FNU from f32 `x` as ONNX's to_float8e8m0: the exponent field,
/// rounded up, down or to nearest by the mantissa; the sign is dropped;
/// NaN and infinity become NaN (0xFF), as does rounding past 2^127 unless
/// `saturate`.
Value encodeE8M0(OpBuilder &b, Location loc, Value x, bool saturate,
                 ExponentRounding mode) {
  Bits i{b, loc, b.getI32Type()};
  Value bits = arith::BitcastOp::create(b, loc, b.getI32Type(), x);
  Value e = i.andi(i.shr(bits, 23), 0xFF);
  Value roundUp;
  switch (mode) {
  case ExponentRounding::down:
    break;
  case ExponentRounding::up:
    roundUp = i.cmp(P::ne, i.andi(bits, 0x7FFFFF), 0);
    break;
  case ExponentRounding::nearest: {
    // The reference's rule: the guard bit, and any bit below it or a
    // nonzero exponent.
    Value guard = i.cmp(P::ne, i.andi(bits, 0x400000), 0);
    Value rest = i.cmp(P::ne, i.andi(bits, 0x3FFFFF), 0);
    Value lsb = i.cmp(P::ne, e, 0);
    roundUp = arith::AndIOp::create(b, loc, guard,
                                    arith::OrIOp::create(b, loc, rest, lsb));
    break;
  }
  }
  Value code = e;
  if (roundUp) {
    if (saturate)
      roundUp = arith::AndIOp::create(b, loc, roundUp, i.cmp(P::ne, e, 0xFE));
    code = i.add(e, i.extend(roundUp));
  }
  code = i.select(i.cmp(P::eq, e, 0xFF), 0xFF, code);
  Value byte = arith::TruncIOp::create(b, loc, b.getI8Type(), code);
  return arith::BitcastOp::create(b, loc, b.getType<Float8E8M0FNUType>(), byte);
}

/// Minifloat `to` in `format` from `x` (f32 or f64), rounded to nearest
/// even once, with ONNX Cast's overflow rules for `saturate`.
Value encode(OpBuilder &b, Location loc, Value x, Type to, const Format &format,
             bool saturate) {
  auto source = cast<FloatType>(x.getType());
  unsigned w = source.getWidth();
  int srcMantissa = static_cast<int>(source.getFPMantissaWidth()) - 1;
  int srcBias = w == 64 ? 1023 : 127;
  Bits i{b, loc, b.getIntegerType(w)};
  Value bits = arith::BitcastOp::create(b, loc, i.type, x);
  uint64_t signMask = uint64_t(1) << (w - 1);
  uint64_t infBits = ((signMask - 1) >> srcMantissa) << srcMantissa;
  Value negative = i.cmp(P::ne, i.andi(bits, signMask), 0);
  Value abs = i.andi(bits, signMask - 1);
  Value e = i.shr(abs, srcMantissa);
  Value isNormal = i.cmp(P::ne, e, 0);
  // The significand with its implicit bit, and the exponent subnormals
  // share with the smallest normals.
  Value sig = i.ori(i.andi(abs, (uint64_t(1) << srcMantissa) - 1),
                    i.shl(i.extend(isNormal), srcMantissa));
  Value effE = i.select(isNormal, e, i.c(1));
  // The biased exponent in the target: below 1 is the target's subnormal
  // range, which drops `1 - te` more bits.
  Value te =
      i.add(effE, i.c(static_cast<uint64_t>(int64_t(format.bias) - srcBias)));
  Value one = i.c(1);
  Value subnormal = i.cmp(P::slt, te, one);
  Value extra = i.select(subnormal, i.sub(one, te), i.c(0));
  Value shift = i.add(extra, i.c(srcMantissa - format.mantissa));
  // Past w - 1 every bit is dropped and the value rounds to zero.
  shift = arith::MinUIOp::create(b, loc, shift, i.c(w - 1));
  Value q = i.shr(sig, shift);
  Value rem = i.andi(sig, i.sub(i.shl(one, shift), one));
  Value half = i.shl(one, i.sub(shift, one));
  Value above = i.cmp(P::ugt, rem, half);
  Value tie = arith::AndIOp::create(b, loc, i.cmp(P::eq, rem, half),
                                    i.cmp(P::ne, i.andi(q, 1), 0));
  Value up = arith::OrIOp::create(b, loc, above, tie);
  Value base = i.select(subnormal, i.c(0), i.sub(te, one));
  // (te - 1) << mantissa plus the significand's implicit bit is the
  // normal code; a carry out of the mantissa bumps the exponent.
  Value code = i.add(i.add(i.shl(base, format.mantissa), q), i.extend(up));

  uint64_t maxCode = format.maxCode();
  uint64_t all = format.signBit() - 1;
  Value overflow = i.cmp(P::ugt, code, maxCode);
  Value isNaN = i.cmp(P::ugt, abs, infBits);
  uint64_t nanCode = 0;
  uint64_t overflowCode = maxCode;
  switch (format.specials) {
  case Specials::InfAndNaN:
    nanCode = all - ((uint64_t(1) << format.mantissa) - 1) +
              (uint64_t(1) << (format.mantissa - 1));
    if (!saturate)
      overflowCode = maxCode + 1; // infinity
    break;
  case Specials::NaNOnly:
    nanCode = all;
    if (!saturate)
      overflowCode = all;
    break;
  case Specials::NaNIsNegZero:
    nanCode = format.signBit();
    if (!saturate)
      overflowCode = nanCode;
    break;
  case Specials::None:
    // ml_dtypes, ONNX's reference, makes NaN a zero of the other sign.
    nanCode = 0;
    break;
  }
  Value mag = i.select(overflow, overflowCode, code);
  mag = i.select(isNaN, nanCode, mag);
  // The sign: kept on zeros and NaN where the type has them signed; FNUZ
  // has no -0 (and its NaN already has the sign bit set).
  Value sign = negative;
  if (format.specials == Specials::NaNIsNegZero)
    sign = arith::AndIOp::create(b, loc, sign, i.cmp(P::ne, mag, 0));
  if (format.specials == Specials::None)
    sign = arith::XOrIOp::create(b, loc, sign, isNaN);
  Value result = i.ori(mag, i.shl(i.extend(sign), format.width - 1));
  Value narrow =
      arith::TruncIOp::create(b, loc, b.getIntegerType(format.width), result);
  return arith::BitcastOp::create(b, loc, to, narrow);
}

} // namespace

bool tolinalg::isMinifloat(Type type) {
  return getFormat(type) || isa<Float8E8M0FNUType>(type);
}

Value tolinalg::convertMinifloat(OpBuilder &b, Location loc, Value v, Type from,
                                 Type to, const MinifloatCast &how) {
  if (from == to)
    return v;
  Type f32 = b.getF32Type();
  // From a minifloat: exactly to f32, then on by the ordinary rules.
  if (isMinifloat(from)) {
    std::optional<Format> format = getFormat(from);
    Value wide = format ? decode(b, loc, v, *format) : decodeE8M0(b, loc, v);
    if (!isMinifloat(to))
      return convertScalar(b, loc, wide, f32, to);
    v = wide;
    from = f32;
  }
  // To a minifloat: from f32 or f64 bits, integers through f64 (exact to
  // 2^53), halves through f32 (exact).
  Type source = f32;
  if (isa<IntegerType>(from) || (from.isF64() && getFormat(to)))
    source = b.getF64Type();
  v = convertScalar(b, loc, v, from, source);
  if (std::optional<Format> format = getFormat(to))
    return encode(b, loc, v, to, *format, how.saturate);
  // ONNX computes the exponent of the value rounded to f32.
  v = convertScalar(b, loc, v, source, f32);
  return encodeE8M0(b, loc, v, how.saturate, how.roundMode);
}
