//===- ForeignNode.cpp - node helpers, registry and conversion driver ----===//

#include "passes/conversion/Foreign/ForeignNode.h"
#include "dialects/tsc/IR/TscAttrNames.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/MapVector.h"

#include <map>

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::foreign;

bool foreign::isTorchDomain(ForeignOp op) {
  // torch.export archives add the namespaces of other torch.ops
  // (`higher_order`, `prims`) and of Python builtins (`torch.sym_max`).
  return llvm::is_contained({"aten", "prim", "prims", "higher_order", "torch"},
                            op.getDomain());
}

/// The op's name in messages: `Gelu` for the ONNX standard domain,
/// `com.microsoft::FastGelu` for others, `aten::gelu` for TorchScript.
static std::string opName(ForeignOp op) {
  if (op.getDomain() == "onnx")
    return op.getOpType().str();
  return (op.getDomain() + "::" + op.getOpType()).str();
}

/// `Gelu, opset 20`, `com.microsoft::FastGelu, opset 1` or `aten::gelu`.
static std::string describeOp(ForeignOp op) {
  if (isTorchDomain(op))
    return opName(op);
  return (opName(op) + ", opset " + Twine(op.getVersion())).str();
}

//===----------------------------------------------------------------------===//
// ForeignNode
//===----------------------------------------------------------------------===//

std::string ForeignNode::getName() {
  if (auto name = dyn_cast<NameLoc>(getLoc()))
    return name.getName().str();
  std::string text;
  llvm::raw_string_ostream(text) << getLoc();
  return text;
}

std::string ForeignNode::describe() { return describeOp(op); }

LogicalResult ForeignNode::fail(const Twine &reason) {
  // After a missing dim was read, that is the node's one message.
  if (diagnose && !missingDim)
    emitError(getLoc()) << (isTorchDomain(op) ? "TorchScript" : "ONNX")
                        << " node '" << getName() << "' (" << describe()
                        << "): " << reason;
  return failure();
}

bool ForeignNode::hasInput(unsigned i) {
  // Omitted inputs are tsc.none; a `none`-typed result of a node not
  // converted yet is an input that is there (and not ready).
  return i < getNumInputs() && !op.getInputs()[i].getDefiningOp<NoneOp>();
}

FailureOr<TypedValue<RankedTensorType>> ForeignNode::input(unsigned i) {
  if (!hasInput(i))
    return fail("input #" + Twine(i) + " is required");
  Value value = op.getInputs()[i];
  // Types of unconverted producers are ONNX's guesses; wait for the real one.
  if (value.getDefiningOp<ForeignOp>())
    return fail("input #" + Twine(i) + " comes from a node not converted yet");
  if (auto tensor = dyn_cast<TypedValue<RankedTensorType>>(value))
    return tensor;
  return fail("input #" + Twine(i) + " is not a ranked tensor");
}

FailureOr<Block *> ForeignNode::subgraph(StringRef name) {
  auto index =
      dyn_cast_or_null<IntegerAttr>(op.getSourceAttributes().get(name));
  if (!index || !index.getType().isIndex() ||
      index.getInt() >= static_cast<int64_t>(op.getSubgraphs().size()) ||
      op.getSubgraphs()[index.getInt()].empty())
    return fail("graph attribute '" + name + "' is missing");
  return &op.getSubgraphs()[index.getInt()].front();
}

/// Set on the function while the driver's second round runs: everything
/// that folds has folded.
static constexpr StringLiteral kSettled = "tsc.foreign_settled";

/// Set on a foreign node made during the settled round, until the next.
static constexpr StringLiteral kFresh = "tsc.foreign_fresh";

bool ForeignNode::isSettled() {
  auto func = op->getParentOfType<func::FuncOp>();
  return diagnose || (func && func->hasAttr(kSettled) && !op->hasAttr(kFresh));
}

void ForeignNode::noteCreated(Operation *created) {
  auto func = op->getParentOfType<func::FuncOp>();
  if (func && func->hasAttr(kSettled) && isa<ForeignOp>(created))
    created->setAttr(kFresh, UnitAttr::get(created->getContext()));
}

bool ForeignNode::isOutputUsed(unsigned i) {
  return i < op.getNumResults() && !op.getResult(i).use_empty();
}

