//===- GraphImporter.h - the nodes of a torch.export graph ------*- C++ -*-===//
//
// Imports the nodes of a serialized torch.export graph (and the subgraphs of
// higher-order ops that only wrap code, such as `wrap_with_set_grad_enabled`,
// inlined) as tsc.foreign ops in TorchScript's form: see
// TorchExportImporter.h.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_COMPILER_IMPORTERS_TORCH_EXPORT_GRAPHIMPORTER_H
#define TSC_COMPILER_IMPORTERS_TORCH_EXPORT_GRAPHIMPORTER_H

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"

namespace mlir::tsc {

/// A serialized dtype (schema.py's ScalarType) as torch's ScalarType code,
/// the number TorchScript passes and the converters read; -1 for dtypes tsc
/// does not support.
int64_t scalarTypeCode(int64_t dtype);

class GraphImporter {
public:
  GraphImporter(OpBuilder &builder, Location fileLoc, StringRef path)
      : builder(builder), fileLoc(fileLoc), path(path) {}

  /// Binds the graph's value `name` (an input or weight) to `value`.
  void define(StringRef name, Value value) { values[name] = value; }
  /// The value named `name`; failure (reported at `loc`) when nothing
  /// defined it.
  FailureOr<Value> lookup(StringRef name, Location loc);

  /// Imports `graph.nodes` at the builder's insertion point.
  LogicalResult importNodes(const llvm::json::Object &graph);

private:
  struct Argument {
    StringRef name;
    const llvm::json::Object *value;
  };
  LogicalResult importNode(const llvm::json::Object &node, unsigned index);
  /// Inlines the subgraph of a higher-order op that wraps code.
  LogicalResult inlineWrapper(const llvm::json::Object &node,
                              ArrayRef<Argument> args, Location loc);
  /// The operand (and attribute, for constants) of argument `arg`.
  LogicalResult importArgument(Argument arg, Location loc,
                               SmallVectorImpl<Value> &operands,
                               SmallVectorImpl<NamedAttribute> &attrs);
  /// The operand of the schema default `text` of argument `name`.
  Value importDefault(StringRef name, StringRef text,
                      SmallVectorImpl<NamedAttribute> &attrs, Location loc);
  /// A dense constant of `element` (integers or bools from `values`).
  Value intConstant(Location loc, Type element, ArrayRef<int64_t> shape,
                    ArrayRef<int64_t> values);
  Value constant(Location loc, Type element, ArrayRef<int64_t> shape,
                 ArrayRef<double> values);
  Location nodeLoc(const llvm::json::Object &node, unsigned index);
  InFlightDiagnostic error(Location loc);

  OpBuilder &builder;
  Location fileLoc;
  StringRef path;
  llvm::StringMap<Value> values;
};

} // namespace mlir::tsc

#endif // TSC_COMPILER_IMPORTERS_TORCH_EXPORT_GRAPHIMPORTER_H
