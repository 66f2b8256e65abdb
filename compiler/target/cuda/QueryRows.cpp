//===- QueryRows.cpp - a thread per query row for attention ---------------===//
//
// The attention lowering (passes/conversion/TscToLinalg/Attention.cpp)
// leaves an scf.forall over (batch, head, block of R query rows) whose body,
// on buffers, keeps a tile row per query row (Q, scores, running max and
// sum, output) and loops over key blocks, gathering each block's K and V
// into tiles that every row reads. Mapped like other loops, one thread would
// run a whole iteration: R rows, all tiles in its local memory. Here the
// forall becomes a row block (kRowBlocks) with a thread per query row:
//   - per-row tiles (allocas every op uses with the first index on a
//     parallel loop, the op's row dim) are kThreadTile, and each op on them
//     runs in a thread phase restricted to the thread's row: views at row t,
//     linalg.index of the row dim offset by t, a guard where the op has
//     fewer rows (the last query block);
//   - the other tiles (key and value blocks) are kBlockShared, shared memory
//     on the device, and the ops filling them run in a phase whose
//     iterations the block's threads share (a row op may still use such a
//     buffer at its row: bufferization gives a key block's buffer to the
//     output rows after the key loop when their shapes agree);
//   - the rest (index arithmetic, the loop over key blocks) is
//     block-uniform.
//   - with fp16 or bf16 operands, the two products (S = Q·Kᵀ and O += P·V, from
//     half tiles into f32 tiles) run on tensor cores: each is a warp phase
//     (kWarpPhase) in which a warp computes 32 rows of the product as
//     16 x 8 x 16 vector.contracts on its tiles, which become mma.sync on
//     the device (lowerWarpProducts, WarpProducts.cpp); their tiles are
//     kBlockShared, and the other ops use Q, S, P and O at the thread's row.
// No row reads another's per-row tiles; joinThreadPhases puts barriers
// between the accesses to shared tiles of different threads (filling a key
// block and reading it, the output rows in a key block's buffer) and around
// the key loop's trips.
//
//===----------------------------------------------------------------------===//

#include "compiler/target/cuda/CudaCodegen.h"
#include "compiler/target/cuda/Passes.h"
#include "compiler/target/cuda/ThreadPhases.h"

#include "mlir/Conversion/VectorToGPU/VectorToGPU.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
// (It declares a global kWarpSize too: cuda::kWarpSize is qualified below.)
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tsc::cuda {
#define GEN_PASS_DEF_MAPQUERYROWSTOTHREADSPASS
#include "compiler/target/cuda/Passes.h.inc"
} // namespace mlir::tsc::cuda

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::cuda;

