//===- Launches.cpp - kernel launches as plan steps -----------------------===//
//
// A kernel step's function (device ABI: one pointer per buffer, one i64 per
// symbol) holds gpu.launch ops after loop mapping. For the runtime to run
// them without MLIR, each launch must capture only the function's
// arguments, and everything the host side computes (grid sizes, i64
// arguments) must be a plan expression over the symbols:
//   - before outlining, temporaries allocated at the function's top level
//     become arena values passed as extra pointer arguments, and the launch
//     bodies take in (clone) the pure computation they use from outside:
//     descriptor building, shape arithmetic;
//   - after outlining, each gpu.launch_func's geometry and operands are
//     read back as expressions.
//
//===----------------------------------------------------------------------===//

#include "compiler/kernels/Kernels.h"
#include "compiler/target/cuda/CudaCodegen.h"
#include "dialects/tsc/IR/SymbolicShape.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::cuda;

namespace {

FailureOr<AffineExpr> toExpr(Value value, ArrayRef<LaunchArg> argValues,
                             const plan::PlanExtender &plan);
std::optional<std::pair<int64_t, int64_t>>
bounds(AffineExpr expr, const plan::PlanExtender &plan);

/// The value inserted at `position` (1: the aligned pointer, {3, d}: size
/// d) into the descriptor that `wrap` (as wrapPointer builds it) casts to a
/// memref; null when it is not such a descriptor.
Value descriptorField(UnrealizedConversionCastOp wrap,
                      ArrayRef<int64_t> position) {
  if (wrap.getNumOperands() != 1)
    return Value();
  for (Value d = wrap.getOperand(0);
       auto insert = d.getDefiningOp<LLVM::InsertValueOp>();
       d = insert.getContainer())
    if (insert.getPosition() == position)
      return insert.getValue();
  return Value();
}

FailureOr<AffineExpr> toExpr(OpFoldResult size, MLIRContext *context,
                             ArrayRef<LaunchArg> argValues,
                             const plan::PlanExtender &plan) {
  if (std::optional<int64_t> constant = getConstantIntValue(size))
    return getAffineConstantExpr(*constant, context);
  return toExpr(cast<Value>(size), argValues, plan);
}

/// Dim `d` of `memref`, followed through the views and descriptors the
/// kernel builds from its arguments.
FailureOr<AffineExpr> dimExpr(Value memref, int64_t d,
                              ArrayRef<LaunchArg> argValues,
                              const plan::PlanExtender &plan) {
  auto type = dyn_cast<MemRefType>(memref.getType());
  if (!type || d < 0 || d >= type.getRank())
    return failure();
  if (!type.isDynamicDim(d))
    return getAffineConstantExpr(type.getDimSize(d), memref.getContext());
  Operation *def = memref.getDefiningOp();
  if (!def)
    return failure();
  // A buffer: the descriptor wrapPointer built holds the size.
  if (auto wrap = dyn_cast<UnrealizedConversionCastOp>(def)) {
    Value size = descriptorField(wrap, {3, d});
    if (!size)
      return failure();
    return toExpr(size, argValues, plan);
  }
  if (isa<memref::AllocOp, memref::AllocaOp>(def))
    return toExpr(def->getOperand(type.getDynamicDimIndex(d)), argValues,
                  plan);
  if (auto cast = dyn_cast<memref::CastOp>(def))
    return dimExpr(cast.getSource(), d, argValues, plan);
  if (auto expand = dyn_cast<memref::ExpandShapeOp>(def))
    return toExpr(expand.getMixedOutputShape()[d], memref.getContext(),
                  argValues, plan);
  if (auto reinterpret = dyn_cast<memref::ReinterpretCastOp>(def))
    return toExpr(reinterpret.getMixedSizes()[d], memref.getContext(),
                  argValues, plan);
  if (auto collapse = dyn_cast<memref::CollapseShapeOp>(def)) {
    AffineExpr product = getAffineConstantExpr(1, memref.getContext());
    for (int64_t source : collapse.getReassociationIndices()[d]) {
      FailureOr<AffineExpr> size =
          dimExpr(collapse.getSrc(), source, argValues, plan);
      if (failed(size))
        return failure();
      product = product * *size;
    }
    return product;
  }
  if (auto subview = dyn_cast<memref::SubViewOp>(def)) {
    llvm::SmallBitVector dropped = subview.getDroppedDims();
    int64_t result = 0;
    for (auto [i, size] : llvm::enumerate(subview.getMixedSizes())) {
      if (dropped.test(i))
        continue;
      if (result++ == d)
        return toExpr(size, memref.getContext(), argValues, plan);
    }
  }
  return failure();
}

/// `value` (index or integer, computed on the host from the function's
/// arguments) as an expression over the plan symbols; failure when it is
/// not affine arithmetic on the symbol arguments and constants.
FailureOr<AffineExpr> toExpr(Value value, ArrayRef<LaunchArg> argValues,
                             const plan::PlanExtender &plan) {
  MLIRContext *context = value.getContext();
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    const LaunchArg &meaning = argValues[arg.getArgNumber()];
    if (meaning.kind != LaunchArg::Kind::Int64)
      return failure();
    return plan.getExpr(meaning.index);
  }
  Operation *def = value.getDefiningOp();
  if (isa<arith::ConstantOp, LLVM::ConstantOp>(def)) {
    auto integer = dyn_cast<IntegerAttr>(def->getAttr("value"));
    if (!integer)
      return failure();
    // An i1 is 0 or 1 (getInt would sign-extend true to -1).
    return getAffineConstantExpr(integer.getType().isInteger(1)
                                     ? int64_t(integer.getValue().getZExtValue())
                                     : integer.getInt(),
                                 context);
  }
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
          arith::ExtUIOp>(def)) {
    FailureOr<AffineExpr> e = toExpr(def->getOperand(0), argValues, plan);
    if (failed(e))
      return failure();
    // The value must survive the cast unchanged: unsigned casts and
    // narrowing index casts only of values known to fit.
    Type from = def->getOperand(0).getType(), to = def->getResult(0).getType();
    unsigned width = std::min(from.isIndex() ? 64 : from.getIntOrFloatBitWidth(),
                              to.isIndex() ? 64 : to.getIntOrFloatBitWidth());
    bool isUnsigned = isa<arith::IndexCastUIOp, arith::ExtUIOp>(def);
    std::optional<std::pair<int64_t, int64_t>> range = bounds(*e, plan);
    if (!range || (isUnsigned && range->first < 0) ||
        (width < 64 && (range->first < -(int64_t(1) << (width - 1)) ||
                        range->second >= (int64_t(1) << (width - 1)))))
      return failure();
    return *e;
  }
  if (auto dim = dyn_cast<memref::DimOp>(def)) {
    std::optional<int64_t> d = getConstantIntValue(dim.getIndex());
    if (!d)
      return failure();
    return dimExpr(dim.getSource(), *d, argValues, plan);
  }
  if (auto apply = dyn_cast<affine::AffineApplyOp>(def)) {
    AffineMap map = apply.getAffineMap();
    SmallVector<AffineExpr> dims, symbols;
    for (auto [i, operand] : llvm::enumerate(apply.getMapOperands())) {
      FailureOr<AffineExpr> e = toExpr(operand, argValues, plan);
      if (failed(e))
        return failure();
      (i < map.getNumDims() ? dims : symbols).push_back(*e);
    }
    return map.getResult(0).replaceDimsAndSymbols(dims, symbols);
  }
  if (def->getNumOperands() != 2)
    return failure();
  FailureOr<AffineExpr> lhs = toExpr(def->getOperand(0), argValues, plan);
  FailureOr<AffineExpr> rhs = toExpr(def->getOperand(1), argValues, plan);
  if (failed(lhs) || failed(rhs))
    return failure();
  // Division and remainder mean floordiv and mod for a non-negative
  // dividend and a positive divisor (C's truncation, the sign of the
  // dividend and unsigned operations agree there), and only there.
  if (isa<arith::FloorDivSIOp, arith::DivSIOp, arith::DivUIOp,
          arith::CeilDivSIOp, arith::CeilDivUIOp, arith::RemSIOp,
          arith::RemUIOp>(def)) {
    std::optional<std::pair<int64_t, int64_t>> a = bounds(*lhs, plan);
    std::optional<std::pair<int64_t, int64_t>> b = bounds(*rhs, plan);
    if (!a || !b || a->first < 0 || b->first <= 0)
      return failure();
  }
  return TypeSwitch<Operation *, FailureOr<AffineExpr>>(def)
      .Case<arith::AddIOp, LLVM::AddOp>([&](auto) { return *lhs + *rhs; })
      .Case<arith::SubIOp, LLVM::SubOp>([&](auto) { return *lhs - *rhs; })
      .Case<arith::MulIOp, LLVM::MulOp>([&](auto) { return *lhs * *rhs; })
      .Case<arith::FloorDivSIOp, arith::DivSIOp, arith::DivUIOp>(
          [&](auto) { return lhs->floorDiv(*rhs); })
      .Case<arith::CeilDivSIOp, arith::CeilDivUIOp>(
          [&](auto) { return lhs->ceilDiv(*rhs); })
      .Case<arith::RemSIOp, arith::RemUIOp>([&](auto) { return *lhs % *rhs; })
      .Default([](Operation *) { return failure(); });
}

