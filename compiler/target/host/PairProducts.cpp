//===- PairProducts.cpp - bf16 pair products: AMX and VDPBF16PS -----------===//
//
// With bf16 products the attention lowering keeps the tiles of bf16
// attention (or of f32 attention whose products are bf16) bf16 and writes
// S = Q·Kᵀ from K as it is (C[m, n] += A[m, k]·B[n, k]) and O += P·V as
// before (C[m, n] += A[m, k]·B[k, n]). Both of the CPU's bf16 products take
// A as rows of K values and B as rows of (k, k + 1) pairs:
// B'[k/2][2·n + k%2]. Per product the right operand is packed into that
// layout once, in a stack buffer: from B[k, n] by interleaving rows k and
// k + 1 (one shuffle per 16 columns), from B[n, k] by transposing 16 x 16
// blocks of 32-bit pairs (vector.transpose, lowered to shuffles). Then:
//
// - AMX (tdpbf16ps): per block of 16 rows the A tiles are loaded once, and
//   per 16 columns the C tile is loaded, multiplied with every (A, B') pair
//   of tiles of the reduction and stored. LLVM configures the tile
//   registers (ldtilecfg) in each function that uses them.
// - AVX512_BF16 (vdpbf16ps, x86vector.avx512.dot): register blocks as in
//   RegisterBlock.cpp, one pair of the reduction per step: per block of rows
//   and 16-column vectors the f32 accumulators stay in registers, and per
//   pair one load of each B' vector (16 pairs), one broadcast of A's pair
//   per row and one vdpbf16ps per accumulator (two multiply-adds per lane,
//   where an f32 FMA does one).
//
//===----------------------------------------------------------------------===//

#include "compiler/target/host/RegisterBlock.h"

#include "mlir/Dialect/AMX/AMXDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/X86Vector/X86VectorDialect.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;
using namespace mlir::tsc;

namespace {

/// Rows of a tile (and 32-bit values per row), and bf16 values per row.
constexpr int64_t kTileRows = 16;
constexpr int64_t kTileDepth = 32;
/// VDPBF16PS register blocks: rows × 16-column vectors of accumulators (16
/// of the 32 registers; the rest hold B' and the broadcasts).
constexpr int64_t kDotRows = 8;
constexpr int64_t kDotVectors = 2;

/// A bufferized bf16 contraction into f32 inside an scf.forall with whole
/// tiles: A [M, K] and C [M, N] row-major, B [K, N] or (`transposed`)
/// [N, K].
struct TileProduct {
  linalg::GenericOp op;
  Value lhs, rhs, out;
  int64_t rows, depth, columns;
  bool transposed;
};

/// Whether `map`'s results are loop dims `dims`.
bool isDims(AffineMap map, ArrayRef<unsigned> dims) {
  if (map.getNumResults() != dims.size())
    return false;
  for (auto [e, d] : llvm::zip(map.getResults(), dims)) {
    auto dim = dyn_cast<AffineDimExpr>(e);
    if (!dim || dim.getPosition() != d)
      return false;
  }
  return true;
}

std::optional<TileProduct> matchTileProduct(linalg::GenericOp op) {
  std::optional<linalg::ContractionDimensions> dims = matchTileContraction(op);
  if (!dims)
    return std::nullopt;
  unsigned m = dims->m[0], n = dims->n[0], k = dims->k[0];
  OpOperand *lhs = op.getDpsInputOperand(0), *rhs = op.getDpsInputOperand(1);
  if (!isDims(op.getMatchingIndexingMap(lhs), {m, k}))
    std::swap(lhs, rhs);
  OpOperand *out = op.getDpsInitOperand(0);
  if (!isDims(op.getMatchingIndexingMap(lhs), {m, k}) ||
      !isDims(op.getMatchingIndexingMap(out), {m, n}))
    return std::nullopt;
  AffineMap rhsMap = op.getMatchingIndexingMap(rhs);
  bool transposed = isDims(rhsMap, {n, k});
  if (!transposed && !isDims(rhsMap, {k, n}))
    return std::nullopt;
  auto memref = [](OpOperand *o) {
    return dyn_cast<MemRefType>(o->get().getType());
  };
  Builder types(op.getContext());
  for (auto [operand, element] : {std::pair(lhs, types.getBF16Type()),
                                  std::pair(rhs, types.getBF16Type()),
                                  std::pair(out, types.getF32Type())}) {
    MemRefType type = memref(operand);
    if (!type || !type.hasStaticShape() || !type.isLastDimUnitStride() ||
        type.getElementType() != element)
      return std::nullopt;
  }
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  TileProduct p{op,        lhs->get(), rhs->get(), out->get(),
                ranges[m], ranges[k],  ranges[n],  transposed};
  if (p.rows % kTileRows != 0 || p.columns % kTileRows != 0 ||
      p.depth % kTileDepth != 0)
    return std::nullopt;
  return p;
}

/// How the packed products compute.
enum class PairKind { Amx, Dot };

class TileEmitter {
public:
  TileEmitter(TileProduct p) : p(p), b(p.op), loc(p.op.getLoc()) {}

