//===- RowBlocks.cpp - a block of threads per row for norms and softmax ---===//
//
// fuseRowReductions (host/Codegen.cpp) leaves each norm and softmax as an
// scf.forall over rows whose body reduces the row (sum, max, ...) into
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
// (joinThreadPhases).
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
#define GEN_PASS_DEF_RUNTHREADPHASESINORDERPASS
#define GEN_PASS_DEF_JOINTHREADPHASESPASS
#define GEN_PASS_DEF_PLACEROWBUFFERSINSHAREDMEMORYPASS
#include "compiler/target/cuda/Passes.h.inc"
} // namespace mlir::tsc::cuda

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::cuda;

namespace {

/// Rows shorter than this (all of constant length) keep a thread per row: a
/// block would be mostly idle threads.
constexpr int64_t kMinRowElements = 32;

/// A combiner the block can reduce with: its all-reduce kind and the
/// identity each thread's partial starts from.
struct Combiner {
  gpu::AllReduceOperation kind;
  TypedAttr identity;
};

std::optional<Combiner> getCombiner(Operation *op) {
  using Kind = gpu::AllReduceOperation;
  if (op->getNumResults() != 1 || op->getNumOperands() != 2)
    return std::nullopt;
  Type type = op->getResult(0).getType();
  // What gpu.shuffle moves between lanes.
  if (!type.isF32() && !type.isF64() && !type.isInteger(32) &&
      !type.isInteger(64))
    return std::nullopt;
  std::optional<Kind> kind =
      llvm::TypeSwitch<Operation *, std::optional<Kind>>(op)
          .Case<arith::AddFOp, arith::AddIOp>([](auto) { return Kind::ADD; })
          .Case<arith::MulFOp, arith::MulIOp>([](auto) { return Kind::MUL; })
          .Case([](arith::MaximumFOp) { return Kind::MAXIMUMF; })
          .Case([](arith::MinimumFOp) { return Kind::MINIMUMF; })
          .Case([](arith::MaxNumFOp) { return Kind::MAXNUMF; })
          .Case([](arith::MinNumFOp) { return Kind::MINNUMF; })
          .Case([](arith::AndIOp) { return Kind::AND; })
          .Case([](arith::OrIOp) { return Kind::OR; })
          .Case([](arith::XOrIOp) { return Kind::XOR; })
          .Case([](arith::MaxSIOp) { return Kind::MAXSI; })
          .Case([](arith::MinSIOp) { return Kind::MINSI; })
          .Case([](arith::MaxUIOp) { return Kind::MAXUI; })
          .Case([](arith::MinUIOp) { return Kind::MINUI; })
          .Default([](Operation *) { return std::nullopt; });
  // Each thread's partial starts from the combiner's neutral element
  // (maxnum/minnum: NaN, which they ignore).
  std::optional<TypedAttr> identity = arith::getNeutralElement(op);
  if (!kind || !identity)
    return std::nullopt;
  return Combiner{*kind, *identity};
}

/// The combiner of a reduction getRowOp accepted.
Combiner checkedCombiner(Operation *op) {
  std::optional<Combiner> combiner = getCombiner(op);
  assert(combiner && "a reduction getRowOp did not accept");
  return *combiner;
}

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

/// Moves `loop`'s body (but its terminator) before `before`, its induction
/// variable replaced by `iv`; returns the values its scf.reduce combines.
SmallVector<Value> inlinePhase(scf::ParallelOp loop, Value iv,
                               Operation *before) {
  Block *body = loop.getBody();
  body->getArgument(0).replaceAllUsesWith(iv);
  SmallVector<Value> partials(body->getTerminator()->getOperands());
  for (Operation &op : llvm::make_early_inc_range(body->without_terminator()))
    op.moveBefore(before);
  return partials;
}

/// The ops of type OpT in `root` that carry the attribute `mark`.
template <typename OpT>
SmallVector<OpT> collectMarked(Operation *root, StringRef mark) {
  SmallVector<OpT> marked;
  root->walk([&](OpT op) {
    if (op->hasAttr(mark))
      marked.push_back(op);
  });
  return marked;
}

/// Whether `memref` is a thread's own memory (an alloca not in shared
/// memory, or a view of one), which no other thread sees.
bool isThreadPrivate(Value memref) {
  while (auto view = memref.getDefiningOp<ViewLikeOpInterface>())
    memref = view.getViewSource();
  auto alloca = memref.getDefiningOp<memref::AllocaOp>();
  return alloca && !alloca->hasAttr(kBlockShared);
}

/// Whether `op` or an op in it has a memory effect of kind EffectT on
/// memory other threads see (an op that does not say what it does counts as
/// having it).
template <typename EffectT> bool hasMemoryEffect(Operation *op) {
  return op
      ->walk([](Operation *inner) {
        if (inner->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
          return WalkResult::advance();
        if (auto load = dyn_cast<memref::LoadOp>(inner);
            load && isThreadPrivate(load.getMemRef()))
          return WalkResult::advance();
        if (auto store = dyn_cast<memref::StoreOp>(inner);
            store && isThreadPrivate(store.getMemRef()))
          return WalkResult::advance();
        auto effects = dyn_cast<MemoryEffectOpInterface>(inner);
        return !effects || effects.hasEffect<EffectT>()
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

/// Barrier bookkeeping in a block's thread loop: whether some thread wrote
/// (read) memory since the last barrier that another thread may read or
/// overwrite (overwrite) next.
struct Hazards {
  bool wrote = false, read = false;
};

/// Inlines the thread phases of `block` (the thread loop's body, or the body
/// of uniform control flow in it) for thread `t`: a gpu.barrier before an op
/// whose accesses may conflict with another thread's since the last one, a
/// gpu.all_reduce per reduction.
void joinPhasesIn(Block &block, Value t, Hazards &hazards) {
  MLIRContext *ctx = t.getContext();
  for (Operation &op : llvm::make_early_inc_range(block.without_terminator())) {
    auto phase = dyn_cast<scf::ParallelOp>(op);
    bool isPhase = phase && phase->hasAttr(kThreadPhase);
    if (!isPhase && !collectMarked<scf::ParallelOp>(&op, kThreadPhase).empty()) {
      // A loop (all threads run the same trips) around phases: at its
      // start, after a trip and after it, any access may conflict.
      for (Region &region : op.getRegions())
        for (Block &inner : region) {
          Hazards unknown{true, true};
          joinPhasesIn(inner, t, unknown);
        }
      hazards = {true, true};
      continue;
    }
    OpBuilder b(&op);
    Location loc = op.getLoc();
    bool reads = hasMemoryEffect<MemoryEffects::Read>(&op),
         writes = hasMemoryEffect<MemoryEffects::Write>(&op);
    if ((hazards.wrote && (reads || writes)) || (hazards.read && writes)) {
      gpu::BarrierOp::create(b, loc);
      hazards = {};
    }
    hazards.wrote |= writes;
    hazards.read |= reads;
    if (!isPhase)
      continue;
    auto reduce = cast<scf::ReduceOp>(phase.getBody()->getTerminator());
    SmallVector<Value> partials = inlinePhase(phase, t, phase);
    SmallVector<Value> totals;
    for (auto [region, partial] : llvm::zip(reduce.getReductions(), partials)) {
      const Combiner combiner = checkedCombiner(&region.front().front());
      totals.push_back(gpu::AllReduceOp::create(
          b, loc, partial,
          gpu::AllReduceOperationAttr::get(ctx, combiner.kind),
          /*uniform=*/true));
      // The reduction's barriers order all memory accesses before it.
      hazards = {};
    }
    phase.replaceAllUsesWith(totals);
    phase.erase();
  }
}

/// Each kThreadTile alloca in `threads` (a tile with a row per thread, used
/// through views at the thread's row) as a one-row tile of the thread's own:
/// each thread's copy of the whole tile would be mostly unused local memory.
void shrinkThreadTiles(scf::ParallelOp threads) {
  Value t = threads.getInductionVars().front();
  for (auto tile : collectMarked<memref::AllocaOp>(threads, kThreadTile)) {
    // Every use a view whose first offset is the thread's row.
    auto atRow = [&](Operation *user) {
      auto view = dyn_cast<memref::SubViewOp>(user);
      return view && view.getSource() == tile &&
             ShapedType::isDynamic(view.getStaticOffsets().front()) &&
             view.getOffsets().front() == t &&
             view.getStaticSizes().front() == 1;
    };
    if (!llvm::all_of(tile->getUsers(), atRow))
      continue;
    MemRefType type = tile.getType();
    SmallVector<int64_t> shape(type.getShape());
    shape.front() = 1;
    OpBuilder b(tile);
    auto own = memref::AllocaOp::create(
        b, tile.getLoc(), MemRefType::get(shape, type.getElementType()),
        tile.getAlignmentAttr());
    Value zero = arith::ConstantIndexOp::create(b, tile.getLoc(), 0);
    for (Operation *user : llvm::make_early_inc_range(tile->getUsers())) {
      auto view = cast<memref::SubViewOp>(user);
      view.getSourceMutable().assign(own);
      view.getOffsetsMutable()[0].assign(zero);
    }
    tile.erase();
  }
}

} // namespace

scf::ParallelOp
cuda::createThreadPhase(OpBuilder &b, Location loc, int64_t threads,
                        ValueRange inits,
                        function_ref<void(OpBuilder &, Value)> body) {
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto loop = scf::ParallelOp::create(
      b, loc, ValueRange{index(0)}, ValueRange{index(threads)},
      ValueRange{index(1)}, inits,
      [&](OpBuilder &nested, Location, ValueRange ivs, ValueRange) {
        body(nested, ivs.front());
      });
  loop->setAttr(kThreadPhase, b.getUnitAttr());
  return loop;
}

SmallVector<Value> cuda::evaluateMap(OpBuilder &b, Location loc, AffineMap map,
                                     ValueRange dims) {
  SmallVector<Value> result;
  for (AffineExpr expr : map.getResults())
    result.push_back(affine::expandAffineExpr(b, loc, expr, dims, {}));
  return result;
}

SmallVector<Value>
cuda::payloadArguments(OpBuilder &b, Location loc, linalg::LinalgOp op,
                       function_ref<Value(OpOperand &)> read) {
  SmallVector<Value> args;
  for (OpOperand &operand : op->getOpOperands()) {
    if (op.isDpsInput(&operand) || op.payloadUsesValueFromOperand(&operand)) {
      args.push_back(read(operand));
      continue;
    }
    Type element = getElementTypeOrSelf(operand.get().getType());
    args.push_back(arith::ConstantOp::create(b, loc, b.getZeroAttr(element)));
  }
  return args;
}

SmallVector<Value> cuda::clonePayload(OpBuilder &b, linalg::LinalgOp op,
                                      ValueRange args, ValueRange dims,
                                      const IRMapping &outer) {
  IRMapping mapping = outer;
  Block *block = op.getBlock();
  mapping.map(block->getArguments(), args);
  for (Operation &inner : block->without_terminator()) {
    if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
      mapping.map(index.getResult(), dims[index.getDim()]);
      continue;
    }
    b.clone(inner, mapping);
  }
  SmallVector<Value> results;
  for (Value v : block->getTerminator()->getOperands())
    results.push_back(mapping.lookupOrDefault(v));
  return results;
}

void cuda::mapRowsToBlocks(func::FuncOp func) {
  SmallVector<scf::ForallOp> foralls(func.getBody().getOps<scf::ForallOp>());
  for (scf::ForallOp forall : foralls) {
    if (std::optional<RowBody> body = getRowBody(forall))
      RowBuilder(forall, *body).build(*body);
  }
}

void cuda::runThreadPhasesInOrder(ModuleOp kernels) {
  for (auto loop : collectMarked<scf::ParallelOp>(kernels, kThreadPhase)) {
    OpBuilder b(loop);
    Location loc = loop.getLoc();
    auto reduce = cast<scf::ReduceOp>(loop.getBody()->getTerminator());
    // A warp phase's first thread computes the warp's vectors.
    Value step = loop->hasAttr(kWarpPhase)
                     ? Value(arith::ConstantIndexOp::create(b, loc, kWarpSize))
                     : loop.getStep().front();
    auto ordered = scf::ForOp::create(
        b, loc, loop.getLowerBound().front(), loop.getUpperBound().front(),
        step, loop.getInitVals(),
        [&](OpBuilder &nested, Location, Value t, ValueRange totals) {
          IRMapping mapping;
          mapping.map(loop.getInductionVars().front(), t);
          for (Operation &op : loop.getBody()->without_terminator())
            nested.clone(op, mapping);
          SmallVector<Value> combined;
          for (auto [region, partial, total] :
               llvm::zip(reduce.getReductions(), reduce.getOperands(), totals)) {
            Block &block = region.front();
            IRMapping combine;
            combine.map(block.getArgument(0), total);
            combine.map(block.getArgument(1), mapping.lookup(partial));
            for (Operation &op : block.without_terminator())
              nested.clone(op, combine);
            combined.push_back(
                combine.lookup(block.getTerminator()->getOperand(0)));
          }
          scf::YieldOp::create(nested, loc, combined);
        });
    loop.replaceAllUsesWith(ordered.getResults());
    loop.erase();
  }
}

/// Replaces `old` (a buffer in another memory space) by `replacement` in its
/// users, rebuilding the views of it, whose types carry the memory space.
static void replaceBuffer(Value old, Value replacement) {
  for (OpOperand &use : llvm::make_early_inc_range(old.getUses())) {
    auto view = dyn_cast<memref::SubViewOp>(use.getOwner());
    if (!view || use.get() != view.getSource()) {
      use.set(replacement);
      continue;
    }
    OpBuilder b(view);
    MemRefType type = memref::SubViewOp::inferRankReducedResultType(
        view.getType().getShape(), cast<MemRefType>(replacement.getType()),
        view.getMixedOffsets(), view.getMixedSizes(), view.getMixedStrides());
    auto rebuilt = memref::SubViewOp::create(
        b, view.getLoc(), type, replacement, view.getMixedOffsets(),
        view.getMixedSizes(), view.getMixedStrides());
    replaceBuffer(view.getResult(), rebuilt.getResult());
    view->erase();
  }
}

int64_t cuda::getPaddedRowStride(MemRefType type) {
  int64_t cols = type.getShape().back();
  if (type.getRank() != 2 || type.getDimSize(0) <= 1)
    return cols;
  int64_t bytes = llvm::divideCeil(type.getElementTypeBitWidth(), 8);
  constexpr int64_t kBankRowBytes = 32 * 4;
  if ((cols * bytes) % kBankRowBytes != 0)
    return cols;
  if (bytes == 4)
    return cols + 1;
  if (bytes == 2)
    return cols + 8;
  return cols;
}

void cuda::placeRowBuffersInSharedMemory(gpu::GPUFuncOp kernel) {
  auto workgroup = gpu::AddressSpaceAttr::get(
      kernel.getContext(), gpu::GPUDialect::getWorkgroupAddressSpace());
  for (auto alloca : collectMarked<memref::AllocaOp>(kernel, kBlockShared)) {
    MemRefType type = alloca.getType();
    SmallVector<int64_t> shape(type.getShape());
    int64_t stride = shape.back();
    if (auto padded = alloca->getAttrOfType<IntegerAttr>(kSharedRowStride))
      stride = padded.getInt();
    shape.back() = stride;
    auto bufferType = MemRefType::get(shape, type.getElementType(),
                                      MemRefLayoutAttrInterface(), workgroup);
    // bf16 buffers are bytes viewed as bf16, so that a tensor-core product
    // can view the same bytes as f16 (lowerWarpProducts: MLIR's mma.sync
    // conversion takes f16 only).
    bool bytes = type.getElementType().isBF16();
    OpBuilder b(alloca);
    Value shared = kernel.addWorkgroupAttribution(
        bytes
            ? MemRefType::get({bufferType.getNumElements() * 2}, b.getI8Type(),
                              MemRefLayoutAttrInterface(), workgroup)
            : bufferType,
        alloca.getLoc());
    // 16-byte aligned for the threads' groups of 4 floats (LLVM does not
    // raise the alignment of a workgroup buffer itself).
    kernel.setWorkgroupAttributionAttr(
        kernel.getNumWorkgroupAttributions() - 1,
        LLVM::LLVMDialect::getAlignAttrName(),
        IntegerAttr::get(IntegerType::get(kernel.getContext(), 64), 16));
    if (bytes)
      shared = memref::ViewOp::create(
          b, alloca.getLoc(), bufferType, shared,
          arith::ConstantIndexOp::create(b, alloca.getLoc(), 0), ValueRange{});
    if (stride != type.getShape().back()) {
      // The tile's rows, a view of the padded buffer.
      SmallVector<OpFoldResult> zeros(2, b.getIndexAttr(0)),
          ones(2, b.getIndexAttr(1)),
          sizes = {b.getIndexAttr(type.getDimSize(0)),
                   b.getIndexAttr(type.getDimSize(1))};
      shared = memref::SubViewOp::create(b, alloca.getLoc(), shared, zeros,
                                         sizes, ones);
    }
    replaceBuffer(alloca.getResult(), shared);
    alloca.erase();
  }
}

LogicalResult cuda::joinThreadPhases(func::FuncOp func) {
  MLIRContext *ctx = func.getContext();
  for (auto rows : collectMarked<scf::ParallelOp>(func, kRowBlocks)) {
    SmallVector<scf::ParallelOp> phases =
        collectMarked<scf::ParallelOp>(rows, kThreadPhase);
    if (phases.empty())
      continue;
    Block *body = rows.getBody();
    Location loc = rows.getLoc();
    OpBuilder b = OpBuilder::atBlockBegin(body);
    // (The phases' bounds are constants in the body, which moves into the
    // loop.)
    std::optional<int64_t> count =
        getConstantIntValue(phases.front().getUpperBound().front());
    assert(count && "thread phases over a constant number of threads");
    auto threads = scf::ParallelOp::create(
        b, loc, ValueRange{arith::ConstantIndexOp::create(b, loc, 0)},
        ValueRange{arith::ConstantIndexOp::create(b, loc, *count)},
        ValueRange{arith::ConstantIndexOp::create(b, loc, 1)});
    auto identity = AffineMap::getMultiDimIdentityMap(1, ctx);
    if (failed(gpu::setMappingAttr(
            threads, {gpu::ParallelLoopDimMappingAttr::get(
                         ctx, gpu::Processor::ThreadX, identity, identity)})))
      return failure();
    Operation *end = threads.getBody()->getTerminator();
    for (Operation &op : llvm::make_early_inc_range(*body))
      if (&op != threads && &op != body->getTerminator())
        op.moveBefore(end);
    Value t = threads.getInductionVars().front();
    Hazards hazards;
    joinPhasesIn(*threads.getBody(), t, hazards);
    shrinkThreadTiles(threads);
  }
  return success();
}

namespace {

struct MapRowsToBlocksPass
    : cuda::impl::MapRowsToBlocksPassBase<MapRowsToBlocksPass> {
  void runOnOperation() override { mapRowsToBlocks(getOperation()); }
};

struct RunThreadPhasesInOrderPass
    : cuda::impl::RunThreadPhasesInOrderPassBase<RunThreadPhasesInOrderPass> {
  void runOnOperation() override { runThreadPhasesInOrder(getOperation()); }
};

struct JoinThreadPhasesPass
    : cuda::impl::JoinThreadPhasesPassBase<JoinThreadPhasesPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (failed(joinThreadPhases(func))) {
      func.emitError("cannot map the kernel's row blocks to the GPU");
      signalPassFailure();
    }
  }
};

struct PlaceRowBuffersInSharedMemoryPass
    : cuda::impl::PlaceRowBuffersInSharedMemoryPassBase<
          PlaceRowBuffersInSharedMemoryPass> {
  void runOnOperation() override {
    for (auto kernel : getOperation().getOps<gpu::GPUFuncOp>())
      placeRowBuffersInSharedMemory(kernel);
  }
};

} // namespace