FailureOr<Value> ForeignNode::optionalInput(unsigned i) {
  if (!hasInput(i))
    return Value();
  FailureOr<TypedValue<RankedTensorType>> value = input(i);
  if (failed(value))
    return failure();
  return Value(*value);
}

int64_t ForeignNode::getInt(StringRef name, int64_t defaultValue) {
  if (auto attr = op.getSourceAttributes().getAs<IntegerAttr>(name))
    return attr.getInt();
  return defaultValue;
}

float ForeignNode::getFloat(StringRef name, float defaultValue) {
  if (auto attr = op.getSourceAttributes().getAs<FloatAttr>(name))
    return attr.getValueAsDouble();
  return defaultValue;
}

StringRef ForeignNode::getString(StringRef name, StringRef defaultValue) {
  if (auto attr = op.getSourceAttributes().getAs<StringAttr>(name))
    return attr.getValue();
  return defaultValue;
}

std::optional<SmallVector<int64_t>> ForeignNode::getInts(StringRef name) {
  if (auto attr = op.getSourceAttributes().getAs<DenseI64ArrayAttr>(name))
    return SmallVector<int64_t>(attr.asArrayRef());
  return std::nullopt;
}

FailureOr<SmallVector<int64_t>> ForeignNode::constantInts(unsigned i) {
  if (failed(input(i)))
    return failure();
  DenseIntElementsAttr attr;
  if (!matchPattern(op.getInputs()[i], m_Constant(&attr)))
    return fail("input #" + Twine(i) + " must be a constant");
  SmallVector<int64_t> values;
  for (const APInt &v : attr.getValues<APInt>())
    values.push_back(v.getSExtValue());
  return values;
}

FailureOr<double> ForeignNode::constantScalar(unsigned i) {
  if (failed(input(i)))
    return failure();
  ElementsAttr attr;
  if (!matchPattern(op.getInputs()[i], m_Constant(&attr)) ||
      attr.getNumElements() != 1)
    return fail("input #" + Twine(i) + " must be a constant scalar");
  if (auto dense = dyn_cast<DenseFPElementsAttr>(attr))
    return (*dense.getValues<APFloat>().begin()).convertToDouble();
  if (auto dense = dyn_cast<DenseIntElementsAttr>(attr))
    return static_cast<double>((*dense.getValues<APInt>().begin()).getSExtValue());
  return fail("input #" + Twine(i) + " must be a constant scalar");
}

FailureOr<SmallVector<OpFoldResult>> ForeignNode::shapeElements(unsigned i) {
  if (failed(input(i)))
    return failure();
  if (std::optional<SmallVector<OpFoldResult>> elements =
          getShapeElements(op.getInputs()[i]))
    return *elements;
  return fail("input #" + Twine(i) +
              " (a shape) is not a constant or an expression of known dims");
}

FailureOr<int64_t> ForeignNode::axis(int64_t axis, int64_t rank) {
  int64_t normalized = axis < 0 ? axis + rank : axis;
  if (normalized < 0 || normalized >= rank)
    return fail("axis " + Twine(axis) + " is out of range for rank " +
                Twine(rank));
  return normalized;
}

/// Runs `fn`, keeping the first diagnostic it emits in `reason` instead of
/// reporting it.
static LogicalResult captureFirstError(MLIRContext *ctx,
                                       function_ref<LogicalResult()> fn,
                                       std::string &reason) {
  ScopedDiagnosticHandler handler(ctx, [&](Diagnostic &diag) {
    if (reason.empty())
      reason = diag.str();
    return success();
  });
  return fn();
}

FailureOr<SmallVector<int64_t>> ForeignNode::axes(ArrayRef<int64_t> axes,
                                               int64_t rank) {
  SmallVector<int64_t> dims;
  for (int64_t a : axes) {
    FailureOr<int64_t> normalized = axis(a, rank);
    if (failed(normalized))
      return failure();
    dims.push_back(*normalized);
  }
  llvm::sort(dims);
  if (auto dup = llvm::adjacent_find(dims); dup != dims.end())
    return fail("axis " + Twine(*dup) + " is listed twice");
  return dims;
}

LogicalResult ForeignNode::inferTypes(
    function_ref<LogicalResult(std::optional<Location>)> infer) {
  if (!diagnose)
    return infer(std::nullopt);
  // Report the inference's reason as this node's failure.
  std::string reason;
  if (failed(captureFirstError(
          getContext(), [&] { return infer(getLoc()); }, reason)))
    return fail(reason.empty() ? "the operand shapes are inconsistent" : reason);
  return success();
}

