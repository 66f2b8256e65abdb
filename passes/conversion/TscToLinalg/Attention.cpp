//===- Attention.cpp - tsc.attention to a tiled online-softmax loop nest --===//
//
// Flash-attention on tensors: an scf.forall over (batch, head, block of
// query rows) whose body loops over blocks of keys, keeping per query row
// the running max m, the running sum l of exp(s - m) and the unnormalized
// output O, so the [B, H, Sq, Skv] score matrix never exists:
//
//   S  = (scale·Q)·Kᵀ, masked to -inf       m' = max(m, rowmax S)
//   P  = exp(S - m')                         α  = exp(m - m')
//   l' = α·l + rowsum P                      O' = α·O + P·V
//
// and finally O / l. With fp16 or bf16 operands, Q, K, V and P are tiles in
// that type (the operands of tensor-core products on the CUDA target), S, the
// statistics and O f32, and the scale multiplies S. Tiles
// have static shapes (a partial block reads clamped rows and masks the keys
// past the end), so the bufferized temporaries are small fixed-size buffers and
// every inner loop has a constant trip count that LLVM vectorizes. The forall
// becomes the OpenMP loop; the host codegen leaves the linalg ops inside it
// sequential.
//
//===----------------------------------------------------------------------===//

#include "passes/conversion/TscToLinalg/TscToLinalg.h"

#include "dialects/tsc/IR/TscOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::tolinalg;

namespace {

using utils::IteratorType;

/// Query rows per forall iteration and keys per key-loop iteration. On
/// all-MiniLM-L6-v2 (D = 32, seq 128, one thread) 32 x 64, 64 x 64 and
/// 32 x 128 ran within the machine's noise of each other in wall-clock time
/// and 16 x 64 was slower. In CPU time (perf) 64 query rows cut the host's
/// attention by 10 % against 32 (2.86 against 3.2 ms per run; 128 rows 2.75):
/// each Kᵀ/V block, gathered per query block, is reused by twice the rows.
/// With a bound on the tiles' bytes (the CUDA target's shared memory) the
/// query block stays at 32 rows.
constexpr int64_t kQueryBlock = 64;
constexpr int64_t kBoundedQueryBlock = 32;
constexpr int64_t kKeyBlock = 64;
/// On the host, sequences longer than a block (both Sq and Skv over 64)
/// take larger blocks: 128 query rows, and with pair tiles 128 keys. On
/// BERT-base (D = 64, seq 128, batch 8, bf16, an AMX machine, 2 threads)
/// 128 rows took attention from 32.3 to 28.6 ms per run (the Kᵀ gather, a
/// transposing one, then once per head), and with AMX tiles, whose products
/// cost little next to the per-block softmax updates, 128 keys from 25.8 to
/// 21.7 ms (with f32 tiles 128 keys were slower, 31.7 -> 33.9 ms); with
/// vdpbf16ps products (Zen 5, static int8 with bf16 products, 1 thread)
/// 25.7 ms against 28.0 with 64 keys. A short
/// sequence in them would compute whole blocks for a few rows (seq 16,
/// batch 8, bf16: attention 8.3 -> 15.9 ms), so with a dynamic sequence the
/// loop nest exists in both sizes and the sizes at run time pick one.
constexpr int64_t kLongThreshold = 64;
constexpr int64_t kLongQueryBlock = 128;
constexpr int64_t kLongPairKeyBlock = 128;

/// acc + x * y, reassociable and contractible into FMAs as in the other
/// contractions, so that LLVM vectorizes the loops.
/// acc + x·y in acc's type (half-precision key and value tiles widen).
Value multiplyAdd(OpBuilder &b, Location loc, Value x, Value y, Value acc) {
  auto flags = arith::FastMathFlags::reassoc | arith::FastMathFlags::contract;
  auto widened = [&](Value v) -> Value {
    if (v.getType() == acc.getType())
      return v;
    return arith::ExtFOp::create(b, loc, acc.getType(), v);
  };
  return arith::AddFOp::create(
      b, loc, acc,
      arith::MulFOp::create(b, loc, widened(x), widened(y), flags), flags);
}

/// The lowering of one attention op; the member builders emit into the
/// forall body.
class AttentionBuilder {
public:
  AttentionBuilder(AttentionOp op, OpBuilder &b, int64_t maxKeyValueBlockBytes,
                   bool bf16Products)
      : op(op), b(b), loc(op.getLoc()), ctx(b.getContext()),
        maxKeyValueBlockBytes(maxKeyValueBlockBytes),
        bf16Products(bf16Products) {}

