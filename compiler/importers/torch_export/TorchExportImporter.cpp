//===- TorchExportImporter.cpp - the archive, signature and weights -------===//
//
// What a torch.export archive holds around its graph: the entries, the
// schema version, the signature (which graph inputs are weights and which
// are the user's), the weights and constants as mapped blobs, and the
// symbolic dims. The nodes are imported by TorchExportNodes.cpp.
//
//===----------------------------------------------------------------------===//

#include "compiler/importers/torch_export/TorchExportImporter.h"
#include "compiler/importers/torch_export/GraphImporter.h"
#include "compiler/importers/torch_export/ZipArchive.h"
#include "dialects/tsc/IR/TscOps.h"
#include "passes/conversion/TorchToTsc/TorchToTsc.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/JSON.h"

using namespace mlir;
using namespace mlir::tsc;
namespace json = llvm::json;

bool tsc::isTorchExportArchive(StringRef path) {
  std::string error;
  FailureOr<std::unique_ptr<ZipArchive>> archive =
      ZipArchive::open(path, error);
  if (failed(archive))
    return false;
  return llvm::any_of((*archive)->getNames(), [](StringRef name) {
    return name.contains("/models/") && name.ends_with(".json");
  });
}

namespace {

/// Serialized dtypes (schema.py's ScalarType) as element types.
Type elementTypeOfDtype(Builder &b, int64_t dtype) {
  return fromtorch::elementTypeOfScalarType(b.getContext(),
                                            scalarTypeCode(dtype));
}

/// The symbol a serialized size expression names (`s0`, or sympy's
/// `Symbol('s0', positive=True, integer=True)`), or "" for other
/// expressions.
std::string symbolOfExpression(StringRef expr) {
  expr = expr.trim();
  if (expr.consume_front("Symbol('"))
    expr = expr.take_until([](char c) { return c == '\''; });
  if (expr.empty() ||
      !llvm::all_of(expr, [](char c) { return llvm::isAlnum(c) || c == '_'; }))
    return "";
  return expr.str();
}

/// Nesting deeper than this in a JSON entry is refused before parsing:
/// LLVM's parser recurses once per level, so a hostile file could exhaust
/// the stack. Programs nest a few levels per subgraph.
constexpr size_t kMaxJsonDepth = 512;

/// Whether the arrays and objects of `text` nest deeper than `limit` (text
/// inside strings skipped).
bool nestsDeeperThan(StringRef text, size_t limit) {
  size_t depth = 0;
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inString) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit)
        return true;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return false;
}

class ArchiveImporter {
public:
  ArchiveImporter(MLIRContext *ctx, const TorchExportImportOptions &options)
      : options(options), builder(ctx),
        fileLoc(FileLineColLoc::get(ctx, options.path, 0, 0)),
        symbols(builder, fileLoc, options.defaultDimMin,
                options.defaultDimMax) {}

  FailureOr<OwningOpRef<ModuleOp>> run();

private:
  InFlightDiagnostic error() {
    return emitError(fileLoc)
           << "torch.export archive '" << options.path << "': ";
  }
  LogicalResult openArchive();
  /// The parsed JSON entry `name` (under the archive's folder), or failure.
  FailureOr<json::Value> readJson(StringRef name, bool optional);
  LogicalResult checkVersions(const json::Object &program);
  LogicalResult declareSymbols(const json::Object &program);
  /// Reads `extra/tsc_dim_names.json` if the archive has it.
  LogicalResult readDimNames(const json::Object &program);
  /// The tsc symbol's name for the archive's symbol `name`.
  std::string symbolName(StringRef name) const {
    auto it = dimNames.find(name);
    return it == dimNames.end() ? name.str() : it->second;
  }
  /// The type of `meta` (a TensorMeta), or failure naming `what`.
  FailureOr<RankedTensorType> tensorType(const json::Object *meta,
                                         const Twine &what,
                                         SmallVectorImpl<InputDim> *dims);
  LogicalResult readWeightConfigs();
  /// The constant holding the weight or constant of fully qualified name
  /// `fqn`.
  FailureOr<Value> importWeight(StringRef fqn, StringRef argName);
  LogicalResult importSignature(const json::Object &graphModule, Block &body,
                                GraphImporter &graph);

