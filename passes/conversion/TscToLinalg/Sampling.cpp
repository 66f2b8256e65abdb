//===- Sampling.cpp - tsc resize, grid_sample, roi_align, deform_conv,
// max_unpool ---===//
//
// The sampling ops of the Convolution family: each result element reads
// the input at computed (fractional) coordinates, so each is a parallel
// generic whose body computes the coordinates in f64 (as ONNX's reference
// does, so that rounding to the nearest element agrees with it) and loops
// over the interpolation taps.
//
//===----------------------------------------------------------------------===//

#include "passes/conversion/TscToLinalg/ConvolutionUtils.h"
#include "passes/conversion/TscToLinalg/TscToLinalg.h"

#include "dialects/tsc/IR/TscOps.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::tolinalg;
using namespace mlir::tsc::tolinalg::window;

namespace {

//===----------------------------------------------------------------------===//
// resize
//===----------------------------------------------------------------------===//

/// The Keys cubic convolution kernel with coefficient `a` at `x`.
Value cubicKernel(Math &m, Value x, double a) {
  Value ax = math::AbsFOp::create(m.b, m.l, x);
  Value x2 = m.mul(ax, ax), x3 = m.mul(x2, ax);
  Value near =
      m.add(m.sub(m.mul(m.f64(a + 2), x3), m.mul(m.f64(a + 3), x2)), m.f64(1));
  Value far = m.add(m.sub(m.mul(m.f64(a), x3), m.mul(m.f64(5 * a), x2)),
                    m.sub(m.mul(m.f64(8 * a), ax), m.f64(4 * a)));
  Value isNear = m.cmpf(arith::CmpFPredicate::OLE, ax, m.f64(1));
  Value isFar = m.cmpf(arith::CmpFPredicate::OLT, ax, m.f64(2));
  return m.select(isNear, near, m.select(isFar, far, m.f64(0)));
}

/// Resizes `x` along dim `d` to `outSize` elements, as ONNX's reference
/// interpolates one axis.
struct AxisResize {
  mutable ResizeOp op;
  Value scale;            // f64 scalar
  Value roiStart, roiEnd; // f64 scalars for tf_crop_and_resize
  std::optional<double> constantScale;

  /// The input coordinate of result index `o` along a dim of `in` elements
  /// resized to `out`.
  Value coordinate(Math &m, Value o, Value in, int64_t out) const {
    Value of = m.toF64(o), inF = m.toF64(in);
    Value width = m.mul(scale, inF); // the reference's float output width
    Value widthIsOne = m.cmpf(arith::CmpFPredicate::OEQ, width, m.f64(1));
    Value halfPixel = m.sub(m.div(m.add(of, m.f64(0.5)), scale), m.f64(0.5));
    switch (op.getCoordinateTransformation()) {
    case CoordinateTransform::half_pixel:
      return halfPixel;
    case CoordinateTransform::half_pixel_symmetric: {
      Value adjustment = m.div(m.f64(static_cast<double>(out)), width);
      Value center = m.div(inF, m.f64(2));
      Value offset = m.mul(center, m.sub(m.f64(1), adjustment));
      return m.add(offset, halfPixel);
    }
    case CoordinateTransform::pytorch_half_pixel:
      return m.select(widthIsOne, m.f64(-0.5), halfPixel);
    case CoordinateTransform::align_corners:
      return m.select(
          widthIsOne, m.f64(0),
          m.div(m.mul(of, m.sub(inF, m.f64(1))), m.sub(width, m.f64(1))));
    case CoordinateTransform::asymmetric:
      return m.div(of, scale);
    case CoordinateTransform::tf_crop_and_resize: {
      Value extent = m.mul(m.sub(roiEnd, roiStart), m.sub(inF, m.f64(1)));
      Value x = m.select(widthIsOne, m.div(extent, m.f64(2)),
                         m.div(m.mul(of, extent), m.sub(width, m.f64(1))));
      return m.add(x, m.mul(roiStart, m.sub(inF, m.f64(1))));
    }
    }
    llvm_unreachable("unknown coordinate transformation");
  }

  /// Filter support (half width in input elements at scale 1).
  double support() const {
    return op.getMode() == InterpolationMode::cubic ? 2.0 : 1.0;
  }

