//===- TscElementwiseMathOps.cpp - verifiers and inference of the ElementwiseMath ops ---===//

#include "dialects/tsc/IR/TscOps.h"

using namespace mlir;
using namespace mlir::tsc;
