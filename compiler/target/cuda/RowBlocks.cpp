//===- RowBlocks.cpp - a block of threads per row for norms and softmax ---===//
//
// fuseRowReductions (compiler/kernels/Lower.cpp) leaves each norm and softmax
// as an scf.forall over rows whose body reduces the row (sum, max, ...) into
// one-element buffers and writes the row elementwise from them. Mapped like
// other loops, one thread would take a whole row: few threads, and
// neighbouring threads a row apart in memory. Here such a forall becomes a
// block per row:
//   - an scf.parallel over the rows (kRowBlocks), one block each;
//   - in it, thread phases: scf.parallel over the block's threads
//     (kThreadPhase), thread t taking elements t, t+T, ... of the row, or
//     groups of 4 consecutive elements (one 16-byte access) when every row
//     op's length is a constant multiple of 4 with at least a warp of
//     groups. A row reduction is a phase with scf.reduce: the threads'
//     partials combined across the block;
//   - between phases, block-uniform code: the row's scalars (mean, 1/stddev,
//     max, sum) as SSA values that every thread computes, instead of
//     one-element buffers.
// Phases run in order, as if separated by barriers. That is what the host
// compiles for --gpu-loop-mapping (runThreadPhasesInOrder), so the
// structure's numerics are checked without a GPU; for the device the phases
// become one loop over the threads with gpu.barrier and gpu.all_reduce
// (joinThreadPhases). Both are in ThreadPhases.cpp.
//
//===----------------------------------------------------------------------===//

#include "compiler/target/cuda/CudaCodegen.h"
#include "compiler/target/cuda/Passes.h"
#include "compiler/target/cuda/ThreadPhases.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::tsc::cuda {
#define GEN_PASS_DEF_MAPROWSTOBLOCKSPASS
#include "compiler/target/cuda/Passes.h.inc"
} // namespace mlir::tsc::cuda

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::cuda;

namespace {

/// Rows shorter than this (all of constant length) keep a thread per row: a
/// block would be mostly idle threads.
constexpr int64_t kMinRowElements = 32;

/// Whether `type` is a buffer of one element (a row's scalar).
bool isOneElement(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  return memref && memref.hasStaticShape() && memref.getNumElements() == 1;
}

/// A linalg op of a row body: over one row (loops 1, ..., 1, N) or one
/// element (all loops 1).
struct RowOp {
  linalg::LinalgOp op;
  /// N, or nullopt for a one-element op; ShapedType::kDynamic if symbolic.
  std::optional<int64_t> length;
  /// Per output of a row reduction, the op combining the partials.
  SmallVector<Operation *> combiners;

  bool isReduction() const { return !combiners.empty(); }
};

/// The row op `op` is, when it is one this mapping can run.
std::optional<RowOp> getRowOp(linalg::LinalgOp op,
                              const DenseSet<Value> &cells) {
  if (!op.hasPureBufferSemantics())
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  unsigned loops = ranges.size();
  for (unsigned d = 0; d + 1 < loops; ++d)
    if (ranges[d] != 1)
      return std::nullopt;
  RowOp row{op, std::nullopt, {}};
  if (loops == 0 || ranges.back() == 1)
    return row;
  row.length = ranges.back();
  unsigned last = loops - 1;
  bool reduces = op.getIteratorTypesArray().back() ==
                 utils::IteratorType::reduction;
  SmallVector<BlockArgument> outArgs(op.getRegionOutputArgs());
  for (OpOperand &out : op.getDpsInitsMutable()) {
    AffineMap map = op.getMatchingIndexingMap(&out);
    if (!reduces) {
      // Each element of the row written by the thread that computes it:
      // the last loop must index the output, the other loops are 1.
      if (cells.contains(out.get()) || !map.isFunctionOfDim(last))
        return std::nullopt;
      continue;
    }
    if (map.isFunctionOfDim(last))
      return std::nullopt;
    SmallVector<Operation *> combiners;
    unsigned position = out.getOperandNumber() - op.getNumDpsInputs();
    if (!matchReduction(outArgs, position, combiners) ||
        combiners.size() != 1 || !getCombiner(combiners.front()))
      return std::nullopt;
    row.combiners.push_back(combiners.front());
  }
  return row;
}

/// A row forall's body as mapRowsToBlocks takes it.
struct RowBody {
  SmallVector<Operation *> ops;
  DenseMap<Operation *, RowOp> rowOps;
  /// Threads per block, consecutive elements per thread and step.
  int64_t threads = 0, group = 1;
};

/// Builds the block-per-row form of one row forall.
class RowBuilder {
public:
  RowBuilder(scf::ForallOp forall, const RowBody &body)
      : forall(forall), threads(body.threads), group(body.group) {}

