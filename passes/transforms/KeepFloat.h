//===- KeepFloat.h - GEMMs a quantize pass leaves float, by name -*- C++
//-*-===//
//
// The quantize passes (tsc-quantize-dynamic-int8, tsc-quantize-static-int8)
// take `keep-float` patterns: a GEMM whose name matches one stays float.
// A GEMM's name is its location's: the source node's name for imported
// models (`/layer.0/output/dense/MatMul`), `FILE:LINE:COL` for a parsed
// .mlir op without a name. `tsc --max-error` chooses the list and prints
// it, so that `tsc-opt --tsc-quantize-dynamic-int8="keep-float=..."`
// replays the choice.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_PASSES_TRANSFORMS_KEEPFLOAT_H
#define TSC_PASSES_TRANSFORMS_KEEPFLOAT_H

#include "mlir/IR/Location.h"
#include "mlir/IR/Operation.h"
#include "llvm/Support/GlobPattern.h"

#include <string>
#include <vector>

namespace mlir::tsc {

/// The name of `op` for keep-float: the first name in its location (a
/// fused location's parts in order), else its first FILE:LINE:COL, else "".
inline std::string getGemmName(Operation *op) {
  std::string name, position;
  op->getLoc()->walk([&](Location loc) {
    if (auto named = dyn_cast<NameLoc>(loc)) {
      name = named.getName().str();
      return WalkResult::interrupt();
    }
    if (auto file = dyn_cast<FileLineColLoc>(loc); file && position.empty())
      position =
          (file.getFilename().str() + ":" + std::to_string(file.getLine()) +
           ":" + std::to_string(file.getColumn()));
    return WalkResult::advance();
  });
  return name.empty() ? position : name;
}

/// Glob patterns (llvm::GlobPattern: `*`, `?`, `[...]`) naming GEMMs.
class KeepFloat {
public:
  /// The patterns, or an error naming the one that does not parse.
  static llvm::Expected<KeepFloat> parse(ArrayRef<std::string> patterns) {
    KeepFloat out;
    for (const std::string &text : patterns) {
      llvm::Expected<llvm::GlobPattern> pattern =
          llvm::GlobPattern::create(text);
      if (!pattern)
        return llvm::createStringError("keep-float: '" + text + "': " +
                                       llvm::toString(pattern.takeError()));
      out.patterns.push_back(std::move(*pattern));
    }
    return out;
  }

  /// parse() into `out` for a pass's initialize(): failure after an error
  /// naming the pattern that does not parse.
  static LogicalResult parse(MLIRContext *context,
                             ArrayRef<std::string> patterns, KeepFloat &out) {
    llvm::Expected<KeepFloat> parsed = parse(patterns);
    if (!parsed)
      return emitError(UnknownLoc::get(context))
             << llvm::toString(parsed.takeError());
    out = std::move(*parsed);
    return success();
  }

  /// Whether `op` stays float.
  bool matches(Operation *op) const {
    if (patterns.empty())
      return false;
    std::string name = getGemmName(op);
    return llvm::any_of(patterns, [&](const llvm::GlobPattern &pattern) {
      return pattern.match(name);
    });
  }

private:
  std::vector<llvm::GlobPattern> patterns;
};

} // namespace mlir::tsc

#endif // TSC_PASSES_TRANSFORMS_KEEPFLOAT_H
