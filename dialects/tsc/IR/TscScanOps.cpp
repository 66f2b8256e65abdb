//===- TscScanOps.cpp - verifiers and inference of the Scan ops ---===//

#include "dialects/tsc/IR/TscOps.h"

using namespace mlir;
using namespace mlir::tsc;