  const TorchExportImportOptions &options;
  OpBuilder builder;
  Location fileLoc;
  std::unique_ptr<ZipArchive> archive;
  /// `NAME/`: the folder every entry of the archive is in.
  std::string prefix;
  /// Weight and constant configs by fully qualified name: the JSON object
  /// and the folder its `path_name` is in.
  struct WeightConfig {
    const json::Object *config;
    std::string folder;
  };
  llvm::StringMap<WeightConfig> weights;
  json::Value weightsJson = nullptr, constantsJson = nullptr;
  InputSymbols symbols;
  /// The torch.export.Dim names of the archive's symbols (`s23` → `batch`),
  /// where the archive carries them.
  llvm::StringMap<std::string> dimNames;
};

LogicalResult ArchiveImporter::openArchive() {
  std::string reason;
  FailureOr<std::unique_ptr<ZipArchive>> opened =
      ZipArchive::open(options.path, reason);
  if (failed(opened)) {
    error() << "cannot read it: " << reason;
    return failure();
  }
  archive = std::move(*opened);
  for (StringRef name : archive->getNames()) {
    size_t pos = name.find("/models/model.json");
    if (pos != StringRef::npos && pos + 18 == name.size()) {
      prefix = name.take_front(pos + 1).str();
      return success();
    }
  }
  error() << "no '<name>/models/model.json' entry: not a torch.export "
             "archive (written by torch.export.save)";
  return failure();
}

FailureOr<json::Value> ArchiveImporter::readJson(StringRef name,
                                                 bool optional) {
  std::string entry = prefix + name.str();
  if (optional && !archive->contains(entry))
    return json::Value(nullptr);
  std::string reason;
  FailureOr<ArrayRef<char>> bytes = archive->read(entry, reason);
  if (failed(bytes)) {
    error() << reason;
    return failure();
  }
  StringRef text(bytes->data(), bytes->size());
  if (nestsDeeperThan(text, kMaxJsonDepth)) {
    error() << "entry '" << entry << "' nests deeper than " << kMaxJsonDepth
            << " levels";
    return failure();
  }
  llvm::Expected<json::Value> parsed = json::parse(text);
  if (!parsed) {
    error() << "entry '" << entry
            << "' is not valid JSON: " << llvm::toString(parsed.takeError());
    return failure();
  }
  return std::move(*parsed);
}

LogicalResult ArchiveImporter::checkVersions(const json::Object &program) {
  std::string reason;
  // archive_format says what kind of archive this is; archive_version
  // counts changes of the layout of its entries.
  for (auto [name, accepted] :
       {std::pair<StringRef, StringRef>{"archive_format", "pt2"},
        {"archive_version", "0"},
        {"byteorder", "little"}}) {
    std::string entry = prefix + name.str();
    if (!archive->contains(entry))
      continue;
    FailureOr<ArrayRef<char>> bytes = archive->read(entry, reason);
    if (failed(bytes)) {
      error() << reason;
      return failure();
    }
    StringRef text = StringRef(bytes->data(), bytes->size()).trim();
    if (text != accepted) {
      error() << name << " is '" << text << "'; tsc reads " << name << " '"
              << accepted << "'";
      return failure();
    }
  }
  const json::Object *version = program.getObject("schema_version");
  std::optional<int64_t> major =
      version ? version->getInteger("major") : std::nullopt;
  std::optional<int64_t> minor =
      version ? version->getInteger("minor") : std::nullopt;
  if (!major || !minor) {
    error() << "models/model.json has no schema_version";
    return failure();
  }
  if (*major < kMinTorchExportSchema || *major > kMaxTorchExportSchema) {
    InFlightDiagnostic diag = error();
    diag << "schema version " << *major << "." << *minor
         << " is not supported: tsc reads schema major version ";
    if (kMinTorchExportSchema == kMaxTorchExportSchema)
      diag << kMinTorchExportSchema;
    else
      diag << kMinTorchExportSchema << " to " << kMaxTorchExportSchema;
    if (auto torch = program.getString("torch_version"))
      diag << " (the archive was written by PyTorch " << *torch << ")";
    return failure();
  }
  return success();
}