LogicalResult ForeignNode::verifyCreated(Operation *created) {
  std::string reason;
  if (succeeded(captureFirstError(
          getContext(), [&] { return mlir::verify(created); }, reason)))
    return success();
  rewriter.eraseOp(created);
  return fail(reason);
}

OpFoldResult ForeignNode::dimSize(Value value, int64_t d) {
  auto type = cast<RankedTensorType>(value.getType());
  if (d < 0 || d >= type.getRank()) {
    (void)fail("an operand of rank " + Twine(type.getRank()) +
               " is read at dim " + Twine(d) +
               " (its rank is not what the op takes there)");
    missingDim = true;
    return rewriter.getIndexAttr(1);
  }
  if (!type.isDynamicDim(d))
    return rewriter.getIndexAttr(type.getDimSize(d));
  return rewriter.createOrFold<DimOp>(getLoc(), value, d);
}

Value ForeignNode::toIndex(OpFoldResult ofr) {
  if (auto attr = dyn_cast<Attribute>(ofr))
    return arith::ConstantIndexOp::create(rewriter, getLoc(),
                                          cast<IntegerAttr>(attr).getInt());
  Value value = cast<Value>(ofr);
  if (value.getType().isIndex())
    return value;
  return rewriter.createOrFold<arith::IndexCastOp>(
      getLoc(), rewriter.getIndexType(), value);
}

SmallVector<Value> ForeignNode::dynamicSizes(ArrayRef<OpFoldResult> sizes) {
  SmallVector<Value> dynamic;
  for (OpFoldResult size : sizes)
    if (isa<Value>(size))
      dynamic.push_back(toIndex(size));
  return dynamic;
}

SmallVector<int64_t> ForeignNode::staticShape(ArrayRef<OpFoldResult> sizes) {
  SmallVector<int64_t> shape;
  for (OpFoldResult size : sizes)
    shape.push_back(isa<Attribute>(size)
                        ? cast<IntegerAttr>(cast<Attribute>(size)).getInt()
                        : ShapedType::kDynamic);
  return shape;
}

OpFoldResult ForeignNode::multiply(OpFoldResult a, OpFoldResult b) {
  auto constant = [](OpFoldResult v) -> std::optional<int64_t> {
    if (auto attr = dyn_cast<Attribute>(v))
      return cast<IntegerAttr>(attr).getInt();
    return std::nullopt;
  };
  if (constant(a) && constant(b))
    return rewriter.getIndexAttr(*constant(a) * *constant(b));
  if (constant(a) == 1)
    return b;
  if (constant(b) == 1)
    return a;
  return rewriter.createOrFold<arith::MulIOp>(getLoc(), toIndex(a),
                                              toIndex(b));
}

SmallVector<OpFoldResult> ForeignNode::sizes(Value value) {
  SmallVector<OpFoldResult> out;
  for (int64_t d = 0, e = cast<RankedTensorType>(value.getType()).getRank();
       d < e; ++d)
    out.push_back(dimSize(value, d));
  return out;
}

Value ForeignNode::reshape(Value value, ArrayRef<OpFoldResult> sizes) {
  auto type = cast<RankedTensorType>(value.getType());
  auto target = type.clone(staticShape(sizes));
  if (target == type && type.getNumDynamicDims() == 0)
    return value;
  return ReshapeOp::create(rewriter, getLoc(), target, value,
                           dynamicSizes(sizes));
}

FailureOr<Value> ForeignNode::transpose(Value value, ArrayRef<int64_t> perm) {
  if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
    return value;
  TransposeOp::Properties properties;
  properties.perm = rewriter.getDenseI64ArrayAttr(perm);
  return create<TransposeOp>({value}, properties);
}

Value ForeignNode::scalar(Type element, double value) {
  auto type = RankedTensorType::get({}, element);
  Attribute attr = isa<FloatType>(element)
                       ? Attribute(rewriter.getFloatAttr(element, value))
                       : Attribute(rewriter.getIntegerAttr(
                             element, static_cast<int64_t>(value)));
  return ConstantOp::create(rewriter, getLoc(),
                            DenseElementsAttr::get(type, attr));
}

//===----------------------------------------------------------------------===//
// Registry
//===----------------------------------------------------------------------===//

