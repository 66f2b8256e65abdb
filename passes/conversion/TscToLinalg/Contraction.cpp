//===- Contraction.cpp - placeholder until the family is written ---------------===//
#include "passes/conversion/TscToLinalg/TscToLinalg.h"
void mlir::tsc::populateTscContractionToLinalgPatterns(mlir::RewritePatternSet &) {}
