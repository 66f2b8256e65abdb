//===- TorchScriptImporter.cpp - TorchScript archives into tsc.foreign ops -===//
//
// The only translation unit that sees libtorch, built as the plugin
// libtsc-torchscript.so: loading libtorch costs about a second of static
// initializers, so tsc loads it only when it reads an archive
// (TorchScriptLoader.cpp). The tsc dialect's symbols come from the tsc
// executable, which exports them. Everything libtorch throws is caught here
// and becomes a diagnostic naming the archive.
//
//===----------------------------------------------------------------------===//

#include "compiler/importers/torchscript/TorchScriptImporter.h"
#include "dialects/tsc/IR/TscOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <caffe2/serialize/versions.h>
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/passes/constant_propagation.h>
#include <torch/csrc/jit/passes/dead_code_elimination.h>
#include <torch/csrc/jit/passes/inliner.h>
#include <torch/csrc/jit/passes/lower_tuples.h>
#include <torch/csrc/jit/passes/remove_mutation.h>
#include <torch/csrc/jit/serialization/import.h>

using namespace mlir;
using namespace mlir::tsc;

namespace jit = torch::jit;

namespace {

/// The operator version of this libtorch: archives are upgraded to it when
/// loaded, so converters see ops at this version whatever wrote the file.
constexpr int64_t kTorchOperatorVersion =
    static_cast<int64_t>(caffe2::serialize::kProducedFileFormatVersion);

/// A libtorch error without the C++ backtrace libtorch appends to some
/// messages and without leading blank lines; `firstLine` keeps only the
/// first line (the cause; the rest is suggestions and call sites).
std::string errorText(const char *what, bool firstLine) {
  llvm::StringRef text(what);
  for (const char *cut : {"\nException raised from", "\nframe #"})
    if (size_t pos = text.find(cut); pos != llvm::StringRef::npos)
      text = text.take_front(pos);
  text = text.trim();
  if (firstLine)
    text = text.take_until([](char c) { return c == '\n'; }).rtrim();
  return text.str();
}

Type elementTypeOf(Builder &b, c10::ScalarType type) {
  switch (type) {
  case c10::ScalarType::Float:
    return b.getF32Type();
  case c10::ScalarType::Double:
    return b.getF64Type();
  case c10::ScalarType::Half:
    return b.getF16Type();
  case c10::ScalarType::BFloat16:
    return b.getBF16Type();
  case c10::ScalarType::Long:
    return b.getIntegerType(64);
  case c10::ScalarType::Int:
    return b.getIntegerType(32);
  case c10::ScalarType::Short:
    return b.getIntegerType(16);
  case c10::ScalarType::Char:
    return b.getIntegerType(8);
  case c10::ScalarType::Byte:
    return b.getIntegerType(8, /*isSigned=*/false);
  case c10::ScalarType::Bool:
    return b.getI1Type();
  default:
    return {};
  }
}

Type elementTypeNamed(Builder &b, StringRef name) {
  return llvm::StringSwitch<Type>(name)
      .Case("f32", b.getF32Type())
      .Case("f64", b.getF64Type())
      .Case("f16", b.getF16Type())
      .Case("bf16", b.getBF16Type())
      .Case("i64", b.getIntegerType(64))
      .Case("i32", b.getIntegerType(32))
      .Case("i16", b.getIntegerType(16))
      .Case("i8", b.getIntegerType(8))
      .Case("u8", b.getIntegerType(8, /*isSigned=*/false))
      .Case("bool", b.getI1Type())
      .Default(Type());
}

/// The Python-level name of a value: its debug name without the `.N`
/// suffix TorchScript adds to make names unique.
std::string baseName(const jit::Value *value) { return value->debugNameBase(); }

/// Whether every use of `node`'s outputs is the graph's return, or an
/// unpack: such lists and tuples are resolved without an op of their own.
bool onlyReturnedOrUnpacked(jit::Node *node) {
  for (jit::Value *output : node->outputs())
    for (const jit::Use &use : output->uses())
      if (use.user != node->owningGraph()->return_node() &&
          use.user->kind() != c10::prim::ListUnpack &&
          use.user->kind() != c10::prim::TupleUnpack)
        return false;
  return true;
}

class Importer {
public:
  Importer(MLIRContext *ctx, const TorchScriptImportOptions &options)
      : options(options), builder(ctx),
        fileLoc(FileLineColLoc::get(ctx, options.path, 0, 0)),
        symbols(builder, fileLoc, options.defaultDimMin,
                options.defaultDimMax) {}

