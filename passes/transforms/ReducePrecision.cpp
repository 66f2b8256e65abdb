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
#include "passes/transforms/Weights.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::tsc {
#define GEN_PASS_DEF_REDUCEPRECISIONPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tsc

using namespace mlir;
using namespace mlir::tsc;

namespace {

/// Ops whose results may leave the half range; PyTorch's autocast keeps
/// them in f32 too.
bool keptForRange(Operation *op) {
  return op->hasTrait<OpTrait::tsc::KeepsF32ForRange>();
}

/// Ops whose results stay within their inputs' values (data movement, mean,
/// max, min): they take their operands' precision rather than set one.
bool follows(Operation *op) {
  return op->hasTrait<OpTrait::tsc::FollowsPrecision>();
}

/// Ops whose results are always bounded or normalized, or that must use the
/// half inputs of their library call: they compute on half even next to f32.
bool alwaysHalf(Operation *op) {
  return op->hasTrait<OpTrait::tsc::AlwaysHalf>();
}

/// Ops whose lowering reads and writes half tensors correctly: math in f32
/// per element, f32 accumulators for products, sums and statistics. Absent:
/// exp, log, pow and reduce_sum (keptForRange), quantization (its own number
/// formats), and ops without float data (shapes, symbols, bindings).
bool computesOnHalf(Operation *op) {
  if (auto cast = dyn_cast<CastOp>(op))
    // Float to float only. A float-to-integer cast reads f32: integers past
    // 2048 would not survive f16. An integer-to-float cast makes positions.
    return isa<FloatType>(cast.getType().getElementType()) &&
           isa<FloatType>(cast.getInput().getType().getElementType());
  return op->hasTrait<OpTrait::tsc::HalfCompute>() || follows(op) ||
         alwaysHalf(op);
}

/// What an f32 value is, for the decisions below.
enum class Kind {
  /// Model data in f32 (function arguments, results of other dialects'
  /// ops): half where a half op reads it.
  Data,
  /// A constant: converted (saturating) where a half op reads it.
  Constant,
  /// Kept f32 for its range (exp, log, pow, reduce_sum and what computes
  /// elementwise from them): ops reading it stay f32 too (autocast's
  /// promotion), but for alwaysHalf ones.
  Range,
  /// Computed only from integers and constants (rotary angles and their
  /// sin/cos, position biases, masks): stays f32, as Hugging Face keeps
  /// rotary embeddings; an angle of 2000 has a spacing of 1 in f16, and
  /// bf16 keeps integers exact only to 256. Half where data meets it.
  Position,
  /// Converted to half.
  Half,
};

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
    // Finite values saturate, at compile time for constants, else at run
    // time: a mask's -3.4e38 must stay finite, or `0 · mask` becomes NaN and
    // a row whose keys are all masked averages nothing (ONNX Runtime's and
    // TensorRT's converters clamp too).
    auto constant = value.getDefiningOp<ConstantOp>();
    if (!constant)
      return CastOp::create(b, value.getLoc(), type, value,
                            /*saturate=*/true, ExponentRoundingAttr());
    Value &converted = constants[value];
    if (!converted) {
      Attribute attr =
          convertFloatConstant(constant.getValue(), type, /*saturate=*/true);
      if (!attr)
        return CastOp::create(b, value.getLoc(), type, value,
                              /*saturate=*/true, ExponentRoundingAttr());
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointAfter(constant);
      converted = ConstantOp::create(b, constant.getLoc(), type,
                                     cast<ElementsAttr>(attr));
    }
    return converted;
  }

  DenseMap<Value, Value> constants;

  /// The ops to compute on half, in order, decided on the f32 graph.
  SmallVector<Operation *> chooseHalfOps(func::FuncOp func) {
    Dialect *tscDialect = func.getContext()->getLoadedDialect<TscDialect>();
    DenseMap<Value, Kind> kinds;
    auto kindOf = [&](Value v) {
      if (v.getDefiningOp<ConstantOp>())
        return Kind::Constant;
      return kinds.lookup(v); // Data unless decided otherwise
    };
    SmallVector<Operation *> ops;
    func.walk([&](Operation *op) {
      bool anyRange = false, anyPosition = false, anyHalfOrConstant = false,
           onlyPositionsAndConstants = true;
      for (Value operand : op->getOperands()) {
        if (!halved(operand.getType(), Float32Type::get(op->getContext())))
          continue;
        Kind kind = kindOf(operand);
        anyRange |= kind == Kind::Range;
        anyPosition |= kind == Kind::Position;
        anyHalfOrConstant |= kind == Kind::Half || kind == Kind::Constant;
        onlyPositionsAndConstants &=
            kind == Kind::Position || kind == Kind::Constant;
      }
      Kind result = Kind::Data;
      auto cast = dyn_cast<CastOp>(op);
      if (op->getDialect() != tscDialect || isa<ConstantOp>(op))
        return;
      if ((cast && !isa<FloatType>(cast.getInput().getType().getElementType())) ||
          isa<RangeOp>(op))
        result = Kind::Position;
      else if (keptForRange(op))
        result = Kind::Range;
      else if (!computesOnHalf(op))
        result = Kind::Data;
      else if (anyRange && !alwaysHalf(op))
        result = Kind::Range;
      else if (anyPosition && onlyPositionsAndConstants && !alwaysHalf(op))
        result = Kind::Position;
      else if (follows(op) && !anyHalfOrConstant)
        result = Kind::Data;
      else
        result = Kind::Half;
      if (result == Kind::Half)
        ops.push_back(op);
      for (Value v : op->getResults())
        kinds[v] = result;
    });
    return ops;
  }

  void runOnOperation() override {
    constants.clear();
    if (getOperation().isExternal())
      return;
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
    SmallVector<Operation *> ops = chooseHalfOps(func);
    llvm::SmallPtrSet<Operation *, 32> onHalf(ops.begin(), ops.end());
    ReplacedWeights replaced(func, freeReplacedWeights);
    OpBuilder b(context);
    // In order, so that each op sees its producers' new types.
    for (Operation *op : ops) {
      // Operands: half copies of f32 values (CSE merges repeated ones; a
      // copy of a cast from half folds away).
      b.setInsertionPoint(op);
      for (OpOperand &operand : op->getOpOperands()) {
        Value wide = operand.get();
        std::optional<RankedTensorType> t = halved(wide.getType(), half);
        if (!t)
          continue;
        operand.set(halfOperand(b, wide, *t));
        // An f32 weight whose last reader now reads its half copy.
        auto constant = wide.getDefiningOp<ConstantOp>();
        if (constant && constant->use_empty()) {
          constants.erase(wide);
          replaced.eraseIfDead(constant);
        }
      }
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
        operand.set(CastOp::create(b, ret->getLoc(), *t, operand.get(),
                                   /*saturate=*/true, ExponentRoundingAttr()));
        results[operand.getOperandNumber()] = *t;
      }
    func.setType(FunctionType::get(func.getContext(), inputs, results));
  }
};

} // namespace
