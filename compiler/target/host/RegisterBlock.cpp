//===- RegisterBlock.cpp - small products as register-blocked vector code -===//

#include "compiler/target/host/RegisterBlock.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace mlir::tsc;

VectorRegisters mlir::tsc::vectorRegistersOf(StringRef cpu) {
  if (cpu == "x86-64-v4")
    return {16, 32};
  if (cpu == "x86-64-v3")
    return {8, 16};
  return {4, 16};
}

namespace {

/// A contraction C[m, n] += A[.., m, .., k, ..]·B[.., k, .., n]: A is read one
/// element at a time (broadcast), B and C along n as vectors.
struct Product {
  linalg::GenericOp op;
  unsigned m, n, k;
  Value lhs, rhs, out;
  AffineMap lhsMap, rhsMap, outMap;
};

/// Whether `map` ends with loop dim `d`.
bool endsWith(AffineMap map, unsigned d) {
  if (map.getNumResults() == 0)
    return false;
  auto last = dyn_cast<AffineDimExpr>(map.getResults().back());
  return last && last.getPosition() == d;
}

} // namespace

std::optional<linalg::ContractionDimensions>
mlir::tsc::matchTileContraction(linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics() || !op->getParentOfType<scf::ForallOp>() ||
      op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      op.getNumLoops() != 3 || !linalg::isaContractionOpInterface(op))
    return std::nullopt;
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || !dims->batch.empty() || dims->m.size() != 1 ||
      dims->n.size() != 1 || dims->k.size() != 1)
    return std::nullopt;
  // Widening casts, one multiply and one add: nothing else to reproduce.
  for (Operation &x : op.getBlock()->without_terminator())
    if (!isa<arith::ExtFOp, arith::MulFOp, arith::AddFOp>(x))
      return std::nullopt;
  return *dims;
}

namespace {

std::optional<Product> matchProduct(linalg::GenericOp op) {
  std::optional<linalg::ContractionDimensions> dims = matchTileContraction(op);
  if (!dims)
    return std::nullopt;
  for (int64_t size : op.getStaticLoopRanges())
    if (ShapedType::isDynamic(size) || size <= 0)
      return std::nullopt;
  Product p{op, dims->m[0], dims->n[0], dims->k[0], {}, {}, {}, {}, {}, {}};
  OpOperand *lhs = op.getDpsInputOperand(0), *rhs = op.getDpsInputOperand(1);
  if (!op.getMatchingIndexingMap(lhs).isFunctionOfDim(p.m))
    std::swap(lhs, rhs);
  OpOperand *out = op.getDpsInitOperand(0);
  p.lhs = lhs->get(), p.rhs = rhs->get(), p.out = out->get();
  p.lhsMap = op.getMatchingIndexingMap(lhs);
  p.rhsMap = op.getMatchingIndexingMap(rhs);
  p.outMap = op.getMatchingIndexingMap(out);
  if (!endsWith(p.rhsMap, p.n) || !endsWith(p.outMap, p.n))
    return std::nullopt;
  auto outType = dyn_cast<MemRefType>(p.out.getType());
  auto rhsType = dyn_cast<MemRefType>(p.rhs.getType());
  auto lhsType = dyn_cast<MemRefType>(p.lhs.getType());
  if (!outType || !rhsType || !lhsType || !outType.isLastDimUnitStride() ||
      !rhsType.isLastDimUnitStride())
    return std::nullopt;
  auto accType = dyn_cast<FloatType>(outType.getElementType());
  if (!accType)
    return std::nullopt;
  for (MemRefType input : {lhsType, rhsType}) {
    auto type = dyn_cast<FloatType>(input.getElementType());
    if (!type || type.getWidth() > accType.getWidth())
      return std::nullopt;
  }
  return p;
}

/// Emits `p` before its op: rows in tiles of `rowsPerTile` (the remainder
/// one at a time), columns in blocks of `columns` (the last one shorter).
class ProductEmitter {
public:
  ProductEmitter(Product p, OpBuilder &b)
      : p(p), b(b), loc(p.op.getLoc()),
        acc(cast<MemRefType>(p.out.getType()).getElementType()),
        ranges(p.op.getStaticLoopRanges()) {}

  void emit(int64_t rowsPerTile, int64_t columns) {
    int64_t rows = ranges[p.m], cols = ranges[p.n];
    rowsPerTile = std::min(rowsPerTile, rows);
    int64_t tiled = rows - rows % rowsPerTile;
    emitRows(0, tiled, rowsPerTile, cols, columns);
    if (tiled < rows)
      emitRows(tiled, rows, 1, cols, columns);
  }

private:
  Product p;
  OpBuilder &b;
  Location loc;
  Type acc;
  SmallVector<int64_t> ranges;

  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }

  /// The indices of `map`'s operand at loop values (m, n, k).
  SmallVector<Value> at(AffineMap map, Value m, Value n, Value k) {
    SmallVector<Value> loops(3);
    loops[p.m] = m, loops[p.n] = n, loops[p.k] = k;
    SmallVector<Value> indices;
    for (AffineExpr e : map.getResults())
      indices.push_back(loops[cast<AffineDimExpr>(e).getPosition()]);
    return indices;
  }

  Value widened(Value v) {
    Type type = isa<VectorType>(v.getType())
                    ? Type(cast<VectorType>(v.getType()).clone(acc))
                    : acc;
    if (v.getType() == type)
      return v;
    return arith::ExtFOp::create(b, loc, type, v);
  }

  void emitRows(int64_t begin, int64_t end, int64_t rowsPerTile, int64_t cols,
                int64_t columns) {
    auto loop = scf::ForOp::create(b, loc, index(begin), index(end),
                                   index(rowsPerTile));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    for (int64_t n0 = 0; n0 < cols; n0 += columns)
      emitTile(loop.getInductionVar(), rowsPerTile, n0,
               std::min(columns, cols - n0));
  }

  /// Rows [i0, i0 + rows) × columns [n0, n0 + width): accumulators loaded
  /// once, updated over the whole reduction in registers, stored once.
  void emitTile(Value i0, int64_t rows, int64_t n0, int64_t width) {
    Value column = index(n0), k0 = index(0);
    auto vectorOf = [&](Type element) {
      return VectorType::get({width}, element);
    };
    SmallVector<Value> rowIndex, accumulators;
    for (int64_t r = 0; r < rows; ++r) {
      rowIndex.push_back(r == 0 ? i0
                                : arith::AddIOp::create(b, loc, i0, index(r)));
      accumulators.push_back(
          vector::LoadOp::create(b, loc, vectorOf(acc), p.out,
                                 at(p.outMap, rowIndex.back(), column, k0)));
    }
    Type rhsElement = cast<MemRefType>(p.rhs.getType()).getElementType();
    auto reduction = scf::ForOp::create(
        b, loc, k0, index(ranges[p.k]), index(1), accumulators,
        [&](OpBuilder &nb, Location l, Value k, ValueRange state) {
          OpBuilder::InsertionGuard inner(b);
          b.setInsertionPoint(nb.getInsertionBlock(), nb.getInsertionPoint());
          Value rhs = widened(
              vector::LoadOp::create(b, l, vectorOf(rhsElement), p.rhs,
                                     at(p.rhsMap, rowIndex[0], column, k)));
          SmallVector<Value> next;
          for (int64_t r = 0; r < rows; ++r) {
            Value lhs = widened(memref::LoadOp::create(
                b, l, p.lhs, at(p.lhsMap, rowIndex[r], column, k)));
            Value splat = vector::BroadcastOp::create(b, l, vectorOf(acc), lhs);
            next.push_back(vector::FMAOp::create(b, l, splat, rhs, state[r]));
          }
          scf::YieldOp::create(b, l, next);
        });
    for (int64_t r = 0; r < rows; ++r)
      vector::StoreOp::create(b, loc, reduction.getResult(r), p.out,
                              at(p.outMap, rowIndex[r], column, k0));
  }
};

} // namespace

void mlir::tsc::registerBlockContractions(ModuleOp kernels,
                                          VectorRegisters registers) {
  kernels.getContext()->getOrLoadDialect<vector::VectorDialect>();
  SmallVector<Product> products;
  kernels.walk([&](linalg::GenericOp op) {
    if (std::optional<Product> p = matchProduct(op))
      products.push_back(*p);
  });
  // Two registers of columns per row; the accumulators take half of the
  // registers, leaving the rest for the right operand and the broadcasts.
  int64_t columns = 2 * registers.lanes;
  int64_t rowsPerTile = std::max<int64_t>(1, registers.count / 4);
  for (Product &p : products) {
    OpBuilder b(p.op);
    ProductEmitter(p, b).emit(rowsPerTile, columns);
    p.op->erase();
  }
}

namespace {

struct RegisterBlockPass
    : PassWrapper<RegisterBlockPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(RegisterBlockPass)
  RegisterBlockPass() = default;
  RegisterBlockPass(const RegisterBlockPass &other) : PassWrapper(other) {}
  StringRef getArgument() const override { return "tsc-host-register-block"; }
  StringRef getDescription() const override {
    return "Products of static tiles inside scf.forall as register-blocked "
           "vector code (host codegen, on bufferized kernels)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<vector::VectorDialect>();
  }
  void runOnOperation() override {
    registerBlockContractions(getOperation(), vectorRegistersOf(cpu));
  }
  Option<std::string> cpu{*this, "cpu",
                          llvm::cl::desc("x86-64 level: x86-64, x86-64-v3 "
                                         "or x86-64-v4"),
                          llvm::cl::init("x86-64-v4")};
};

} // namespace

void mlir::tsc::registerHostPasses() {
  PassRegistration<RegisterBlockPass>();
  registerPairProductsPasses();
}