void ForeignConverters::add(StringRef name, int64_t sinceVersion,
                            ConvertFn fn) {
  std::string key = name.contains("::") ? name.str() : "onnx::" + name.str();
  auto &versions = converters[key];
  versions.emplace_back(sinceVersion, fn);
  llvm::sort(versions, [](auto &a, auto &b) { return a.first < b.first; });
}

ConvertFn ForeignConverters::lookup(ForeignOp op) const {
  auto it = converters.find((op.getDomain() + "::" + op.getOpType()).str());
  auto version = static_cast<int64_t>(op.getVersion());
  if (it == converters.end())
    return nullptr;
  ConvertFn best = nullptr;
  for (auto [since, fn] : it->second)
    if (since <= version)
      best = fn;
  return best;
}

//===----------------------------------------------------------------------===//
// Shape tensors
//===----------------------------------------------------------------------===//

std::optional<SmallVector<OpFoldResult>>
foreign::getShapeElements(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || type.getRank() > 1 || !type.hasStaticShape() ||
      type.getNumElements() > 16 || !isa<IntegerType>(type.getElementType()))
    return std::nullopt;
  Builder b(value.getContext());
  DenseIntElementsAttr attr;
  if (matchPattern(value, m_Constant(&attr))) {
    SmallVector<OpFoldResult> elements;
    for (const APInt &v : attr.getValues<APInt>())
      elements.push_back(b.getI64IntegerAttr(v.getSExtValue()));
    return elements;
  }
  if (auto fromElements = value.getDefiningOp<tensor::FromElementsOp>()) {
    SmallVector<OpFoldResult> elements;
    for (Value element : fromElements.getElements()) {
      IntegerAttr constant;
      if (matchPattern(element, m_Constant(&constant)))
        elements.push_back(b.getI64IntegerAttr(constant.getInt()));
      else
        elements.push_back(element);
    }
    return elements;
  }
  return std::nullopt;
}

Value foreign::buildShapeTensor(OpBuilder &builder, Location loc,
                                 ArrayRef<OpFoldResult> elements, bool scalar,
                                 Type element) {
  auto intType = cast<IntegerType>(element ? element : builder.getI64Type());
  SmallVector<int64_t> shape;
  if (!scalar)
    shape.push_back(elements.size());
  auto type = RankedTensorType::get(shape, intType);
  if (llvm::all_of(elements, [](OpFoldResult e) { return isa<Attribute>(e); })) {
    SmallVector<APInt> values;
    for (OpFoldResult e : elements)
      values.push_back(APInt(intType.getWidth(),
                             cast<IntegerAttr>(cast<Attribute>(e)).getInt(),
                             /*isSigned=*/true, /*implicitTrunc=*/true));
    return ConstantOp::create(builder, loc,
                              DenseIntElementsAttr::get(type, values));
  }
  SmallVector<Value> values;
  for (OpFoldResult e : elements) {
    if (auto attr = dyn_cast<Attribute>(e)) {
      values.push_back(arith::ConstantIntOp::create(
          builder, loc, intType, cast<IntegerAttr>(attr).getInt()));
      continue;
    }
    Value v = cast<Value>(e);
    if (v.getType().isIndex()) {
      v = arith::IndexCastOp::create(builder, loc, intType, v);
    } else if (v.getType() != intType) {
      unsigned from = v.getType().getIntOrFloatBitWidth();
      if (from < intType.getWidth())
        v = arith::ExtSIOp::create(builder, loc, intType, v);
      else
        v = arith::TruncIOp::create(builder, loc, intType, v);
    }
    values.push_back(v);
  }
  return tensor::FromElementsOp::create(builder, loc, type, values);
}

//===----------------------------------------------------------------------===//
// The driver
//===----------------------------------------------------------------------===//

namespace {

/// Replaces `op` by the converter's values; outputs without a value must be
/// unused.
LogicalResult replaceNode(ForeignOp op, ArrayRef<Value> values,
                          RewriterBase &rewriter) {
  SmallVector<Value> replacements;
  for (auto [i, result] : llvm::enumerate(op.getResults())) {
    Value value = i < values.size() ? values[i] : Value();
    if (!value && !result.use_empty())
      return failure();
    replacements.push_back(value);
  }
  for (auto [result, value] : llvm::zip_equal(op.getResults(), replacements))
    if (value)
      rewriter.replaceAllUsesWith(result, value);
  rewriter.eraseOp(op);
  return success();
}

struct ConvertForeignNode : public OpRewritePattern<ForeignOp> {
  ConvertForeignNode(MLIRContext *ctx, const ForeignConverters &converters,
                     bool (*owns)(ForeignOp))
      : OpRewritePattern(ctx), converters(converters), owns(owns) {}