  void emit(PairKind kind) {
    // At the top of the forall's body, as the tiles' own stack buffers
    // (Bufferize.cpp): inside the key loop each trip would grow the stack.
    OpBuilder top = OpBuilder::atBlockBegin(
        p.op->getParentOfType<scf::ForallOp>().getBody());
    Value packed = memref::AllocaOp::create(
        top, loc,
        MemRefType::get({p.depth / 2, 2 * p.columns}, b.getBF16Type()));
    if (p.transposed)
      packTransposed(packed);
    else
      packRows(packed);
    if (kind == PairKind::Amx)
      emitTiles(packed);
    else
      emitDots(packed);
  }

private:
  TileProduct p;
  OpBuilder b;
  Location loc;

  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }

  VectorType vector(ArrayRef<int64_t> shape, Type element) {
    return VectorType::get(shape, element);
  }

  /// B [K, N]: B'[k/2][2·n + q] = B[k + q][n], rows k and k + 1 interleaved
  /// 16 columns at a time.
  void packRows(Value packed) {
    SmallVector<int64_t> interleave;
    for (int64_t i = 0; i < kTileRows; ++i)
      interleave.append({i, kTileRows + i});
    auto loop =
        scf::ForOp::create(b, loc, index(0), index(p.depth / 2), index(1));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    Value pair = loop.getInductionVar();
    Value even = arith::MulIOp::create(b, loc, pair, index(2));
    Value odd = arith::AddIOp::create(b, loc, even, index(1));
    auto row = vector({kTileRows}, b.getBF16Type());
    for (int64_t n = 0; n < p.columns; n += kTileRows) {
      Value column = index(n);
      Value first =
          vector::LoadOp::create(b, loc, row, p.rhs, ValueRange{even, column});
      Value second =
          vector::LoadOp::create(b, loc, row, p.rhs, ValueRange{odd, column});
      Value pairs =
          vector::ShuffleOp::create(b, loc, first, second, interleave);
      vector::StoreOp::create(b, loc, pairs, packed,
                              ValueRange{pair, index(2 * n)});
    }
  }

  /// B [N, K]: B'[k/2][2·n + q] = B[n][k + q], the (k, k + 1) pairs of B as
  /// 32-bit values transposed in 16 x 16 blocks (in loops over the blocks:
  /// each is some 300 instructions).
  void packTransposed(Value packed) {
    Type i32 = b.getI32Type();
    auto pairs = vector({kTileDepth}, b.getBF16Type());
    auto words = vector({kTileRows}, i32);
    auto block = vector({kTileRows, kTileRows}, i32);
    auto columnLoop = scf::ForOp::create(b, loc, index(0), index(p.columns),
                                         index(kTileRows));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(columnLoop.getBody()->getTerminator());
    Value n0 = columnLoop.getInductionVar();
    auto depthLoop =
        scf::ForOp::create(b, loc, index(0), index(p.depth), index(kTileDepth));
    b.setInsertionPoint(depthLoop.getBody()->getTerminator());
    Value k0 = depthLoop.getInductionVar();
    auto plus = [&](Value v, int64_t r) -> Value {
      return r ? arith::AddIOp::create(b, loc, v, index(r)).getResult() : v;
    };
    Value rows = ub::PoisonOp::create(b, loc, block);
    for (int64_t r = 0; r < kTileRows; ++r) {
      Value x = vector::LoadOp::create(b, loc, pairs, p.rhs,
                                       ValueRange{plus(n0, r), k0});
      rows = vector::InsertOp::create(
          b, loc, vector::BitCastOp::create(b, loc, words, x), rows, r);
    }
    Value columns = vector::TransposeOp::create(b, loc, rows, {1, 0});
    Value pair0 = arith::DivUIOp::create(b, loc, k0, index(2));
    Value column = arith::MulIOp::create(b, loc, n0, index(2));
    for (int64_t r = 0; r < kTileRows; ++r) {
      Value x = vector::ExtractOp::create(b, loc, columns, r);
      vector::StoreOp::create(b, loc,
                              vector::BitCastOp::create(b, loc, pairs, x),
                              packed, ValueRange{plus(pair0, r), column});
    }
  }

