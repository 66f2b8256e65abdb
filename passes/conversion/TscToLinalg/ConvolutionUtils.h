//===- ConvolutionUtils.h - window loops of the Convolution lowerings -*- C++
//-*-===//
//
// Shared by Convolution.cpp and Sampling.cpp: the Convolution family's ops
// lower to a parallel linalg.generic over the result whose body loops over
// the op's window with scf.for and reads the input with bounds-checked
// tensor.extract; these are the pieces of that shape.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_PASSES_CONVERSION_TSCTOLINALG_CONVOLUTIONUTILS_H
#define TSC_PASSES_CONVERSION_TSCTOLINALG_CONVOLUTIONUTILS_H

#include "passes/conversion/TscToLinalg/TscToLinalg.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::tsc::tolinalg::window {

/// Scalar arithmetic at one place: index math for positions, f64 math for
/// coordinates.
struct Math {
  OpBuilder &b;
  Location l;

  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, l, v); }
  Value f64(double v) {
    return arith::ConstantOp::create(b, l, b.getF64FloatAttr(v));
  }
  Value add(Value x, Value y) {
    return isa<FloatType>(x.getType())
               ? Value(arith::AddFOp::create(b, l, x, y))
               : Value(arith::AddIOp::create(b, l, x, y));
  }
  Value sub(Value x, Value y) {
    return isa<FloatType>(x.getType())
               ? Value(arith::SubFOp::create(b, l, x, y))
               : Value(arith::SubIOp::create(b, l, x, y));
  }
  Value mul(Value x, Value y) {
    return isa<FloatType>(x.getType())
               ? Value(arith::MulFOp::create(b, l, x, y))
               : Value(arith::MulIOp::create(b, l, x, y));
  }
  Value div(Value x, Value y) { return arith::DivFOp::create(b, l, x, y); }
  Value mul(Value x, int64_t c) { return c == 1 ? x : mul(x, idx(c)); }
  Value add(Value x, int64_t c) { return c == 0 ? x : add(x, idx(c)); }
  Value divC(Value x, int64_t c) {
    return c == 1 ? x : Value(arith::DivUIOp::create(b, l, x, idx(c)));
  }
  Value remC(Value x, int64_t c) {
    return arith::RemUIOp::create(b, l, x, idx(c));
  }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, l, p, x, y);
  }
  Value cmpf(arith::CmpFPredicate p, Value x, Value y) {
    return arith::CmpFOp::create(b, l, p, x, y);
  }
  Value both(Value x, Value y) {
    return x ? Value(arith::AndIOp::create(b, l, x, y)) : y;
  }
  Value either(Value x, Value y) { return arith::OrIOp::create(b, l, x, y); }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, l, c, x, y);
  }
  /// Whether `0 <= v < size` (signed index compare).
  Value inRange(Value v, Value size) {
    return both(cmp(arith::CmpIPredicate::sge, v, idx(0)),
                cmp(arith::CmpIPredicate::slt, v, size));
  }
  Value clamp(Value v, Value size) {
    Value low = arith::MaxSIOp::create(b, l, v, idx(0));
    return arith::MinSIOp::create(b, l, low, sub(size, idx(1)));
  }
  Value toF64(Value index) {
    Value i = arith::IndexCastOp::create(b, l, b.getI64Type(), index);
    return arith::SIToFPOp::create(b, l, b.getF64Type(), i);
  }
  /// floor of an f64 as an index.
  Value floorIdx(Value x) {
    Value f = math::FloorOp::create(b, l, x);
    Value i = arith::FPToSIOp::create(b, l, b.getI64Type(), f);
    return arith::IndexCastOp::create(b, l, b.getIndexType(), i);
  }
  Value ceilIdx(Value x) {
    Value f = math::CeilOp::create(b, l, x);
    Value i = arith::FPToSIOp::create(b, l, b.getI64Type(), f);
    return arith::IndexCastOp::create(b, l, b.getIndexType(), i);
  }
  /// Splits `flat` (row-major over `shape`) into one index per dim.
  SmallVector<Value> unflatten(Value flat, ArrayRef<int64_t> shape) {
    SmallVector<Value> out(shape.size());
    for (int64_t i = static_cast<int64_t>(shape.size()) - 1; i >= 0; --i) {
      out[i] = i == 0 ? flat : remC(flat, shape[i]);
      flat = divC(flat, shape[i]);
    }
    return out;
  }
};

