//===- SymbolicShapeTests.cpp - symbolic shape queries, ranges, evaluation -===//

#include "compiler/InitAll.h"
#include "dialects/tsc/IR/SymbolicShape.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::tsc;

namespace {

class SymbolicShapeTest : public ::testing::Test {
protected:
  SymbolicShapeTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// Parses `ir` and returns its first function (the module stays alive).
  func::FuncOp parse(StringRef ir) {
    module = parseSourceString<ModuleOp>(ir, &context);
    EXPECT_TRUE(module) << "test IR does not parse";
    return *module->getOps<func::FuncOp>().begin();
  }

  /// The value the function returns, operand `i` of its terminator.
  static Value returned(func::FuncOp func, unsigned i = 0) {
    return func.getBody().front().getTerminator()->getOperand(i);
  }

  AffineExpr sym(unsigned i) { return getAffineSymbolExpr(i, &context); }
  AffineExpr cst(int64_t v) { return getAffineConstantExpr(v, &context); }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

constexpr StringLiteral kEncoder = R"mlir(
func.func @f(%x: tensor<?x?x768xf32>, %w: tensor<768x768xf32>) -> (tensor<?x768xf32>, tensor<2x3xf32>) {
  %batch = tsc.symbol "batch" [1, 8]
  %seq = tsc.symbol "seq" [4, 128]
  tsc.bind_shape %x[%batch, %seq], affine_map<()[s0, s1] -> (s0, s1, 768)> : tensor<?x?x768xf32>
  %bs = arith.muli %batch, %seq : index
  %flat = tsc.reshape %x [%bs] : tensor<?x?x768xf32> -> tensor<?x768xf32>
  tsc.bind_shape %flat[%seq, %batch], affine_map<()[s0, s1] -> (s1 * s0, 768)> : tensor<?x768xf32>
  %c = tsc.constant dense<1.0> : tensor<2x3xf32>
  return %flat, %c : tensor<?x768xf32>, tensor<2x3xf32>
}
)mlir";

TEST_F(SymbolicShapeTest, SymbolsInDeclarationOrder) {
  SymbolicShapes shapes(parse(kEncoder));
  ASSERT_EQ(shapes.getSymbols().size(), 2u);
  EXPECT_EQ(shapes.lookup("batch"), 0u);
  EXPECT_EQ(shapes.lookup("seq"), 1u);
  EXPECT_FALSE(shapes.lookup("heads"));
  EXPECT_EQ(shapes.getRanges()[1].min, 4);
  EXPECT_EQ(shapes.getRanges()[1].max, 128);
}

TEST_F(SymbolicShapeTest, ShapeOfBoundArgument) {
  func::FuncOp func = parse(kEncoder);
  SymbolicShapes shapes(func);
  std::optional<SmallVector<AffineExpr>> shape =
      shapes.getShape(func.getArgument(0));
  ASSERT_TRUE(shape);
  EXPECT_EQ(*shape, (SmallVector<AffineExpr>{sym(0), sym(1), cst(768)}));
}

TEST_F(SymbolicShapeTest, BindingsAreRenumberedToDeclarationOrder) {
  // The binding of %flat lists its symbols as [seq, batch]; queries answer
  // in the function's order [batch, seq].
  func::FuncOp func = parse(kEncoder);
  SymbolicShapes shapes(func);
  std::optional<SmallVector<AffineExpr>> shape =
      shapes.getShape(returned(func, 0));
  ASSERT_TRUE(shape);
  EXPECT_EQ((*shape)[0], sym(0) * sym(1));
  EXPECT_EQ((*shape)[1], cst(768));
}

TEST_F(SymbolicShapeTest, StaticValuesNeedNoBinding) {
  func::FuncOp func = parse(kEncoder);
  SymbolicShapes shapes(func);
  EXPECT_EQ(shapes.getShape(returned(func, 1)),
            (SmallVector<AffineExpr>{cst(2), cst(3)}));
  EXPECT_EQ(shapes.getMaxShape(returned(func, 1)),
            (SmallVector<int64_t>{2, 3}));
}

TEST_F(SymbolicShapeTest, UnboundDynamicValueHasNoShape) {
  func::FuncOp func = parse(R"mlir(
func.func @f(%x: tensor<?xf32>) -> tensor<?xf32> {
  return %x : tensor<?xf32>
}
)mlir");
  SymbolicShapes shapes(func);
  EXPECT_FALSE(shapes.getShape(func.getArgument(0)));
  EXPECT_FALSE(shapes.getMaxShape(func.getArgument(0)));
}

TEST_F(SymbolicShapeTest, MaxShapeUsesUpperBounds) {
  func::FuncOp func = parse(kEncoder);
  SymbolicShapes shapes(func);
  EXPECT_EQ(shapes.getMaxShape(func.getArgument(0)),
            (SmallVector<int64_t>{8, 128, 768}));
  EXPECT_EQ(shapes.getMaxShape(returned(func, 0)),
            (SmallVector<int64_t>{1024, 768}));
}

TEST_F(SymbolicShapeTest, RangeOfAffineForms) {
  SmallVector<DimRange> ranges = {{1, 8}, {4, 128}};
  auto range = [&](AffineExpr e) { return getRange(e, ranges); };
  auto expect = [](std::optional<DimRange> r, int64_t min, int64_t max) {
    ASSERT_TRUE(r);
    EXPECT_EQ(r->min, min);
    EXPECT_EQ(r->max, max);
  };
  expect(range(sym(0) + sym(1)), 5, 136);
  expect(range(sym(1) * 2 + 1), 9, 257);
  expect(range(sym(1) - sym(0)), -4, 127);
  expect(range(sym(0) * sym(1)), 4, 1024);
  expect(range(sym(1).floorDiv(3)), 1, 42);
  expect(range(sym(1).ceilDiv(3)), 2, 43);
  expect(range(sym(1) % 16), 0, 15);
  expect(range(sym(0) % 16), 1, 8);
  expect(range(sym(1) * -1), -128, -4);
  // Division by a symbol and unknown symbols have no bound.
  EXPECT_FALSE(range(sym(1).floorDiv(sym(0))));
  EXPECT_FALSE(range(sym(2)));
}

TEST_F(SymbolicShapeTest, RangeRejectsOverflow) {
  SmallVector<DimRange> ranges = {{0, INT64_MAX}};
  EXPECT_FALSE(getRange(sym(0) * 2, ranges));
  EXPECT_FALSE(getRange(sym(0) + 1, ranges));
}

TEST_F(SymbolicShapeTest, EvaluateAtSymbolValues) {
  SmallVector<int64_t> values = {3, 17};
  EXPECT_EQ(evaluate(sym(0) * sym(1) + 1, values), 52);
  EXPECT_EQ(evaluate(sym(1).ceilDiv(4), values), 5);
  EXPECT_EQ(evaluate(sym(1).floorDiv(4), values), 4);
  EXPECT_EQ(evaluate(sym(1) % 5, values), 2);
  EXPECT_EQ(evaluate((sym(0) - sym(1)).floorDiv(4), values), -4);
  EXPECT_TRUE(failed(evaluate(sym(2), values)));
}

} // namespace
