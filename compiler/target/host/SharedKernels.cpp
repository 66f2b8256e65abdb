//===- SharedKernels.cpp - compile a repeated kernel once -----------------===//

#include "compiler/target/host/SharedKernels.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

#include <limits>

using namespace mlir;

namespace {

/// `f` printed in the generic form under a fixed name: equal text, equal
/// code. Nothing is elided (two large constants that differ must not print
/// alike) and no locations are printed (the layers' ops have their own).
std::string codeOf(func::FuncOp f) {
  StringAttr name = f.getSymNameAttr();
  f.setSymName("tsc_kernel");
  std::string text;
  llvm::raw_string_ostream os(text);
  OpPrintingFlags flags;
  flags.printGenericOpForm().useLocalScope().elideLargeElementsAttrs(
      std::numeric_limits<int64_t>::max());
  f->print(os, flags);
  f.setSymNameAttr(name);
  return text;
}

/// Replaces `copy`'s body by a call of `original` with its arguments.
void callInstead(func::FuncOp copy, func::FuncOp original) {
  Region &body = copy.getBody();
  body.dropAllReferences();
  body.getBlocks().clear();
  Block *entry = copy.addEntryBlock();
  OpBuilder b = OpBuilder::atBlockEnd(entry);
  Location loc = copy.getLoc();
  auto call = func::CallOp::create(b, loc, original, entry->getArguments());
  func::ReturnOp::create(b, loc, call.getResults());
}

} // namespace

llvm::StringSet<> mlir::tsc::shareDuplicateKernels(ModuleOp kernels) {
  llvm::StringMap<func::FuncOp> first;
  llvm::StringSet<> called;
  for (func::FuncOp f :
       llvm::make_early_inc_range(kernels.getOps<func::FuncOp>())) {
    if (f.isDeclaration())
      continue;
    auto [it, fresh] = first.try_emplace(codeOf(f), f);
    if (fresh)
      continue;
    callInstead(f, it->second);
    called.insert(it->second.getSymName());
  }
  return called;
}
