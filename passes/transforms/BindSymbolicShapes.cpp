//===- BindSymbolicShapes.cpp - derive and record symbolic shapes ---------===//

#include "dialects/tsc/IR/SymbolicShape.h"
#include "dialects/tsc/IR/TscConvolutionOps.h"
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

/// Derives symbolic shapes op by op. Expressions are over the function's
/// symbols in declaration order (SymbolicShapes positions).
class ShapeDeriver {
public:
  ShapeDeriver(func::FuncOp func) : table(func), ctx(func.getContext()) {}

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
    std::optional<Shape> shape = deriveFromSemantics(op, index);
    if (!shape || static_cast<int64_t>(shape->size()) != type.getRank()) {
      why = "tsc has no shape rule for this op and these operands";
      return failure();
    }
    for (auto [d, expr, dim] : llvm::enumerate(*shape, type.getShape())) {
      if (!ShapedType::isDynamic(dim)) {
        expr = constant(dim);
        continue;
      }
      if (!expr) {
        why = "dim " + std::to_string(d) +
              " depends on run-time values, not only on the symbols";
        return failure();
      }
      // A size must be non-negative over the whole range of the symbols;
      // e.g. a range's length ceil((limit - start) / delta) may not be, and
      // is really max(0, ...), which affine expressions cannot say.
      std::optional<DimRange> range = getRange(expr, table.getRanges());
      if (!range || range->min < 0) {
        llvm::raw_string_ostream os(why);
        os << "dim " << d << " = " << expr
           << (range ? " can be negative" : " has no bound");
        return failure();
      }
    }
    return *shape;
  }

