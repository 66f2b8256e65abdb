//===- expr.h - shape expressions: checking, evaluating, printing ---------===//
//
// Dims, sizes and strides in a plan are postfix code over the symbols,
// evaluated on an i64 stack of depth <= 64 (docs/artifact-format.md).
//
//===----------------------------------------------------------------------===//

#ifndef TSC_RUNTIME_EXPR_H
#define TSC_RUNTIME_EXPR_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tsc::rt {

constexpr size_t kExprStackDepth = 64;

struct Symbol {
  std::string name;
  int64_t min = 0, max = 0;
};

/// One expression, its code borrowed from the PLAN section.
struct Expr {
  const uint8_t *code = nullptr;
  size_t size = 0;
  /// The symbol index when the code is exactly "push symbol j", else -1.
  int64_t bareSymbol = -1;
  /// True when the code uses no symbol.
  bool constant = false;
};

/// Checks that `code` decodes into known operations with whole immediates,
/// symbol indices below `symbolCount`, and a stack that never underflows,
/// never exceeds kExprStackDepth and ends with one value. Fills the code,
/// bareSymbol and constant fields of `out`; on failure returns the reason.
bool checkExpr(const uint8_t *code, size_t size, uint32_t symbolCount,
               Expr &out, std::string &error);

/// Evaluates checked code. Fails, with the reason in `error`, on i64
/// overflow or a division or modulo by a non-positive value.
bool evalExpr(const Expr &expr, const int64_t *symbols, int64_t &out,
              const char *&error);

/// Infix text of checked code, e.g. "2 * seq" or "ceildiv(seq, 64)".
std::string printExpr(const Expr &expr, const std::vector<Symbol> &symbols);

} // namespace tsc::rt

#endif // TSC_RUNTIME_EXPR_H
