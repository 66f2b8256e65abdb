//===- DynamicInt8.h - the numbers of dynamic int8 quantization -*- C++ -*-===//
//
// `tsc-quantize-dynamic-int8` writes the activation's run-time scale as
// `max(max|x| / kInt8Max, kMinInt8Scale)` over each row; the host plan
// recognises exactly that formula and the runtime computes it the same way
// (runtime/src/host_gemm.cpp), so the IR and the int8 GEMM step agree.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_PASSES_TRANSFORMS_DYNAMICINT8_H
#define TSC_PASSES_TRANSFORMS_DYNAMICINT8_H

#include <cfloat>
#include <cstdint>

namespace mlir::tsc {

/// Symmetric int8: [-127, 127] is used (the scale maps max|x| to 127), so
/// -x quantizes to -q and the s8 x s8 product has no -128 x -128 corner.
constexpr float kInt8Max = 127.0f;
/// The smallest activation scale: an all-zero row quantizes to zeros
/// instead of dividing by zero.
constexpr float kMinInt8Scale = FLT_MIN;

/// The multiple of K and N (elements) cuBLASLt's int8 GEMMs take (s8 rows
/// 4-byte aligned) and its fp8 ones (16-byte aligned rows); the CUDA plan
/// runs a quantized product as a library GEMM only when both are, and
/// tsc-expand-quantized-gemms pads N up to it.
constexpr int64_t kInt8GemmMultiple = 4;
constexpr int64_t kFp8GemmMultiple = 16;

} // namespace mlir::tsc

#endif // TSC_PASSES_TRANSFORMS_DYNAMICINT8_H
