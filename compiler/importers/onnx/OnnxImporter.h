//===- OnnxImporter.h - ONNX models into the tsc dialect --------*- C++ -*-===//
//
// Mechanical import: one tsc.foreign per ONNX node (node names become
// locations), initializers as tsc.constant (weights as dense_resource blobs,
// read from external-data side files where the model says so), graph inputs as
// function arguments whose dynamic dims are tsc.symbol values named after the
// dims' dim_param. Semantics live in passes/conversion/OnnxToTsc.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_COMPILER_IMPORTERS_ONNX_ONNXIMPORTER_H
#define TSC_COMPILER_IMPORTERS_ONNX_ONNXIMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>

namespace mlir::tsc {

struct OnnxImportOptions {
  /// The model file: binary protobuf (.onnx) or textual ONNX (.onnxtxt), the
  /// syntax of onnx::OnnxParser.
  std::string path;
  /// Range given to a symbolic dim that no --dim setting names.
  int64_t defaultDimMin = 1;
  int64_t defaultDimMax = 4096;
  /// Initializers with at most this many elements become `dense` literals
  /// (shape constants stay readable and foldable); larger ones are blobs.
  int64_t maxInlineElements = 64;
  /// External data may lie outside the model's folder (absolute paths, `..`,
  /// symbolic links leading out). Off: a model from elsewhere cannot make
  /// the compiler embed files of the build machine in its artifact.
  bool allowExternalDataOutside = false;
};

/// Newest `ai.onnx` opset the importer accepts (that of the pinned onnx
/// package). Older opsets import; whether a node converts depends on the
/// converters registered for its op at that opset (13 and later for most).
constexpr int64_t kMaxOnnxOpset = 28;

/// Reads the model at `options.path`. Problems (unreadable, truncated or
/// non-ONNX files, unsupported opsets or element types, missing external
/// data, dangling value names) are reported as diagnostics naming the file,
/// node or tensor, and give failure.
FailureOr<OwningOpRef<ModuleOp>> importOnnxModel(MLIRContext *context,
                                                 const OnnxImportOptions &options);

} // namespace mlir::tsc

#endif // TSC_COMPILER_IMPORTERS_ONNX_ONNXIMPORTER_H
