//===- Plan.cpp - from a fused graph to steps, buffers and an arena -------===//

#include "compiler/plan/Planning.h"

#include "dialects/tsc/IR/SymbolicShape.h"
#include "dialects/tsc/IR/TscOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::plan;
using namespace mlir::tsc::plan::planner;

namespace {

/// Builds one plan; the methods fail after emitting an error on the op at
/// fault.
class Planner {
public:
  Planner(func::FuncOp func, const PlanOptions &options)
      : func(func), options(options), shapes(func) {}

  FailureOr<Plan> run();

private:
  unsigned exprId(AffineExpr expr);
  FailureOr<unsigned> addValue(Value v, Storage storage, Operation *at);
  LogicalResult addWeight(ConstantOp op);
  LogicalResult addStep(Operation *op);
  LogicalResult planOp(Operation *op);
  bool tryJoinLastKernel(Operation *op, bool horizontal = false);
  void finalizeKernel(PlanStep &step);
  void dropDeadValues();
  bool tryGemm(Operation *op);
  bool canAccumulateInPlace(unsigned v, Operation *op);
  AffineExpr product(ArrayRef<unsigned> dims);
  LogicalResult addOutputs(func::ReturnOp ret);
  unsigned root(unsigned v) const { return plan.root(v); }
  /// The last step's index while it is a kernel that ops can still join.
  std::optional<unsigned> openGroup() const;

  func::FuncOp func;
  const PlanOptions &options;
  SymbolicShapes shapes;
  Plan plan;
  /// The step that defines each value, for the arena's lifetimes.
  DenseMap<unsigned, unsigned> definingStep;
  /// Values that became internal to a fused kernel: no buffer.
  DenseSet<unsigned> dead;
  /// Kernel steps that more than one op joined.
  DenseSet<unsigned> fusedSteps;
  /// Steps made so far (kernel names stay unique when steps move).
  unsigned stepsCreated = 0;
  /// Linear ops in int8 form (tsc-quantize-dynamic/static-int8) and the
  /// ops computing their quantized operands, which the int8 GEMM steps do
  /// themselves (planned as nothing).
  DenseMap<Operation *, planner::Int8Gemm> int8Gemms;
  DenseSet<Operation *> absorbed;
  /// The values the int8 GEMM steps read as A. A step reads its A through
  /// ops it computes itself, which are not its users in the IR: a fusion
  /// group computing A keeps its buffer for the step even when every user
  /// of A is in the group (a QDQ pair shared by the GEMM and an add, both
  /// chained into A's kernel).
  DenseSet<Value> int8Inputs;
};

unsigned Planner::exprId(AffineExpr expr) { return plan.addExpr(expr); }

FailureOr<unsigned> Planner::addValue(Value v, Storage storage,
                                      Operation *at) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type)
    return at->emitError() << "the host target needs ranked tensors, got "
                           << v.getType();
  FailureOr<DType> dtype = getDType(type.getElementType());
  if (failed(dtype))
    return at->emitError() << "element type " << type.getElementType()
                           << " has no host runtime representation yet";
  std::optional<SmallVector<AffineExpr>> shape = shapes.getShape(v);
  std::optional<SmallVector<int64_t>> maxShape = shapes.getMaxShape(v);
  if (!shape || !maxShape)
    return at->emitError() << "a dynamic dim of " << type
                           << " is not bound to the symbols";
  PlanValue value;
  value.value = v;
  value.dtype = *dtype;
  value.storage = storage;
  for (AffineExpr expr : *shape)
    value.dims.push_back(exprId(expr));
  // Refused here rather than written into an artifact the runtime refuses.
  std::optional<uint64_t> bytes = planner::maxByteSize(*maxShape, *dtype);
  if (!bytes) {
    auto arg = dyn_cast_or_null<BlockArgument>(v);
    auto name =
        arg ? func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "tsc.name")
            : StringAttr();
    return at->emitError()
           << (name ? "graph input '" + name.str() + "'" : "a value")
           << " of type " << type
           << " would take 2^63 bytes or more at the symbols' maxima; bound "
              "the symbols its dims are made of";
  }
  value.byteSize = *bytes;
  unsigned index = plan.values.size();
  plan.values.push_back(value);
  if (v)
    plan.valueIndex[v] = index;
  return index;
}

