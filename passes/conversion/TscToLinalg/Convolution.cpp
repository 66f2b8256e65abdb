//===- Convolution.cpp - tsc convolutions, pooling, resizing and sampling to linalg ---===//

#include "passes/conversion/TscToLinalg/TscToLinalg.h"

#include "dialects/tsc/IR/TscOps.h"

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::tolinalg;

void mlir::tsc::populateTscConvolutionToLinalgPatterns(RewritePatternSet &patterns) {}
