//===- Quantization.cpp - placeholder until the family is written ---------------===//
#include "passes/conversion/TscToLinalg/TscToLinalg.h"
void mlir::tsc::populateTscQuantizationToLinalgPatterns(mlir::RewritePatternSet &) {}
