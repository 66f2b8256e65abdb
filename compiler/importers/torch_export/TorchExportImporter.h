//===- TorchExportImporter.h - torch.export archives into tsc ---*- C++ -*-===//
//
// Mechanical import of the archive `torch.export.save` writes (`.pt2`): a zip
// holding `NAME/models/model.json` (the exported program in the schema of
// torch/_export/serde/schema.py) and the weights and constants as raw
// entries. No libtorch: the zip is read with minizip, the JSON with LLVM's
// parser.
//
// One tsc.foreign per graph node (domain `aten` and the op name, the
// overload under `overload`, every argument in schema order with defaults
// filled in, constant arguments also as attributes under their schema names),
// as the TorchScript importer emits them, so the same converters
// (passes/conversion/TorchToTsc) give them their meaning. Node locations are
// the module path and the node's name (`/model/encoder/layer.0/linear_3`).
// Parameters, buffers and lifted constants become tsc.constant blobs viewing
// the mapped archive; the user inputs of the signature become the function's
// arguments, with the archive's symbolic dims (`s0`, ...) as tsc.symbol
// values over their `range_constraints`.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_COMPILER_IMPORTERS_TORCH_EXPORT_TORCHEXPORTIMPORTER_H
#define TSC_COMPILER_IMPORTERS_TORCH_EXPORT_TORCHEXPORTIMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>

namespace mlir::tsc {

struct TorchExportImportOptions {
  /// The archive written by torch.export.save.
  std::string path;
  /// Range of a symbolic dim whose range the archive leaves unbounded.
  int64_t defaultDimMin = 1;
  int64_t defaultDimMax = 4096;
  /// Constants with at most this many elements become `dense` literals.
  int64_t maxInlineElements = 64;
};

/// The major versions of the serialized-program schema tsc reads.
constexpr int64_t kMinTorchExportSchema = 8;
constexpr int64_t kMaxTorchExportSchema = 8;

/// The attribute of a tsc.symbol holding the range `[min, max]` the archive
/// was exported for; the driver refuses a `--dim` outside it.
constexpr llvm::StringLiteral kExportedRangeAttr = "tsc.exported_range";

/// Whether `path` is a zip file holding a torch.export program
/// (`*/models/*.json`): how the driver tells a `.pt2` archive from a
/// TorchScript one, whatever the extension.
bool isTorchExportArchive(StringRef path);

/// Reads the archive at `options.path`. Problems (non-zip or truncated files,
/// unknown schema versions, missing or malformed entries, weights whose
/// sizes disagree with their entries, unsupported argument kinds or
/// signatures) are reported as diagnostics naming the file, node or weight,
/// and give failure.
FailureOr<OwningOpRef<ModuleOp>>
importTorchExportModel(MLIRContext *context,
                       const TorchExportImportOptions &options);

} // namespace mlir::tsc

#endif // TSC_COMPILER_IMPORTERS_TORCH_EXPORT_TORCHEXPORTIMPORTER_H
