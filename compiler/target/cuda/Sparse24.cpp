//===- Sparse24.cpp - 2:4 sparse GEMM weights for CUDA --------------------===//
//
// See Sparse24.h and docs/pruning.md ("2:4 on CUDA").
//
//===----------------------------------------------------------------------===//

#include "compiler/target/cuda/Sparse24.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <cstring>

using namespace mlir;
using namespace mlir::tsc;
using namespace mlir::tsc::plan;

namespace {

/// Whether the element at `p` is ±0 (`bytes` 2: f16/bf16, 4: f32).
bool isZero(const char *p, unsigned bytes) {
  uint32_t bits = 0;
  std::memcpy(&bits, p, bytes);
  return (bits & (bytes == 4 ? 0x7FFFFFFFu : 0x7FFFu)) == 0;
}

/// The constant value of plan expression `e`, if it is one.
std::optional<int64_t> constantOf(const Plan &plan, unsigned e) {
  if (auto c = dyn_cast<AffineConstantExpr>(plan.exprs[e]))
    return c.getValue();
  return std::nullopt;
}

/// How many times the steps, launches, views and outputs of `plan` read or
/// write value `v`.
unsigned countUses(const Plan &plan, const cuda::DeviceCode &code, unsigned v) {
  unsigned uses = 0;
  for (const PlanStep &s : plan.steps) {
    uses += llvm::count(s.buffers, v);
    if (s.kind == PlanStep::Kind::Gemm)
      for (unsigned u : {s.a, s.b, s.c, s.bias, s.residual, s.weightScale})
        uses += u == v;
    if (s.kind == PlanStep::Kind::Copy)
      uses += (s.source == v) + (s.destination == v);
  }
  for (const std::vector<cuda::Launch> &launches : code.launches)
    for (const cuda::Launch &launch : launches)
      for (const cuda::LaunchArg &arg : launch.args)
        uses += arg.kind == cuda::LaunchArg::Kind::Pointer && arg.index == v;
  for (const PlanValue &value : plan.values)
    uses += value.storage == Storage::View && value.base == v;
  for (const auto &output : plan.outputs)
    uses += output.second == v;
  return uses;
}

/// The weight's name for the report: the model's name for its constant,
/// else its source location.
std::string describe(const PlanValue &value) {
  if (!value.value)
    return "?";
  Location loc = value.value.getLoc();
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().str();
  std::string text;
  llvm::raw_string_ostream os(text);
  loc.print(os);
  return text;
}

/// Whether every group of 4 along K of the n × k matrix (as compress24
/// reads it) has at most 2 nonzeros, and some element is nonzero.
bool has24(const char *dense, int64_t n, int64_t k, int64_t rowStride,
           int64_t colStride, unsigned elementBytes) {
  bool any = false;
  for (int64_t row = 0; row < n; ++row)
    for (int64_t group = 0; group < k / 4; ++group) {
      unsigned nonzeros = 0;
      for (int64_t i = 0; i < 4; ++i)
        nonzeros +=
            !isZero(dense + (row * rowStride + (group * 4 + i) * colStride) *
                                elementBytes,
                    elementBytes);
      if (nonzeros > 2)
        return false;
      any |= nonzeros > 0;
    }
  return any;
}

} // namespace

std::vector<char> cuda::compress24(const char *dense, int64_t n, int64_t k,
                                   int64_t rowStride, int64_t colStride,
                                   unsigned elementBytes) {
  if (k % 8 != 0)
    return {};
  std::vector<char> values(size_t(n) * size_t(k / 2) * elementBytes);
  std::vector<char> codes(size_t(n) * size_t(k / 8));
  char *out = values.data();
  for (int64_t row = 0; row < n; ++row) {
    for (int64_t group = 0; group < k / 4; ++group) {
      auto at = [&](int64_t i) {
        return dense +
               (row * rowStride + (group * 4 + i) * colStride) * elementBytes;
      };
      // The nonzeros, then the lowest zeros, up to two, in index order.
      unsigned kept[2], count = 0, nonzeros = 0;
      for (int64_t i = 0; i < 4; ++i)
        nonzeros += !isZero(at(i), elementBytes);
      if (nonzeros > 2)
        return {};
      unsigned zerosToKeep = 2 - nonzeros;
      for (unsigned i = 0; i < 4; ++i) {
        bool zero = isZero(at(i), elementBytes);
        if (!zero || (zerosToKeep && zerosToKeep--))
          kept[count++] = i;
      }
      for (unsigned i : kept) {
        std::memcpy(out, at(i), elementBytes);
        out += elementBytes;
      }
      uint8_t code = uint8_t(kept[0] | kept[1] << 2);
      size_t index = size_t(row) * size_t(k / 4) + size_t(group);
      codes[index / 2] |= char(code << (index % 2 ? 4 : 0));
    }
  }
  values.insert(values.end(), codes.begin(), codes.end());
  return values;
}

