//===- ElementwiseMath.cpp - ONNX elementwise math, logic and bitwise ops beyond the core set ---===//

#include "passes/conversion/OnnxToTsc/OnnxToTsc.h"
#include "passes/conversion/Foreign/Builders.h"

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::fromonnx;
using namespace mlir::tsc::foreign;

void fromonnx::populateElementwiseMathConverters(ForeignConverters &c) {}
