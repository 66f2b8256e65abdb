//===- TorchInputSpec.cpp - parsing --input NAME=TYPE[DIMS] ---------------===//
//
// Independent of libtorch, so a build without it still parses (and rejects
// archives with a clear message).
//
//===----------------------------------------------------------------------===//

#include "compiler/importers/torchscript/TorchScriptImporter.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::tsc;

FailureOr<TorchInputSpec> tsc::parseTorchInputSpec(StringRef text,
                                                   std::string &error) {
  auto fail = [&](const Twine &why) {
    error = ("--input " + text + ": " + why +
             " (expected NAME=TYPE[DIMS], e.g. input_ids=i64[batch,seq])")
                .str();
    return failure();
  };
  auto [name, rest] = text.split('=');
  name = name.trim();
  if (name.empty() || rest.empty())
    return fail("missing name or type");
  size_t open = rest.find('[');
  if (open == StringRef::npos || !rest.ends_with("]"))
    return fail("missing [DIMS]");
  TorchInputSpec spec;
  spec.name = name.str();
  spec.elementType = rest.take_front(open).trim().str();
  static const char *const kTypes[] = {"f32", "f64", "f16", "bf16", "i64",
                                       "i32", "i16", "i8",  "u8",   "bool"};
  if (llvm::none_of(kTypes, [&](const char *t) { return spec.elementType == t; }))
    return fail("unknown element type '" + spec.elementType +
                "' (one of f32, f64, f16, bf16, i64, i32, i16, i8, u8, bool)");
  StringRef dims = rest.drop_front(open + 1).drop_back().trim();
  if (dims.empty())
    return spec; // a 0-d input
  SmallVector<StringRef> parts;
  dims.split(parts, ',');
  for (StringRef part : parts) {
    part = part.trim();
    int64_t size = 0;
    if (!part.getAsInteger(10, size)) {
      if (size < 0)
        return fail("negative dim " + part);
      spec.dims.push_back(size);
    } else if (!part.empty() &&
               llvm::all_of(part, [](char c) {
                 return llvm::isAlnum(c) || c == '_';
               }) &&
               !llvm::isDigit(part.front())) {
      spec.dims.push_back(part.str());
    } else {
      return fail("dim '" + part + "' is neither a size nor a symbol name");
    }
  }
  return spec;
}
