//===- OnnxArity.h - ONNX ops' input and output counts ----------*- C++ -*-===//
//
// The ONNX importer checks every standard node's input and output counts
// before any converter reads them by index. The linked ONNX library
// (Debian's libonnx 1.12) knows the schemas up to opset 17; the versions
// after it come from a table of ONNX 1.23's schemas (opsets 18 to 28),
// which test/importers/onnx/arity-table.test checks against the pinned `onnx`
// package.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_COMPILER_IMPORTERS_ONNX_ONNXARITY_H
#define TSC_COMPILER_IMPORTERS_ONNX_ONNXARITY_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace mlir::tsc {

/// How many inputs and outputs an op version takes (kOnnxAnyCount: no
/// upper bound, a variadic op).
struct OnnxArity {
  int minInputs, maxInputs, minOutputs, maxOutputs;
};

constexpr int kOnnxAnyCount = 2147483647;

/// The counts standard op `opType` takes at `opset` (the version with the
/// largest since-version <= opset): from the linked ONNX library for the
/// opsets it knows whole, else from the table of later versions, falling
/// back to the library's last version where the op did not change after
/// it. nullopt for an op neither knows (an unsupported op, reported as one).
std::optional<OnnxArity> getOnnxArity(llvm::StringRef opType, int64_t opset);

} // namespace mlir::tsc

#endif // TSC_COMPILER_IMPORTERS_ONNX_ONNXARITY_H
