//===- StepSources.cpp - the source nodes and layer of a plan step --------===//
//
// What the report, the profile and the artifact's STEP section say a step
// computes: the model nodes its ops were imported from (a merged GEMM names
// each of its GEMMs), and the layer they belong to, read off the node names
// or the exporter's module scopes.
//
//===----------------------------------------------------------------------===//

#include "compiler/plan/PlanReport.h"

#include "passes/transforms/MergedGemms.h"

#include "mlir/IR/Location.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::plan;

/// The node name an op was imported from, if any.
static std::optional<StringRef> sourceName(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().strref();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (std::optional<StringRef> name = sourceName(inner))
        return name;
  return std::nullopt;
}

std::vector<std::string> plan::getSourceNodeList(const PlanStep &step) {
  std::vector<std::string> names;
  llvm::StringSet<> seen;
  auto add = [&](Location loc) {
    if (std::optional<StringRef> name = sourceName(loc))
      if (seen.insert(*name).second)
        names.push_back(name->str());
  };
  for (Operation *op : step.ops) {
    // A GEMM merged from several (tsc-merge-gemms) computes each of them.
    auto fused = dyn_cast<FusedLoc>(op->getLoc());
    auto metadata =
        fused ? dyn_cast_or_null<StringAttr>(fused.getMetadata()) : nullptr;
    if (metadata && metadata.getValue() == kMergedGemmsLoc)
      llvm::for_each(fused.getLocations(), add);
    else
      add(op->getLoc());
  }
  return names;
}

std::string plan::getSourceNodes(const PlanStep &step, unsigned limit) {
  std::vector<std::string> names = getSourceNodeList(step);
  std::string text;
  for (auto [i, name] : llvm::enumerate(names)) {
    if (i == limit)
      return text + ", ...";
    text += (text.empty() ? "" : ", ") + name;
  }
  return text;
}

/// The module scope nested inside a node's NameLoc (the ONNX importer's,
/// from the dynamo exporter's metadata), if any.
static std::optional<StringRef> scopeName(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc)) {
    if (auto scope = dyn_cast<NameLoc>(name.getChildLoc()))
      return scope.getName().strref();
    return std::nullopt;
  }
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (std::optional<StringRef> scope = scopeName(inner))
        return scope;
  return std::nullopt;
}

/// The prefix of `path` up to its first numbered part, split at `separator`:
/// "/model/layers.0" of "/model/layers.0/attn/MatMul" ('/', parts like
/// "layers.0"), "model.layers.0" of "model.layers.0.self_attn" ('.', a part
/// "0" after a named one); "" if there is none.
static StringRef numberedPrefix(StringRef path, char separator) {
  SmallVector<StringRef> parts;
  path.split(parts, separator);
  size_t length = 0;
  for (auto [i, part] : llvm::enumerate(parts)) {
    length += part.size() + 1;
    bool numbered;
    if (separator == '.') {
      numbered = i > 0 && !parts[i - 1].empty() && !part.empty() &&
                 llvm::all_of(part, llvm::isDigit);
    } else {
      auto [stem, number] = part.rsplit('.');
      numbered = !stem.empty() && !number.empty() &&
                 llvm::all_of(number, llvm::isDigit);
    }
    if (numbered)
      return path.take_front(length - 1);
  }
  return "";
}

std::string plan::getLayer(const PlanStep &step) {
  for (Operation *op : step.ops) {
    if (std::optional<StringRef> name = sourceName(op->getLoc()))
      if (StringRef layer = numberedPrefix(*name, '/'); !layer.empty())
        return layer.str();
    if (std::optional<StringRef> scope = scopeName(op->getLoc()))
      if (StringRef layer = numberedPrefix(*scope, '.'); !layer.empty())
        return layer.str();
  }
  return "";
}
