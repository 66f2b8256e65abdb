//===- GraphImporter.cpp - torch.export nodes into tsc.foreign ops --------===//

#include "compiler/importers/torch_export/GraphImporter.h"
#include "compiler/importers/torch_export/AtenSchemas.h"
#include "dialects/tsc/IR/TscOps.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::tsc;
namespace json = llvm::json;

int64_t tsc::scalarTypeCode(int64_t dtype) {
  // uint8, int8, int16, int32, int64, float16, float32, float64, bool,
  // bfloat16.
  static constexpr std::pair<int64_t, int64_t> kCodes[] = {
      {1, 0}, {2, 1}, {3, 2}, {4, 3},   {5, 4},
      {6, 5}, {7, 6}, {8, 7}, {12, 11}, {13, 15}};
  for (auto [serialized, code] : kCodes)
    if (serialized == dtype)
      return code;
  return -1;
}

namespace {

/// The value an argument holds: its one member (`as_tensor`, `as_int`, ...).
std::pair<StringRef, const json::Value *> member(const json::Object *arg) {
  if (!arg || arg->size() != 1)
    return {"", nullptr};
  return {arg->begin()->first, &arg->begin()->second};
}

/// The name in `{"name": ...}` (a TensorArgument) or `{"as_name": ...}` (a
/// symbolic value).
std::optional<StringRef> nameOf(const json::Value *value) {
  const json::Object *object = value ? value->getAsObject() : nullptr;
  if (!object)
    return std::nullopt;
  if (auto name = object->getString("name"))
    return name;
  return object->getString("as_name");
}

} // namespace

InFlightDiagnostic GraphImporter::error(Location loc) {
  return emitError(loc) << "torch.export archive '" << path << "': ";
}

FailureOr<Value> GraphImporter::lookup(StringRef name, Location loc) {
  Value value = values.lookup(name);
  if (!value) {
    error(loc) << "'" << name << "' is read before anything produces it";
    return failure();
  }
  return value;
}

Location GraphImporter::nodeLoc(const json::Object &node, unsigned index) {
  // `/model/encoder/layer.0/attention/linear_3`: the innermost module's path
  // from nn_module_stack (`key,path,type;...`), items of containers joined
  // to it by a dot as torch.onnx names nodes, then the node's name.
  std::string name;
  const json::Object *metadata = node.getObject("metadata");
  std::optional<StringRef> stack =
      metadata ? metadata->getString("nn_module_stack") : std::nullopt;
  if (stack && !stack->empty()) {
    StringRef innermost = stack->rsplit(';').second;
    if (innermost.empty())
      innermost = *stack;
    StringRef modulePath = innermost.split(',').second.split(',').first;
    SmallVector<StringRef> parts;
    modulePath.split(parts, '.', -1, /*KeepEmpty=*/false);
    for (StringRef part : parts)
      name += (llvm::all_of(part, llvm::isDigit) && !name.empty() ? "." : "/") +
              part.str();
  }
  std::optional<StringRef> nodeName = node.getString("name");
  name += "/" + (nodeName ? nodeName->str() : "node_" + std::to_string(index));
  return NameLoc::get(builder.getStringAttr(name), fileLoc);
}

Value GraphImporter::intConstant(Location loc, Type element,
                                 ArrayRef<int64_t> shape,
                                 ArrayRef<int64_t> values) {
  auto type = RankedTensorType::get(shape, element);
  if (element.isInteger(1)) {
    SmallVector<bool> bits;
    for (int64_t v : values)
      bits.push_back(v != 0);
    return ConstantOp::create(
        builder, loc, DenseElementsAttr::get(type, ArrayRef<bool>(bits)));
  }
  return ConstantOp::create(builder, loc, DenseElementsAttr::get(type, values));
}

Value GraphImporter::constant(Location loc, Type element,
                              ArrayRef<int64_t> shape,
                              ArrayRef<double> values) {
  if (!isa<FloatType>(element)) {
    SmallVector<int64_t> ints;
    for (double v : values)
      ints.push_back(static_cast<int64_t>(v));
    return intConstant(loc, element, shape, ints);
  }
  auto type = RankedTensorType::get(shape, element);
  DenseElementsAttr attr = DenseElementsAttr::get(type, values);
  return ConstantOp::create(builder, loc, attr);
}

