//===- AtenSchemas.cpp - the generated table of ATen op arguments ---------===//

#include "compiler/importers/torch_export/AtenSchemas.h"

using namespace mlir;
using namespace mlir::tsc;

namespace {
struct Schema {
  const char *op, *overload, *arguments;
};
const Schema kSchemas[] = {
#include "compiler/importers/torch_export/AtenSchemas.inc"
};
} // namespace

std::optional<SmallVector<AtenArgument>>
tsc::lookupAtenSchema(StringRef op, StringRef overload) {
  for (const Schema &schema : kSchemas) {
    if (op != schema.op || overload != schema.overload)
      continue;
    SmallVector<AtenArgument> out;
    SmallVector<StringRef> parts;
    StringRef(schema.arguments).split(parts, ',', -1, /*KeepEmpty=*/false);
    for (StringRef part : parts) {
      auto [name, value] = part.split('=');
      out.push_back(
          {name, part.contains('=') ? std::optional(value) : std::nullopt});
    }
    return out;
  }
  return std::nullopt;
}