  Value build();

private:
  /// Sets the blocks and the tiles' types: `queryBlock` rows, `keyBlock`
  /// keys (`pairKeyBlock` with pair tiles), no larger than a static sequence.
  void configure(int64_t queryBlock, int64_t keyBlock, int64_t pairKeyBlock);
  /// The forall over (batch, head, query block) for the configured blocks,
  /// writing into `out`; with `enabled`, no query blocks where it is false.
  Value loopNest(Value out, Value enabled = {});

  AttentionOp op;
  OpBuilder &b;
  Location loc;
  MLIRContext *ctx;
  int64_t maxKeyValueBlockBytes;
  bool bf16Products;
  Type element, f, kvType;
  int64_t seqAxis, headsAxis, blockQ, blockK;
  Value scale, negInf, zero, causalOffset;
  /// Whether Q and P tiles are half precision (fp16 or bf16), like K and V
  /// (the products' operands on tensor cores): Q then is unscaled, the scale
  /// applied to S in f32.
  bool halfTiles = false;
  /// Whether the products are laid out for the host's bf16 pair products
  /// (bf16Products; a bf16 op, or an f32 one marked bf16_products, whose
  /// blocks are whole tiles): bf16 tiles, and K gathered as it is ([Bk, D])
  /// for S = Q·Kᵀ over loops (i, j, d), which the host codegen packs into
  /// the products' (k, k + 1) pair layout (AMX or vdpbf16ps).
  bool pairTiles = false;
  /// Set by build() for configure() and loopNest().
  Type baseKvType;
  bool pairShapes = false;
  int64_t sqStatic, skvStatic;
  Value query, key, value, mask, batch, heads, sq, skv, group;
  OpFoldResult headDim, valueDim;
  // Set inside the forall body.
  Value batchIv, headIv, kvHead, q0, qTile;

  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }

  /// [b, s, h, d] in the op's layout.
  template <typename T> SmallVector<T> inLayout(T batch, T seq, T head, T d) {
    SmallVector<T> v(4);
    v[0] = batch, v[seqAxis] = seq, v[headsAxis] = head, v[3] = d;
    return v;
  }

  RankedTensorType tileType(ArrayRef<int64_t> shape, Type type) {
    return RankedTensorType::get(shape, type);
  }

  AffineMap map(unsigned loops, ArrayRef<unsigned> dims) {
    SmallVector<AffineExpr> exprs;
    for (unsigned d : dims)
      exprs.push_back(getAffineDimExpr(d, ctx));
    return AffineMap::get(loops, 0, exprs, ctx);
  }

  /// A [rows, cols] tile of `type` whose element (i, j) is `read(i, j)`.
  Value gather(ArrayRef<int64_t> shape, ArrayRef<OpFoldResult> sizes, Type type,
               function_ref<Value(OpBuilder &, Location, Value, Value)> read) {
    Value init = createEmptyOfSizes(b, loc, tileType(shape, type), sizes);
    return buildGeneric(b, loc, {}, {}, init, map(2, {0, 1}),
                        {IteratorType::parallel, IteratorType::parallel},
                        [&](OpBuilder &nb, Location l, ValueRange) {
                          return read(nb, l, linalg::IndexOp::create(nb, l, 0),
                                      linalg::IndexOp::create(nb, l, 1));
                        });
  }

  /// A fresh tensor of `shape` (static) filled with `value`.
  Value filled(ArrayRef<int64_t> shape, ArrayRef<OpFoldResult> sizes,
               Value value) {
    return createFilled(b, loc, tileType(shape, f), sizes, value);
  }