LogicalResult ArchiveImporter::declareSymbols(const json::Object &program) {
  const json::Object *ranges = program.getObject("range_constraints");
  if (!ranges)
    return success();
  // Sorted, so that symbols are declared in the same order on every run.
  SmallVector<StringRef> names;
  for (const auto &entry : *ranges)
    names.push_back(entry.first);
  llvm::sort(names);
  for (StringRef name : names) {
    const json::Object *range = ranges->getObject(name);
    if (!range) {
      error() << "range_constraints['" << name << "'] is not an object";
      return failure();
    }
    int64_t min = range->getInteger("min_val").value_or(options.defaultDimMin);
    int64_t max = range->getInteger("max_val").value_or(options.defaultDimMax);
    // Unbounded above (null), or bounded by the largest int64: the default.
    if (max == std::numeric_limits<int64_t>::max() ||
        max == std::numeric_limits<int64_t>::max() - 1)
      max = std::max(min, options.defaultDimMax);
    if (min < 0 || min > max) {
      error() << "symbol '" << name << "' has the range [" << min << ", " << max
              << "]";
      return failure();
    }
    // The program is valid in this range only: --dim may narrow it.
    Value symbol = symbols.declare(symbolName(name), min, max);
    symbol.getDefiningOp()->setAttr(kExportedRangeAttr,
                                    builder.getDenseI64ArrayAttr({min, max}));
  }
  return success();
}

/// torch.export keeps no Dim names: its symbols are sympy's (`s23`). The
/// tsc Python package's `tsc.compile` knows them and saves them with the
/// archive as the extra file `tsc_dim_names.json`, {symbol: Dim name}; each
/// name must be an identifier, used once, for a symbol the archive has.
LogicalResult ArchiveImporter::readDimNames(const json::Object &program) {
  FailureOr<json::Value> parsed =
      readJson("extra/tsc_dim_names.json", /*optional=*/true);
  if (failed(parsed))
    return failure();
  if (parsed->kind() == json::Value::Null)
    return success();
  const json::Object *names = parsed->getAsObject();
  const json::Object *ranges = program.getObject("range_constraints");
  if (!names) {
    error() << "extra/tsc_dim_names.json is not a JSON object";
    return failure();
  }
  llvm::StringSet<> used;
  for (const auto &[key, value] : *names) {
    std::optional<StringRef> name = value.getAsString();
    auto isWordChar = [](char c) { return llvm::isAlnum(c) || c == '_'; };
    if (!name || name->empty() || llvm::isDigit(name->front()) ||
        !llvm::all_of(*name, isWordChar)) {
      error() << "extra/tsc_dim_names.json: the name of symbol '"
              << StringRef(key) << "' is not an identifier";
      return failure();
    }
    if (!ranges || !ranges->get(key)) {
      error() << "extra/tsc_dim_names.json names symbol '" << StringRef(key)
              << "', which the program's range_constraints do not have";
      return failure();
    }
    if (!used.insert(*name).second) {
      error() << "extra/tsc_dim_names.json gives the name '" << *name
              << "' to two symbols";
      return failure();
    }
    dimNames[StringRef(key)] = name->str();
  }
  // A Dim name may not collide with an archive symbol left unnamed.
  if (ranges)
    for (const auto &entry : *ranges)
      if (!dimNames.contains(StringRef(entry.first)) &&
          used.contains(StringRef(entry.first))) {
        error() << "extra/tsc_dim_names.json gives the name '"
                << StringRef(entry.first)
                << "', which another of the archive's symbols has";
        return failure();
      }
  return success();
}