namespace {

/// Fewer rows per block than this are left to the other mappings.
constexpr int64_t kMinRowsPerBlock = 8;

/// Whether `view` is a corner of its source: offsets 0, unit strides, every
/// dim kept.
bool isCornerView(memref::SubViewOp view) {
  return view.getSourceType().getRank() == view.getType().getRank() &&
         llvm::all_of(view.getMixedOffsets(),
                      [](OpFoldResult o) { return isConstantIntValue(o, 0); }) &&
         llvm::all_of(view.getMixedStrides(),
                      [](OpFoldResult s) { return isConstantIntValue(s, 1); });
}

/// The alloca `v` is, or is a corner view of.
memref::AllocaOp tileOf(Value v) {
  while (auto view = v.getDefiningOp<memref::SubViewOp>()) {
    if (!isCornerView(view))
      return {};
    v = view.getSource();
  }
  return v.getDefiningOp<memref::AllocaOp>();
}

/// The loop `map`'s first result is, when it is a plain dim.
std::optional<unsigned> leadingDim(AffineMap map) {
  if (map.getNumResults() == 0)
    return std::nullopt;
  if (auto dim = dyn_cast<AffineDimExpr>(map.getResult(0)))
    return dim.getPosition();
  return std::nullopt;
}

/// Where `map` reads loop `d`: the one result that is exactly d, when no
/// other result uses it; -1 when none does; nullopt otherwise.
std::optional<int> positionOf(AffineMap map, unsigned d) {
  int at = -1;
  for (auto [i, expr] : llvm::enumerate(map.getResults())) {
    if (!expr.isFunctionOfDim(d))
      continue;
    if (at != -1 || expr != getAffineDimExpr(d, map.getContext()))
      return std::nullopt;
    at = i;
  }
  return at;
}

/// Whether `v` is `arith.extf` of the payload's block argument `arg`.
bool isWidened(Value v, Value arg) {
  auto ext = v.getDefiningOp<arith::ExtFOp>();
  return ext && ext.getIn() == arg;
}

/// `op` as a WarpProduct: three loops (m, n parallel, k reduction), maps
/// (m, k), (k, n) -> (m, n) on whole tiles (m a multiple of 32 rows, n of
/// 8, k of 16), fp16 or bf16 operands (both the same), an f32 output, and the
/// payload out + ext(lhs) · ext(rhs).
std::optional<WarpProduct> getWarpProduct(linalg::LinalgOp op) {
  if (op.getNumLoops() != 3 || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || op.getNumReductionLoops() != 1)
    return std::nullopt;
  WarpProduct product{op, {}, {}, {}, {}};
  memref::AllocaOp *tiles[] = {&product.lhs, &product.rhs, &product.out};
  for (auto [operand, tile] : llvm::zip(op->getOpOperands(), tiles)) {
    *tile = tileOf(operand.get());
    if (!*tile || operand.get().getType() != Type((*tile).getType()))
      return std::nullopt;
  }
  Type half = product.lhs.getType().getElementType();
  if (!(half.isF16() || half.isBF16()) ||
      product.rhs.getType().getElementType() != half ||
      !product.out.getType().getElementType().isF32())
    return std::nullopt;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (maps[2].getNumResults() != 2 || !maps[2].isProjectedPermutation())
    return std::nullopt;
  unsigned m = maps[2].getDimPosition(0), n = maps[2].getDimPosition(1);
  unsigned k = 3 - m - n;
  MLIRContext *ctx = op.getContext();
  auto dims = [&](unsigned a, unsigned b) {
    return AffineMap::get(
        3, 0, {getAffineDimExpr(a, ctx), getAffineDimExpr(b, ctx)}, ctx);
  };
  if (op.getIteratorTypesArray()[k] != utils::IteratorType::reduction ||
      maps[0] != dims(m, k) || maps[1] != dims(k, n))
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (ranges[m] % (2 * kMmaM) != 0 || ranges[n] % kMmaN != 0 ||
      ranges[k] % kMmaK != 0)
    return std::nullopt;
  // out + ext(a) · ext(b), in either order.
  Block *body = op.getBlock();
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add)
    return std::nullopt;
  Value acc = body->getArgument(2);
  Value term = add.getLhs() == acc ? add.getRhs() : add.getLhs();
  auto mul = term.getDefiningOp<arith::MulFOp>();
  if ((add.getLhs() != acc && add.getRhs() != acc) || !mul)
    return std::nullopt;
  Value a = body->getArgument(0), b = body->getArgument(1);
  if (!(isWidened(mul.getLhs(), a) && isWidened(mul.getRhs(), b)) &&
      !(isWidened(mul.getLhs(), b) && isWidened(mul.getRhs(), a)))
    return std::nullopt;
  // (The product writes every element of `out`, so the fill is dead.
  // fillInsteadOfZeroCopies has made bufferization's copies of a zero tile
  // fills.)
  if (auto fill = dyn_cast_or_null<linalg::FillOp>(op->getPrevNode());
      fill && fill.getOutputs()[0] == op.getDpsInits()[0] &&
      matchPattern(fill.value(), m_AnyZeroFloat()))
    product.zeroInit = fill;
  return product;
}

