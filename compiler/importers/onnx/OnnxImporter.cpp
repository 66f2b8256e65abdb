//===- OnnxImporter.cpp - ModelProto to tsc.foreign ops -------------------===//

#include "compiler/importers/onnx/OnnxImporter.h"
#include "compiler/importers/common/ImportUtils.h"
#include "compiler/importers/onnx/OnnxArity.h"
#include "compiler/importers/onnx/OnnxTensors.h"
#include "dialects/tsc/IR/TscAttrNames.h"
#include "dialects/tsc/IR/TscOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/unknown_field_set.h>
#include <onnx/defs/parser.h>
#include <onnx/onnx_pb.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <fcntl.h>

using namespace mlir;
using namespace mlir::tsc;

namespace {

/// NodeProto.metadata_props (ONNX 1.16), newer than the ONNX library tsc
/// builds against, which keeps it among a node's unknown fields.
constexpr int kNodeMetadataField = 9;

/// The innermost module a node of PyTorch's dynamo exporter comes from
/// ("model.layers.0.self_attn"), or "". The exporter records the module
/// path in metadata "pkg.torch.onnx.name_scopes" as a Python list of
/// strings: the scopes from the root, then the FX node's own name.
std::string moduleScope(const onnx::NodeProto &node) {
  const google::protobuf::UnknownFieldSet &fields =
      node.GetReflection()->GetUnknownFields(node);
  for (int i = 0; i < fields.field_count(); ++i) {
    const google::protobuf::UnknownField &field = fields.field(i);
    onnx::StringStringEntryProto entry;
    if (field.number() != kNodeMetadataField ||
        field.type() != google::protobuf::UnknownField::TYPE_LENGTH_DELIMITED ||
        !entry.ParseFromString(field.length_delimited()) ||
        entry.key() != "pkg.torch.onnx.name_scopes")
      continue;
    SmallVector<StringRef> scopes;
    StringRef rest = entry.value();
    while (true) {
      size_t open = rest.find('\'');
      size_t close =
          open == StringRef::npos ? StringRef::npos : rest.find('\'', open + 1);
      if (close == StringRef::npos)
        break;
      scopes.push_back(rest.slice(open + 1, close));
      rest = rest.drop_front(close + 1);
    }
    return scopes.size() >= 2 ? scopes[scopes.size() - 2].str() : "";
  }
  return "";
}

class Importer {
public:
  Importer(MLIRContext *ctx, const OnnxImportOptions &options)
      : ctx(ctx), options(options), builder(ctx),
        fileLoc(FileLineColLoc::get(ctx, options.path, 0, 0)),
        symbols(builder, fileLoc, options.defaultDimMin, options.defaultDimMax),
        tensors(fileLoc, options) {}

  FailureOr<OwningOpRef<ModuleOp>> run();

private:
  InFlightDiagnostic error() { return emitError(fileLoc); }
  LogicalResult readModel();
  LogicalResult checkOpsets();
  LogicalResult checkGraph();
  bool checkArity(const onnx::GraphProto &graph, size_t &index);
  FailureOr<Type> convertType(const onnx::TypeProto &type, StringRef what);
  FailureOr<Value> declareInput(const onnx::ValueInfoProto &input,
                                Block &body);
  FailureOr<Value> importInitializer(onnx::TensorProto &tensor);
  FailureOr<Attribute> convertAttribute(onnx::AttributeProto &attr,
                                        const onnx::NodeProto &node,
                                        unsigned &numSubgraphs);
  LogicalResult importNode(onnx::NodeProto &node);
  LogicalResult importSubgraph(onnx::GraphProto &graph, Region &region,
                               Location loc);
  Location nodeLoc(const onnx::NodeProto &node, size_t index);