  /// C += A·B' tile by tile: per 16 rows the A tiles once, per 16 columns
  /// C's tile through every step of the reduction.
  void emitTiles(Value packed) {
    Type bf16 = b.getBF16Type();
    auto operandTile = amx::TileType::get({kTileRows, kTileDepth}, bf16);
    auto accTile = amx::TileType::get({kTileRows, kTileRows}, b.getF32Type());
    auto rowLoop =
        scf::ForOp::create(b, loc, index(0), index(p.rows), index(kTileRows));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(rowLoop.getBody()->getTerminator());
    Value m = rowLoop.getInductionVar();
    SmallVector<Value> lhsTiles;
    for (int64_t k = 0; k < p.depth; k += kTileDepth)
      lhsTiles.push_back(amx::TileLoadOp::create(b, loc, operandTile, p.lhs,
                                                 ValueRange{m, index(k)}));
    for (int64_t n = 0; n < p.columns; n += kTileRows) {
      Value column = index(n);
      Value acc = amx::TileLoadOp::create(b, loc, accTile, p.out,
                                          ValueRange{m, column});
      for (auto [t, lhsTile] : llvm::enumerate(lhsTiles)) {
        // Pair rows [16·t, 16·t + 16) of B', columns [n, n + 16) as pairs.
        Value rhsTile = amx::TileLoadOp::create(
            b, loc, operandTile, packed,
            ValueRange{index(int64_t(t) * kTileDepth / 2), index(2 * n)});
        acc = amx::TileMulFOp::create(b, loc, accTile, lhsTile, rhsTile, acc);
      }
      amx::TileStoreOp::create(b, loc, p.out, ValueRange{m, column}, acc);
    }
  }

  /// C += A·B' in registers: per kDotRows rows and kDotVectors × 16 columns
  /// the accumulators are loaded once, updated over every pair of the
  /// reduction and stored once.
  void emitDots(Value packed) {
    // Whole tiles: rows a multiple of 16 (so of kDotRows), columns of 16
    // (one vector of f32 lanes), depth of 32.
    static_assert(kTileRows % kDotRows == 0, "row blocks must divide tiles");
    Type bf16 = b.getBF16Type(), f32 = b.getF32Type(), i32 = b.getI32Type();
    auto rowLoop =
        scf::ForOp::create(b, loc, index(0), index(p.rows), index(kDotRows));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(rowLoop.getBody()->getTerminator());
    SmallVector<Value> rows;
    for (int64_t r = 0; r < kDotRows; ++r)
      rows.push_back(r == 0 ? rowLoop.getInductionVar()
                            : arith::AddIOp::create(
                                  b, loc, rowLoop.getInductionVar(), index(r))
                                  .getResult());
    auto accType = vector({kTileRows}, f32);
    auto pairsType = vector({kTileDepth}, bf16);
    for (int64_t n0 = 0; n0 < p.columns; n0 += kDotVectors * kTileRows) {
      int64_t vectors = std::min(kDotVectors, (p.columns - n0) / kTileRows);
      SmallVector<Value> accumulators;
      for (Value row : rows)
        for (int64_t v = 0; v < vectors; ++v)
          accumulators.push_back(vector::LoadOp::create(
              b, loc, accType, p.out,
              ValueRange{row, index(n0 + v * kTileRows)}));
      auto reduction = scf::ForOp::create(
          b, loc, index(0), index(p.depth / 2), index(1), accumulators,
          [&](OpBuilder &nb, Location l, Value pair, ValueRange state) {
            OpBuilder::InsertionGuard inner(b);
            b.setInsertionPoint(nb.getInsertionBlock(), nb.getInsertionPoint());
            SmallVector<Value> rhs;
            for (int64_t v = 0; v < vectors; ++v)
              rhs.push_back(vector::LoadOp::create(
                  b, l, pairsType, packed,
                  ValueRange{pair, index(2 * (n0 + v * kTileRows))}));
            Value k = arith::MulIOp::create(b, l, pair, index(2));
            SmallVector<Value> next;
            for (auto [r, row] : llvm::enumerate(rows)) {
              // A[row, k..k+1] as one 32-bit value in every lane.
              Value two = vector::LoadOp::create(b, l, vector({2}, bf16), p.lhs,
                                                 ValueRange{row, k});
              Value word = vector::ExtractOp::create(
                  b, l, vector::BitCastOp::create(b, l, vector({1}, i32), two),
                  0);
              Value lhs = vector::BitCastOp::create(
                  b, l, pairsType,
                  vector::BroadcastOp::create(b, l, vector({kTileRows}, i32),
                                              word));
              for (int64_t v = 0; v < vectors; ++v)
                next.push_back(x86vector::DotBF16Op::create(
                    b, l, accType, state[r * vectors + v], lhs, rhs[v]));
            }
            scf::YieldOp::create(b, l, next);
          });
      for (auto [r, row] : llvm::enumerate(rows))
        for (int64_t v = 0; v < vectors; ++v)
          vector::StoreOp::create(b, loc, reduction.getResult(r * vectors + v),
                                  p.out,
                                  ValueRange{row, index(n0 + v * kTileRows)});
    }
  }
};

} // namespace

