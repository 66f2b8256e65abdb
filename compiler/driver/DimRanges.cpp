//===- DimRanges.cpp - `--dim NAME=MIN..MAX` and default ranges -----------===//

#include "compiler/driver/DimRanges.h"
#include "compiler/importers/torch_export/TorchExportImporter.h"
#include "dialects/tsc/IR/TscOps.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

using namespace mlir;
using namespace mlir::tsc;

namespace {

/// One `--dim NAME=MIN..MAX` setting.
struct DimRangeOption {
  std::string name;
  int64_t min, max;
};

/// `NAME=MIN..MAX`, or `NAME=N` for a fixed size (MIN = MAX = N).
FailureOr<DimRangeOption> parseDimOption(StringRef text) {
  auto [name, range] = text.split('=');
  auto [minText, maxText] = range.split("..");
  if (!range.contains(".."))
    maxText = minText;
  DimRangeOption out{name.str(), 0, 0};
  if (name.empty() || !text.contains('=') ||
      minText.getAsInteger(10, out.min) || maxText.getAsInteger(10, out.max) ||
      out.min < 0 || out.min > out.max) {
    llvm::errs() << "tsc: error: --dim " << text
                 << ": expected NAME=MIN..MAX with 0 <= MIN <= MAX, or NAME=N "
                    "for a fixed size\n";
    return failure();
  }
  return out;
}

} // namespace

std::set<std::string> mlir::tsc::defaultRangedSymbols(ModuleOp module) {
  std::set<std::string> names;
  module.walk([&](SymbolOp symbol) {
    if (!symbol.isBoundFromData() && !symbol.getCommandLine() &&
        !symbol->hasAttr(kExportedRangeAttr))
      names.insert(symbol.getSymbol().str());
  });
  return names;
}

void mlir::tsc::warnDefaultRanges(ModuleOp module,
                                  const std::set<std::string> &names,
                                  std::optional<uint64_t> arenaBytes) {
  std::map<std::string, std::string> ranges;
  module.walk([&](SymbolOp symbol) {
    std::string name = symbol.getSymbol().str();
    if (names.count(name))
      ranges[name] = name + " in [" + std::to_string(symbol.getLowest()) +
                     ", " + std::to_string(symbol.getHighest()) + "]";
  });
  if (ranges.empty())
    return;
  std::vector<std::string> list;
  for (const auto &entry : ranges)
    list.push_back(entry.second);
  std::string arena;
  if (arenaBytes)
    arena = llvm::formatv(" (an activation arena of {0:F1} MiB)",
                          double(*arenaBytes) / (1024.0 * 1024.0))
                .str();
  llvm::errs() << "tsc: warning: no --dim for " << llvm::join(list, ", ")
               << ": the artifact accepts the default range (narrowed to what "
                  "the model allows) and plans its memory for the largest "
                  "sizes"
               << arena
               << "; give --dim NAME=MIN..MAX or --dim NAME=N for the "
                  "shapes you run\n";
}

LogicalResult mlir::tsc::applyDimRanges(ModuleOp module,
                                        ArrayRef<std::string> settings) {
  for (StringRef text : settings) {
    FailureOr<DimRangeOption> setting = parseDimOption(text);
    if (failed(setting))
      return failure();
    bool found = false, outside = false;
    std::set<std::string> known;
    module.walk([&](SymbolOp symbol) {
      known.insert(symbol.getSymbol().str());
      if (symbol.getSymbol() != setting->name)
        return;
      found = true;
      auto exported =
          symbol->getAttrOfType<DenseI64ArrayAttr>(kExportedRangeAttr);
      if (exported && exported.size() == 2 &&
          (setting->min < exported[0] || setting->max > exported[1])) {
        llvm::errs() << "tsc: error: --dim " << text << ": the model was "
                     << "exported for " << setting->name << " in ["
                     << exported[0] << ", " << exported[1]
                     << "]; --dim may narrow that range, not widen it\n";
        outside = true;
        return;
      }
      Builder builder(symbol);
      symbol.setMinAttr(builder.getI64IntegerAttr(setting->min));
      symbol.setMaxAttr(builder.getI64IntegerAttr(setting->max));
      // The graph phase checks user ranges against the model instead of
      // tightening them.
      symbol.setCommandLine(true);
    });
    if (outside)
      return failure();
    if (!found) {
      llvm::errs() << "tsc: error: --dim " << text << ": the model has no "
                   << "symbolic dim named '" << setting->name << "'";
      if (!known.empty()) {
        llvm::errs() << " (it has:";
        for (const std::string &name : known)
          llvm::errs() << " " << name;
        llvm::errs() << ")";
      }
      llvm::errs() << "\n";
      return failure();
    }
  }
  return success();
}
