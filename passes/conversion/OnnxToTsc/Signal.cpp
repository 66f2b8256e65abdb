//===- Signal.cpp - ONNX DFT, STFT, windows, MelWeightMatrix and Det -----===//
//
// The signal ops have compile-time lengths in the models tsc takes, so their
// trigonometry is evaluated here in double precision: DFT becomes one matmul
// with a constant twiddle matrix (exact to f32 rounding for the lengths
// models use; an FFT would only pay off for long signals), a window function
// a constant. Det of small static matrices is Leibniz's permutation sum.
// STFT and MelWeightMatrix may take their sizes as graph inputs: their
// twiddles and triangles are then computed at run time from symbols.
//
//===----------------------------------------------------------------------===//

#include "passes/conversion/Foreign/Builders.h"
#include "passes/conversion/Foreign/IndexMath.h"
#include "passes/conversion/OnnxToTsc/Compose.h"
#include "passes/conversion/OnnxToTsc/OnnxToTsc.h"

#include <algorithm>
#include <cmath>
#include <numeric>

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::fromonnx;
using namespace mlir::tsc::foreign;

namespace {

using Values = SmallVector<Value>;

/// A constant of `shape` and float `element` holding `values` (computed in
/// double, rounded to the element type).
Value floatConstant(ForeignNode &node, ArrayRef<int64_t> shape, Type element,
                    ArrayRef<double> values) {
  const llvm::fltSemantics &semantics =
      cast<FloatType>(element).getFloatSemantics();
  SmallVector<APFloat> rounded;
  for (double v : values) {
    APFloat f(v);
    bool losesInfo;
    f.convert(semantics, APFloat::rmNearestTiesToEven, &losesInfo);
    rounded.push_back(f);
  }
  return ConstantOp::create(
      node.getRewriter(), node.getLoc(),
      DenseElementsAttr::get(RankedTensorType::get(shape, element), rounded));
}

//===----------------------------------------------------------------------===//
// DFT
//===----------------------------------------------------------------------===//

/// What one DFT node computes along its axis: `in` samples (complex when
/// `complexIn`) to `out` samples of `dft_length` `length`.
struct DftPlan {
  int64_t in, out, length;
  bool complexIn, complexOut, inverse, onesided;

  /// The complex weight of input sample `n` in output sample `k`; the
  /// truncated samples (past the length) weigh nothing.
  std::pair<double, double> weight(int64_t n, int64_t k) const {
    // n * k reduced modulo the length keeps the angle small and exact.
    double angle = 2.0 * M_PI * static_cast<double>((n * k) % length) /
                   static_cast<double>(length);
    double scale = inverse ? 1.0 / static_cast<double>(length) : 1.0;
    if (inverse && onesided) {
      // numpy's irfft: bins 1 .. length/2 stand for their mirror images too,
      // except the Nyquist bin of an even length.
      if (2 * n > length)
        return {0.0, 0.0};
      if (n != 0 && 2 * n != length)
        scale *= 2.0;
    } else if (n >= length) {
      return {0.0, 0.0};
    }
    double sign = inverse ? 1.0 : -1.0;
    return {scale * std::cos(angle), sign * scale * std::sin(angle)};
  }

