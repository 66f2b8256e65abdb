//===- PruneReport.cpp - the prune phase's records as text and JSON -------===//

#include "compiler/driver/PruneReport.h"
#include "passes/transforms/PruneRecord.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

using namespace mlir;
using namespace mlir::tsc;

namespace {

/// An attribute of a record as JSON: dictionaries, arrays, strings,
/// integers, floats and i64 arrays are all the records hold.
llvm::json::Value toJson(Attribute attr) {
  if (auto dict = dyn_cast<DictionaryAttr>(attr)) {
    llvm::json::Object object;
    for (NamedAttribute entry : dict)
      object[entry.getName().strref()] = toJson(entry.getValue());
    return object;
  }
  if (auto array = dyn_cast<ArrayAttr>(attr)) {
    llvm::json::Array out;
    for (Attribute element : array)
      out.push_back(toJson(element));
    return out;
  }
  if (auto ints = dyn_cast<DenseI64ArrayAttr>(attr))
    return llvm::json::Array(ints.asArrayRef());
  if (auto str = dyn_cast<StringAttr>(attr))
    return str.str();
  if (auto flag = dyn_cast<BoolAttr>(attr))
    return flag.getValue();
  if (auto integer = dyn_cast<IntegerAttr>(attr))
    return integer.getInt();
  if (auto real = dyn_cast<FloatAttr>(attr))
    return real.getValueAsDouble();
  return nullptr;
}

int64_t getInt(DictionaryAttr record, StringRef key) {
  auto value = record.getAs<IntegerAttr>(key);
  return value ? value.getInt() : 0;
}

StringRef getString(DictionaryAttr record, StringRef key) {
  auto value = record.getAs<StringAttr>(key);
  return value ? value.getValue() : "";
}

} // namespace

void tsc::printPruneReport(ModuleOp module, llvm::raw_ostream &os) {
  auto records = module->getAttrOfType<ArrayAttr>(kPruneRecordsAttr);
  if (!records || records.empty())
    return;
  os << "pruning:\n";
  int64_t paramsBefore = 0, paramsAfter = 0;
  for (auto record : records.getAsRange<DictionaryAttr>()) {
    StringRef kind = getString(record, "kind");
    StringRef status = getString(record, "status");
    os << "  " << kind << " " << getString(record, "layer") << ": ";
    if (status == "refused") {
      StringRef reason = getString(record, "reason");
      os << "refused: " << (reason.empty() ? getString(record, "note") : reason)
         << "\n";
      continue;
    }
    if (kind == "detected") {
      os << getString(record, "summary") << "\n";
      continue;
    }
    int64_t before = getInt(record, "params_before");
    int64_t after = getInt(record, "params_after");
    paramsBefore += before;
    paramsAfter += after;
    if (auto removed = record.getAs<DenseI64ArrayAttr>("removed"))
      os << "removed " << removed.size() << " of " << getInt(record, "groups")
         << " " << getString(record, "unit") << " by "
         << (getString(record, "importance") == "activations"
                 ? "activation importance (calibration)"
                 : "weight importance")
         << ", ";
    if (int64_t zeros = getInt(record, "zeros"))
      os << llvm::formatv("{0:P} of the weights zero, ",
                          static_cast<double>(zeros) /
                              std::max<int64_t>(1, getInt(record, "count")));
    os << "parameters " << before << " -> " << after << ", FLOPs per token "
       << getInt(record, "flops_before") << " -> "
       << getInt(record, "flops_after");
    if (StringRef note = getString(record, "note"); !note.empty())
      os << " (" << note << ")";
    os << "\n";
  }
  os << "  parameters in the pruned GEMMs: " << paramsBefore << " -> "
     << paramsAfter << "\n";
}

llvm::json::Array tsc::getPruneRecordsJson(ModuleOp module) {
  llvm::json::Array records;
  if (auto attr = module->getAttrOfType<ArrayAttr>(kPruneRecordsAttr))
    for (Attribute record : attr)
      records.push_back(toJson(record));
  return records;
}

LogicalResult tsc::writePruneReport(ModuleOp module, StringRef path,
                                    const llvm::json::Object *budget) {
  llvm::json::Array records = getPruneRecordsJson(module);
  std::error_code error;
  llvm::raw_fd_ostream os(path, error, llvm::sys::fs::OF_Text);
  if (error) {
    llvm::errs() << "tsc: error: --prune-report=" << path << ": "
                 << error.message() << "\n";
    return failure();
  }
  llvm::json::Object report{{"records", std::move(records)}};
  if (budget)
    report["error_budget"] = llvm::json::Object(*budget);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(report))) << "\n";
  return success();
}