/// How a row op uses one operand: restricted to the thread's row at result
/// `position` of its map (a per-row tile `tile`, position 0, or any other
/// buffer), or as it is (position -1).
struct OperandUse {
  int position = -1;
  memref::AllocaOp tile;
};

/// An attention forall's body as this mapping takes it.
struct QueryBody {
  int64_t rows = 0;
  SmallVector<memref::AllocaOp> rowTiles, sharedTiles;
  /// Ops on per-row tiles: their row dim and how they use each operand.
  SmallVector<std::tuple<linalg::LinalgOp, unsigned, SmallVector<OperandUse>>>
      rowOps;
  /// Ops filling shared tiles.
  SmallVector<linalg::LinalgOp> fills;
  /// Products on tensor cores.
  SmallVector<WarpProduct> products;
  /// Shared tiles with padded rows: elements per row.
  SmallVector<std::pair<memref::AllocaOp, int64_t>> paddedTiles;
};

/// Whether `value` (an alloca or a view of one) is used only by linalg ops
/// and corner views that are (another view would reach other rows than the
/// one a thread's restriction gives).
bool usedByLinalgOnly(Value value) {
  return llvm::all_of(value.getUsers(), [](Operation *user) {
    if (auto view = dyn_cast<memref::SubViewOp>(user))
      return isCornerView(view) && usedByLinalgOnly(view.getResult());
    return isa<linalg::LinalgOp>(user);
  });
}

/// Whether every linalg use of `value` (an alloca or a view of one) has its
/// first index on a parallel loop.
bool usedRowByRow(Value value) {
  return llvm::all_of(value.getUses(), [](OpOperand &use) {
    if (auto view = dyn_cast<memref::SubViewOp>(use.getOwner()))
      return usedRowByRow(view.getResult());
    auto op = cast<linalg::LinalgOp>(use.getOwner());
    std::optional<unsigned> d =
        leadingDim(op.getMatchingIndexingMap(&use));
    return d && op.getIteratorTypesArray()[*d] == utils::IteratorType::parallel;
  });
}

