//===- ForeignNode.h - shared machinery of the importers' conversions -*- C++ -*-===//
//
// Importers emit one `tsc.foreign` op per source node; a conversion pass per
// framework (OnnxToTsc, TorchToTsc) replaces them by tsc ops. What the passes
// share lives here: the node helper converters are written against, the
// registry keyed by (domain, op, since-version), shape tensors, and the
// driver that runs the converters and reports what is left.
//
// Each converter is registered under (op, the version it was introduced or
// changed in); a node of version N uses the converter with the largest such
// version <= N. Converters run inside a greedy rewrite together with the
// canonicalization and shape-arithmetic patterns, so a converter that needs,
// say, a constant shape may fail now and succeed once its producers have
// been converted and folded. Failing is silent then; the driver asks leftover
// nodes again with diagnostics on, so each real problem is reported once.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_PASSES_CONVERSION_FOREIGN_FOREIGNNODE_H
#define TSC_PASSES_CONVERSION_FOREIGN_FOREIGNNODE_H

#include "dialects/tsc/IR/TscOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::tsc::foreign {

/// Whether `op` comes from a TorchScript or torch.export archive (domains
/// `aten`, `prim`, and torch.export's other namespaces).
bool isTorchDomain(ForeignOp op);

/// The largest value a symbol read from data may take where nothing else
/// bounds it (a size a model takes at run time), as for symbolic dims.
constexpr int64_t kDefaultValueMax = 4096;

/// One node being converted: its inputs and attributes, op creation checked
/// against result inference, and failure reporting. The same for every
/// importer; converters of one framework may add free helpers over it.
class ForeignNode {
public:
  ForeignNode(ForeignOp op, RewriterBase &rewriter, bool diagnose)
      : op(op), rewriter(rewriter), diagnose(diagnose) {}

  ForeignOp getOp() { return op; }
  Location getLoc() { return op.getLoc(); }
  int64_t getVersion() { return static_cast<int64_t>(op.getVersion()); }
  RewriterBase &getRewriter() { return rewriter; }
  /// The node's name (its location), for messages.
  std::string getName();
  /// What the node is, for messages: `Gelu, opset 20` for ONNX,
  /// `aten::gelu` for TorchScript.
  std::string describe();
  MLIRContext *getContext() { return op.getContext(); }

  /// Reports why the node cannot be converted (as an error at the node when
  /// diagnosing) and returns failure.
  LogicalResult fail(const Twine &reason);

  unsigned getNumInputs() { return op.getInputs().size(); }
  /// Whether input `i` is given (not omitted and not past the end).
  bool hasInput(unsigned i);
  /// Input `i` as a ranked tensor; fails if it is missing or its producer is
  /// not converted yet.
  FailureOr<TypedValue<RankedTensorType>> input(unsigned i);
  /// Input `i` when it is given, null when it is omitted (an optional bias
  /// or mask); fails as `input` does.
  FailureOr<Value> optionalInput(unsigned i);
  /// Whether output `i` has uses.
  bool isOutputUsed(unsigned i);

  int64_t getInt(StringRef name, int64_t defaultValue);
  float getFloat(StringRef name, float defaultValue);
  StringRef getString(StringRef name, StringRef defaultValue);
  std::optional<SmallVector<int64_t>> getInts(StringRef name);
  bool hasAttr(StringRef name) {
    return static_cast<bool>(op.getSourceAttributes().get(name));
  }
  /// The region of graph attribute `name` (ONNX If's branches, Loop's and
  /// Scan's body); fails when the node has no such subgraph.
  FailureOr<Block *> subgraph(StringRef name);
  /// Whether conversion and folding have reached their fixpoint: an input
  /// that is not constant now never will be. Converters that can choose a
  /// run-time form (If with a run-time condition) wait for this. A node
  /// that a converter made during the settled round (a clone of a Loop's
  /// body) is not settled until the driver's next round: its inputs may
  /// still fold.
  bool isSettled();
  /// Marks `created`, a foreign node this converter made, as made during
  /// the settled round if it is one (see isSettled).
  void noteCreated(Operation *created);

