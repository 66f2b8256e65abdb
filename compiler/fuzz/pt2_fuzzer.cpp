//===- pt2_fuzzer.cpp - libFuzzer target: the torch.export (.pt2) reader --===//
//
// Each input is a .pt2 archive: the zip (through minizip), the entries'
// names and sizes, models/model.json (LLVM's JSON parser) and its schema,
// weights and constants against their declared sizes, then the conversion
// of the aten nodes and the fuse phase. The importer's sources are compiled
// into this target with coverage and sanitizers.
//
//===----------------------------------------------------------------------===//

#include "compiler/fuzz/ModelFuzzer.h"
#include "compiler/importers/torch_export/TorchExportImporter.h"

using namespace mlir;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return tsc::fuzz::fuzzModelFile(
      data, size, "model.pt2",
      [](MLIRContext *context, const std::string &path) {
        tsc::TorchExportImportOptions options;
        options.path = path;
        return tsc::importTorchExportModel(context, options);
      });
}
