//===- ExpandQuantizedGemms.cpp - quantized GEMMs as library products ----===//
//
// The host runtime runs a tsc.linear in the int8 form of the quantize passes
// (docs/quantization.md) as one step that quantizes, multiplies and
// dequantizes. cuBLASLt multiplies s8 by s8 into s32 and does nothing else,
// so for CUDA targets (and the host's replica of their loop structure,
// --gpu-loop-mapping) each such linear becomes the steps a GPU runs, stated
// as ops:
//
//   xq  = quantize(x, s[, z])                       (kept: a kernel)
//   acc = matmul(xq, transpose(Wq[N, K]))           s8 · s8 -> s32
//   acc = acc - z · colsum(Wq)                      (with a zero point)
//   y   = act(f32(acc) · Ws · s + bias) + residual  (a fused kernel)
//
// which is the int8 form's arithmetic: (xq - z)·s times Wq·Ws, summed over
// K, with s and Ws factored out of the sum. Wq is kept [N, K] (transposed
// at compile time from a [K, N] layout) because cuBLASLt's int8 kernels
// take the weight transposed ("TN"); the CUDA plan runs matmul(xq,
// transpose(constant)) as one GEMM step on the constant. Only the forms
// whose scales factor out are expanded: the activation per tensor (with
// an optional constant zero point, or u8 codes with one computed at run
// time: ONNX Runtime's quantize_dynamic models, re-quantized to s8 by the
// zero point less 128, the term z·colsum(Wq) then a run's) or per row
// (symmetric), the weight per output channel. Anything else stays as it
// is, computed by kernels.
//
// fp8 linear ops (f8E4M3FN codes, tsc-quantize-fp8) expand the same way into
// `matmul(xq, transpose(Wq))` f8 · f8 -> f32, cuBLASLt's fp8 GEMM (sm_89+;
// "TN" too), with no zero point and no conversion of the sum.
//
// cuBLASLt takes K and N in multiples of 4 (s8) or 16 (f8). When K is one
// and N is not (a vocabulary's projection: GPT-2's 50257), the weight gets
// zero rows up to the next multiple and the epilogue reads the first N
// columns of the product (a split), so the product stays a library GEMM
// instead of a generated kernel.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/transforms/DynamicInt8.h"
#include "passes/transforms/QuantizeGemm.h"

#include "dialects/tsc/IR/ConstantData.h"

