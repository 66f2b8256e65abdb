//===- Convolution.cpp - tsc convolutions, pooling, resizing and sampling to
// linalg ---===//
//
// Every op here is one parallel linalg.generic over its result whose body
// walks the op's window (kernel taps, input channels, interpolation taps)
// in an scf.for and reads the input with tensor.extract at positions it
// computes, bounds-checked: padding is never materialized, and the CUDA
// target maps the result's dims to threads with each thread's window loop
// sequential, as its mapping does for any loop inside a generic's body.
// The GEMM-shaped convolutions do not come here: the converters make them
// tsc.im2col + tsc.linear, and im2col is a pure gather.
//
//===----------------------------------------------------------------------===//

#include "passes/conversion/TscToLinalg/ConvolutionUtils.h"
#include "passes/conversion/TscToLinalg/TscToLinalg.h"

#include "dialects/tsc/IR/TscOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::tolinalg;

namespace {

using namespace mlir::tsc::tolinalg::window;

//===----------------------------------------------------------------------===//
// Windows
//===----------------------------------------------------------------------===//

/// A window over the spatial dims of an image `[N, C, in...]`.
struct Window {
  SmallVector<int64_t> kernel, strides, pads, dilations;
  bool ceilMode = false;

  int64_t spatial() const { return static_cast<int64_t>(kernel.size()); }

  /// The number of windows along spatial dim `i` of run-time size `in`
  /// (tsc::getWindowCount in index arithmetic).
  Value count(Math &m, Value in, int64_t i) const {
    int64_t span = dilations[i] * (kernel[i] - 1) + 1;
    Value padded = m.add(in, pads[i] + pads[spatial() + i] - span);
    if (!ceilMode)
      return m.add(m.divC(padded, strides[i]), 1);
    Value n = m.add(m.divC(m.add(padded, strides[i] - 1), strides[i]), 1);
    Value last = m.mul(m.sub(n, m.idx(1)), strides[i]);
    Value past = m.cmp(arith::CmpIPredicate::sge, last, m.add(in, pads[i]));
    return m.select(past, m.sub(n, m.idx(1)), n);
  }

