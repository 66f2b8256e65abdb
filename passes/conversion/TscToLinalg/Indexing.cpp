//===- Indexing.cpp - tsc gathers, scatters, padding and tiling to linalg ---===//

#include "passes/conversion/TscToLinalg/TscToLinalg.h"

#include "dialects/tsc/IR/TscOps.h"

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::tolinalg;

void mlir::tsc::populateTscIndexingToLinalgPatterns(RewritePatternSet &patterns) {}