LogicalResult Planner::addWeight(ConstantOp op) {
  FailureOr<unsigned> index = addValue(op.getResult(), Storage::Weight, op);
  if (failed(index))
    return failure();
  PlanValue &value = plan.values[*index];
  plan.weightBytes = llvm::alignTo(plan.weightBytes, kAlignment);
  value.offset = plan.weightBytes;
  Attribute attr = op.getValue();
  auto type = cast<RankedTensorType>(op.getType());
  uint64_t bytes = 0;
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    uint64_t count = type.getNumElements();
    if (type.getElementType().isInteger(1))
      bytes = count;
    else if (planner::isPackedType(type.getElementType()))
      bytes = planner::packedBytes(dense).size();
    else if (dense.isSplat())
      bytes = count * dense.getRawData().size();
    else
      bytes = dense.getRawData().size();
  } else if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return op.emitError() << "the data of weight '"
                            << resource.getRawHandle().getKey()
                            << "' is missing (elided when printed?)";
    bytes = blob->getData().size();
  } else {
    return op.emitError() << "unsupported constant attribute " << attr;
  }
  if (bytes != value.byteSize)
    return op.emitError() << "weight holds " << bytes << " bytes, its type "
                          << type << " needs " << value.byteSize;
  plan.weights.push_back({cast<ElementsAttr>(attr), value.offset, bytes});
  plan.weightBytes += bytes;
  return success();
}

AffineExpr Planner::product(ArrayRef<unsigned> dims) {
  AffineExpr result = getAffineConstantExpr(1, func.getContext());
  for (unsigned d : dims)
    result = result * plan.exprs[d];
  return result;
}

/// Whether a step at `op` may overwrite the storage of `v`: an arena value
/// that no op after `op` reads, through `v` or any view sharing its storage.
bool Planner::canAccumulateInPlace(unsigned v, Operation *op) {
  unsigned base = root(v);
  if (plan.values[base].storage != Storage::Arena ||
      !definingStep.count(base))
    return false;
  for (auto [i, value] : llvm::enumerate(plan.values)) {
    if (!value.value || root(i) != base)
      continue;
    for (Operation *user : value.value.getUsers())
      if (user != op && !isa<BindShapeOp>(user) &&
          (user->getBlock() != op->getBlock() || op->isBeforeInBlock(user)))
        return false;
  }
  return true;
}