/// `forall`'s body as this mapping takes it; with `warpProducts`, the fp16
/// or bf16 products it has on tensor cores.
std::optional<QueryBody> getQueryBody(scf::ForallOp forall, bool warpProducts) {
  if (forall.getMapping() || !forall.getOutputs().empty() ||
      forall.getRank() > 3)
    return std::nullopt;
  QueryBody body;
  SmallVector<linalg::LinalgOp> ops;
  SmallVector<memref::AllocaOp> tiles;
  WalkResult walk = forall.getBody()->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (auto alloca = dyn_cast<memref::AllocaOp>(op)) {
      MemRefType type = alloca.getType();
      if (alloca->getBlock() != forall.getBody() || !type.hasStaticShape() ||
          type.getRank() == 0 || !type.getLayout().isIdentity() ||
          !type.getElementType().isIntOrFloat() || !usedByLinalgOnly(alloca))
        return WalkResult::interrupt();
      tiles.push_back(alloca);
      return WalkResult::advance();
    }
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
      if (!linalgOp.hasPureBufferSemantics())
        return WalkResult::interrupt();
      ops.push_back(linalgOp);
      return WalkResult::skip();
    }
    if (isa<scf::ForOp, scf::YieldOp, scf::InParallelOp, memref::SubViewOp>(op) ||
        (isMemoryEffectFree(op) && op->getNumRegions() == 0))
      return WalkResult::advance();
    return WalkResult::interrupt();
  });
  if (walk.wasInterrupted() || ops.empty())
    return std::nullopt;
  // The products' tiles are shared: a warp reads and writes 16 rows at once.
  DenseSet<Operation *> productTiles, products;
  if (warpProducts) {
    for (linalg::LinalgOp op : ops) {
      std::optional<WarpProduct> product = getWarpProduct(op);
      if (!product)
        continue;
      body.products.push_back(*product);
      products.insert(op);
      if (product->zeroInit)
        products.insert(product->zeroInit.getOperation());
      productTiles.insert(product->lhs);
      productTiles.insert(product->rhs);
      productTiles.insert(product->out);
    }
    if (body.products.empty())
      return std::nullopt;
  }
  DenseSet<Operation *> rowTiles;
  int64_t sharedBytes = 0;
  // Whether `op` (using no per-row tile) fills shared tiles: its iterations
  // are spread over the block, so each must write its own elements
  // (parallel loops, outputs indexed by a permutation of all of them).
  auto isFill = [&](linalg::LinalgOp op) {
    return llvm::all_of(op->getOpOperands().drop_front(op.getNumDpsInputs()),
                        [&](OpOperand &out) {
                          memref::AllocaOp tile = tileOf(out.get());
                          return tile && !rowTiles.contains(tile) &&
                                 op.getMatchingIndexingMap(&out).isPermutation();
                        }) &&
           op.getNumReductionLoops() == 0 &&
           llvm::none_of(op.getStaticLoopRanges(), [](int64_t r) {
             return ShapedType::isDynamic(r) || r == 0;
           });
  };
  for (memref::AllocaOp tile : tiles) {
    MemRefType type = tile.getType();
    if (!productTiles.contains(tile) && usedRowByRow(tile)) {
      if (body.rows && body.rows != type.getDimSize(0))
        return std::nullopt;
      body.rows = type.getDimSize(0);
      body.rowTiles.push_back(tile);
      rowTiles.insert(tile);
      continue;
    }
    // The products' tiles padded: a thread per row uses S, P and O at its
    // row, and ldmatrix reads 8 rows at one column.
    int64_t stride = productTiles.contains(tile) ? getPaddedRowStride(type)
                                                 : type.getShape().back();
    if (stride != type.getShape().back())
      body.paddedTiles.emplace_back(tile, stride);
    int64_t rows =
        type.getNumElements() / std::max<int64_t>(type.getShape().back(), 1);
    sharedBytes +=
        rows * stride * llvm::divideCeil(type.getElementTypeBitWidth(), 8);
    body.sharedTiles.push_back(tile);
  }
  if (body.rows < kMinRowsPerBlock || body.rows > kThreadsPerBlock ||
      sharedBytes > kMaxStaticSharedBytes)
    return std::nullopt;
  // A warp per 32 rows: each product's rows are the block's.
  for (WarpProduct product : body.products)
    if (product.out.getType().getDimSize(0) != body.rows ||
        body.rows % cuda::kWarpSize != 0)
      return std::nullopt;
  // Each op's row dim: the leading loop of its per-row tiles, all the same.
  DenseMap<Operation *, unsigned> rowDims;
  auto findRowDim = [&](linalg::LinalgOp op,
                        const DenseSet<Operation *> &rowBuffers) {
    std::optional<unsigned> rowDim;
    for (OpOperand &operand : op->getOpOperands()) {
      memref::AllocaOp tile = tileOf(operand.get());
      if (!tile || !rowBuffers.contains(tile))
        continue;
      std::optional<unsigned> d =
          leadingDim(op.getMatchingIndexingMap(&operand));
      if (!d || (rowDim && d != rowDim) ||
          op.getIteratorTypesArray()[*d] != utils::IteratorType::parallel)
        return false;
      rowDim = d;
    }
    if (rowDim)
      rowDims[op] = *rowDim;
    return true;
  };
  llvm::erase_if(ops,
                 [&](linalg::LinalgOp op) { return products.contains(op); });
  for (linalg::LinalgOp op : ops)
    if (!findRowDim(op, rowTiles))
      return std::nullopt;
  // Shared tiles a row op uses at its row (bufferization may give a key
  // block's buffer to the output rows after the key loop): an op using one
  // at its leading index works on rows too (the output rows' copy out).
  DenseSet<Operation *> rowShared;
  for (linalg::LinalgOp op : ops) {
    auto rowDim = rowDims.find(op);
    if (rowDim == rowDims.end())
      continue;
    for (OpOperand &operand : op->getOpOperands()) {
      memref::AllocaOp tile = tileOf(operand.get());
      if (tile && !rowTiles.contains(tile) &&
          positionOf(op.getMatchingIndexingMap(&operand), rowDim->second) == 0)
        rowShared.insert(tile);
    }
  }
  for (Operation *tile : rowShared)
    if (cast<memref::AllocaOp>(tile).getType().getDimSize(0) > body.rows)
      return std::nullopt;
  // Ops filling shared tiles stay fills: their threads take consecutive
  // elements (coalesced loads, no shared-memory bank conflicts) rather than
  // a row each.
  for (linalg::LinalgOp op : ops)
    if (!rowDims.contains(op) && !isFill(op) && !findRowDim(op, rowShared))
      return std::nullopt;
  for (linalg::LinalgOp op : ops) {
    std::optional<unsigned> rowDim;
    if (auto found = rowDims.find(op); found != rowDims.end())
      rowDim = found->second;
    if (!rowDim) {
      if (!isFill(op))
        return std::nullopt;
      body.fills.push_back(op);
      continue;
    }
    SmallVector<OperandUse> uses;
    for (OpOperand &operand : op->getOpOperands()) {
      OperandUse use;
      use.tile = tileOf(operand.get());
      bool isRowTile = use.tile && rowTiles.contains(use.tile);
      if (!isa<MemRefType>(operand.get().getType())) {
        uses.push_back(use);
        continue;
      }
      std::optional<int> at =
          positionOf(op.getMatchingIndexingMap(&operand), *rowDim);
      // A row tile at its first index; a global buffer or a shared tile
      // (bufferization may give a key block's buffer to the output rows
      // after the key loop) at the thread's row, or as it is when only read.
      if (!at || (isRowTile && *at != 0) ||
          (*at == -1 && op.isDpsInit(&operand)))
        return std::nullopt;
      if (!isRowTile)
        use.tile = {};
      use.position = *at;
      uses.push_back(use);
    }
    body.rowOps.emplace_back(op, *rowDim, std::move(uses));
  }
  if (body.rowOps.empty())
    return std::nullopt;
  return body;
}