FailureOr<RankedTensorType>
ArchiveImporter::tensorType(const json::Object *meta, const Twine &what,
                            SmallVectorImpl<InputDim> *dims) {
  const json::Array *sizes = meta ? meta->getArray("sizes") : nullptr;
  std::optional<int64_t> dtype =
      meta ? meta->getInteger("dtype") : std::nullopt;
  if (!sizes || !dtype) {
    error() << what << " has no tensor metadata";
    return failure();
  }
  Type element = elementTypeOfDtype(builder, *dtype);
  if (!element) {
    error() << what << " has dtype " << *dtype
            << " (schema.py's ScalarType), which tsc does not support";
    return failure();
  }
  SmallVector<int64_t> shape;
  uint64_t staticElements = 1;
  for (const json::Value &size : *sizes) {
    const json::Object *dim = size.getAsObject();
    std::optional<int64_t> value =
        dim ? dim->getInteger("as_int") : std::nullopt;
    if (value && *value >= 0) {
      // Sizes come from the file: a product past 2^48 elements is no tensor
      // tsc compiles, and would overflow element counts further on.
      constexpr uint64_t kMaxElements = uint64_t(1) << 48;
      if (*value > 0 &&
          static_cast<uint64_t>(*value) > kMaxElements / staticElements) {
        error() << what << " has more than 2^48 elements";
        return failure();
      }
      staticElements *= std::max<int64_t>(*value, 1);
      shape.push_back(*value);
      if (dims)
        dims->push_back(*value);
      continue;
    }
    const json::Object *expr = dim ? dim->getObject("as_expr") : nullptr;
    std::optional<StringRef> text =
        expr ? expr->getString("expr_str") : std::nullopt;
    std::string symbol = text ? symbolOfExpression(*text) : "";
    if (!dims || symbol.empty()) {
      error() << what << " has a dim that is neither a size nor a symbol"
              << (text ? " ('" + text->str() + "')" : std::string());
      return failure();
    }
    shape.push_back(ShapedType::kDynamic);
    dims->push_back(symbolName(symbol));
  }
  return RankedTensorType::get(shape, element);
}

LogicalResult ArchiveImporter::readWeightConfigs() {
  for (auto [entry, folder, storage] :
       {std::tuple<StringRef, StringRef, json::Value *>{
            "data/weights/model_weights_config.json", "data/weights/",
            &weightsJson},
        {"data/constants/model_constants_config.json", "data/constants/",
         &constantsJson}}) {
    FailureOr<json::Value> parsed = readJson(entry, /*optional=*/true);
    if (failed(parsed))
      return failure();
    *storage = std::move(*parsed);
    if (storage->kind() == json::Value::Null)
      continue;
    const json::Object *top = storage->getAsObject();
    const json::Object *config = top ? top->getObject("config") : nullptr;
    if (!config) {
      error() << "entry '" << prefix << entry << "' has no 'config' object";
      return failure();
    }
    for (const auto &[fqn, value] : *config) {
      if (const json::Object *object = value.getAsObject())
        weights[fqn.str()] = {object, (prefix + folder).str()};
    }
  }
  return success();
}

