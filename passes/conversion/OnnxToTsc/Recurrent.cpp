//===- Recurrent.cpp - ONNX RNN, GRU, LSTM --------------------------------===//
//
// The recurrences unrolled over a static sequence length: the input
// projection of every step is one matmul ([S, B, I] x [I, gates * H], plus
// the input bias), then each step multiplies the previous hidden state by
// the recurrence weights and applies the gate formulas of the ONNX spec.
// Directions (forward, reverse, bidirectional), layout 0 and 1, initial
// states, peepholes, linear_before_reset, input_forget, clip, the named
// activations with their alphas and betas, and per-batch sequence_lens
// (steps past a sequence's length give zeros and keep its state; a reverse
// direction reverses each sequence within its length) are supported.
//
//===----------------------------------------------------------------------===//

#include "passes/conversion/Foreign/Builders.h"
#include "passes/conversion/OnnxToTsc/Compose.h"
#include "passes/conversion/OnnxToTsc/OnnxToTsc.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::fromonnx;
using namespace mlir::tsc::foreign;

MaybeValue fromonnx::entry(ForeignNode &node, MaybeValue x, int64_t i,
                           int64_t axis) {
  if (failed(x))
    return failure();
  RewriterBase &rw = node.getRewriter();
  FailureOr<Value> slice =
      buildSlice(node, cast<TypedValue<RankedTensorType>>(*x),
                 {rw.getIndexAttr(i)}, {rw.getIndexAttr(i + 1)}, {axis}, {1});
  if (failed(slice))
    return failure();
  SmallVector<OpFoldResult> sizes = node.sizes(*slice);
  sizes.erase(sizes.begin() + axis);
  return node.reshape(*slice, sizes);
}

MaybeValue fromonnx::insertDim(ForeignNode &node, MaybeValue x, int64_t dim) {
  if (failed(x))
    return failure();
  SmallVector<OpFoldResult> sizes = node.sizes(*x);
  if (dim < 0 || dim > static_cast<int64_t>(sizes.size()))
    return node.fail("cannot insert a dim at " + Twine(dim) + " into a rank-" +
                     Twine(sizes.size()) + " value");
  sizes.insert(sizes.begin() + dim, node.getRewriter().getIndexAttr(1));
  return node.reshape(*x, sizes);
}

MaybeValue fromonnx::concat(ForeignNode &node, ArrayRef<Value> xs,
                            int64_t axis) {
  ConcatOp::Properties properties;
  properties.axis = node.getRewriter().getI64IntegerAttr(axis);
  return node.create<ConcatOp>(xs, properties);
}

