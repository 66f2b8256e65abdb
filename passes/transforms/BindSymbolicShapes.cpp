//===- BindSymbolicShapes.cpp - derive and record symbolic shapes ---------===//

#include "dialects/tsc/IR/SymbolicShape.h"
#include "dialects/tsc/IR/TscOps.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::tsc {
#define GEN_PASS_DEF_BINDSYMBOLICSHAPESPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tsc

using namespace mlir;
using namespace mlir::tsc;

namespace {

using Shape = SmallVector<AffineExpr>;

/// `expr` as a monomial: a constant times a product of symbols (their
/// positions, sorted), if it is one.
std::optional<std::pair<int64_t, SmallVector<unsigned>>>
monomial(AffineExpr expr) {
  if (auto c = dyn_cast<AffineConstantExpr>(expr))
    return std::make_pair(c.getValue(), SmallVector<unsigned>());
  if (auto s = dyn_cast<AffineSymbolExpr>(expr))
    return std::make_pair(int64_t(1), SmallVector<unsigned>{s.getPosition()});
  auto mul = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!mul || mul.getKind() != AffineExprKind::Mul)
    return std::nullopt;
  auto lhs = monomial(mul.getLHS()), rhs = monomial(mul.getRHS());
  if (!lhs || !rhs)
    return std::nullopt;
  llvm::append_range(lhs->second, rhs->second);
  llvm::sort(lhs->second);
  return std::make_pair(lhs->first * rhs->first, std::move(lhs->second));
}

/// `a / b` when both are monomials and `b` divides `a` exactly (its
/// coefficient divides a's, its symbols are among a's), else null.
AffineExpr exactQuotient(AffineExpr a, AffineExpr b) {
  auto num = monomial(a), den = monomial(b);
  if (!num || !den || den->first <= 0 || num->first % den->first != 0 ||
      isa<AffineConstantExpr>(b))
    return {};
  SmallVector<unsigned> rest;
  auto it = den->second.begin(), end = den->second.end();
  for (unsigned symbol : num->second) {
    if (it != end && *it == symbol)
      ++it;
    else
      rest.push_back(symbol);
  }
  if (it != end)
    return {};
  AffineExpr q = getAffineConstantExpr(num->first / den->first, a.getContext());
  for (unsigned symbol : rest)
    q = q * getAffineSymbolExpr(symbol, a.getContext());
  return q;
}

/// Derives symbolic shapes op by op: reads the ops' shape rules with operand
/// dims and index values as expressions over the function's symbols in
/// declaration order (SymbolicShapes positions).
class ShapeDeriver : public DimReader {
public:
  ShapeDeriver(func::FuncOp func) : DimReader(func.getContext()), table(func) {}

  const SymbolicShapes &getTable() const { return table; }

  /// The known shape of `value`: recorded, derived earlier, or static.
  std::optional<Shape> shapeOf(Value value) {
    if (auto it = derived.find(value); it != derived.end())
      return it->second;
    return table.getShape(value);
  }

  void record(Value value, Shape shape) { derived[value] = std::move(shape); }

  /// Derives the shape of `op`'s result `index` from its operands; each
  /// static dim of the result type overrides the derived expression. On
  /// failure, `why` says what is missing.
  FailureOr<Shape> derive(Operation *op, unsigned index, std::string &why) {
    auto type = cast<RankedTensorType>(op->getResult(index).getType());
    for (OpOperand &operand : op->getOpOperands()) {
      if (isa<RankedTensorType>(operand.get().getType()) &&
          !shapeOf(operand.get())) {
        why = "operand #" + std::to_string(operand.getOperandNumber()) +
              " has no known shape";
        return failure();
      }
    }
    Shape shape;
    for (auto [d, size] : llvm::enumerate(type.getShape())) {
      if (!ShapedType::isDynamic(size)) {
        shape.push_back(constant(size));
        continue;
      }
      std::optional<AffineExpr> expr = deriveResultDim(op, index, d, *this);
      if (!expr) {
        why = "tsc has no shape rule for this op and these operands";
        return failure();
      }
      if (!*expr) {
        why = "dim " + std::to_string(d) +
              " depends on run-time values, not only on the symbols";
        return failure();
      }
      // A size must be non-negative over the whole range of the symbols;
      // e.g. a range's length ceil((limit - start) / delta) may not be, and
      // is really max(0, ...), which affine expressions cannot say.
      std::optional<DimRange> range = getRange(*expr, table.getRanges());
      if (!range || range->min < 0) {
        llvm::raw_string_ostream os(why);
        os << "dim " << d << " = " << *expr
           << (range ? " can be negative" : " has no bound");
        return failure();
      }
      shape.push_back(*expr);
    }
    return shape;
  }