std::vector<std::string> cuda::compressSparseWeights(Plan &plan,
                                                     DeviceCode &code) {
  std::vector<std::string> notes;
  DenseMap<uint64_t, unsigned> weightAt; // offset -> index in plan.weights
  for (auto [i, weight] : llvm::enumerate(plan.weights))
    weightAt[weight.offset] = i;
  DenseMap<uint64_t, unsigned> valuesAt; // weight offset -> values there
  for (const PlanValue &value : plan.values)
    if (value.storage == Storage::Weight)
      ++valuesAt[value.offset];

  bool changed = false;
  for (auto [stepIndex, s] : llvm::enumerate(plan.steps)) {
    if (s.kind != PlanStep::Kind::Gemm || s.weightScale != ~0u)
      continue;
    PlanValue &b = plan.values[s.b];
    if (b.storage != Storage::Weight || !weightAt.count(b.offset))
      continue;
    std::optional<int64_t> batch = constantOf(plan, s.batch),
                           n = constantOf(plan, s.n), k = constantOf(plan, s.k),
                           ldb = constantOf(plan, s.ldb);
    DType dtype = b.dtype;
    unsigned elementBytes = dtype == DType::F32                             ? 4
                            : (dtype == DType::F16 || dtype == DType::BF16) ? 2
                                                                            : 0;
    if (!n || !k || !ldb || !elementBytes || *k % 4 ||
        uint64_t(*n * *k * elementBytes) != b.byteSize ||
        *ldb != (s.transB ? *k : *n))
      continue;
    PlanWeight &weight = plan.weights[weightAt[b.offset]];
    std::vector<char> dense;
    forEachWeightPiece(weight, [&](ArrayRef<char> piece) {
      dense.insert(dense.end(), piece.begin(), piece.end());
    });
    if (dense.size() != b.byteSize)
      continue;
    // B is K × N (row n of our view is column n) or N × K with transB.
    int64_t rowStride = s.transB ? *k : 1, colStride = s.transB ? 1 : *n;
    if (!has24(dense.data(), *n, *k, rowStride, colStride, elementBytes))
      continue; // a dense weight: nothing to say
    std::string what = llvm::formatv("2:4 gemm step {0} ({1}x{2}, weight {3})",
                                     stepIndex, *n, *k, describe(b));
    const char *why = nullptr;
    if (*k % 8)
      why = "K is not a multiple of 8";
    else if (dtype != plan.values[s.c].dtype || dtype != plan.values[s.a].dtype)
      why = "its operands' types differ";
    else if (dtype == DType::F32 && !plan.gemmTf32)
      why = "f32 runs sparse only with --precision=tf32 (cuSPARSELt computes "
            "f32 as TF32)";
    else if (!batch || *batch != 1)
      why = "a batched GEMM";
    else if (*k % 16 || *n % 16)
      why = "cuSPARSELt needs K and N multiples of 16";
    else if (valuesAt[b.offset] != 1 || countUses(plan, code, s.b) != 1)
      why = "the weight has other readers";
    if (why) {
      notes.push_back(what + ": runs dense: " + why);
      continue;
    }
    std::vector<char> packed =
        compress24(dense.data(), *n, *k, rowStride, colStride, elementBytes);
    notes.push_back(llvm::formatv("{0}: runs sparse (cuSPARSELt), weight {1} "
                                  "-> {2} bytes compressed",
                                  what, b.byteSize, packed.size()));
    MLIRContext *context = weight.value.getContext();
    auto type = RankedTensorType::get({int64_t(packed.size())},
                                      IntegerType::get(context, 8));
    weight.value = cast<ElementsAttr>(DenseElementsAttr::getFromRawBuffer(
        type, ArrayRef<char>(packed.data(), packed.size())));
    weight.byteSize = packed.size();
    b.byteSize = packed.size();
    code.sparseSteps.push_back(stepIndex);
    changed = true;
  }
  if (!changed)
    return notes;
  // Lay the weights out again, in the same order, each at the next aligned
  // offset.
  DenseMap<uint64_t, uint64_t> moved;
  uint64_t at = 0;
  for (PlanWeight &weight : plan.weights) {
    at = llvm::alignTo(at, kAlignment);
    moved[weight.offset] = at;
    weight.offset = at;
    at += weight.byteSize;
  }
  for (PlanValue &value : plan.values)
    if (value.storage == Storage::Weight)
      value.offset = moved.lookup(value.offset);
  plan.weightBytes = at; // (as buildPlan: the last weight's end)
  return notes;
}
