//===- InitAll.cpp - one place that registers everything -----------------===//

#include "compiler/InitAll.h"
#include "compiler/pipeline/Pipeline.h"
#include "dialects/tsc/IR/TscDialect.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Transforms/Passes.h"

void mlir::tsc::registerAllDialects(DialectRegistry &registry) {
  registry.insert<TscDialect, arith::ArithDialect, func::FuncDialect,
                  tensor::TensorDialect>();
}

void mlir::tsc::registerAllPasses() {
  registerTscPasses();
  registerCanonicalizerPass();
  registerCSEPass();
  registerTscPipeline();
}