/// An interval [lo, hi] that holds `expr` for every symbol value in the
/// plan's ranges (interval arithmetic, tsc::getRange: sizes that are not
/// monotone, with `mod` terms, are bounded too); none when it cannot bound
/// the expression.
std::optional<std::pair<int64_t, int64_t>>
bounds(AffineExpr expr, const plan::PlanExtender &plan) {
  SmallVector<DimRange> ranges;
  for (const plan::PlanSymbol &s : plan.getPlan().symbols)
    ranges.push_back(DimRange{s.min, s.max});
  std::optional<DimRange> range = getRange(expr, ranges);
  if (!range)
    return std::nullopt;
  return std::make_pair(range->min, range->max);
}

/// Bytes per element of a temporary, as the NVPTX lowering stores it.
int64_t elementBytes(Type type) {
  if (type.isIndex())
    return 8;
  return llvm::divideCeil(type.getIntOrFloatBitWidth(), 8);
}

/// The pointer argument (or the allocation) whose memory `memref` views:
/// through view-like ops and the descriptors wrapPointer builds; null when
/// it cannot be told.
Value memoryRoot(Value memref) {
  while (Operation *def = memref.getDefiningOp()) {
    if (auto view = dyn_cast<ViewLikeOpInterface>(def)) {
      memref = view.getViewSource();
      continue;
    }
    if (isa<memref::AllocOp, memref::AllocaOp>(def))
      return memref;
    auto wrap = dyn_cast<UnrealizedConversionCastOp>(def);
    Value aligned = wrap ? descriptorField(wrap, {1}) : Value();
    return aligned && isa<BlockArgument>(aligned) ? aligned : Value();
  }
  return Value();
}