  /// The integer values of a constant input `i` (dense literal); fails if it
  /// is not constant (yet).
  FailureOr<SmallVector<int64_t>> constantInts(unsigned i);
  /// The floating-point value of a constant scalar input `i`.
  FailureOr<double> constantScalar(unsigned i);
  /// The elements of a small integer input `i` (shape arithmetic) as
  /// constants or `i64` scalars; fails when they are not known (yet).
  FailureOr<SmallVector<OpFoldResult>> shapeElements(unsigned i);

  /// Whether input `i` is a graph input (a function argument) or (once the
  /// conversion has settled) a value the graph computes, not constant and
  /// not an expression of known dims, of a static integer type with at most
  /// 16 elements: a value known only at run time where a shape or axes are
  /// expected.
  /// With `floats`, a float input counts too (its elements truncated toward
  /// zero when read, as ONNX reads OneHot's depth).
  bool isRuntimeInts(unsigned i, bool floats = false);
  /// The elements of such an input as index values: one symbol per element,
  /// bound from the input's data at run time (`tsc.symbol ... from`; for a
  /// computed value, right after the step computing it), its
  /// range narrowed to [min, max] (a run with a value outside fails naming
  /// the symbol). Fails, naming the input, when `isRuntimeInts(i)` is false.
  FailureOr<SmallVector<Value>> runtimeInts(unsigned i, int64_t min,
                                            int64_t max, bool floats = false);
  /// The elements of `source` (a graph input, or a small static numeric
  /// value a converter computed) as symbols named after `what`, read at run
  /// time, each in [min, max].
  FailureOr<SmallVector<Value>>
  readElements(Value source, const std::string &what, int64_t min, int64_t max);
  /// The elements of input `i` as sizes: shape arithmetic (shapeElements)
  /// or, for a graph input, symbols read at run time in [min, max].
  FailureOr<SmallVector<OpFoldResult>> sizeElements(unsigned i, int64_t min,
                                                    int64_t max);
  /// A symbol named after this node and `what`, defined as the index
  /// computation `value` (selects and comparisons allowed), with range
  /// [min, max].
  Value defineSymbol(const Twine &what, Value value, int64_t min, int64_t max);
  /// For dims chosen at run time: `flags[d]` is 1 where an axis of the
  /// `axes` symbols (normalized against `flags.size()`) names dim d, else 0;
  /// `distinct` is true when no two axes name the same dim.
  void markAxes(ArrayRef<Value> axes, SmallVectorImpl<Value> &flags,
                Value &distinct);
  /// The sizes of the dims of `shape` whose `dropped` flag is 0, in order,
  /// as `keptCount` symbols (-1 where `valid` is false, which a run rejects
  /// naming the symbol and `why`).
  SmallVector<OpFoldResult> keptDims(ArrayRef<int64_t> shape,
                                     ArrayRef<Value> dropped, Value valid,
                                     int64_t keptCount, StringRef why);
  /// Normalizes a possibly negative axis against `rank`.
  FailureOr<int64_t> axis(int64_t axis, int64_t rank);
  /// Normalizes and sorts a list of axes against `rank`; an axis listed twice
  /// (after normalization) is an error.
  FailureOr<SmallVector<int64_t>> axes(ArrayRef<int64_t> axes, int64_t rank);

