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
// Plan values of the sub-byte types (i4, ui4, f4E2M1FN, i2, ui2) are packed,
// as ONNX packs them: 8 / bits elements a byte, the first in the low bits.
// Such a buffer is a memref of its bytes; the kernel unpacks it into a
// tensor of the value's type when it reads it, and packs the value into
// bytes when it writes it, each byte by one loop iteration. Inside the
// kernel these types take a byte each, as the LLVM and NVPTX lowerings store
// them. (MLIR's narrow-type emulation would rewrite every load and store of
// the bufferized kernel instead: stores of elements that share a byte then
// race between parallel loop iterations unless made atomic, and its
// patterns do not follow the views and descriptors the kernels build.)
//
//===----------------------------------------------------------------------===//

#include "compiler/kernels/Kernels.h"

#include "dialects/tsc/IR/TscOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::plan;

namespace {

/// Bits of a packed element type (2 or 4), or 0 for a type of whole bytes
/// (i1 takes a byte).
unsigned packedBits(Type element) {
  if (!element.isIntOrFloat())
    return 0;
  unsigned bits = element.getIntOrFloatBitWidth();
  return bits > 1 && bits < 8 ? bits : 0;
}

/// The flat (1-d) type of `type`'s elements.
RankedTensorType flatType(RankedTensorType type) {
  int64_t n =
      type.hasStaticShape() ? type.getNumElements() : ShapedType::kDynamic;
  return RankedTensorType::get({n}, type.getElementType());
}

/// A 1-d tensor of `n` elements of `type` as `type`: an expand_shape, or a
/// collapse_shape for rank 0. `sizes` are `type`'s dims.
Value unflatten(OpBuilder &b, Location loc, Value flat, RankedTensorType type,
                ArrayRef<OpFoldResult> sizes) {
  if (type.getRank() == 1)
    return flat;
  if (type.getRank() == 0)
    return tensor::CollapseShapeOp::create(b, loc, type, flat,
                                           ArrayRef<ReassociationIndices>{});
  ReassociationIndices all =
      llvm::to_vector<2>(llvm::seq<int64_t>(0, type.getRank()));
  return tensor::ExpandShapeOp::create(
      b, loc, type, flat, ArrayRef<ReassociationIndices>{all}, sizes);
}

/// `value` (a tensor of any rank) as a 1-d tensor.
Value flatten(OpBuilder &b, Location loc, Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getRank() == 1)
    return value;
  if (type.getRank() == 0)
    return tensor::ExpandShapeOp::create(b, loc, flatType(type), value,
                                         ArrayRef<ReassociationIndices>{},
                                         ArrayRef<OpFoldResult>{});
  ReassociationIndices all =
      llvm::to_vector<2>(llvm::seq<int64_t>(0, type.getRank()));
  return tensor::CollapseShapeOp::create(b, loc, value,
                                         ArrayRef<ReassociationIndices>{all});
}

/// The signless iN bits of scalar `v` of packed type `element`, or `bits`
/// as a scalar of `element` (`toElement`).
Value elementBits(OpBuilder &b, Location loc, Value v, Type element,
                  bool toElement) {
  Type from =
      toElement ? b.getIntegerType(element.getIntOrFloatBitWidth()) : element;
  Type to =
      toElement ? element : b.getIntegerType(element.getIntOrFloatBitWidth());
  if (from == to)
    return v;
  if (isa<FloatType>(element))
    return arith::BitcastOp::create(b, loc, to, v);
  // Unsigned integers: the kernels' arithmetic takes signless ones, which
  // the tsc-to-linalg conversion casts to and from the same way.
  return UnrealizedConversionCastOp::create(b, loc, to, v).getResult(0);
}