/// Whether `def` (outside `launch`) may be recomputed at the start of the
/// launch: pure operations, loads of spilled scalars (kSpillLoad), and other
/// loads (scalars read on the host, e.g. a 0-d weight) when no other launch
/// runs between the load and this one, so the kernel reads the memory in the
/// same state.
bool canSink(Operation *def, gpu::LaunchOp launch,
             function_ref<bool(Value, Value)> mayAlias) {
  if (def->getNumRegions())
    return false;
  if (isMemoryEffectFree(def))
    return true;
  if (!isa<memref::LoadOp>(def) || def->getBlock() != launch->getBlock() ||
      !def->isBeforeInBlock(launch))
    return false;
  if (def->hasAttr(kSpillLoad))
    return true;
  for (Operation *op = def->getNextNode(); op != launch; op = op->getNextNode())
    if (isa<gpu::LaunchOp>(op) || !isMemoryEffectFree(op))
      return false;
  // Every thread reads it: the launch itself must not write that memory
  // (blocks starting late would read what others wrote).
  Value root = memoryRoot(cast<memref::LoadOp>(def).getMemRef());
  if (!root)
    return false;
  WalkResult writes = launch.getBody().walk([&](Operation *op) {
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects)
      return op->hasTrait<OpTrait::HasRecursiveMemoryEffects>() ||
                     isMemoryEffectFree(op)
                 ? WalkResult::advance()
                 : WalkResult::interrupt();
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    for (const MemoryEffects::EffectInstance &effect : instances) {
      if (!isa<MemoryEffects::Write>(effect.getEffect()))
        continue;
      Value target = effect.getValue();
      Value written = target ? memoryRoot(target) : Value();
      if (!written || mayAlias(written, root))
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return !writes.wasInterrupted();
}

/// Clones into `launch` what it uses from above (canSink), until it uses
/// nothing from outside but the function's arguments.
void sinkIntoLaunch(gpu::LaunchOp launch,
                    function_ref<bool(Value, Value)> mayAlias) {
  Region &body = launch.getBody();
  bool changed = true;
  while (changed) {
    changed = false;
    SetVector<Value> captured;
    getUsedValuesDefinedAbove(body, captured);
    for (Value value : captured) {
      Operation *def = value.getDefiningOp();
      if (!def || !canSink(def, launch, mayAlias))
        continue;
      OpBuilder b = OpBuilder::atBlockBegin(&body.front());
      Operation *clone = b.clone(*def);
      for (auto [from, to] :
           llvm::zip(def->getResults(), clone->getResults()))
        from.replaceUsesWithIf(to, [&](OpOperand &use) {
          return body.isAncestor(use.getOwner()->getParentRegion());
        });
      changed = true;
    }
  }
}

} // namespace

LogicalResult cuda::prepareLaunches(func::FuncOp func, plan::PlanExtender &plan,
                                    const plan::PlanStep &step,
                                    SmallVectorImpl<LaunchArg> &argValues) {
  Block &entry = func.getBody().front();
  for (unsigned v : step.buffers)
    argValues.push_back({LaunchArg::Kind::Pointer, v});
  for (unsigned i = 0; i < plan.getPlan().symbols.size(); ++i)
    argValues.push_back(
        {LaunchArg::Kind::Int64,
         plan.addExpr(getAffineSymbolExpr(i, func.getContext()))});

  // Top-level temporaries: arena values after the planned arena, one after
  // the other within the step (steps run one at a time, so they share).
  uint64_t offset = 0;
  SmallVector<Operation *> temporaries;
  for (Operation &op : entry)
    if (isa<memref::AllocOp, memref::AllocaOp>(op))
      temporaries.push_back(&op);
  for (Operation *op : temporaries) {
    auto type = cast<MemRefType>(op->getResult(0).getType());
    if (!type.getLayout().isIdentity())
      return op->emitError("a temporary with a non-identity layout cannot be "
                           "placed in the device arena");
    AffineExpr bytes = getAffineConstantExpr(
        elementBytes(type.getElementType()), func.getContext());
    unsigned next = 0;
    for (int64_t size : type.getShape()) {
      if (!ShapedType::isDynamic(size)) {
        bytes = bytes * size;
        continue;
      }
      FailureOr<AffineExpr> dim =
          toExpr(op->getOperand(next++), argValues, plan);
      if (failed(dim))
        return op->emitError("the size of a temporary is not an expression "
                             "of the symbols");
      bytes = bytes * *dim;
    }
    std::optional<std::pair<int64_t, int64_t>> range = bounds(bytes, plan);
    if (!range || range->first < 0)
      return op->emitError("the size of a temporary has no bound over the "
                           "symbols' ranges");
    std::optional<int64_t> maxBytes = range->second;
    argValues.push_back(
        {LaunchArg::Kind::Pointer, plan.addScratch(bytes, offset, *maxBytes)});
    offset += llvm::alignTo(std::max<int64_t>(*maxBytes, 1), plan::kAlignment);

    // The temporary becomes a view of the new pointer argument.
    Value ptr = entry.addArgument(LLVM::LLVMPointerType::get(func.getContext()),
                                  op->getLoc());
    OpBuilder b(op);
    SmallVector<Value> sizes;
    unsigned dynamic = 0;
    for (int64_t size : type.getShape()) {
      Value index = ShapedType::isDynamic(size)
                        ? op->getOperand(dynamic++)
                        : arith::ConstantIndexOp::create(b, op->getLoc(), size)
                              .getResult();
      sizes.push_back(
          arith::IndexCastOp::create(b, op->getLoc(), b.getI64Type(), index));
    }
    Value memref = wrapPointer(b, op->getLoc(), ptr, type, sizes);
    for (Operation *user : llvm::to_vector(op->getUsers()))
      if (isa<memref::DeallocOp>(user))
        user->erase();
    op->getResult(0).replaceAllUsesWith(memref);
    op->erase();
  }
  plan.reserveScratch(offset);
  func.setFunctionType(FunctionType::get(
      func.getContext(), entry.getArgumentTypes(), func.getResultTypes()));

  SmallVector<gpu::LaunchOp> launches;
  func.walk([&](gpu::LaunchOp launch) { launches.push_back(launch); });
  // Memory roots (memoryRoot) that may overlap: the same root, or two
  // buffers of one plan value (a value and its view); distinct plan values
  // live in one step never overlap, nor do allocations.
  auto mayAlias = [&](Value a, Value b) {
    if (a == b)
      return true;
    auto argA = dyn_cast<BlockArgument>(a), argB = dyn_cast<BlockArgument>(b);
    if (!argA || !argB)
      return !(isa_and_present<memref::AllocOp, memref::AllocaOp>(
                   a.getDefiningOp()) ||
               isa_and_present<memref::AllocOp, memref::AllocaOp>(
                   b.getDefiningOp()));
    const LaunchArg &x = argValues[argA.getArgNumber()];
    const LaunchArg &y = argValues[argB.getArgNumber()];
    return x.kind != LaunchArg::Kind::Pointer ||
           y.kind != LaunchArg::Kind::Pointer ||
           plan.root(x.index) == plan.root(y.index);
  };
  for (gpu::LaunchOp launch : launches)
    sinkIntoLaunch(launch, mayAlias);
  // What the launches took in is dead on the host now: loads included.
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(entry)))
    if (op.use_empty() && !op.getNumRegions() &&
        !op.hasTrait<OpTrait::IsTerminator>() &&
        (isMemoryEffectFree(&op) || isa<memref::LoadOp>(op)))
      op.erase();

  WalkResult result = func.walk([&](gpu::LaunchOp launch) {
    SetVector<Value> captured;
    getUsedValuesDefinedAbove(launch.getBody(), captured);
    for (Value value : captured)
      if (!isa<BlockArgument>(value) ||
          cast<BlockArgument>(value).getOwner() != &entry) {
        launch.emitError() << "kernel launch of step '" << step.name
                           << "' uses a host value it cannot compute: "
                           << value;
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

FailureOr<std::vector<Launch>>
cuda::collectLaunches(func::FuncOp func, plan::PlanExtender &plan,
                      ArrayRef<LaunchArg> argValues,
                      const llvm::StringMap<unsigned> &moduleIndex) {
  std::vector<Launch> launches;
  auto exprOf = [&](Value v) -> FailureOr<unsigned> {
    FailureOr<AffineExpr> e = toExpr(v, argValues, plan);
    if (failed(e))
      return failure();
    return plan.addExpr(
        simplifyAffineExpr(*e, 0, plan.getPlan().symbols.size()));
  };
  for (Operation &op : func.getBody().front()) {
    if (isa<func::ReturnOp>(op) || isMemoryEffectFree(&op))
      continue;
    auto launchFunc = dyn_cast<gpu::LaunchFuncOp>(op);
    if (!launchFunc)
      return op.emitError() << "kernel step '" << func.getSymName()
                            << "' keeps host work the CUDA runtime cannot "
                               "run: "
                            << op.getName();
    Launch launch;
    auto module = moduleIndex.find(launchFunc.getKernelModuleName());
    if (module == moduleIndex.end())
      return op.emitError("a launch of an unknown kernel module");
    launch.module = module->second;
    gpu::KernelDim3 grid = launchFunc.getGridSizeOperandValues();
    gpu::KernelDim3 block = launchFunc.getBlockSizeOperandValues();
    Value sizes[6] = {grid.x, grid.y, grid.z, block.x, block.y, block.z};
    for (int i = 0; i < 6; ++i) {
      FailureOr<unsigned> e = exprOf(sizes[i]);
      if (failed(e))
        return op.emitError("a launch size is not an expression of the "
                            "symbols");
      (i < 3 ? launch.grid[i] : launch.block[i - 3]) = *e;
    }
    if (Value shared = launchFunc.getDynamicSharedMemorySize()) {
      FailureOr<AffineExpr> bytes = toExpr(shared, argValues, plan);
      auto constant = succeeded(bytes) ? dyn_cast<AffineConstantExpr>(*bytes)
                                       : AffineConstantExpr();
      if (!constant || constant.getValue() != 0)
        return op.emitError("dynamic shared memory is not supported yet");
    }
    for (Value operand : launchFunc.getKernelOperands()) {
      if (auto arg = dyn_cast<BlockArgument>(operand)) {
        launch.args.push_back(argValues[arg.getArgNumber()]);
        continue;
      }
      FailureOr<unsigned> e = exprOf(operand);
      if (!operand.getType().isIntOrIndex() || failed(e))
        return op.emitError() << "a kernel argument of type "
                              << operand.getType()
                              << " is neither a buffer nor an expression of "
                                 "the symbols";
      launch.args.push_back({LaunchArg::Kind::Int64, *e});
    }
    launches.push_back(std::move(launch));
  }
  return launches;
}
