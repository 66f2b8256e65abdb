//===- ImportUtils.h - what every importer builds the same way --*- C++ -*-===//
//
// Both importers declare graph inputs whose dynamic dims are named symbols,
// and turn weights into constants. These helpers keep the two identical, and
// let weights stay in the files they come from (mapped, not copied).
//
//===----------------------------------------------------------------------===//

#ifndef TSC_COMPILER_IMPORTERS_COMMON_IMPORTUTILS_H
#define TSC_COMPILER_IMPORTERS_COMMON_IMPORTUTILS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "llvm/ADT/StringMap.h"

#include <memory>
#include <string>
#include <variant>

namespace mlir::tsc {

/// One dim of a graph input: a static size or the name of a symbol.
using InputDim = std::variant<int64_t, std::string>;

/// Declares the symbols of a module's inputs, once per name, with a default
/// range (the driver's `--dim` settings narrow it later).
class InputSymbols {
public:
  InputSymbols(OpBuilder &builder, Location loc, int64_t defaultMin,
               int64_t defaultMax)
      : builder(builder), loc(loc), defaultMin(defaultMin),
        defaultMax(defaultMax) {}

  /// Binds the dynamic dims of `arg` (whose shape has `kDynamic` exactly
  /// where `dims` holds a name) to their symbols with a `tsc.bind_shape`.
  void bind(Value arg, ArrayRef<InputDim> dims);
  /// Declares symbol `name` with its own range (a model that records one),
  /// before any input binds it.
  Value declare(StringRef name, int64_t min, int64_t max);

private:
  Value symbolFor(StringRef name);

  OpBuilder &builder;
  Location loc;
  int64_t defaultMin, defaultMax;
  llvm::StringMap<Value> symbols;
};

/// A whole file mapped read-only, whose ranges become weight blobs without
/// copies (`mappedBlob`). The blobs share it: it is unmapped with the last.
class MappedFile {
public:
  /// Maps `path`; failure with the reason in `error`.
  static FailureOr<std::shared_ptr<MappedFile>> open(StringRef path,
                                                     std::string &error);
  ~MappedFile();
  MappedFile(const MappedFile &) = delete;
  MappedFile &operator=(const MappedFile &) = delete;

  ArrayRef<char> getData() const { return {data, size}; }

private:
  MappedFile(const char *data, size_t size) : data(data), size(size) {}
  const char *data;
  size_t size;
};

/// A blob viewing `bytes`, a range of `file`'s data. Its pages come in from
/// the file when read; when the blob is destroyed (a pass replaced the
/// weight and the driver released it), the pages wholly inside it are given
/// back, so the weight stops counting against the compiler's memory.
AsmResourceBlob mappedBlob(std::shared_ptr<MappedFile> file,
                           ArrayRef<char> bytes);

/// A blob owning `bytes` (the raw data a protobuf message held), not copied.
AsmResourceBlob stringBlob(std::unique_ptr<std::string> bytes);

/// The constant value of a weight of `type` from its raw little-endian bytes
/// in `blob` (`i1` one byte per element): a `dense` literal when it has at
/// most `maxInlineElements` elements (shape constants stay readable and
/// foldable), else a `dense_resource` named `name` holding `blob` itself.
ElementsAttr weightAttr(RankedTensorType type, AsmResourceBlob blob,
                        StringRef name, int64_t maxInlineElements);
/// The same from `bytes`, copied into a 64-byte aligned blob.
ElementsAttr weightAttr(RankedTensorType type, ArrayRef<char> bytes,
                        StringRef name, int64_t maxInlineElements);

/// Ends `func`, whose entry block holds the inputs (each located by a
/// NameLoc with its name), by returning `results`: its type, and the
/// `tsc.name` of every argument (its name) and result (`output_N`, as
/// TorchScript and torch.export programs do not name their results).
void finishForward(OpBuilder &builder, func::FuncOp func, ValueRange results,
                   Location loc);

} // namespace mlir::tsc

#endif // TSC_COMPILER_IMPORTERS_COMMON_IMPORTUTILS_H