  /// One key block starting at key `k0`: the updated (m, l, O).
  SmallVector<Value> keyBlock(Value k0, ValueRange state, Value key,
                              Value value, Value mask, Value skv, Value sq,
                              OpFoldResult headDim, OpFoldResult valueDim);
};

SmallVector<Value> AttentionBuilder::keyBlock(Value k0, ValueRange state,
                                              Value key, Value value,
                                              Value mask, Value skv, Value sq,
                                              OpFoldResult headDim,
                                              OpFoldResult valueDim) {
  Value m = state[0], l = state[1], acc = state[2];
  int64_t staticD = op.getQuery().getType().getDimSize(3);
  int64_t staticDv = op.getValue().getType().getDimSize(3);
  OpFoldResult bq = b.getIndexAttr(blockQ), bk = b.getIndexAttr(blockK);
  Value one = index(1);
  Value lastKey = arith::SubIOp::create(b, loc, skv, one);
  Value lastQuery = arith::SubIOp::create(b, loc, sq, one);
  auto keyRow = [&](OpBuilder &nb, Location l, Value j) {
    return arith::MinUIOp::create(nb, l, arith::AddIOp::create(nb, l, k0, j),
                                  lastKey);
  };

  // Kᵀ [D, Bk] (K [Bk, D] for AMX tiles) and V [Bk, Dv] of this block, in
  // the key/value type.
  auto keyAt = [&](OpBuilder &nb, Location l, Value j, Value d) {
    Value x = tensor::ExtractOp::create(
        nb, l, key, inLayout<Value>(batchIv, keyRow(nb, l, j), kvHead, d));
    return convertScalar(nb, l, x, element, kvType);
  };
  Value keyT = pairTiles ? gather({blockK, staticD}, {bk, headDim}, kvType,
                                  [&](OpBuilder &nb, Location l, Value j,
                                      Value d) { return keyAt(nb, l, j, d); })
                         : gather({staticD, blockK}, {headDim, bk}, kvType,
                                  [&](OpBuilder &nb, Location l, Value d,
                                      Value j) { return keyAt(nb, l, j, d); });
  Value valueTile =
      gather({blockK, staticDv}, {bk, valueDim}, kvType,
             [&](OpBuilder &nb, Location l, Value j, Value e) {
               Value x = tensor::ExtractOp::create(
                   nb, l, value,
                   inLayout<Value>(batchIv, keyRow(nb, l, j), kvHead, e));
               return convertScalar(nb, l, x, element, kvType);
             });

  // S = Q·Kᵀ over loops (i, d, j): the key loop innermost runs along rows
  // of Kᵀ and S and vectorizes without a horizontal reduction. For AMX
  // tiles over loops (i, j, d) from K.
  auto product = [](OpBuilder &nb, Location l, ValueRange args) {
    return multiplyAdd(nb, l, args[0], args[1], args[2]);
  };
  Value zeroScores = filled({blockQ, blockK}, {bq, bk}, zero);
  Value scores =
      pairTiles ? buildGeneric(b, loc, {qTile, keyT},
                               {map(3, {0, 2}), map(3, {1, 2})}, zeroScores,
                               map(3, {0, 1}),
                               {IteratorType::parallel, IteratorType::parallel,
                                IteratorType::reduction},
                               product)
                : buildGeneric(b, loc, {qTile, keyT},
                               {map(3, {0, 1}), map(3, {1, 2})}, zeroScores,
                               map(3, {0, 2}),
                               {IteratorType::parallel, IteratorType::reduction,
                                IteratorType::parallel},
                               product);

  // The mask's values for this block as a tile, [1, Bk] when every query
  // row has the same (a padding mask): read with clamped indices once per
  // key block, where the score loop below reads the tile at (i, j), which
  // LLVM vectorizes (the clamped index into the mask kept it one key at a
  // time).
  auto maskType =
      mask ? cast<RankedTensorType>(mask.getType()) : RankedTensorType();
  Value maskTile;
  bool maskPerQuery = false;
  if (mask) {
    int64_t rank = maskType.getRank();
    maskPerQuery = rank >= 2 && maskType.getDimSize(rank - 2) != 1;
    int64_t rows = maskPerQuery ? blockQ : 1;
    maskTile = gather(
        {rows, blockK}, {b.getIndexAttr(rows), bk}, maskType.getElementType(),
        [&](OpBuilder &nb, Location l, Value i, Value j) {
          // Right-aligned broadcast to [B, H, Sq, Skv]; static 1s read 0.
          SmallVector<Value> scoreIndex = {
              batchIv, headIv,
              maskPerQuery
                  ? arith::MinUIOp::create(
                        nb, l, arith::AddIOp::create(nb, l, q0, i), lastQuery)
                        .getResult()
                  : i,
              keyRow(nb, l, j)};
          SmallVector<Value> indices;
          for (int64_t d = 0; d < rank; ++d)
            indices.push_back(maskType.getDimSize(d) == 1
                                  ? arith::ConstantIndexOp::create(nb, l, 0)
                                  : scoreIndex[4 - rank + d]);
          return tensor::ExtractOp::create(nb, l, mask, indices);
        });
  }

  // The mask, the causal triangle and the keys past the end.
  SmallVector<Value> maskedInputs = {scores};
  SmallVector<AffineMap> maskedMaps = {map(2, {0, 1})};
  if (maskTile) {
    maskedInputs.push_back(maskTile);
    maskedMaps.push_back(maskPerQuery
                             ? map(2, {0, 1})
                             : AffineMap::get(2, 0,
                                              {getAffineConstantExpr(0, ctx),
                                               getAffineDimExpr(1, ctx)},
                                              ctx));
  }
  Value masked = buildGeneric(
      b, loc, maskedInputs, maskedMaps,
      createEmptyOfSizes(b, loc, tileType({blockQ, blockK}, f), {bq, bk}),
      map(2, {0, 1}), {IteratorType::parallel, IteratorType::parallel},
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value s = args[0];
        if (halfTiles)
          s = arith::MulFOp::create(nb, l, s, scale);
        Value i = linalg::IndexOp::create(nb, l, 0);
        Value j = linalg::IndexOp::create(nb, l, 1);
        Value keyIndex = arith::AddIOp::create(nb, l, k0, j);
        Value keep = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult,
                                           keyIndex, skv);
        if (causalOffset) {
          // Aligned at the end: query i sees keys j <= i + (Skv - Sq).
          Value queryIndex = arith::AddIOp::create(nb, l, q0, i);
          Value last = arith::AddIOp::create(nb, l, queryIndex, causalOffset);
          keep = arith::AndIOp::create(
              nb, l, keep,
              arith::CmpIOp::create(nb, l, arith::CmpIPredicate::sle, keyIndex,
                                    last));
        }
        if (maskTile) {
          Value x = args[1];
          if (x.getType().isInteger(1))
            keep = arith::AndIOp::create(nb, l, keep, x);
          else
            s = arith::AddFOp::create(
                nb, l, s, convertScalar(nb, l, x, x.getType(), f));
        }
        return arith::SelectOp::create(nb, l, keep, s, negInf);
      });

  // Row maxima of the block, then m' = max(m, rowmax) and α = exp(m - m'),
  // with 0 standing for m' while a row has seen only -inf (so that exp
  // gives 0, not NaN, for a fully masked row). The row maximum may ignore
  // NaN (`nnan`: LLVM then reduces a vector in a tree of maxima, not one
  // lane after another): it only shifts the exponents, and a NaN score
  // still makes its P, the row sum and the row's output NaN.
  Value rowMax = buildGeneric(
      b, loc, {masked}, {map(2, {0, 1})}, filled({blockQ}, {bq}, negInf),
      map(2, {0}), {IteratorType::parallel, IteratorType::reduction},
      [&](OpBuilder &nb, Location l, ValueRange args) {
        return arith::MaxNumFOp::create(nb, l, args[0], args[1],
                                        arith::FastMathFlags::nnan);
      });
  auto safeMax = [&](OpBuilder &nb, Location l, Value x) {
    Value none =
        arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ, x, negInf);
    return arith::SelectOp::create(nb, l, none, zero, x);
  };
  // The statistics and the accumulator are updated in place (each generic
  // writes the iter_arg it reads as its init), so the key loop's yields
  // bufferize to the buffers it carries.
  RankedTensorType vectorType = tileType({blockQ}, f);
  auto stats = linalg::GenericOp::create(
      b, loc, TypeRange{vectorType, vectorType}, ValueRange{rowMax},
      ValueRange{m, createEmptyOfSizes(b, loc, vectorType, {bq})},
      SmallVector<AffineMap>(3, map(1, {0})),
      SmallVector<IteratorType>{IteratorType::parallel},
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value next = arith::MaxNumFOp::create(nb, l, args[1], args[0]);
        Value alpha = math::ExpOp::create(
            nb, l, arith::SubFOp::create(nb, l, args[1], safeMax(nb, l, next)));
        linalg::YieldOp::create(nb, l, ValueRange{next, alpha});
      });
  Value nextMax = stats.getResult(0), alpha = stats.getResult(1);

  // P = exp(S - m'), rounded to the half type with half tiles (P is in
  // [0, 1]; the row sum adds the rounded values P·V uses).
  Type probType = halfTiles ? kvType : f;
  Value probs = buildGeneric(
      b, loc, {masked, nextMax}, {map(2, {0, 1}), map(2, {0})},
      createEmptyOfSizes(b, loc, tileType({blockQ, blockK}, probType),
                         {bq, bk}),
      map(2, {0, 1}), {IteratorType::parallel, IteratorType::parallel},
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value p = math::ExpOp::create(
            nb, l,
            arith::SubFOp::create(nb, l, args[0], safeMax(nb, l, args[1])));
        return convertScalar(nb, l, p, f, probType);
      });

  // l' = α·l + rowsum P.
  auto times = [](OpBuilder &nb, Location l, ValueRange args) -> Value {
    return arith::MulFOp::create(nb, l, args[1], args[0]);
  };
  Value scaledSum =
      buildGeneric(b, loc, {alpha}, {map(1, {0})}, l, map(1, {0}),
                   {IteratorType::parallel}, times);
  Value nextSum = buildGeneric(
      b, loc, {probs}, {map(2, {0, 1})}, scaledSum, map(2, {0}),
      {IteratorType::parallel, IteratorType::reduction},
      [&](OpBuilder &nb, Location l, ValueRange args) {
        auto flags = arith::FastMathFlags::reassoc;
        return arith::AddFOp::create(
            nb, l, args[1], convertScalar(nb, l, args[0], probType, f), flags);
      });

  // O' = α·O + P·V over loops (j, i, e): the key loop outermost and the
  // head-dim loop innermost, so that each (j, i) updates one row of O with
  // vector loads and stores. With i outermost LLVM keeps a row of O in
  // scalar registers across the key loop and does not vectorize it.
  Value scaledAcc = buildGeneric(
      b, loc, {alpha}, {map(2, {0})}, acc, map(2, {0, 1}),
      {IteratorType::parallel, IteratorType::parallel}, times);
  Value nextAcc = buildGeneric(
      b, loc, {probs, valueTile}, {map(3, {1, 0}), map(3, {0, 2})}, scaledAcc,
      map(3, {1, 2}),
      {IteratorType::reduction, IteratorType::parallel, IteratorType::parallel},
      [&](OpBuilder &nb, Location l, ValueRange args) {
        return multiplyAdd(nb, l, args[0], args[1], args[2]);
      });
  return {nextMax, nextSum, nextAcc};
}

