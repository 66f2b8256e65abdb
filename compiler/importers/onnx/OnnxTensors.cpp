//===- OnnxTensors.cpp - ONNX tensors' element types and data
//--------------===//

#include "compiler/importers/onnx/OnnxTensors.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/Path.h"

#include <onnx/onnx_pb.h>

using namespace mlir;
using namespace mlir::tsc;

StringRef mlir::tsc::onnxDataTypeName(int type) {
  static const char *names[] = {
      "UNDEFINED",      "FLOAT",      "UINT8",
      "INT8",           "UINT16",     "INT16",
      "INT32",          "INT64",      "STRING",
      "BOOL",           "FLOAT16",    "DOUBLE",
      "UINT32",         "UINT64",     "COMPLEX64",
      "COMPLEX128",     "BFLOAT16",   "FLOAT8E4M3FN",
      "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ",
      "UINT4",          "INT4",       "FLOAT4E2M1",
      "FLOAT8E8M0",     "UINT2",      "INT2"};
  if (type >= 0 && type < static_cast<int>(std::size(names)))
    return names[type];
  return "UNKNOWN";
}

Type mlir::tsc::onnxElementType(MLIRContext *ctx, int type) {
  Builder b(ctx);
  switch (type) {
  case onnx::TensorProto::FLOAT:
    return b.getF32Type();
  case onnx::TensorProto::FLOAT16:
    return b.getF16Type();
  case onnx::TensorProto::BFLOAT16:
    return b.getBF16Type();
  case onnx::TensorProto::DOUBLE:
    return b.getF64Type();
  case onnx::TensorProto::BOOL:
    return b.getI1Type();
  case onnx::TensorProto::INT8:
    return b.getIntegerType(8);
  case onnx::TensorProto::INT16:
    return b.getIntegerType(16);
  case onnx::TensorProto::INT32:
    return b.getIntegerType(32);
  case onnx::TensorProto::INT64:
    return b.getIntegerType(64);
  case onnx::TensorProto::UINT8:
    return b.getIntegerType(8, /*isSigned=*/false);
  case onnx::TensorProto::UINT16:
    return b.getIntegerType(16, /*isSigned=*/false);
  case onnx::TensorProto::UINT32:
    return b.getIntegerType(32, /*isSigned=*/false);
  case onnx::TensorProto::UINT64:
    return b.getIntegerType(64, /*isSigned=*/false);
  case 17: // FLOAT8E4M3FN
    return b.getType<Float8E4M3FNType>();
  case 18: // FLOAT8E4M3FNUZ
    return b.getType<Float8E4M3FNUZType>();
  case 19: // FLOAT8E5M2
    return b.getType<Float8E5M2Type>();
  case 20: // FLOAT8E5M2FNUZ
    return b.getType<Float8E5M2FNUZType>();
  case 21: // UINT4
    return b.getIntegerType(4, /*isSigned=*/false);
  case 22: // INT4
    return b.getIntegerType(4);
  case 23: // FLOAT4E2M1
    return b.getType<Float4E2M1FNType>();
  case 24: // FLOAT8E8M0
    return b.getType<Float8E8M0FNUType>();
  case 25: // UINT2
    return b.getIntegerType(2, /*isSigned=*/false);
  case 26: // INT2
    return b.getIntegerType(2);
  default:
    return {};
  }
}

namespace {

/// Bits per element of the types ONNX packs several to a byte (the low bits
/// first), or 0.
unsigned packedBits(int type) {
  switch (type) {
  case 21: // UINT4
  case 22: // INT4
  case 23: // FLOAT4E2M1
    return 4;
  case 25: // UINT2
  case 26: // INT2
    return 2;
  default:
    return 0;
  }
}

/// Bytes per element in raw_data for the types elementType() accepts that
/// packedBits() does not.
int64_t elementBytes(int type) {
  switch (type) {
  case onnx::TensorProto::DOUBLE:
  case onnx::TensorProto::INT64:
  case onnx::TensorProto::UINT64:
    return 8;
  case onnx::TensorProto::FLOAT:
  case onnx::TensorProto::INT32:
  case onnx::TensorProto::UINT32:
    return 4;
  case onnx::TensorProto::FLOAT16:
  case onnx::TensorProto::BFLOAT16:
  case onnx::TensorProto::INT16:
  case onnx::TensorProto::UINT16:
    return 2;
  default:
    return 1;
  }
}

} // namespace

OnnxTensorReader::OnnxTensorReader(Location fileLoc,
                                   const OnnxImportOptions &options)
    : fileLoc(fileLoc), options(options) {}

InFlightDiagnostic OnnxTensorReader::error() { return emitError(fileLoc); }

FailureOr<ElementsAttr> OnnxTensorReader::read(onnx::TensorProto &tensor) {
  std::string what = "initializer '" + tensor.name() + "'";
  Type element = onnxElementType(fileLoc.getContext(), tensor.data_type());
  if (!element) {
    error() << what << " has element type "
            << onnxDataTypeName(tensor.data_type())
            << ", which tsc does not support";
    return failure();
  }
  SmallVector<int64_t> shape(tensor.dims().begin(), tensor.dims().end());
  int64_t numElements = 1;
  for (int64_t d : shape) {
    if (d < 0 || llvm::MulOverflow(numElements, d, numElements) ||
        numElements > (int64_t(1) << 40)) {
      error() << what << " has an invalid shape";
      return failure();
    }
  }
  FailureOr<AsmResourceBlob> data = readTensorData(tensor, numElements);
  if (failed(data))
    return failure();
  return weightAttr(RankedTensorType::get(shape, element), std::move(*data),
                    tensor.name(), options.maxInlineElements);
}