LogicalResult
GraphImporter::importArgument(Argument arg, Location loc,
                              SmallVectorImpl<Value> &operands,
                              SmallVectorImpl<NamedAttribute> &attrs) {
  std::pair<StringRef, const json::Value *> held = member(arg.value);
  StringRef kind = held.first;
  const json::Value *value = held.second;
  auto fail = [&]() {
    error(loc) << "node '" << cast<NameLoc>(loc).getName().str()
               << "': argument '" << arg.name << "' ("
               << (kind.empty() ? StringRef("malformed") : kind)
               << ") is not supported";
    return failure();
  };
  if (!value)
    return fail();
  auto attrName = arg.name.empty() ? "arg" + std::to_string(operands.size())
                                   : arg.name.str();
  auto record = [&](Attribute attr) {
    attrs.push_back(builder.getNamedAttr(attrName, attr));
  };
  Type i64 = builder.getIntegerType(64), f64 = builder.getF64Type(),
       i1 = builder.getI1Type();
  // A list of ints, floats, bools or symbols (Python scalars and SymInts).
  auto list = [&](Type element) -> LogicalResult {
    const json::Array *items = value->getAsArray();
    if (!items)
      return fail();
    bool isFloat = isa<FloatType>(element);
    SmallVector<int64_t> ints;
    SmallVector<double> floats;
    SmallVector<Value> elements;
    bool symbolic = false;
    for (const json::Value &item : *items) {
      const json::Object *object = item.getAsObject();
      const json::Value *number = &item;
      if (object) {
        if (auto name = object->getString("as_name")) {
          FailureOr<Value> symbol = lookup(*name, loc);
          if (failed(symbol))
            return failure();
          elements.push_back(*symbol);
          symbolic = true;
          continue;
        }
        number = object->size() == 1 ? &object->begin()->second : nullptr;
      }
      std::optional<int64_t> i = number ? number->getAsInteger() : std::nullopt;
      if (auto b = number ? number->getAsBoolean() : std::nullopt)
        i = *b;
      std::optional<double> f = number ? number->getAsNumber() : std::nullopt;
      if (isFloat ? !f : !i)
        return fail();
      if (isFloat)
        floats.push_back(*f);
      else
        ints.push_back(*i);
      elements.push_back(Value());
    }
    if (!symbolic) {
      int64_t size = static_cast<int64_t>(items->size());
      if (isFloat) {
        record(builder.getDenseF64ArrayAttr(floats));
        operands.push_back(constant(loc, element, {size}, floats));
      } else {
        if (!element.isInteger(1))
          record(builder.getDenseI64ArrayAttr(ints));
        operands.push_back(intConstant(loc, element, {size}, ints));
      }
      return success();
    }
    // A list with symbols is built in the graph, as TorchScript does.
    size_t next = 0;
    for (Value &e : elements) {
      if (e)
        continue;
      e = isFloat ? constant(loc, element, {}, floats[next])
                  : intConstant(loc, element, {}, ints[next]);
      ++next;
    }
    operands.push_back(ForeignOp::create(builder, loc,
                                         TypeRange{builder.getNoneType()},
                                         "prim", "ListConstruct", 0, elements,
                                         builder.getDictionaryAttr({}),
                                         /*subgraphsCount=*/0)
                           .getResult(0));
    return success();
  };

  if (kind == "as_tensor" || kind == "as_sym_int" || kind == "as_sym_float" ||
      kind == "as_sym_bool" || kind == "as_optional_tensor") {
    const json::Object *object = value->getAsObject();
    // SymInt arguments may hold a plain number (`{"as_int": 3}`), an
    // optional tensor None (`{"as_none": true}`).
    if (object && object->size() == 1 && !nameOf(value)) {
      StringRef inner = object->begin()->first;
      if (inner == "as_none") {
        operands.push_back(NoneOp::create(builder, loc));
        return success();
      }
      if (inner != "as_tensor" && inner != "as_int" && inner != "as_float" &&
          inner != "as_bool")
        return fail();
      return importArgument({arg.name, object}, loc, operands, attrs);
    }
    std::optional<StringRef> name = nameOf(value);
    if (!name)
      return fail();
    FailureOr<Value> v = lookup(*name, loc);
    if (failed(v))
      return failure();
    operands.push_back(*v);
    return success();
  }
  if (kind == "as_none" || kind == "as_layout" || kind == "as_memory_format") {
    operands.push_back(NoneOp::create(builder, loc));
    return success();
  }
  if (kind == "as_int" || kind == "as_bool") {
    std::optional<int64_t> i =
        kind == "as_bool"
            ? std::optional<int64_t>(value->getAsBoolean().value_or(false))
            : value->getAsInteger();
    if (!i || (kind == "as_bool" && !value->getAsBoolean()))
      return fail();
    if (kind == "as_bool")
      record(builder.getBoolAttr(*i));
    else
      record(builder.getI64IntegerAttr(*i));
    operands.push_back(intConstant(loc, kind == "as_bool" ? i1 : i64, {}, *i));
    return success();
  }
  if (kind == "as_float") {
    // Non-finite floats are written as strings ("inf", "-inf", "nan").
    std::optional<double> f = value->getAsNumber();
    if (auto text = value->getAsString())
      f = llvm::StringSwitch<std::optional<double>>(*text)
              .Case("inf", INFINITY)
              .Case("-inf", -INFINITY)
              .Case("nan", NAN)
              .Default(std::nullopt);
    if (!f)
      return fail();
    record(builder.getF64FloatAttr(*f));
    operands.push_back(constant(loc, f64, {}, *f));
    return success();
  }
  if (kind == "as_scalar_type") {
    std::optional<int64_t> dtype = value->getAsInteger();
    int64_t code = dtype ? scalarTypeCode(*dtype) : -1;
    if (code < 0) {
      error(loc) << "node '" << cast<NameLoc>(loc).getName().str()
                 << "': dtype " << (dtype ? *dtype : -1)
                 << " (schema.py's ScalarType) is not supported";
      return failure();
    }
    record(builder.getI64IntegerAttr(code));
    operands.push_back(intConstant(loc, i64, {}, code));
    return success();
  }
  if (kind == "as_string" || kind == "as_device") {
    std::optional<StringRef> text = value->getAsString();
    if (kind == "as_device")
      if (const json::Object *device = value->getAsObject())
        text = device->getString("type");
    if (!text)
      return fail();
    record(builder.getStringAttr(*text));
    operands.push_back(NoneOp::create(builder, loc));
    return success();
  }
  if (kind == "as_ints" || kind == "as_sym_ints")
    return list(i64);
  if (kind == "as_floats" || kind == "as_sym_floats")
    return list(f64);
  if (kind == "as_bools" || kind == "as_sym_bools")
    return list(i1);
  if (kind == "as_tensors" || kind == "as_optional_tensors") {
    const json::Array *items = value->getAsArray();
    if (!items)
      return fail();
    SmallVector<Value> elements;
    for (const json::Value &item : *items) {
      const json::Object *object = item.getAsObject();
      if (object && object->getBoolean("as_none")) {
        elements.push_back(NoneOp::create(builder, loc));
        continue;
      }
      std::optional<StringRef> name = nameOf(&item);
      if (!name && object)
        if (const json::Object *inner = object->getObject("as_tensor"))
          name = inner->getString("name");
      if (!name)
        return fail();
      FailureOr<Value> v = lookup(*name, loc);
      if (failed(v))
        return failure();
      elements.push_back(*v);
    }
    operands.push_back(ForeignOp::create(builder, loc,
                                         TypeRange{builder.getNoneType()},
                                         "prim", "ListConstruct", 0, elements,
                                         builder.getDictionaryAttr({}),
                                         /*subgraphsCount=*/0)
                           .getResult(0));
    return success();
  }
  return fail();
}

