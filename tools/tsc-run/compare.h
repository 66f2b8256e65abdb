//===- compare.h - tsc-run --expected: outputs against reference arrays ---===//

#ifndef TSC_TOOLS_TSC_RUN_COMPARE_H
#define TSC_TOOLS_TSC_RUN_COMPARE_H

#include "tsc/runtime.hpp"

#include <string>

namespace tsc::run {

/// Compares output `name` with `expected` (as read from a .npy file, in the
/// representation tsc-run writes outputs in: bf16 as f32, 8-bit floats as
/// their bits, packed types one element a byte). Passes when the shapes are
/// equal and every element satisfies |a - e| <= atol + rtol * |e| (NumPy's
/// allclose), NaN only where NaN and infinities equal. Returns "" on a pass,
/// else a message naming the output, the number of elements off and the
/// largest error with its index and both values.
std::string compareOutput(const std::string &name, const Tensor &actual,
                          const Tensor &expected, double rtol, double atol);

} // namespace tsc::run

#endif // TSC_TOOLS_TSC_RUN_COMPARE_H
