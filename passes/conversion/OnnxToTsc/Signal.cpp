//===- Signal.cpp - ONNX DFT, window functions and Det --------------------===//
//
// The signal ops have compile-time lengths in the models tsc takes, so their
// trigonometry is evaluated here in double precision: DFT becomes one matmul
// with a constant twiddle matrix (exact to f32 rounding for the lengths
// models use; an FFT would only pay off for long signals), a window function
// a constant. Det of small static matrices is Leibniz's permutation sum.
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

/// DFT (17, 20): axis an attribute (default 1) up to 19, then a constant
/// input #2 (default -2); dft_length an optional constant input #1.
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
  FailureOr<Value> moved = node.transpose(*x, perm);
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
                                 element, plan.matrix());
  FailureOr<Value> product = node.create<MatmulOp>({flat, twiddles});
  if (failed(product))
    return failure();
  sizes[rank - 2] = rw.getIndexAttr(outComponents);
  sizes[rank - 1] = rw.getIndexAttr(plan.out);
  SmallVector<int64_t> inversePerm(rank);
  for (int64_t d = 0; d < rank; ++d)
    inversePerm[perm[d]] = d;
  return results(node.transpose(node.reshape(*product, sizes), inversePerm));
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

template <WindowKind kind> FailureOr<Values> convertWindow(ForeignNode &node) {
  if (node.isRuntimeInts(0)) {
    Type element =
        onnxElementType(node.getContext(), node.getInt("output_datatype", 1));
    if (!element)
      return node.fail("output_datatype " +
                       Twine(node.getInt("output_datatype", 1)) +
                       " is not a type tsc has");
    return results(
        windowAtRuntime<kind>(node, element, node.getInt("periodic", 1) != 0));
  }
  FailureOr<SmallVector<int64_t>> values = node.constantInts(0);
  if (failed(values))
    return failure();
  if (values->size() != 1)
    return node.fail("the size must be one integer");
  int64_t size = values->front();
  if (size < 0)
    return node.fail("the size " + Twine(size) + " is negative");
  Type element =
      onnxElementType(node.getContext(), node.getInt("output_datatype", 1));
  if (!element)
    return node.fail("output_datatype " +
                     Twine(node.getInt("output_datatype", 1)) +
                     " is not a type tsc has");
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
}