namespace mlir::tsc {
#define GEN_PASS_DEF_EXPANDQUANTIZEDGEMMSPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tsc

using namespace mlir;
using namespace mlir::tsc;

namespace {

/// A linear in int8 or fp8 form whose scales factor out of the product.
struct Int8Linear {
  LinearOp linear;
  QuantizeOp xq;
  DequantizeOp xd, wd;
  ConstantOp wq;
  /// The activation's zero point (a 0-d i8 constant), 0 when absent.
  int32_t zeroPoint = 0;
  /// u8 codes per tensor with a zero point computed at run time (ONNX's
  /// DynamicQuantizeLinear, ONNX Runtime's quantize_dynamic models after
  /// tsc-quantize-qdq): re-quantized to s8 by the zero point less 128.
  bool rangeCodes = false;
};

std::optional<Int8Linear> match(LinearOp linear) {
  Int8Linear g;
  g.linear = linear;
  g.xd = linear.getInput().getDefiningOp<DequantizeOp>();
  g.wd = linear.getWeight().getDefiningOp<DequantizeOp>();
  if (!g.xd || !g.wd || !linear.getType().getElementType().isF32())
    return std::nullopt;
  g.xq = g.xd.getInput().getDefiningOp<QuantizeOp>();
  // s8 codes, or f8E4M3FN ones (no zero point) for both operands.
  Type codes = g.xq ? g.xq.getType().getElementType() : Type();
  bool fp8 = isa_and_nonnull<Float8E4M3FNType>(codes);
  g.rangeCodes = codes && codes.isUnsignedInteger(8) && g.xq.getZeroPoint() &&
                 !g.xq.getAxis() && !g.xq.getGroupSize();
  if (!g.xq || g.xq.getScale() != g.xd.getScale() ||
      g.xq.getZeroPoint() != g.xd.getZeroPoint() ||
      g.xq.getAxis() != g.xd.getAxis() ||
      g.xq.getGroupSize() != g.xd.getGroupSize() ||
      !(codes.isSignlessInteger(8) || g.rangeCodes ||
        (fp8 && !g.xq.getZeroPoint())) ||
      !g.xq.getInput().getType().getElementType().isF32())
    return std::nullopt;
  // The weight's codes are s8 for either form of the activation's.
  if (g.rangeCodes)
    codes = IntegerType::get(linear.getContext(), 8);
  // The activation: per tensor, or per row of the last dim (one group of
  // the whole row), with a constant zero point per tensor only.
  auto data = g.xq.getInput().getType();
  int64_t last = data.getRank() - 1;
  bool perTensor = !g.xq.getAxis() && !g.xq.getGroupSize();
  bool perRow = g.xq.getAxis() == uint64_t(last) &&
                !ShapedType::isDynamic(data.getShape().back()) &&
                g.xq.getGroupSize() == uint64_t(data.getShape().back()) &&
                !g.xq.getZeroPoint();
  if (!perTensor && !perRow)
    return std::nullopt;
  if (Value zp = g.xq.getZeroPoint(); zp && !g.rangeCodes) {
    std::optional<int32_t> value = getInt8Scalar(zp);
    if (!value)
      return std::nullopt;
    g.zeroPoint = *value;
  }
  // The weight: a constant matrix of the activation's codes, an f32
  // constant scale per output channel, no zero point.
  g.wq = g.wd.getInput().getDefiningOp<ConstantOp>();
  auto wqType = cast<RankedTensorType>(g.wd.getInput().getType());
  if (!g.wq || wqType.getRank() != 2 || !wqType.hasStaticShape() ||
      wqType.getElementType() != codes || g.wd.getZeroPoint() ||
      g.wd.getGroupSize() ||
      g.wd.getAxis() != uint64_t(linear.getOutputFeaturesDim()) ||
      !g.wd.getScale().getDefiningOp<ConstantOp>() ||
      !g.wd.getScale().getType().getElementType().isF32())
    return std::nullopt;
  return g;
}

/// Rewrites `g` as the s8 (f8) product and its float epilogue; failure when
/// the weight's data cannot be read.
LogicalResult expand(Int8Linear &g) {
  std::optional<std::vector<char>> bytes = getConstantBytes(g.wq.getValue());
  auto wqType = cast<RankedTensorType>(g.wq.getType());
  if (!bytes || bytes->size() != size_t(wqType.getNumElements()))
    return failure();
  LinearOp linear = g.linear;
  bool kn = linear.getWeightKn();
  int64_t n = wqType.getDimSize(kn ? 1 : 0), k = wqType.getDimSize(kn ? 0 : 1);
  OpBuilder b(linear);
  Location loc = linear.getLoc();
  Value weight = g.wq;
  Type codes = wqType.getElementType();
  if (kn) {
    std::vector<char> nk(bytes->size());
    for (int64_t kk = 0; kk < k; ++kk)
      for (int64_t j = 0; j < n; ++j)
        nk[size_t(j * k + kk)] = (*bytes)[size_t(kk * n + j)];
    bytes->swap(nk);
  }
  int64_t multiple =
      isa<Float8E4M3FNType>(codes) ? kFp8GemmMultiple : kInt8GemmMultiple;
  int64_t padded = k % multiple == 0 && n % multiple != 0
                       ? (n + multiple - 1) / multiple * multiple
                       : n;
  if (kn || padded != n) {
    // Zero rows (codes of 0 in both types) after the N real ones.
    std::vector<char> rows(*bytes);
    rows.resize(size_t(padded * k), 0);
    weight = ConstantOp::create(
        b, loc,
        cast<ElementsAttr>(getConstantFromBytes(
            RankedTensorType::get({padded, k}, codes), rows,
            weightName(g.wq, padded != n ? ".nk-padded" : ".nk"))));
  }
  Value transposed =
      TransposeOp::create(b, loc, RankedTensorType::get({k, padded}, codes),
                          weight, b.getDenseI64ArrayAttr({1, 0}));
  // u8 codes q with zero point z are the s8 codes q - 128 with zero point
  // z - 128: quantize(x, s, z - 128) to s8 gives them, saturation included
  // (docs/quantization-qdq.md); z - 128 is computed once per run.
  Value codesA = g.xq.getResult(), zeroPoint;
  if (g.rangeCodes) {
    Type i32 = b.getI32Type();
    auto scalar = [&](Type element) {
      return RankedTensorType::get({}, element);
    };
    Value wide = CastOp::create(b, loc, scalar(i32), g.xq.getZeroPoint(),
                                /*saturate=*/false, ExponentRoundingAttr());
    Value offset = ConstantOp::create(
        b, loc, DenseElementsAttr::get(scalar(i32), b.getI32IntegerAttr(128)));
    zeroPoint = SubOp::create(b, loc, wide, offset);
    Value narrow = CastOp::create(b, loc, scalar(codes), zeroPoint,
                                  /*saturate=*/false, ExponentRoundingAttr());
    codesA = QuantizeOp::create(b, loc, g.xq.getInput().getType().clone(codes),
                                g.xq.getInput(), g.xq.getScale(), narrow,
                                IntegerAttr(), IntegerAttr(),
                                /*saturate=*/false);
  }
  Value acc = MatmulOp::create(b, loc, codesA, transposed);
  if (padded != n) {
    auto accType = cast<RankedTensorType>(acc.getType());
    int64_t last = accType.getRank() - 1;
    SmallVector<int64_t> shape(accType.getShape());
    shape[last] = n;
    Type kept = accType.clone(shape);
    shape[last] = padded - n;
    acc = SplitOp::create(b, loc, TypeRange{kept, accType.clone(shape)}, acc,
                          b.getI64IntegerAttr(last),
                          b.getDenseI64ArrayAttr({n, padded - n}))
              .getResult(0);
  }
  if (g.zeroPoint != 0 || zeroPoint) {
    // Σ (xq - z)·w = Σ xq·w - z·Σ w, exact in s32 (|z·Σ w| < 2^7 · 2^7 · K):
    // the term a constant, or (a run's zero point) z times the sums.
    std::vector<int32_t> term(size_t(n), 0);
    for (int64_t j = 0; j < n; ++j) {
      int32_t sum = 0;
      for (int64_t kk = 0; kk < k; ++kk)
        sum += int32_t(int8_t((*bytes)[size_t(j * k + kk)]));
      term[size_t(j)] = (zeroPoint ? 1 : g.zeroPoint) * sum;
    }
    auto termType = RankedTensorType::get({n}, b.getI32Type());
    Value c = ConstantOp::create(
        b, loc,
        cast<ElementsAttr>(getConstantFromValues(
            termType, ArrayRef<int32_t>(term),
            weightName(g.wq,
                       zeroPoint ? ".column-sums" : ".zero-point-term"))));
    if (zeroPoint)
      c = MulOp::create(b, loc, c, zeroPoint);
    acc = SubOp::create(b, loc, acc, c);
  }
  // An s32 sum converts to f32; an f8 product's is f32 already.
  auto accType = cast<RankedTensorType>(acc.getType());
  Value y = accType.getElementType().isF32()
                ? acc
                : CastOp::create(b, loc, accType.clone(b.getF32Type()), acc,
                                 /*saturate=*/false, ExponentRoundingAttr())
                      .getResult();
  y = MulOp::create(b, loc, y, g.wd.getScale());
  y = MulOp::create(b, loc, y, g.xd.getScale());
  if (Value bias = linear.getBias())
    y = AddOp::create(b, loc, y, bias);
  switch (linear.getActivation()) {
  case GemmActivation::none:
    break;
  case GemmActivation::gelu:
    y = GeluOp::create(b, loc, y, GeluApproximation::none);
    break;
  case GemmActivation::gelu_tanh:
    y = GeluOp::create(b, loc, y, GeluApproximation::tanh);
    break;
  }
  if (Value residual = linear.getResidual())
    y = AddOp::create(b, loc, y, residual);
  linear.replaceAllUsesWith(y);
  linear.erase();
  // The dequantized operands (and the weight's old codes, when replaced by
  // transposed or padded ones, and u8 codes re-quantized to s8) once
  // nothing but their shape bindings reads them.
  for (Operation *op :
       {g.xd.getOperation(), g.wd.getOperation(),
        weight != g.wq.getResult() ? g.wq.getOperation() : nullptr,
        g.rangeCodes ? g.xq.getOperation() : nullptr}) {
    if (!op || !llvm::all_of(op->getUsers(), llvm::IsaPred<BindShapeOp>))
      continue;
    for (Operation *user : llvm::make_early_inc_range(op->getUsers()))
      user->erase();
    op->erase();
  }
  return success();
}

struct ExpandQuantizedGemmsPass
    : public tsc::impl::ExpandQuantizedGemmsPassBase<ExpandQuantizedGemmsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<Int8Linear> gemms;
    getOperation().walk([&](LinearOp linear) {
      if (std::optional<Int8Linear> g = match(linear))
        gemms.push_back(*g);
    });
    for (Int8Linear &g : gemms)
      if (failed(expand(g))) {
        g.linear.emitError("tsc-expand-quantized-gemms: the quantized "
                           "weight's data is not available");
        return signalPassFailure();
      }
  }
};

} // namespace
