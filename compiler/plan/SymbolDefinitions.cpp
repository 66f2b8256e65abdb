//===- SymbolDefinitions.cpp - postfix code of plan expressions -----------===//
//
// docs/artifact-format.md, "Expressions": dims are affine expressions of the
// symbols; symbols bound from data (format 1.6) are defined by code that may
// also read input elements, compare and select, and (format 1.8) elements of
// values the graph computes.
//
//===----------------------------------------------------------------------===//

#include "compiler/plan/Planning.h"

#include "dialects/tsc/IR/SymbolicShape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cstring>

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::plan;

namespace {

using namespace ::tscm::expr_code;

template <typename T> void put(std::vector<uint8_t> &code, T value) {
  uint8_t raw[sizeof(T)];
  std::memcpy(raw, &value, sizeof(T));
  code.insert(code.end(), raw, raw + sizeof(T));
}

void pushConstant(std::vector<uint8_t> &code, int64_t value) {
  code.push_back(kConst);
  put(code, value);
}

/// Encodes the scalar computation `value` of a symbol's definition.
class DefinitionEncoder {
public:
  DefinitionEncoder(const SymbolicShapes &shapes, std::vector<uint8_t> &code)
      : shapes(shapes), code(code) {}

  LogicalResult encode(Value value, int depth = 0) {
    if (depth > 256)
      return fail(value, "is nested too deeply");
    if (std::optional<unsigned> position = shapes.getPosition(value)) {
      code.push_back(kSymbol);
      put(code, static_cast<uint32_t>(*position));
      return success();
    }
    Operation *def = value.getDefiningOp();
    if (!def)
      return fail(value, "is a block argument");
    auto operand = [&](unsigned i) {
      return encode(def->getOperand(i), depth + 1);
    };
    auto both = [&](uint8_t op) -> LogicalResult {
      if (failed(operand(0)) || failed(operand(1)))
        return failure();
      code.push_back(op);
      return success();
    };
    // a - b as a + (-1 * b); `swap` encodes b first.
    auto difference = [&](Value a, Value b) -> LogicalResult {
      if (failed(encode(a, depth + 1)) || failed(encode(b, depth + 1)))
        return failure();
      pushConstant(code, -1);
      code.push_back(kMul);
      code.push_back(kAdd);
      return success();
    };
    return TypeSwitch<Operation *, LogicalResult>(def)
        .Case([&](arith::ConstantOp op) -> LogicalResult {
          auto attr = dyn_cast<IntegerAttr>(op.getValue());
          if (!attr)
            return fail(value, "is not an integer constant");
          pushConstant(code, attr.getType().isInteger(1)
                                 ? int64_t(attr.getValue().getBoolValue())
                                 : attr.getValue().getSExtValue());
          return success();
        })
        .Case([&](DimOp op) -> LogicalResult {
          std::optional<SmallVector<AffineExpr>> shape =
              shapes.getShape(op.getInput());
          if (!shape)
            return fail(value, "is a dim of a tensor without a known shape");
          return encodeAffineExpr((*shape)[op.getDim()], code);
        })
        .Case<arith::IndexCastOp, arith::ExtSIOp, arith::ExtUIOp>(
            [&](Operation *) { return operand(0); })
        .Case([&](arith::AddIOp) { return both(kAdd); })
        .Case([&](arith::MulIOp) { return both(kMul); })
        .Case([&](arith::AndIOp) { return both(kMul); }) // on i1: 0 or 1
        .Case([&](arith::OrIOp) { return both(kMax); })  // on i1
        .Case([&](arith::SubIOp op) {
          return difference(op.getLhs(), op.getRhs());
        })
        .Case([&](arith::XOrIOp op) -> LogicalResult {
          IntegerAttr one;
          if (!op.getType().isInteger(1) ||
              !matchPattern(op.getRhs(), m_Constant(&one)) ||
              !one.getValue().getBoolValue())
            return fail(value, "is an xor other than a boolean's negation");
          pushConstant(code, 1);
          if (failed(encode(op.getLhs(), depth + 1)))
            return failure();
          pushConstant(code, -1);
          code.push_back(kMul);
          code.push_back(kAdd);
          return success();
        })
        .Case<arith::FloorDivSIOp, arith::DivSIOp>(
            [&](Operation *) { return both(kFloorDiv); })
        .Case([&](arith::CeilDivSIOp) { return both(kCeilDiv); })
        .Case([&](arith::RemSIOp) { return both(kMod); })
        .Case([&](arith::MinSIOp) { return both(kMin); })
        .Case([&](arith::MaxSIOp) { return both(kMax); })
        .Case([&](arith::SelectOp op) -> LogicalResult {
          if (failed(operand(0)) || failed(operand(1)) || failed(operand(2)))
            return failure();
          code.push_back(kSelect);
          return success();
        })
        .Case([&](arith::CmpIOp op) -> LogicalResult {
          Value a = op.getLhs(), b = op.getRhs();
          auto lessThan = [&](Value x, Value y, int64_t plus) -> LogicalResult {
            // x < y + plus
            if (failed(encode(x, depth + 1)) || failed(encode(y, depth + 1)))
              return failure();
            if (plus) {
              pushConstant(code, plus);
              code.push_back(kAdd);
            }
            code.push_back(kLt);
            return success();
          };
          switch (op.getPredicate()) {
          case arith::CmpIPredicate::eq:
            return both(kEq);
          case arith::CmpIPredicate::ne:
            pushConstant(code, 1);
            if (failed(both(kEq)))
              return failure();
            pushConstant(code, -1);
            code.push_back(kMul);
            code.push_back(kAdd);
            return success();
          case arith::CmpIPredicate::slt:
            return lessThan(a, b, 0);
          case arith::CmpIPredicate::sle:
            return lessThan(a, b, 1);
          case arith::CmpIPredicate::sgt:
            return lessThan(b, a, 0);
          case arith::CmpIPredicate::sge:
            return lessThan(b, a, 1);
          default:
            return fail(value, "is an unsigned comparison");
          }
        })
        .Default([&](Operation *op) {
          return fail(value, ("comes from '" + op->getName().getStringRef() +
                              "', which a plan cannot evaluate")
                                 .str());
        });
  }

private:
  LogicalResult fail(Value value, const std::string &why) {
    if (!reported) {
      reported = true;
      if (Operation *op = value.getDefiningOp())
        op->emitError("a symbol's definition uses a value that ") << why;
      else
        emitError(value.getLoc(), "a symbol's definition uses a value that ")
            << why;
    }
    return failure();
  }

