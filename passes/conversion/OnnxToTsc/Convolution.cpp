//===- Convolution.cpp - ONNX convolutions, pooling, resizing and sampling ---===//

#include "passes/conversion/OnnxToTsc/OnnxToTsc.h"
#include "passes/conversion/Foreign/Builders.h"

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::fromonnx;
using namespace mlir::tsc::foreign;

void fromonnx::populateConvolutionConverters(ForeignConverters &c) {}