  /// Replaces the forall by the rows loop.
  void build(const RowBody &body);

private:
  Value constantIndex(OpBuilder &b, int64_t v) {
    return arith::ConstantIndexOp::create(b, forall.getLoc(), v);
  }

  Value zero(OpBuilder &b, Type type) {
    return arith::ConstantOp::create(b, forall.getLoc(), b.getZeroAttr(type));
  }

  /// The memref indices `map` gives at the loop point `dims`.
  SmallVector<Value> indices(OpBuilder &b, AffineMap map, ValueRange dims) {
    return evaluateMap(b, forall.getLoc(), map, dims);
  }

  /// The value `operand` of `op` has at the loop point `dims`: a row scalar,
  /// a scalar operand, or a load.
  Value read(OpBuilder &b, linalg::LinalgOp op, OpOperand &operand,
             ValueRange dims) {
    Value v = operand.get();
    if (auto cell = cells.find(v); cell != cells.end())
      return cell->second;
    if (!isa<ShapedType>(v.getType()))
      return mapping.lookupOrDefault(v);
    return memref::LoadOp::create(
        b, forall.getLoc(), mapping.lookupOrDefault(v),
        indices(b, op.getMatchingIndexingMap(&operand), dims));
  }

  /// Clones `op`'s payload at the loop point `dims` with `args` for its block
  /// arguments; returns the yielded values.
  SmallVector<Value> payload(OpBuilder &b, linalg::LinalgOp op,
                             ValueRange args, ValueRange dims) {
    // Values of the row body the payload uses are their clones.
    return clonePayload(b, op, args, dims, mapping);
  }

  /// The block arguments of `op`'s payload at `dims` (`accumulators` stand
  /// for reduced outputs).
  SmallVector<Value> arguments(OpBuilder &b, linalg::LinalgOp op,
                               ValueRange dims, ValueRange accumulators) {
    return payloadArguments(b, forall.getLoc(), op, [&](OpOperand &operand) {
      if (!accumulators.empty() && op.isDpsInit(&operand))
        return accumulators[operand.getOperandNumber() - op.getNumDpsInputs()];
      return read(b, op, operand, dims);
    });
  }

  /// A thread phase of the rows loop: body(builder, thread) per thread.
  scf::ParallelOp phase(OpBuilder &b, ValueRange inits,
                        function_ref<void(OpBuilder &, Value)> body) {
    return createThreadPhase(b, forall.getLoc(), threads, inits, body);
  }

  /// The loop over thread `t`'s elements of `row`, threading `inits`
  /// through `step(builder, dims, accumulators) -> accumulators`.
  ValueRange rowLoop(OpBuilder &b, const RowOp &row, Value t, ValueRange inits,
                     function_ref<SmallVector<Value>(OpBuilder &, ValueRange,
                                                     ValueRange)> step);

  void emitOneElement(OpBuilder &b, const RowOp &row);
  void emitElementwise(OpBuilder &b, const RowOp &row);
  void emitReduction(OpBuilder &b, const RowOp &row);

  /// Stores by thread 0 of a phase: what a one-element op writes to memory.
  void storeOnce(OpBuilder &b,
                 ArrayRef<std::tuple<Value, Value, SmallVector<Value>>> stores);

