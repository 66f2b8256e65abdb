//===- Precision.h - the precision of a compile -----------------*- C++ -*-===//
//
// `--precision` as a type: the pipeline, the plan and the report take this
// enum; only the flag parsers spell it as text.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_COMPILER_PIPELINE_PRECISION_H
#define TSC_COMPILER_PIPELINE_PRECISION_H

#include "llvm/ADT/StringRef.h"

namespace mlir::tsc {

/// Storage and compute precision; accumulation is fp32 in all of them.
enum class Precision {
  /// fp32 storage and compute, TF32 off (the default).
  FP32,
  /// fp32 storage; GEMMs may round their inputs to TF32 (CUDA only: the CPU
  /// has no TF32 and computes fp32).
  TF32,
  /// Weights and activations stored in fp16, computed in fp32.
  FP16,
  /// Weights and activations stored in bf16, computed in fp32.
  BF16,
};

/// `--precision-io`: what a half precision does to the model's float inputs
/// and outputs.
enum class PrecisionIO {
  /// They keep the model's types, converted at the edges (the default).
  Model,
  /// They take the storage precision too, for callers holding half tensors.
  Storage,
};

/// Whether `precision` stores floats in half precision (the precision phase
/// runs).
inline bool isHalfPrecision(Precision precision) {
  return precision == Precision::FP16 || precision == Precision::BF16;
}

/// The name `--precision` gives `precision` ("fp32", "tf32", ...).
llvm::StringRef getPrecisionName(Precision precision);

/// The element type a half `precision` stores floats in, as the
/// tsc-reduce-precision pass spells it ("f16" or "bf16").
llvm::StringRef getStorageTypeName(Precision precision);

} // namespace mlir::tsc

#endif // TSC_COMPILER_PIPELINE_PRECISION_H
