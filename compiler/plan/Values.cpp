//===- Values.cpp - element codes and weight bytes of plan values ---------===//
//
// What the artifact stores for a plan value: its element code and, for a
// weight, its bytes (sub-byte types packed); and the Plan's own lookups.
//
//===----------------------------------------------------------------------===//

#include "compiler/plan/Planning.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::plan;

FailureOr<DType> plan::getDType(Type type) {
  if (type.isF32())
    return DType::F32;
  if (type.isF16())
    return DType::F16;
  if (type.isBF16())
    return DType::BF16;
  if (type.isF64())
    return DType::F64;
  if (type.isInteger(1))
    return DType::Bool;
  if (type.isSignlessInteger(8))
    return DType::I8;
  if (type.isSignlessInteger(16))
    return DType::I16;
  if (type.isSignlessInteger(32))
    return DType::I32;
  if (type.isSignlessInteger(64))
    return DType::I64;
  if (type.isUnsignedInteger(8))
    return DType::U8;
  if (type.isUnsignedInteger(16))
    return DType::U16;
  if (type.isUnsignedInteger(32))
    return DType::U32;
  if (type.isUnsignedInteger(64))
    return DType::U64;
  if (isa<Float8E4M3FNType>(type))
    return DType::F8E4M3FN;
  if (isa<Float8E4M3FNUZType>(type))
    return DType::F8E4M3FNUZ;
  if (isa<Float8E5M2Type>(type))
    return DType::F8E5M2;
  if (isa<Float8E5M2FNUZType>(type))
    return DType::F8E5M2FNUZ;
  if (isa<Float8E8M0FNUType>(type))
    return DType::F8E8M0;
  if (type.isUnsignedInteger(4))
    return DType::U4;
  if (type.isSignlessInteger(4))
    return DType::I4;
  if (isa<Float4E2M1FNType>(type))
    return DType::F4E2M1;
  if (type.isUnsignedInteger(2))
    return DType::U2;
  if (type.isSignlessInteger(2))
    return DType::I2;
  return failure();
}

int64_t plan::getDTypeBits(DType dtype) {
  return ::tscm::dtypeBits(uint8_t(dtype));
}

std::optional<uint64_t> planner::maxByteSize(ArrayRef<int64_t> maxShape,
                                             DType dtype) {
  uint64_t elements = 1, bits = 0;
  for (int64_t max : maxShape)
    if (__builtin_mul_overflow(elements,
                               static_cast<uint64_t>(std::max<int64_t>(max, 0)),
                               &elements))
      return std::nullopt;
  if (__builtin_mul_overflow(elements, uint64_t(getDTypeBits(dtype)), &bits) ||
      bits / 8 >= (uint64_t(1) << 63))
    return std::nullopt;
  return (bits + 7) / 8;
}

bool planner::isPackedType(Type type) {
  unsigned bits = type.getIntOrFloatBitWidth();
  return bits > 1 && bits < 8;
}

std::vector<char> planner::packedBytes(DenseElementsAttr dense) {
  auto type = cast<ShapedType>(dense.getType());
  unsigned bits = type.getElementTypeBitWidth();
  std::vector<char> bytes(llvm::divideCeil(type.getNumElements() * bits, 8));
  auto pack = [&](int64_t i, const APInt &value) {
    bytes[i * bits / 8] |= char(value.getZExtValue() << (i * bits % 8));
  };
  if (isa<FloatType>(type.getElementType())) {
    for (auto [i, value] : llvm::enumerate(dense.getValues<APFloat>()))
      pack(i, value.bitcastToAPInt());
  } else {
    for (auto [i, value] : llvm::enumerate(dense.getValues<APInt>()))
      pack(i, value);
  }
  return bytes;
}

std::optional<unsigned> Plan::lookup(Value v) const {
  auto it = valueIndex.find(v);
  if (it == valueIndex.end())
    return std::nullopt;
  return it->second;
}

unsigned Plan::addExpr(AffineExpr expr) {
  auto [it, inserted] = exprIndex.try_emplace(expr, exprs.size());
  if (inserted)
    exprs.push_back(expr);
  return it->second;
}

void plan::forEachWeightPiece(const PlanWeight &weight,
                              function_ref<void(ArrayRef<char>)> write) {
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(weight.value)) {
    // buildPlan checked that the blob is there; the driver frees only the
    // blobs no live module refers to.
    write(resource.getRawHandle().getBlob()->getData());
    return;
  }
  auto dense = cast<DenseElementsAttr>(weight.value);
  if (planner::isPackedType(dense.getElementType())) {
    write(planner::packedBytes(dense));
    return;
  }
  if (dense.getElementType().isInteger(1)) {
    std::vector<char> bytes;
    for (bool b : dense.getValues<bool>())
      bytes.push_back(b ? 1 : 0);
    write(bytes);
    return;
  }
  ArrayRef<char> raw = dense.getRawData();
  if (!dense.isSplat() || raw.empty()) {
    write(raw);
    return;
  }
  // A splat holds one element: write it a block at a time.
  constexpr uint64_t kBlockBytes = 1 << 16;
  std::vector<char> block;
  for (uint64_t n = 0; n < weight.byteSize && block.size() < kBlockBytes;
       n += raw.size())
    block.insert(block.end(), raw.begin(), raw.end());
  for (uint64_t done = 0; done < weight.byteSize; done += block.size())
    write(ArrayRef<char>(block).take_front(
        std::min<uint64_t>(block.size(), weight.byteSize - done)));
}
