//===- TscAttrNames.h - discardable attributes shared by phases -*- C++ -*-===//
//
// Names of the discardable attributes that one phase writes and a later one
// reads, so that writer and reader cannot drift apart.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_DIALECTS_TSC_IR_TSCATTRNAMES_H
#define TSC_DIALECTS_TSC_IR_TSCATTRNAMES_H

#include "llvm/ADT/StringRef.h"

namespace mlir::tsc {

/// Result attribute of a model's function: the type the model declares for
/// that output (ONNX's graph outputs). Conversion checks the computed type
/// against it and drops it.
constexpr llvm::StringLiteral kDeclaredTypeAttr = "tsc.declared_type";

} // namespace mlir::tsc

#endif // TSC_DIALECTS_TSC_IR_TSCATTRNAMES_H