FailureOr<AsmResourceBlob>
OnnxTensorReader::readExternalData(const onnx::TensorProto &tensor,
                                   int64_t expected) {
  std::string what = "initializer '" + tensor.name() + "'";
  std::string location;
  int64_t offset = 0, length = -1;
  for (const onnx::StringStringEntryProto &entry : tensor.external_data()) {
    StringRef value = entry.value();
    if (entry.key() == "location") {
      location = entry.value();
    } else if ((entry.key() == "offset" && value.getAsInteger(10, offset)) ||
               (entry.key() == "length" && value.getAsInteger(10, length))) {
      error() << what << ": external data " << entry.key() << " '" << value
              << "' is not a number";
      return failure();
    }
  }
  if (location.empty()) {
    error() << what << " is stored externally but names no location";
    return failure();
  }
  // As onnx's checker requires: the side file is in the model's folder or
  // below it, never wherever a location (or a symbolic link) would lead,
  // unless the user allows it.
  namespace path = llvm::sys::path;
  auto outside = [&](StringRef why) {
    error() << what << ": external data location '" << location << "' " << why
            << " (pass --allow-external-data-outside if the model is trusted)";
    return failure();
  };
  if (!options.allowExternalDataOutside &&
      (path::is_absolute(location) || path::has_root_name(location) ||
       llvm::is_contained(
           llvm::make_range(path::begin(location), path::end(location)), "..")))
    return outside("is not a path inside the model's folder");
  if (offset < 0) {
    error() << what << ": negative external data offset";
    return failure();
  }
  if (length >= 0 && length != expected) {
    error() << what << ": external data length " << length << " differs from "
            << "the " << expected << " bytes its type needs";
    return failure();
  }
  SmallString<256> file(path::parent_path(options.path));
  path::append(file, location);
  if (!options.allowExternalDataOutside) {
    // Symbolic links resolved: the real file must lie below the real folder.
    SmallString<256> realFolder, realFile;
    StringRef folder = path::parent_path(options.path);
    if (!llvm::sys::fs::real_path(folder.empty() ? "." : folder, realFolder) &&
        !llvm::sys::fs::real_path(file, realFile)) {
      path::append(realFolder, "");
      if (!StringRef(realFile).starts_with(realFolder))
        return outside("leads outside the model's folder, to '" +
                       realFile.str().str() + "'");
    }
  }
  std::shared_ptr<MappedFile> &mapped = dataFiles[file];
  if (!mapped) {
    std::string reason;
    FailureOr<std::shared_ptr<MappedFile>> opened =
        MappedFile::open(file, reason);
    if (failed(opened)) {
      error() << what << ": cannot read external data file '" << file
              << "': " << reason;
      return failure();
    }
    mapped = *opened;
  }
  ArrayRef<char> data = mapped->getData();
  if (static_cast<uint64_t>(offset) > data.size() ||
      static_cast<uint64_t>(expected) > data.size() - offset) {
    error() << what << ": external data at offset " << offset << ", "
            << expected << " bytes, lies outside '" << file << "' ("
            << data.size() << " bytes)";
    return failure();
  }
  return mappedBlob(mapped, data.slice(offset, expected));
}

FailureOr<AsmResourceBlob>
OnnxTensorReader::readTensorData(onnx::TensorProto &tensor,
                                 int64_t numElements) {
  int type = tensor.data_type();
  unsigned bits = packedBits(type);
  int64_t expected = bits ? llvm::divideCeil(numElements * bits, 8)
                          : numElements * elementBytes(type);
  if (tensor.data_location() == onnx::TensorProto::EXTERNAL)
    return readExternalData(tensor, expected);
  std::string what = "initializer '" + tensor.name() + "'";
  auto sizeError = [&](size_t size) {
    error() << what << " holds " << size << " bytes of data, but "
            << numElements << " elements of " << onnxDataTypeName(type)
            << " need " << expected;
    return failure();
  };
  if (tensor.has_raw_data()) {
    if (static_cast<int64_t>(tensor.raw_data().size()) != expected)
      return sizeError(tensor.raw_data().size());
    // The message's own bytes become the blob: the weights stay in memory
    // once.
    return stringBlob(std::unique_ptr<std::string>(tensor.release_raw_data()));
  }
  // Typed fields. ONNX stores 8/16-bit ints and halves in int32_data.
  std::vector<char> bytes;
  auto append = [&](const void *p, size_t n) {
    bytes.insert(bytes.end(), static_cast<const char *>(p),
                 static_cast<const char *>(p) + n);
  };
  switch (type) {
  case onnx::TensorProto::FLOAT:
    append(tensor.float_data().data(), tensor.float_data_size() * 4);
    break;
  case onnx::TensorProto::DOUBLE:
    append(tensor.double_data().data(), tensor.double_data_size() * 8);
    break;
  case onnx::TensorProto::INT64:
    append(tensor.int64_data().data(), tensor.int64_data_size() * 8);
    break;
  case onnx::TensorProto::UINT32:
  case onnx::TensorProto::UINT64:
    for (uint64_t v : tensor.uint64_data()) {
      llvm::support::ulittle64_t word(v);
      append(&word, elementBytes(type));
    }
    break;
  default:
    for (int32_t v : tensor.int32_data()) {
      if (bits) { // one packed byte per int32
        append(&v, 1);
        continue;
      }
      llvm::support::ulittle64_t word(static_cast<uint64_t>(v));
      append(&word, elementBytes(type));
    }
  }
  if (static_cast<int64_t>(bytes.size()) != expected)
    return sizeError(bytes.size());
  return HeapAsmResourceBlob::allocateAndCopyWithAlign(bytes, /*align=*/64);
}