  FailureOr<OwningOpRef<ModuleOp>> run();

private:
  InFlightDiagnostic error() { return emitError(fileLoc); }
  LogicalResult loadGraph();
  LogicalResult declareInputs(Block &body);
  LogicalResult importNode(jit::Node *node);
  LogicalResult importConstant(jit::Node *node);
  Location nodeLoc(jit::Node *node);
  /// The attribute recording a constant input, or null when there is none
  /// (tensors, None).
  Attribute constantAttr(const c10::IValue &value);
  /// Multi-result form: `node`'s single list/tuple output read only by one
  /// unpack becomes the unpack's outputs.
  jit::Node *soleUnpack(jit::Node *node);
  /// `/layers.0/attn` for a call stack whose frames call submodules `0` and
  /// `attn`: modules not called (ModuleList, or `self.encoder` when forward
  /// iterates `self.encoder.layer`) have no frame, so their names are found
  /// in the module tree.
  std::string modulePath(const std::vector<jit::InlinedCallStackEntry> &stack);

  const TorchScriptImportOptions &options;
  OpBuilder builder;
  Location fileLoc;
  InputSymbols symbols;
  std::shared_ptr<jit::Graph> graph;
  /// The module as loaded (its tree names call frames) and frozen (which
  /// owns the graph's constants).
  std::optional<jit::Module> loaded, frozen;
  llvm::DenseMap<const jit::Value *, Value> values;
  /// Unpack nodes already imported as their producer's results.
  llvm::DenseSet<const jit::Node *> unpacked;
  size_t nodeIndex = 0;
};

LogicalResult Importer::loadGraph() {
  StringRef path = options.path;
  if (!llvm::sys::fs::exists(path)) {
    error() << "cannot read TorchScript archive '" << path
            << "': no such file";
    return failure();
  }
  std::string stage = "load";
  try {
    loaded = jit::load(options.path);
    loaded->eval();
    stage = "freeze";
    frozen = jit::freeze(*loaded);
    auto forward = frozen->find_method("forward");
    if (!forward) {
      error() << "TorchScript archive '" << path << "' has no forward method";
      return failure();
    }
    stage = "prepare";
    graph = forward->graph()->copy();
    jit::Inline(*graph);
    jit::RemoveListMutation(graph);
    jit::RemoveTensorMutation(graph);
    jit::LowerSimpleTuples(graph);
    jit::ConstantPropagation(graph);
    jit::EliminateDeadCode(graph);
  } catch (const std::exception &e) {
    std::string cause = errorText(e.what(), /*firstLine=*/true);
    if (stage != "load") {
      error() << "cannot " << stage << " TorchScript archive '" << path
              << "': " << cause;
    } else if (llvm::StringRef(cause).contains("PytorchStreamReader")) {
      error() << "'" << path << "' is not a complete TorchScript archive "
              << "(a zip file written by torch.jit.save): " << cause;
    } else {
      error() << "libtorch " << TSC_TORCH_VERSION << " cannot load "
              << "TorchScript archive '" << path << "': " << cause
              << " (an archive saved by a newer PyTorch can use ops this "
                 "version lacks: save it with PyTorch "
              << TSC_TORCH_VERSION
              << " or older, or export it with torch.export (.pt2) or to "
                 "ONNX instead)";
    }
    return failure();
  }
  return success();
}

LogicalResult Importer::declareInputs(Block &body) {
  std::vector<jit::Value *> inputs;
  for (jit::Value *input : graph->inputs())
    if (!input->type()->cast<c10::ClassType>()) // `self`
      inputs.push_back(input);

  llvm::StringMap<const TorchInputSpec *> specs;
  for (const TorchInputSpec &spec : options.inputs)
    specs[spec.name] = &spec;
  std::string names;
  SmallVector<std::string> missing;
  for (jit::Value *input : inputs) {
    names += (names.empty() ? "" : ", ") + baseName(input);
    if (!specs.count(baseName(input)))
      missing.push_back(baseName(input));
  }
  for (const TorchInputSpec &spec : options.inputs) {
    if (llvm::none_of(inputs, [&](jit::Value *input) {
          return baseName(input) == spec.name;
        })) {
      error() << "--input " << spec.name << ": forward of '" << options.path
              << "' has no input named '" << spec.name
              << "' (it takes: " << names << ")";
      return failure();
    }
  }
  if (!missing.empty()) {
    InFlightDiagnostic diag = error();
    diag << "TorchScript archives do not record input shapes: give each "
            "input of forward with --input NAME=TYPE[DIMS], e.g. --input "
         << missing.front() << "=i64[batch,seq] (forward takes: " << names
         << "; missing: ";
    llvm::interleaveComma(missing, diag);
    diag << ")";
    return failure();
  }

  for (jit::Value *input : inputs) {
    std::string name = baseName(input);
    if (!input->type()->cast<c10::TensorType>()) {
      error() << "input '" << name << "' of forward has type "
              << input->type()->repr_str()
              << "; tsc compiles models whose inputs are all tensors";
      return failure();
    }
    const TorchInputSpec &spec = *specs[name];
    SmallVector<int64_t> shape;
    for (const InputDim &dim : spec.dims)
      shape.push_back(std::holds_alternative<int64_t>(dim)
                          ? std::get<int64_t>(dim)
                          : ShapedType::kDynamic);
    auto type = RankedTensorType::get(
        shape, elementTypeNamed(builder, spec.elementType));
    Value arg = body.addArgument(
        type, NameLoc::get(builder.getStringAttr(name), fileLoc));
    symbols.bind(arg, spec.dims);
    values[input] = arg;
  }
  return success();
}

Location Importer::nodeLoc(jit::Node *node) {
  // The module path from the inlined call stack (`/layers.0/attn`), then the
  // value's name, then where in the Python source it was written.
  std::string name;
  if (auto stack = node->callstack())
    name = modulePath((*stack)->vec());
  name += "/";
  if (!node->outputs().empty() && node->output(0)->hasDebugName())
    name += node->output(0)->debugName();
  else
    name += std::string(node->kind().toUnqualString()) + "_" +
            std::to_string(nodeIndex);
  if (auto position = node->sourceRange().file_line_col()) {
    auto [file, line, col] = *position;
    name += " @ " + llvm::sys::path::filename(file).str() + ":" +
            std::to_string(line);
  }
  ++nodeIndex;
  return NameLoc::get(builder.getStringAttr(name), fileLoc);
}

Attribute Importer::constantAttr(const c10::IValue &value) {
  if (value.isInt())
    return builder.getI64IntegerAttr(value.toInt());
  if (value.isDouble())
    return builder.getF64FloatAttr(value.toDouble());
  if (value.isBool())
    return builder.getBoolAttr(value.toBool());
  if (value.isString())
    return builder.getStringAttr(value.toStringRef());
  if (value.isIntList())
    return builder.getDenseI64ArrayAttr(value.toIntVector());
  if (value.isDoubleList())
    return builder.getDenseF64ArrayAttr(value.toDoubleVector());
  if (value.isDevice())
    return builder.getStringAttr(value.toDevice().str());
  return {};
}

std::string
Importer::modulePath(const std::vector<jit::InlinedCallStackEntry> &stack) {
  // The submodule called `name` below `m`, with its path relative to `m`:
  // a direct child, else the shallowest descendant of that name. Frames
  // exist only for modules whose forward runs, so a ModuleList (never
  // called) or a module whose children are used as attributes
  // (`for l in self.encoder.layer`) leaves a gap the tree fills.
  auto find = [](const jit::Module &m, const std::string &name)
      -> std::optional<std::pair<jit::Module, std::string>> {
    std::vector<std::pair<jit::Module, std::string>> level = {{m, ""}};
    while (!level.empty()) {
      std::vector<std::pair<jit::Module, std::string>> next;
      for (auto &[module, prefix] : level) {
        for (const jit::NameModule &child : module.named_children()) {
          std::string path =
              prefix.empty() ? child.name : prefix + "." + child.name;
          if (child.name == name)
            return std::make_pair(child.value, path);
          next.emplace_back(child.value, path);
        }
      }
      level = std::move(next);
    }
    return std::nullopt;
  };
  std::string path;
  std::optional<jit::Module> current = loaded;
  for (const jit::InlinedCallStackEntry &entry : stack) {
    const auto &info = std::get<2>(entry);
    if (!info || info->instance_name().empty())
      continue;
    std::string name = info->instance_name();
    std::optional<std::pair<jit::Module, std::string>> found;
    if (current)
      found = find(*current, name);
    if (found) {
      current = found->first;
      name = found->second;
    } else {
      current.reset();
    }
    // As torch.onnx names nodes: `/encoder/layer.0`, items of a container
    // joined to it by a dot.
    SmallVector<StringRef> parts;
    StringRef(name).split(parts, '.');
    for (StringRef part : parts)
      path += (llvm::all_of(part, llvm::isDigit) && !path.empty() ? "." : "/") +
              part.str();
  }
  return path;
}

LogicalResult Importer::importConstant(jit::Node *node) {
  jit::Value *output = node->output();
  c10::optional<c10::IValue> value = jit::toIValue(output);
  Location loc = nodeLoc(node);
  auto dense = [&](Type element, ArrayRef<int64_t> shape, auto elements) {
    auto type = RankedTensorType::get(shape, element);
    return ConstantOp::create(builder, loc,
                              DenseElementsAttr::get(type, elements))
        .getResult();
  };
  std::string name = output->hasDebugName() ? output->debugName() : "constant";
  auto tensorConstant = [&](const at::Tensor &frozen,
                            const std::string &weightName) -> Value {
    at::Tensor tensor = frozen.contiguous();
    Type element = elementTypeOf(builder, tensor.scalar_type());
    if (!element) {
      error() << "tensor constant '" << weightName << "' has element type "
              << c10::toString(tensor.scalar_type())
              << ", which tsc does not support";
      return {};
    }
    auto type = RankedTensorType::get(SmallVector<int64_t>(tensor.sizes().begin(),
                                                           tensor.sizes().end()),
                                      element);
    ArrayRef<char> bytes(static_cast<const char *>(tensor.data_ptr()),
                         tensor.nbytes());
    return ConstantOp::create(
        builder, NameLoc::get(builder.getStringAttr(weightName), fileLoc),
        weightAttr(type, bytes, weightName, options.maxInlineElements));
  };
  auto isTensorOrNone = [](const c10::IValue &v) {
    return v.isTensor() || v.isNone();
  };
  Value result;
  if (!value || value->isNone() || value->isString() || value->isDevice()) {
    // Strings, devices and None reach converters as attributes.
    result = NoneOp::create(builder, loc);
  } else if (value->isTensor()) {
    result = tensorConstant(value->toTensor(), name);
    if (!result)
      return failure();
  } else if (value->isList() &&
             llvm::all_of(value->toListRef(), isTensorOrNone)) {
    // A frozen List[Tensor] or List[Optional[Tensor]] (aten::index's
    // indices, frozen by torch.jit.freeze or traced from constants) is the
    // prim::ListConstruct of its elements that an unfrozen graph has, so
    // the converters read both alike: tensors as constants `NAME.I`, None
    // as tsc.none.
    SmallVector<Value> elements;
    for (auto [i, element] : llvm::enumerate(value->toListRef())) {
      if (element.isNone()) {
        elements.push_back(NoneOp::create(builder, loc));
        continue;
      }
      elements.push_back(
          tensorConstant(element.toTensor(), name + "." + std::to_string(i)));
      if (!elements.back())
        return failure();
    }
    result = ForeignOp::create(builder, loc, TypeRange{builder.getNoneType()},
                               "prim", "ListConstruct",
                               static_cast<uint64_t>(kTorchOperatorVersion),
                               elements, builder.getDictionaryAttr({}),
                               /*subgraphsCount=*/0)
                 .getResult(0);
  } else if (value->isInt()) {
    result = dense(builder.getIntegerType(64), {}, ArrayRef<int64_t>(value->toInt()));
  } else if (value->isDouble()) {
    result = dense(builder.getF64Type(), {}, ArrayRef<double>(value->toDouble()));
  } else if (value->isBool()) {
    result = dense(builder.getI1Type(), {}, ArrayRef<bool>(value->toBool()));
  } else if (value->isIntList()) {
    std::vector<int64_t> list = value->toIntVector();
    result = dense(builder.getIntegerType(64),
                   {static_cast<int64_t>(list.size())}, ArrayRef<int64_t>(list));
  } else if (value->isDoubleList()) {
    std::vector<double> list = value->toDoubleVector();
    result = dense(builder.getF64Type(), {static_cast<int64_t>(list.size())},
                   ArrayRef<double>(list));
  } else {
    // Anything else (lists of other values, custom classes) stays a foreign
    // constant and is reported if something reads it.
    result =
        ForeignOp::create(
            builder, loc, TypeRange{builder.getNoneType()}, "prim", "Constant",
            static_cast<uint64_t>(kTorchOperatorVersion), ValueRange{},
            builder.getDictionaryAttr(builder.getNamedAttr(
                "type", builder.getStringAttr(output->type()->repr_str()))),
            /*subgraphsCount=*/0)
            .getResult(0);
  }
  values[output] = result;
  return success();
}

jit::Node *Importer::soleUnpack(jit::Node *node) {
  if (node->outputs().size() != 1 || node->output()->uses().size() != 1)
    return nullptr;
  jit::Node *user = node->output()->uses().front().user;
  if (user->kind() == c10::prim::ListUnpack ||
      user->kind() == c10::prim::TupleUnpack)
    return user;
  return nullptr;
}

LogicalResult Importer::importNode(jit::Node *node) {
  c10::Symbol kind = node->kind();
  if (kind == c10::prim::Constant)
    return importConstant(node);
  if (unpacked.contains(node))
    return success();
  if ((kind == c10::prim::ListConstruct || kind == c10::prim::TupleConstruct) &&
      onlyReturnedOrUnpacked(node))
    return success();
  // Lists and tuples built and unpacked again are just their elements.
  if (kind == c10::prim::ListUnpack || kind == c10::prim::TupleUnpack) {
    jit::Node *producer = node->input()->node();
    if (producer->kind() == c10::prim::ListConstruct ||
        producer->kind() == c10::prim::TupleConstruct) {
      for (auto [element, output] :
           llvm::zip(producer->inputs(), node->outputs()))
        values[output] = values.lookup(element);
      return success();
    }
  }

  Location loc = nodeLoc(node);
  SmallVector<Value> operands;
  SmallVector<NamedAttribute> attrs;
  const c10::FunctionSchema *schema = node->maybeSchema();
  for (auto [i, input] : llvm::enumerate(node->inputs())) {
    Value value = values.lookup(input);
    if (!value) {
      emitError(loc) << "node '" << cast<NameLoc>(loc).getName().str()
                     << "' (" << kind.toQualString() << ") reads '%"
                     << input->debugName() << "', which nothing before it "
                     << "produces";
      return failure();
    }
    operands.push_back(value);
    if (input->node()->kind() != c10::prim::Constant)
      continue;
    c10::optional<c10::IValue> constant = jit::toIValue(input);
    if (!constant)
      continue;
    if (Attribute attr = constantAttr(*constant)) {
      std::string name = schema && i < schema->arguments().size()
                             ? schema->arguments()[i].name()
                             : "arg" + std::to_string(i);
      attrs.push_back(builder.getNamedAttr(name, attr));
    }
  }
  // Overloads differ in their arguments (aten::to.dtype, to.device, ...).
  if (schema && !schema->overload_name().empty())
    attrs.push_back(builder.getNamedAttr(
        "overload", builder.getStringAttr(schema->overload_name())));
  if (!node->blocks().empty())
    attrs.push_back(builder.getNamedAttr(
        "blocks", builder.getI64IntegerAttr(node->blocks().size())));

  // A list (or tuple) result read only by one unpack: the node gets the
  // unpacked values as its results (aten::split, aten::size, chunk, ...).
  ArrayRef<jit::Value *> outputs = node->outputs();
  jit::Node *unpack = soleUnpack(node);
  if (unpack && kind != c10::prim::ListConstruct &&
      kind != c10::prim::TupleConstruct) {
    outputs = unpack->outputs();
    unpacked.insert(unpack);
    attrs.push_back(builder.getNamedAttr("unpacked", builder.getUnitAttr()));
  }
  SmallVector<Type> resultTypes(outputs.size(), builder.getNoneType());
  auto foreign = ForeignOp::create(
      builder, loc, resultTypes, kind.ns().toUnqualString(),
      kind.toUnqualString(), static_cast<uint64_t>(kTorchOperatorVersion),
      operands, builder.getDictionaryAttr(attrs), /*subgraphsCount=*/0);
  for (auto [output, result] : llvm::zip(outputs, foreign.getResults()))
    values[output] = result;
  return success();
}

FailureOr<OwningOpRef<ModuleOp>> Importer::run() {
  if (failed(loadGraph()))
    return failure();
  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  builder.setInsertionPointToEnd(module->getBody());
  auto func = func::FuncOp::create(builder, fileLoc, "forward",
                                   builder.getFunctionType({}, {}));
  Block *body = func.addEntryBlock();
  builder.setInsertionPointToStart(body);
  if (failed(declareInputs(*body)))
    return failure();
  try {
    for (jit::Node *node : graph->nodes())
      if (failed(importNode(node)))
        return failure();
  } catch (const std::exception &e) {
    error() << "cannot read the graph of TorchScript archive '"
            << options.path << "': " << errorText(e.what(), false);
    return failure();
  }

  // forward returns a tensor or a (nested) tuple of them: one result each.
  SmallVector<Value> results;
  std::function<void(jit::Value *)> flatten = [&](jit::Value *value) {
    jit::Node *producer = value->node();
    if (producer->kind() == c10::prim::TupleConstruct ||
        producer->kind() == c10::prim::ListConstruct) {
      for (jit::Value *element : producer->inputs())
        flatten(element);
      return;
    }
    results.push_back(values.lookup(value));
  };
  for (jit::Value *output : graph->outputs())
    flatten(output);
  if (llvm::any_of(results, [](Value v) { return !v; })) {
    error() << "forward of '" << options.path
            << "' returns a value tsc could not import";
    return failure();
  }
  finishForward(builder, func, results, fileLoc);
  return module;
}

} // namespace

/// The plugin's entry point (see TorchScriptPlugin.h).
extern "C" __attribute__((visibility("default"))) bool
tscImportTorchScript(MLIRContext *context,
                     const TorchScriptImportOptions *options,
                     OwningOpRef<ModuleOp> *out) {
  context->loadDialect<TscDialect, func::FuncDialect>();
  FailureOr<OwningOpRef<ModuleOp>> module = Importer(context, *options).run();
  if (failed(module))
    return false;
  *out = std::move(*module);
  return true;
}