Value AttentionBuilder::build() {
  query = op.getQuery(), key = op.getKey(), value = op.getValue();
  mask = op.getMask();
  RankedTensorType qType = op.getQuery().getType();
  RankedTensorType resultType = op.getType();
  element = qType.getElementType();
  f = getAccumulatorType(resultType.getElementType());
  // Half-precision keys and values stay half in their tiles where the
  // tiles' bytes are bounded (half the memory, twice the keys per block in
  // the CUDA target's shared memory); products widen them. Without a bound
  // (the host) the gathers widen them once per tile, not the products once
  // per use, and P stays f32.
  baseKvType =
      maxKeyValueBlockBytes > 0 && isa<FloatType>(element) &&
              element.getIntOrFloatBitWidth() < f.getIntOrFloatBitWidth()
          ? element
          : f;
  // bf16 products (bf16Products, the host: AMX or AVX512_BF16) for bf16
  // attention and f32 attention marked bf16_products, where every block is
  // whole tiles (16 rows, 32 bf16 of reduction): static head dims D % 32 =
  // 0 and Dv % 16 = 0 here (hasPairTileHeadDims), the blocks in
  // configure().
  pairShapes =
      bf16Products && maxKeyValueBlockBytes == 0 &&
      (element.isBF16() || (element.isF32() && op.getBf16Products())) &&
      f.isF32() && op.hasPairTileHeadDims();
  seqAxis = op.getSeqAxis();
  headsAxis = op.getHeadsAxis();
  sqStatic = qType.getDimSize(seqAxis);
  skvStatic = op.getKey().getType().getDimSize(seqAxis);

  auto dim = [&](Value v, int64_t d) -> Value {
    return tensor::DimOp::create(b, loc, v, d);
  };
  batch = dim(query, 0), heads = dim(query, headsAxis);
  sq = dim(query, seqAxis), skv = dim(key, seqAxis);
  group = arith::DivUIOp::create(b, loc, heads, dim(key, headsAxis));
  headDim = tensor::getMixedSize(b, loc, query, 3);
  valueDim = tensor::getMixedSize(b, loc, value, 3);
  int64_t staticD = qType.getDimSize(3);

  zero = scalarConstant(b, loc, f, 0);
  negInf = arith::ConstantOp::create(
      b, loc,
      b.getFloatAttr(f, APFloat::getInf(cast<FloatType>(f).getFloatSemantics(),
                                        /*Negative=*/true)));
  if (std::optional<APFloat> attr = op.getScale()) {
    scale = scalarConstant(b, loc, f, attr->convertToDouble());
  } else if (!ShapedType::isDynamic(staticD)) {
    scale = scalarConstant(b, loc, f,
                           1.0f / std::sqrt(static_cast<float>(staticD)));
  } else {
    Value wide = arith::IndexCastOp::create(b, loc, b.getI64Type(),
                                            dim(query, 3));
    Value root = math::SqrtOp::create(
        b, loc, arith::SIToFPOp::create(b, loc, f, wide));
    scale = arith::DivFOp::create(b, loc, scalarConstant(b, loc, f, 1.0), root);
  }
  if (op.getCausal())
    causalOffset = arith::SubIOp::create(b, loc, skv, sq);

  SmallVector<OpFoldResult> resultSizes = {
      tensor::getMixedSize(b, loc, query, 0),
      tensor::getMixedSize(b, loc, query, 1),
      tensor::getMixedSize(b, loc, query, 2), valueDim};
  Value out = createEmptyOfSizes(b, loc, resultType, resultSizes);
  // The loop nest for blocks of `queryBlock` rows and `keyBlock` keys
  // (`pairKeyBlock` with pair tiles).
  auto nest = [&](int64_t queryBlock, int64_t keyBlock, int64_t pairKeyBlock,
                  Value into, Value enabled = {}) {
    configure(queryBlock, keyBlock, pairKeyBlock);
    return loopNest(into, enabled);
  };
  if (maxKeyValueBlockBytes > 0)
    return nest(kBoundedQueryBlock, kKeyBlock, kKeyBlock, out);
  // The host: long blocks where both sequences exceed a block, at compile
  // time or, with a dynamic one, at run time.
  auto atMost = [](int64_t size, int64_t bound) {
    return !ShapedType::isDynamic(size) && size <= bound;
  };
  if (atMost(sqStatic, kLongThreshold) || atMost(skvStatic, kLongThreshold))
    return nest(kQueryBlock, kKeyBlock, kKeyBlock, out);
  if (!ShapedType::isDynamic(sqStatic) && !ShapedType::isDynamic(skvStatic))
    return nest(kLongQueryBlock, kKeyBlock, kLongPairKeyBlock, out);
  Value threshold = index(kLongThreshold);
  Value long_ = arith::AndIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, sq, threshold),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, skv, threshold));
  // Both nests, one after the other into the same tensor, the one not
  // chosen with no query blocks (an scf.if yielding either tensor would
  // make bufferization give one branch a buffer of its own and a copy).
  Value longDone =
      nest(kLongQueryBlock, kKeyBlock, kLongPairKeyBlock, out, long_);
  Value short_ = arith::XOrIOp::create(
      b, loc, long_, arith::ConstantIntOp::create(b, loc, 1, 1));
  return nest(kQueryBlock, kKeyBlock, kKeyBlock, longDone, short_);
}

