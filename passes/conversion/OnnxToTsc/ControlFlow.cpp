//===- ControlFlow.cpp - ONNX If, Loop, Scan ------------------------------===//
//
// tsc graphs have no control flow: a subgraph is spliced into the graph.
// `If` takes the branch its condition selects when the condition folds to a
// constant; with a run-time condition, both branches are computed and their
// outputs selected, which needs them to agree in shape. `Scan` and `Loop`
// are unrolled over a trip count known at compile time (a static sequence
// length; a constant M with a condition that stays true), each iteration a
// clone of the body with its formal inputs bound to that iteration's
// values. The clones are foreign nodes, converted afterwards like any
// other, so scan outputs are stacked with foreign Unsqueeze and Concat
// nodes too.
//
//===----------------------------------------------------------------------===//

#include "passes/conversion/Foreign/Builders.h"
#include "passes/conversion/OnnxToTsc/Compose.h"
#include "passes/conversion/OnnxToTsc/OnnxToTsc.h"

#include "dialects/tsc/IR/TscAttrNames.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::fromonnx;
using namespace mlir::tsc::foreign;

SmallVector<Value> fromonnx::cloneSubgraph(ForeignNode &node, Block *body,
                                           ValueRange args) {
  IRMapping mapping;
  mapping.map(body->getArguments(), args);
  RewriterBase &rw = node.getRewriter();
  for (Operation &op : body->without_terminator())
    node.noteCreated(rw.clone(op, mapping));
  SmallVector<Value> out;
  for (Value v : body->getTerminator()->getOperands())
    out.push_back(mapping.lookupOrDefault(v));
  return out;
}

Value fromonnx::buildForeignNode(ForeignNode &node, StringRef opType,
                                 int64_t version, ValueRange inputs,
                                 ArrayRef<NamedAttribute> attrs) {
  RewriterBase &rw = node.getRewriter();
  auto created = ForeignOp::create(
      rw, node.getLoc(), TypeRange{rw.getNoneType()}, "onnx", opType,
      static_cast<uint64_t>(version), inputs, rw.getDictionaryAttr(attrs),
      /*subgraphsCount=*/0);
  node.noteCreated(created);
  return created.getResult(0);
}