  /// The input position of tap `k` of window `o` along spatial dim `i`.
  Value position(Math &m, Value o, Value k, int64_t i) const {
    return m.add(m.add(m.mul(o, strides[i]), m.mul(k, dilations[i])), -pads[i]);
  }
};

template <typename OpTy> Window windowOf(OpTy op) {
  Window w;
  w.kernel.assign(op.getKernelShape().begin(), op.getKernelShape().end());
  w.strides.assign(op.getStrides().begin(), op.getStrides().end());
  w.pads.assign(op.getPads().begin(), op.getPads().end());
  w.dilations.assign(op.getDilations().begin(), op.getDilations().end());
  return w;
}

/// The sizes of a `[N, channels, windows...]` result over `input`.
SmallVector<Value> windowedSizes(OpBuilder &b, Location loc, Value input,
                                 Value channels, const Window &w) {
  Math m{b, loc};
  SmallVector<Value> in = dimValues(b, loc, input);
  SmallVector<Value> sizes{in[0], channels};
  for (int64_t i = 0; i < w.spatial(); ++i)
    sizes.push_back(w.count(m, in[2 + i], i));
  return sizes;
}

//===----------------------------------------------------------------------===//
// conv, im2col, col2im
//===----------------------------------------------------------------------===//

/// Direct convolution: per result element, the taps of all input channels
/// of its group in one loop, accumulated in the accumulator type.
struct ConvPattern : OpRewritePattern<ConvOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = op.getInput(), weight = op.getWeight(), bias = op.getBias();
    RankedTensorType resultType = op.getType();
    RankedTensorType wType = op.getWeight().getType();
    Type element = resultType.getElementType();
    Type acc = isa<FloatType>(element) ? getAccumulatorType(element)
                                       : getSignlessType(element);
    Type inElement = op.getInput().getType().getElementType();
    Window w;
    ArrayRef<int64_t> kernel = wType.getShape().drop_front(2);
    w.kernel.assign(kernel.begin(), kernel.end());
    w.strides.assign(op.getStrides().begin(), op.getStrides().end());
    w.pads.assign(op.getPads().begin(), op.getPads().end());
    w.dilations.assign(op.getDilations().begin(), op.getDilations().end());
    int64_t filters = wType.getDimSize(0), perGroup = wType.getDimSize(1);
    int64_t filtersPerGroup = filters / static_cast<int64_t>(op.getGroup());
    int64_t taps = product(kernel);
    SmallVector<Value> inSizes = dimValues(rewriter, loc, input);
    Value init = emptyResult(
        rewriter, loc, resultType,
        windowedSizes(rewriter, loc, input,
                      arith::ConstantIndexOp::create(rewriter, loc, filters),
                      w));
    Value result =
        buildParallel(
            rewriter, loc, init,
            [&](OpBuilder &b, Location l, ArrayRef<Value> idx) {
              Math m{b, l};
              Value n = idx[0], f = idx[1];
              Value start =
                  bias ? convertScalar(b, l,
                                       toSignless(b, l,
                                                  tensor::ExtractOp::create(
                                                      b, l, bias, f)),
                                       element, acc)
                       : scalarConstant(b, l, acc, 0);
              Value firstChannel = m.mul(m.divC(f, filtersPerGroup), perGroup);
              Value zero = scalarConstant(b, l, getSignlessType(inElement), 0);
              SmallVector<Value> sum = loop(
                  b, l, perGroup * taps, start,
                  [&](OpBuilder &lb, Location ll, Value t, ValueRange args) {
                    Math lm{lb, ll};
                    Value c = lm.divC(t, taps);
                    SmallVector<Value> k =
                        lm.unflatten(lm.remC(t, taps), kernel);
                    SmallVector<Value> pos;
                    for (int64_t i = 0; i < w.spatial(); ++i)
                      pos.push_back(w.position(lm, idx[2 + i], k[i], i));
                    Value x = readPadded(lm, input, inSizes, n,
                                         lm.add(firstChannel, c), pos, zero)
                                  .first;
                    SmallVector<Value> wIdx{f, c};
                    wIdx.append(k.begin(), k.end());
                    Value wv = toSignless(
                        lb, ll,
                        tensor::ExtractOp::create(lb, ll, weight, wIdx));
                    Value xa = convertScalar(lb, ll, x, inElement, acc);
                    Value wa = convertScalar(lb, ll, wv, inElement, acc);
                    return SmallVector<Value>{lm.add(args[0], lm.mul(xa, wa))};
                  });
              return SmallVector<Value>{fromSignless(
                  b, l, convertScalar(b, l, sum[0], acc, element), element)};
            })
            .front();
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// im2col: a gather with zero padding.
struct Im2colPattern : OpRewritePattern<Im2colOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(Im2colOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = op.getInput();
    Window w = windowOf(op);
    int64_t s = w.spatial();
    RankedTensorType resultType = op.getType();
    Type element = resultType.getElementType();
    SmallVector<Value> inSizes = dimValues(rewriter, loc, input);
    SmallVector<Value> windowed =
        windowedSizes(rewriter, loc, input, inSizes[1], w);
    // [N, out..., C, k...]
    SmallVector<Value> sizes{windowed[0]};
    sizes.append(windowed.begin() + 2, windowed.end());
    sizes.push_back(inSizes[1]);
    for (int64_t k : w.kernel)
      sizes.push_back(arith::ConstantIndexOp::create(rewriter, loc, k));
    Value init = emptyResult(rewriter, loc, resultType, sizes);
    Value result =
        buildParallel(
            rewriter, loc, init,
            [&](OpBuilder &b, Location l, ArrayRef<Value> idx) {
              Math m{b, l};
              SmallVector<Value> pos;
              for (int64_t i = 0; i < s; ++i)
                pos.push_back(w.position(m, idx[1 + i], idx[2 + s + i], i));
              Value zero = scalarConstant(b, l, getSignlessType(element), 0);
              return SmallVector<Value>{fromSignless(
                  b, l,
                  readPadded(m, input, inSizes, idx[0], idx[1 + s], pos, zero)
                      .first,
                  element)};
            })
            .front();
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// col2im: each image element sums the block taps that land on it.
struct Col2imPattern : OpRewritePattern<Col2imOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(Col2imOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = op.getInput();
    RankedTensorType resultType = op.getType();
    Type element = resultType.getElementType();
    Type acc = isa<FloatType>(element) ? getAccumulatorType(element)
                                       : getSignlessType(element);
    ArrayRef<int64_t> block = op.getBlockShape(), strides = op.getStrides(),
                      pads = op.getPads(), dilations = op.getDilations(),
                      extra = op.getOutputPadding();
    int64_t s = static_cast<int64_t>(block.size()), taps = product(block);
    Math om{rewriter, loc};
    SmallVector<Value> in = dimValues(rewriter, loc, input);
    SmallVector<Value> sizes{in[0], om.divC(in[1], taps)};
    for (int64_t i = 0; i < s; ++i) {
      int64_t rest =
          dilations[i] * (block[i] - 1) + 1 + extra[i] - pads[i] - pads[s + i];
      sizes.push_back(
          om.add(om.mul(om.sub(in[2 + i], om.idx(1)), strides[i]), rest));
    }
    Value init = emptyResult(rewriter, loc, resultType, sizes);
    Value result =
        buildParallel(
            rewriter, loc, init,
            [&](OpBuilder &b, Location l, ArrayRef<Value> idx) {
              SmallVector<Value> sum = loop(
                  b, l, taps, scalarConstant(b, l, acc, 0),
                  [&](OpBuilder &lb, Location ll, Value t, ValueRange args) {
                    Math m{lb, ll};
                    SmallVector<Value> k = m.unflatten(t, block);
                    Value hit;
                    SmallVector<Value> at{idx[0],
                                          m.add(m.mul(idx[1], taps), t)};
                    for (int64_t i = 0; i < s; ++i) {
                      Value q = m.sub(m.add(idx[2 + i], pads[i]),
                                      m.mul(k[i], dilations[i]));
                      Value safe = m.select(
                          m.cmp(arith::CmpIPredicate::sge, q, m.idx(0)), q,
                          m.idx(0));
                      Value aligned = m.cmp(arith::CmpIPredicate::eq,
                                            m.remC(safe, strides[i]), m.idx(0));
                      Value blk = m.divC(safe, strides[i]);
                      hit = m.both(
                          hit,
                          m.both(m.cmp(arith::CmpIPredicate::sge, q, m.idx(0)),
                                 m.both(aligned, m.inRange(blk, in[2 + i]))));
                      at.push_back(blk);
                    }
                    for (int64_t i = 0; i < s; ++i)
                      at[2 + i] = m.select(hit, at[2 + i], m.idx(0));
                    Value v =
                        convertScalar(lb, ll,
                                      toSignless(lb, ll,
                                                 tensor::ExtractOp::create(
                                                     lb, ll, input, at)),
                                      element, acc);
                    Value zero = scalarConstant(lb, ll, acc, 0);
                    return SmallVector<Value>{
                        m.add(args[0], m.select(hit, v, zero))};
                  });
              return SmallVector<Value>{fromSignless(
                  b, l, convertScalar(b, l, sum[0], acc, element), element)};
            })
            .front();
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

/// The lowest value of `element` (what padding reads as for max).
Value lowest(OpBuilder &b, Location loc, Type element) {
  if (auto f = dyn_cast<FloatType>(element))
    return arith::ConstantOp::create(
        b, loc,
        b.getFloatAttr(f, APFloat::getInf(f.getFloatSemantics(),
                                          /*Negative=*/true)));
  auto i = cast<IntegerType>(element);
  APInt v = i.isUnsigned() ? APInt::getMinValue(i.getWidth())
                           : APInt::getSignedMinValue(i.getWidth());
  return arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(getSignlessType(element), v));
}

/// `x > y` for signless scalars of the (signed or unsigned) `element`.
Value greater(Math &m, Value x, Value y, Type element) {
  if (isa<FloatType>(element))
    return m.cmpf(arith::CmpFPredicate::OGT, x, y);
  return m.cmp(element.isUnsignedInteger() ? arith::CmpIPredicate::ugt
                                           : arith::CmpIPredicate::sgt,
               x, y);
}

enum class PoolKind { Max, Avg, Lp };

/// max_pool, avg_pool and lp_pool: one loop over the window's taps.
template <typename OpTy, PoolKind kind>
struct PoolPattern : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = op.getInput();
    RankedTensorType resultType = op.getType();
    Type element = resultType.getElementType();
    Window w = windowOf(op);
    w.ceilMode = op.getCeilMode();
    int64_t s = w.spatial(), taps = product(w.kernel);
    SmallVector<Value> inSizes = dimValues(rewriter, loc, input);
    Value init =
        emptyResult(rewriter, loc, resultType,
                    windowedSizes(rewriter, loc, input, inSizes[1], w));
    bool includePad = false;
    int64_t p = 1;
    if constexpr (kind == PoolKind::Avg)
      includePad = op.getCountIncludePad();
    if constexpr (kind == PoolKind::Lp)
      p = static_cast<int64_t>(op.getP());
    Type acc = isa<FloatType>(element) ? getAccumulatorType(element)
                                       : getSignlessType(element);
    Value result =
        buildParallel(
            rewriter, loc, init,
            [&](OpBuilder &b, Location l, ArrayRef<Value> idx) {
              Value start = kind == PoolKind::Max
                                ? lowest(b, l, element)
                                : scalarConstant(b, l, acc, 0);
              Value pad =
                  kind == PoolKind::Max
                      ? lowest(b, l, element)
                      : scalarConstant(b, l, getSignlessType(element), 0);
              SmallVector<Value> carried{start, scalarConstant(b, l, acc, 0)};
              SmallVector<Value> out = loop(
                  b, l, taps, carried,
                  [&](OpBuilder &lb, Location ll, Value t, ValueRange args) {
                    Math m{lb, ll};
                    SmallVector<Value> k = m.unflatten(t, w.kernel);
                    SmallVector<Value> pos;
                    Value counted;
                    for (int64_t i = 0; i < s; ++i) {
                      pos.push_back(w.position(m, idx[2 + i], k[i], i));
                      // With count_include_pad the pads count, but not
                      // what a ceil-mode window reaches past them.
                      counted = m.both(
                          counted, m.inRange(m.add(pos.back(), w.pads[i]),
                                             m.add(inSizes[2 + i],
                                                   w.pads[i] + w.pads[s + i])));
                    }
                    auto [v, inside] =
                        readPadded(m, input, inSizes, idx[0], idx[1], pos, pad);
                    if (kind == PoolKind::Max)
                      return SmallVector<Value>{
                          m.select(greater(m, v, args[0], element), v, args[0]),
                          args[1]};
                    Value x = convertScalar(lb, ll, v, element, acc);
                    if (kind == PoolKind::Lp) {
                      Value a = math::AbsFOp::create(lb, ll, x);
                      x = a;
                      for (int64_t i = 1; i < p; ++i)
                        x = m.mul(x, a);
                    }
                    Value one = scalarConstant(lb, ll, acc, 1);
                    Value zero = scalarConstant(lb, ll, acc, 0);
                    Value n =
                        m.select(includePad ? counted : inside, one, zero);
                    return SmallVector<Value>{m.add(args[0], x),
                                              m.add(args[1], n)};
                  });
              Value r = out[0];
              if (kind == PoolKind::Avg)
                r = m_div(b, l, r, out[1]);
              if (kind == PoolKind::Lp && p == 2)
                r = math::SqrtOp::create(b, l, r);
              else if (kind == PoolKind::Lp && p != 1)
                r = math::PowFOp::create(
                    b, l, r,
                    scalarConstant(b, l, acc, 1.0 / static_cast<double>(p)));
              if (kind != PoolKind::Max)
                r = convertScalar(b, l, r, acc, element);
              return SmallVector<Value>{fromSignless(b, l, r, element)};
            })
            .front();
    rewriter.replaceOp(op, result);
    return success();
  }