  /// The real matrix [inComponents * in, outComponents * out] that maps the
  /// flattened (component, sample) input to the flattened output:
  /// (a + ib)(wr + i wi) = (a wr - b wi) + i (a wi + b wr).
  SmallVector<double> matrix() const {
    int64_t inC = complexIn ? 2 : 1, outC = complexOut ? 2 : 1;
    int64_t columns = outC * out;
    SmallVector<double> m(inC * in * columns, 0.0);
    for (int64_t n = 0; n < in; ++n)
      for (int64_t k = 0; k < out; ++k) {
        auto [wr, wi] = weight(n, k);
        m[n * columns + k] = wr;
        if (complexOut)
          m[n * columns + out + k] = wi;
        if (complexIn) {
          m[(in + n) * columns + k] = -wi;
          if (complexOut)
            m[(in + n) * columns + out + k] = wr;
        }
      }
    return m;
  }
};

/// The DFT of `x` along `axis` (normalized, not the component dim) as the
/// node's attributes and constant dft_length ask.
FailureOr<Value> dftAlong(ForeignNode &node, TypedValue<RankedTensorType> x,
                          int64_t axis) {
  RankedTensorType type = x.getType();
  int64_t rank = type.getRank();
  int64_t components = type.getDimSize(rank - 1);
  DftPlan plan;
  plan.in = type.getDimSize(axis);
  if (ShapedType::isDynamic(plan.in))
    return node.fail("the signal dim " + Twine(axis) + " must be static");
  plan.inverse = node.getInt("inverse", 0) != 0;
  plan.onesided = node.getInt("onesided", 0) != 0;
  plan.complexIn = components == 2;
  plan.length = plan.inverse && plan.onesided ? 2 * (plan.in - 1) : plan.in;
  if (node.hasInput(1)) {
    FailureOr<SmallVector<int64_t>> values = node.constantInts(1);
    if (failed(values))
      return failure();
    if (values->size() != 1)
      return node.fail("dft_length must be one integer");
    plan.length = values->front();
  }
  if (plan.length < 1)
    return node.fail("dft_length " + Twine(plan.length) + " is not positive");
  if (plan.inverse && plan.onesided && !plan.complexIn)
    return node.fail("an inverse one-sided DFT takes a complex input");
  plan.complexOut = !(plan.inverse && plan.onesided);
  plan.out = plan.onesided && !plan.inverse ? plan.length / 2 + 1 : plan.length;

  // [others..., components, signal] flattened to rows of one matmul.
  SmallVector<int64_t> perm;
  for (int64_t d = 0; d < rank - 1; ++d)
    if (d != axis)
      perm.push_back(d);
  perm.append({rank - 1, axis});
  FailureOr<Value> moved = node.transpose(x, perm);
  if (failed(moved))
    return failure();
  RewriterBase &rw = node.getRewriter();
  SmallVector<OpFoldResult> sizes = node.sizes(*moved);
  OpFoldResult rows = rw.getIndexAttr(1);
  for (int64_t d = 0; d < rank - 2; ++d)
    rows = node.multiply(rows, sizes[d]);
  int64_t inWidth = components * plan.in;
  int64_t outComponents = plan.complexOut ? 2 : 1;
  Value flat = node.reshape(*moved, {rows, rw.getIndexAttr(inWidth)});
  Value twiddles = floatConstant(node, {inWidth, outComponents * plan.out},
                                 type.getElementType(), plan.matrix());
  FailureOr<Value> product = node.create<MatmulOp>({flat, twiddles});
  if (failed(product))
    return failure();
  sizes[rank - 2] = rw.getIndexAttr(outComponents);
  sizes[rank - 1] = rw.getIndexAttr(plan.out);
  SmallVector<int64_t> inversePerm(rank);
  for (int64_t d = 0; d < rank; ++d)
    inversePerm[perm[d]] = d;
  return node.transpose(node.reshape(*product, sizes), inversePerm);
}

/// DFT with its axis read at run time (opset 20's input #2 as a graph input
/// or a computed value): the DFT along every admissible axis whose result
/// has the type the node declares (all of them when it declares none
/// statically), selected by the axis. The axis is a symbol that a run
/// checks: one naming another dim is refused, since its result would have
/// another shape.
FailureOr<Value> dftAtRuntimeAxis(ForeignNode &node,
                                  TypedValue<RankedTensorType> x) {
  int64_t rank = x.getType().getRank();
  FailureOr<SmallVector<Value>> read = node.runtimeInts(2, -rank, rank - 2);
  if (failed(read))
    return failure();
  if (read->size() != 1)
    return node.fail("the axis must be one integer");
  auto declared =
      dyn_cast<RankedTensorType>(node.getOp()->getResult(0).getType());
  SmallVector<std::pair<int64_t, Value>> candidates;
  bool halfSpectrumIn = node.getInt("inverse", 0) && node.getInt("onesided", 0);
  for (int64_t axis = 0; axis < rank - 1; ++axis) {
    // A one-sided inverse of one bin has no length: not an axis to choose.
    if (halfSpectrumIn && !node.hasInput(1) &&
        x.getType().getDimSize(axis) == 1)
      continue;
    FailureOr<Value> result = dftAlong(node, x, axis);
    if (failed(result))
      return failure();
    Type type = result->getType();
    if (declared && declared.hasStaticShape() && type != declared)
      continue;
    if (!candidates.empty() && type != candidates.front().second.getType())
      return node.fail("the axis is read at run time and the result's shape "
                       "depends on it (axes " +
                       Twine(candidates.front().first) + " and " + Twine(axis) +
                       " give different shapes)");
    candidates.push_back({axis, *result});
  }
  if (candidates.empty())
    return node.fail("the axis is read at run time and no axis gives the "
                     "declared result type");
  // The axis normalized, or -1 (outside the symbol's range: a run refuses
  // it) where it names no candidate.
  RewriterBase &rw = node.getRewriter();
  IndexMath im{rw, node.getLoc()};
  Value raw = read->front();
  Value axis = im.select(im.lt(raw, im.c(0)), im.add(raw, im.c(rank)), raw);
  Value valid = im.eq(axis, im.c(candidates.front().first));
  for (auto &[candidate, result] : ArrayRef(candidates).drop_front())
    valid = arith::OrIOp::create(rw, node.getLoc(), valid,
                                 im.eq(axis, im.c(candidate)));
  Value checked =
      node.defineSymbol("axis", im.select(valid, axis, im.c(-1)),
                        candidates.front().first, candidates.back().first);
  Type i64 = rw.getI64Type();
  Value selector = buildShapeTensor(rw, node.getLoc(), {checked},
                                    /*scalar=*/true, i64);
  // NaN where no candidate is selected, which the symbol's check rules out:
  // even a single candidate's result depends on the checked axis, so the
  // check stays in the plan.
  Value first = candidates.front().second;
  auto resultType = cast<RankedTensorType>(first.getType());
  MaybeValue selected = buildFilled(
      node, node.sizes(first),
      DenseElementsAttr::get(
          RankedTensorType::get({}, resultType.getElementType()),
          rw.getFloatAttr(resultType.getElementType(), NAN).getValue()));
  for (auto &[candidate, result] : candidates)
    selected = select(
        node,
        binary<EqualOp>(node, selector, node.scalar(i64, double(candidate))),
        result, selected);
  return selected;
}

/// DFT (17, 20): axis an attribute (default 1) up to 19, then input #2
/// (default -2): a constant, or read at run time (dftAtRuntimeAxis);
/// dft_length an optional constant input #1.
FailureOr<Values> convertDft(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  RankedTensorType type = x->getType();
  int64_t rank = type.getRank();
  Type element = type.getElementType();
  if (!isa<FloatType>(element))
    return node.fail("the input must be a float tensor");
  if (rank < 2)
    return node.fail("the input must have a batch dim and the component dim");
  int64_t components = type.getDimSize(rank - 1);
  if (components != 1 && components != 2)
    return node.fail("the last dim must be 1 (real) or 2 (complex), not " +
                     Twine(components));
  int64_t axis = node.getInt("axis", 1);
  if (node.getVersion() >= 20) {
    axis = -2;
    if (node.hasInput(2) && node.isRuntimeInts(2))
      return results(dftAtRuntimeAxis(node, *x));
    if (node.hasInput(2)) {
      FailureOr<SmallVector<int64_t>> values = node.constantInts(2);
      if (failed(values))
        return failure();
      if (values->size() != 1)
        return node.fail("the axis must be one integer");
      axis = values->front();
    }
  }
  if (axis < -rank || axis >= rank)
    return node.fail("axis " + Twine(axis) + " is out of range for rank " +
                     Twine(rank));
  axis = (axis + rank) % rank;
  if (axis == rank - 1)
    return node.fail("the axis cannot be the component dim");
  return results(dftAlong(node, *x, axis));
}

//===----------------------------------------------------------------------===//
// Window functions
//===----------------------------------------------------------------------===//

enum class WindowKind { Hann, Hamming, Blackman };

/// HannWindow, HammingWindow, BlackmanWindow (17): a constant of the
/// length input #0, periodic (the default: the length + 1 symmetric window
/// without its last sample) or symmetric, of output_datatype (float).
/// A window whose size the model takes at run time: the same formula over
/// a range of that size (a symbol read from the input), in f64.
template <WindowKind kind>
MaybeValue windowAtRuntime(ForeignNode &node, Type element, bool periodic) {
  FailureOr<SmallVector<Value>> read = node.runtimeInts(0, 0, kDefaultValueMax);
  if (failed(read))
    return failure();
  if (read->size() != 1)
    return node.fail("the size must be one integer");
  RewriterBase &rw = node.getRewriter();
  IndexMath im{rw, node.getLoc()};
  Value size = read->front();
  Type f64 = rw.getF64Type(), i64 = rw.getI64Type();
  FailureOr<Value> range =
      buildRange(node, i64, {rw.getIndexAttr(0), size, rw.getIndexAttr(1)});
  if (failed(range))
    return failure();
  // The period (size, or size - 1 when symmetric) as a 0-d f64; a window of
  // one element is its i = 0 term whatever it is divided by.
  Value period = im.max(periodic ? size : im.sub(size, im.c(1)), im.c(1));
  Value n = castTo(node,
                   buildShapeTensor(rw, node.getLoc(), {period},
                                    /*scalar=*/true, i64),
                   f64);
  MaybeValue a = binary<DivOp>(node,
                               binary<MulOp>(node, castTo(node, *range, f64),
                                             node.scalar(f64, 2.0 * M_PI)),
                               n);
  auto cosine = [&](double times) {
    return unary<CosOp>(node, binary<MulOp>(node, a, node.scalar(f64, times)));
  };
  auto term = [&](double c, double times) {
    return binary<MulOp>(node, cosine(times), node.scalar(f64, c));
  };
  MaybeValue w;
  switch (kind) {
  case WindowKind::Hann:
    w = binary<SubOp>(node, node.scalar(f64, 0.5), term(0.5, 1));
    break;
  case WindowKind::Hamming:
    w = binary<SubOp>(node, node.scalar(f64, 25.0 / 46.0),
                      term(21.0 / 46.0, 1));
    break;
  case WindowKind::Blackman:
    w = binary<AddOp>(node,
                      binary<SubOp>(node, node.scalar(f64, 0.42), term(0.5, 1)),
                      term(0.08, 2));
    break;
  }
  if (failed(w))
    return failure();
  return castTo(node, *w, element);
}

/// The element type `output_datatype` names (default float).
FailureOr<Type> outputDatatype(ForeignNode &node) {
  Type element =
      onnxElementType(node.getContext(), node.getInt("output_datatype", 1));
  if (!element)
    return node.fail("output_datatype " +
                     Twine(node.getInt("output_datatype", 1)) +
                     " is not a type tsc has");
  return element;
}

template <WindowKind kind> FailureOr<Values> convertWindow(ForeignNode &node) {
  if (node.isRuntimeInts(0)) {
    FailureOr<Type> element = outputDatatype(node);
    if (failed(element))
      return failure();
    return results(
        windowAtRuntime<kind>(node, *element, node.getInt("periodic", 1) != 0));
  }
  FailureOr<SmallVector<int64_t>> values = node.constantInts(0);
  if (failed(values))
    return failure();
  if (values->size() != 1)
    return node.fail("the size must be one integer");
  int64_t size = values->front();
  if (size < 0)
    return node.fail("the size " + Twine(size) + " is negative");
  FailureOr<Type> outType = outputDatatype(node);
  if (failed(outType))
    return failure();
  Type element = *outType;
  bool periodic = node.getInt("periodic", 1) != 0;
  double n = static_cast<double>(periodic ? size : size - 1);
  SmallVector<double> window;
  for (int64_t i = 0; i < size; ++i) {
    double a = n > 0 ? 2.0 * M_PI * static_cast<double>(i) / n : 0.0;
    switch (kind) {
    case WindowKind::Hann:
      window.push_back(0.5 - 0.5 * std::cos(a));
      break;
    case WindowKind::Hamming:
      // ONNX's coefficients: 25/46 and 21/46.
      window.push_back(25.0 / 46.0 - 21.0 / 46.0 * std::cos(a));
      break;
    case WindowKind::Blackman:
      window.push_back(0.42 - 0.5 * std::cos(a) + 0.08 * std::cos(2.0 * a));
      break;
    }
  }
  if (isa<FloatType>(element))
    return Values{floatConstant(node, {size}, element, window)};
  SmallVector<APInt> ints;
  for (double v : window)
    ints.push_back(APInt(element.getIntOrFloatBitWidth(),
                         static_cast<int64_t>(v), /*isSigned=*/true));
  return Values{ConstantOp::create(
      node.getRewriter(), node.getLoc(),
      DenseElementsAttr::get(RankedTensorType::get({size}, element), ints))};
}

//===----------------------------------------------------------------------===//
// MelWeightMatrix
//===----------------------------------------------------------------------===//

/// MelWeightMatrix (17): [dft_length / 2 + 1, num_mel_bins] triangles over
/// the mel scale, computed in f64 as ONNX's reference does (its mel step
/// divides by num_mel_bins + 2, and the band edges are floored to bins).
/// The sizes may be graph inputs (symbols read at run time) or constants.
FailureOr<Values> convertMelWeightMatrix(ForeignNode &node) {
  FailureOr<Type> outType = outputDatatype(node);
  if (failed(outType))
    return failure();
  Type element = *outType;
  FailureOr<SmallVector<OpFoldResult>> melRead =
      node.sizeElements(0, 1, kDefaultValueMax);
  FailureOr<SmallVector<OpFoldResult>> dftRead =
      node.sizeElements(1, 1, 2 * kDefaultValueMax);
  if (failed(melRead) || failed(dftRead))
    return failure();
  if (melRead->size() != 1 || dftRead->size() != 1)
    return node.fail("num_mel_bins and dft_length must be scalars");
  SmallVector<TypedValue<RankedTensorType>> in;
  for (unsigned i = 0; i < 5; ++i) {
    auto v = node.input(i);
    if (failed(v))
      return failure();
    if (v->getType().getNumElements() != 1)
      return node.fail("input #" + Twine(i) + " must be a scalar");
    in.push_back(*v);
  }
  RewriterBase &rw = node.getRewriter();
  IndexMath im{rw, node.getLoc()};
  Type f64 = rw.getF64Type(), i64 = rw.getI64Type();
  Value mel = node.toIndex(melRead->front());
  Value dft = node.toIndex(dftRead->front());
  OpFoldResult bins =
      constantOf(dftRead->front())
          ? OpFoldResult(rw.getIndexAttr(*constantOf(dftRead->front()) / 2 + 1))
          : OpFoldResult(node.defineSymbol(
                "spectrogram bins", im.add(im.div(dft, im.c(2)), im.c(1)), 1,
                kDefaultValueMax + 1));
  auto scalarOf = [&](unsigned i) -> MaybeValue {
    return castTo(node, node.reshape(in[i], {}), f64);
  };
  auto c = [&](double v) { return Value(node.scalar(f64, v)); };
  auto toMel = [&](MaybeValue hertz) {
    return binary<MulOp>(
        node,
        unary<LogOp>(node, binary<AddOp>(
                               node, binary<DivOp>(node, hertz, c(700)), c(1))),
        c(2595 / std::log(10.0)));
  };
  MaybeValue low = toMel(scalarOf(3)), high = toMel(scalarOf(4));
  MaybeValue step = binary<DivOp>(node, binary<SubOp>(node, high, low),
                                  binary<AddOp>(node, scalarOf(0), c(2)));
  // The band edges: mel_bins + 2 points, back to hertz, floored to bins.
  FailureOr<Value> points = buildRange(
      node, i64,
      {rw.getIndexAttr(0), im.add(mel, im.c(2)), rw.getIndexAttr(1)});
  if (failed(points))
    return failure();
  MaybeValue hertz = binary<MulOp>(
      node,
      binary<SubOp>(
          node,
          unary<ExpOp>(
              node,
              binary<MulOp>(
                  node,
                  binary<AddOp>(
                      node,
                      binary<MulOp>(node, castTo(node, *points, f64), step),
                      low),
                  c(std::log(10.0) / 2595))),
          c(1)),
      c(700));
  MaybeValue edges = unary<FloorOp>(
      node,
      binary<DivOp>(
          node,
          binary<MulOp>(node, binary<AddOp>(node, scalarOf(1), c(1)), hertz),
          scalarOf(2)));
  if (failed(edges))
    return failure();
  auto band = [&](int64_t from) -> MaybeValue {
    return insertDim(node,
                     buildSliceOp(node,
                                  cast<TypedValue<RankedTensorType>>(*edges),
                                  {rw.getIndexAttr(from)}, {OpFoldResult(mel)},
                                  {rw.getIndexAttr(1)}),
                     0);
  };
  MaybeValue left = band(0), center = band(1), right = band(2);
  FailureOr<Value> rows =
      buildRange(node, i64, {rw.getIndexAttr(0), bins, rw.getIndexAttr(1)});
  if (failed(rows))
    return failure();
  MaybeValue j = insertDim(node, castTo(node, *rows, f64), 1);
  // Rising edge on [left, center], falling on [center, right), which wins
  // where both hold; a band of no width is 1 at its center.
  MaybeValue rising = binary<DivOp>(node, binary<SubOp>(node, j, left),
                                    binary<SubOp>(node, center, left));
  MaybeValue falling = binary<DivOp>(node, binary<SubOp>(node, right, j),
                                     binary<SubOp>(node, right, center));
  // lo <= j (and j <= hi where `closed`, else j < hi), on a band of width.
  auto edge = [&](MaybeValue lo, MaybeValue hi, bool closed) {
    MaybeValue below =
        closed ? binary<LessEqualOp>(node, j, hi) : binary<LessOp>(node, j, hi);
    return binary<AndOp>(
        node, binary<AndOp>(node, binary<GreaterEqualOp>(node, j, lo), below),
        binary<GreaterOp>(node, hi, lo));
  };
  MaybeValue onRise = edge(left, center, /*closed=*/true);
  MaybeValue onFall = edge(center, right, /*closed=*/false);
  MaybeValue atCenter = binary<AndOp>(node, binary<EqualOp>(node, j, center),
                                      binary<EqualOp>(node, center, left));
  MaybeValue w =
      select(node, onFall, falling,
             select(node, onRise, rising, select(node, atCenter, c(1), c(0))));
  if (failed(w))
    return failure();
  return Values{castTo(node, *w, element)};
}

//===----------------------------------------------------------------------===//
// STFT
//===----------------------------------------------------------------------===//

/// STFT (17) of `signal` [batch, length, 1 or 2]: frames of `frame_length`
/// samples `frame_step` apart (gathered), times the window, and a DFT of
/// each as two matmuls with a twiddle matrix built from the frame length:
/// [batch, frames, bins, 2]. The step and length may be graph inputs
/// (symbols read at run time) or constants.
FailureOr<Values> convertStft(ForeignNode &node) {
  auto signal = node.input(0);
  if (failed(signal))
    return failure();
  RankedTensorType type = signal->getType();
  Type element = type.getElementType();
  if (type.getRank() != 3 || type.isDynamicDim(1) || type.isDynamicDim(2) ||
      type.getDimSize(2) < 1 || type.getDimSize(2) > 2 ||
      !isa<FloatType>(element))
    return node.fail("the signal must be float [batch, length, 1 or 2] of "
                     "static length");
  int64_t length = type.getDimSize(1);
  bool complexIn = type.getDimSize(2) == 2;
  FailureOr<Value> window = node.optionalInput(2);
  if (failed(window))
    return failure();
  if (*window && cast<RankedTensorType>(window->getType()).getRank() != 1)
    return node.fail(
        "the window must be 1-D (rank " +
        Twine(cast<RankedTensorType>(window->getType()).getRank()) + ")");
  FailureOr<SmallVector<OpFoldResult>> stepRead =
      node.sizeElements(1, 1, length);
  if (failed(stepRead) || stepRead->size() != 1)
    return failed(stepRead) ? failure()
                            : node.fail("frame_step must be a scalar");
  OpFoldResult frameLength = node.getRewriter().getIndexAttr(length);
  if (node.hasInput(3)) {
    FailureOr<SmallVector<OpFoldResult>> read = node.sizeElements(3, 1, length);
    if (failed(read) || read->size() != 1)
      return failed(read) ? failure()
                          : node.fail("frame_length must be a scalar");
    frameLength = read->front();
  } else if (*window) {
    frameLength = node.dimSize(*window, 0);
  }
  bool onesided = node.getInt("onesided", 1) != 0;
  if (onesided && complexIn)
    return node.fail("a one-sided STFT needs a real signal");
  RewriterBase &rw = node.getRewriter();
  IndexMath im{rw, node.getLoc()};
  Type f64 = rw.getF64Type(), i64 = rw.getI64Type();
  Value step = node.toIndex(stepRead->front());
  Value size = node.toIndex(frameLength);
  std::optional<int64_t> knownStep = constantOf(stepRead->front()),
                         knownSize = constantOf(frameLength);
  OpFoldResult frames, bins = frameLength;
  if (knownStep && knownSize) {
    if (*knownSize > length)
      return node.fail("the frame length " + Twine(*knownSize) +
                       " exceeds the signal's " + Twine(length));
    frames = rw.getIndexAttr((length - *knownSize) / *knownStep + 1);
  } else {
    // A run whose frame does not fit the signal fails naming the symbol.
    Value count = im.add(im.div(im.sub(im.c(length), size), step), im.c(1));
    frames = node.defineSymbol(
        "frames", im.select(im.lt(im.c(length), size), im.c(-1), count), 1,
        length);
  }
  if (onesided)
    bins = knownSize ? OpFoldResult(rw.getIndexAttr(*knownSize / 2 + 1))
                     : OpFoldResult(node.defineSymbol(
                           "bins", im.add(im.div(size, im.c(2)), im.c(1)), 1,
                           length / 2 + 1));
  auto range = [&](OpFoldResult n) {
    return buildRange(node, i64, {rw.getIndexAttr(0), n, rw.getIndexAttr(1)});
  };
  FailureOr<Value> frameIds = range(frames), sampleIds = range(frameLength),
                   binIds = range(bins);
  if (failed(frameIds) || failed(sampleIds) || failed(binIds))
    return failure();
  auto scalar = [&](Value v) -> Value {
    return buildShapeTensor(rw, node.getLoc(), {v}, /*scalar=*/true, i64);
  };
  // [frames, frame_length] sample positions, gathered: [batch, frames,
  // frame_length, 1 or 2].
  MaybeValue positions = binary<AddOp>(
      node, insertDim(node, binary<MulOp>(node, *frameIds, scalar(step)), 1),
      insertDim(node, *sampleIds, 0));
  if (failed(positions))
    return failure();
  FailureOr<Value> samples = buildGather(
      node, *signal, cast<TypedValue<RankedTensorType>>(*positions), 1);
  if (failed(samples))
    return failure();
  MaybeValue framed = *samples;
  if (*window)
    framed = binary<MulOp>(node, framed,
                           insertDim(node, castTo(node, *window, element), 1));
  // Twiddles [frame_length, bins]: the angle -2 pi (n k mod N) / N.
  MaybeValue turns =
      binary<ModOp>(node,
                    binary<MulOp>(node, insertDim(node, *sampleIds, 1),
                                  insertDim(node, *binIds, 0)),
                    scalar(size));
  MaybeValue angle =
      binary<DivOp>(node,
                    binary<MulOp>(node, castTo(node, *turns, f64),
                                  Value(node.scalar(f64, -2 * M_PI))),
                    castTo(node, scalar(size), f64));
  if (failed(angle))
    return failure();
  MaybeValue cosine = castTo(node, *unary<CosOp>(node, angle), element);
  MaybeValue sine = castTo(node, *unary<SinOp>(node, angle), element);
  auto part = [&](int64_t c) { return entry(node, framed, c, 3); };
  MaybeValue re = binary<MatmulOp>(node, part(0), cosine);
  MaybeValue im_ = binary<MatmulOp>(node, part(0), sine);
  if (complexIn) {
    re = binary<SubOp>(node, re, binary<MatmulOp>(node, part(1), sine));
    im_ = binary<AddOp>(node, im_, binary<MatmulOp>(node, part(1), cosine));
  }
  if (failed(re) || failed(im_))
    return failure();
  return results(
      concat(node, {*insertDim(node, re, 3), *insertDim(node, im_, 3)}, 3));
}

//===----------------------------------------------------------------------===//
// Det
//===----------------------------------------------------------------------===//

/// The largest matrix Det expands: 5! = 120 products of 5 factors each.
constexpr int64_t kMaxDetSize = 5;

/// Det (11, 22) of [..., n, n] for a static n <= kMaxDetSize: the sum over
/// the permutations s of sign(s) * prod_i x[i, s(i)], as a gather of the
/// flattened matrix, a product and a signed sum.
FailureOr<Values> convertDet(ForeignNode &node) {
  auto x = node.input(0);
  if (failed(x))
    return failure();
  RankedTensorType type = x->getType();
  int64_t rank = type.getRank();
  if (rank < 2 || !isa<FloatType>(type.getElementType()))
    return node.fail("the input must be float matrices [..., n, n]");
  int64_t n = type.getDimSize(rank - 1);
  if (ShapedType::isDynamic(n) || type.getDimSize(rank - 2) != n)
    return node.fail("the matrices must be square with a static size");
  if (n > kMaxDetSize)
    return node.fail("matrices larger than " + Twine(kMaxDetSize) + "x" +
                     Twine(kMaxDetSize) +
                     " are not supported (the determinant is expanded over "
                     "permutations)");
  SmallVector<int64_t> permutation(n), indices;
  std::iota(permutation.begin(), permutation.end(), 0);
  SmallVector<double> signs;
  do {
    int64_t inversions = 0;
    for (int64_t i = 0; i < n; ++i) {
      indices.push_back(i * n + permutation[i]);
      for (int64_t j = i + 1; j < n; ++j)
        inversions += permutation[i] > permutation[j];
    }
    signs.push_back(inversions % 2 ? -1.0 : 1.0);
  } while (std::next_permutation(permutation.begin(), permutation.end()));
  RewriterBase &rw = node.getRewriter();
  int64_t terms = static_cast<int64_t>(signs.size());
  SmallVector<OpFoldResult> sizes = node.sizes(*x);
  sizes.pop_back();
  sizes.back() = rw.getIndexAttr(n * n);
  Value flat = node.reshape(*x, sizes);
  auto gatherIndices = cast<TypedValue<RankedTensorType>>(
      ConstantOp::create(rw, node.getLoc(),
                         DenseElementsAttr::get(
                             RankedTensorType::get({terms, n}, rw.getI64Type()),
                             ArrayRef<int64_t>(indices)))
          .getResult());
  FailureOr<Value> factors = buildGather(
      node, cast<TypedValue<RankedTensorType>>(flat), gatherIndices, rank - 2);
  MaybeValue products = reduce<ReduceProdOp>(node, factors, {rank - 1}, false);
  Value sign = floatConstant(node, {terms}, type.getElementType(), signs);
  return results(reduce<ReduceSumOp>(node, binary<MulOp>(node, products, sign),
                                     {rank - 2}, false));
}

} // namespace

void fromonnx::populateSignalConverters(ForeignConverters &c) {
  c.add("DFT", 17, convertDft);
  c.add("HannWindow", 17, convertWindow<WindowKind::Hann>);
  c.add("HammingWindow", 17, convertWindow<WindowKind::Hamming>);
  c.add("BlackmanWindow", 17, convertWindow<WindowKind::Blackman>);
  c.add("Det", 11, convertDet);
  c.add("MelWeightMatrix", 17, convertMelWeightMatrix);
  c.add("STFT", 17, convertStft);
}
