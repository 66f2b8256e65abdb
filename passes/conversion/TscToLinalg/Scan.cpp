//===- Scan.cpp - tsc scans, index reductions and selection to linalg ---===//

#include "passes/conversion/TscToLinalg/TscToLinalg.h"

#include "dialects/tsc/IR/TscOps.h"

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::tolinalg;

void mlir::tsc::populateTscScanToLinalgPatterns(RewritePatternSet &patterns) {}
