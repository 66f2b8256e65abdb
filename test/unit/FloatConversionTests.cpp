//===- FloatConversionTests.cpp - weight conversion to narrower floats ----===//
//
// convertFloatConstant converts f32 weights to bf16 and f16 by their bits (a
// fast path for --precision), and roundToF8E4M3FN makes --quantize=fp8's
// weight codes; every element must be what APFloat's round to nearest even
// gives, saturated where asked, NaNs, subnormals and overflows included.
//
//===----------------------------------------------------------------------===//

#include "compiler/InitAll.h"
#include "dialects/tsc/IR/ConstantData.h"
#include "dialects/tsc/IR/TscOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/APFloat.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

using namespace mlir;

namespace {

/// APFloat's conversion of the f32 `bits` to `to`, saturated as asked.
uint16_t reference(uint32_t bits, const llvm::fltSemantics &to, bool saturate) {
  llvm::APFloat v(llvm::APFloat::IEEEsingle(), llvm::APInt(32, bits));
  bool finite = v.isFinite(), losesInfo;
  v.convert(to, llvm::APFloat::rmNearestTiesToEven, &losesInfo);
  if (saturate && finite && v.isInfinity())
    v = llvm::APFloat::getLargest(to, v.isNegative());
  return static_cast<uint16_t>(v.bitcastToAPInt().getZExtValue());
}

TEST(FloatConversion, F32ToHalfMatchesAPFloat) {
  DialectRegistry registry;
  tsc::registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Edge cases (zeros, subnormals, ties, the largest finite values and what
  // rounds past them, infinities, NaNs) and random bit patterns.
  std::vector<uint32_t> bits = {
      0x00000000u, 0x80000000u, 0x00000001u, 0x807fffffu, 0x00008000u,
      0x00018000u, 0x3f808000u, 0x3f818000u, 0x3f807fffu, 0x3f808001u,
      0x7f7fffffu, 0xff7fffffu, 0x7f7f7fffu, 0x7f7f8000u, 0x7f800000u,
      0xff800000u, 0x7fc00000u, 0x7f800001u, 0xffbfffffu, 0x7fff0001u,
      // f16's edges: its smallest normal and what rounds to it, subnormals,
      // its largest finite value, ties below and at the overflow point.
      0x38800000u, 0x387fffffu, 0x387ff000u, 0x33800000u, 0x33000000u,
      0x477fe000u, 0x477fefffu, 0x477ff000u, 0xc77ff000u, 0x38801000u,
      0x38803000u, 0x3f801000u, 0x3f803000u};
  std::mt19937 random(7);
  while (bits.size() < 200000)
    bits.push_back(static_cast<uint32_t>(random()));
  auto from = RankedTensorType::get({static_cast<int64_t>(bits.size())},
                                    Float32Type::get(&context));
  ArrayRef<char> raw(reinterpret_cast<const char *>(bits.data()),
                     bits.size() * 4);
  Attribute weights = DenseElementsAttr::getFromRawBuffer(from, raw);
  for (FloatType half : {FloatType(BFloat16Type::get(&context)),
                         FloatType(Float16Type::get(&context))})
    for (bool saturate : {false, true}) {
      Attribute converted =
          tsc::convertFloatConstant(weights, from.clone(half), saturate);
      ASSERT_TRUE(converted);
      std::optional<std::vector<char>> out = tsc::getConstantBytes(converted);
      ASSERT_TRUE(out);
      ASSERT_EQ(out->size(), bits.size() * 2);
      for (size_t i = 0; i < bits.size(); ++i) {
        uint16_t got;
        std::memcpy(&got, out->data() + i * 2, 2);
        ASSERT_EQ(got, reference(bits[i], half.getFloatSemantics(), saturate))
            << "f32 bits 0x" << std::hex << bits[i] << " to "
            << (half.isBF16() ? "bf16" : "f16")
            << (saturate ? ", saturated" : "");
      }
    }
}

/// roundToF8E4M3FN against APFloat's f8E4M3FN conversion, which gives NaN
/// (E4M3FN has no infinity) where the saturating code is ±448.
TEST(FloatConversion, F32ToF8E4M3FNMatchesAPFloat) {
  std::vector<float> values = {
      0.0f,         -0.0f,         448.0f,      -448.0f,       463.99f,
      464.0f,       1e30f,         -INFINITY,   0.015625f,     0.0146484375f,
      0.001953125f, 0.0009765625f, 0.00097656f, 0.0029296875f, 1.0625f,
      1.1875f,      1.0624999f,    240.0f,      232.0f,        248.0f,
      1e-30f,       -1e-9f};
  std::mt19937 random(8);
  std::uniform_real_distribution<float> exponent(-12.0f, 9.5f);
  while (values.size() < 200000) {
    float v = std::exp2(exponent(random));
    values.push_back(random() & 1 ? -v : v);
  }
  for (uint32_t bits = 0; bits < 0x10000u; ++bits) { // f32 edge patterns
    float v;
    uint32_t pattern = 0x3a000000u + (bits << 10);
    std::memcpy(&v, &pattern, 4);
    values.push_back(v);
  }
  for (float v : values) {
    llvm::APFloat ref(v);
    bool losesInfo;
    ref.convert(llvm::APFloat::Float8E4M3FN(),
                llvm::APFloat::rmNearestTiesToEven, &losesInfo);
    uint8_t expected = ref.isNaN() && !std::isnan(v)
                           ? uint8_t(std::signbit(v) ? 0xfe : 0x7e)
                           : uint8_t(ref.bitcastToAPInt().getZExtValue());
    ASSERT_EQ(tsc::roundToF8E4M3FN(v), expected) << "value " << v;
  }
  EXPECT_EQ(tsc::roundToF8E4M3FN(NAN), 0x7f);
}

} // namespace