  LogicalResult matchAndRewrite(ForeignOp op,
                                PatternRewriter &rewriter) const override {
    if (!owns(op))
      return failure();
    ConvertFn convert = converters.lookup(op);
    if (!convert)
      return failure();
    ForeignNode node(op, rewriter, /*diagnose=*/false);
    FailureOr<SmallVector<Value>> values = convert(node);
    if (failed(values) || node.readMissingDim())
      return failure();
    return replaceNode(op, *values, rewriter);
  }

  const ForeignConverters &converters;
  bool (*owns)(ForeignOp);
};

} // namespace

void foreign::populateForeignConversion(RewritePatternSet &patterns,
                                        const ForeignConverters &converters,
                                        bool (*owns)(ForeignOp)) {
  patterns.add<ConvertForeignNode>(patterns.getContext(), converters, owns);
}

void foreign::populateCanonicalizations(RewritePatternSet &patterns,
                                        MLIRContext *ctx) {
  SmallVector<Dialect *> dialects = {
      ctx->getOrLoadDialect<TscDialect>(),
      ctx->getOrLoadDialect<arith::ArithDialect>(),
      ctx->getOrLoadDialect<tensor::TensorDialect>()};
  for (Dialect *dialect : dialects) {
    dialect->getCanonicalizationPatterns(patterns);
    for (RegisteredOperationName op : ctx->getRegisteredOperations())
      if (&op.getDialect() == dialect)
        op.getCanonicalizationPatterns(patterns, ctx);
  }
}

/// A TorchScript list its reader converts (Tensor[] for aten::cat).
static bool isListConstruct(ForeignOp op) {
  return op.getDomain() == "prim" && op.getOpType() == "ListConstruct";
}

/// Whether `input` comes from a node not converted yet (a list counts as
/// converted when its elements are).
static bool waitsFor(Value input) {
  auto producer = input.getDefiningOp<ForeignOp>();
  if (!producer)
    return false;
  return !isListConstruct(producer) ||
         llvm::any_of(producer.getInputs(), waitsFor);
}

/// A declared output type (kDeclaredTypeAttr) must agree with the computed
/// one: the element type, the rank and every dim both know statically. An
/// artifact whose outputs differ from what the model promises would mislead
/// whoever reads them.
static LogicalResult checkDeclaredTypes(func::FuncOp func) {
  for (unsigned i = 0, e = func.getNumResults(); i < e; ++i) {
    auto declared = func.getResultAttrOfType<TypeAttr>(i, kDeclaredTypeAttr);
    if (!declared)
      continue;
    func.removeResultAttr(
        i, StringAttr::get(func.getContext(), kDeclaredTypeAttr));
    auto want = dyn_cast<ShapedType>(declared.getValue());
    auto have = dyn_cast<ShapedType>(func.getResultTypes()[i]);
    if (!want || !have)
      continue;
    bool agrees = want.getElementType() == have.getElementType();
    if (agrees && want.hasRank() && have.hasRank()) {
      agrees = want.getRank() == have.getRank();
      for (int64_t d = 0; agrees && d < want.getRank(); ++d)
        agrees = want.isDynamicDim(d) || have.isDynamicDim(d) ||
                 want.getDimSize(d) == have.getDimSize(d);
    }
    if (agrees)
      continue;
    auto name = func.getResultAttrOfType<StringAttr>(i, "tsc.name");
    return emitError(func.getLoc())
           << "graph output '"
           << (name ? name.getValue() : "#" + Twine(i).str())
           << "' is declared as " << want << ", but the graph computes "
           << have;
  }
  return success();
}