  /// Creates `OpTy` with its result types inferred from `operands` and
  /// `properties`; fails (with the inference's reason) instead of building
  /// an invalid op.
  template <typename OpTy>
  FailureOr<Value> create(ValueRange operands,
                          typename OpTy::Properties properties = {}) {
    // Type inference reads operands by position: a wrong count (a node
    // missing an input) is refused before it reads past them.
    if (failed(checkOperandCount<OpTy>(operands.size())))
      return failure();
    SmallVector<Type> types;
    typename OpTy::Adaptor adaptor(operands, DictionaryAttr(), properties, {});
    if (failed(inferTypes(
            [&](std::optional<Location> loc) {
              return OpTy::inferReturnTypes(getContext(), loc, adaptor, types);
            })))
      return failure();
    OperationState state(getLoc(), OpTy::getOperationName());
    state.addOperands(operands);
    state.addTypes(types);
    state.useProperties(properties);
    return rewriter.create(state)->getResult(0);
  }

  /// The operands `OpTy` takes, when it takes a fixed number; -1 otherwise.
  template <typename OpTy> static constexpr int fixedOperandCount() {
    if constexpr (OpTy::template hasTrait<OpTrait::ZeroOperands>())
      return 0;
    else if constexpr (OpTy::template hasTrait<OpTrait::OneOperand>())
      return 1;
    else if constexpr (OpTy::template hasTrait<OpTrait::NOperands<2>::Impl>())
      return 2;
    else if constexpr (OpTy::template hasTrait<OpTrait::NOperands<3>::Impl>())
      return 3;
    else
      return -1;
  }
  /// Fails naming the op when `count` operands are not what `OpTy` takes.
  template <typename OpTy> LogicalResult checkOperandCount(size_t count) {
    constexpr int expected = fixedOperandCount<OpTy>();
    if (expected < 0 || count == size_t(expected))
      return success();
    return fail(Twine(OpTy::getOperationName()) + " takes " + Twine(expected) +
                " operands; the node gives " + Twine(count) +
                " (an input missing?)");
  }

  /// Runs the verifier on `op`, just built by this converter; on failure the
  /// op is erased and its message becomes the node's failure.
  LogicalResult verifyCreated(Operation *op);

  /// The size of `value`'s dim `d` as an index (a constant when static).
  /// A `d` past `value`'s rank (an input of a hostile model with fewer
  /// dims than the converter expects) fails the node, naming the dim and
  /// the rank: the size given back is 1 so that the converter can go on
  /// without reading past the shape, and the conversion is refused after it.
  OpFoldResult dimSize(Value value, int64_t d);
  /// Whether a dimSize call read a dim the value does not have.
  bool readMissingDim() { return missingDim; }
  /// `OpFoldResult` as an index `Value`.
  Value toIndex(OpFoldResult ofr);
  /// The dynamic entries of `sizes`, as index values, for reshape/expand.
  SmallVector<Value> dynamicSizes(ArrayRef<OpFoldResult> sizes);
  /// Static shape of `sizes` (kDynamic where not constant).
  static SmallVector<int64_t> staticShape(ArrayRef<OpFoldResult> sizes);
  /// `a * b` on index sizes, folded when both are constant.
  OpFoldResult multiply(OpFoldResult a, OpFoldResult b);
  /// All dim sizes of `value`.
  SmallVector<OpFoldResult> sizes(Value value);

  /// `value` reshaped to `sizes` (no-op when already of that shape).
  Value reshape(Value value, ArrayRef<OpFoldResult> sizes);
  /// `value` with its dims permuted by `perm`.
  FailureOr<Value> transpose(Value value, ArrayRef<int64_t> perm);
  /// A 0-d constant of element type `element`.
  Value scalar(Type element, double value);

private:
  LogicalResult
  inferTypes(function_ref<LogicalResult(std::optional<Location>)> infer);

  ForeignOp op;
  RewriterBase &rewriter;
  bool diagnose;
  bool missingDim = false;
};

/// Converts one node; returns one value per ONNX output (null for outputs
/// that have no uses and no value).
using ConvertFn = FailureOr<SmallVector<Value>> (*)(ForeignNode &node);

/// One converted value as a converter's results, or the failure creating it.
inline FailureOr<SmallVector<Value>> results(FailureOr<Value> value) {
  if (failed(value))
    return failure();
  return SmallVector<Value>{*value};
}