FailureOr<Value> ArchiveImporter::importWeight(StringRef fqn,
                                               StringRef argName) {
  auto it = weights.find(fqn);
  if (it == weights.end()) {
    error() << "weight '" << fqn << "' (graph input '" << argName
            << "') is not in the archive's weight or constant configs";
    return failure();
  }
  const json::Object &config = *it->second.config;
  std::optional<StringRef> pathName = config.getString("path_name");
  if (config.getBoolean("use_pickle").value_or(false) || !pathName) {
    error() << "weight '" << fqn
            << "' is pickled; tsc reads weights stored as raw tensor bytes";
    return failure();
  }
  std::string entry = it->second.folder + pathName->str();
  std::string what = ("weight '" + fqn + "'").str();
  const json::Object *meta = config.getObject("tensor_meta");
  FailureOr<RankedTensorType> type = tensorType(meta, what, nullptr);
  if (failed(type))
    return failure();
  // Only contiguous layouts are views of the bytes as they are (size-1 dims
  // have any stride).
  const json::Array *strides = meta->getArray("strides");
  const json::Object *offsetObject = meta->getObject("storage_offset");
  std::optional<int64_t> offset = offsetObject
                                      ? offsetObject->getInteger("as_int")
                                      : std::optional<int64_t>(0);
  int64_t expected = 1;
  bool contiguous = strides && strides->size() == size_t(type->getRank()) &&
                    offset && *offset >= 0;
  for (int64_t d = type->getRank() - 1; contiguous && d >= 0; --d) {
    const json::Object *stride = (*strides)[d].getAsObject();
    std::optional<int64_t> value =
        stride ? stride->getInteger("as_int") : std::nullopt;
    contiguous = value && (*value == expected || type->getDimSize(d) == 1);
    expected *= type->getDimSize(d);
  }
  if (!contiguous) {
    error() << what << " is not contiguous (strides or storage offset); "
            << "tsc reads contiguous weights";
    return failure();
  }
  std::string reason;
  if (!archive->contains(entry)) {
    error() << what << ": entry '" << entry << "' is missing";
    return failure();
  }
  FailureOr<ArrayRef<char>> bytes = archive->read(entry, reason);
  if (failed(bytes)) {
    error() << what << ": " << reason;
    return failure();
  }
  unsigned width = type->getElementType().getIntOrFloatBitWidth();
  uint64_t elementBytes = std::max(1u, width / 8);
  uint64_t numElements = static_cast<uint64_t>(type->getNumElements());
  uint64_t begin = static_cast<uint64_t>(*offset) * elementBytes;
  // Sizes come from the file: refuse before multiplying past 64 bits.
  if (numElements > bytes->size() || begin > bytes->size() ||
      numElements * elementBytes > bytes->size() - begin) {
    error() << what << " of type " << *type << " needs "
            << numElements * elementBytes << " bytes at offset " << begin
            << " of entry '" << entry << "', which has " << bytes->size();
    return failure();
  }
  ArrayRef<char> data = bytes->slice(begin, numElements * elementBytes);
  Location loc = NameLoc::get(builder.getStringAttr(fqn), fileLoc);
  ElementsAttr value =
      archive->isMapped(entry)
          ? weightAttr(*type, mappedBlob(archive->getFile(), data), fqn,
                       options.maxInlineElements)
          : weightAttr(*type, data, fqn, options.maxInlineElements);
  return ConstantOp::create(builder, loc, value).getResult();
}

LogicalResult ArchiveImporter::importSignature(const json::Object &graphModule,
                                               Block &body,
                                               GraphImporter &graph) {
  const json::Object *signature = graphModule.getObject("signature");
  const json::Array *specs =
      signature ? signature->getArray("input_specs") : nullptr;
  const json::Object *graphObject = graphModule.getObject("graph");
  const json::Object *tensorValues =
      graphObject ? graphObject->getObject("tensor_values") : nullptr;
  if (!specs || !tensorValues) {
    error() << "models/model.json has no signature or tensor values";
    return failure();
  }
  for (const json::Value &specValue : *specs) {
    const json::Object *spec = specValue.getAsObject();
    if (!spec || spec->size() != 1) {
      error() << "an input spec is malformed";
      return failure();
    }
    StringRef kind = spec->begin()->first;
    const json::Object *body_ = spec->begin()->second.getAsObject();
    const json::Object *arg = body_ ? body_->getObject("arg") : nullptr;
    if (kind == "user_input") {
      const json::Object *tensor = arg ? arg->getObject("as_tensor") : nullptr;
      std::optional<StringRef> name =
          tensor ? tensor->getString("name") : std::nullopt;
      if (!name) {
        error() << "a user input is not a tensor; tsc compiles models whose "
                   "inputs are all tensors";
        return failure();
      }
      SmallVector<InputDim> dims;
      FailureOr<RankedTensorType> type = tensorType(
          tensorValues->getObject(*name), "input '" + *name + "'", &dims);
      if (failed(type))
        return failure();
      Value value = body.addArgument(
          *type, NameLoc::get(builder.getStringAttr(*name), fileLoc));
      // Symbols without a range constraint get the default range.
      symbols.bind(value, dims);
      graph.define(*name, value);
      continue;
    }
    // parameter, buffer, tensor_constant: a weight by fully qualified name.
    StringRef fqnKey = llvm::StringSwitch<StringRef>(kind)
                           .Case("parameter", "parameter_name")
                           .Case("buffer", "buffer_name")
                           .Case("tensor_constant", "tensor_constant_name")
                           .Default("");
    std::optional<StringRef> fqn =
        fqnKey.empty() || !body_ ? std::nullopt : body_->getString(fqnKey);
    std::optional<StringRef> name = arg ? arg->getString("name") : std::nullopt;
    if (!fqn || !name) {
      error() << "graph input of kind '" << kind
              << "' is not supported (tsc reads user inputs, parameters, "
                 "buffers and tensor constants)";
      return failure();
    }
    FailureOr<Value> weight = importWeight(*fqn, *name);
    if (failed(weight))
      return failure();
    graph.define(*name, *weight);
  }
  return success();
}