LogicalResult foreign::convertForeignOps(
    func::FuncOp func, const ForeignConverters &converters,
    const FrozenRewritePatternSet &patterns,
    function_ref<bool(ForeignOp)> owns, StringRef framework,
    bool allowUnsupported) {
  (void)applyPatternsGreedily(func, patterns);
  // A second round for the converters that wait for the fixpoint (the
  // values still not constant stay so) and for what they unblock. Nodes it
  // makes (Loop and If clones of a subgraph) get rounds of their own, a
  // nest of them one pair each.
  constexpr unsigned kMaxSettledRounds = 16;
  for (unsigned round = 0; round < kMaxSettledRounds; ++round) {
    func->setAttr(kSettled, UnitAttr::get(func.getContext()));
    (void)applyPatternsGreedily(func, patterns);
    func->removeAttr(kSettled);
    bool fresh = false;
    func.walk([&](ForeignOp op) {
      fresh |= static_cast<bool>(op->removeAttr(kFresh));
    });
    if (!fresh)
      break;
    (void)applyPatternsGreedily(func, patterns);
  }

  // What is left: ask each node once more with diagnostics on, skipping
  // nodes that only wait for an unconverted producer, and collect the op
  // types that have no converter at all.
  struct Unsupported {
    int64_t count = 0;
    int64_t version = 0;
    SmallVector<std::string> names;
  };
  llvm::MapVector<std::string, Unsupported, std::map<std::string, unsigned>>
      unsupported;
  bool failedAny = false;
  SmallVector<ForeignOp> leftovers;
  // Nodes inside a subgraph are reported by the node that holds it.
  func.walk([&](ForeignOp op) {
    if (owns(op) && !op->getParentOfType<ForeignOp>())
      leftovers.push_back(op);
  });
  for (ForeignOp op : leftovers) {
    ConvertFn convert = converters.lookup(op);
    IRRewriter rewriter(op.getContext());
    rewriter.setInsertionPoint(op);
    ForeignNode node(op, rewriter, /*diagnose=*/true);
    if (!convert) {
      failedAny = true;
      auto version = static_cast<int64_t>(op.getVersion());
      std::string what =
          isTorchDomain(op)
              ? describeOp(op)
              : (opName(op) + " (opset " + Twine(version) + ")").str();
      Unsupported &entry = unsupported[what];
      // Only the standard domain's opsets changed meanings that
      // onnx.version_converter can upgrade.
      entry.version = op.getDomain() == "onnx" ? version : INT64_MAX;
      if (++entry.count <= 3)
        entry.names.push_back("'" + node.getName() + "'");
      continue;
    }
    // A list is converted with the op that reads it, which reports.
    if (isListConstruct(op) && !op->use_empty()) {
      failedAny = true;
      continue;
    }
    // A node that only waits for an unconverted producer says nothing:
    // the producer's report is the one that matters.
    bool waits = llvm::any_of(op.getInputs(), waitsFor);
    if (waits) {
      failedAny = true;
      continue;
    }
    FailureOr<SmallVector<Value>> values = convert(node);
    if (failed(values) || node.readMissingDim() ||
        failed(replaceNode(op, *values, rewriter)))
      failedAny = true;
  }
  if (!unsupported.empty()) {
    // Reported at the function's location without the op dump MLIR adds to
    // op diagnostics: the list is the message.
    InFlightDiagnostic diag = emitError(func.getLoc())
                              << unsupported.size() << " unsupported "
                              << framework << " op type(s):";
    int64_t oldest = INT64_MAX;
    for (auto &[key, entry] : unsupported) {
      diag << "\n  " << key << ": " << entry.count << " node(s), e.g. ";
      llvm::interleaveComma(entry.names, diag);
      oldest = std::min(oldest, entry.version);
    }
    if (framework == "ONNX" && oldest < 13)
      diag << "\n(some of these ops changed meaning since that opset; "
              "upgrade the model with onnx.version_converter)";
  }
  if (failedAny && !allowUnsupported)
    return failure();

  // The function now returns converted values: take their types.
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  func.setType(FunctionType::get(func.getContext(), func.getArgumentTypes(),
                                 ret.getOperandTypes()));
  return checkDeclaredTypes(func);
}

void ForeignConversion::initialize(
    MLIRContext *ctx, function_ref<void(ForeignConverters &)> populate) {
  populate(converters);
  RewritePatternSet set(ctx);
  populateForeignConversion(set, converters, owns);
  populateShapeArithmeticPatterns(set);
  populateCanonicalizations(set, ctx);
  patterns = std::move(set);
}

LogicalResult ForeignConversion::run(func::FuncOp func,
                                     bool allowUnsupported) const {
  if (func.isExternal())
    return success();
  return convertForeignOps(func, converters, patterns, owns, framework,
                           allowUnsupported);
}