  /// The number of taps, from the static sizes when the scale is not
  /// constant (scale >= out / in, so 1 / scale <= in / out).
  int64_t tapCount(int64_t in, int64_t out) const {
    if (op.getMode() == InterpolationMode::nearest)
      return 1;
    if (!op.getAntialias())
      return 2 * static_cast<int64_t>(support());
    double inverse;
    if (constantScale)
      inverse = 1.0 / std::min(*constantScale, 1.0);
    else if (ShapedType::isDynamic(in))
      inverse = 1.0;
    else
      inverse = std::max(1.0, static_cast<double>(in) / out);
    int64_t start = static_cast<int64_t>(std::floor(-support() * inverse)) + 1;
    return 2 - 2 * start;
  }

  Value build(OpBuilder &b, Location loc, Value x, int64_t d,
              int64_t outSize) const {
    auto type = cast<RankedTensorType>(x.getType());
    SmallVector<int64_t> shape(type.getShape());
    shape[d] = outSize;
    auto resultType = type.clone(shape);
    Type element = type.getElementType();
    SmallVector<Value> sizes = dimValues(b, loc, x);
    Value in = sizes[d];
    sizes[d] = arith::ConstantIndexOp::create(b, loc, outSize);
    Value init = emptyResult(b, loc, resultType, sizes);
    int64_t taps = tapCount(type.getDimSize(d), outSize);
    InterpolationMode mode = op.getMode();
    bool cropping = op.getCoordinateTransformation() ==
                    CoordinateTransform::tf_crop_and_resize;
    double a = op.getCubicCoeffA().convertToDouble();
    bool exclude = op.getExcludeOutside(), antialias = op.getAntialias();
    return buildParallel(
               b, loc, init,
               [&](OpBuilder &nb, Location l, ArrayRef<Value> idx) {
                 Math m{nb, l};
                 Value coord = coordinate(m, idx[d], in, outSize);
                 // The reference's neighbours: base = ceil(x) - 1 and the
                 // ratio in (0, 1] (1 at integers).
                 Value base = m.sub(m.ceilIdx(coord), m.idx(1));
                 Value ratio = m.sub(coord, m.toF64(base));
                 SmallVector<Value> at(idx);
                 auto read = [&](OpBuilder &rb, Location rl, Value i) {
                   SmallVector<Value> where(at);
                   where[d] = i;
                   Value v = tensor::ExtractOp::create(rb, rl, x, where);
                   return convertScalar(rb, rl, v, element, rb.getF64Type());
                 };
                 Value value;
                 if (mode == InterpolationMode::nearest) {
                   Value half = m.f64(0.5);
                   Value up;
                   switch (op.getNearestMode()) {
                   case NearestRounding::round_prefer_floor:
                     up = m.cmpf(arith::CmpFPredicate::OGT, ratio, half);
                     break;
                   case NearestRounding::round_prefer_ceil:
                     up = m.cmpf(arith::CmpFPredicate::OGE, ratio, half);
                     break;
                   case NearestRounding::floor:
                     up = m.cmpf(arith::CmpFPredicate::OEQ, ratio, m.f64(1));
                     break;
                   case NearestRounding::ceil:
                     up = arith::ConstantIntOp::create(nb, l, 1, 1);
                     break;
                   }
                   Value i = m.select(up, m.add(base, 1), base);
                   value = read(nb, l, m.clamp(i, in));
                 } else {
                   // Taps j = start + t around base; weights from the
                   // filter at (j - ratio) * filterScale, normalized.
                   Value filterScale = m.f64(1);
                   Value start =
                       m.idx(mode == InterpolationMode::cubic ? -1 : 0);
                   if (antialias) {
                     filterScale =
                         arith::MinimumFOp::create(nb, l, scale, m.f64(1));
                     Value reach = m.div(m.f64(-support()), filterScale);
                     start = m.add(m.floorIdx(reach), 1);
                   }
                   SmallVector<Value> sums = loop(
                       nb, l, taps, SmallVector<Value>{m.f64(0), m.f64(0)},
                       [&](OpBuilder &lb, Location ll, Value t,
                           ValueRange args) {
                         Math lm{lb, ll};
                         Value j = lm.add(start, t);
                         Value arg =
                             lm.mul(lm.sub(lm.toF64(j), ratio), filterScale);
                         Value weight;
                         if (mode == InterpolationMode::cubic) {
                           weight = cubicKernel(lm, arg, a);
                         } else {
                           Value tri = lm.sub(
                               lm.f64(1), math::AbsFOp::create(lb, ll, arg));
                           weight = arith::MaximumFOp::create(lb, ll, tri,
                                                              lm.f64(0));
                         }
                         Value i = lm.add(base, j);
                         if (exclude)
                           weight =
                               lm.select(lm.inRange(i, in), weight, lm.f64(0));
                         Value v = read(lb, ll, lm.clamp(i, in));
                         return SmallVector<Value>{
                             lm.add(args[0], lm.mul(weight, v)),
                             lm.add(args[1], weight)};
                       });
                   Value total = m.select(
                       m.cmpf(arith::CmpFPredicate::OEQ, sums[1], m.f64(0)),
                       m.f64(1), sums[1]);
                   value = m.div(sums[0], total);
                 }
                 if (cropping) {
                   Value outside = m.either(
                       m.cmpf(arith::CmpFPredicate::OLT, coord, m.f64(0)),
                       m.cmpf(arith::CmpFPredicate::OGT, coord,
                              m.sub(m.toF64(in), m.f64(1))));
                   value = m.select(
                       outside,
                       m.f64(op.getExtrapolationValue().convertToDouble()),
                       value);
                 }
                 return SmallVector<Value>{
                     convertScalar(nb, l, value, nb.getF64Type(), element)};
               })
        .front();
  }
};

struct ResizePattern : OpRewritePattern<ResizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ResizeOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType inType = op.getInput().getType();
    RankedTensorType resultType = op.getType();
    int64_t rank = inType.getRank();
    std::optional<SmallVector<double>> constants;
    DenseFPElementsAttr attr;
    if (matchPattern(op.getScales(), m_Constant(&attr))) {
      constants.emplace();
      for (APFloat v : attr.getValues<APFloat>()) {
        bool lost;
        v.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
        constants->push_back(v.convertToDouble());
      }
    }
    bool cropping = op.getCoordinateTransformation() ==
                    CoordinateTransform::tf_crop_and_resize;
    auto scalarAt = [&](Value vector, int64_t i) -> Value {
      Value at = arith::ConstantIndexOp::create(rewriter, loc, i);
      Value v = tensor::ExtractOp::create(rewriter, loc, vector, at);
      if (!v.getType().isF64())
        v = arith::ExtFOp::create(rewriter, loc, rewriter.getF64Type(), v);
      return v;
    };
    Value x = op.getInput();
    for (int64_t d = 0; d < rank; ++d) {
      // A dim kept at scale 1 (and, cropping, at the whole roi) is left as
      // it is, as the reference does.
      bool same = !resultType.isDynamicDim(d) && !inType.isDynamicDim(d) &&
                  resultType.getDimSize(d) == inType.getDimSize(d);
      if (resultType.isDynamicDim(d) ||
          (same && constants && (*constants)[d] == 1.0 && !cropping))
        continue;
      AxisResize axis{op, scalarAt(op.getScales(), d), Value(), Value(),
                      constants ? std::optional<double>((*constants)[d])
                                : std::nullopt};
      if (cropping) {
        axis.roiStart = scalarAt(op.getRoi(), d);
        axis.roiEnd = scalarAt(op.getRoi(), rank + d);
      }
      x = axis.build(rewriter, loc, x, d, resultType.getDimSize(d));
    }
    if (x.getType() != resultType)
      x = tensor::CastOp::create(rewriter, loc, resultType, x);
    rewriter.replaceOp(op, x);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// grid_sample
//===----------------------------------------------------------------------===//

/// Reflects `x` into `[low, high]` by the nearer border until it is inside
/// (ONNX's GridSample reflection).
Value reflect(Math &m, Value x, Value low, Value high) {
  Value range = m.sub(high, low);
  auto fold = [&](Value dx, Value fromNear, Value sign, Value farEnd) {
    Value n = math::FloorOp::create(m.b, m.l, m.div(dx, range));
    Value r = m.sub(dx, m.mul(n, range));
    Value half = math::FloorOp::create(m.b, m.l, m.div(n, m.f64(2)));
    Value even = m.cmpf(arith::CmpFPredicate::OEQ, m.mul(half, m.f64(2)), n);
    return m.select(even, m.add(fromNear, m.mul(sign, r)),
                    m.sub(farEnd, m.mul(sign, r)));
  };
  Value below = fold(m.sub(low, x), low, m.f64(1), high);
  Value above = fold(m.sub(x, high), high, m.f64(-1), low);
  return m.select(
      m.cmpf(arith::CmpFPredicate::OLT, x, low), below,
      m.select(m.cmpf(arith::CmpFPredicate::OGT, x, high), above, x));
}

struct GridSamplePattern : OpRewritePattern<GridSampleOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GridSampleOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = op.getInput(), grid = op.getGrid();
    RankedTensorType resultType = op.getType();
    Type element = resultType.getElementType();
    int64_t s = resultType.getRank() - 2;
    InterpolationMode mode = op.getMode();
    SamplePadding padding = op.getPaddingMode();
    bool align = op.getAlignCorners();
    int64_t perDim = mode == InterpolationMode::nearest  ? 1
                     : mode == InterpolationMode::linear ? 2
                                                         : 4;
    int64_t taps = 1;
    for (int64_t i = 0; i < s; ++i)
      taps *= perDim;
    SmallVector<Value> in = dimValues(rewriter, loc, input);
    SmallVector<Value> gridSizes = dimValues(rewriter, loc, grid);
    SmallVector<Value> sizes{in[0], in[1]};
    sizes.append(gridSizes.begin() + 1, gridSizes.end() - 1);
    Value init = emptyResult(rewriter, loc, resultType, sizes);
    Value result =
        buildParallel(
            rewriter, loc, init,
            [&](OpBuilder &b, Location l, ArrayRef<Value> idx) {
              Math m{b, l};
              // Per spatial dim: its size, coordinate and borders.
              SmallVector<Value> coord(s), size(s), low(s), high(s);
              for (int64_t i = 0; i < s; ++i) {
                SmallVector<Value> at{idx[0]};
                at.append(idx.begin() + 2, idx.end());
                at.push_back(m.idx(s - 1 - i)); // x is the last dim
                Value g = convertScalar(
                    b, l, tensor::ExtractOp::create(b, l, grid, at), element,
                    b.getF64Type());
                size[i] = m.toF64(in[2 + i]);
                Value one = m.f64(1);
                Value x = align
                              ? m.mul(m.div(m.add(g, one), m.f64(2)),
                                      m.sub(size[i], one))
                              : m.div(m.sub(m.mul(m.add(g, one), size[i]), one),
                                      m.f64(2));
                if (mode == InterpolationMode::nearest)
                  x = math::RoundEvenOp::create(b, l, x);
                low[i] = align ? m.f64(0) : m.f64(-0.5);
                high[i] =
                    align ? m.sub(size[i], one) : m.sub(size[i], m.f64(0.5));
                Value outside =
                    m.either(m.cmpf(arith::CmpFPredicate::OLT, x, low[i]),
                             m.cmpf(arith::CmpFPredicate::OGT, x, high[i]));
                if (padding == SamplePadding::border) {
                  Value clamped = arith::MinimumFOp::create(
                      b, l, arith::MaximumFOp::create(b, l, x, m.f64(0)),
                      m.sub(size[i], one));
                  x = m.select(outside, clamped, x);
                } else if (padding == SamplePadding::reflection) {
                  x = reflect(m, x, low[i], high[i]);
                }
                coord[i] = x;
              }
              SmallVector<Value> sum = loop(
                  b, l, taps, SmallVector<Value>{m.f64(0)},
                  [&](OpBuilder &lb, Location ll, Value t, ValueRange args) {
                    Math lm{lb, ll};
                    SmallVector<int64_t> radix(s, perDim);
                    SmallVector<Value> tap = lm.unflatten(t, radix);
                    Value weight = lm.f64(1), valid;
                    SmallVector<Value> at{idx[0], idx[1]};
                    for (int64_t i = 0; i < s; ++i) {
                      Value x = coord[i], index;
                      if (mode == InterpolationMode::nearest) {
                        Value i64 =
                            arith::FPToSIOp::create(lb, ll, lb.getI64Type(), x);
                        index = arith::IndexCastOp::create(
                            lb, ll, lb.getIndexType(), i64);
                      } else {
                        Value x0 = math::FloorOp::create(lb, ll, x);
                        Value frac = lm.sub(x, x0);
                        Value first = lm.floorIdx(x);
                        if (mode == InterpolationMode::linear) {
                          index = lm.add(first, tap[i]);
                          Value isFirst = lm.cmp(arith::CmpIPredicate::eq,
                                                 tap[i], lm.idx(0));
                          weight = lm.mul(
                              weight, lm.select(isFirst,
                                                lm.sub(lm.f64(1), frac), frac));
                        } else {
                          index = lm.add(lm.sub(first, lm.idx(1)), tap[i]);
                          // Taps at -1, 0, 1, 2 from floor(x).
                          Value dist =
                              lm.sub(lm.sub(lm.toF64(tap[i]), lm.f64(1)), frac);
                          weight = lm.mul(weight, cubicKernel(lm, dist, -0.75));
                        }
                      }
                      if (padding == SamplePadding::zeros)
                        valid = lm.both(valid, lm.inRange(index, in[2 + i]));
                      else if (padding == SamplePadding::reflection)
                        index = lm.floorIdx(lm.select(
                            lm.cmpf(
                                arith::CmpFPredicate::OGE,
                                reflect(lm, lm.toF64(index), low[i], high[i]),
                                lm.f64(0)),
                            reflect(lm, lm.toF64(index), low[i], high[i]),
                            lm.f64(0)));
                      at.push_back(lm.clamp(index, in[2 + i]));
                    }
                    Value v = convertScalar(
                        lb, ll, tensor::ExtractOp::create(lb, ll, input, at),
                        element, lb.getF64Type());
                    if (valid)
                      v = lm.select(valid, v, lm.f64(0));
                    return SmallVector<Value>{
                        lm.add(args[0], lm.mul(weight, v))};
                  });
              return SmallVector<Value>{
                  convertScalar(b, l, sum[0], b.getF64Type(), element)};
            })
            .front();
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// roi_align
//===----------------------------------------------------------------------===//

struct RoiAlignPattern : OpRewritePattern<RoiAlignOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RoiAlignOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = op.getInput(), rois = op.getRois(),
          batch = op.getBatchIndices();
    RankedTensorType resultType = op.getType();
    Type element = resultType.getElementType();
    Type indexElement = op.getBatchIndices().getType().getElementType();
    int64_t outH = static_cast<int64_t>(op.getOutputHeight());
    int64_t outW = static_cast<int64_t>(op.getOutputWidth());
    int64_t ratio = static_cast<int64_t>(op.getSamplingRatio());
    double scale = op.getSpatialScale().convertToDouble();
    bool halfPixel = op.getHalfPixel(), max = op.getMax();
    SmallVector<Value> in = dimValues(rewriter, loc, input);
    SmallVector<Value> sizes{
        dimValues(rewriter, loc, rois)[0], in[1],
        arith::ConstantIndexOp::create(rewriter, loc, outH),
        arith::ConstantIndexOp::create(rewriter, loc, outW)};
    Value init = emptyResult(rewriter, loc, resultType, sizes);
    Value result =
        buildParallel(
            rewriter, loc, init,
            [&](OpBuilder &b, Location l, ArrayRef<Value> idx) {
              Math m{b, l};
              Value r = idx[0], c = idx[1];
              auto corner = [&](int64_t k) {
                Value v = tensor::ExtractOp::create(b, l, rois,
                                                    ValueRange{r, m.idx(k)});
                v = convertScalar(b, l, v, element, b.getF64Type());
                return m.sub(m.mul(v, m.f64(scale)),
                             m.f64(halfPixel ? 0.5 : 0.0));
              };
              Value image = arith::IndexCastOp::create(
                  b, l, b.getIndexType(),
                  convertScalar(
                      b, l,
                      toSignless(b, l,
                                 tensor::ExtractOp::create(b, l, batch, r)),
                      indexElement, b.getI64Type()));
              Value startW = corner(0), startH = corner(1);
              Value roiW = m.sub(corner(2), startW);
              Value roiH = m.sub(corner(3), startH);
              if (!halfPixel) {
                roiW = arith::MaximumFOp::create(b, l, roiW, m.f64(1));
                roiH = arith::MaximumFOp::create(b, l, roiH, m.f64(1));
              }
              Value binH = m.div(roiH, m.f64(static_cast<double>(outH)));
              Value binW = m.div(roiW, m.f64(static_cast<double>(outW)));
              // Samples per bin: sampling_ratio, or adaptive (0): the bin
              // size rounded up, at run time.
              Value gridH = ratio > 0 ? m.idx(ratio) : m.ceilIdx(binH);
              Value gridW = ratio > 0 ? m.idx(ratio) : m.ceilIdx(binW);
              Value count = m.toF64(
                  arith::MaxSIOp::create(b, l, m.mul(gridH, gridW), m.idx(1)));
              Value h = m.toF64(in[2]), w = m.toF64(in[3]);
              Value y0 = m.add(startH, m.mul(m.toF64(idx[2]), binH));
              Value x0 = m.add(startW, m.mul(m.toF64(idx[3]), binW));
              Value one = m.idx(1);
              auto rowsLoop = scf::ForOp::create(
                  b, l, m.idx(0), gridH, one,
                  ValueRange{m.f64(0),
                             arith::ConstantIntOp::create(b, l, 0, 1)},
                  [&](OpBuilder &yb, Location yl, Value iy, ValueRange yargs) {
                    Math ym{yb, yl};
                    Value y = ym.add(
                        y0,
                        ym.div(ym.mul(ym.add(ym.toF64(iy), ym.f64(0.5)), binH),
                               ym.toF64(gridH)));
                    auto colsLoop = scf::ForOp::create(
                        yb, yl, ym.idx(0), gridW, ym.idx(1), yargs,
                        [&](OpBuilder &xb, Location xl, Value ix,
                            ValueRange xargs) {
                          Math xm{xb, xl};
                          Value x = xm.add(
                              x0,
                              xm.div(xm.mul(xm.add(xm.toF64(ix), xm.f64(0.5)),
                                            binW),
                                     xm.toF64(gridW)));
                          Value skip = xm.either(
                              xm.either(
                                  xm.cmpf(arith::CmpFPredicate::OLT, y,
                                          xm.f64(-1)),
                                  xm.cmpf(arith::CmpFPredicate::OGT, y, h)),
                              xm.either(
                                  xm.cmpf(arith::CmpFPredicate::OLT, x,
                                          xm.f64(-1)),
                                  xm.cmpf(arith::CmpFPredicate::OGT, x, w)));
                          // Bilinear corners, clamped at the last row and
                          // column as the reference does.
                          auto axis = [&](Value v, Value size, Value sizeIdx) {
                            v = arith::MaximumFOp::create(xb, xl, v, xm.f64(0));
                            Value lowI = xm.floorIdx(v);
                            Value last = xm.sub(sizeIdx, xm.idx(1));
                            Value atEnd =
                                xm.cmp(arith::CmpIPredicate::sge, lowI, last);
                            lowI = xm.select(atEnd, last, lowI);
                            Value highI =
                                xm.select(atEnd, last, xm.add(lowI, 1));
                            v = xm.select(atEnd, xm.toF64(last), v);
                            Value frac = xm.sub(v, xm.toF64(lowI));
                            return std::make_tuple(lowI, highI, frac);
                          };
                          auto [yl0, yh0, ly] = axis(y, h, in[2]);
                          auto [xl0, xh0, lx] = axis(x, w, in[3]);
                          Value hy = xm.sub(xm.f64(1), ly);
                          Value hx = xm.sub(xm.f64(1), lx);
                          auto at = [&](Value yi, Value xi) {
                            Value v = tensor::ExtractOp::create(
                                xb, xl, input, ValueRange{image, c, yi, xi});
                            return convertScalar(xb, xl, v, element,
                                                 xb.getF64Type());
                          };
                          Value terms[] = {
                              xm.mul(xm.mul(hy, hx), at(yl0, xl0)),
                              xm.mul(xm.mul(hy, lx), at(yl0, xh0)),
                              xm.mul(xm.mul(ly, hx), at(yh0, xl0)),
                              xm.mul(xm.mul(ly, lx), at(yh0, xh0))};
                          Value sample;
                          if (max) {
                            sample = terms[0];
                            for (Value t : ArrayRef(terms).drop_front())
                              sample =
                                  arith::MaximumFOp::create(xb, xl, sample, t);
                          } else {
                            sample = xm.add(xm.add(terms[0], terms[1]),
                                            xm.add(terms[2], terms[3]));
                          }
                          // Skipped samples weigh 0 (so read as 0 in max).
                          sample = xm.select(skip, xm.f64(0), sample);
                          Value next =
                              max ? xm.select(xargs[1],
                                              arith::MaximumFOp::create(
                                                  xb, xl, xargs[0], sample),
                                              sample)
                                  : xm.add(xargs[0], sample);
                          scf::YieldOp::create(
                              xb, xl,
                              ValueRange{next, arith::ConstantIntOp::create(
                                                   xb, xl, 1, 1)});
                        });
                    scf::YieldOp::create(yb, yl, colsLoop.getResults());
                  });
              Value value = rowsLoop.getResult(0);
              if (!max)
                value = m.div(value, count);
              return SmallVector<Value>{
                  convertScalar(b, l, value, b.getF64Type(), element)};
            })
            .front();
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// deform_conv
//===----------------------------------------------------------------------===//

struct DeformConvPattern : OpRewritePattern<DeformConvOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DeformConvOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = op.getInput(), weight = op.getWeight(),
          offset = op.getOffset(), bias = op.getBias(), mask = op.getMask();
    RankedTensorType resultType = op.getType();
    RankedTensorType wType = op.getWeight().getType();
    Type element = resultType.getElementType();
    int64_t filters = wType.getDimSize(0), perGroup = wType.getDimSize(1);
    int64_t kh = wType.getDimSize(2), kw = wType.getDimSize(3), taps = kh * kw;
    int64_t filtersPerGroup = filters / static_cast<int64_t>(op.getGroup());
    int64_t offsetGroups = static_cast<int64_t>(op.getOffsetGroup());
    ArrayRef<int64_t> strides = op.getStrides(), pads = op.getPads(),
                      dilations = op.getDilations();
    SmallVector<Value> in = dimValues(rewriter, loc, input);
    SmallVector<Value> offsetSizes = dimValues(rewriter, loc, offset);
    SmallVector<Value> sizes{
        in[0], arith::ConstantIndexOp::create(rewriter, loc, filters),
        offsetSizes[2], offsetSizes[3]};
    Value init = emptyResult(rewriter, loc, resultType, sizes);
    Value result =
        buildParallel(
            rewriter, loc, init,
            [&](OpBuilder &b, Location l, ArrayRef<Value> idx) {
              Math m{b, l};
              Value n = idx[0], f = idx[1], i = idx[2], j = idx[3];
              Value start =
                  bias ? convertScalar(b, l,
                                       tensor::ExtractOp::create(b, l, bias, f),
                                       element, b.getF64Type())
                       : m.f64(0);
              Value firstChannel = m.mul(m.divC(f, filtersPerGroup), perGroup);
              Value perOffsetGroup =
                  arith::DivUIOp::create(b, l, in[1], m.idx(offsetGroups));
              SmallVector<Value> sum = loop(
                  b, l, perGroup * taps, SmallVector<Value>{start},
                  [&](OpBuilder &lb, Location ll, Value t, ValueRange args) {
                    Math lm{lb, ll};
                    Value c = lm.divC(t, taps), k = lm.remC(t, taps);
                    Value ki = lm.divC(k, kw), kj = lm.remC(k, kw);
                    Value channel = lm.add(firstChannel, c);
                    Value group =
                        arith::DivUIOp::create(lb, ll, channel, perOffsetGroup);
                    auto planeAt = [&](Value tensor, Value plane) {
                      Value v = tensor::ExtractOp::create(
                          lb, ll, tensor, ValueRange{n, plane, i, j});
                      return convertScalar(lb, ll, v, element, lb.getF64Type());
                    };
                    Value pair = lm.add(lm.mul(group, 2 * taps), lm.mul(k, 2));
                    auto at = [&](Value o, Value kk, int64_t d) {
                      Value base = lm.add(lm.add(lm.mul(o, strides[d]),
                                                 lm.mul(kk, dilations[d])),
                                          -pads[d]);
                      return lm.toF64(base);
                    };
                    Value y = lm.add(at(i, ki, 0), planeAt(offset, pair));
                    Value x =
                        lm.add(at(j, kj, 1), planeAt(offset, lm.add(pair, 1)));
                    Value scale =
                        mask ? planeAt(mask, lm.add(lm.mul(group, taps), k))
                             : lm.f64(1);
                    // Bilinear, zero outside the image.
                    Value y0 = math::FloorOp::create(lb, ll, y);
                    Value x0 = math::FloorOp::create(lb, ll, x);
                    Value fy = lm.sub(y, y0), fx = lm.sub(x, x0);
                    Value yi = lm.floorIdx(y), xi = lm.floorIdx(x);
                    Value sample = lm.f64(0);
                    for (int64_t dy = 0; dy < 2; ++dy) {
                      for (int64_t dx = 0; dx < 2; ++dx) {
                        Value py = lm.add(yi, dy), px = lm.add(xi, dx);
                        auto [v, inside] = readPadded(
                            lm, input, in, n, channel, {py, px},
                            scalarConstant(lb, ll, getSignlessType(element),
                                           0));
                        Value wy = dy ? fy : lm.sub(lm.f64(1), fy);
                        Value wx = dx ? fx : lm.sub(lm.f64(1), fx);
                        sample = lm.add(sample,
                                        lm.mul(lm.mul(wy, wx),
                                               convertScalar(lb, ll, v, element,
                                                             lb.getF64Type())));
                      }
                    }
                    Value wv = convertScalar(
                        lb, ll,
                        tensor::ExtractOp::create(lb, ll, weight,
                                                  ValueRange{f, c, ki, kj}),
                        element, lb.getF64Type());
                    return SmallVector<Value>{
                        lm.add(args[0], lm.mul(lm.mul(wv, scale), sample))};
                  });
              return SmallVector<Value>{
                  convertScalar(b, l, sum[0], b.getF64Type(), element)};
            })
            .front();
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// max_unpool
//===----------------------------------------------------------------------===//

/// A scatter: a zero-filled result, then one sequential loop writing each
/// input element at its index (the last write wins, as in ONNX's
/// reference). Unpooling is rare enough that a sequential loop (a single
/// thread on the GPU) is the honest cost of not needing atomics.
struct MaxUnpoolPattern : OpRewritePattern<MaxUnpoolOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MaxUnpoolOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = op.getInput(), indices = op.getIndices();
    RankedTensorType inType = op.getInput().getType();
    RankedTensorType resultType = op.getType();
    Type element = resultType.getElementType();
    Value zeros = createFilled(
        rewriter, loc, resultType, {},
        scalarConstant(rewriter, loc, getSignlessType(element), 0));
    int64_t total = resultType.getNumElements();
    SmallVector<Value> scattered = loop(
        rewriter, loc, inType.getNumElements(), zeros,
        [&](OpBuilder &b, Location l, Value e, ValueRange args) {
          Math m{b, l};
          SmallVector<Value> at = m.unflatten(e, inType.getShape());
          Value v = tensor::ExtractOp::create(b, l, input, at);
          Value q = arith::IndexCastOp::create(
              b, l, b.getIndexType(),
              tensor::ExtractOp::create(b, l, indices, at));
          Value inside = m.inRange(q, m.idx(total));
          auto write = scf::IfOp::create(
              b, l, inside,
              [&](OpBuilder &tb, Location tl) {
                Math tm{tb, tl};
                Value into = tensor::InsertOp::create(
                    tb, tl, v, args[0], tm.unflatten(q, resultType.getShape()));
                scf::YieldOp::create(tb, tl, into);
              },
              [&](OpBuilder &eb, Location el) {
                scf::YieldOp::create(eb, el, args[0]);
              });
          return SmallVector<Value>{write.getResult(0)};
        });
    rewriter.replaceOp(op, scattered[0]);
    return success();
  }
};

} // namespace

void mlir::tsc::populateTscSamplingToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<ResizePattern, GridSamplePattern, RoiAlignPattern,
               DeformConvPattern, MaxUnpoolPattern>(patterns.getContext());
}