namespace {

using Values = SmallVector<Value>;

enum class Cell { Rnn, Gru, Lstm };

/// One of the spec's activation functions, with its alpha and beta.
struct Activation {
  std::string name;
  float alpha = 0.0f, beta = 0.0f;
};

/// The activations of `cell` for `directions` directions: the attribute's
/// names (alphas and betas taken in order by the functions that use them)
/// or the defaults.
FailureOr<SmallVector<Activation>> readActivations(ForeignNode &node, Cell cell,
                                                   int64_t directions) {
  SmallVector<StringRef> defaults =
      cell == Cell::Rnn   ? SmallVector<StringRef>{"Tanh"}
      : cell == Cell::Gru ? SmallVector<StringRef>{"Sigmoid", "Tanh"}
                          : SmallVector<StringRef>{"Sigmoid", "Tanh", "Tanh"};
  SmallVector<Activation> out;
  auto names = dyn_cast_or_null<ArrayAttr>(
      node.getOp().getSourceAttributes().get("activations"));
  if (!names) {
    for (int64_t d = 0; d < directions; ++d)
      for (StringRef name : defaults)
        out.push_back({name.str()});
    return out;
  }
  if (static_cast<int64_t>(names.size()) !=
      static_cast<int64_t>(defaults.size()) * directions)
    return node.fail("activations has " + Twine(names.size()) +
                     " names, expected " + Twine(defaults.size() * directions));
  auto floats = [&](StringRef attr) {
    SmallVector<float> values;
    if (auto list = dyn_cast_or_null<DenseF32ArrayAttr>(
            node.getOp().getSourceAttributes().get(attr)))
      llvm::append_range(values, list.asArrayRef());
    return values;
  };
  SmallVector<float> alphas = floats("activation_alpha");
  SmallVector<float> betas = floats("activation_beta");
  size_t nextAlpha = 0, nextBeta = 0;
  for (Attribute a : names) {
    auto s = dyn_cast<StringAttr>(a);
    if (!s)
      return node.fail("activations must be strings");
    Activation act{s.getValue().str()};
    StringRef n = act.name;
    auto take = [](SmallVector<float> &list, size_t &next, float fallback) {
      return next < list.size() ? list[next++] : fallback;
    };
    if (n == "Affine" || n == "ScaledTanh") {
      act.alpha = take(alphas, nextAlpha, 1.0f);
      act.beta = take(betas, nextBeta, 0.0f);
    } else if (n == "LeakyRelu") {
      act.alpha = take(alphas, nextAlpha, 0.01f);
    } else if (n == "ThresholdedRelu" || n == "Elu") {
      act.alpha = take(alphas, nextAlpha, 1.0f);
    } else if (n == "HardSigmoid") {
      act.alpha = take(alphas, nextAlpha, 0.2f);
      act.beta = take(betas, nextBeta, 0.5f);
    } else if (n != "Sigmoid" && n != "Tanh" && n != "Relu" &&
               n != "Softsign" && n != "Softplus") {
      return node.fail("activation '" + n + "' is not one of the spec's");
    }
    out.push_back(act);
  }
  return out;
}

/// The activation `act` of `x`.
MaybeValue activate(ForeignNode &node, const Activation &act, MaybeValue x) {
  if (failed(x))
    return failure();
  Type f = elementTypeOf(*x);
  auto c = [&](double v) -> MaybeValue { return node.scalar(f, v); };
  StringRef n = act.name;
  if (n == "Sigmoid")
    return unary<SigmoidOp>(node, x);
  if (n == "Tanh")
    return unary<TanhOp>(node, x);
  if (n == "Relu")
    return unary<ReluOp>(node, x);
  if (n == "Affine")
    return binary<AddOp>(node, binary<MulOp>(node, x, c(act.alpha)),
                         c(act.beta));
  if (n == "ScaledTanh")
    return binary<MulOp>(
        node, c(act.alpha),
        unary<TanhOp>(node, binary<MulOp>(node, x, c(act.beta))));
  if (n == "LeakyRelu")
    return select(node, binary<LessOp>(node, x, c(0.0)),
                  binary<MulOp>(node, x, c(act.alpha)), x);
  if (n == "ThresholdedRelu")
    return select(node, binary<GreaterOp>(node, x, c(act.alpha)), x, c(0.0));
  if (n == "Elu")
    return select(
        node, binary<LessOp>(node, x, c(0.0)),
        binary<MulOp>(node, c(act.alpha),
                      binary<SubOp>(node, unary<ExpOp>(node, x), c(1.0))),
        x);
  if (n == "HardSigmoid")
    return binary<MinOp>(
        node, c(1.0),
        binary<MaxOp>(node, c(0.0),
                      binary<AddOp>(node, binary<MulOp>(node, x, c(act.alpha)),
                                    c(act.beta))));
  if (n == "Softsign")
    return binary<DivOp>(node, x,
                         binary<AddOp>(node, c(1.0), unary<AbsOp>(node, x)));
  // Softplus.
  return unary<LogOp>(node, binary<AddOp>(node, unary<ExpOp>(node, x), c(1.0)));
}

/// Slice [offset, offset + size) of the last dim of `x`.
MaybeValue lastSlice(ForeignNode &node, MaybeValue x, int64_t offset,
                     int64_t size) {
  if (failed(x))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  RewriterBase &rw = node.getRewriter();
  return buildSlice(node, cast<TypedValue<RankedTensorType>>(*x),
                    {rw.getIndexAttr(offset)}, {rw.getIndexAttr(offset + size)},
                    {type.getRank() - 1}, {1});
}

/// What one direction of the recurrence reads.
struct Direction {
  Value xw;            // [S, B, gates * H]: the inputs' projections plus Wb
  Value rT;            // [H, gates * H]
  Value rBias;         // [gates * H], or null
  Value candidateBias; // GRU without linear_before_reset: Rb_h, or null
  Value peep;          // LSTM: [3 * H] (i, o, f), or null
  Value h0, c0;        // [B, H]
  ArrayRef<Activation> acts;
  bool reverse;
};

struct Recurrence {
  ForeignNode &node;
  Cell cell;
  int64_t hidden, steps;
  float clip;
  bool linearBeforeReset, inputForget;
  Value keep; // [S, B, 1] i1: step t is within sequence b, or null