  const SymbolicShapes &shapes;
  std::vector<uint8_t> &code;
  bool reported = false;
};

} // namespace

LogicalResult plan::encodeAffineExpr(AffineExpr expr,
                                     std::vector<uint8_t> &code) {
  if (auto c = dyn_cast<AffineConstantExpr>(expr)) {
    pushConstant(code, c.getValue());
    return success();
  }
  if (auto s = dyn_cast<AffineSymbolExpr>(expr)) {
    code.push_back(kSymbol);
    put(code, static_cast<uint32_t>(s.getPosition()));
    return success();
  }
  auto bin = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!bin || failed(encodeAffineExpr(bin.getLHS(), code)) ||
      failed(encodeAffineExpr(bin.getRHS(), code)))
    return failure();
  switch (expr.getKind()) {
  case AffineExprKind::Add:
    code.push_back(kAdd);
    return success();
  case AffineExprKind::Mul:
    code.push_back(kMul);
    return success();
  case AffineExprKind::FloorDiv:
    code.push_back(kFloorDiv);
    return success();
  case AffineExprKind::CeilDiv:
    code.push_back(kCeilDiv);
    return success();
  case AffineExprKind::Mod:
    code.push_back(kMod);
    return success();
  default:
    return failure();
  }
}

LogicalResult plan::encodeSymbolDefinition(SymbolOp symbol,
                                           const SymbolicShapes &shapes,
                                           const Plan &plan,
                                           std::vector<uint8_t> &code) {
  Value source = symbol.getSource();
  if (!source)
    return DefinitionEncoder(shapes, code).encode(symbol.getDefinition());
  auto element = static_cast<uint32_t>(*symbol.getElement());
  if (auto arg = dyn_cast<BlockArgument>(source)) {
    code.push_back(kElement);
    put(code, static_cast<uint32_t>(arg.getArgNumber()));
    put(code, element);
    return success();
  }
  // A constant's element is known now: no read at run time.
  DenseElementsAttr constant;
  if (matchPattern(source, m_Constant(&constant))) {
    Type type = constant.getElementType();
    int64_t value = 0;
    if (isa<FloatType>(type)) {
      double f = constant.getValues<APFloat>()[element].convertToDouble();
      if (!(f > -9.2e18 && f < 9.2e18))
        return symbol.emitError("symbol '")
               << symbol.getSymbol() << "' reads " << f
               << ", which is not an integer size";
      value = static_cast<int64_t>(f);
    } else if (type.isInteger(1)) {
      value = constant.getValues<bool>()[element];
    } else {
      APInt v = constant.getValues<APInt>()[element];
      value = type.isUnsignedInteger() ? int64_t(v.getZExtValue())
                                       : v.getSExtValue();
    }
    pushConstant(code, value);
    return success();
  }
  std::optional<unsigned> index = plan.lookup(source);
  if (!index)
    return symbol.emitError("symbol '")
           << symbol.getSymbol() << "' reads a value that has no buffer";
  code.push_back(kValueElement);
  put(code, static_cast<uint32_t>(*index));
  put(code, element);
  return success();
}