Value GraphImporter::importDefault(StringRef name, StringRef text,
                                   SmallVectorImpl<NamedAttribute> &attrs,
                                   Location loc) {
  auto record = [&](Attribute attr) {
    attrs.push_back(builder.getNamedAttr(name, attr));
  };
  Type i64 = builder.getIntegerType(64);
  if (text == "True" || text == "False") {
    record(builder.getBoolAttr(text == "True"));
    return intConstant(loc, builder.getI1Type(), {}, text == "True" ? 1 : 0);
  }
  if (text.size() >= 2 && text.starts_with("'") && text.ends_with("'")) {
    record(builder.getStringAttr(text.drop_front().drop_back()));
    return NoneOp::create(builder, loc);
  }
  if (text.starts_with("[") && text.ends_with("]")) {
    SmallVector<StringRef> items;
    text.drop_front().drop_back().split(items, ' ', -1, false);
    SmallVector<int64_t> ints;
    for (StringRef item : items) {
      int64_t v;
      if (item.getAsInteger(10, v))
        return NoneOp::create(builder, loc);
      ints.push_back(v);
    }
    record(builder.getDenseI64ArrayAttr(ints));
    return intConstant(loc, i64, {static_cast<int64_t>(ints.size())}, ints);
  }
  int64_t i;
  if (!text.getAsInteger(10, i)) {
    record(builder.getI64IntegerAttr(i));
    return intConstant(loc, i64, {}, i);
  }
  double f;
  if (!text.getAsDouble(f)) {
    record(builder.getF64FloatAttr(f));
    return constant(loc, builder.getF64Type(), {}, f);
  }
  // None, and enum defaults (layouts, memory formats) converters ignore.
  return NoneOp::create(builder, loc);
}