  MLIRContext *ctx;
  const OnnxImportOptions &options;
  OpBuilder builder;
  Location fileLoc;
  onnx::ModelProto model;
  llvm::StringMap<int64_t> opsets;
  llvm::StringMap<Value> values;
  InputSymbols symbols;
  /// Shape-inference results and declared outputs, by value name.
  llvm::StringMap<const onnx::ValueInfoProto *> valueInfos;
  OnnxTensorReader tensors;
  size_t nodeIndex = 0;
};

LogicalResult Importer::readModel() {
  StringRef path = options.path;
  if (path.ends_with(".onnxtxt")) {
    auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
    if (!buffer) {
      error() << "cannot read ONNX model '" << path
              << "': " << buffer.getError().message();
      return failure();
    }
    onnx::OnnxParser parser((*buffer)->getBufferStart());
    onnx::Status status = parser.Parse(model);
    if (!status.IsOK()) {
      error() << "'" << path << "' is not valid textual ONNX: "
              << status.ErrorMessage();
      return failure();
    }
    return success();
  }
  uint64_t size = 0;
  if (std::error_code ec = llvm::sys::fs::file_size(path, size)) {
    error() << "cannot read ONNX model '" << path << "': " << ec.message();
    return failure();
  }
  if (size > static_cast<uint64_t>(INT_MAX)) {
    error() << "'" << path << "' is " << size
            << " bytes; a protobuf message cannot exceed 2 GB, so save the "
               "model with its weights as external data";
    return failure();
  }
  // Streamed from the file: the model is in memory once, as the message.
  int fd = ::open(options.path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error() << "cannot read ONNX model '" << path
            << "': " << std::strerror(errno);
    return failure();
  }
  google::protobuf::io::FileInputStream stream(fd);
  stream.SetCloseOnDelete(true);
  if (!model.ParseFromZeroCopyStream(&stream) || !model.has_graph() ||
      model.ir_version() <= 0) {
    error() << "'" << path
            << "' is not an ONNX model: it does not parse as a ModelProto "
               "with a graph (the file is truncated, corrupt or of another "
               "format)";
    return failure();
  }
  return success();
}

LogicalResult Importer::checkOpsets() {
  for (const onnx::OperatorSetIdProto &opset : model.opset_import()) {
    std::string domain = opset.domain();
    if (domain.empty() || domain == "ai.onnx")
      domain = "onnx";
    opsets[domain] = opset.version();
  }
  // A model of other domains only (ai.onnx.ml, a vendor's) imports; its
  // nodes are reported as unsupported unless a converter takes them.
  if (opsets.empty()) {
    error() << "'" << options.path << "' imports no opset";
    return failure();
  }
  auto it = opsets.find("onnx");
  if (it != opsets.end() && it->second > kMaxOnnxOpset) {
    error() << "'" << options.path << "' uses ai.onnx opset " << it->second
            << ", newer than opset " << kMaxOnnxOpset
            << ", the newest tsc knows";
    return failure();
  }
  return success();
}

/// The graph's structure as ONNX's IR defines it, checked before anything
/// reads the graph: what breaks it would give an artifact the runtime
/// refuses or runs wrongly.
LogicalResult Importer::checkGraph() {
  const onnx::GraphProto &graph = model.graph();
  if (graph.output().empty()) {
    error() << "the graph has no outputs: a model must compute something";
    return failure();
  }
  llvm::StringSet<> outputs;
  for (const onnx::ValueInfoProto &output : graph.output()) {
    if (output.name().empty()) {
      error() << "a graph output has no name";
      return failure();
    }
    if (!outputs.insert(output.name()).second) {
      error() << "graph output '" << output.name() << "' is listed twice";
      return failure();
    }
  }
  // Every tensor has one producer: an input, an initializer or one node.
  llvm::StringMap<std::string> producers;
  llvm::StringSet<> inputs;
  for (const onnx::ValueInfoProto &input : graph.input()) {
    if (input.name().empty()) {
      error() << "a graph input has no name";
      return failure();
    }
    if (!inputs.insert(input.name()).second) {
      error() << "graph input '" << input.name() << "' is listed twice";
      return failure();
    }
    producers[input.name()] = "graph input '" + input.name() + "'";
  }
  for (const onnx::TensorProto &init : graph.initializer()) {
    std::string what = "initializer '" + init.name() + "'";
    if (init.name().empty()) {
      error() << "an initializer has no name";
      return failure();
    }
    // ONNX's IR: an input with an initializer of its name is an input whose
    // default value is the initializer. tsc compiles the default in.
    if (inputs.contains(init.name())) {
      emitWarning(fileLoc)
          << "graph input '" << init.name()
          << "' has an initializer of the same name: tsc compiles the "
             "initializer's value in as a constant, and the artifact takes "
             "no input '"
          << init.name() << "'";
      continue;
    }
    auto [it, added] = producers.try_emplace(init.name(), what);
    if (!added) {
      error() << "tensor '" << init.name() << "' is defined twice: by "
              << it->second << " and by another " << what;
      return failure();
    }
  }
  for (auto [index, node] : llvm::enumerate(graph.node())) {
    std::string what = (node.name().empty() ? "node #" + std::to_string(index)
                                            : "node '" + node.name() + "'") +
                       " (" + node.op_type() + ")";
    for (const std::string &name : node.output()) {
      if (name.empty())
        continue; // an optional output left out
      auto [it, added] = producers.try_emplace(name, what);
      if (!added) {
        error() << "tensor '" << name << "' is written by " << what
                << " but is already defined by " << it->second;
        return failure();
      }
    }
  }
  return success();
}

/// Every standard node's input and output counts against its op's schema
/// (OnnxArity.h), in subgraphs too, before any converter indexes them (the
/// fuzzers found converters reading inputs past the end one op at a time).
/// Each node at fault is reported, named as importNode names it (`index`
/// counts nodes in the order importNode meets them); false if any is. Ops
/// without a schema (contrib domains, unknown ops) are left to the
/// converters and the unsupported-op report.
bool Importer::checkArity(const onnx::GraphProto &graph, size_t &index) {
  bool ok = true;
  auto count = [](int n, const char *what) {
    return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
  };
  auto range = [&](int min, int max, const char *what) {
    if (min == max)
      return count(min, what);
    return std::to_string(min) + " to " +
           (max == kOnnxAnyCount ? std::string("any number")
                                 : std::to_string(max)) +
           " " + what + "s";
  };
  for (const onnx::NodeProto &node : graph.node()) {
    Location loc = nodeLoc(node, index++);
    auto opset = opsets.find("onnx");
    bool standard = node.domain().empty() || node.domain() == "ai.onnx";
    if (standard && opset != opsets.end()) {
      std::optional<OnnxArity> arity =
          getOnnxArity(node.op_type(), opset->second);
      if (arity && (node.input_size() < arity->minInputs ||
                    node.input_size() > arity->maxInputs ||
                    node.output_size() < arity->minOutputs ||
                    node.output_size() > arity->maxOutputs)) {
        emitError(loc) << "node '" << cast<NameLoc>(loc).getName().str()
                       << "' (" << node.op_type() << ", opset " << opset->second
                       << ") has " << count(node.input_size(), "input")
                       << " and " << count(node.output_size(), "output")
                       << "; the op takes "
                       << range(arity->minInputs, arity->maxInputs, "input")
                       << " and "
                       << range(arity->minOutputs, arity->maxOutputs, "output");
        ok = false;
      }
    }
    for (const onnx::AttributeProto &attr : node.attribute())
      if (attr.type() == onnx::AttributeProto::GRAPH)
        ok &= checkArity(attr.g(), index);
  }
  return ok;
}

FailureOr<Type> Importer::convertType(const onnx::TypeProto &type,
                                      StringRef what) {
  if (!type.has_tensor_type()) {
    error() << what << " is not a tensor (sequences, maps and optionals are "
               "not supported)";
    return failure();
  }
  const onnx::TypeProto::Tensor &tensor = type.tensor_type();
  Type element = onnxElementType(ctx, tensor.elem_type());
  if (!element) {
    error() << what << " has element type "
            << onnxDataTypeName(tensor.elem_type()) << " ("
            << tensor.elem_type() << "), which tsc does not support";
    return failure();
  }
  if (!tensor.has_shape())
    return Type(UnrankedTensorType::get(element));
  SmallVector<int64_t> shape;
  for (const onnx::TensorShapeProto::Dimension &dim : tensor.shape().dim()) {
    if (dim.has_dim_value() && dim.dim_value() < 0) {
      error() << what << " has a dim of size " << dim.dim_value();
      return failure();
    }
    shape.push_back(dim.has_dim_value() ? dim.dim_value()
                                        : ShapedType::kDynamic);
  }
  return Type(RankedTensorType::get(shape, element));
}

FailureOr<Value> Importer::declareInput(const onnx::ValueInfoProto &input,
                                        Block &body) {
  std::string what = "graph input '" + input.name() + "'";
  FailureOr<Type> type = convertType(input.type(), what);
  if (failed(type))
    return failure();
  auto ranked = dyn_cast<RankedTensorType>(*type);
  if (!ranked) {
    error() << what << " has no shape; tsc needs the rank of every input";
    return failure();
  }
  Value arg = body.addArgument(ranked, NameLoc::get(
                                           builder.getStringAttr(input.name()),
                                           fileLoc));
  if (ranked.hasStaticShape())
    return arg;
  // Each dynamic dim is a symbol: named by its dim_param (inputs sharing a
  // name share the symbol), else named after the input and position.
  SmallVector<InputDim> dims;
  for (auto [i, dim] :
       llvm::enumerate(input.type().tensor_type().shape().dim())) {
    if (dim.has_dim_value())
      dims.push_back(dim.dim_value());
    else
      dims.push_back(dim.has_dim_param() && !dim.dim_param().empty()
                         ? dim.dim_param()
                         : input.name() + "_dim" + std::to_string(i));
  }
  symbols.bind(arg, dims);
  return arg;
}

FailureOr<Value> Importer::importInitializer(onnx::TensorProto &tensor) {
  FailureOr<ElementsAttr> value = tensors.read(tensor);
  if (failed(value))
    return failure();
  Location loc = NameLoc::get(builder.getStringAttr(tensor.name()), fileLoc);
  return ConstantOp::create(builder, loc, *value).getResult();
}

FailureOr<Attribute> Importer::convertAttribute(onnx::AttributeProto &attr,
                                                const onnx::NodeProto &node,
                                                unsigned &numSubgraphs) {
  switch (attr.type()) {
  case onnx::AttributeProto::FLOAT:
    return Attribute(builder.getF32FloatAttr(attr.f()));
  case onnx::AttributeProto::INT:
    return Attribute(builder.getI64IntegerAttr(attr.i()));
  case onnx::AttributeProto::STRING:
    return Attribute(builder.getStringAttr(attr.s()));
  case onnx::AttributeProto::FLOATS:
    return Attribute(builder.getDenseF32ArrayAttr(
        SmallVector<float>(attr.floats().begin(), attr.floats().end())));
  case onnx::AttributeProto::INTS:
    return Attribute(builder.getDenseI64ArrayAttr(
        SmallVector<int64_t>(attr.ints().begin(), attr.ints().end())));
  case onnx::AttributeProto::STRINGS: {
    SmallVector<Attribute> strings;
    for (const std::string &s : attr.strings())
      strings.push_back(builder.getStringAttr(s));
    return Attribute(builder.getArrayAttr(strings));
  }
  case onnx::AttributeProto::TENSOR: {
    FailureOr<ElementsAttr> value = tensors.read(*attr.mutable_t());
    if (failed(value))
      return failure();
    return Attribute(*value);
  }
  case onnx::AttributeProto::GRAPH:
    // The index of the node's region that importSubgraph fills.
    return Attribute(builder.getIndexAttr(numSubgraphs++));
  case onnx::AttributeProto::GRAPHS:
    // No standard op takes a list of graphs; keep a marker so the op is
    // reported.
    return Attribute(builder.getStringAttr("<subgraphs>"));
  default:
    error() << "node '" << node.name() << "' (" << node.op_type()
            << "): attribute '" << attr.name() << "' has unsupported type "
            << static_cast<int>(attr.type());
    return failure();
  }
}

Location Importer::nodeLoc(const onnx::NodeProto &node, size_t index) {
  std::string name = node.name().empty()
                         ? node.op_type() + "_" + std::to_string(index)
                         : node.name();
  // The module scope, where the exporter gives one, is a NameLoc inside
  // the node's: the plan's per-layer report reads layers from it.
  Location inner = fileLoc;
  if (std::string scope = moduleScope(node); !scope.empty())
    inner = NameLoc::get(builder.getStringAttr(scope), fileLoc);
  return NameLoc::get(builder.getStringAttr(name), inner);
}

LogicalResult Importer::importNode(onnx::NodeProto &node) {
  Location loc = nodeLoc(node, nodeIndex++);
  std::string domain = node.domain();
  if (domain.empty() || domain == "ai.onnx")
    domain = "onnx";
  auto opset = opsets.find(domain);
  if (opset == opsets.end()) {
    emitError(loc) << "node '" << cast<NameLoc>(loc).getName().str() << "' ("
                   << node.op_type() << ") uses domain '" << node.domain()
                   << "', which the model imports no opset of";
    return failure();
  }
  SmallVector<Value> inputs;
  for (const std::string &name : node.input()) {
    if (name.empty()) {
      inputs.push_back(NoneOp::create(builder, loc));
      continue;
    }
    Value value = values.lookup(name);
    if (!value) {
      emitError(loc) << "node '" << cast<NameLoc>(loc).getName().str()
                     << "' (" << node.op_type() << ") reads '" << name
                     << "', which no node, graph input or initializer "
                        "produces before it";
      return failure();
    }
    inputs.push_back(value);
  }
  SmallVector<NamedAttribute> attrs;
  unsigned numSubgraphs = 0;
  llvm::StringSet<> attrNames;
  for (onnx::AttributeProto &attr : *node.mutable_attribute()) {
    // One value per name (the subgraphs are found by name below).
    if (!attrNames.insert(attr.name()).second) {
      emitError(loc) << "node '" << cast<NameLoc>(loc).getName().str() << "' ("
                     << node.op_type() << ") has two attributes named '"
                     << attr.name() << "'";
      return failure();
    }
    FailureOr<Attribute> value = convertAttribute(attr, node, numSubgraphs);
    if (failed(value))
      return failure();
    attrs.push_back(builder.getNamedAttr(attr.name(), *value));
  }
  // Result types as far as ONNX shape inference (run before import) knows
  // them; `none` where it does not. Conversion patterns derive the real ones.
  SmallVector<Type> resultTypes;
  for (const std::string &name : node.output()) {
    Type type = builder.getNoneType();
    // Subgraph outputs may be declared without a type.
    const onnx::ValueInfoProto *info = valueInfos.lookup(name);
    if (info && info->type().value_case() != onnx::TypeProto::VALUE_NOT_SET) {
      FailureOr<Type> converted = convertType(info->type(), "'" + name + "'");
      if (failed(converted))
        return failure();
      type = *converted;
    }
    resultTypes.push_back(type);
  }
  auto foreign =
      ForeignOp::create(builder, loc, resultTypes, domain, node.op_type(),
                        static_cast<uint64_t>(opset->second), inputs,
                        builder.getDictionaryAttr(attrs), numSubgraphs);
  for (onnx::AttributeProto &attr : *node.mutable_attribute()) {
    if (attr.type() != onnx::AttributeProto::GRAPH)
      continue;
    auto index =
        cast<IntegerAttr>(foreign.getSourceAttributes().get(attr.name()));
    if (failed(importSubgraph(*attr.mutable_g(),
                              foreign.getSubgraphs()[index.getInt()], loc)))
      return failure();
  }
  for (auto [name, result] : llvm::zip_equal(node.output(), foreign.getResults()))
    if (!name.empty())
      values[name] = result;
  return success();
}

LogicalResult Importer::importSubgraph(onnx::GraphProto &graph, Region &region,
                                       Location loc) {
  OpBuilder::InsertionGuard guard(builder);
  Block *block = builder.createBlock(&region);
  // The subgraph sees the enclosing scopes' values; its own names shadow
  // them and end with it.
  llvm::StringMap<Value> outer = values;
  for (const auto *infos : {&graph.value_info(), &graph.output()})
    for (const onnx::ValueInfoProto &info : *infos)
      valueInfos[info.name()] = &info;
  // Formal inputs are typed where the node is converted, from what it
  // binds to them (a Scan body sees slices, a Loop body its carried values).
  for (const onnx::ValueInfoProto &input : graph.input())
    values[input.name()] = block->addArgument(
        builder.getNoneType(),
        NameLoc::get(builder.getStringAttr(input.name()), loc));
  for (onnx::TensorProto &init : *graph.mutable_initializer()) {
    FailureOr<Value> constant = importInitializer(init);
    if (failed(constant))
      return failure();
    values[init.name()] = *constant;
  }
  for (onnx::NodeProto &node : *graph.mutable_node())
    if (failed(importNode(node)))
      return failure();
  SmallVector<Value> results;
  for (const onnx::ValueInfoProto &output : graph.output()) {
    Value value = values.lookup(output.name());
    if (!value) {
      emitError(loc) << "subgraph '" << graph.name() << "' of node '"
                     << cast<NameLoc>(loc).getName().str() << "': output '"
                     << output.name()
                     << "' is not produced by any node, input or initializer";
      return failure();
    }
    results.push_back(value);
  }
  YieldOp::create(builder, loc, results);
  values = std::move(outer);
  return success();
}

FailureOr<OwningOpRef<ModuleOp>> Importer::run() {
  // No libonnx routine that trusts the message (shape inference, the
  // checker) runs on it: their preconditions are what a hostile model
  // breaks. Types come from the declarations and from conversion.
  if (failed(readModel()) || failed(checkOpsets()) || failed(checkGraph()))
    return failure();
  size_t index = 0;
  if (!checkArity(model.graph(), index))
    return failure();

  const onnx::GraphProto &graph = model.graph();
  for (const auto *infos : {&graph.value_info(), &graph.output()})
    for (const onnx::ValueInfoProto &info : *infos)
      valueInfos[info.name()] = &info;
  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  builder.setInsertionPointToEnd(module->getBody());
  std::string name = graph.name().empty() ? "main" : graph.name();
  auto func = func::FuncOp::create(builder, fileLoc, name,
                                   builder.getFunctionType({}, {}));
  Block *body = func.addEntryBlock();
  builder.setInsertionPointToStart(body);

  llvm::StringSet<llvm::MallocAllocator> initializerNames;
  for (const onnx::TensorProto &init : graph.initializer())
    initializerNames.insert(init.name());
  for (const onnx::ValueInfoProto &input : graph.input()) {
    if (initializerNames.contains(input.name()))
      continue; // an initializer with a default value, not a real input
    FailureOr<Value> arg = declareInput(input, *body);
    if (failed(arg))
      return failure();
    values[input.name()] = *arg;
  }
  for (onnx::TensorProto &init : *model.mutable_graph()->mutable_initializer()) {
    FailureOr<Value> constant = importInitializer(init);
    if (failed(constant))
      return failure();
    values[init.name()] = *constant;
    // Typed fields were copied into the blob: free the message's copy
    // (clear_* would keep the allocations), so the weights are in memory
    // once.
    onnx::TensorProto().Swap(&init);
  }
  for (onnx::NodeProto &node : *model.mutable_graph()->mutable_node())
    if (failed(importNode(node)))
      return failure();

  SmallVector<Value> results;
  SmallVector<Type> resultTypes;
  for (const onnx::ValueInfoProto &output : graph.output()) {
    Value value = values.lookup(output.name());
    if (!value) {
      error() << "graph output '" << output.name()
              << "' is not produced by any node, input or initializer";
      return failure();
    }
    results.push_back(value);
    resultTypes.push_back(value.getType());
  }
  func::ReturnOp::create(builder, fileLoc, results);
  SmallVector<Type> argTypes(body->getArgumentTypes());
  func.setType(builder.getFunctionType(argTypes, resultTypes));
  // Record the output names for the artifact's I/O signature, and the
  // declared types, which conversion checks against the computed ones.
  for (auto [i, output] : llvm::enumerate(graph.output())) {
    func.setResultAttr(i, "tsc.name", builder.getStringAttr(output.name()));
    if (output.type().value_case() == onnx::TypeProto::VALUE_NOT_SET)
      continue;
    FailureOr<Type> declared =
        convertType(output.type(), "graph output '" + output.name() + "'");
    if (failed(declared))
      return failure();
    func.setResultAttr(i, kDeclaredTypeAttr, TypeAttr::get(*declared));
  }
  for (auto [i, arg] : llvm::enumerate(func.getArguments()))
    func.setArgAttr(i, "tsc.name",
                    cast<NameLoc>(arg.getLoc()).getName());
  return module;
}

} // namespace

FailureOr<OwningOpRef<ModuleOp>>
mlir::tsc::importOnnxModel(MLIRContext *context,
                           const OnnxImportOptions &options) {
  context->loadDialect<TscDialect, func::FuncDialect>();
  return Importer(context, options).run();
}
