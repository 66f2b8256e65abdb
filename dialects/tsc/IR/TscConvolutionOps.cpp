//===- TscConvolutionOps.cpp - verifiers and inference of the Convolution ops ---===//

#include "dialects/tsc/IR/TscOps.h"

using namespace mlir;
using namespace mlir::tsc;