inline int64_t product(ArrayRef<int64_t> values) {
  int64_t p = 1;
  for (int64_t v : values)
    p *= v;
  return p;
}

/// Index values of the dims of `tensor` (constants where static).
inline SmallVector<Value> dimValues(OpBuilder &b, Location loc, Value tensor) {
  SmallVector<Value> dims;
  for (OpFoldResult size : tensor::getMixedSizes(b, loc, tensor))
    dims.push_back(getValueOrCreateConstantIndexOp(b, loc, size));
  return dims;
}

/// A parallel linalg.generic over the dims of `inits` (all of one shape)
/// reading nothing through maps; `body` gets the loop indices and returns
/// one element per init.
inline SmallVector<Value> buildParallel(
    OpBuilder &b, Location loc, ValueRange inits,
    function_ref<SmallVector<Value>(OpBuilder &, Location, ArrayRef<Value>)>
        body) {
  int64_t rank = cast<RankedTensorType>(inits[0].getType()).getRank();
  SmallVector<AffineMap> maps(
      inits.size(), AffineMap::getMultiDimIdentityMap(rank, b.getContext()));
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange(inits), ValueRange{}, inits, maps,
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location nl, ValueRange) {
        SmallVector<Value> indices;
        for (int64_t d = 0; d < rank; ++d)
          indices.push_back(linalg::IndexOp::create(nb, nl, d));
        linalg::YieldOp::create(nb, nl, body(nb, nl, indices));
      });
  return generic.getResults();
}

/// An scf.for over `[0, count)` carrying `inits`; `body` gets the
/// induction variable and the carried values and returns the next ones.
inline SmallVector<Value>
loop(OpBuilder &b, Location loc, int64_t count, ValueRange inits,
     function_ref<SmallVector<Value>(OpBuilder &, Location, Value, ValueRange)>
         body) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value end = arith::ConstantIndexOp::create(b, loc, count);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto forOp = scf::ForOp::create(
      b, loc, zero, end, one, inits,
      [&](OpBuilder &nb, Location nl, Value iv, ValueRange args) {
        scf::YieldOp::create(nb, nl, body(nb, nl, iv, args));
      });
  return forOp.getResults();
}

/// The empty result of `type` whose dynamic dims are `sizes`' entries.
inline Value emptyResult(OpBuilder &b, Location loc, RankedTensorType type,
                         ArrayRef<Value> sizes) {
  SmallVector<OpFoldResult> mixed;
  for (auto [d, size] : llvm::enumerate(sizes))
    mixed.push_back(type.isDynamicDim(d) ? OpFoldResult(size)
                                         : b.getIndexAttr(type.getDimSize(d)));
  return createEmptyOfSizes(b, loc, type, mixed);
}

/// Reads `image[n, c, pos...]` as a signless scalar, or `pad` (signless)
/// where a position is outside the image (`sizes` its dims). Also returns
/// whether it was inside.
inline std::pair<Value, Value> readPadded(Math &m, Value image,
                                          ArrayRef<Value> sizes, Value n,
                                          Value c, ArrayRef<Value> pos,
                                          Value pad) {
  Value inside;
  SmallVector<Value> indices{n, c};
  for (auto [i, p] : llvm::enumerate(pos))
    inside = m.both(inside, m.inRange(p, sizes[2 + i]));
  for (auto [i, p] : llvm::enumerate(pos))
    indices.push_back(m.select(inside, p, m.idx(0)));
  Value v =
      toSignless(m.b, m.l, tensor::ExtractOp::create(m.b, m.l, image, indices));
  return {m.select(inside, v, pad), inside};
}

} // namespace mlir::tsc::tolinalg::window

#endif // TSC_PASSES_CONVERSION_TSCTOLINALG_CONVOLUTIONUTILS_H
