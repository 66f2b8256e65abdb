//===- Outline.cpp - one kernel function per kernel step of the plan -----===//
//
// A host kernel is `void name(void *const *buffers, const int64_t *symbols)`;
// a device kernel function takes each buffer pointer and each symbol value
// as an argument of its own (the device ABI, whose launches the CUDA target
// outlines). The body wraps each buffer pointer in a memref descriptor whose
// sizes are the plan's shape expressions evaluated on the symbol values,
// clones the step's ops on tensors and materializes each result in its
// buffer. Index operands of the ops (symbols, arithmetic on them) are cloned
// too, with each symbol read from the symbol array.
//
//===----------------------------------------------------------------------===//

#include "compiler/target/host/HostCodegen.h"

#include "dialects/tsc/IR/TscOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::plan;

namespace {

class KernelBuilder {
public:
  KernelBuilder(const Plan &plan, OpBuilder &b, Location loc, KernelABI abi,
                Block *entry)
      : plan(plan), b(b), loc(loc), abi(abi), entry(entry) {}

  /// The index value of plan symbol `i`.
  Value symbol(unsigned i) {
    auto it = symbolValues.find(i);
    if (it != symbolValues.end())
      return it->second;
    Value value;
    if (abi == KernelABI::Device) {
      value = entry->getArgument(entry->getNumArguments() -
                                 plan.symbols.size() + i);
    } else {
      auto ptr = LLVM::LLVMPointerType::get(b.getContext());
      Value address =
          LLVM::GEPOp::create(b, loc, ptr, b.getI64Type(), entry->getArgument(1),
                              ArrayRef<LLVM::GEPArg>{int32_t(i)});
      value = LLVM::LoadOp::create(b, loc, b.getI64Type(), address);
    }
    Value index = arith::IndexCastOp::create(b, loc, b.getIndexType(), value);
    symbolValues[i] = index;
    return index;
  }

  /// Plan expression `e` as an index value.
  Value expr(AffineExpr e) {
    if (auto constant = dyn_cast<AffineConstantExpr>(e))
      return arith::ConstantIndexOp::create(b, loc, constant.getValue());
    if (auto sym = dyn_cast<AffineSymbolExpr>(e))
      return symbol(sym.getPosition());
    SmallVector<Value> operands;
    for (unsigned i = 0; i < plan.symbols.size(); ++i)
      operands.push_back(symbol(i));
    auto map = AffineMap::get(0, plan.symbols.size(), e);
    return affine::AffineApplyOp::create(b, loc, map, operands);
  }

  /// The step's k-th buffer as a memref of plan value `v`'s type.
  Value memref(unsigned k, unsigned v) {
    MLIRContext *context = b.getContext();
    const PlanValue &value = plan.values[v];
    auto tensorType = cast<RankedTensorType>(value.value.getType());
    auto ptrType = LLVM::LLVMPointerType::get(context);
    Value ptr = entry->getArgument(k);
    if (abi == KernelABI::Host) {
      Value slot =
          LLVM::GEPOp::create(b, loc, ptrType, ptrType, entry->getArgument(0),
                              ArrayRef<LLVM::GEPArg>{int32_t(k)});
      ptr = LLVM::LoadOp::create(b, loc, ptrType, slot);
    }
    SmallVector<Value> sizes;
    for (unsigned d : value.dims)
      sizes.push_back(arith::IndexCastOp::create(b, loc, b.getI64Type(),
                                                 expr(plan.exprs[d])));
    auto memrefType =
        MemRefType::get(tensorType.getShape(), tensorType.getElementType());
    return wrapPointer(b, loc, ptr, memrefType, sizes);
  }

