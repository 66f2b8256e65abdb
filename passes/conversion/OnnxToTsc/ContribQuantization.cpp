//===- ContribQuantization.cpp - ONNX Runtime's quantized matmuls ---------===//
//
// MatMulNBits (weights quantized to 2..8 bits in blocks along K, as ONNX
// Runtime's quantizers and its generative-AI model builder write them),
// DynamicQuantizeMatMul (quantize_dynamic's form) and MatMulIntegerToFloat.
// MatMulNBits' 4-bit weights with ONNX Runtime's default zero point (8) and
// f32 activations and scales stay packed, in the weight-only form of
// `--quantize=weight-int4` (codes q - 8 as i4, a scale per block along K),
// which the host plan runs as a weight-only GEMM step; other MatMulNBits
// weights are dequantized at compile time into the float matrix they stand
// for. The other two compute as ONNX Runtime's CPU kernels do, so that their
// outputs match.
//
//===----------------------------------------------------------------------===//

#include "passes/conversion/Foreign/Builders.h"
#include "passes/conversion/OnnxToTsc/OnnxToTsc.h"

#include "dialects/tsc/IR/ConstantData.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include "llvm/Support/Endian.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::fromonnx;
using namespace mlir::tsc::foreign;

namespace {

using Values = SmallVector<Value>;

/// The data of input `i` when it is a constant with readable bytes.
std::optional<std::vector<char>> constantInputBytes(ForeignNode &node,
                                                    unsigned i) {
  auto value = node.input(i);
  if (failed(value))
    return std::nullopt;
  auto constant = value->getDefiningOp<ConstantOp>();
  if (!constant)
    return std::nullopt;
  return getConstantBytes(constant.getValue());
}

/// Float elements of `bytes` of float type `type`, as doubles.
std::vector<double> floatsOf(ArrayRef<char> bytes, FloatType type) {
  unsigned width = type.getWidth() / 8;
  std::vector<double> out(bytes.size() / width);
  for (size_t i = 0; i < out.size(); ++i) {
    APInt bits(type.getWidth(), 0);
    llvm::LoadIntFromMemory(
        bits, reinterpret_cast<const uint8_t *>(bytes.data() + i * width),
        width);
    out[i] = APFloat(type.getFloatSemantics(), bits).convertToDouble();
  }
  return out;
}

/// The `bits`-bit value at index `i` of a little-endian bit stream (ONNX
/// Runtime's packing: element i at bits [i * bits, (i + 1) * bits)).
unsigned unpack(const uint8_t *stream, int64_t i, int64_t bits) {
  int64_t bit = i * bits;
  unsigned word = stream[bit / 8];
  if (bit % 8 + bits > 8)
    word |= unsigned(stream[bit / 8 + 1]) << 8;
  return (word >> (bit % 8)) & ((1u << bits) - 1);
}

/// MatMulNBits: Y = A x W (+ bias), with W [K, N] = (q - zero_point) * scale
/// from B [N, blocks, block_size * bits / 8] (bit-packed along K), scales
/// [N, blocks] and zero points packed like B ([N, ceil(blocks * bits / 8)]),
/// unpacked in A's float type ([N, blocks]), or 2^(bits - 1) when absent.
FailureOr<Values> convertMatMulNBits(ForeignNode &node) {
  auto a = node.input(0);
  if (failed(a))
    return failure();
  if (node.hasInput(4))
    return node.fail("g_idx (act-order group indices) is not supported");
  if (node.getInt("weight_prepacked", 0))
    return node.fail("weights prepacked for a GPU kernel are not supported");
  int64_t k = node.getInt("K", 0), n = node.getInt("N", 0);
  int64_t bits = node.getInt("bits", 4), block = node.getInt("block_size", 0);
  if (k <= 0 || n <= 0 || bits < 2 || bits > 8 || block < 16 ||
      (block & (block - 1)))
    return node.fail(
        "K, N, bits (2..8) and block_size (a power of 2, at least 16) "
        "must be set; got K " +
        Twine(k) + ", N " + Twine(n) + ", bits " + Twine(bits) +
        ", block_size " + Twine(block));
  auto element = dyn_cast<FloatType>(a->getType().getElementType());
  if (!element || a->getType().getRank() == 0 ||
      a->getType().getShape().back() != k)
    return node.fail("A must be a float tensor whose last dim is K (" +
                     Twine(k) + ")");
  int64_t blocks = (k + block - 1) / block, blob = block * bits / 8;
  std::optional<std::vector<char>> packed = constantInputBytes(node, 1);
  std::optional<std::vector<char>> scaleBytes = constantInputBytes(node, 2);
  if (!packed || !scaleBytes)
    return node.fail(
        "B and scales must be constants (weights are dequantized at "
        "compile time)");
  if (static_cast<int64_t>(packed->size()) != n * blocks * blob)
    return node.fail("B has " + Twine(packed->size()) +
                     " bytes, expected N * " + Twine(blocks) + " blocks * " +
                     Twine(blob) + " bytes");
  auto scaleType = dyn_cast<FloatType>(
      cast<RankedTensorType>(node.getOp().getInputs()[2].getType())
          .getElementType());
  if (!scaleType)
    return node.fail("scales must be floats");
  std::vector<double> scales = floatsOf(*scaleBytes, scaleType);
  if (static_cast<int64_t>(scales.size()) != n * blocks)
    return node.fail("scales has " + Twine(scales.size()) +
                     " elements, expected " + Twine(n * blocks));
  // Zero points, one per (row, block).
  std::vector<double> zeroPoints(n * blocks, double(1 << (bits - 1)));
  if (node.hasInput(3)) {
    std::optional<std::vector<char>> zpBytes = constantInputBytes(node, 3);
    if (!zpBytes)
      return node.fail("zero_points must be a constant");
    auto zpElement =
        cast<RankedTensorType>(node.getOp().getInputs()[3].getType())
            .getElementType();
    if (auto zpFloat = dyn_cast<FloatType>(zpElement)) {
      zeroPoints = floatsOf(*zpBytes, zpFloat);
      if (static_cast<int64_t>(zeroPoints.size()) != n * blocks)
        return node.fail("float zero_points must have N * blocks elements");
    } else {
      int64_t rowBytes = (blocks * bits + 7) / 8;
      if (static_cast<int64_t>(zpBytes->size()) != n * rowBytes)
        return node.fail("packed zero_points must be [N, " + Twine(rowBytes) +
                         "] bytes");
      auto *stream = reinterpret_cast<const uint8_t *>(zpBytes->data());
      for (int64_t row = 0; row < n; ++row)
        for (int64_t b = 0; b < blocks; ++b)
          zeroPoints[row * blocks + b] =
              unpack(stream + row * rowBytes, b, bits);
    }
  }
  RewriterBase &rw = node.getRewriter();
  auto addBias = [&](FailureOr<Value> y) -> FailureOr<Values> {
    if (failed(y) || !node.hasInput(5))
      return results(y);
    auto bias = node.input(5);
    if (failed(bias))
      return failure();
    return results(node.create<AddOp>({*y, *bias}));
  };
  // 4 bits and f32: W stays packed, as the weight-only form's i4 codes
  // q - 8 in [-8, 7] ([N, K], two a byte, the first in the low bits) with
  // the f32 scales [N, blocks] and, unless all are the default 8, the zero
  // points z - 8 as i4 [N, blocks] (float zero points too, when they are
  // integers in [0, 15]).
  bool symmetric = llvm::all_of(zeroPoints, [](double z) { return z == 8; });
  bool codes = llvm::all_of(zeroPoints, [](double z) {
    return z >= 0 && z <= 15 && z == std::floor(z);
  });
  if (bits == 4 && codes && element.isF32() && scaleType.isF32()) {
    auto *stream = reinterpret_cast<const uint8_t *>(packed->data());
    std::vector<char> codes((n * k + 1) / 2, 0);
    for (int64_t row = 0; row < n; ++row)
      for (int64_t kk = 0; kk < k; ++kk) {
        unsigned code = unpack(stream + (row * blocks + kk / block) * blob,
                               kk % block, bits);
        int64_t at = row * k + kk;
        codes[at / 2] |= char(((code ^ 8) & 0xF) << (4 * (at & 1)));
      }
    auto codeType = RankedTensorType::get({n, k}, rw.getIntegerType(4));
    Value wq = ConstantOp::create(
        rw, node.getLoc(),
        DenseResourceElementsAttr::get(
            codeType, "matmul_nbits_weight.s4",
            HeapAsmResourceBlob::allocateAndCopyWithAlign(codes, 64)));
    Value ws = ConstantOp::create(
        rw, node.getLoc(),
        cast<ElementsAttr>(getConstantFromBytes(
            RankedTensorType::get({n, blocks}, rw.getF32Type()), *scaleBytes,
            "matmul_nbits_weight.s4.scale")));
    Value wz;
    if (!symmetric) {
      std::vector<char> zp((n * blocks + 1) / 2, 0);
      for (int64_t i = 0; i < n * blocks; ++i)
        zp[i / 2] |=
            char(((unsigned(zeroPoints[i]) ^ 8) & 0xF) << (4 * (i & 1)));
      wz = ConstantOp::create(
          rw, node.getLoc(),
          DenseResourceElementsAttr::get(
              RankedTensorType::get({n, blocks}, rw.getIntegerType(4)),
              "matmul_nbits_weight.s4.zero_point",
              HeapAsmResourceBlob::allocateAndCopyWithAlign(zp, 64)));
    }
    auto wd = DequantizeOp::create(
        rw, node.getLoc(), RankedTensorType::get({n, k}, rw.getF32Type()), wq,
        ws, wz, rw.getI64IntegerAttr(1), rw.getI64IntegerAttr(block));
    if (failed(node.verifyCreated(wd)))
      return failure();
    LinearOp::Properties linear;
    linear.operandSegmentSizes = {1, 1, 0, 0};
    return addBias(node.create<LinearOp>({*a, wd.getResult()}, linear));
  }
  // W [K, N] in A's float type.
  unsigned width = element.getWidth() / 8;
  std::vector<char> weight(static_cast<size_t>(k * n) * width);
  auto *stream = reinterpret_cast<const uint8_t *>(packed->data());
  for (int64_t row = 0; row < n; ++row)
    for (int64_t b = 0; b < blocks; ++b) {
      double scale = scales[row * blocks + b],
             zp = zeroPoints[row * blocks + b];
      const uint8_t *blockData = stream + (row * blocks + b) * blob;
      for (int64_t i = 0; i < block && b * block + i < k; ++i) {
        APFloat v(double((unpack(blockData, i, bits) - zp) * scale));
        bool losesInfo;
        v.convert(element.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                  &losesInfo);
        llvm::StoreIntToMemory(
            v.bitcastToAPInt(),
            reinterpret_cast<uint8_t *>(weight.data() +
                                        ((b * block + i) * n + row) * width),
            width);
      }
    }
  auto weightType = RankedTensorType::get({k, n}, element);
  Value w = ConstantOp::create(rw, node.getLoc(),
                               cast<ElementsAttr>(getConstantFromBytes(
                                   weightType, weight, "matmul_nbits_weight")));
  return addBias(node.create<MatmulOp>({*a, w}));
}

/// The i32 product, converted to `element` and scaled by `scale` (then
/// plus the optional bias input `bias`).
FailureOr<Value> scaledProduct(ForeignNode &node, Value lhs, Value rhs,
                               Type element, Value scale, unsigned bias) {
  FailureOr<Value> product = node.create<MatmulOp>({lhs, rhs});
  if (failed(product))
    return failure();
  FailureOr<Value> y =
      node.create<MulOp>({castTo(node, *product, element), scale});
  if (failed(y) || !node.hasInput(bias))
    return y;
  auto b = node.input(bias);
  if (failed(b))
    return failure();
  return node.create<AddOp>({*y, *b});
}

/// DynamicQuantizeMatMul: A quantized at run time to uint8 per tensor (as
/// DynamicQuantizeLinear), B integer with per-tensor or per-column scale
/// and zero point; Y = (A_q - a_zp)(B - b_zp) a_scale b_scale + bias.
FailureOr<Values> convertDynamicQuantizeMatMul(ForeignNode &node) {
  auto a = node.input(0);
  auto b = node.input(1);
  auto bScale = node.input(2);
  if (failed(a) || failed(b) || failed(bScale))
    return failure();
  FailureOr<SmallVector<Value>> quantized = buildDynamicQuantize(node, *a);
  if (failed(quantized))
    return failure();
  Type i32 = node.getRewriter().getI32Type();
  FailureOr<Value> lhs = node.create<SubOp>(
      {castTo(node, (*quantized)[0], i32), castTo(node, (*quantized)[2], i32)});
  FailureOr<Value> rhs = buildZeroPointShift(node, *b, 3, /*perRow=*/false);
  FailureOr<Value> scale = node.create<MulOp>({(*quantized)[1], *bScale});
  if (failed(lhs) || failed(rhs) || failed(scale))
    return failure();
  return results(scaledProduct(node, *lhs, *rhs, a->getType().getElementType(),
                               *scale, 4));
}

/// MatMulIntegerToFloat: (A - a_zp)(B - b_zp) a_scale b_scale + bias, the
/// scales per tensor or per column and the product accumulated in i32.
FailureOr<Values> convertMatMulIntegerToFloat(ForeignNode &node) {
  auto a = node.input(0);
  auto b = node.input(1);
  auto aScale = node.input(2);
  auto bScale = node.input(3);
  if (failed(a) || failed(b) || failed(aScale) || failed(bScale))
    return failure();
  FailureOr<Value> lhs = buildZeroPointShift(node, *a, 4, /*perRow=*/true);
  FailureOr<Value> rhs = buildZeroPointShift(node, *b, 5, /*perRow=*/false);
  FailureOr<Value> scale = node.create<MulOp>({*aScale, *bScale});
  if (failed(lhs) || failed(rhs) || failed(scale))
    return failure();
  return results(scaledProduct(node, *lhs, *rhs,
                               aScale->getType().getElementType(), *scale, 6));
}

} // namespace

void fromonnx::populateContribQuantizationConverters(ForeignConverters &c) {
  c.add("com.microsoft::MatMulNBits", 1, convertMatMulNBits);
  c.add("com.microsoft::DynamicQuantizeMatMul", 1,
        convertDynamicQuantizeMatMul);
  c.add("com.microsoft::MatMulIntegerToFloat", 1, convertMatMulIntegerToFloat);
}