/// `value` restricted to index `t` at dim `position`: for a per-row tile
/// (or a corner view of one), the view of `tile` at row t with the value's
/// other sizes.
Value restrict(OpBuilder &b, Location loc, Value value, int position,
               memref::AllocaOp tile, Value t) {
  Value source = tile ? Value(tile) : value;
  auto type = cast<MemRefType>(value.getType());
  SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes = memref::getMixedSizes(b, loc, value);
  SmallVector<OpFoldResult> strides(type.getRank(), b.getIndexAttr(1));
  offsets[position] = t;
  sizes[position] = b.getIndexAttr(1);
  return memref::SubViewOp::create(b, loc, source, offsets, sizes, strides);
}

/// Runs `op` in a phase, each thread on its row `rowDim` of it.
void emitRowOp(linalg::LinalgOp op, unsigned rowDim,
               ArrayRef<OperandUse> uses, int64_t rows) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  createThreadPhase(b, loc, rows, {}, [&](OpBuilder &nested, Value t) {
    auto run = [&](OpBuilder &inner) {
      SmallVector<Value> operands;
      for (auto [operand, use] : llvm::zip(op->getOperands(), uses))
        operands.push_back(use.position < 0 ? operand
                                            : restrict(inner, loc, operand,
                                                       use.position, use.tile,
                                                       t));
      Operation *clone = inner.clone(*op);
      clone->setOperands(operands);
      // The payload's row index is the thread's row.
      clone->walk([&](linalg::IndexOp index) {
        if (index.getDim() != rowDim)
          return;
        OpBuilder after(index->getContext());
        after.setInsertionPointAfter(index);
        Value row = arith::AddIOp::create(after, loc, index, t);
        index.getResult().replaceAllUsesExcept(row, row.getDefiningOp());
      });
    };
    int64_t count = op.getStaticLoopRanges()[rowDim];
    if (count == rows) {
      run(nested);
      return;
    }
    // Fewer rows than threads: the op's size along the row dim.
    Value size;
    for (auto [operand, use] : llvm::zip(op->getOperands(), uses))
      if (use.position >= 0 && !size)
        size = memref::DimOp::create(nested, loc, operand, use.position);
    Value inside = arith::CmpIOp::create(nested, loc, arith::CmpIPredicate::ult,
                                         t, size);
    scf::IfOp::create(nested, loc, inside, [&](OpBuilder &then, Location) {
      run(then);
      scf::YieldOp::create(then, loc);
    });
  });
  op->erase();
}