  /// Dim `d` of an operand, whose shape derive() checked is known.
  AffineExpr dim(Value v, int64_t d) override {
    std::optional<Shape> shape = shapeOf(v);
    return shape && d < static_cast<int64_t>(shape->size()) ? (*shape)[d]
                                                            : AffineExpr();
  }

  AffineExpr value(Value v) override { return exprOf(v); }

  /// numpy broadcasting of symbolic dims; a null expr where the result
  /// depends on run-time values (e.g. `s0` against `s1`).
  AffineExpr broadcast(ArrayRef<ValueDim> dims) override {
    AffineExpr acc = constant(1);
    for (ValueDim d : dims) {
      AffineExpr expr = dim(d.value, d.dim);
      if (!acc || !expr)
        return {};
      if (expr == acc || expr == constant(1))
        continue;
      if (acc == constant(1) || isa<AffineConstantExpr>(expr))
        acc = expr;
      else if (!isa<AffineConstantExpr>(acc))
        acc = AffineExpr();
    }
    return acc;
  }

private:
  /// Reads an index value as an affine expression of the symbols.
  AffineExpr exprOf(Value value) {
    if (std::optional<unsigned> position = table.getPosition(value))
      return getAffineSymbolExpr(*position, getContext());
    Operation *def = value.getDefiningOp();
    if (!def)
      return {};
    auto operand = [&](unsigned i) { return exprOf(def->getOperand(i)); };
    auto bothOr = [&](auto combine) -> AffineExpr {
      AffineExpr lhs = operand(0), rhs = operand(1);
      return lhs && rhs ? combine(lhs, rhs) : AffineExpr();
    };
    auto byConstant = [&](auto combine) -> AffineExpr {
      AffineExpr lhs = operand(0);
      auto rhs = dyn_cast_or_null<AffineConstantExpr>(operand(1));
      if (!lhs || !rhs || rhs.getValue() <= 0)
        return {};
      return combine(lhs, rhs.getValue());
    };
    return TypeSwitch<Operation *, AffineExpr>(def)
        .Case([&](arith::ConstantOp op) -> AffineExpr {
          if (auto attr = dyn_cast<IntegerAttr>(op.getValue()))
            return constant(attr.getInt());
          return {};
        })
        .Case([&](arith::IndexCastOp) { return operand(0); })
        .Case([&](arith::AddIOp) {
          return bothOr([](AffineExpr a, AffineExpr b) { return a + b; });
        })
        .Case([&](arith::SubIOp) {
          return bothOr([](AffineExpr a, AffineExpr b) { return a - b; });
        })
        .Case([&](arith::MulIOp) {
          return bothOr([](AffineExpr a, AffineExpr b) { return a * b; });
        })
        // Sizes are non-negative, so truncating division is floor division.
        // A product of symbols divided by a product of some of them (a
        // reshape's -1: the element count over the other dims) is exact.
        .Case<arith::DivSIOp, arith::DivUIOp, arith::FloorDivSIOp>(
            [&](Operation *) {
              if (AffineExpr exact = bothOr(exactQuotient))
                return exact;
              return byConstant(
                  [](AffineExpr a, int64_t b) { return a.floorDiv(b); });
            })
        .Case<arith::CeilDivSIOp, arith::CeilDivUIOp>([&](Operation *) {
          return byConstant(
              [](AffineExpr a, int64_t b) { return a.ceilDiv(b); });
        })
        .Case<arith::RemSIOp, arith::RemUIOp>([&](Operation *) {
          return byConstant([](AffineExpr a, int64_t b) { return a % b; });
        })
        .Case([&](DimOp op) -> AffineExpr {
          std::optional<Shape> shape = shapeOf(op.getInput());
          return shape ? (*shape)[op.getDim()] : AffineExpr();
        })
        .Default([](Operation *) { return AffineExpr(); });
  }