/// matmul/linear in fp32, fp16 or bf16 (all operands alike) whose operands
/// are plain row-major matrices (or batches of them) go to the GEMM library.
bool Planner::tryGemm(Operation *op) {
  if (!options.useGemmLibrary)
    return false;
  Type element =
      cast<RankedTensorType>(op->getResult(0).getType()).getElementType();
  std::optional<planner::GemmOperands> operands =
      planner::gemmOperands(op, int8Gemms);
  if (!operands)
    return false;
  auto [lhs, rhs, bias, residual, weightScale, weightZeroPoint, inputMultiplier,
        inputScale, inputZeroPoint, transB, weightOnly, bf16Inputs, inputRange,
        integer, groupSize, activation] = *operands;
  // Float GEMMs, and s8 · s8 -> s32 and f8 · f8 -> f32 ones found by
  // findIntegerGemms.
  Type operandElement =
      integer ? cast<RankedTensorType>(lhs.getType()).getElementType()
              : element;
  if (integer ? !(operandElement.isSignlessInteger(8) &&
                  element.isSignlessInteger(32)) &&
                    !(isa<Float8E4M3FNType>(operandElement) && element.isF32())
              : !element.isF32() && !element.isF16() && !element.isBF16())
    return false;
  auto alike = [&](Value v) {
    return cast<RankedTensorType>(v.getType()).getElementType() ==
           operandElement;
  };
  auto idx = [&](Value v) { return plan.lookup(v); };
  Value result = op->getResult(0);
  if (!alike(lhs) || !(weightScale || alike(rhs)) || !idx(lhs) || !idx(rhs) ||
      (weightScale && !idx(weightScale)) ||
      (weightZeroPoint && !idx(weightZeroPoint)) ||
      (inputMultiplier && !idx(inputMultiplier)) ||
      (bias && (!idx(bias) || !alike(bias))) ||
      (residual && (!idx(residual) || !alike(residual))))
    return false;
  int64_t lhsRank = cast<RankedTensorType>(lhs.getType()).getRank();
  int64_t rhsRank = cast<RankedTensorType>(rhs.getType()).getRank();
  const PlanValue &a = plan.values[*idx(lhs)];
  const PlanValue &b = plan.values[*idx(rhs)];
  if (lhsRank < 2 || rhsRank < 2)
    return false;
  MLIRContext *context = func.getContext();
  AffineExpr one = getAffineConstantExpr(1, context);
  AffineExpr zero = getAffineConstantExpr(0, context);
  PlanStep step;
  step.kind = PlanStep::Kind::Gemm;
  step.transB = transB;
  AffineExpr m, n, k, batch = one, strideA = zero, strideB = zero,
                      strideC = zero;
  k = plan.exprs[a.dims.back()];
  n = plan.exprs[transB ? b.dims[0] : b.dims.back()];
  if (rhsRank == 2) {
    // Leading dims of the lhs fold into M.
    m = product(ArrayRef<unsigned>(a.dims).drop_back());
  } else {
    // Batched: the same batch dims on both sides.
    if (lhsRank != rhsRank || transB)
      return false;
    ArrayRef<unsigned> batchA = ArrayRef<unsigned>(a.dims).drop_back(2);
    ArrayRef<unsigned> batchB = ArrayRef<unsigned>(b.dims).drop_back(2);
    if (batchA != batchB)
      return false;
    batch = product(batchA);
    m = plan.exprs[a.dims[lhsRank - 2]];
    strideA = m * k;
    strideB = k * n;
    strideC = m * n;
  }
  FailureOr<unsigned> c = addValue(result, Storage::Arena, op);
  if (failed(c))
    return false;
  step.a = *idx(lhs);
  step.b = *idx(rhs);
  step.c = *c;
  step.bias = bias ? *idx(bias) : ~0u;
  step.weightScale = weightScale ? *idx(weightScale) : ~0u;
  step.weightZeroPoint = weightZeroPoint ? *idx(weightZeroPoint) : ~0u;
  step.inputScale = inputScale;
  step.inputZeroPoint = inputZeroPoint;
  step.inputMultiplier = inputMultiplier ? *idx(inputMultiplier) : ~0u;
  step.inputRange = inputRange;
  step.weightOnly = weightOnly;
  step.groupSize = groupSize;
  step.bf16Inputs = bf16Inputs;
  step.activation = activation;
  if (residual) {
    // C = A·B + R: with beta = 1 the library accumulates onto R, in place
    // when nothing reads R afterwards.
    step.residual = *idx(residual);
    step.beta = 1.0f;
    if (canAccumulateInPlace(step.residual, op)) {
      plan.values[*c].storage = Storage::View;
      plan.values[*c].base = root(step.residual);
    }
  }
  step.batch = exprId(batch);
  step.m = exprId(m);
  step.n = exprId(n);
  step.k = exprId(k);
  step.lda = exprId(k);
  step.ldb = exprId(transB ? k : n);
  step.ldc = exprId(n);
  step.strideA = exprId(strideA);
  step.strideB = exprId(strideB);
  step.strideC = exprId(strideC);
  step.ops.push_back(op);
  definingStep[*c] = plan.steps.size();
  plan.steps.push_back(step);
  ++stepsCreated;
  return true;
}

std::optional<unsigned> Planner::openGroup() const {
  if (plan.steps.empty())
    return std::nullopt;
  const PlanStep &last = plan.steps.back();
  if (last.kind != PlanStep::Kind::Kernel ||
      !llvm::all_of(last.ops, [&](Operation *op) { return isFusible(op); }) ||
      llvm::any_of(last.ops, isReadBySymbol))
    return std::nullopt;
  return plan.steps.size() - 1;
}

/// Plans `op`. An op that does not read the last step while that is a
/// fusion group still able to grow (a mask or table computed between a
/// split projection and its attention, say) joins the group if it is
/// fusible (horizontal fusion: one kernel instead of two) and is planned
/// before the group otherwise; the group stays last and open for what
/// follows.
LogicalResult Planner::addStep(Operation *op) {
  std::optional<unsigned> open = openGroup();
  if (!options.fuseKernels || isViewOp(op) || !open)
    return planOp(op);
  unsigned openIndex = *open;
  for (Value operand : op->getOperands()) {
    if (!isa<TensorType>(operand.getType()))
      continue;
    std::optional<unsigned> index = plan.lookup(operand);
    if (!index)
      return planOp(op); // planOp reports it
    auto it = definingStep.find(root(*index));
    if (it != definingStep.end() && it->second == openIndex)
      return planOp(op);
  }
  if (isFusible(op) && tryJoinLastKernel(op, /*horizontal=*/true))
    return success();
  SmallVector<unsigned> openValues;
  for (auto &[value, step] : definingStep)
    if (step == openIndex)
      openValues.push_back(value);
  PlanStep group = std::move(plan.steps.back());
  plan.steps.pop_back();
  bool fused = fusedSteps.erase(openIndex);
  for (unsigned v : openValues)
    definingStep.erase(v);
  LogicalResult planned = planOp(op);
  unsigned moved = plan.steps.size();
  for (unsigned v : openValues)
    definingStep[v] = moved;
  if (fused)
    fusedSteps.insert(moved);
  plan.steps.push_back(std::move(group));
  return planned;
}