  static Value m_div(OpBuilder &b, Location l, Value x, Value y) {
    return arith::DivFOp::create(b, l, x, y);
  }
};

/// max_pool_with_indices: the maximum and the flat index of its first
/// occurrence.
struct MaxPoolWithIndicesPattern : OpRewritePattern<MaxPoolWithIndicesOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MaxPoolWithIndicesOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = op.getInput();
    RankedTensorType valuesType = op.getValues().getType();
    Type element = valuesType.getElementType();
    Window w = windowOf(op);
    w.ceilMode = op.getCeilMode();
    int64_t s = w.spatial(), taps = product(w.kernel);
    bool columnMajor = op.getColumnMajor();
    SmallVector<Value> inSizes = dimValues(rewriter, loc, input);
    SmallVector<Value> sizes =
        windowedSizes(rewriter, loc, input, inSizes[1], w);
    Value values = emptyResult(rewriter, loc, valuesType, sizes);
    Value indices =
        emptyResult(rewriter, loc, op.getIndices().getType(), sizes);
    SmallVector<Value> results = buildParallel(
        rewriter, loc, SmallVector<Value>{values, indices},
        [&](OpBuilder &b, Location l, ArrayRef<Value> idx) {
          Math m{b, l};
          // The flat offset of (n, c) and the strides of the spatial dims.
          Value plane = m.idx(1);
          for (int64_t i = 0; i < s; ++i)
            plane = m.mul(plane, inSizes[2 + i]);
          Value base = m.mul(m.add(m.mul(idx[0], inSizes[1]), idx[1]), plane);
          SmallVector<Value> strides(s);
          Value stride = m.idx(1);
          for (int64_t j = 0; j < s; ++j) {
            int64_t i = columnMajor ? j : s - 1 - j;
            strides[i] = stride;
            stride = m.mul(stride, inSizes[2 + i]);
          }
          Value none = arith::ConstantIntOp::create(b, l, -1, 64);
          SmallVector<Value> out = loop(
              b, l, taps, SmallVector<Value>{lowest(b, l, element), none},
              [&](OpBuilder &lb, Location ll, Value t, ValueRange args) {
                Math lm{lb, ll};
                SmallVector<Value> k = lm.unflatten(t, w.kernel);
                SmallVector<Value> pos;
                for (int64_t i = 0; i < s; ++i)
                  pos.push_back(w.position(lm, idx[2 + i], k[i], i));
                auto [v, inside] =
                    readPadded(lm, input, inSizes, idx[0], idx[1], pos,
                               lowest(lb, ll, element));
                Value flat = base;
                for (int64_t i = 0; i < s; ++i)
                  flat = lm.add(flat, lm.mul(pos[i], strides[i]));
                Value unset =
                    lm.cmp(arith::CmpIPredicate::slt, args[1],
                           arith::ConstantIntOp::create(lb, ll, 0, 64));
                Value better = lm.both(
                    inside, lm.either(unset, greater(lm, v, args[0], element)));
                Value at =
                    arith::IndexCastOp::create(lb, ll, lb.getI64Type(), flat);
                return SmallVector<Value>{lm.select(better, v, args[0]),
                                          lm.select(better, at, args[1])};
              });
          return SmallVector<Value>{fromSignless(b, l, out[0], element),
                                    out[1]};
        });
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void mlir::tsc::populateTscConvolutionToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<ConvPattern, Im2colPattern, Col2imPattern,
               PoolPattern<MaxPoolOp, PoolKind::Max>,
               PoolPattern<AvgPoolOp, PoolKind::Avg>,
               PoolPattern<LpPoolOp, PoolKind::Lp>, MaxPoolWithIndicesPattern>(
      patterns.getContext());
  populateTscSamplingToLinalgPatterns(patterns);
}