  /// Clones the scalar computation of index/integer operand `v` (symbols,
  /// constants, arith) into the kernel.
  FailureOr<Value> scalar(Value v, IRMapping &mapping) {
    if (Value mapped = mapping.lookupOrNull(v))
      return mapped;
    Operation *def = v.getDefiningOp();
    if (!def)
      return failure();
    if (auto sym = dyn_cast<SymbolOp>(def)) {
      for (auto [i, s] : llvm::enumerate(plan.symbols))
        if (s.name == sym.getSymbol()) {
          Value value = symbol(i);
          mapping.map(v, value);
          return value;
        }
      return failure();
    }
    if (def->getNumRegions() || !isa<arith::ArithDialect>(def->getDialect()))
      return failure();
    for (Value operand : def->getOperands())
      if (failed(scalar(operand, mapping)))
        return failure();
    Operation *clone = b.clone(*def, mapping);
    return clone->getResult(cast<OpResult>(v).getResultNumber());
  }

private:
  const Plan &plan;
  OpBuilder &b;
  Location loc;
  KernelABI abi;
  Block *entry;
  DenseMap<unsigned, Value> symbolValues;
};

LogicalResult buildKernel(const Plan &plan, const PlanStep &step,
                          KernelABI abi, OpBuilder &moduleBuilder) {
  MLIRContext *context = moduleBuilder.getContext();
  Location loc = step.ops.front()->getLoc();
  auto ptr = LLVM::LLVMPointerType::get(context);
  SmallVector<Type> arguments{ptr, ptr};
  if (abi == KernelABI::Device) {
    arguments.assign(step.buffers.size(), ptr);
    arguments.append(plan.symbols.size(), moduleBuilder.getI64Type());
  }
  auto func = func::FuncOp::create(moduleBuilder, loc, step.name,
                                   FunctionType::get(context, arguments, {}));
  Block *entry = func.addEntryBlock();
  OpBuilder b = OpBuilder::atBlockBegin(entry);
  KernelBuilder kernel(plan, b, loc, abi, entry);
  IRMapping mapping;
  DenseSet<Value> produced;
  for (Operation *op : step.ops)
    for (Value result : op->getResults())
      produced.insert(result);
  DenseMap<unsigned, Value> memrefs;
  for (auto [k, v] : llvm::enumerate(step.buffers)) {
    Value graphValue = plan.values[v].value;
    Value m = kernel.memref(k, v);
    memrefs[v] = m;
    if (!produced.contains(graphValue))
      mapping.map(graphValue,
                  bufferization::ToTensorOp::create(
                      b, loc, graphValue.getType(), m, /*restrict=*/true,
                      /*writable=*/false));
  }
  for (Operation *op : step.ops) {
    for (Value operand : op->getOperands())
      if (!isa<TensorType>(operand.getType()) &&
          failed(kernel.scalar(operand, mapping)))
        return op->emitError()
               << "an index operand is not computable from the symbols";
    b.clone(*op, mapping);
  }
  for (unsigned v : step.buffers) {
    Value graphValue = plan.values[v].value;
    if (!produced.contains(graphValue))
      continue;
    bufferization::MaterializeInDestinationOp::create(
        b, loc, Type(), mapping.lookup(graphValue), memrefs[v],
        /*restrict=*/true, /*writable=*/true);
  }
  func::ReturnOp::create(b, loc);
  return success();
}

} // namespace

Value mlir::tsc::wrapPointer(OpBuilder &b, Location loc, Value ptr,
                             MemRefType type, ArrayRef<Value> sizes) {
  MLIRContext *context = b.getContext();
  auto ptrType = LLVM::LLVMPointerType::get(context);
  int64_t rank = type.getRank();
  Type i64 = b.getI64Type();
  SmallVector<Type> fields{ptrType, ptrType, i64};
  if (rank > 0) {
    fields.push_back(LLVM::LLVMArrayType::get(i64, rank));
    fields.push_back(LLVM::LLVMArrayType::get(i64, rank));
  }
  auto descType = LLVM::LLVMStructType::getLiteral(context, fields);
  Value desc = LLVM::PoisonOp::create(b, loc, descType);
  desc = LLVM::InsertValueOp::create(b, loc, desc, ptr, ArrayRef<int64_t>{0});
  desc = LLVM::InsertValueOp::create(b, loc, desc, ptr, ArrayRef<int64_t>{1});
  Value zero = LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(0));
  desc = LLVM::InsertValueOp::create(b, loc, desc, zero, ArrayRef<int64_t>{2});
  Value stride = LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(1));
  for (int64_t i = rank - 1; i >= 0; --i) {
    desc = LLVM::InsertValueOp::create(b, loc, desc, sizes[i],
                                       ArrayRef<int64_t>{3, i});
    desc = LLVM::InsertValueOp::create(b, loc, desc, stride,
                                       ArrayRef<int64_t>{4, i});
    if (i > 0)
      stride = LLVM::MulOp::create(b, loc, stride, sizes[i]);
  }
  return UnrealizedConversionCastOp::create(b, loc, TypeRange{type},
                                            ValueRange{desc})
      .getResult(0);
}

FailureOr<OwningOpRef<ModuleOp>>
mlir::tsc::outlineKernels(const Plan &plan, MLIRContext *context,
                          KernelABI abi) {
  context->loadDialect<LLVM::LLVMDialect, affine::AffineDialect,
                       arith::ArithDialect, bufferization::BufferizationDialect,
                       memref::MemRefDialect, func::FuncDialect>();
  OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(context));
  OpBuilder b = OpBuilder::atBlockEnd(module->getBody());
  for (const PlanStep &step : plan.steps)
    if (step.kind == PlanStep::Kind::Kernel &&
        failed(buildKernel(plan, step, abi, b)))
      return failure();
  return module;
}
