//===- OnnxToTsc.h - converters from ONNX nodes to tsc ops -----*- C++ -*-===//
//
// ONNX converters live one file per op family and are registered by
// populate*Converters; the node helper, registry and driver they use are in
// passes/conversion/Foreign.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_PASSES_CONVERSION_ONNXTOTSC_ONNXTOTSC_H
#define TSC_PASSES_CONVERSION_ONNXTOTSC_ONNXTOTSC_H

#include "passes/conversion/Foreign/ForeignNode.h"

namespace mlir::tsc::fromonnx {

using foreign::ForeignConverters;
using foreign::ForeignNode;

void populateElementwiseConverters(ForeignConverters &converters);
void populateMatmulConverters(ForeignConverters &converters);
void populateReductionConverters(ForeignConverters &converters);
void populateShapeConverters(ForeignConverters &converters);
void populateAttentionConverters(ForeignConverters &converters);
void populateQuantizationConverters(ForeignConverters &converters);
void populateElementwiseMathConverters(ForeignConverters &converters);
void populateNormalizationConverters(ForeignConverters &converters);
void populateIndexingConverters(ForeignConverters &converters);
void populateConvolutionConverters(ForeignConverters &converters);
/// Resize, GridSample and the family's other sampling ops (called by
/// populateConvolutionConverters).
void populateSamplingConverters(ForeignConverters &converters);

} // namespace mlir::tsc::fromonnx

#endif // TSC_PASSES_CONVERSION_ONNXTOTSC_ONNXTOTSC_H