void AttentionBuilder::configure(int64_t queryBlock, int64_t keyBlock,
                                 int64_t pairKeyBlock) {
  kvType = baseKvType;
  halfTiles = (kvType.isF16() || kvType.isBF16()) && f.isF32();
  pairTiles = false;
  // Blocks no larger than a static sequence: a short one wastes no work.
  auto blockOf = [](int64_t size, int64_t block) {
    return ShapedType::isDynamic(size) || size == 0 ? block
                                                    : std::min(block, size);
  };
  blockQ = blockOf(sqStatic, queryBlock);
  blockK = blockOf(skvStatic, keyBlock);
  if (pairShapes && blockQ % 16 == 0 &&
      blockOf(skvStatic, pairKeyBlock) % 32 == 0) {
    pairTiles = true;
    blockK = blockOf(skvStatic, pairKeyBlock);
    kvType = b.getBF16Type();
    halfTiles = true;
  }
  // Kᵀ [D, Bk] and V [Bk, Dv] in the key/value type within the limit; with
  // half tiles within half of it, as the CUDA target's tensor-core products
  // keep Q, S, P and O in shared memory too (head dim 128: 32 keys, and the
  // six tiles fit 48 KiB).
  int64_t d = op.getQuery().getType().getDimSize(3);
  int64_t dv = op.getValue().getType().getDimSize(3);
  int64_t limit = halfTiles ? maxKeyValueBlockBytes / 2 : maxKeyValueBlockBytes;
  // (Not even one key's rows fitting, the limit cannot be kept anyway.)
  if (limit > 0 && !ShapedType::isDynamic(d) && !ShapedType::isDynamic(dv) &&
      d + dv > 0) {
    int64_t perKey = (d + dv) * int64_t(kvType.getIntOrFloatBitWidth() / 8);
    if (perKey <= limit)
      blockK =
          std::min<int64_t>(blockK, llvm::bit_floor(uint64_t(limit / perKey)));
  }
}

