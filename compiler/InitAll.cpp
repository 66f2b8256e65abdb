//===- InitAll.cpp - one place that registers everything -----------------===//

#include "compiler/InitAll.h"
#include "compiler/pipeline/Pipeline.h"
#include "compiler/target/cuda/Passes.h"
#include "compiler/target/host/RegisterBlock.h"
#include "dialects/tsc/IR/TscDialect.h"
#include "passes/Passes.h"

#include "mlir/Conversion/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Linalg/Transforms/TilingInterfaceImpl.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/IR/TensorTilingInterfaceImpl.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Transforms/Passes.h"

void mlir::tsc::registerAllDialects(DialectRegistry &registry) {
  registry.insert<TscDialect, arith::ArithDialect, func::FuncDialect,
                  tensor::TensorDialect, linalg::LinalgDialect,
                  math::MathDialect, scf::SCFDialect, memref::MemRefDialect,
                  bufferization::BufferizationDialect, affine::AffineDialect,
                  cf::ControlFlowDialect, vector::VectorDialect,
                  ub::UBDialect, LLVM::LLVMDialect>();
  // The CUDA target's kernels, for its passes' tests.
  registry.insert<gpu::GPUDialect, NVVM::NVVMDialect, nvgpu::NVGPUDialect>();
  // Kernels are bufferized with one-shot bufferization.
  arith::registerBufferizableOpInterfaceExternalModels(registry);
  linalg::registerBufferizableOpInterfaceExternalModels(registry);
  scf::registerBufferizableOpInterfaceExternalModels(registry);
  tensor::registerBufferizableOpInterfaceExternalModels(registry);
  // Norm and softmax kernels are tiled by rows with their producers fused.
  linalg::registerTilingInterfaceExternalModels(registry);
  tensor::registerTilingInterfaceExternalModels(registry);
}

void mlir::tsc::registerAllPasses() {
  registerTscPasses();
  registerCanonicalizerPass();
  registerCSEPass();
  registerLinalgPasses();
  bufferization::registerBufferizationPasses();
  registerTscPipeline();
  // The CUDA target's mapping steps, on bufferized kernels.
  cuda::registerCudaPasses();
  registerHostPasses();
  // What their tests run them with: the launch lowering after the thread
  // phases are joined.
  registerConvertParallelLoopToGpuPass();
}
