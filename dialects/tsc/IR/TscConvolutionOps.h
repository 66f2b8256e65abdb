//===- TscConvolutionOps.h - window arithmetic of the Convolution ops -*- C++
//-*-===//
//
// The output-size rule that convolutions, pooling and im2col share, for
// their result inference and their converters.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_DIALECTS_TSC_IR_TSCCONVOLUTIONOPS_H
#define TSC_DIALECTS_TSC_IR_TSCCONVOLUTIONOPS_H

#include "mlir/IR/BuiltinTypes.h"

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

} // namespace mlir::tsc

#endif // TSC_DIALECTS_TSC_IR_TSCCONVOLUTIONOPS_H
