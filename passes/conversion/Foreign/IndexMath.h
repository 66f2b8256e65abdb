//===- IndexMath.h - index arithmetic for symbols defined from data -*- C++
//-*-===//
//
// Converters of ops whose shapes or axes a model gives at run time build
// index computations over the symbols bound from that data
// (ForeignNode::runtimeInts), which become the definitions of further symbols
// (ForeignNode::defineSymbol). Every op here is one the plan can evaluate
// (compiler/plan/SymbolDefinitions.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TSC_PASSES_CONVERSION_FOREIGN_INDEXMATH_H
#define TSC_PASSES_CONVERSION_FOREIGN_INDEXMATH_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

namespace mlir::tsc::foreign {

struct IndexMath {
  OpBuilder &b;
  Location loc;

  Value c(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  /// floor(x / y), y > 0.
  Value div(Value x, Value y) {
    return arith::FloorDivSIOp::create(b, loc, x, y);
  }
  Value max(Value x, Value y) { return arith::MaxSIOp::create(b, loc, x, y); }
  Value min(Value x, Value y) { return arith::MinSIOp::create(b, loc, x, y); }
  Value eq(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, y);
  }
  Value lt(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, y);
  }
  Value select(Value condition, Value yes, Value no) {
    return arith::SelectOp::create(b, loc, condition, yes, no);
  }
  /// 1 where `condition` holds, else 0, as an index.
  Value indicator(Value condition) { return select(condition, c(1), c(0)); }
  /// `axis` + `rank` where it is negative.
  Value normalizeAxis(Value axis, int64_t rank) {
    return select(lt(axis, c(0)), add(axis, c(rank)), axis);
  }
};

} // namespace mlir::tsc::foreign

#endif // TSC_PASSES_CONVERSION_FOREIGN_INDEXMATH_H