namespace {

using Values = SmallVector<Value>;

/// More iterations than this are not unrolled: the graph would grow by the
/// body's size each time.
constexpr int64_t kMaxUnroll = 4096;

/// The values of `steps` (in iteration order) stacked along a new `axis`
/// (negative counts from the end of the result).
Value stack(ForeignNode &node, ArrayRef<Value> steps, int64_t axis) {
  RewriterBase &rw = node.getRewriter();
  Value axes = ConstantOp::create(
      rw, node.getLoc(),
      DenseIntElementsAttr::get(RankedTensorType::get({1}, rw.getI64Type()),
                                ArrayRef<int64_t>{axis}));
  Values parts;
  for (Value step : steps)
    parts.push_back(buildForeignNode(node, "Unsqueeze", 13, {step, axes}));
  if (parts.size() == 1)
    return parts.front();
  return buildForeignNode(
      node, "Concat", 13, parts,
      {rw.getNamedAttr("axis", rw.getI64IntegerAttr(axis))});
}

/// Whether `v` is a constant whose every element is nonzero (true).
bool isConstantTrue(Value v) {
  DenseIntElementsAttr attr;
  return matchPattern(v, m_Constant(&attr)) && attr.getNumElements() == 1 &&
         !(*attr.getValues<APInt>().begin()).isZero();
}

//===----------------------------------------------------------------------===//
// If
//===----------------------------------------------------------------------===//

FailureOr<Values> convertIf(ForeignNode &node) {
  FailureOr<Block *> thenBranch = node.subgraph("then_branch");
  FailureOr<Block *> elseBranch = node.subgraph("else_branch");
  FailureOr<TypedValue<RankedTensorType>> cond = node.input(0);
  if (failed(thenBranch) || failed(elseBranch) || failed(cond))
    return failure();
  if (cond->getType().getNumElements() != 1)
    return node.fail("the condition must hold one element");
  if ((*thenBranch)->getNumArguments() || (*elseBranch)->getNumArguments())
    return node.fail("a branch declares inputs; If's branches take none");
  DenseIntElementsAttr folded;
  if (matchPattern(*cond, m_Constant(&folded)))
    return cloneSubgraph(node,
                         (*folded.getValues<APInt>().begin()).isZero()
                             ? *elseBranch
                             : *thenBranch,
                         ValueRange());
  // A run-time condition: wait until folding is done (it may still become
  // a constant) and both branches are converted, then select.
  if (!node.isSettled())
    return failure();
  auto converted = [](Block *b) {
    return llvm::all_of(b->getTerminator()->getOperands(), [](Value v) {
      return isa<RankedTensorType>(v.getType()) &&
             !v.getDefiningOp<ForeignOp>();
    });
  };
  if (!converted(*thenBranch) || !converted(*elseBranch))
    return node.fail("the condition is known only at run time and a branch "
                     "is not converted");
  Values yes = cloneSubgraph(node, *thenBranch, ValueRange());
  Values no = cloneSubgraph(node, *elseBranch, ValueRange());
  if (yes.size() != no.size())
    return node.fail("the branches have different numbers of outputs");
  Value scalarCond = node.reshape(*cond, {});
  Values out;
  for (auto [i, pair] : llvm::enumerate(llvm::zip_equal(yes, no))) {
    auto [a, b] = pair;
    if (a.getType() != b.getType())
      return node.fail(
          "the condition is known only at run time and output #" + Twine(i) +
          " differs in type between the branches (" +
          llvm::formatv("{0} vs {1}", a.getType(), b.getType()).str() +
          "); tsc computes both branches and selects, which is not "
          "supported for branches of different types");
    MaybeValue picked = select(node, scalarCond, a, b);
    if (failed(picked))
      return failure();
    out.push_back(*picked);
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Scan
//===----------------------------------------------------------------------===//

/// The per-iteration values of a scan: `states` carried through, `inputs`
/// sliced along their `inputAxes` (backwards where `inputReverse`), and
/// outputs stacked along `outputAxes` (backwards where `outputReverse`).
struct ScanSpec {
  Values states, inputs;
  SmallVector<int64_t> inputAxes, outputAxes;
  SmallVector<bool> inputReverse, outputReverse;
};

/// Unrolls `body` as `spec` says; returns the final states and then the
/// scan outputs.
FailureOr<Values> unrollScan(ForeignNode &node, Block *body,
                             const ScanSpec &spec) {
  size_t numStates = spec.states.size();
  if (body->getNumArguments() != numStates + spec.inputs.size())
    return node.fail("the body takes " + Twine(body->getNumArguments()) +
                     " inputs, expected " +
                     Twine(numStates + spec.inputs.size()));
  if (body->getTerminator()->getNumOperands() < numStates)
    return node.fail("the body yields fewer outputs than there are states");
  size_t numOutputs = body->getTerminator()->getNumOperands() - numStates;
  if (spec.outputAxes.size() != numOutputs)
    return node.fail("scan_output_axes has " + Twine(spec.outputAxes.size()) +
                     " entries, expected " + Twine(numOutputs));
  if (spec.inputs.empty())
    return node.fail("a scan needs at least one scan input");
  int64_t steps = ShapedType::kDynamic;
  for (auto [value, axis] : llvm::zip_equal(spec.inputs, spec.inputAxes)) {
    int64_t len = cast<RankedTensorType>(value.getType()).getDimSize(axis);
    if (ShapedType::isDynamic(len))
      return node.fail("the sequence length (dim " + Twine(axis) +
                       " of a scan input) is known only at run time; tsc "
                       "unrolls scans over a static length");
    if (!ShapedType::isDynamic(steps) && len != steps)
      return node.fail("the scan inputs differ in sequence length");
    steps = len;
  }
  if (steps == 0)
    return node.fail("a scan over an empty sequence has outputs of unknown "
                     "shape");
  if (steps > kMaxUnroll)
    return node.fail("a sequence length of " + Twine(steps) +
                     " is more than tsc unrolls (" + Twine(kMaxUnroll) + ")");
  Values states = spec.states;
  SmallVector<Values> outputs(numOutputs);
  for (int64_t t = 0; t < steps; ++t) {
    Values args = states;
    for (auto [i, value] : llvm::enumerate(spec.inputs)) {
      int64_t at = spec.inputReverse[i] ? steps - 1 - t : t;
      MaybeValue slice = entry(node, value, at, spec.inputAxes[i]);
      if (failed(slice))
        return failure();
      args.push_back(*slice);
    }
    Values yielded = cloneSubgraph(node, body, args);
    states.assign(yielded.begin(), yielded.begin() + numStates);
    for (size_t k = 0; k < numOutputs; ++k)
      outputs[k].push_back(yielded[numStates + k]);
  }
  Values out = states;
  for (size_t k = 0; k < numOutputs; ++k) {
    if (spec.outputReverse[k])
      std::reverse(outputs[k].begin(), outputs[k].end());
    out.push_back(stack(node, outputs[k], spec.outputAxes[k]));
  }
  return out;
}

/// An attribute list of `count` entries, `fallback` where absent.
FailureOr<SmallVector<int64_t>> listAttr(ForeignNode &node, StringRef name,
                                         size_t count, int64_t fallback) {
  std::optional<SmallVector<int64_t>> values = node.getInts(name);
  if (!values)
    return SmallVector<int64_t>(count, fallback);
  if (values->size() != count)
    return node.fail(name + " has " + Twine(values->size()) +
                     " entries, expected " + Twine(count));
  return *values;
}

FailureOr<Values> convertScan(ForeignNode &node) {
  FailureOr<Block *> body = node.subgraph("body");
  if (failed(body))
    return failure();
  // Opset 8 has a leading optional sequence_lens input and a batch axis 0
  // on every input and output; later opsets neither.
  bool batched = node.getVersion() < 9;
  unsigned first = batched ? 1 : 0;
  if (batched && node.hasInput(0))
    return node.fail("sequence_lens is not supported: tsc unrolls scans over "
                     "one static length");
  int64_t numScanInputs = node.getInt("num_scan_inputs", -1);
  int64_t numInputs = node.getNumInputs() - first;
  if (numScanInputs < 1 || numScanInputs > numInputs)
    return node.fail("num_scan_inputs must be between 1 and the number of "
                     "inputs");
  Values states, inputs;
  for (int64_t i = 0; i < numInputs; ++i) {
    FailureOr<TypedValue<RankedTensorType>> v = node.input(first + i);
    if (failed(v))
      return failure();
    (i < numInputs - numScanInputs ? states : inputs).push_back(*v);
  }
  size_t numOutputs = node.getOp().getNumResults() - states.size();
  ScanSpec spec;
  spec.states = states;
  spec.inputs = inputs;
  FailureOr<SmallVector<int64_t>> inputDirections = listAttr(
      node, batched ? "directions" : "scan_input_directions", inputs.size(), 0);
  FailureOr<SmallVector<int64_t>> outputDirections =
      listAttr(node, "scan_output_directions", numOutputs, 0);
  FailureOr<SmallVector<int64_t>> inputAxes =
      listAttr(node, "scan_input_axes", inputs.size(), 0);
  FailureOr<SmallVector<int64_t>> outputAxes =
      listAttr(node, "scan_output_axes", numOutputs, 0);
  if (failed(inputDirections) || failed(outputDirections) ||
      failed(inputAxes) || failed(outputAxes))
    return failure();
  for (auto [value, axis] : llvm::zip_equal(inputs, *inputAxes)) {
    FailureOr<int64_t> normalized = node.axis(
        axis, cast<RankedTensorType>(value.getType()).getRank() - batched);
    if (failed(normalized))
      return failure();
    spec.inputAxes.push_back(*normalized);
  }
  spec.outputAxes = *outputAxes;
  for (int64_t d : *inputDirections)
    spec.inputReverse.push_back(d != 0);
  for (int64_t d : *outputDirections)
    spec.outputReverse.push_back(d != 0);
  if (!batched)
    return unrollScan(node, *body, spec);

  // Opset 8: one scan per batch entry, the results stacked along axis 0.
  int64_t batch = ShapedType::kDynamic;
  for (Value v : llvm::concat<Value>(states, inputs)) {
    auto type = cast<RankedTensorType>(v.getType());
    if (type.getRank() == 0 || type.isDynamicDim(0))
      return node.fail("the batch size is known only at run time");
    batch = type.getDimSize(0);
  }
  SmallVector<Values> perBatch(states.size() + numOutputs);
  for (int64_t b = 0; b < batch; ++b) {
    ScanSpec one = spec;
    for (Value &v : llvm::concat<Value>(one.states, one.inputs)) {
      MaybeValue slice = entry(node, v, b);
      if (failed(slice))
        return failure();
      v = *slice;
    }
    FailureOr<Values> results = unrollScan(node, *body, one);
    if (failed(results))
      return failure();
    for (auto [k, v] : llvm::enumerate(*results))
      perBatch[k].push_back(v);
  }
  Values out;
  for (Values &values : perBatch)
    out.push_back(stack(node, values, 0));
  return out;
}

//===----------------------------------------------------------------------===//
// Loop
//===----------------------------------------------------------------------===//

/// A 0-d constant of integer type `element` holding `v`.
Value scalarConstant(ForeignNode &node, Type element, int64_t v) {
  auto type = RankedTensorType::get({}, element);
  return ConstantOp::create(
      node.getRewriter(), node.getLoc(),
      DenseIntElementsAttr::get(type, APInt(element.getIntOrFloatBitWidth(), v,
                                            /*isSigned=*/true)));
}

/// Whether the body keeps its condition true: it yields its condition input
/// (through Identity nodes, which stay foreign while they read a formal
/// input) or a constant true.
bool keepsConditionTrue(Block *body) {
  Value condOut = body->getTerminator()->getOperand(0);
  while (auto identity = condOut.getDefiningOp<ForeignOp>()) {
    if (identity.getOpType() != "Identity" || identity.getInputs().size() != 1)
      break;
    condOut = identity.getInputs()[0];
  }
  return condOut == body->getArgument(1) || isConstantTrue(condOut);
}

/// The static dim 0 the model declares for `scan` (a Loop's scan output):
/// its own type, or that of a graph output it reaches through Identity and
/// Cast nodes (as Range's function body casts it).
std::optional<int64_t> declaredRows(Value scan) {
  SmallVector<Value> work = {scan};
  std::optional<int64_t> rows;
  auto note = [&](Type type) {
    auto ranked = dyn_cast_or_null<RankedTensorType>(type);
    if (ranked && ranked.getRank() >= 1 && !ranked.isDynamicDim(0))
      rows =
          std::min(rows.value_or(ranked.getDimSize(0)), ranked.getDimSize(0));
  };
  for (unsigned visited = 0; !work.empty() && visited < 64; ++visited) {
    Value v = work.pop_back_val();
    note(v.getType());
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (auto ret = dyn_cast<func::ReturnOp>(user)) {
        auto func = ret->getParentOfType<func::FuncOp>();
        if (auto attr = func.getResultAttrOfType<TypeAttr>(
                use.getOperandNumber(), kDeclaredTypeAttr))
          note(attr.getValue());
        continue;
      }
      auto foreign = dyn_cast<ForeignOp>(user);
      if (foreign && foreign.getInputs().size() == 1 &&
          (foreign.getOpType() == "Identity" || foreign.getOpType() == "Cast"))
        work.push_back(foreign.getResult(0));
    }
  }
  return rows;
}

/// Loop whose trip count or condition is known only at run time, unrolled
/// `bound` times: iteration i runs only while `active` (i < M and every
/// condition so far true); carried values are selected by it, and the scan
/// outputs stacked over all `bound` iterations are cut to those that ran by a
/// `tsc.internal::LoopIterations` node, converted once the conditions are.
/// It counts the iterations the loop asks for (up to bound + 1) and reads the
/// count as a symbol in [0, bound]: a run that would iterate more than
/// `bound` times fails naming it. Foreign nodes throughout, so that the
/// masking converts with the body's clones.
Values unrollMasked(ForeignNode &node, Block *body, Value tripCount, Value cond,
                    Values carried, int64_t bound, size_t numScans) {
  RewriterBase &rw = node.getRewriter();
  Type i64 = rw.getI64Type();
  Value scalarShape = ConstantOp::create(
      rw, node.getLoc(),
      DenseIntElementsAttr::get(RankedTensorType::get({0}, i64),
                                ArrayRef<int64_t>{}));
  auto toScalar = [&](Value v) {
    return buildForeignNode(node, "Reshape", 14, {v, scalarShape});
  };
  auto both = [&](Value a, Value b) {
    return a ? buildForeignNode(node, "And", 7, {a, b}) : b;
  };
  // Whether iteration i is below the trip count (null without one).
  auto below = [&](int64_t i) -> Value {
    if (!tripCount)
      return {};
    return buildForeignNode(node, "Less", 13,
                            {scalarConstant(node, i64, i), tripCount});
  };
  Value isTrue = scalarConstant(node, rw.getI1Type(), 1);
  Value condIn = cond ? toScalar(cond) : isTrue;
  Value active = both(below(0), condIn);
  Values actives = {active};
  SmallVector<Values> scans(numScans);
  for (int64_t i = 0; i < bound; ++i) {
    Values args = {scalarConstant(node, i64, i), condIn};
    llvm::append_range(args, carried);
    Values yielded = cloneSubgraph(node, body, args);
    for (size_t k = 0; k < carried.size(); ++k)
      carried[k] = buildForeignNode(node, "Where", 16,
                                    {active, yielded[1 + k], carried[k]});
    for (size_t k = 0; k < numScans; ++k)
      scans[k].push_back(yielded[1 + carried.size() + k]);
    condIn = toScalar(yielded[0]);
    Value next = below(i + 1);
    active = both(active, next ? both(next, condIn) : condIn);
    actives.push_back(active);
  }
  Values counts;
  for (Value a : actives)
    counts.push_back(
        buildForeignNode(node, "Cast", 13, {a},
                         {rw.getNamedAttr("to", rw.getI64IntegerAttr(7))}));
  Values tail = {buildForeignNode(node, "Sum", 13, counts)};
  for (Values &steps : scans)
    tail.push_back(stack(node, steps, 0));
  Values out = carried;
  if (numScans == 0)
    return out;
  auto cut = ForeignOp::create(
      rw, node.getLoc(), SmallVector<Type>(numScans, rw.getNoneType()),
      "tsc.internal", "LoopIterations", 1, tail,
      rw.getDictionaryAttr(
          {rw.getNamedAttr("max", rw.getI64IntegerAttr(bound))}),
      /*subgraphsCount=*/0);
  node.noteCreated(cut);
  llvm::append_range(out, cut.getResults());
  return out;
}

FailureOr<Values> convertLoop(ForeignNode &node) {
  FailureOr<Block *> body = node.subgraph("body");
  if (failed(body))
    return failure();
  Values carried;
  for (unsigned i = 2; i < node.getNumInputs(); ++i) {
    FailureOr<TypedValue<RankedTensorType>> v = node.input(i);
    if (failed(v))
      return failure();
    carried.push_back(*v);
  }
  Operation *yield = (*body)->getTerminator();
  if ((*body)->getNumArguments() != carried.size() + 2 ||
      yield->getNumOperands() < carried.size() + 1)
    return node.fail("the body's inputs and outputs do not match the loop's "
                     "carried values");
  size_t numScans = yield->getNumOperands() - carried.size() - 1;
  if (!node.hasInput(0) && !node.hasInput(1))
    return node.fail("a loop without a trip count M or a condition never "
                     "ends");
  // The trip count and the condition, constant or known at run time.
  Value tripCount, cond;
  std::optional<int64_t> trips;
  bool condTrue = true;
  if (node.hasInput(0)) {
    FailureOr<TypedValue<RankedTensorType>> m = node.input(0);
    if (failed(m))
      return failure();
    if (m->getType().getNumElements() != 1)
      return node.fail("the trip count M must hold one element");
    DenseIntElementsAttr attr;
    if (matchPattern(*m, m_Constant(&attr)))
      trips = (*attr.getValues<APInt>().begin()).getSExtValue();
    tripCount = node.reshape(*m, {});
  }
  if (node.hasInput(1)) {
    FailureOr<TypedValue<RankedTensorType>> c = node.input(1);
    if (failed(c))
      return failure();
    if (c->getType().getNumElements() != 1)
      return node.fail("the condition must hold one element");
    cond = *c;
    condTrue = isConstantTrue(cond);
  }
  bool exact = trips && condTrue && keepsConditionTrue(*body);
  // A run-time form is chosen only once nothing more can fold.
  if (!exact && !node.isSettled())
    return failure();

  // How many iterations to unroll: M when it is constant, at most as many as
  // a scan output declares (a static dim 0: its rows are the iterations run)
  // when the loop may stop early.
  std::optional<int64_t> declared;
  for (size_t k = 0; k < numScans; ++k)
    if (std::optional<int64_t> rows =
            declaredRows(node.getOp()->getResult(carried.size() + k)))
      declared = std::min(declared.value_or(*rows), *rows);
  if (!trips && !declared)
    return node.fail(
        Twine(node.hasInput(0) ? "the trip count M is known only at run time"
                               : "a loop without a trip count M runs until "
                                 "its condition turns false") +
        "; tsc unrolls such a loop as often as a scan output declares (a "
        "static dim 0), and no scan output declares it");
  int64_t bound = trips && (exact || !declared) ? *trips
                  : trips                       ? std::min(*trips, *declared)
                                                : *declared;
  if (bound <= 0) {
    if (numScans)
      return node.fail("a loop of no iterations has scan outputs of unknown "
                       "shape");
    return carried;
  }
  if (bound > kMaxUnroll)
    return node.fail("a trip count of " + Twine(bound) +
                     " is more than tsc unrolls (" + Twine(kMaxUnroll) + ")");
  if (!exact)
    return unrollMasked(node, *body, tripCount, cond, carried, bound, numScans);

  Value isTrue = scalarConstant(node, node.getRewriter().getI1Type(), 1);
  SmallVector<Values> scans(numScans);
  for (int64_t i = 0; i < bound; ++i) {
    Values args = {scalarConstant(node, node.getRewriter().getI64Type(), i),
                   isTrue};
    llvm::append_range(args, carried);
    Values yielded = cloneSubgraph(node, *body, args);
    carried.assign(yielded.begin() + 1, yielded.begin() + 1 + carried.size());
    for (size_t k = 0; k < numScans; ++k)
      scans[k].push_back(yielded[1 + carried.size() + k]);
  }
  Values out = carried;
  for (Values &steps : scans)
    out.push_back(stack(node, steps, 0));
  return out;
}

/// tsc.internal::LoopIterations (made by unrollMasked): input 0 the number
/// of iterations a loop asks for, then scan outputs stacked over `max`
/// iterations; the scan outputs cut to the iterations run.
FailureOr<Values> convertLoopIterations(ForeignNode &node) {
  int64_t bound = node.getInt("max", 0);
  if (bound < 1 || bound > kMaxUnroll || node.getNumInputs() < 2)
    return node.fail("expects attribute 'max' in [1, " + Twine(kMaxUnroll) +
                     "], a count and scan outputs");
  FailureOr<TypedValue<RankedTensorType>> count = node.input(0);
  if (failed(count))
    return failure();
  if (!count->getType().getElementType().isInteger(64) ||
      count->getType().getRank() != 0)
    return node.fail("the count must be an i64 scalar");
  std::string what = node.getName() + ": iterations";
  OpFoldResult rows;
  DenseIntElementsAttr folded;
  if (matchPattern(*count, m_Constant(&folded))) {
    int64_t n = (*folded.getValues<APInt>().begin()).getSExtValue();
    if (n < 0 || n > bound)
      return node.fail("the loop runs more than the " + Twine(bound) +
                       " iterations it was unrolled for");
    rows = node.getRewriter().getIndexAttr(n);
  } else {
    FailureOr<SmallVector<Value>> read =
        node.readElements(*count, what, 0, bound);
    if (failed(read))
      return failure();
    rows = read->front();
  }
  RewriterBase &rw = node.getRewriter();
  Values out;
  for (unsigned i = 1; i < node.getNumInputs(); ++i) {
    FailureOr<TypedValue<RankedTensorType>> scan = node.input(i);
    if (failed(scan))
      return failure();
    RankedTensorType type = scan->getType();
    if (type.getRank() < 1 || type.getDimSize(0) != bound)
      return node.fail("input #" + Twine(i) + " must have " + Twine(bound) +
                       " rows");
    SmallVector<OpFoldResult> offsets(type.getRank(), rw.getIndexAttr(0)),
        strides(type.getRank(), rw.getIndexAttr(1)), sizes = {rows};
    for (int64_t d = 1; d < type.getRank(); ++d)
      sizes.push_back(node.dimSize(*scan, d));
    out.push_back(buildSliceOp(node, *scan, offsets, sizes, strides));
  }
  return out;
}

} // namespace

void fromonnx::populateControlFlowConverters(ForeignConverters &converters) {
  converters.add("If", 1, convertIf);
  converters.add("Loop", 1, convertLoop);
  converters.add("Scan", 8, convertScan);
  converters.add("tsc.internal::LoopIterations", 1, convertLoopIterations);
}
