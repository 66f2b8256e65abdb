//===- AtenSchemas.h - argument order and defaults of ATen ops --*- C++ -*-===//
//
// A torch.export archive names the arguments it stores and leaves out those
// at their defaults; TorchScript gives every argument, in schema order, and
// the converters read them by position. This table (generated from PyTorch by
// gen_aten_schemas.py, for the ops the converters know) lets the importer
// put each argument at its place and fill in the defaults.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_COMPILER_IMPORTERS_TORCH_EXPORT_ATENSCHEMAS_H
#define TSC_COMPILER_IMPORTERS_TORCH_EXPORT_ATENSCHEMAS_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace mlir::tsc {

struct AtenArgument {
  StringRef name;
  /// The default as PyTorch prints it (`None`, `False`, `1`, `1e-05`,
  /// `'none'`, `[0 1]`), or nullopt for a required argument.
  std::optional<StringRef> defaultValue;
};

/// The arguments of `aten::op.overload` (`default` for the unnamed overload)
/// in schema order, or nullopt when the table does not have the op.
std::optional<SmallVector<AtenArgument>> lookupAtenSchema(StringRef op,
                                                          StringRef overload);

} // namespace mlir::tsc

#endif // TSC_COMPILER_IMPORTERS_TORCH_EXPORT_ATENSCHEMAS_H
