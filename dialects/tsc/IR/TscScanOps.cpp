//===- TscScanOps.cpp - verifiers and inference of the Scan ops ---===//

#include "dialects/tsc/IR/TscOpUtils.h"
#include "dialects/tsc/IR/TscOps.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::util;

/// The result of an index reduction along `axis`: the reduction's shape,
/// `i64` positions.
static LogicalResult inferArgReduction(std::optional<Location> loc, Value input,
                                       uint64_t axis, bool keepdim,
                                       SmallVectorImpl<Type> &results) {
  SmallVector<Type> reduced;
  if (failed(inferReductionResult(loc, input, {static_cast<int64_t>(axis)},
                                  keepdim, reduced)))
    return failure();
  auto type = cast<RankedTensorType>(reduced.front());
  results.push_back(type.clone(IntegerType::get(input.getContext(), 64)));
  return success();
}

LogicalResult ArgMaxOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  return inferArgReduction(loc, adaptor.getInput(), adaptor.getAxis(),
                           adaptor.getKeepdim(), results);
}

LogicalResult ArgMinOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  return inferArgReduction(loc, adaptor.getInput(), adaptor.getAxis(),
                           adaptor.getKeepdim(), results);
}

/// Exactly one of the static and the run-time axis, the static one in range.
template <typename Op> static LogicalResult verifyScan(Op op) {
  if (static_cast<bool>(op.getAxis()) == static_cast<bool>(op.getRuntimeAxis()))
    return op.emitOpError("needs exactly one of `axis` and `runtime_axis`");
  int64_t rank = op.getInput().getType().getRank();
  if (rank == 0)
    return op.emitOpError("scans a tensor of rank at least 1");
  if (std::optional<uint64_t> axis = op.getAxis())
    return verifyAxis(op, "axis", static_cast<int64_t>(*axis), rank);
  return success();
}

LogicalResult CumSumOp::verify() { return verifyScan(*this); }
LogicalResult CumProdOp::verify() { return verifyScan(*this); }

/// A constant run-time axis (shape arithmetic folded after conversion)
/// becomes the static one, in place.
template <typename Op>
static OpFoldResult foldScan(Op op, Attribute runtimeAxis) {
  auto value = dyn_cast_if_present<DenseIntElementsAttr>(runtimeAxis);
  if (!value)
    return {};
  int64_t rank = op.getInput().getType().getRank();
  int64_t axis = (*value.template getValues<APInt>().begin()).getSExtValue();
  if (axis < -rank || axis >= rank)
    return {};
  op.getRuntimeAxisMutable().clear();
  op.setAxis(static_cast<uint64_t>(axis < 0 ? axis + rank : axis));
  return op.getResult();
}

OpFoldResult CumSumOp::fold(FoldAdaptor adaptor) {
  return foldScan(*this, adaptor.getRuntimeAxis());
}
OpFoldResult CumProdOp::fold(FoldAdaptor adaptor) {
  return foldScan(*this, adaptor.getRuntimeAxis());
}

LogicalResult TopKOp::inferReturnTypes(MLIRContext *context,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &results) {
  auto type = cast<RankedTensorType>(adaptor.getInput().getType());
  auto axis = static_cast<int64_t>(adaptor.getAxis());
  auto k = static_cast<int64_t>(adaptor.getK());
  if (failed(verifyAxis(loc, axis, type.getRank())))
    return failure();
  int64_t size = type.getDimSize(axis);
  if (k < 0 || (!ShapedType::isDynamic(size) && k > size))
    return emitOptionalError(loc, "k = ", k, " is out of range [0, ",
                             dimToString(size), "] for axis ", axis);
  SmallVector<int64_t> shape(type.getShape());
  shape[axis] = k;
  results.push_back(type.clone(shape));
  results.push_back(type.clone(shape, IntegerType::get(context, 64)));
  return success();
}

LogicalResult ReduceWindowOp::verify() {
  auto input = cast<RankedTensorType>(getInput().getType());
  auto result = cast<RankedTensorType>(getType());
  int64_t rank = input.getRank();
  if (static_cast<int64_t>(getWindow().size()) != rank ||
      static_cast<int64_t>(getSizes().size()) != rank)
    return emitOpError("needs one window and one size per input dim (")
           << rank << "), got " << getWindow().size() << " and "
           << getSizes().size();
  if (result.getRank() != rank ||
      result.getElementType() != input.getElementType())
    return emitOpError("result must have the input's rank and element type");
  if (!llvm::is_contained(
          ArrayRef<StringRef>{"sum", "mean", "prod", "max", "min", "logsumexp"},
          getKind()))
    return emitOpError("unknown kind '") << getKind() << "'";
  if (getKind() == "logsumexp" && !isa<FloatType>(input.getElementType()))
    return emitOpError("logsumexp needs a float input");
  return success();
}
