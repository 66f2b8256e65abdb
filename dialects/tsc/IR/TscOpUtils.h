//===- TscOpUtils.h - shape helpers shared by the tsc op verifiers -*- C++ -*-===//
//
// Private to dialects/tsc/IR: small dim arithmetic used by verifiers, result
// inference and folders.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_DIALECTS_TSC_IR_TSCOPUTILS_H
#define TSC_DIALECTS_TSC_IR_TSCOPUTILS_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OpDefinition.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::tsc::util {

/// Two dims may be equal at run time.
inline bool dimsCompatible(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

/// Prints a dim as numpy would show it, `?` when dynamic.
std::string dimToString(int64_t dim);

/// Prints anything with an `operator<<` for raw_ostream (affine maps and
/// expressions, which diagnostics cannot stream directly).
template <typename T>
std::string toString(const T &value) {
  std::string out;
  llvm::raw_string_ostream os(out);
  os << value;
  return out;
}

/// Broadcasts `shape` into `acc` (numpy rules, right-aligned). `acc` starts
/// empty. Fails, reporting at `loc`, when two static dims differ and neither
/// is 1.
LogicalResult broadcastInto(std::optional<Location> loc,
                            SmallVectorImpl<int64_t> &acc,
                            ArrayRef<int64_t> shape);

/// Checks that `dims` is strictly increasing and within [0, rank).
LogicalResult verifyDimList(std::optional<Location> loc, StringRef what,
                            ArrayRef<int64_t> dims, int64_t rank);

/// Checks that `axis` is within [0, rank), for result inference (which
/// reports at a location, when it has one).
LogicalResult verifyAxis(std::optional<Location> loc, int64_t axis,
                         int64_t rank);

/// Checks that the attribute `name` of `op`, an axis, is within [0, rank).
LogicalResult verifyAxis(Operation *op, StringRef name, int64_t axis,
                         int64_t rank);

/// Prints a shape as `[?, 768]`.
std::string shapeToString(ArrayRef<int64_t> shape);

/// One element of a constant-folded binary op; nullopt where it has no
/// value to fold to.
template <typename ElementT>
using BinaryFn =
    function_ref<std::optional<ElementT>(const ElementT &, const ElementT &)>;

/// Constant-folds an elementwise binary op with numpy broadcasting: `onFloat`
/// or `onInt` on each pair of elements of small dense constants (any element
/// the function declines leaves the op unfolded).
Attribute foldArithmetic(Attribute lhsAttr, Attribute rhsAttr, Type resultType,
                         BinaryFn<APFloat> onFloat, BinaryFn<APInt> onInt);

} // namespace mlir::tsc::util

#endif // TSC_DIALECTS_TSC_IR_TSCOPUTILS_H