/// The registered converters, by (domain, op type, since-version). `name` is
/// an ONNX op type (`Gelu`, domain `onnx`) or `domain::op` (`aten::gelu`).
class ForeignConverters {
public:
  void add(StringRef name, int64_t sinceVersion, ConvertFn fn);
  /// The converter for `op` at its version, or null.
  ConvertFn lookup(ForeignOp op) const;

private:
  llvm::StringMap<SmallVector<std::pair<int64_t, ConvertFn>>> converters;
};

/// The largest value the index `size` can take: a constant, a symbol's
/// maximum, or sums and products of those (a tensor's dim bound to such an
/// expression of symbols); nullopt when it cannot be bounded so.
std::optional<int64_t> largestSize(Value size, int depth = 0);
/// The largest size dim `d` of `tensor` can take, through the shape rules of
/// the ops computing it; nullopt when it cannot be bounded so.
std::optional<int64_t> largestDim(Value tensor, int64_t d, int depth = 0);

/// Patterns that evaluate exporters' shape subgraphs on small integer tensors
/// element by element (Shape -> Gather -> Unsqueeze -> Concat -> ...), so
/// that their elements become index arithmetic on dims.
void populateShapeArithmeticPatterns(RewritePatternSet &patterns);

/// The elements of a 0-d or 1-D integer tensor with at most 16 elements that
/// is a dense constant or a tensor.from_elements; nullopt otherwise.
std::optional<SmallVector<OpFoldResult>> getShapeElements(Value value);

/// Builds a 0-d (`scalar`) or 1-D tensor of `element` (default i64) from
/// `elements`: a dense constant when all are constant, else a
/// tensor.from_elements of scalars converted to `element`.
Value buildShapeTensor(OpBuilder &builder, Location loc,
                       ArrayRef<OpFoldResult> elements, bool scalar = false,
                       Type element = {});

/// Adds the tsc, arith and tensor canonicalizations to `patterns`: they run
/// with the converters so shape subgraphs fold as they are converted.
void populateCanonicalizations(RewritePatternSet &patterns, MLIRContext *ctx);

/// Runs `patterns` (converters wrapped by ConvertForeignNode plus folding) on
/// `func`, then reports every foreign op `owns` accepts that is left: one
/// error listing the ops without a converter (count and node names), one
/// error per node whose converter rejected it. `framework` names the source
/// in messages ("ONNX", "TorchScript"). Fails if anything is left, unless
/// `allowUnsupported`. On success the function's result types are those of
/// the converted values.
LogicalResult convertForeignOps(func::FuncOp func,
                                const ForeignConverters &converters,
                                const FrozenRewritePatternSet &patterns,
                                function_ref<bool(ForeignOp)> owns,
                                StringRef framework, bool allowUnsupported);

/// The pattern that converts foreign ops `owns` accepts with `converters`.
void populateForeignConversion(RewritePatternSet &patterns,
                               const ForeignConverters &converters,
                               bool (*owns)(ForeignOp));

/// What a framework's conversion pass holds: its converters and the frozen
/// patterns they run with (shape arithmetic, canonicalizations).
class ForeignConversion {
public:
  ForeignConversion(StringRef framework, bool (*owns)(ForeignOp))
      : framework(framework), owns(owns) {}

  /// Registers the framework's converters with `populate` and freezes the
  /// patterns: the pass's initialize().
  void initialize(MLIRContext *ctx,
                  function_ref<void(ForeignConverters &)> populate);
  /// convertForeignOps on `func` (nothing for an external function).
  LogicalResult run(func::FuncOp func, bool allowUnsupported) const;

private:
  StringRef framework;
  bool (*owns)(ForeignOp);
  ForeignConverters converters;
  FrozenRewritePatternSet patterns;
};

} // namespace mlir::tsc::foreign

#endif // TSC_PASSES_CONVERSION_FOREIGN_FOREIGNNODE_H
