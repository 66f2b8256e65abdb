//===- ImportUtils.h - what every importer builds the same way --*- C++ -*-===//
//
// Both importers declare graph inputs whose dynamic dims are named symbols,
// and turn weights into constants. These helpers keep the two identical.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_COMPILER_IMPORTERS_COMMON_IMPORTUTILS_H
#define TSC_COMPILER_IMPORTERS_COMMON_IMPORTUTILS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "llvm/ADT/StringMap.h"

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

private:
  Value symbolFor(StringRef name);

  OpBuilder &builder;
  Location loc;
  int64_t defaultMin, defaultMax;
  llvm::StringMap<Value> symbols;
};

/// The constant value of a weight of `type` from its raw little-endian bytes
/// (`i1` one byte per element): a `dense` literal when it has at most
/// `maxInlineElements` elements (shape constants stay readable and
/// foldable), else a 64-byte aligned `dense_resource` blob named `name`.
ElementsAttr weightAttr(RankedTensorType type, ArrayRef<char> bytes,
                        StringRef name, int64_t maxInlineElements);

} // namespace mlir::tsc

#endif // TSC_COMPILER_IMPORTERS_COMMON_IMPORTUTILS_H