  /// The row length of `op` (its last loop's size) in the rows loop.
  Value length(OpBuilder &b, linalg::LinalgOp op);

  scf::ForallOp forall;
  int64_t threads, group;
  IRMapping mapping;
  /// The one-element buffers of the row, by their current value.
  DenseMap<Value, Value> cells;
};

Value RowBuilder::length(OpBuilder &b, linalg::LinalgOp op) {
  unsigned last = op.getNumLoops() - 1;
  int64_t n = op.getStaticLoopRanges().back();
  if (!ShapedType::isDynamic(n))
    return constantIndex(b, n);
  for (OpOperand &operand : op->getOpOperands()) {
    if (!isa<MemRefType>(operand.get().getType()))
      continue;
    AffineMap map = op.getMatchingIndexingMap(&operand);
    for (auto [i, expr] : llvm::enumerate(map.getResults()))
      if (expr == getAffineDimExpr(last, op.getContext()))
        return memref::DimOp::create(b, forall.getLoc(),
                                     mapping.lookupOrDefault(operand.get()), i);
  }
  llvm_unreachable("a dynamic loop no operand dim gives");
}

ValueRange RowBuilder::rowLoop(
    OpBuilder &b, const RowOp &row, Value t, ValueRange inits,
    function_ref<SmallVector<Value>(OpBuilder &, ValueRange, ValueRange)>
        step) {
  Location loc = forall.getLoc();
  linalg::LinalgOp op = row.op;
  Value zero = constantIndex(b, 0);
  SmallVector<Value> dims(op.getNumLoops(), zero);
  Value n = length(b, op);
  Value stride = constantIndex(b, threads);
  auto perElement = [&](OpBuilder &inner, Value k, ValueRange accumulators) {
    dims.back() = k;
    scf::YieldOp::create(inner, loc, step(inner, dims, accumulators));
  };
  if (group == 1)
    return scf::ForOp::create(b, loc, t, n, stride, inits,
                              [&](OpBuilder &inner, Location, Value k,
                                  ValueRange accumulators) {
                                perElement(inner, k, accumulators);
                              })
        .getResults();
  Value width = constantIndex(b, group);
  Value groups = arith::DivUIOp::create(b, loc, n, width);
  return scf::ForOp::create(
             b, loc, t, groups, stride, inits,
             [&](OpBuilder &outer, Location, Value g, ValueRange outerAcc) {
               Value base = arith::MulIOp::create(outer, loc, g, width);
               auto lanes = scf::ForOp::create(
                   outer, loc, constantIndex(outer, 0), width,
                   constantIndex(outer, 1), outerAcc,
                   [&](OpBuilder &inner, Location, Value lane,
                       ValueRange accumulators) {
                     perElement(inner,
                                arith::AddIOp::create(inner, loc, base, lane),
                                accumulators);
                   });
               scf::YieldOp::create(outer, loc, lanes.getResults());
             })
      .getResults();
}

void RowBuilder::storeOnce(
    OpBuilder &b,
    ArrayRef<std::tuple<Value, Value, SmallVector<Value>>> stores) {
  if (stores.empty())
    return;
  Location loc = forall.getLoc();
  phase(b, {}, [&](OpBuilder &nested, Value t) {
    Value first = arith::CmpIOp::create(nested, loc, arith::CmpIPredicate::eq,
                                        t, constantIndex(nested, 0));
    scf::IfOp::create(nested, loc, first, [&](OpBuilder &then, Location) {
      for (auto &[value, memref, idx] : stores)
        memref::StoreOp::create(then, loc, value, memref, idx);
      scf::YieldOp::create(then, loc);
    });
    scf::ReduceOp::create(nested, loc);
  });
}

void RowBuilder::emitOneElement(OpBuilder &b, const RowOp &row) {
  linalg::LinalgOp op = row.op;
  SmallVector<Value> dims(op.getNumLoops(), constantIndex(b, 0));
  SmallVector<Value> results =
      payload(b, op, arguments(b, op, dims, {}), dims);
  SmallVector<std::tuple<Value, Value, SmallVector<Value>>> stores;
  for (auto [out, result] : llvm::zip(op.getDpsInitsMutable(), results)) {
    if (cells.contains(out.get()))
      cells[out.get()] = result;
    else
      stores.emplace_back(result, mapping.lookupOrDefault(out.get()),
                          indices(b, op.getMatchingIndexingMap(&out), dims));
  }
  storeOnce(b, stores);
}

void RowBuilder::emitElementwise(OpBuilder &b, const RowOp &row) {
  linalg::LinalgOp op = row.op;
  Location loc = forall.getLoc();
  phase(b, {}, [&](OpBuilder &nested, Value t) {
    rowLoop(nested, row, t, {},
            [&](OpBuilder &inner, ValueRange dims, ValueRange) {
              SmallVector<Value> results =
                  payload(inner, op, arguments(inner, op, dims, {}), dims);
              for (auto [out, result] :
                   llvm::zip(op.getDpsInitsMutable(), results))
                memref::StoreOp::create(
                    inner, loc, result, mapping.lookupOrDefault(out.get()),
                    indices(inner, op.getMatchingIndexingMap(&out), dims));
              return SmallVector<Value>();
            });
    scf::ReduceOp::create(nested, loc);
  });
}

void RowBuilder::emitReduction(OpBuilder &b, const RowOp &row) {
  linalg::LinalgOp op = row.op;
  Location loc = forall.getLoc();
  SmallVector<Value> identities;
  for (Operation *combiner : row.combiners)
    identities.push_back(arith::ConstantOp::create(
        b, loc, checkedCombiner(combiner).identity));
  scf::ParallelOp reduced =
      phase(b, identities, [&](OpBuilder &nested, Value t) {
        ValueRange partials = rowLoop(
            nested, row, t, identities,
            [&](OpBuilder &inner, ValueRange dims, ValueRange accumulators) {
              return payload(inner, op,
                             arguments(inner, op, dims, accumulators), dims);
            });
        auto reduce = scf::ReduceOp::create(nested, loc, partials);
        for (auto [region, combiner] :
             llvm::zip(reduce.getReductions(), row.combiners)) {
          Block &block = region.front();
          OpBuilder rb = OpBuilder::atBlockEnd(&block);
          Operation *combined = rb.clone(*combiner);
          combined->setOperands(block.getArguments());
          scf::ReduceReturnOp::create(rb, loc, combined->getResult(0));
        }
      });
  // The outputs' initial values combined with the block's totals.
  SmallVector<Value> dims(op.getNumLoops(), constantIndex(b, 0));
  SmallVector<std::tuple<Value, Value, SmallVector<Value>>> stores;
  for (auto [out, combiner, total] :
       llvm::zip(op.getDpsInitsMutable(), row.combiners, reduced.getResults())) {
    Operation *combined = b.clone(*combiner);
    combined->setOperands({read(b, op, out, dims), total});
    Value result = combined->getResult(0);
    if (cells.contains(out.get()))
      cells[out.get()] = result;
    else
      stores.emplace_back(result, mapping.lookupOrDefault(out.get()),
                          indices(b, op.getMatchingIndexingMap(&out), dims));
  }
  storeOnce(b, stores);
}

void RowBuilder::build(const RowBody &body) {
  OpBuilder b(forall);
  Location loc = forall.getLoc();
  SmallVector<Value> lbs = getValueOrCreateConstantIndexOp(
      b, loc, forall.getMixedLowerBound());
  SmallVector<Value> ubs = getValueOrCreateConstantIndexOp(
      b, loc, forall.getMixedUpperBound());
  SmallVector<Value> steps =
      getValueOrCreateConstantIndexOp(b, loc, forall.getMixedStep());
  auto rows = scf::ParallelOp::create(b, loc, lbs, ubs, steps);
  rows->setAttr(kRowBlocks, b.getUnitAttr());
  mapping.map(forall.getInductionVars(), rows.getInductionVars());
  b.setInsertionPoint(rows.getBody()->getTerminator());
  for (Operation *op : body.ops) {
    if (auto alloca = dyn_cast<memref::AllocaOp>(op)) {
      if (isOneElement(alloca.getType())) {
        // Read before any write only where the payload ignores it.
        cells[alloca] = zero(b, alloca.getType().getElementType());
      } else {
        Operation *row = b.clone(*op, mapping);
        row->setAttr(kBlockShared, b.getUnitAttr());
      }
      continue;
    }
    auto rowOp = body.rowOps.find(op);
    if (rowOp == body.rowOps.end()) {
      b.clone(*op, mapping);
      continue;
    }
    const RowOp &row = rowOp->second;
    if (!row.length)
      emitOneElement(b, row);
    else if (row.isReduction())
      emitReduction(b, row);
    else
      emitElementwise(b, row);
  }
  forall.erase();
}

/// `forall`'s body, when it is a row forall this mapping takes.
std::optional<RowBody> getRowBody(scf::ForallOp forall) {
  if (forall.getMapping() || !forall.getOutputs().empty() ||
      forall.getRank() > 3)
    return std::nullopt;
  RowBody body;
  DenseSet<Value> cells;
  int64_t sharedBytes = 0;
  for (Operation &op : forall.getBody()->without_terminator()) {
    if (auto alloca = dyn_cast<memref::AllocaOp>(op)) {
      if (!llvm::all_of(alloca->getUsers(), [&](Operation *user) {
            return isa<linalg::LinalgOp>(user) &&
                   user->getBlock() == forall.getBody();
          }))
        return std::nullopt;
      if (isOneElement(alloca.getType())) {
        cells.insert(alloca);
      } else {
        // A row the body computes and reads again (an elementwise producer
        // fused into the row): shared memory on the device.
        MemRefType type = alloca.getType();
        if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
            llvm::any_of(type.getShape().drop_back(),
                         [](int64_t d) { return d != 1; }))
          return std::nullopt;
        sharedBytes += type.getNumElements() *
                       llvm::divideCeil(type.getElementTypeBitWidth(), 8);
        if (sharedBytes > kMaxSharedBytes)
          return std::nullopt;
      }
    } else if (!isa<linalg::LinalgOp>(op) &&
               !(isMemoryEffectFree(&op) && op.getNumRegions() == 0)) {
      return std::nullopt;
    }
    body.ops.push_back(&op);
  }
  bool reduces = false, dynamic = false, groups = true;
  int64_t longest = 0;
  const int64_t width = getElementsPerGroup(forall);
  for (Operation *op : body.ops) {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (!linalgOp)
      continue;
    std::optional<RowOp> row = getRowOp(linalgOp, cells);
    if (!row)
      return std::nullopt;
    body.rowOps.try_emplace(op, *row);
    if (!row->length)
      continue;
    reduces |= row->isReduction();
    int64_t n = *row->length;
    if (ShapedType::isDynamic(n)) {
      dynamic = true;
      groups = false;
      continue;
    }
    longest = std::max(longest, n);
    groups &= n % width == 0 && n / width >= kWarpSize;
  }
  if (!reduces || (!dynamic && longest < kMinRowElements))
    return std::nullopt;
  body.group = groups ? width : 1;
  body.threads =
      dynamic ? kThreadsPerBlock
              : std::min<int64_t>(kThreadsPerBlock,
                                  llvm::alignTo(longest / body.group, kWarpSize));
  return body;
}

} // namespace

void cuda::mapRowsToBlocks(func::FuncOp func) {
  SmallVector<scf::ForallOp> foralls(func.getBody().getOps<scf::ForallOp>());
  for (scf::ForallOp forall : foralls) {
    if (std::optional<RowBody> body = getRowBody(forall))
      RowBuilder(forall, *body).build(*body);
  }
}

namespace {

struct MapRowsToBlocksPass
    : cuda::impl::MapRowsToBlocksPassBase<MapRowsToBlocksPass> {
  void runOnOperation() override { mapRowsToBlocks(getOperation()); }
};

} // namespace
