//===- expr.h - shape expressions: checking, evaluating, printing ---------===//
//
// Dims, sizes and strides in a plan are postfix code over the symbols,
// evaluated on an i64 stack of depth <= 64 (docs/artifact-format.md).
//
//===----------------------------------------------------------------------===//

#ifndef TSC_RUNTIME_EXPR_H
#define TSC_RUNTIME_EXPR_H

#include "format.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tsc::rt {

constexpr size_t kExprStackDepth = 64;

/// Reads element `element` of input `input` as an i64, for expressions that
/// define symbols from data (format 1.6, code 0x03); false with the reason
/// in `error` when it cannot.
struct ElementReader {
  virtual bool read(uint32_t input, uint32_t element, int64_t &out,
                    const char *&error) const = 0;
  /// Element `element` of plan value `value`, computed by an earlier step
  /// (format 1.8, code 0x04).
  virtual bool readValue(uint32_t value, uint32_t element, int64_t &out,
                         const char *&error) const {
    (void)value, (void)element, (void)out;
    error = "no computed values to read";
    return false;
  }

protected:
  ~ElementReader() = default;
};

/// One expression, its code borrowed from the PLAN section.
struct Symbol;

struct Expr {
  const uint8_t *code = nullptr;
  size_t size = 0;
  /// The symbol index when the code is exactly "push symbol j", else -1.
  int64_t bareSymbol = -1;
  /// True when the code uses no symbol.
  bool constant = false;
};

struct Symbol {
  std::string name;
  int64_t min = 0, max = 0;
  /// Format 1.6: the symbol is defined by this expression (over the inputs'
  /// data and earlier symbols) rather than bound by an input dim.
  bool defined = false;
  Expr definition;
  /// Format 1.8: the step after which a run evaluates the definition (one
  /// reading a value that step computes); kNoStep before the first step.
  uint32_t afterStep = 0xFFFFFFFFu;
};

/// Checks that `code` decodes into known operations with whole immediates,
/// symbol indices below `symbolCount`, input indices below `inputCount`
/// and value indices below `valueCount` (element reads are allowed only
/// where these are nonzero: in symbol definitions), and a stack that never
/// underflows, never exceeds kExprStackDepth and ends with one value. Fills
/// the code, bareSymbol and constant fields of `out`; on failure returns the
/// reason.
bool checkExpr(const uint8_t *code, size_t size, uint32_t symbolCount,
               Expr &out, std::string &error, uint32_t inputCount = 0,
               uint32_t valueCount = 0);

/// Evaluates checked code; element reads go to `reader`. Fails, with the
/// reason in `error`, on i64 overflow, a division or modulo by a
/// non-positive value, or a failed read.
bool evalExpr(const Expr &expr, const int64_t *symbols, int64_t &out,
              const char *&error, const ElementReader *reader = nullptr);

/// The input and element an expression reads when it is exactly one element
/// read (code 0x03), else false.
bool isElementRead(const Expr &expr, uint32_t &input, uint32_t &element);

/// The (input, element) pairs that checked code reads; with `values`, the
/// (value, element) pairs of computed values (code 0x04) instead.
std::vector<std::pair<uint32_t, uint32_t>> elementReads(const Expr &expr,
                                                        bool values = false);

/// The symbols that checked code reads.
std::vector<uint32_t> exprSymbols(const Expr &expr);

/// Infix text of checked code, e.g. "2 * seq" or "ceildiv(seq, 64)".
std::string printExpr(const Expr &expr, const std::vector<Symbol> &symbols);

/// The opcodes, as format.h defines them.
namespace expr_code = ::tscm::expr_code;

} // namespace tsc::rt

#endif // TSC_RUNTIME_EXPR_H
