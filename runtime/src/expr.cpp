//===- expr.cpp - checking, evaluating and printing shape expressions -----===//

#include "expr.h"

#include "artifact.h"
#include "internal.h"

#include <algorithm>

namespace tsc::rt {
namespace {

using namespace expr_code;

bool isBinary(uint8_t op) { return op >= kAdd && op <= kLt; }

} // namespace

bool checkExpr(const uint8_t *code, size_t size, uint32_t symbolCount,
               Expr &out, std::string &error, uint32_t inputCount,
               uint32_t valueCount) {
  size_t depth = 0;
  bool usesSymbols = false;
  for (size_t pc = 0; pc < size;) {
    uint8_t op = code[pc];
    if (op != kConst && op != kSymbol && op != kElement &&
        op != kValueElement && op != kSelect && !isBinary(op)) {
      error = formatString("unknown code 0x%02x at byte %zu", op, pc);
      return false;
    }
    size_t immediate = immediateSize(op);
    if (size - pc - 1 < immediate) {
      error = "truncated immediate at byte " + std::to_string(pc);
      return false;
    }
    if (op == kSymbol) {
      uint32_t j = loadU32(code + pc + 1);
      if (j >= symbolCount) {
        error = "symbol " + std::to_string(j) + " out of range (" +
                std::to_string(symbolCount) + " symbols)";
        return false;
      }
      usesSymbols = true;
    }
    if (op == kElement || op == kValueElement) {
      uint32_t index = loadU32(code + pc + 1);
      uint32_t count = op == kElement ? inputCount : valueCount;
      std::string what = op == kElement ? "input" : "value";
      if (index >= count) {
        error = count ? what + " " + std::to_string(index) +
                            " out of range (" + std::to_string(count) + " " +
                            what + "s)"
                      : "an element read outside a symbol definition";
        return false;
      }
      usesSymbols = true;
    }
    if (isBinary(op) || op == kSelect) {
      size_t operands = op == kSelect ? 3 : 2;
      if (depth < operands) {
        error = "stack underflow at byte " + std::to_string(pc);
        return false;
      }
      depth -= operands - 1;
    } else if (++depth > kExprStackDepth) {
      error = "stack deeper than " + std::to_string(kExprStackDepth);
      return false;
    }
    pc += 1 + immediate;
  }
  if (depth != 1) {
    error =
        "leaves " + std::to_string(depth) + " values on the stack instead of 1";
    return false;
  }
  out.code = code;
  out.size = size;
  out.constant = !usesSymbols;
  out.bareSymbol =
      (size == 5 && code[0] == kSymbol) ? int64_t(loadU32(code + 1)) : -1;
  return true;
}

bool isElementRead(const Expr &expr, uint32_t &input, uint32_t &element) {
  if (expr.size != 9 || expr.code[0] != kElement)
    return false;
  input = loadU32(expr.code + 1);
  element = loadU32(expr.code + 5);
  return true;
}

std::vector<uint32_t> exprSymbols(const Expr &expr) {
  std::vector<uint32_t> used;
  for (size_t pc = 0; pc < expr.size;) {
    uint8_t op = expr.code[pc];
    if (op == kSymbol) {
      uint32_t j = loadU32(expr.code + pc + 1);
      if (std::find(used.begin(), used.end(), j) == used.end())
        used.push_back(j);
    }
    pc += 1 + immediateSize(op);
  }
  return used;
}

std::vector<std::pair<uint32_t, uint32_t>> elementReads(const Expr &expr,
                                                        bool values) {
  std::vector<std::pair<uint32_t, uint32_t>> reads;
  for (size_t pc = 0; pc < expr.size;) {
    uint8_t op = expr.code[pc];
    if (op == (values ? kValueElement : kElement))
      reads.emplace_back(loadU32(expr.code + pc + 1),
                         loadU32(expr.code + pc + 5));
    pc += 1 + immediateSize(op);
  }
  return reads;
}

bool evalExpr(const Expr &expr, const int64_t *symbols, int64_t &out,
              const char *&error, const ElementReader *reader) {
  int64_t stack[kExprStackDepth];
  size_t depth = 0;
  const uint8_t *code = expr.code;
  for (size_t pc = 0; pc < expr.size;) {
    uint8_t op = code[pc++];
    if (op == kConst) {
      stack[depth++] = int64_t(loadU64(code + pc));
      pc += 8;
      continue;
    }
    if (op == kSymbol) {
      stack[depth++] = symbols[loadU32(code + pc)];
      pc += 4;
      continue;
    }
    if (op == kElement || op == kValueElement) {
      if (!reader) {
        error = "no data to read";
        return false;
      }
      uint32_t index = loadU32(code + pc), element = loadU32(code + pc + 4);
      if (!(op == kElement
                ? reader->read(index, element, stack[depth++], error)
                : reader->readValue(index, element, stack[depth++], error)))
        return false;
      pc += 8;
      continue;
    }
    if (op == kSelect) {
      depth -= 2;
      stack[depth - 1] =
          stack[depth - 1] != 0 ? stack[depth] : stack[depth + 1];
      continue;
    }
    int64_t b = stack[--depth];
    int64_t &a = stack[depth - 1];
    if (op == kMin || op == kMax || op == kEq || op == kLt) {
      a = op == kMin   ? std::min(a, b)
          : op == kMax ? std::max(a, b)
          : op == kEq  ? int64_t(a == b)
                       : int64_t(a < b);
      continue;
    }
    if (op == kAdd || op == kMul) {
      bool overflow = op == kAdd ? __builtin_add_overflow(a, b, &a)
                                 : __builtin_mul_overflow(a, b, &a);
      if (overflow) {
        error = "i64 overflow";
        return false;
      }
      continue;
    }
    if (b <= 0) {
      error = "division or modulo by a value <= 0";
      return false;
    }
    int64_t q = a / b, r = a % b; // b > 0: no overflow
    if (op == kFloorDiv)
      a = q - (r < 0);
    else if (op == kCeilDiv)
      a = q + (r > 0);
    else
      a = r < 0 ? r + b : r;
  }
  out = stack[0];
  return true;
}

std::string printExpr(const Expr &expr, const std::vector<Symbol> &symbols) {
  // Each stack entry is text plus whether it needs parentheses as an operand.
  std::vector<std::pair<std::string, bool>> stack;
  auto operand = [](const std::pair<std::string, bool> &e) {
    return e.second ? "(" + e.first + ")" : e.first;
  };
  const uint8_t *code = expr.code;
  for (size_t pc = 0; pc < expr.size;) {
    uint8_t op = code[pc++];
    if (op == kConst) {
      stack.push_back({std::to_string(int64_t(loadU64(code + pc))), false});
      pc += 8;
      continue;
    }
    if (op == kSymbol) {
      stack.push_back({symbols[loadU32(code + pc)].name, false});
      pc += 4;
      continue;
    }
    if (op == kElement || op == kValueElement) {
      stack.push_back({(op == kElement ? "input" : "value") +
                           std::to_string(loadU32(code + pc)) + "[" +
                           std::to_string(loadU32(code + pc + 4)) + "]",
                       false});
      pc += 8;
      continue;
    }
    if (op == kSelect) {
      auto f = stack.back();
      stack.pop_back();
      auto t = stack.back();
      stack.pop_back();
      auto c = stack.back();
      stack.pop_back();
      stack.push_back(
          {operand(c) + " ? " + operand(t) + " : " + operand(f), true});
      continue;
    }
    auto b = stack.back();
    stack.pop_back();
    auto a = stack.back();
    stack.pop_back();
    switch (op) {
    case kAdd:
      stack.push_back({operand(a) + " + " + operand(b), true});
      break;
    case kMul:
      stack.push_back({operand(a) + " * " + operand(b), true});
      break;
    case kFloorDiv:
      stack.push_back({"floordiv(" + a.first + ", " + b.first + ")", false});
      break;
    case kCeilDiv:
      stack.push_back({"ceildiv(" + a.first + ", " + b.first + ")", false});
      break;
    case kMin:
    case kMax:
      stack.push_back({std::string(op == kMin ? "min(" : "max(") + a.first +
                           ", " + b.first + ")",
                       false});
      break;
    case kEq:
    case kLt:
      stack.push_back(
          {operand(a) + (op == kEq ? " == " : " < ") + operand(b), true});
      break;
    default:
      stack.push_back({operand(a) + " mod " + operand(b), true});
      break;
    }
  }
  return stack.empty() ? std::string() : stack.back().first;
}

} // namespace tsc::rt