/// The tensor of `type` (a packed element type of `bits`) whose `n`
/// elements (dims `sizes`) `bytes` (tensor<?xi8>) holds packed.
Value unpack(OpBuilder &b, Location loc, Value bytes, RankedTensorType type,
             unsigned bits, Value n, ArrayRef<OpFoldResult> sizes) {
  RankedTensorType flat = flatType(type);
  Value empty = tensor::EmptyOp::create(
      b, loc, flat.getShape(), type.getElementType(),
      flat.hasStaticShape() ? ValueRange{} : ValueRange{n});
  AffineMap id = b.getMultiDimIdentityMap(1);
  auto generic = linalg::GenericOp::create(
      b, loc, flat, ValueRange{}, ValueRange{empty}, ArrayRef<AffineMap>{id},
      ArrayRef<utils::IteratorType>{utils::IteratorType::parallel},
      [&](OpBuilder &nb, Location nl, ValueRange) {
        Value i = linalg::IndexOp::create(nb, nl, 0);
        Value perByte = arith::ConstantIndexOp::create(nb, nl, 8 / bits);
        Value byteIndex = arith::DivUIOp::create(nb, nl, i, perByte);
        Value slot = arith::RemUIOp::create(nb, nl, i, perByte);
        Value shift = arith::MulIOp::create(
            nb, nl, slot, arith::ConstantIndexOp::create(nb, nl, bits));
        Value byte =
            tensor::ExtractOp::create(nb, nl, bytes, ValueRange{byteIndex});
        Value shifted = arith::ShRUIOp::create(
            nb, nl, byte,
            arith::IndexCastUIOp::create(nb, nl, nb.getI8Type(), shift));
        Value element =
            arith::TruncIOp::create(nb, nl, nb.getIntegerType(bits), shifted);
        linalg::YieldOp::create(
            nb, nl, elementBits(nb, nl, element, type.getElementType(), true));
      });
  return unflatten(b, loc, generic.getResult(0), type, sizes);
}

/// `value` (of a packed element type of `bits`, `n` elements) packed into a
/// tensor<?xi8> of `byteCount` bytes.
Value pack(OpBuilder &b, Location loc, Value value, unsigned bits, Value n,
           Value byteCount) {
  Value flat = flatten(b, loc, value);
  Type element = cast<RankedTensorType>(value.getType()).getElementType();
  auto flatShape = cast<RankedTensorType>(flat.getType());
  int64_t staticBytes =
      flatShape.hasStaticShape()
          ? llvm::divideCeil(flatShape.getNumElements() * bits, 8)
          : ShapedType::kDynamic;
  auto bytesType = RankedTensorType::get({staticBytes}, b.getI8Type());
  Value empty = tensor::EmptyOp::create(
      b, loc, bytesType.getShape(), b.getI8Type(),
      bytesType.hasStaticShape() ? ValueRange{} : ValueRange{byteCount});
  AffineMap id = b.getMultiDimIdentityMap(1);
  auto generic = linalg::GenericOp::create(
      b, loc, bytesType, ValueRange{}, ValueRange{empty},
      ArrayRef<AffineMap>{id},
      ArrayRef<utils::IteratorType>{utils::IteratorType::parallel},
      [&](OpBuilder &nb, Location nl, ValueRange) {
        Value byteIndex = linalg::IndexOp::create(nb, nl, 0);
        Value one = arith::ConstantIndexOp::create(nb, nl, 1);
        Value last = arith::SubIOp::create(nb, nl, n, one);
        Value first = arith::MulIOp::create(
            nb, nl, byteIndex,
            arith::ConstantIndexOp::create(nb, nl, 8 / bits));
        Value zero = arith::ConstantIntOp::create(nb, nl, 0, 8);
        Value byte = zero;
        for (unsigned slot = 0; slot < 8 / bits; ++slot) {
          // The last byte's slots past the last element stay 0.
          Value i = arith::AddIOp::create(
              nb, nl, first, arith::ConstantIndexOp::create(nb, nl, slot));
          Value inside =
              arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::ult, i, n);
          Value clamped = arith::MinUIOp::create(nb, nl, i, last);
          Value v =
              tensor::ExtractOp::create(nb, nl, flat, ValueRange{clamped});
          Value wide = arith::ExtUIOp::create(
              nb, nl, nb.getI8Type(), elementBits(nb, nl, v, element, false));
          wide = arith::SelectOp::create(nb, nl, inside, wide, zero);
          wide = arith::ShLIOp::create(
              nb, nl, wide,
              arith::ConstantIntOp::create(nb, nl, slot * bits, 8));
          byte = arith::OrIOp::create(nb, nl, byte, wide);
        }
        linalg::YieldOp::create(nb, nl, byte);
      });
  return generic.getResult(0);
}