LogicalResult GraphImporter::inlineWrapper(const json::Object &node,
                                           ArrayRef<Argument> args,
                                           Location loc) {
  // wrap_with_set_grad_enabled(enabled, graph, *operands),
  // wrap_with_autocast(device, dtype, enabled, cache, graph, *operands):
  // the operands follow the subgraph.
  const json::Object *graph = nullptr;
  SmallVector<Value> operands;
  for (Argument arg : args) {
    auto [kind, value] = member(arg.value);
    if (kind == "as_graph") {
      const json::Object *wrapper = value->getAsObject();
      graph = wrapper ? wrapper->getObject("graph") : nullptr;
      if (!graph)
        break;
      continue;
    }
    if (!graph)
      continue;
    SmallVector<NamedAttribute> ignored;
    if (failed(importArgument(arg, loc, operands, ignored)))
      return failure();
  }
  const json::Array *inputs = graph ? graph->getArray("inputs") : nullptr;
  const json::Array *outputs = graph ? graph->getArray("outputs") : nullptr;
  const json::Array *nodeOutputs = node.getArray("outputs");
  if (!inputs || !outputs || !nodeOutputs ||
      inputs->size() != operands.size() ||
      outputs->size() != nodeOutputs->size()) {
    error(loc) << "node '" << cast<NameLoc>(loc).getName().str()
               << "': its subgraph does not match its operands and results";
    return failure();
  }
  for (auto [input, operand] : llvm::zip(*inputs, operands)) {
    std::optional<StringRef> name = nameOf(member(input.getAsObject()).second);
    if (!name)
      return error(loc) << "a subgraph input is not a named value", failure();
    values[*name] = operand;
  }
  if (failed(importNodes(*graph)))
    return failure();
  for (auto [inner, outer] : llvm::zip(*outputs, *nodeOutputs)) {
    std::optional<StringRef> from = nameOf(member(inner.getAsObject()).second);
    std::optional<StringRef> to = nameOf(member(outer.getAsObject()).second);
    if (!from || !to)
      return error(loc) << "a subgraph output is not a named value", failure();
    FailureOr<Value> value = lookup(*from, loc);
    if (failed(value))
      return failure();
    values[*to] = *value;
  }
  return success();
}