LogicalResult Planner::planOp(Operation *op) {
  // Reshapes of dense row-major data are views.
  if (isViewOp(op)) {
    std::optional<unsigned> base = plan.lookup(op->getOperand(0));
    if (!base)
      return op->emitError() << "operand has no buffer";
    FailureOr<unsigned> view = addValue(op->getResult(0), Storage::View, op);
    if (failed(view))
      return failure();
    plan.values[*view].base = root(*base);
    return success();
  }
  if (tryGemm(op))
    return success();
  if (options.fuseKernels && tryJoinLastKernel(op))
    return success();
  PlanStep step;
  step.kind = PlanStep::Kind::Kernel;
  // The op in the name makes profiles and symbol tables readable.
  step.name = "tsc_kernel_" + std::to_string(stepsCreated++) + "_" +
              op->getName().stripDialect().str();
  step.ops.push_back(op);
  for (Value operand : op->getOperands()) {
    if (!isa<TensorType>(operand.getType()))
      continue;
    std::optional<unsigned> index = plan.lookup(operand);
    if (!index)
      return op->emitError() << "an operand is produced by '"
                             << operand.getDefiningOp()->getName()
                             << "', which the host target does not support";
    if (!llvm::is_contained(step.buffers, *index))
      step.buffers.push_back(*index);
  }
  for (Value result : op->getResults()) {
    FailureOr<unsigned> index = addValue(result, Storage::Arena, op);
    if (failed(index))
      return failure();
    step.buffers.push_back(*index);
    definingStep[*index] = plan.steps.size();
  }
  plan.steps.push_back(step);
  return success();
}

/// Appends `op` to the last step when that is a kernel of fusible ops that
/// produces one of `op`'s operands (directly or through reshapes, which
/// join with it): `op` is fusible, or attention, which ends the group (its
/// Q/K/V split and rotary prologue then run in the same kernel).
/// With `horizontal`, `op` joins without reading the kernel's values.
/// finalizeKernel later keeps buffers only for what is read outside.
bool Planner::tryJoinLastKernel(Operation *op, bool horizontal) {
  std::optional<unsigned> open = openGroup();
  if ((!isFusible(op) && !isa<AttentionOp>(op)) || !open)
    return false;
  PlanStep &last = plan.steps[*open];
  // The reshapes between the kernel's values and `op`, outermost first.
  SmallVector<Operation *> views;
  bool joins = false;
  for (Value operand : op->getOperands()) {
    SmallVector<Operation *> chain;
    Value v = operand;
    while (isViewOp(v.getDefiningOp()) &&
           !llvm::is_contained(last.ops, v.getDefiningOp())) {
      chain.push_back(v.getDefiningOp());
      v = v.getDefiningOp()->getOperand(0);
    }
    if (!llvm::is_contained(last.ops, v.getDefiningOp()))
      continue;
    joins = true;
    for (Operation *view : llvm::reverse(chain))
      if (!llvm::is_contained(views, view))
        views.push_back(view);
  }
  if (!joins && !horizontal)
    return false;
  // Device kernels take views of their buffers only: a reshape of a value
  // the kernel computes (the heads of an int8 GEMM's dequantized Q/K/V,
  // say) has no address a launch can pass. Such a reshape stays a view of
  // the kernel's result, and what reads it starts a kernel of its own.
  auto reshapesComputed = [&](Operation *view) {
    if (!isViewOp(view) || onlyUnitDimsChange(view))
      return false;
    Value v = view->getOperand(0);
    while (Operation *def = v.getDefiningOp()) {
      if (!llvm::is_contained(last.ops, def))
        return false;
      if (!isViewOp(def) && !isa<SplitOp>(def))
        return true;
      v = def->getOperand(0);
    }
    return false;
  };
  if (options.deviceKernels &&
      (llvm::any_of(views, reshapesComputed) ||
       (isa<AttentionOp>(op) && llvm::any_of(last.ops, reshapesComputed))))
    return false;
  for (Value operand : op->getOperands())
    if (isa<TensorType>(operand.getType()) && !plan.lookup(operand))
      return false;
  SmallVector<unsigned> results;
  for (Value result : op->getResults()) {
    FailureOr<unsigned> index = addValue(result, Storage::Arena, op);
    if (failed(index))
      return false;
    results.push_back(*index);
  }
  for (unsigned index : results)
    definingStep[index] = *open;
  llvm::append_range(last.ops, views);
  last.ops.push_back(op);
  last.name += "_" + op->getName().stripDialect().str();
  fusedSteps.insert(*open);
  return true;
}