namespace {

/// Rewrites every matching product of `kernels` as `kind` code.
LogicalResult pairProducts(ModuleOp kernels, PairKind kind) {
  SmallVector<TileProduct> products;
  kernels.walk([&](linalg::GenericOp op) {
    if (std::optional<TileProduct> p = matchTileProduct(op))
      products.push_back(*p);
  });
  if (products.empty())
    return success();
  MLIRContext *context = kernels.getContext();
  if (kind == PairKind::Amx)
    context->getOrLoadDialect<amx::AMXDialect>();
  else
    context->getOrLoadDialect<x86vector::X86VectorDialect>();
  context->getOrLoadDialect<vector::VectorDialect>();
  context->getOrLoadDialect<ub::UBDialect>();
  for (TileProduct &p : products) {
    TileEmitter(p).emit(kind);
    p.op->erase();
  }
  // The packing's 16 x 16 transposes as shuffles.
  RewritePatternSet patterns(context);
  vector::populateVectorTransposeLoweringPatterns(
      patterns, vector::VectorTransposeLowering::Shuffle16x16);
  return applyPatternsGreedily(kernels, std::move(patterns));
}

} // namespace

LogicalResult mlir::tsc::amxTileProducts(ModuleOp kernels) {
  return pairProducts(kernels, PairKind::Amx);
}

LogicalResult mlir::tsc::dotBf16Products(ModuleOp kernels) {
  return pairProducts(kernels, PairKind::Dot);
}

namespace {

struct AmxProductsPass : PassWrapper<AmxProductsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(AmxProductsPass)
  StringRef getArgument() const override { return "tsc-host-amx-products"; }
  StringRef getDescription() const override {
    return "bf16 products inside scf.forall as AMX tile loads, tdpbf16ps "
           "and stores, the right operand packed into AMX's pair layout "
           "(host codegen, on bufferized kernels)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<amx::AMXDialect, vector::VectorDialect, ub::UBDialect>();
  }
  void runOnOperation() override {
    if (failed(amxTileProducts(getOperation())))
      signalPassFailure();
  }
};

struct DotProductsPass : PassWrapper<DotProductsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(DotProductsPass)
  StringRef getArgument() const override {
    return "tsc-host-bf16-dot-products";
  }
  StringRef getDescription() const override {
    return "bf16 products inside scf.forall as register-blocked AVX512_BF16 "
           "dot products (vdpbf16ps), the right operand packed into (k, k + "
           "1) pairs (host codegen, on bufferized kernels)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<x86vector::X86VectorDialect, vector::VectorDialect,
                    ub::UBDialect>();
  }
  void runOnOperation() override {
    if (failed(dotBf16Products(getOperation())))
      signalPassFailure();
  }
};

} // namespace

void mlir::tsc::registerPairProductsPasses() {
  PassRegistration<AmxProductsPass>();
  PassRegistration<DotProductsPass>();
}