/// Runs `op` (filling a shared tile) in a phase whose threads take its
/// iterations in turn, the last loop fastest.
void emitFill(linalg::LinalgOp op, int64_t rows) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t total = 1;
  for (int64_t r : ranges)
    total *= r;
  auto index = [&](OpBuilder &ib, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(ib, loc, v);
  };
  createThreadPhase(b, loc, rows, {}, [&](OpBuilder &nested, Value t) {
    scf::ForOp::create(
        nested, loc, t, index(nested, total), index(nested, rows),
        ValueRange{},
        [&](OpBuilder &inner, Location, Value linear, ValueRange) {
          SmallVector<Value> dims(ranges.size());
          int64_t stride = total;
          for (auto [d, range] : llvm::enumerate(ranges)) {
            stride /= range;
            Value q = arith::DivUIOp::create(inner, loc, linear,
                                             index(inner, stride));
            dims[d] = arith::RemUIOp::create(inner, loc, q, index(inner, range));
          }
          SmallVector<Value> args =
              payloadArguments(inner, loc, op, [&](OpOperand &operand) {
                Value v = operand.get();
                if (!isa<MemRefType>(v.getType()))
                  return v;
                return Value(memref::LoadOp::create(
                    inner, loc, v,
                    evaluateMap(inner, loc,
                                op.getMatchingIndexingMap(&operand), dims)));
              });
          SmallVector<Value> results =
              clonePayload(inner, op, args, dims, IRMapping());
          for (auto [out, result] : llvm::zip(op.getDpsInitsMutable(), results))
            memref::StoreOp::create(
                inner, loc, result, out.get(),
                evaluateMap(inner, loc, op.getMatchingIndexingMap(&out), dims));
          scf::YieldOp::create(inner, loc);
        });
  });
  op->erase();
}

/// Replaces `forall` by a row block running `body`.
void build(scf::ForallOp forall, QueryBody &body) {
  OpBuilder b(forall);
  Location loc = forall.getLoc();
  auto rows = scf::ParallelOp::create(
      b, loc,
      getValueOrCreateConstantIndexOp(b, loc, forall.getMixedLowerBound()),
      getValueOrCreateConstantIndexOp(b, loc, forall.getMixedUpperBound()),
      getValueOrCreateConstantIndexOp(b, loc, forall.getMixedStep()));
  rows->setAttr(kRowBlocks, b.getUnitAttr());
  Block *from = forall.getBody();
  rows.getBody()->getOperations().splice(
      rows.getBody()->getTerminator()->getIterator(), from->getOperations(),
      from->begin(), std::prev(from->end()));
  for (auto [old, iv] :
       llvm::zip(forall.getInductionVars(), rows.getInductionVars()))
    old.replaceAllUsesWith(iv);
  forall.erase();
  for (memref::AllocaOp tile : body.rowTiles)
    tile->setAttr(kThreadTile, b.getUnitAttr());
  for (memref::AllocaOp tile : body.sharedTiles)
    tile->setAttr(kBlockShared, b.getUnitAttr());
  for (auto [tile, stride] : body.paddedTiles)
    tile->setAttr(kSharedRowStride, b.getI64IntegerAttr(stride));
  for (auto &[op, rowDim, uses] : body.rowOps)
    emitRowOp(op, rowDim, uses, body.rows);
  for (linalg::LinalgOp op : body.fills)
    emitFill(op, body.rows);
  for (WarpProduct product : body.products) {
    emitWarpProduct(product, body.rows);
    if (product.zeroInit)
      product.zeroInit->erase();
  }
  // Views of the tiles that the restricted ops replaced.
  SmallVector<memref::SubViewOp> views;
  rows.walk([&](memref::SubViewOp view) { views.push_back(view); });
  for (memref::SubViewOp view : llvm::reverse(views))
    if (view->use_empty())
      view->erase();
}

} // namespace

