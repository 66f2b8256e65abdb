//===- ReducePrecision.cpp - float tensors stored in fp16 or bf16 ---------===//
//
// `--precision=fp16|bf16`: each op that computes correctly on half-precision
// storage gets half operands and results, with tsc.cast ops where a value
// crosses between such an op and one that keeps f32. The canonicalizer that
// follows folds cast pairs that undo each other and converts the weights.
//
//===----------------------------------------------------------------------===//

#include "dialects/tsc/IR/TscOps.h"
#include "passes/Passes.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::tsc {
#define GEN_PASS_DEF_REDUCEPRECISIONPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tsc

using namespace mlir;
using namespace mlir::tsc;

namespace {

/// Ops whose lowering reads and writes half tensors correctly: math in f32
/// per element, f32 accumulators for products, sums and statistics. Absent:
/// exp, log, pow and reduce_sum, whose results may leave the half range
/// (PyTorch's autocast keeps them in f32 too), quantization (its own number
/// formats), and ops without float data (shapes, symbols, ranges, bindings).
bool computesOnHalf(Operation *op) {
  if (auto cast = dyn_cast<CastOp>(op))
    // A float-to-integer cast reads f32: integers past 2048 (positions)
    // would not survive f16.
    return isa<FloatType>(cast.getType().getElementType());
  return isa<NegOp, AbsOp, SqrtOp, RsqrtOp, ReciprocalOp, TanhOp, ErfOp,
             SigmoidOp, ReluOp, SiluOp, SinOp, CosOp, GeluOp, ClipOp, AddOp,
             SubOp, MulOp, DivOp, MaxOp, MinOp, EqualOp, LessOp, GreaterOp,
             WhereOp, MatmulOp, LinearOp, ReduceMeanOp, ReduceMaxOp,
             ReduceMinOp, SoftmaxOp, LogSoftmaxOp, LayerNormOp, RmsNormOp,
             AttentionOp, ReshapeOp, TransposeOp, ExpandOp, ConcatOp, SliceOp,
             SplitOp, GatherOp, SqueezeOp, UnsqueezeOp, TriluOp>(op);
}

/// `type` with `half` for its element type if it is an f32 tensor.
std::optional<RankedTensorType> halved(Type type, Type half) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.getElementType().isF32())
    return std::nullopt;
  return tensor.clone(half);
}

struct ReducePrecisionPass
    : public tsc::impl::ReducePrecisionPassBase<ReducePrecisionPass> {
  using Base::Base;

  /// `value` in half precision: a half constant for a constant (converted
  /// once, saturating), else a cast.
  Value halfOperand(OpBuilder &b, Value value, RankedTensorType type) {
    auto constant = value.getDefiningOp<ConstantOp>();
    if (!constant)
      return CastOp::create(b, value.getLoc(), type, value);
    Value &converted = constants[value];
    if (!converted) {
      // Finite values saturate: a mask's -3.4e38 must stay finite, or
      // `0 · mask` becomes NaN (ONNX Runtime's and TensorRT's converters
      // clamp too).
      Attribute attr =
          convertFloatConstant(constant.getValue(), type, /*saturate=*/true);
      if (!attr)
        return CastOp::create(b, value.getLoc(), type, value);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointAfter(constant);
      converted = ConstantOp::create(b, constant.getLoc(), type,
                                     cast<ElementsAttr>(attr));
    }
    return converted;
  }

  DenseMap<Value, Value> constants;

  void runOnOperation() override {
    constants.clear();
    func::FuncOp func = getOperation();
    MLIRContext *context = &getContext();
    Type half;
    if (type == "f16")
      half = Float16Type::get(context);
    else if (type == "bf16")
      half = BFloat16Type::get(context);
    if (!half) {
      func.emitError() << "tsc-reduce-precision: type '" << type
                       << "', expected f16 or bf16";
      return signalPassFailure();
    }
    Dialect *tscDialect = context->getLoadedDialect<TscDialect>();
    SmallVector<Operation *> ops;
    func.walk([&](Operation *op) {
      if (op->getDialect() == tscDialect && computesOnHalf(op))
        ops.push_back(op);
    });
    llvm::SmallPtrSet<Operation *, 32> onHalf(ops.begin(), ops.end());
    OpBuilder b(context);
    // In order, so that each op sees its producers' new types.
    for (Operation *op : ops) {
      // Operands: half copies of f32 values (CSE merges repeated ones; a
      // copy of a cast from half folds away).
      b.setInsertionPoint(op);
      for (OpOperand &operand : op->getOpOperands())
        if (std::optional<RankedTensorType> t =
                halved(operand.get().getType(), half))
          operand.set(halfOperand(b, operand.get(), *t));
      // Results: half, and an f32 copy for users that keep f32.
      b.setInsertionPointAfter(op);
      for (OpResult result : op->getResults()) {
        std::optional<RankedTensorType> t = halved(result.getType(), half);
        if (!t)
          continue;
        Type wide = result.getType();
        result.setType(*t);
        auto back = CastOp::create(b, op->getLoc(), wide, result);
        result.replaceUsesWithIf(back, [&](OpOperand &use) {
          Operation *user = use.getOwner();
          return user != back.getOperation() && !isa<BindShapeOp>(user) &&
                 !onHalf.contains(user);
        });
        if (back->use_empty())
          back->erase();
      }
    }
    if (convertIO)
      convertSignature(func, half);
  }

  /// The function's f32 arguments and results become half: arguments with
  /// an f32 copy for their users (whose half casts of it then fold away),
  /// results cast to half before the return (folding with casts from half).
  void convertSignature(func::FuncOp func, Type half) {
    OpBuilder b = OpBuilder::atBlockBegin(&func.getBody().front());
    SmallVector<Type> inputs(func.getArgumentTypes());
    SmallVector<Type> results(func.getResultTypes());
    for (BlockArgument arg : func.getArguments()) {
      std::optional<RankedTensorType> t = halved(arg.getType(), half);
      if (!t)
        continue;
      auto wide = CastOp::create(b, arg.getLoc(), arg.getType(), arg);
      arg.replaceUsesWithIf(wide, [&](OpOperand &use) {
        return use.getOwner() != wide.getOperation() &&
               !isa<BindShapeOp>(use.getOwner());
      });
      arg.setType(*t);
      inputs[arg.getArgNumber()] = *t;
    }
    Operation *ret = func.getBody().back().getTerminator();
    b.setInsertionPoint(ret);
    for (OpOperand &operand : ret->getOpOperands())
      if (std::optional<RankedTensorType> t =
              halved(operand.get().getType(), half)) {
        operand.set(CastOp::create(b, ret->getLoc(), *t, operand.get()));
        results[operand.getOperandNumber()] = *t;
      }
    func.setType(FunctionType::get(func.getContext(), inputs, results));
  }
};

} // namespace