/// Sets a fused kernel's buffers: the values it reads from outside, then the
/// values it produces that something outside reads (directly or through a
/// reshape). The others live only inside the kernel and need no storage.
void Planner::finalizeKernel(PlanStep &step) {
  DenseSet<Operation *> inside(step.ops.begin(), step.ops.end());
  std::function<bool(Value)> readOutside = [&](Value v) {
    if (int8Inputs.contains(v))
      return true;
    for (Operation *user : v.getUsers()) {
      if (isa<BindShapeOp>(user))
        continue;
      if (!inside.contains(user))
        return true;
      if (isViewOp(user) && readOutside(user->getResult(0)))
        return true;
    }
    return false;
  };
  SmallVector<unsigned> inputs, outputs;
  for (Operation *op : step.ops) {
    for (Value operand : op->getOperands()) {
      if (!isa<TensorType>(operand.getType()) ||
          inside.contains(operand.getDefiningOp()))
        continue;
      unsigned index = *plan.lookup(operand);
      if (!llvm::is_contained(inputs, index))
        inputs.push_back(index);
    }
  }
  for (Operation *op : step.ops) {
    for (Value result : op->getResults()) {
      std::optional<unsigned> index = plan.lookup(result);
      if (!index)
        continue;
      if (isViewOp(op)) {
        // The view's storage is its base's; it is dead with it.
        if (!readOutside(result))
          dead.insert(*index);
        continue;
      }
      if (readOutside(result)) {
        outputs.push_back(*index);
        continue;
      }
      dead.insert(*index);
      definingStep.erase(*index);
    }
  }
  step.buffers = inputs;
  llvm::append_range(step.buffers, outputs);
}

/// Renumbers the values without the ones fusion made internal.
void Planner::dropDeadValues() {
  if (dead.empty())
    return;
  std::vector<unsigned> remap(plan.values.size(), ~0u);
  std::vector<PlanValue> kept;
  for (auto [i, value] : llvm::enumerate(plan.values)) {
    if (dead.contains(i))
      continue;
    remap[i] = kept.size();
    kept.push_back(value);
  }
  auto fix = [&](unsigned &v) {
    if (v != ~0u)
      v = remap[v];
  };
  for (PlanValue &value : kept)
    if (value.storage == Storage::View)
      fix(value.base);
  for (PlanStep &step : plan.steps) {
    for (unsigned &b : step.buffers)
      fix(b);
    if (step.kind == PlanStep::Kind::Gemm) {
      fix(step.a);
      fix(step.b);
      fix(step.c);
      fix(step.bias);
      fix(step.residual);
      fix(step.weightScale);
      fix(step.weightZeroPoint);
    } else if (step.kind == PlanStep::Kind::Copy) {
      fix(step.source);
      fix(step.destination);
    }
  }
  for (auto *list : {&plan.inputs, &plan.outputs})
    for (auto &entry : *list)
      fix(entry.second);
  SmallVector<Value> gone;
  for (auto &entry : plan.valueIndex) {
    fix(entry.second);
    if (entry.second == ~0u)
      gone.push_back(entry.first);
  }
  for (Value v : gone)
    plan.valueIndex.erase(v);
  plan.values = std::move(kept);
}

