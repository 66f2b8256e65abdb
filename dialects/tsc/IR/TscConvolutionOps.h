//===- TscConvolutionOps.h - window arithmetic of the Convolution ops -*- C++
//-*-===//
//
// The output-size rule that convolutions, pooling and im2col share, for
// their result inference, their converters and shape derivation; what the
// shape passes ask of the family's ops.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_DIALECTS_TSC_IR_TSCCONVOLUTIONOPS_H
#define TSC_DIALECTS_TSC_IR_TSCCONVOLUTIONOPS_H

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"

namespace mlir::tsc {

/// The number of windows along a dim of `in` elements (kDynamic when `in`
/// is): `floor((in + padBegin + padEnd - dilation * (kernel - 1) - 1) /
/// stride) + 1`, or with `ceilMode` rounded up, less a last window that
/// would start in the end padding. Fails (nullopt) when not even one window
/// fits.
std::optional<int64_t> getWindowCount(int64_t in, int64_t kernel,
                                      int64_t stride, int64_t dilation,
                                      int64_t padBegin, int64_t padEnd,
                                      bool ceilMode);

/// For tsc-bind-symbolic-shapes: the dims of result `index` of a
/// Convolution-family op as affine expressions of its operands' dims
/// (`shapeOf` gives an operand's), a null expression where a dim is not
/// one (a ceil-mode window count); nullopt for other ops or unknown
/// operand shapes.
std::optional<SmallVector<AffineExpr>> deriveConvolutionShape(
    Operation *op, unsigned index,
    function_ref<std::optional<SmallVector<AffineExpr>>(Value)> shapeOf);

/// For folding tsc.dim: the operand dim that dim `d` of a Convolution-family
/// op's result is a copy of (batch, channels), if any.
std::optional<std::pair<Value, int64_t>> getConvolutionSourceDim(Operation *op,
                                                                 int64_t d);

} // namespace mlir::tsc

#endif // TSC_DIALECTS_TSC_IR_TSCCONVOLUTIONOPS_H
