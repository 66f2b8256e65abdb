//===- Passes.h - tsc pass declarations and registration --------*- C++ -*-===//

#ifndef TSC_PASSES_PASSES_H
#define TSC_PASSES_PASSES_H

#include "dialects/tsc/IR/TscDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tsc {

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

} // namespace mlir::tsc

#endif // TSC_PASSES_PASSES_H