Value AttentionBuilder::loopNest(Value out, Value enabled) {
  RankedTensorType resultType = op.getType();
  int64_t staticD = op.getQuery().getType().getDimSize(3);
  int64_t staticDv = op.getValue().getType().getDimSize(3);
  Value cBlockQ = index(blockQ), cBlockK = index(blockK), c0 = index(0),
        c1 = index(1);
  Value queryBlocks = arith::CeilDivUIOp::create(b, loc, sq, cBlockQ);
  if (enabled)
    queryBlocks = arith::SelectOp::create(b, loc, enabled, queryBlocks, c0);
  auto forall = scf::ForallOp::create(
      b, loc, ArrayRef<OpFoldResult>{batch, heads, queryBlocks},
      ValueRange{out}, std::nullopt);

  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(forall.getBody());
  batchIv = forall.getInductionVars()[0];
  headIv = forall.getInductionVars()[1];
  q0 = arith::MulIOp::create(b, loc, forall.getInductionVars()[2], cBlockQ);
  kvHead = arith::DivUIOp::create(b, loc, headIv, group);
  Value rows = arith::MinUIOp::create(b, loc, cBlockQ,
                                      arith::SubIOp::create(b, loc, sq, q0));
  OpFoldResult bq = b.getIndexAttr(blockQ);

  // scale·Q [Bq, D] in f32, or Q in the half type with half tiles (scaled in
  // S); rows past the end repeat the last one.
  Value lastQuery = arith::SubIOp::create(b, loc, sq, c1);
  qTile = gather({blockQ, staticD}, {bq, headDim}, halfTiles ? kvType : f,
                 [&](OpBuilder &nb, Location l, Value i, Value d) {
                   Value row = arith::MinUIOp::create(
                       nb, l, arith::AddIOp::create(nb, l, q0, i), lastQuery);
                   Value x = tensor::ExtractOp::create(
                       nb, l, query, inLayout<Value>(batchIv, row, headIv, d));
                   if (halfTiles)
                     return convertScalar(nb, l, x, element, kvType);
                   return Value(arith::MulFOp::create(
                       nb, l, convertScalar(nb, l, x, element, f), scale));
                 });

  // Causal blocks stop at the last key the block's last row sees.
  Value keyEnd = skv;
  if (causalOffset) {
    Value end = arith::AddIOp::create(
        b, loc, arith::AddIOp::create(b, loc, q0, rows), causalOffset);
    keyEnd = arith::MinSIOp::create(b, loc,
                                    arith::MaxSIOp::create(b, loc, end, c0), skv);
  }
  SmallVector<Value> init = {filled({blockQ}, {bq}, negInf),
                             filled({blockQ}, {bq}, zero),
                             filled({blockQ, staticDv}, {bq, valueDim}, zero)};
  auto keyLoop = scf::ForOp::create(
      b, loc, c0, keyEnd, cBlockK, init,
      [&](OpBuilder &nb, Location l, Value k0, ValueRange state) {
        OpBuilder::InsertionGuard inner(b);
        b.setInsertionPoint(nb.getInsertionBlock(), nb.getInsertionPoint());
        SmallVector<Value> next = keyBlock(k0, state, key, value, mask, skv,
                                           sq, headDim, valueDim);
        scf::YieldOp::create(b, l, next);
      });

  // O / l, 0 for a row that saw no key; only the block's valid rows are
  // written.
  Value sum = keyLoop.getResult(1), acc = keyLoop.getResult(2);
  Type resultElement = resultType.getElementType();
  Value tile = buildGeneric(
      b, loc, {acc, sum}, {map(2, {0, 1}), map(2, {0})},
      createEmptyOfSizes(b, loc, tileType({blockQ, staticDv}, resultElement),
                         {bq, valueDim}),
      map(2, {0, 1}), {IteratorType::parallel, IteratorType::parallel},
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value empty =
            arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ, args[1],
                                  zero);
        Value o = arith::SelectOp::create(
            nb, l, empty, zero, arith::DivFOp::create(nb, l, args[0], args[1]));
        return convertScalar(nb, l, o, f, resultElement);
      });
  OpFoldResult one = b.getIndexAttr(1), zeroIndex = b.getIndexAttr(0);
  Value valid = tensor::ExtractSliceOp::create(
      b, loc, tile, SmallVector<OpFoldResult>{zeroIndex, zeroIndex},
      SmallVector<OpFoldResult>{rows, valueDim},
      SmallVector<OpFoldResult>{one, one});
  b.setInsertionPointToEnd(forall.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(
      b, loc, valid, forall.getRegionIterArgs()[0],
      inLayout<OpFoldResult>(batchIv, q0, headIv, zeroIndex),
      inLayout<OpFoldResult>(one, rows, one, valueDim),
      SmallVector<OpFoldResult>(4, one));
  return forall.getResult(0);
}

struct AttentionPattern : OpRewritePattern<AttentionOp> {
  AttentionPattern(MLIRContext *ctx, int64_t maxKeyValueBlockBytes,
                   bool bf16Products)
      : OpRewritePattern(ctx), maxKeyValueBlockBytes(maxKeyValueBlockBytes),
        bf16Products(bf16Products) {}
  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(
        op, AttentionBuilder(op, rewriter, maxKeyValueBlockBytes, bf16Products)
                .build());
    return success();
  }
  int64_t maxKeyValueBlockBytes;
  bool bf16Products;
};

} // namespace

void mlir::tsc::populateTscAttentionToLinalgPatterns(
    RewritePatternSet &patterns, int64_t maxKeyValueBlockBytes,
    bool bf16Products) {
  patterns.add<AttentionPattern>(patterns.getContext(), maxKeyValueBlockBytes,
                                 bf16Products);
}