  SymbolicShapes table;
  DenseMap<Value, Shape> derived;
};

struct BindSymbolicShapesPass
    : public tsc::impl::BindSymbolicShapesPassBase<BindSymbolicShapesPass> {
  using BindSymbolicShapesPassBase::BindSymbolicShapesPassBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    ShapeDeriver deriver(func);
    SmallVector<SymbolOp> symbols(deriver.getTable().getSymbols());
    bool failedAny = false;
    auto fail = [&](Operation *op, unsigned index, StringRef why) {
      if (!requireAll)
        return;
      op->emitError("cannot express the shape of result #")
          << index << " (" << op->getResult(index).getType()
          << ") in the function's symbols: " << why;
      failedAny = true;
    };
    // Symbol declarations precede everything that uses them; binds are placed
    // after both the value's producer and the last symbol declaration.
    Operation *lastSymbol =
        symbols.empty() ? nullptr : symbols.back().getOperation();

    for (Operation &op : llvm::make_early_inc_range(func.getBody().front())) {
      for (OpResult result : op.getResults()) {
        auto type = dyn_cast<RankedTensorType>(result.getType());
        if (!type || type.hasStaticShape() || deriver.shapeOf(result))
          continue;
        std::string why;
        FailureOr<Shape> shape =
            deriver.derive(&op, result.getResultNumber(), why);
        if (failed(shape)) {
          fail(&op, result.getResultNumber(), why);
          continue;
        }
        deriver.record(result, *shape);
        bind(result, *shape, symbols, lastSymbol);
      }
    }
    for (BlockArgument arg : func.getArguments()) {
      auto type = dyn_cast<RankedTensorType>(arg.getType());
      if (requireAll && type && !type.hasStaticShape() && !deriver.shapeOf(arg)) {
        func.emitError("argument #")
            << arg.getArgNumber() << " (" << type
            << ") has dynamic dims but no tsc.bind_shape";
        failedAny = true;
      }
    }
    if (failedAny)
      signalPassFailure();
  }

  /// Creates the tsc.bind_shape recording `shape`, listing only the symbols it
  /// uses.
  void bind(Value value, ArrayRef<AffineExpr> shape, MutableArrayRef<SymbolOp> symbols,
            Operation *lastSymbol) {
    llvm::SmallBitVector used(symbols.size());
    for (AffineExpr expr : shape)
      expr.walk([&](AffineExpr e) {
        if (auto symbol = dyn_cast<AffineSymbolExpr>(e))
          used.set(symbol.getPosition());
      });
    SmallVector<Value> operands;
    SmallVector<AffineExpr> renumbered(symbols.size());
    for (int pos : used.set_bits()) {
      renumbered[pos] = getAffineSymbolExpr(operands.size(), value.getContext());
      operands.push_back(symbols[pos].getResult());
    }
    SmallVector<AffineExpr> results;
    for (AffineExpr expr : shape)
      results.push_back(expr.replaceSymbols(renumbered));
    auto map = AffineMap::get(0, operands.size(), results, value.getContext());

    Operation *producer = value.getDefiningOp();
    OpBuilder builder(producer);
    if (lastSymbol && producer->isBeforeInBlock(lastSymbol))
      builder.setInsertionPointAfter(lastSymbol);
    else
      builder.setInsertionPointAfter(producer);
    BindShapeOp::create(builder, producer->getLoc(), value, operands, map);
  }
};

} // namespace
