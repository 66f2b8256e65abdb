//===- Prune.cpp - parsing --prune specs ----------------------------------===//

#include "compiler/pipeline/Prune.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::tsc;

llvm::Expected<PruneSpecs>
tsc::parsePruneSpecs(llvm::ArrayRef<std::string> specs) {
  PruneSpecs out;
  llvm::StringSet<> seen;
  auto error = [](llvm::StringRef spec, const llvm::Twine &why) {
    return llvm::createStringError("--prune: '" + spec + "': " + why);
  };
  for (llvm::StringRef spec : specs) {
    if (spec == "2:4") {
      if (!seen.insert("2:4").second)
        return error(spec, "given twice");
      out.twoFour = true;
      continue;
    }
    auto [key, value] = spec.split('=');
    bool global = value.consume_back(":global");
    double ratio = 0;
    if (key != "heads" && key != "ffn" && key != "magnitude")
      return error(spec, "unknown pruning (expected heads=R, ffn=R, "
                         "magnitude=R or 2:4)");
    if (!seen.insert(key).second)
      return error(spec, "given twice");
    if (value.getAsDouble(ratio) || !(ratio >= 0 && ratio < 1))
      return error(spec, "expected a ratio R with 0 <= R < 1");
    if (global && key == "magnitude")
      return error(spec, "magnitude pruning is global already");
    if (key == "heads") {
      out.heads = ratio;
      out.headsGlobal = global;
    } else if (key == "ffn") {
      out.ffn = ratio;
      out.ffnGlobal = global;
    } else {
      out.magnitude = ratio;
    }
  }
  return out;
}