SmallVector<unsigned> plan::getUsedSymbols(ArrayRef<uint8_t> code) {
  SmallVector<unsigned> used;
  for (size_t at = 0; at < code.size();) {
    uint8_t op = code[at++];
    if (op == kSymbol) {
      uint32_t position;
      std::memcpy(&position, code.data() + at, sizeof(position));
      if (!llvm::is_contained(used, position))
        used.push_back(position);
    }
    at += immediateSize(op);
  }
  return used;
}

FailureOr<DenseMap<Value, unsigned>> planner::findSymbolSourceSteps(
    const SymbolicShapes &shapes, const Plan &plan,
    const DenseMap<unsigned, unsigned> &definingStep) {
  DenseMap<Value, unsigned> steps;
  for (SymbolOp symbol : shapes.getSymbols()) {
    Value source = symbol.getSource();
    if (!source || isa<BlockArgument>(source) ||
        matchPattern(source, m_Constant()))
      continue;
    std::optional<unsigned> index = plan.lookup(source);
    if (!index)
      return symbol.emitError("symbol '")
             << symbol.getSymbol() << "' reads a value that has no buffer";
    auto it = definingStep.find(*index);
    if (it == definingStep.end())
      it = definingStep.find(plan.root(*index));
    if (it == definingStep.end())
      return symbol.emitError("symbol '")
             << symbol.getSymbol() << "' reads a value that no step computes";
    steps[source] = it->second;
  }
  return steps;
}

LogicalResult
planner::defineDataSymbols(const SymbolicShapes &shapes, Plan &plan,
                           const DenseMap<Value, unsigned> &sourceSteps) {
  for (auto [j, declared] : llvm::enumerate(shapes.getSymbols())) {
    SymbolOp symbol = declared;
    PlanSymbol &s = plan.symbols[j];
    if (!symbol.isBoundFromData())
      continue;
    if (failed(encodeSymbolDefinition(symbol, shapes, plan, s.definition)))
      return failure();
    if (Value source = symbol.getSource())
      if (auto it = sourceSteps.find(source); it != sourceSteps.end())
        s.afterStep = it->second;
    for (unsigned used : getUsedSymbols(s.definition))
      s.afterStep = std::max(s.afterStep, plan.symbols[used].afterStep);
  }
  return success();
}

LogicalResult planner::checkSymbolsDefinedBeforeUse(
    func::FuncOp func, const SymbolicShapes &shapes, const Plan &plan) {
  if (llvm::all_of(plan.symbols,
                   [](const PlanSymbol &s) { return s.afterStep < 0; }))
    return success();
  auto symbolsOf = [&](AffineExpr expr, SmallVectorImpl<unsigned> &out) {
    expr.walk([&](AffineExpr e) {
      if (auto sym = dyn_cast<AffineSymbolExpr>(e))
        out.push_back(sym.getPosition());
    });
  };
  auto late = [&](ArrayRef<unsigned> used, int64_t step) -> const PlanSymbol * {
    for (unsigned j : used)
      if (plan.symbols[j].afterStep >= step)
        return &plan.symbols[j];
    return nullptr;
  };
  for (auto &[name, index] : plan.inputs) {
    SmallVector<unsigned> used;
    for (unsigned d : plan.values[index].dims)
      symbolsOf(plan.exprs[d], used);
    if (const PlanSymbol *s = late(used, 0))
      return func.emitError() << "input '" << name << "' has a dim of symbol '"
                              << s->name << "', which a run knows only after "
                              << "step " << s->afterStep
                              << " computes it; inputs are checked before the "
                                 "first step";
  }
  for (auto [t, step] : llvm::enumerate(plan.steps)) {
    SmallVector<unsigned> used;
    auto addValue = [&](Value v) {
      if (std::optional<SmallVector<AffineExpr>> shape = shapes.getShape(v))
        for (AffineExpr e : *shape)
          symbolsOf(e, used);
    };
    // Scalar operands: the symbols their index arithmetic reads.
    std::function<void(Value, int)> addScalar = [&](Value v, int depth) {
      if (std::optional<unsigned> j = shapes.getPosition(v)) {
        used.push_back(*j);
        return;
      }
      Operation *def = v.getDefiningOp();
      if (!def || depth > 64)
        return;
      for (Value operand : def->getOperands())
        isa<TensorType>(operand.getType()) ? addValue(operand)
                                           : addScalar(operand, depth + 1);
    };
    for (Operation *op : step.ops) {
      for (Value v : op->getOperands())
        isa<TensorType>(v.getType()) ? addValue(v) : addScalar(v, 0);
      for (Value v : op->getResults())
        addValue(v);
    }
    for (unsigned v : {step.source, step.destination})
      if (step.kind == PlanStep::Kind::Copy)
        for (unsigned d : plan.values[v].dims)
          symbolsOf(plan.exprs[d], used);
    if (const PlanSymbol *s = late(used, t)) {
      Operation *at = step.ops.empty() ? func.getOperation() : step.ops.front();
      return at->emitError()
             << "step " << t << " uses symbol '" << s->name
             << "', which the run defines only after step " << s->afterStep
             << " computes the value it is read from";
    }
  }
  return success();
}
