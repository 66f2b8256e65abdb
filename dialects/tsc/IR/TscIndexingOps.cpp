//===- TscIndexingOps.cpp - verifiers and inference of the Indexing ops ---===//

#include "dialects/tsc/IR/TscOps.h"

using namespace mlir;
using namespace mlir::tsc;
