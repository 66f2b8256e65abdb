//===- TorchToTsc.cpp - the TorchScript-to-tsc pass, lists and scalars ----===//

#include "passes/conversion/TorchToTsc/TorchToTsc.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

namespace mlir::tsc {
#define GEN_PASS_DEF_CONVERTTORCHTOTSCPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tsc

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::foreign;
using namespace mlir::tsc::fromtorch;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

Type fromtorch::elementTypeOfScalarType(MLIRContext *ctx, int64_t code) {
  Builder b(ctx);
  switch (code) {
  case 0:
    return b.getIntegerType(8, /*isSigned=*/false);
  case 1:
    return b.getIntegerType(8);
  case 2:
    return b.getIntegerType(16);
  case 3:
    return b.getIntegerType(32);
  case 4:
    return b.getIntegerType(64);
  case 5:
    return b.getF16Type();
  case 6:
    return b.getF32Type();
  case 7:
    return b.getF64Type();
  case 11:
    return b.getI1Type();
  case 15:
    return b.getBF16Type();
  default:
    return {};
  }
}

int64_t fromtorch::scalarTypeOf(Type element) {
  for (int64_t code : {0, 1, 2, 3, 4, 5, 6, 7, 11, 15})
    if (elementTypeOfScalarType(element.getContext(), code) == element)
      return code;
  return -1;
}

StringRef fromtorch::overload(ForeignNode &node) {
  return node.getString("overload", "");
}

FailureOr<int64_t> fromtorch::intArg(ForeignNode &node, unsigned i) {
  FailureOr<SmallVector<int64_t>> values = node.constantInts(i);
  if (failed(values))
    return failure();
  if (values->size() != 1)
    return node.fail("argument #" + Twine(i) + " must be an int");
  return values->front();
}

FailureOr<double> fromtorch::scalarArg(ForeignNode &node, unsigned i,
                                       double absent) {
  if (!node.hasInput(i))
    return absent;
  return node.constantScalar(i);
}

FailureOr<Type> fromtorch::dtypeArg(ForeignNode &node, unsigned i,
                                    Type absent) {
  if (!node.hasInput(i))
    return absent;
  FailureOr<int64_t> code = intArg(node, i);
  if (failed(code))
    return failure();
  Type element = elementTypeOfScalarType(node.getContext(), *code);
  if (!element)
    return node.fail("torch dtype " + Twine(*code) + " is not supported");
  return element;
}

FailureOr<Value> fromtorch::castToDtypeArg(ForeignNode &node, Value x,
                                           unsigned i) {
  FailureOr<Type> element = dtypeArg(
      node, i, cast<RankedTensorType>(x.getType()).getElementType());
  if (failed(element))
    return failure();
  return castTo(node, x, *element);
}

FailureOr<SmallVector<TypedValue<RankedTensorType>>>
fromtorch::tensorList(ForeignNode &node, unsigned i) {
  if (i >= node.getNumInputs())
    return node.fail("argument #" + Twine(i) + " is required");
  auto list = node.getOp().getInputs()[i].getDefiningOp<ForeignOp>();
  if (!list || list.getDomain() != "prim" ||
      list.getOpType() != "ListConstruct")
    return node.fail("argument #" + Twine(i) +
                     " must be a list built in the graph (prim::ListConstruct)");
  SmallVector<TypedValue<RankedTensorType>> tensors;
  for (Value element : list.getInputs()) {
    if (element.getDefiningOp<ForeignOp>())
      return node.fail("an element of argument #" + Twine(i) +
                       " comes from a node not converted yet");
    auto tensor = dyn_cast<TypedValue<RankedTensorType>>(element);
    if (!tensor)
      return node.fail("an element of argument #" + Twine(i) +
                       " is not a tensor");
    tensors.push_back(tensor);
  }
  return tensors;
}

namespace {

/// bool < integer < float.
int category(Type element) {
  if (element.isInteger(1))
    return 0;
  return isa<IntegerType>(element) ? 1 : 2;
}

/// The wider of two element types of one category, or the one of the higher
/// category.
Type wider(Type a, Type b) {
  if (!a)
    return b;
  if (category(a) != category(b))
    return category(a) > category(b) ? a : b;
  unsigned wa = a.getIntOrFloatBitWidth(), wb = b.getIntOrFloatBitWidth();
  if (wa != wb)
    return wa > wb ? a : b;
  // f16 with bf16 gives f32, as in torch.
  if (a != b && isa<FloatType>(a))
    return Float32Type::get(a.getContext());
  return a;
}

} // namespace

Type fromtorch::promotedElementType(ArrayRef<Value> operands,
                                    ArrayRef<bool> zeroDimTensors) {
  Type dimensioned, zeroDim, scalar;
  for (auto [i, operand] : llvm::enumerate(operands)) {
    auto type = cast<RankedTensorType>(operand.getType());
    bool tensor = i < zeroDimTensors.size() && zeroDimTensors[i];
    Type &slot = type.getRank() > 0 ? dimensioned : tensor ? zeroDim : scalar;
    slot = wider(slot, type.getElementType());
  }
  if (!dimensioned && !zeroDim)
    return scalar;
  // A lower tier only raises the category (torch's combine_categories).
  Type tensors = dimensioned;
  if (!tensors || (zeroDim && category(zeroDim) > category(tensors)))
    tensors = zeroDim;
  if (scalar && category(scalar) > category(tensors))
    return category(scalar) == 2 ? Float32Type::get(scalar.getContext())
                                 : scalar;
  return tensors;
}

SmallVector<Value> fromtorch::promoted(ForeignNode &node,
                                       ArrayRef<Value> operands,
                                       ArrayRef<bool> zeroDimTensors) {
  Type element = promotedElementType(operands, zeroDimTensors);
  SmallVector<Value> out;
  for (Value operand : operands)
    out.push_back(castTo(node, operand, element));
  return out;
}

//===----------------------------------------------------------------------===//
// prim:: ops and Python scalars
//===----------------------------------------------------------------------===//

namespace {

/// prim::ListConstruct: an int[] becomes a 1-D i64 tensor once its elements
/// are known; a Tensor[] is read by its consumer and vanishes with it.
FailureOr<Values> convertListConstruct(ForeignNode &node) {
  ForeignOp op = node.getOp();
  if (op->use_empty())
    return Values{};
  SmallVector<OpFoldResult> elements;
  for (unsigned i = 0; i < node.getNumInputs(); ++i) {
    auto element = node.input(i);
    if (failed(element))
      return failure();
    if (element->getType().getRank() != 0 ||
        !isa<IntegerType>(element->getType().getElementType()))
      return node.fail("a list of tensors is converted with the op that "
                       "reads it");
    FailureOr<SmallVector<OpFoldResult>> value = node.shapeElements(i);
    if (failed(value))
      return failure();
    elements.push_back(value->front());
  }
  return Values{buildShapeTensor(node.getRewriter(), node.getLoc(), elements)};
}

/// prim::ListUnpack of an int[] the importer could not resolve.
FailureOr<Values> convertListUnpack(ForeignNode &node) {
  FailureOr<SmallVector<OpFoldResult>> elements = node.shapeElements(0);
  if (failed(elements))
    return failure();
  if (elements->size() != node.getOp().getNumResults())
    return node.fail("unpacks " + Twine(node.getOp().getNumResults()) +
                     " values from a list of " + Twine(elements->size()));
  Values out;
  for (OpFoldResult element : *elements)
    out.push_back(buildShapeTensor(node.getRewriter(), node.getLoc(),
                                   {element}, /*scalar=*/true));
  return out;
}

/// Scalars are 0-d tensors already: NumToTensor, ScalarImplicit and the
/// like are identities.
FailureOr<Values> convertIdentity(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  return Values{*x};
}

/// aten::Int, aten::Float, aten::Bool: a 0-d tensor or scalar as a Python
/// scalar of that kind.
template <unsigned width, bool isFloat>
FailureOr<Values> convertScalarCast(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  if (x->getType().getNumElements() != 1)
    return node.fail("needs a one-element tensor");
  Builder b(node.getContext());
  Type element = isFloat ? Type(b.getF64Type()) : b.getIntegerType(width);
  Value scalar = node.reshape(*x, {});
  return Values{castTo(node, scalar, element)};
}

/// prim::dtype: the ScalarType code of a tensor's element type.
FailureOr<Values> convertDtype(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  int64_t code = scalarTypeOf(x->getType().getElementType());
  if (code < 0)
    return node.fail("element type has no torch dtype");
  return Values{node.scalar(node.getRewriter().getI64Type(), code)};
}

/// prim::device and other values converters take as attributes.
FailureOr<Values> convertToNone(ForeignNode &node) {
  return Values{NoneOp::create(node.getRewriter(), node.getLoc())};
}

/// aten::size(x) (a list, or its unpacked elements) and aten::size(x, dim).
FailureOr<Values> convertSize(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  RewriterBase &rw = node.getRewriter();
  int64_t rank = x->getType().getRank();
  if (node.getNumInputs() > 1) {
    FailureOr<int64_t> dim = intArg(node, 1);
    if (failed(dim))
      return failure();
    FailureOr<int64_t> axis = node.axis(*dim, rank);
    if (failed(axis))
      return failure();
    return Values{buildShapeTensor(rw, node.getLoc(),
                                   {node.dimSize(*x, *axis)}, true)};
  }
  if (node.hasAttr("unpacked")) {
    if (node.getOp().getNumResults() != static_cast<unsigned>(rank))
      return node.fail("unpacks " + Twine(node.getOp().getNumResults()) +
                       " sizes of a rank-" + Twine(rank) + " tensor");
    Values out;
    for (int64_t d = 0; d < rank; ++d)
      out.push_back(
          buildShapeTensor(rw, node.getLoc(), {node.dimSize(*x, d)}, true));
    return out;
  }
  return Values{buildShapeTensor(rw, node.getLoc(), node.sizes(*x))};
}

FailureOr<Values> convertDim(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  return Values{node.scalar(node.getRewriter().getI64Type(),
                            x->getType().getRank())};
}

FailureOr<Values> convertNumel(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  return Values{buildNumel(node, *x)};
}

/// aten::__getitem__ on an int[] (`x.size()[1]`).
FailureOr<Values> convertGetItem(ForeignNode &node) {
  FailureOr<SmallVector<OpFoldResult>> list = node.shapeElements(0);
  FailureOr<int64_t> index = intArg(node, 1);
  if (failed(list) || failed(index))
    return failure();
  int64_t size = static_cast<int64_t>(list->size());
  int64_t i = *index < 0 ? *index + size : *index;
  if (i < 0 || i >= size)
    return node.fail("index " + Twine(*index) + " is out of range for a "
                     "list of " + Twine(size));
  return Values{buildShapeTensor(node.getRewriter(), node.getLoc(),
                                 {(*list)[i]}, /*scalar=*/true)};
}

FailureOr<Values> convertLen(ForeignNode &node) {
  auto list = node.input(0);
  if (failed(list))
    return failure();
  if (list->getType().getRank() != 1 || list->getType().isDynamicDim(0))
    return node.fail("length of a list of unknown size");
  return Values{node.scalar(node.getRewriter().getI64Type(),
                            list->getType().getDimSize(0))};
}

/// Checks torch.export records (_assert_tensor_metadata and the like):
/// no results, nothing to compute.
FailureOr<Values> convertToNothing(ForeignNode &node) { return Values{}; }

} // namespace

void fromtorch::populatePrimConverters(ForeignConverters &c) {
  c.add("prim::ListConstruct", 0, convertListConstruct);
  c.add("prim::ListUnpack", 0, convertListUnpack);
  c.add("prim::NumToTensor", 0, convertIdentity);
  c.add("aten::ScalarImplicit", 0, convertIdentity);
  c.add("prim::dtype", 0, convertDtype);
  c.add("prim::device", 0, convertToNone);
  c.add("aten::Int", 0, convertScalarCast<64, false>);
  c.add("aten::Float", 0, convertScalarCast<64, true>);
  c.add("aten::Bool", 0, convertScalarCast<1, false>);
  c.add("aten::size", 0, convertSize);
  c.add("aten::dim", 0, convertDim);
  c.add("aten::numel", 0, convertNumel);
  // torch.export's symbolic size ops.
  c.add("aten::sym_size", 0, convertSize);
  c.add("aten::sym_numel", 0, convertNumel);
  c.add("aten::_assert_tensor_metadata", 0, convertToNothing);
  c.add("aten::__getitem__", 0, convertGetItem);
  c.add("aten::len", 0, convertLen);
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

namespace {

struct ConvertTorchToTscPass
    : public tsc::impl::ConvertTorchToTscPassBase<ConvertTorchToTscPass> {
  using ConvertTorchToTscPassBase::ConvertTorchToTscPassBase;

  LogicalResult initialize(MLIRContext *ctx) override {
    conversion.initialize(ctx, [](ForeignConverters &c) {
      populatePrimConverters(c);
      populateElementwiseConverters(c);
      populateShapeConverters(c);
      populateNNConverters(c);
    });
    return success();
  }

  void runOnOperation() override {
    if (failed(conversion.run(getOperation(), allowUnsupported)))
      signalPassFailure();
  }

  ForeignConversion conversion{"TorchScript", isTorchDomain};
};

} // namespace
