//===- OnnxTensors.h - ONNX tensors' element types and data -----*- C++ -*-===//
//
// What the ONNX importer knows about TensorProto: element type numbers and
// their MLIR types, and reading a tensor's data (raw bytes, typed fields or
// an external-data side file, each checked against the size its shape and
// type need) into a weight attribute without copying large data.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_COMPILER_IMPORTERS_ONNX_ONNXTENSORS_H
#define TSC_COMPILER_IMPORTERS_ONNX_ONNXTENSORS_H

#include "compiler/importers/common/ImportUtils.h"
#include "compiler/importers/onnx/OnnxImporter.h"

#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/StringMap.h"

#include <memory>

namespace onnx {
class TensorProto;
} // namespace onnx

namespace mlir::tsc {

/// The name of ONNX's TensorProto.DataType number `type` ("UNKNOWN" past
/// the known ones): new element types arrive as plain ints from newer
/// exporters and are named in messages.
StringRef onnxDataTypeName(int type);

/// The MLIR element type of an ONNX data type, or null if tsc has none.
Type onnxElementType(MLIRContext *ctx, int type);

/// Reads tensors (initializers, attribute tensors) of one model. External
/// data is confined to the model's folder unless the options allow it, and
/// each side file is mapped once.
class OnnxTensorReader {
public:
  OnnxTensorReader(Location fileLoc, const OnnxImportOptions &options);

  /// The tensor as a weight attribute (small ones inline, large ones as
  /// blobs that keep the message's or the mapped file's bytes). Problems are
  /// diagnostics at the file naming the tensor.
  FailureOr<ElementsAttr> read(onnx::TensorProto &tensor);

private:
  InFlightDiagnostic error();
  FailureOr<AsmResourceBlob> readTensorData(onnx::TensorProto &tensor,
                                            int64_t numElements);
  FailureOr<AsmResourceBlob> readExternalData(const onnx::TensorProto &tensor,
                                              int64_t expected);

  Location fileLoc;
  const OnnxImportOptions &options;
  /// External-data files, each mapped once, by path.
  llvm::StringMap<std::shared_ptr<MappedFile>> dataFiles;
};

} // namespace mlir::tsc

#endif // TSC_COMPILER_IMPORTERS_ONNX_ONNXTENSORS_H