  MaybeValue clipped(MaybeValue x) {
    if (clip <= 0.0f || failed(x))
      return x;
    Type f = elementTypeOf(*x);
    return binary<MaxOp>(node, node.scalar(f, -clip),
                         binary<MinOp>(node, x, node.scalar(f, clip)));
  }
  MaybeValue gate(MaybeValue x, int64_t g) {
    return lastSlice(node, x, g * hidden, hidden);
  }

  /// Runs one direction; returns the outputs of every step in time order
  /// ([S, B, H] as a list), the last hidden and the last cell state.
  FailureOr<std::tuple<SmallVector<Value>, Value, Value>>
  run(const Direction &dir) {
    Value h = dir.h0, c = dir.c0;
    SmallVector<Value> outputs(steps);
    for (int64_t i = 0; i < steps; ++i) {
      int64_t t = dir.reverse ? steps - 1 - i : i;
      MaybeValue x = entry(node, dir.xw, t);
      MaybeValue hr = node.create<MatmulOp>({h, dir.rT});
      if (dir.rBias)
        hr = binary<AddOp>(node, hr, dir.rBias);
      MaybeValue newH, newC;
      if (cell == Cell::Rnn) {
        newH = activate(node, dir.acts[0], clipped(binary<AddOp>(node, x, hr)));
      } else if (cell == Cell::Gru) {
        MaybeValue z =
            activate(node, dir.acts[0],
                     clipped(binary<AddOp>(node, gate(x, 0), gate(hr, 0))));
        MaybeValue r =
            activate(node, dir.acts[0],
                     clipped(binary<AddOp>(node, gate(x, 1), gate(hr, 1))));
        MaybeValue candidate;
        if (linearBeforeReset) {
          candidate = binary<AddOp>(node, gate(x, 2),
                                    binary<MulOp>(node, r, gate(hr, 2)));
        } else {
          MaybeValue rh = binary<MulOp>(node, r, h);
          MaybeValue rhR =
              failed(rh)
                  ? rh
                  : node.create<MatmulOp>(
                        {*rh, *lastSlice(node, dir.rT, 2 * hidden, hidden)});
          candidate = binary<AddOp>(node, gate(x, 2), rhR);
          if (dir.candidateBias)
            candidate = binary<AddOp>(node, candidate, dir.candidateBias);
        }
        MaybeValue hTilde = activate(node, dir.acts[1], clipped(candidate));
        Type f = elementTypeOf(h);
        // (1 - z) * h~ + z * h
        newH = binary<AddOp>(
            node,
            binary<MulOp>(node, binary<SubOp>(node, node.scalar(f, 1.0), z),
                          hTilde),
            binary<MulOp>(node, z, h));
      } else {
        auto peephole = [&](MaybeValue pre, int64_t p, Value state) {
          if (!dir.peep)
            return pre;
          return binary<AddOp>(
              node, pre,
              binary<MulOp>(node, lastSlice(node, dir.peep, p * hidden, hidden),
                            state));
        };
        MaybeValue pre = binary<AddOp>(node, x, hr);
        // Gates in the spec's order: i, o, f, c; peepholes i, o, f.
        MaybeValue in =
            activate(node, dir.acts[0], clipped(peephole(gate(pre, 0), 0, c)));
        MaybeValue forget =
            inputForget
                ? binary<SubOp>(node, node.scalar(elementTypeOf(h), 1.0), in)
                : activate(node, dir.acts[0],
                           clipped(peephole(gate(pre, 2), 2, c)));
        MaybeValue candidate =
            activate(node, dir.acts[1], clipped(gate(pre, 3)));
        newC = binary<AddOp>(node, binary<MulOp>(node, forget, c),
                             binary<MulOp>(node, in, candidate));
        if (failed(newC))
          return failure();
        MaybeValue out = activate(node, dir.acts[0],
                                  clipped(peephole(gate(pre, 1), 1, *newC)));
        newH = binary<MulOp>(node, out, activate(node, dir.acts[2], newC));
      }
      if (failed(newH))
        return failure();
      if (keep) {
        // Past a sequence's end: zeros out, state kept.
        MaybeValue k = entry(node, keep, t);
        Type f = elementTypeOf(h);
        MaybeValue y = select(node, k, newH, node.scalar(f, 0.0));
        newH = select(node, k, newH, h);
        if (cell == Cell::Lstm)
          newC = select(node, k, newC, c);
        if (failed(y) || failed(newH) || (cell == Cell::Lstm && failed(newC)))
          return failure();
        outputs[t] = *y;
      } else {
        outputs[t] = *newH;
      }
      h = *newH;
      if (cell == Cell::Lstm)
        c = *newC;
    }
    return std::make_tuple(outputs, h, c);
  }
};

FailureOr<Values> convertRecurrent(ForeignNode &node, Cell cell) {
  auto xIn = node.input(0);
  auto w = node.input(1);
  auto r = node.input(2);
  if (failed(xIn) || failed(w) || failed(r))
    return failure();
  int64_t gates = cell == Cell::Rnn ? 1 : cell == Cell::Gru ? 3 : 4;
  int64_t hidden = node.getInt("hidden_size", 0);
  StringRef direction = node.getString("direction", "forward");
  if (direction != "forward" && direction != "reverse" &&
      direction != "bidirectional")
    return node.fail("direction '" + direction +
                     "' is not forward, reverse "
                     "or bidirectional");
  int64_t directions = direction == "bidirectional" ? 2 : 1;
  bool batchFirst = node.getInt("layout", 0) == 1;
  RankedTensorType xt = xIn->getType();
  if (xt.getRank() != 3 || w->getType().getRank() != 3 ||
      r->getType().getRank() != 3)
    return node.fail("X, W and R must be rank 3");
  if (hidden <= 0 || w->getType().getDimSize(1) != gates * hidden ||
      r->getType().getDimSize(1) != gates * hidden ||
      w->getType().getDimSize(0) != directions)
    return node.fail("W and R must be [" + Twine(directions) + ", " +
                     Twine(gates) + " * hidden_size, ...] with hidden_size " +
                     Twine(hidden));
  RewriterBase &rw = node.getRewriter();
  Value x = *xIn;
  if (batchFirst) {
    FailureOr<Value> t = node.transpose(x, {1, 0, 2});
    if (failed(t))
      return failure();
    x = *t;
  }
  int64_t steps = cast<RankedTensorType>(x.getType()).getDimSize(0);
  if (ShapedType::isDynamic(steps))
    return node.fail("the sequence length must be static (the recurrence is "
                     "unrolled)");
  FailureOr<SmallVector<Activation>> acts =
      readActivations(node, cell, directions);
  if (failed(acts))
    return failure();

  Recurrence rec{node,
                 cell,
                 hidden,
                 steps,
                 node.getFloat("clip", 0.0f),
                 node.getInt("linear_before_reset", 0) != 0,
                 node.getInt("input_forget", 0) != 0,
                 Value()};
  OpFoldResult batch = node.dimSize(x, 1);
  Type f = cast<RankedTensorType>(x.getType()).getElementType();
  // Optional inputs: B (3), sequence_lens (4), initial_h (5), and for LSTM
  // initial_c (6) and P (7).
  FailureOr<Value> bias = node.optionalInput(3);
  FailureOr<Value> lengths = node.optionalInput(4);
  FailureOr<Value> h0 = node.optionalInput(5);
  FailureOr<Value> c0 =
      cell == Cell::Lstm ? node.optionalInput(6) : FailureOr<Value>(Value());
  FailureOr<Value> peep =
      cell == Cell::Lstm ? node.optionalInput(7) : FailureOr<Value>(Value());
  if (failed(bias) || failed(lengths) || failed(h0) || failed(c0) ||
      failed(peep))
    return failure();
  // Initial states as [directions, B, H].
  auto directionsFirst = [&](Value state) -> MaybeValue {
    if (!state || !batchFirst)
      return state;
    return node.transpose(state, {1, 0, 2});
  };
  MaybeValue initialH = directionsFirst(*h0), initialC = directionsFirst(*c0);
  if (failed(initialH) || failed(initialC))
    return failure();
  Value zeros = buildFilled(
      node, {batch, rw.getIndexAttr(hidden)},
      DenseElementsAttr::get(RankedTensorType::get({}, f), rw.getZeroAttr(f)));
  Value lengths64;
  if (*lengths) {
    lengths64 = castTo(node, *lengths, rw.getI64Type());
    // keep[t, b] = t < lengths[b], as [S, B, 1].
    FailureOr<Value> times = buildRange(
        node, rw.getI64Type(),
        {rw.getIndexAttr(0), rw.getIndexAttr(steps), rw.getIndexAttr(1)});
    MaybeValue column = failed(times) ? times : insertDim(node, *times, 1);
    MaybeValue keep =
        insertDim(node, binary<LessOp>(node, column, lengths64), 2);
    if (failed(keep))
      return failure();
    rec.keep = *keep;
  }

  SmallVector<SmallVector<Value>> outputs;
  SmallVector<Value> lastH, lastC;
  for (int64_t d = 0; d < directions; ++d) {
    bool reverse = direction == "reverse" || d == 1;
    Direction dir;
    dir.reverse = reverse;
    dir.acts = ArrayRef(*acts).slice(d * (acts->size() / directions),
                                     acts->size() / directions);
    MaybeValue wT = node.transpose(*entry(node, *w, d), {1, 0});
    MaybeValue rT = node.transpose(*entry(node, *r, d), {1, 0});
    if (failed(wT) || failed(rT))
      return failure();
    dir.rT = *rT;
    // With sequence lengths, a reverse direction reads each sequence
    // reversed within its length, and its outputs are put back the same way.
    Value input = x;
    if (reverse && lengths64) {
      ReverseSequenceOp::Properties axes;
      axes.batch_axis = rw.getI64IntegerAttr(1);
      axes.time_axis = rw.getI64IntegerAttr(0);
      FailureOr<Value> reversed =
          node.create<ReverseSequenceOp>({x, lengths64}, axes);
      if (failed(reversed))
        return failure();
      input = *reversed;
      dir.reverse = false;
    }
    MaybeValue xw = node.create<MatmulOp>({input, *wT});
    if (*bias) {
      MaybeValue b = entry(node, *bias, d);
      xw = binary<AddOp>(node, xw, lastSlice(node, b, 0, gates * hidden));
      MaybeValue rb = lastSlice(node, b, gates * hidden, gates * hidden);
      if (failed(rb))
        return failure();
      dir.rBias = *rb;
      if (cell == Cell::Gru && !rec.linearBeforeReset) {
        // Rb_h is added after (r * h) R_h, not with h R (zeros there).
        MaybeValue zr = lastSlice(node, rb, 0, 2 * hidden);
        MaybeValue none =
            buildFilled(node, {rw.getIndexAttr(hidden)},
                        DenseElementsAttr::get(RankedTensorType::get({}, f),
                                               rw.getZeroAttr(f)));
        MaybeValue hBias = lastSlice(node, rb, 2 * hidden, hidden);
        if (failed(zr) || failed(hBias))
          return failure();
        MaybeValue both = concat(node, {*zr, *none}, 0);
        if (failed(both))
          return failure();
        dir.rBias = *both;
        dir.candidateBias = *hBias;
      }
    }
    if (failed(xw))
      return failure();
    dir.xw = *xw;
    if (*peep) {
      MaybeValue p = entry(node, *peep, d);
      if (failed(p))
        return failure();
      dir.peep = *p;
    }
    MaybeValue hInit = *initialH ? entry(node, *initialH, d) : zeros;
    MaybeValue cInit = *initialC ? entry(node, *initialC, d) : zeros;
    if (failed(hInit) || failed(cInit))
      return failure();
    dir.h0 = *hInit;
    dir.c0 = *cInit;
    auto result = rec.run(dir);
    if (failed(result))
      return failure();
    auto [ys, h, c] = *result;
    SmallVector<Value> steps;
    for (Value y : ys) {
      MaybeValue step = insertDim(node, y, 0);
      if (failed(step))
        return failure();
      steps.push_back(*step);
    }
    MaybeValue y = concat(node, steps, 0);
    if (failed(y))
      return failure();
    if (reverse && lengths64) {
      ReverseSequenceOp::Properties axes;
      axes.batch_axis = rw.getI64IntegerAttr(1);
      axes.time_axis = rw.getI64IntegerAttr(0);
      y = node.create<ReverseSequenceOp>({*y, lengths64}, axes);
      if (failed(y))
        return failure();
    }
    outputs.push_back({*y});
    lastH.push_back(h);
    lastC.push_back(c);
  }
  // Y: [S, directions, B, H]; Y_h, Y_c: [directions, B, H] (layout 1:
  // [B, S, directions, H] and [B, directions, H]).
  SmallVector<Value> ys, hs, cs;
  for (int64_t d = 0; d < directions; ++d) {
    MaybeValue y = insertDim(node, outputs[d].front(), 1);
    MaybeValue h = insertDim(node, lastH[d], 0);
    MaybeValue c = insertDim(node, lastC[d], 0);
    if (failed(y) || failed(h) || failed(c))
      return failure();
    ys.push_back(*y);
    hs.push_back(*h);
    cs.push_back(*c);
  }
  MaybeValue y = directions == 1 ? MaybeValue(ys[0]) : concat(node, ys, 1);
  MaybeValue yh = directions == 1 ? MaybeValue(hs[0]) : concat(node, hs, 0);
  MaybeValue yc = directions == 1 ? MaybeValue(cs[0]) : concat(node, cs, 0);
  if (batchFirst) {
    y = failed(y) ? y : node.transpose(*y, {2, 0, 1, 3});
    yh = failed(yh) ? yh : node.transpose(*yh, {1, 0, 2});
    yc = failed(yc) ? yc : node.transpose(*yc, {1, 0, 2});
  }
  if (failed(y) || failed(yh) || failed(yc))
    return failure();
  if (cell == Cell::Lstm)
    return Values{*y, *yh, *yc};
  return Values{*y, *yh};
}

} // namespace

void fromonnx::populateRecurrentConverters(ForeignConverters &c) {
  c.add("RNN", 7,
        [](ForeignNode &node) { return convertRecurrent(node, Cell::Rnn); });
  c.add("GRU", 7,
        [](ForeignNode &node) { return convertRecurrent(node, Cell::Gru); });
  c.add("LSTM", 7,
        [](ForeignNode &node) { return convertRecurrent(node, Cell::Lstm); });
}