FailureOr<OwningOpRef<ModuleOp>> ArchiveImporter::run() {
  if (failed(openArchive()))
    return failure();
  FailureOr<json::Value> parsed = readJson("models/model.json", false);
  if (failed(parsed))
    return failure();
  const json::Object *program = parsed->getAsObject();
  if (!program) {
    error() << "models/model.json is not a JSON object";
    return failure();
  }
  if (failed(checkVersions(*program)) || failed(readDimNames(*program)) ||
      failed(readWeightConfigs()))
    return failure();
  const json::Object *graphModule = program->getObject("graph_module");
  const json::Object *graphObject =
      graphModule ? graphModule->getObject("graph") : nullptr;
  if (!graphObject) {
    error() << "models/model.json has no graph";
    return failure();
  }

  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  builder.setInsertionPointToEnd(module->getBody());
  auto func = func::FuncOp::create(builder, fileLoc, "forward",
                                   builder.getFunctionType({}, {}));
  Block *body = func.addEntryBlock();
  builder.setInsertionPointToStart(body);
  if (failed(declareSymbols(*program)))
    return failure();
  GraphImporter graph(builder, fileLoc, options.path);
  if (failed(importSignature(*graphModule, *body, graph)) ||
      failed(graph.importNodes(*graphObject)))
    return failure();

  const json::Object *signature = graphModule->getObject("signature");
  const json::Array *outputSpecs =
      signature ? signature->getArray("output_specs") : nullptr;
  if (!outputSpecs) {
    error() << "models/model.json has no output specs";
    return failure();
  }
  SmallVector<Value> results;
  for (const json::Value &specValue : *outputSpecs) {
    const json::Object *spec = specValue.getAsObject();
    // The key as a StringRef into the object (a ternary with "" would make
    // a temporary ObjectKey and leave `kind` dangling).
    StringRef kind;
    if (spec && spec->size() == 1)
      kind = spec->begin()->first;
    const json::Object *specBody =
        kind.empty() ? nullptr : spec->begin()->second.getAsObject();
    const json::Object *arg = specBody ? specBody->getObject("arg") : nullptr;
    const json::Object *tensor = arg ? arg->getObject("as_tensor") : nullptr;
    std::optional<StringRef> name =
        tensor ? tensor->getString("name") : std::nullopt;
    if (kind != "user_output" || !name) {
      error() << "output of kind '" << kind
              << "' is not supported: tsc compiles programs that return "
                 "tensors and mutate no buffer or input";
      return failure();
    }
    FailureOr<Value> value = graph.lookup(*name, fileLoc);
    if (failed(value))
      return failure();
    results.push_back(*value);
  }
  finishForward(builder, func, results, fileLoc);
  return module;
}

} // namespace

FailureOr<OwningOpRef<ModuleOp>>
tsc::importTorchExportModel(MLIRContext *context,
                            const TorchExportImportOptions &options) {
  context->loadDialect<TscDialect, func::FuncDialect>();
  return ArchiveImporter(context, options).run();
}