LogicalResult GraphImporter::importNode(const json::Object &node,
                                        unsigned index) {
  Location loc = nodeLoc(node, index);
  std::optional<StringRef> target = node.getString("target");
  const json::Array *inputs = node.getArray("inputs");
  const json::Array *outputs = node.getArray("outputs");
  if (!target || !inputs || !outputs) {
    error(loc) << "node #" << index << " is malformed";
    return failure();
  }
  SmallVector<Argument> args;
  for (const json::Value &input : *inputs) {
    const json::Object *named = input.getAsObject();
    const json::Object *arg = named ? named->getObject("arg") : nullptr;
    std::optional<StringRef> name =
        named ? named->getString("name") : std::nullopt;
    if (!arg || !name) {
      error(loc) << "node '" << cast<NameLoc>(loc).getName().str()
                 << "' has a malformed argument";
      return failure();
    }
    args.push_back({*name, arg});
  }

  // `torch.ops.aten.linear.default` is aten::linear, default overload;
  // `_operator.mul` is Python's operator on symbols;
  // `torch.ops.higher_order.X` wraps a subgraph.
  StringRef domain, op, overload = "default";
  StringRef rest = *target;
  if (rest.consume_front("torch.ops.")) {
    SmallVector<StringRef> parts;
    rest.split(parts, '.');
    domain = parts[0];
    op = parts.size() > 1 ? parts[1] : "";
    if (parts.size() > 2)
      overload = parts[2];
  } else {
    std::tie(domain, op) = rest.rsplit('.');
  }
  // Python's operators on symbols are TorchScript's int ops (aten::mul.int,
  // aten::div.int for `/`, aten::remainder.int for `%`), with positional
  // arguments.
  bool positional = false;
  if (domain == "_operator" || domain == "operator") {
    domain = "aten";
    op = llvm::StringSwitch<StringRef>(op)
             .Case("truediv", "div")
             .Case("mod", "remainder")
             .Case("and_", "__and__")
             .Case("or_", "__or__")
             .Default(op);
    overload = "int";
    positional = true;
  }
  if (domain == "higher_order" &&
      (op == "wrap_with_set_grad_enabled" || op == "wrap_with_autocast"))
    return inlineWrapper(node, args, loc);

  SmallVector<Value> operands;
  SmallVector<NamedAttribute> attrs;
  std::optional<SmallVector<AtenArgument>> schema;
  if (domain == "aten" && !positional)
    schema = lookupAtenSchema(op, overload);
  if (schema) {
    // Every argument at its place in the schema; defaults filled in.
    SmallVector<const Argument *> placed(schema->size(), nullptr);
    for (const Argument &arg : args) {
      auto *it = llvm::find_if(
          *schema, [&](const AtenArgument &a) { return a.name == arg.name; });
      if (it == schema->end()) {
        error(loc) << "node '" << cast<NameLoc>(loc).getName().str() << "' ("
                   << *target << ") has an argument '" << arg.name
                   << "' its schema does not have";
        return failure();
      }
      placed[it - schema->begin()] = &arg;
    }
    for (auto [arg, schemaArg] : llvm::zip(placed, *schema)) {
      if (arg) {
        if (failed(importArgument(*arg, loc, operands, attrs)))
          return failure();
      } else if (schemaArg.defaultValue) {
        operands.push_back(
            importDefault(schemaArg.name, *schemaArg.defaultValue, attrs, loc));
      } else {
        error(loc) << "node '" << cast<NameLoc>(loc).getName().str() << "' ("
                   << *target << ") lacks its required argument '"
                   << schemaArg.name << "'";
        return failure();
      }
    }
  } else {
    for (const Argument &arg : args)
      if (failed(importArgument(arg, loc, operands, attrs)))
        return failure();
  }
  if (overload != "default")
    attrs.push_back(
        builder.getNamedAttr("overload", builder.getStringAttr(overload)));

  // Results: one per tensor or symbol; a list of tensors (split, unbind)
  // gives one result per element, as TorchScript's unpacked lists.
  SmallVector<std::optional<StringRef>> names;
  for (const json::Value &output : *outputs) {
    auto [kind, value] = member(output.getAsObject());
    if (kind == "as_tensors") {
      const json::Array *items = value->getAsArray();
      if (!items)
        return error(loc) << "node '" << cast<NameLoc>(loc).getName().str()
                          << "' has a malformed output list",
               failure();
      for (const json::Value &item : *items)
        names.push_back(nameOf(&item));
      attrs.push_back(builder.getNamedAttr("unpacked", builder.getUnitAttr()));
      continue;
    }
    names.push_back(kind == "as_none" ? std::nullopt : nameOf(value));
  }
  SmallVector<Type> resultTypes(names.size(), builder.getNoneType());
  auto foreign = ForeignOp::create(builder, loc, resultTypes, domain, op, 0,
                                   operands, builder.getDictionaryAttr(attrs),
                                   /*subgraphsCount=*/0);
  for (auto [name, result] : llvm::zip(names, foreign.getResults()))
    if (name)
      values[*name] = result;
  return success();
}

LogicalResult GraphImporter::importNodes(const json::Object &graph) {
  const json::Array *nodes = graph.getArray("nodes");
  if (!nodes) {
    error(fileLoc) << "a graph has no nodes list";
    return failure();
  }
  for (auto [i, node] : llvm::enumerate(*nodes)) {
    const json::Object *object = node.getAsObject();
    if (!object) {
      error(fileLoc) << "node #" << i << " is not an object";
      return failure();
    }
    if (failed(importNode(*object, i)))
      return failure();
  }
  return success();
}
