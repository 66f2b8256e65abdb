//===- QuantizeQdq.h - tsc-quantize-qdq's rewrites, shared ---*- C++ -*-===//
//
// tsc-quantize-qdq (QuantizeQdq.cpp) rewrites quantized products into the
// int8 GEMM form; ONNX Runtime's integer forms (MatMulInteger and
// QLinearMatMul as imported) are rewritten in QuantizeQdqInteger.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_PASSES_TRANSFORMS_QUANTIZEQDQ_H
#define TSC_PASSES_TRANSFORMS_QUANTIZEQDQ_H

#include "dialects/tsc/IR/TscOps.h"

#include "llvm/ADT/DenseMap.h"

#include <optional>
#include <vector>

namespace mlir::tsc {

/// The elements of a constant `v` as doubles (f32, f64, i32, and 8-bit
/// integers by their signedness, f8E4M3FN codes by their value), or nullopt.
std::optional<std::vector<double>> getConstantValues(Value v);

/// ONNX Runtime's quantize_dynamic product (MatMulInteger, Cast and Mul by
/// the scales' product, as imported) rewritten into a linear of
/// dequantized operands; `dequantized` caches each codes' dequantization
/// (Q, K and V share one). Fails, changing nothing, on anything else.
LogicalResult rewriteIntegerProduct(MulOp mul,
                                    llvm::DenseMap<Value, Value> &dequantized);

/// ONNX Runtime's QLinearMatMul by a constant weight, as imported (an i32
/// product requantized in f64 and cast to 8-bit codes, ending in `codes`),
/// rewritten into `quantize(linear(dequantize(a), dequantize(W)))`, the QDQ
/// form; fails, changing nothing, on anything else.
LogicalResult
rewriteRequantizedProduct(CastOp codes,
                          llvm::DenseMap<Value, Value> &dequantized);

/// Each i32 tsc.matmul of 8-bit codes less their zero points computed as
/// an f32 matmul where f32 sums it exactly (QuantizeQdqInteger.cpp).
void rewriteExactIntegerProducts(Operation *scope);

} // namespace mlir::tsc

#endif // TSC_PASSES_TRANSFORMS_QUANTIZEQDQ_H
