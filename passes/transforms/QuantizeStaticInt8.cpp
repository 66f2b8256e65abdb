//===- QuantizeStaticInt8.cpp - GEMMs in int8 by calibrated scales --------===//
//
// `--quantize=static-int8`: the form of tsc-quantize-dynamic-int8 with the
// activation's scale a constant from calibration (one per tensor), so the
// int8 GEMM step quantizes its input without measuring it and the scale
// folds into the output scales (docs/quantization.md).
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/transforms/DynamicInt8.h"
#include "passes/transforms/KeepFloat.h"
#include "passes/transforms/QuantizeGemm.h"

#include <algorithm>
#include <cmath>

namespace mlir::tsc {
#define GEN_PASS_DEF_QUANTIZESTATICINT8PASS
#include "passes/Passes.h.inc"
} // namespace mlir::tsc

using namespace mlir;
using namespace mlir::tsc;

namespace {

/// Rewrites `g` with its input quantized per tensor by the scale of
/// `range` (max|x|); failure (with `why`) when the weight's data cannot be
/// read.
LogicalResult quantize(QuantizableGemm g, float range, std::string &why) {
  FailureOr<Value> wd = createQuantizedWeight(g, why);
  if (failed(wd))
    return failure();
  OpBuilder b(g.op);
  Location loc = g.op->getLoc();
  auto inputType = cast<RankedTensorType>(g.input.getType());
  Value scale = createScalar(b, loc, std::max(range / kInt8Max, kMinInt8Scale));
  Value xq = QuantizeOp::create(b, loc, inputType.clone(b.getI8Type()), g.input,
                                scale, Value(), IntegerAttr(), IntegerAttr(),
                                /*saturate=*/false);
  Value xd = DequantizeOp::create(b, loc, inputType, xq, scale, Value(),
                                  IntegerAttr(), IntegerAttr());
  replaceGemm(g, xd, *wd);
  return success();
}

struct QuantizeStaticInt8Pass
    : public tsc::impl::QuantizeStaticInt8PassBase<QuantizeStaticInt8Pass> {
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
    SmallVector<Operation *> gemms = getGemmOps(getOperation());
    if (inputRanges.size() != gemms.size()) {
      getOperation().emitError()
          << "tsc-quantize-static-int8: input-ranges has " << inputRanges.size()
          << " entries, the function has " << gemms.size()
          << " GEMM ops (tsc.linear, tsc.matmul): one range each expected";
      return signalPassFailure();
    }
    for (auto [op, range] : llvm::zip_equal(gemms, inputRanges)) {
      if (!(std::isfinite(range) && range >= 0.0f)) {
        op->emitError() << "tsc-quantize-static-int8: input range " << range
                        << " is not a finite number >= 0";
        return signalPassFailure();
      }
      std::string why;
      FailureOr<QuantizableGemm> g =
          matchQuantizableGemm(op, minInputFeatures, why);
      if (succeeded(g) && kept.matches(op)) {
        keepGemm(op, keptAs, minInputFeatures, remarks);
        continue;
      }
      if (succeeded(g) && range == 0.0f)
        why = "no calibrated range for its input";
      else if (succeeded(g) && succeeded(quantize(*g, range, why)))
        continue;
      if (remarks && !why.empty())
        op->emitRemark() << "kept float: " << why;
    }
  }

  KeepFloat kept;
  KeptPrecision keptAs = KeptPrecision::F32;
};

} // namespace
