//===- QuantizeDynamicInt8.cpp - GEMMs by constant weights in int8 --------===//
//
// `--quantize=dynamic-int8`: each GEMM by a constant f32 weight becomes a
// tsc.linear in quantize-dequantize form, the weight quantized to i8 per
// output channel here, the activation per row by ops that run with the
// model. The form states the arithmetic exactly (the generated kernels
// compute it as written); the host plan turns it into one int8 GEMM step.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/transforms/DynamicInt8.h"
#include "passes/transforms/KeepFloat.h"
#include "passes/transforms/QuantizeGemm.h"

namespace mlir::tsc {
#define GEN_PASS_DEF_QUANTIZEDYNAMICINT8PASS
#include "passes/Passes.h.inc"
} // namespace mlir::tsc

using namespace mlir;
using namespace mlir::tsc;

namespace {

/// Rewrites `g` in quantize-dequantize form; failure (with `why`) when the
/// weight's data cannot be read.
LogicalResult quantize(QuantizableGemm g, std::string &why) {
  FailureOr<Value> wd = createQuantizedWeight(g, why);
  if (failed(wd))
    return failure();

  // The activation's scale per row: max(max|x| / 127, FLT_MIN).
  OpBuilder b(g.op);
  Location loc = g.op->getLoc();
  auto inputType = cast<RankedTensorType>(g.input.getType());
  int64_t last = inputType.getRank() - 1;
  int64_t k = inputType.getShape().back();
  Value amax = ReduceMaxOp::create(b, loc, AbsOp::create(b, loc, g.input),
                                   ArrayRef<int64_t>{last}, /*keepdim=*/true);
  Value scale = MaxOp::create(
      b, loc, DivOp::create(b, loc, amax, createScalar(b, loc, kInt8Max)),
      createScalar(b, loc, kMinInt8Scale));
  IntegerAttr axis = b.getI64IntegerAttr(last), group = b.getI64IntegerAttr(k);
  Value xq = QuantizeOp::create(b, loc, inputType.clone(b.getI8Type()), g.input,
                                scale, Value(), axis, group,
                                /*saturate=*/false);
  Value xd =
      DequantizeOp::create(b, loc, inputType, xq, scale, Value(), axis, group);
  replaceGemm(g, xd, *wd);
  return success();
}

struct QuantizeDynamicInt8Pass
    : public tsc::impl::QuantizeDynamicInt8PassBase<QuantizeDynamicInt8Pass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override {
    FailureOr<KeptPrecision> precision =
        parseKeptPrecision(context, keptPrecision);
    if (failed(precision))
      return failure();
    keptAs = *precision;
    return KeepFloat::parse(context, keepFloat, kept);
  }

  void runOnOperation() override {
    quantizeGemms(getOperation(), kept, keptAs, minInputFeatures, remarks,
                  quantize);
  }

  KeepFloat kept;
  KeptPrecision keptAs = KeptPrecision::F32;
};

} // namespace
