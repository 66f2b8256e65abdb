//===- TscIndexingOps.cpp - verifiers and inference of the Indexing ops ---===//

#include "dialects/tsc/IR/TscOpUtils.h"
#include "dialects/tsc/IR/TscOps.h"

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::util;

//===----------------------------------------------------------------------===//
// Gathers
//===----------------------------------------------------------------------===//

LogicalResult
GatherElementsOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                   Adaptor adaptor,
                                   SmallVectorImpl<Type> &results) {
  auto data = cast<RankedTensorType>(adaptor.getData().getType());
  auto indices = cast<RankedTensorType>(adaptor.getIndices().getType());
  if (failed(verifyAxis(loc, static_cast<int64_t>(adaptor.getAxis()),
                        data.getRank())))
    return failure();
  if (data.getRank() != indices.getRank())
    return emitOptionalError(loc, "indices have rank ", indices.getRank(),
                             ", data has rank ", data.getRank());
  results.push_back(indices.clone(data.getElementType()));
  return success();
}

LogicalResult GatherNdOp::inferReturnTypes(MLIRContext *,
                                           std::optional<Location> loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &results) {
  auto data = cast<RankedTensorType>(adaptor.getData().getType());
  auto indices = cast<RankedTensorType>(adaptor.getIndices().getType());
  auto batch = static_cast<int64_t>(adaptor.getBatchDims());
  int64_t r = data.getRank(), q = indices.getRank();
  if (q < 1 || batch < 0 || batch >= std::min(q, r))
    return emitOptionalError(loc, "batch_dims ", batch,
                             " must be below both ranks (", r, " and ", q, ")");
  int64_t k = indices.getShape().back();
  if (ShapedType::isDynamic(k) || k < 1 || k > r - batch)
    return emitOptionalError(loc, "the index tuples' length ", dimToString(k),
                             " must be static and in [1, ", r - batch, "]");
  for (int64_t d = 0; d < batch; ++d)
    if (!dimsCompatible(data.getDimSize(d), indices.getDimSize(d)))
      return emitOptionalError(
          loc, "batch dim ", d, " is ", dimToString(data.getDimSize(d)),
          " in data and ", dimToString(indices.getDimSize(d)), " in indices");
  SmallVector<int64_t> shape(indices.getShape().drop_back());
  llvm::append_range(shape, data.getShape().drop_front(batch + k));
  results.push_back(RankedTensorType::get(shape, data.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Scatters
//===----------------------------------------------------------------------===//

namespace {

/// Result inference of the scatters: `data`'s type.
LogicalResult inferScatterResult(Value data, SmallVectorImpl<Type> &results) {
  results.push_back(data.getType());
  return success();
}

/// Checks that `updates` has `data`'s element type.
LogicalResult verifySameElements(Operation *op, Value data, Value updates) {
  Type a = cast<RankedTensorType>(data.getType()).getElementType();
  Type b = cast<RankedTensorType>(updates.getType()).getElementType();
  if (a != b)
    return op->emitOpError("updates have element type ")
           << b << ", data has " << a;
  return success();
}

/// Checks that `shape` matches `expected` dim by dim where both are static.
LogicalResult verifyShape(Operation *op, StringRef what,
                          ArrayRef<int64_t> shape, ArrayRef<int64_t> expected) {
  bool ok = shape.size() == expected.size();
  for (size_t d = 0; ok && d < shape.size(); ++d)
    ok = dimsCompatible(shape[d], expected[d]);
  if (!ok)
    return op->emitOpError(what) << " have shape " << shapeToString(shape)
                                 << ", expected " << shapeToString(expected);
  return success();
}

} // namespace

LogicalResult
ScatterElementsOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                                    Adaptor adaptor,
                                    SmallVectorImpl<Type> &results) {
  return inferScatterResult(adaptor.getData(), results);
}

LogicalResult ScatterElementsOp::verify() {
  RankedTensorType data = getData().getType();
  auto indices = cast<RankedTensorType>(getIndices().getType());
  auto axis = static_cast<int64_t>(getAxis());
  if (failed(verifyAxis(*this, "axis", axis, data.getRank())) ||
      failed(verifySameElements(*this, getData(), getUpdates())) ||
      failed(verifyShape(*this, "updates", getUpdates().getType().getShape(),
                         indices.getShape())))
    return failure();
  if (indices.getRank() != data.getRank())
    return emitOpError("indices have rank ")
           << indices.getRank() << ", data has rank " << data.getRank();
  for (int64_t d = 0; d < data.getRank(); ++d)
    if (d != axis && !ShapedType::isDynamic(indices.getDimSize(d)) &&
        !data.isDynamicDim(d) && indices.getDimSize(d) > data.getDimSize(d))
      return emitOpError("indices dim ")
             << d << " (" << indices.getDimSize(d) << ") exceeds data's ("
             << data.getDimSize(d) << ")";
  return success();
}

LogicalResult ScatterNdOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location>,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  return inferScatterResult(adaptor.getData(), results);
}

LogicalResult ScatterNdOp::verify() {
  RankedTensorType data = getData().getType();
  auto indices = cast<RankedTensorType>(getIndices().getType());
  if (failed(verifySameElements(*this, getData(), getUpdates())))
    return failure();
  int64_t k = indices.getRank() ? indices.getShape().back() : 0;
  if (ShapedType::isDynamic(k) || k < 1 || k > data.getRank())
    return emitOpError("the index tuples' length ")
           << dimToString(k) << " must be static and in [1, " << data.getRank()
           << "]";
  SmallVector<int64_t> expected(indices.getShape().drop_back());
  llvm::append_range(expected, data.getShape().drop_front(k));
  return verifyShape(*this, "updates", getUpdates().getType().getShape(),
                     expected);
}

LogicalResult
TensorScatterOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                                  Adaptor adaptor,
                                  SmallVectorImpl<Type> &results) {
  return inferScatterResult(adaptor.getCache(), results);
}

