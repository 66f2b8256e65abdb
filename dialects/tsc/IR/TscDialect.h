//===- TscDialect.h - the tsc dialect and its attributes --------*- C++ -*-===//

#ifndef TSC_DIALECTS_TSC_IR_TSCDIALECT_H
#define TSC_DIALECTS_TSC_IR_TSCDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"

#include "dialects/tsc/IR/TscOpsDialect.h.inc"

#include "dialects/tsc/IR/TscEnums.h.inc"

#endif // TSC_DIALECTS_TSC_IR_TSCDIALECT_H
