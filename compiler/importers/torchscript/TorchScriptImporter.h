//===- TorchScriptImporter.h - TorchScript archives into tsc ----*- C++ -*-===//
//
// Mechanical import of a TorchScript archive (torch.jit.trace/script +
// torch.jit.save) through libtorch: load, freeze (parameters become
// constants), inline, remove mutation, then one tsc.foreign per node of
// `forward` (domain `aten`/`prim`, op name, the operator version of the
// libtorch that read it). Node locations are the module path and the value's
// debug name (`/layers.0/attn/x.5 @ model.py:52`). Tensor constants become
// tsc.constant (weights as dense_resource blobs); int, float, bool and list
// constants become small dense constants; each constant input of a node is
// also recorded in its attributes under the schema's argument name. Lists
// and tuples are resolved where they are built and unpacked. Semantics live
// in passes/conversion/TorchToTsc.
//
// TorchScript does not record input shapes, so the caller names each input's
// element type and dims (`--input input_ids=i64[batch,seq]`).
//
// This library is built only when libtorch is found; `isTorchScriptEnabled`
// says whether it was.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_COMPILER_IMPORTERS_TORCHSCRIPT_TORCHSCRIPTIMPORTER_H
#define TSC_COMPILER_IMPORTERS_TORCHSCRIPT_TORCHSCRIPTIMPORTER_H

#include "compiler/importers/common/ImportUtils.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>
#include <vector>

namespace mlir::tsc {

/// One `--input NAME=TYPE[DIMS]` setting: an input of `forward`.
struct TorchInputSpec {
  std::string name;
  /// `f32`, `f16`, `bf16`, `f64`, `i64`, `i32`, `i8`, `u8` or `bool`.
  std::string elementType;
  SmallVector<InputDim> dims;
};

/// Parses `NAME=TYPE[D0,D1,...]` (dims are sizes or symbol names); on error
/// returns a message.
FailureOr<TorchInputSpec> parseTorchInputSpec(StringRef text,
                                              std::string &error);

struct TorchScriptImportOptions {
  /// The archive (a zip written by torch.jit.save).
  std::string path;
  /// Element type and dims of each input of `forward`, by name.
  std::vector<TorchInputSpec> inputs;
  int64_t defaultDimMin = 1;
  int64_t defaultDimMax = 4096;
  /// Tensor constants with at most this many elements become `dense`
  /// literals; larger ones are blobs.
  int64_t maxInlineElements = 64;
};

/// Whether this build of tsc reads TorchScript (libtorch was found).
bool isTorchScriptEnabled();

/// Reads the archive at `options.path`. Problems (unreadable or non-archive
/// files, archives this libtorch cannot load such as ones using newer ops,
/// missing or wrong input specs, control flow left after freezing) are
/// reported as diagnostics naming the file, input or node, and give failure.
FailureOr<OwningOpRef<ModuleOp>>
importTorchScriptModel(MLIRContext *context,
                       const TorchScriptImportOptions &options);

} // namespace mlir::tsc

#endif // TSC_COMPILER_IMPORTERS_TORCHSCRIPT_TORCHSCRIPTIMPORTER_H