namespace {

/// Whether `v` is a whole tile that holds zeros: every op writing it is a
/// linalg.fill with 0, every other op only reads it.
bool isZeroTile(Value v) {
  memref::AllocaOp tile = tileOf(v);
  if (!tile || v.getType() != Type(tile.getType()))
    return false;
  return llvm::all_of(tile->getUses(), [](OpOperand &use) {
    if (auto fill = dyn_cast<linalg::FillOp>(use.getOwner()))
      return matchPattern(fill.value(), m_AnyZeroFloat());
    auto op = dyn_cast<linalg::LinalgOp>(use.getOwner());
    return op && op.isDpsInput(&use);
  });
}

/// Each copy in `forall` of a tile that only ever holds zeros
/// (bufferization's way of reusing one zero-filled tensor: attention's S
/// and O start from it) as a fill with zero, and the zero tile dropped once
/// nothing reads it: a thread per row would otherwise keep a zero row of
/// its own in local memory to copy from, and a warp product recognises a
/// fill of its output.
void fillInsteadOfZeroCopies(scf::ForallOp forall) {
  SmallVector<linalg::CopyOp> copies;
  forall.walk([&](linalg::CopyOp copy) {
    if (isZeroTile(copy.getInputs()[0]))
      copies.push_back(copy);
  });
  for (linalg::CopyOp copy : copies) {
    memref::AllocaOp tile = tileOf(copy.getInputs()[0]);
    OpBuilder b(copy);
    Value out = copy.getOutputs()[0];
    Value zero = arith::ConstantOp::create(
        b, copy.getLoc(), b.getZeroAttr(getElementTypeOrSelf(out.getType())));
    linalg::FillOp::create(b, copy.getLoc(), zero, out);
    copy.erase();
    if (!llvm::all_of(tile->getUsers(), [](Operation *user) {
          return isa<linalg::FillOp>(user);
        }))
      continue;
    for (Operation *fill : llvm::make_early_inc_range(tile->getUsers()))
      fill->erase();
    tile.erase();
  }
}

} // namespace

void cuda::mapQueryRowsToThreads(func::FuncOp func, bool tensorCores) {
  SmallVector<scf::ForallOp> foralls(func.getBody().getOps<scf::ForallOp>());
  // Products on tensor cores where the body has them and its tiles then
  // fit shared memory; else a thread per row for them too.
  for (scf::ForallOp forall : foralls) {
    fillInsteadOfZeroCopies(forall);
    std::optional<QueryBody> body;
    if (tensorCores)
      body = getQueryBody(forall, /*warpProducts=*/true);
    if (!body)
      body = getQueryBody(forall, /*warpProducts=*/false);
    if (body)
      build(forall, *body);
  }
}

namespace {

struct MapQueryRowsToThreadsPass
    : cuda::impl::MapQueryRowsToThreadsPassBase<MapQueryRowsToThreadsPass> {
  using MapQueryRowsToThreadsPassBase::MapQueryRowsToThreadsPassBase;
  void runOnOperation() override {
    mapQueryRowsToThreads(getOperation(), tensorCores);
  }
};

} // namespace