private:
  AffineExpr constant(int64_t v) { return getAffineConstantExpr(v, ctx); }

  /// Reads an index value as an affine expression of the symbols.
  AffineExpr exprOf(Value value) {
    if (std::optional<unsigned> position = table.getPosition(value))
      return getAffineSymbolExpr(*position, ctx);
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

  /// numpy broadcasting of symbolic shapes; a null expr where the result
  /// depends on run-time values (e.g. `s0` against `s1`).
  Shape broadcast(ArrayRef<Shape> shapes) {
    Shape out;
    for (const Shape &shape : shapes) {
      if (shape.size() > out.size())
        out.insert(out.begin(), shape.size() - out.size(), constant(1));
      size_t offset = out.size() - shape.size();
      for (auto [i, expr] : llvm::enumerate(shape)) {
        AffineExpr &acc = out[offset + i];
        if (!acc || expr == acc || expr == constant(1))
          continue;
        if (acc == constant(1) || isa<AffineConstantExpr>(expr))
          acc = expr;
        else if (!isa<AffineConstantExpr>(acc))
          acc = AffineExpr();
      }
    }
    return out;
  }

  /// Broadcast of the shapes of `operands`, if all are known.
  std::optional<Shape> broadcastOperands(ValueRange operands) {
    SmallVector<Shape> shapes;
    for (Value operand : operands) {
      std::optional<Shape> shape = shapeOf(operand);
      if (!shape)
        return std::nullopt;
      shapes.push_back(std::move(*shape));
    }
    return broadcast(shapes);
  }

  /// One expression per entry of a mixed static/dynamic list.
  Shape mixed(ArrayRef<int64_t> statics, ValueRange dynamics) {
    Shape out;
    for (int64_t v : statics) {
      if (!ShapedType::isDynamic(v)) {
        out.push_back(constant(v));
      } else {
        out.push_back(exprOf(dynamics.front()));
        dynamics = dynamics.drop_front();
      }
    }
    return out;
  }

  std::optional<Shape> deriveFromSemantics(Operation *op, unsigned index) {
    auto shapeOfOperand = [&](unsigned i) { return shapeOf(op->getOperand(i)); };
    auto resultType = cast<RankedTensorType>(op->getResult(index).getType());
    // Ops whose result has their first operand's shape.
    if (hasShapeOfFirstOperand(op))
      return shapeOfOperand(0);
    if (op->hasTrait<OpTrait::tsc::Broadcasting>())
      return broadcastOperands(op->getOperands());
    return TypeSwitch<Operation *, std::optional<Shape>>(op)
        .Case([&](MatmulOp op) -> std::optional<Shape> {
          std::optional<Shape> lhs = shapeOf(op.getLhs());
          std::optional<Shape> rhs = shapeOf(op.getRhs());
          if (!lhs || !rhs)
            return std::nullopt;
          // Batch dims (all but the matrix dims) broadcast like elementwise
          // operands.
          auto batch = [](const Shape &s) {
            return Shape(s.begin(), s.size() > 2 ? s.end() - 2 : s.begin());
          };
          Shape out = broadcast({batch(*lhs), batch(*rhs)});
          if (lhs->size() >= 2)
            out.push_back((*lhs)[lhs->size() - 2]);
          if (rhs->size() >= 2)
            out.push_back(rhs->back());
          return out;
        })
        .Case<LinearOp, QuantizedMatmulOp>(
            [&](Operation *) -> std::optional<Shape> {
              std::optional<Shape> input = shapeOfOperand(0);
              if (!input)
                return std::nullopt;
              Shape out(input->begin(), input->end() - 1);
              out.push_back(
                  AffineExpr()); // static N comes from the result type
              return out;
            })
        .Case<ReduceSumOp, ReduceMeanOp, ReduceMaxOp, ReduceMinOp, ReduceProdOp,
              ArgMaxOp, ArgMinOp>(
            [&](Operation *reduce) -> std::optional<Shape> {
              std::optional<Shape> input = shapeOfOperand(0);
              if (!input)
                return std::nullopt;
              // Arg reductions reduce their one `axis`.
              SmallVector<int64_t> dims;
              if (auto list = reduce->getAttrOfType<DenseI64ArrayAttr>("dims"))
                llvm::append_range(dims, list.asArrayRef());
              else
                dims.push_back(
                    reduce->getAttrOfType<IntegerAttr>("axis").getInt());
              bool keepdim = reduce->hasAttr("keepdim");
              Shape out;
              for (auto [i, expr] : llvm::enumerate(*input)) {
                if (!llvm::is_contained(dims, static_cast<int64_t>(i)))
                  out.push_back(expr);
                else if (keepdim)
                  out.push_back(constant(1));
              }
              return out;
            })
        .Case([&](ReduceWindowOp op) -> std::optional<Shape> {
          Shape out;
          for (Value size : op.getSizes())
            out.push_back(exprOf(size));
          return out;
        })
        .Case([&](TopKOp op) -> std::optional<Shape> {
          std::optional<Shape> out = shapeOf(op.getInput());
          if (out)
            (*out)[op.getAxis()] = constant(op.getK());
          return out;
        })
        .Case([&](AttentionOp op) -> std::optional<Shape> {
          std::optional<Shape> q = shapeOf(op.getQuery());
          std::optional<Shape> v = shapeOf(op.getValue());
          if (!q || !v)
            return std::nullopt;
          // Both layouts ([B, H, S, D] and bshd's [B, S, H, D]) keep query's
          // first three dims and value's last.
          return Shape{(*q)[0], (*q)[1], (*q)[2], (*v)[3]};
        })
        .Case<ReshapeOp, ExpandOp>([&](Operation *) -> std::optional<Shape> {
          return mixed(resultType.getShape(), op->getOperands().drop_front());
        })
        .Case([&](TransposeOp op) -> std::optional<Shape> {
          std::optional<Shape> input = shapeOf(op.getInput());
          if (!input)
            return std::nullopt;
          Shape out;
          for (int64_t p : op.getPerm())
            out.push_back((*input)[p]);
          return out;
        })
        .Case([&](ConcatOp op) -> std::optional<Shape> {
          std::optional<Shape> out = shapeOf(op.getInputs().front());
          if (!out)
            return std::nullopt;
          int64_t axis = op.getAxis();
          for (Value input : op.getInputs().drop_front()) {
            std::optional<Shape> shape = shapeOf(input);
            if (!shape)
              return std::nullopt;
            (*out)[axis] = (*out)[axis] + (*shape)[axis];
          }
          return out;
        })
        .Case([&](SliceOp op) -> std::optional<Shape> {
          return mixed(op.getStaticSizes(), op.getSizes());
        })
        .Case([&](SplitOp op) -> std::optional<Shape> {
          std::optional<Shape> out = shapeOf(op.getInput());
          if (out)
            (*out)[op.getAxis()] = constant(op.getSizes()[index]);
          return out;
        })
        .Case([&](GatherOp op) -> std::optional<Shape> {
          std::optional<Shape> data = shapeOf(op.getData());
          std::optional<Shape> indices = shapeOf(op.getIndices());
          if (!data || !indices)
            return std::nullopt;
          int64_t axis = op.getAxis();
          Shape out(data->begin(), data->begin() + axis);
          llvm::append_range(out, *indices);
          out.append(data->begin() + axis + 1, data->end());
          return out;
        })
        .Case([&](GatherElementsOp op) { return shapeOf(op.getIndices()); })
        .Case([&](GatherNdOp op) -> std::optional<Shape> {
          std::optional<Shape> data = shapeOf(op.getData());
          std::optional<Shape> indices = shapeOf(op.getIndices());
          if (!data || !indices)
            return std::nullopt;
          // indices.shape[:-1] ++ the slice's dims, data's last ones.
          Shape out(indices->begin(), indices->end() - 1);
          size_t slice = resultType.getRank() - out.size();
          out.append(data->end() - slice, data->end());
          return out;
        })
        .Case([&](PadOp op) -> std::optional<Shape> {
          std::optional<Shape> input = shapeOf(op.getInput());
          if (!input)
            return std::nullopt;
          for (auto [expr, low, high] :
               llvm::zip_equal(*input, op.getLow(), op.getHigh()))
            expr = expr + constant(low + high);
          return input;
        })
        .Case([&](SqueezeOp op) -> std::optional<Shape> {
          std::optional<Shape> input = shapeOf(op.getInput());
          if (!input)
            return std::nullopt;
          Shape out;
          for (auto [i, expr] : llvm::enumerate(*input))
            if (!llvm::is_contained(op.getDims(), static_cast<int64_t>(i)))
              out.push_back(expr);
          return out;
        })
        .Case([&](UnsqueezeOp op) -> std::optional<Shape> {
          std::optional<Shape> input = shapeOf(op.getInput());
          if (!input)
            return std::nullopt;
          Shape out;
          auto rest = ArrayRef<AffineExpr>(*input);
          for (int64_t d = 0; d < resultType.getRank(); ++d) {
            if (llvm::is_contained(op.getDims(), d)) {
              out.push_back(constant(1));
            } else {
              out.push_back(rest.front());
              rest = rest.drop_front();
            }
          }
          return out;
        })
        .Case([&](RangeOp op) -> std::optional<Shape> {
          AffineExpr start = exprOf(op.getStart());
          AffineExpr limit = exprOf(op.getLimit());
          auto delta = dyn_cast_or_null<AffineConstantExpr>(exprOf(op.getDelta()));
          if (!start || !limit || !delta || delta.getValue() <= 0)
            return std::nullopt;
          return Shape{(limit - start).ceilDiv(delta.getValue())};
        })
        .Default([&](Operation *op) {
          return deriveConvolutionShape(op, index,
                                        [&](Value v) { return shapeOf(v); });
        });
  }

  SymbolicShapes table;
  MLIRContext *ctx;
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
