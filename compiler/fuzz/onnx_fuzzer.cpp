//===- onnx_fuzzer.cpp - libFuzzer target: the ONNX importer --------------===//
//
// Each input is a binary ONNX model (.onnx): the importer's own checks of
// the protobuf (tensor byte counts, attribute ranges, names, graph
// structure, external data confined to the model's folder), then the
// conversion to tsc ops and the fuse phase. The importer's sources are
// compiled into this target with coverage and sanitizers; the libraries
// after it (dialect, passes) run uninstrumented and so are checked for
// crashes only.
//
//===----------------------------------------------------------------------===//

#include "compiler/fuzz/ModelFuzzer.h"
#include "compiler/importers/onnx/OnnxImporter.h"

using namespace mlir;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return tsc::fuzz::fuzzModelFile(
      data, size, "model.onnx",
      [](MLIRContext *context, const std::string &path) {
        tsc::OnnxImportOptions options;
        options.path = path;
        return tsc::importOnnxModel(context, options);
      });
}