LogicalResult Planner::addOutputs(func::ReturnOp ret) {
  for (auto [i, operand] : llvm::enumerate(ret.getOperands())) {
    auto name = func.getResultAttrOfType<StringAttr>(i, "tsc.name");
    std::string outputName = name ? name.str() : "output" + std::to_string(i);
    std::optional<unsigned> index = plan.lookup(operand);
    if (!index)
      return ret.emitError() << "output '" << outputName << "' has no buffer";
    PlanValue &value = plan.values[*index];
    unsigned base = root(*index);
    bool producedHere = plan.values[base].storage == Storage::Arena &&
                        definingStep.count(base);
    if (producedHere) {
      // The step writes straight into the output; a returned reshape makes
      // its base a view of the output instead.
      if (base != *index) {
        plan.values[base].storage = Storage::View;
        plan.values[base].base = *index;
      }
      value.storage = Storage::Output;
      value.index = plan.outputs.size();
      plan.outputs.emplace_back(outputName, *index);
      continue;
    }
    // Inputs, weights, views and values already returned are copied.
    PlanValue copy = value;
    copy.value = Value();
    copy.storage = Storage::Output;
    copy.index = plan.outputs.size();
    unsigned copyIndex = plan.values.size();
    plan.values.push_back(copy);
    PlanStep step;
    step.kind = PlanStep::Kind::Copy;
    step.source = *index;
    step.destination = copyIndex;
    plan.steps.push_back(step);
    plan.outputs.emplace_back(outputName, copyIndex);
  }
  return success();
}

FailureOr<Plan> Planner::run() {
  plan.precision = options.precision;
  plan.gemmTf32 = options.precision == Precision::TF32;
  plan.halfIO = options.halfIO;
  // The definitions of symbols bound from data are encoded once the values
  // they read have their places.
  for (SymbolOp symbol : shapes.getSymbols()) {
    PlanSymbol &s = plan.symbols.emplace_back();
    s.name = symbol.getSymbol().str();
    s.min = symbol.getLowest();
    s.max = symbol.getHighest();
  }
  // Inputs.
  for (BlockArgument arg : func.getArguments()) {
    auto name = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "tsc.name");
    std::string inputName =
        name ? name.str() : "input" + std::to_string(arg.getArgNumber());
    FailureOr<unsigned> index = addValue(arg, Storage::Input, func);
    if (failed(index))
      return failure();
    plan.values[*index].index = plan.inputs.size();
    plan.inputs.emplace_back(inputName, *index);
  }
  // Every symbol must be read off some input dim.
  llvm::SmallBitVector bound(plan.symbols.size());
  for (auto &input : plan.inputs)
    for (unsigned d : plan.values[input.second].dims)
      if (auto sym = dyn_cast<AffineSymbolExpr>(plan.exprs[d]))
        bound.set(sym.getPosition());
  for (auto [i, symbol] : llvm::enumerate(plan.symbols))
    if (!bound.test(i) && !SymbolOp(shapes.getSymbols()[i]).isBoundFromData())
      return func.emitError() << "symbol '" << symbol.name
                              << "' is not the size of any input dim, so a "
                                 "run cannot determine it";

  if (options.useGemmLibrary) {
    int8Gemms = planner::findInt8Gemms(func, options.hostGemmForms);
    if (options.integerGemms)
      planner::findIntegerGemms(func, int8Gemms);
    for (auto &entry : int8Gemms) {
      absorbed.insert(entry.second.absorbed.begin(),
                      entry.second.absorbed.end());
      int8Inputs.insert(entry.second.input);
    }
  }
  for (Operation &op : func.getBody().front()) {
    // Computed inside the int8 GEMM steps.
    if (absorbed.contains(&op))
      continue;
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      if (failed(addOutputs(ret)))
        return failure();
      continue;
    }
    if (auto constant = dyn_cast<ConstantOp>(op)) {
      if (failed(addWeight(constant)))
        return failure();
      continue;
    }
    // Declarations and scalar (index) arithmetic are evaluated inside the
    // kernels that use them.
    if (isa<SymbolOp, BindShapeOp, NoneOp>(op) ||
        llvm::none_of(op.getResultTypes(),
                      [](Type t) { return isa<TensorType>(t); }))
      continue;
    if (failed(addStep(&op)))
      return failure();
  }
  for (unsigned s : fusedSteps)
    finalizeKernel(plan.steps[s]);
  FailureOr<DenseMap<Value, unsigned>> sourceSteps =
      planner::findSymbolSourceSteps(shapes, plan, definingStep);
  if (failed(sourceSteps))
    return failure();
  dropDeadValues();
  planner::assignArena(plan);
  if (failed(planner::defineDataSymbols(shapes, plan, *sourceSteps)) ||
      failed(planner::checkSymbolsDefinedBeforeUse(func, shapes, plan)))
    return failure();
  return std::move(plan);
}

} // namespace

FailureOr<Plan> plan::buildPlan(func::FuncOp func, const PlanOptions &options) {
  return Planner(func, options).run();
}