LogicalResult TensorScatterOp::verify() {
  RankedTensorType cache = getCache().getType();
  RankedTensorType update = getUpdate().getType();
  auto axis = static_cast<int64_t>(getAxis());
  if (failed(verifySameElements(*this, getCache(), getUpdate())))
    return failure();
  if (axis < 1 || axis >= cache.getRank())
    return emitOpError("axis ")
           << axis << " is out of range [1, " << cache.getRank() << ")";
  SmallVector<int64_t> expected(cache.getShape());
  expected[axis] = update.getRank() == cache.getRank() ? update.getDimSize(axis)
                                                       : ShapedType::kDynamic;
  if (failed(verifyShape(*this, "update", update.getShape(), expected)))
    return failure();
  if (!update.isDynamicDim(axis) && !cache.isDynamicDim(axis) &&
      update.getDimSize(axis) > cache.getDimSize(axis))
    return emitOpError("update has ")
           << update.getDimSize(axis) << " positions along axis " << axis
           << ", the cache " << cache.getDimSize(axis);
  if (Value indices = getWriteIndices()) {
    int64_t n = cast<RankedTensorType>(indices.getType()).getDimSize(0);
    if (!dimsCompatible(n, cache.getDimSize(0)))
      return emitOpError("write_indices have ")
             << n << " entries for a batch of " << cache.getDimSize(0);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Padding and reordering
//===----------------------------------------------------------------------===//

LogicalResult PadOp::inferReturnTypes(MLIRContext *,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &results) {
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  ArrayRef<int64_t> low = adaptor.getLow(), high = adaptor.getHigh();
  if (static_cast<int64_t>(low.size()) != input.getRank() ||
      static_cast<int64_t>(high.size()) != input.getRank())
    return emitOptionalError(loc, "low and high need ", input.getRank(),
                             " entries, got ", low.size(), " and ",
                             high.size());
  if (Value value = adaptor.getValue()) {
    auto type = cast<RankedTensorType>(value.getType());
    if (type.getRank() != 0 || type.getElementType() != input.getElementType())
      return emitOptionalError(loc, "value must be a 0-d tensor of ",
                               input.getElementType());
  }
  SmallVector<int64_t> shape;
  for (auto [dim, lo, hi] : llvm::zip_equal(input.getShape(), low, high)) {
    if (lo < 0 || hi < 0)
      return emitOptionalError(loc, "border widths must not be negative");
    shape.push_back(ShapedType::isDynamic(dim) ? dim : lo + dim + hi);
  }
  results.push_back(input.clone(shape));
  return success();
}

LogicalResult
ReverseSequenceOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                                    Adaptor adaptor,
                                    SmallVectorImpl<Type> &results) {
  results.push_back(adaptor.getInput().getType());
  return success();
}

LogicalResult ReverseSequenceOp::verify() {
  RankedTensorType input = getInput().getType();
  auto batch = static_cast<int64_t>(getBatchAxis());
  auto time = static_cast<int64_t>(getTimeAxis());
  if (failed(verifyAxis(*this, "batch_axis", batch, input.getRank())) ||
      failed(verifyAxis(*this, "time_axis", time, input.getRank())))
    return failure();
  if (batch == time)
    return emitOpError("batch_axis and time_axis are both ") << batch;
  int64_t n = cast<RankedTensorType>(getLengths().getType()).getDimSize(0);
  if (!dimsCompatible(n, input.getDimSize(batch)))
    return emitOpError("lengths have ") << n << " entries for a batch of "
                                        << dimToString(input.getDimSize(batch));
  return success();
}