/// A packed buffer's element count and bits, and its dims as index values.
struct Packed {
  unsigned bits = 0;
  Value elements, bytes;
  SmallVector<OpFoldResult> sizes;
};

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
      Value address = LLVM::GEPOp::create(b, loc, ptr, b.getI64Type(),
                                          entry->getArgument(1),
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

  /// The step's k-th buffer as a memref of plan value `v`'s type; for a
  /// packed type, a memref of its bytes (and `packed` says how to read and
  /// write them).
  Value memref(unsigned k, unsigned v, Packed *packed = nullptr);

  /// The step's k-th buffer: a memref of `type` whose dims are `sizes` (i64).
  Value wrapBuffer(unsigned k, MemRefType type, ArrayRef<Value> sizes) {
    auto ptrType = LLVM::LLVMPointerType::get(b.getContext());
    Value ptr = entry->getArgument(k);
    if (abi == KernelABI::Host) {
      Value slot =
          LLVM::GEPOp::create(b, loc, ptrType, ptrType, entry->getArgument(0),
                              ArrayRef<LLVM::GEPArg>{int32_t(k)});
      ptr = LLVM::LoadOp::create(b, loc, ptrType, slot);
    }
    return wrapPointer(b, loc, ptr, type, sizes);
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

Value KernelBuilder::memref(unsigned k, unsigned v, Packed *packed) {
  const PlanValue &value = plan.values[v];
  auto tensorType = cast<RankedTensorType>(value.value.getType());
  SmallVector<Value> sizes;
  AffineExpr elements = getAffineConstantExpr(1, b.getContext());
  for (unsigned d : value.dims) {
    elements = elements * plan.exprs[d];
    sizes.push_back(arith::IndexCastOp::create(b, loc, b.getI64Type(),
                                               expr(plan.exprs[d])));
  }
  unsigned bits = packedBits(tensorType.getElementType());
  if (!bits || !packed)
    return wrapBuffer(
        k, MemRefType::get(tensorType.getShape(), tensorType.getElementType()),
        sizes);
  packed->bits = bits;
  for (auto [d, size] : llvm::enumerate(sizes))
    packed->sizes.push_back(
        tensorType.isDynamicDim(d)
            ? OpFoldResult(
                  arith::IndexCastOp::create(b, loc, b.getIndexType(), size)
                      .getResult())
            : OpFoldResult(b.getIndexAttr(tensorType.getDimSize(d))));
  packed->elements = expr(elements);
  packed->bytes = expr((elements * bits).ceilDiv(8));
  int64_t staticBytes =
      tensorType.hasStaticShape()
          ? llvm::divideCeil(tensorType.getNumElements() * bits, 8)
          : ShapedType::kDynamic;
  Value byteSize =
      arith::IndexCastOp::create(b, loc, b.getI64Type(), packed->bytes);
  return wrapBuffer(k, MemRefType::get({staticBytes}, b.getI8Type()),
                    {byteSize});
}

LogicalResult buildKernel(const Plan &plan, const PlanStep &step, KernelABI abi,
                          OpBuilder &moduleBuilder) {
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
  DenseMap<unsigned, Packed> packedBuffers;
  for (auto [k, v] : llvm::enumerate(step.buffers)) {
    Value graphValue = plan.values[v].value;
    Packed packed;
    Value m = kernel.memref(k, v, &packed);
    memrefs[v] = m;
    if (packed.bits)
      packedBuffers[v] = packed;
    if (produced.contains(graphValue))
      continue;
    Value read = bufferization::ToTensorOp::create(
        b, loc, memref::getTensorTypeFromMemRefType(m.getType()), m,
        /*restrict=*/true, /*writable=*/false);
    if (packed.bits)
      read = unpack(b, loc, read, cast<RankedTensorType>(graphValue.getType()),
                    packed.bits, packed.elements, packed.sizes);
    mapping.map(graphValue, read);
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
    Value result = mapping.lookup(graphValue);
    if (auto it = packedBuffers.find(v); it != packedBuffers.end())
      result = pack(b, loc, result, it->second.bits, it->second.elements,
                    it->second.bytes);
    bufferization::MaterializeInDestinationOp::create(
        b, loc, Type(), result, memrefs[v],
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

FailureOr<OwningOpRef<ModuleOp>> mlir::tsc::outlineKernels(const Plan &plan,
                                                           MLIRContext *context,
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
