//===- host_gemm_int8.cpp - a host session's int8 GEMM steps --------------===//

#include "host_gemm_int8.h"

#include "quantize_rows.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <unordered_map>

namespace tsc::rt::gemm {
namespace {

Int8Gemms::Codes codesFor(dnnl::cpu_isa isa) {
  switch (isa) {
  case dnnl::cpu_isa::avx512_core_amx:
    return Int8Gemms::Codes::S8;
  case dnnl::cpu_isa::avx2_vnni:
  case dnnl::cpu_isa::avx512_core_vnni:
  case dnnl::cpu_isa::avx512_core_bf16:
    return Int8Gemms::Codes::U8;
  default:
    return Int8Gemms::Codes::F32;
  }
}

/// The largest |code| of a narrow (7-bit) weight: u8 x s8 pair sums of
/// such codes stay within vpmaddubsw's saturating 16 bits.
constexpr int kNarrowCodeMax = 64;
static_assert(2 * 255 * kNarrowCodeMax <= 32767,
              "a narrow weight's pair sums must not saturate");

/// Whether every code of the s8 weight `b` (`shape`'s layout) is in
/// [-kNarrowCodeMax, kNarrowCodeMax] (StepState::narrowWeight).
bool isNarrow(const int8_t *b, const Shape &shape, bool transB) {
  const int64_t rows = transB ? shape.n : shape.k;
  const int64_t columns = transB ? shape.k : shape.n;
  for (int64_t r = 0; r < rows; ++r)
    if (std::any_of(b + r * shape.ldb, b + r * shape.ldb + columns,
                    [](int8_t code) {
                      return code < -kNarrowCodeMax || code > kNarrowCodeMax;
                    }))
      return false;
  return true;
}

memory::desc rowScalesDesc(const Shape &shape) {
  return memory::desc(Dims{shape.m, 1}, memory::data_type::f32,
                      memory::format_tag::ab);
}

} // namespace

Int8Gemms::Int8Gemms(const tsc_model_s &model, const dnnl::engine &engine,
                     dnnl::stream &stream)
    : model(model), engine(engine), stream(stream),
      codes(codesFor(dnnl::get_effective_cpu_isa())) {}

Int8Gemms::Codes Int8Gemms::codesOf(const StepState &s) const {
  return codes == Codes::F32 && s.narrowWeight ? Codes::U8 : codes;
}

memory::data_type Int8Gemms::weightType(const StepState &s) const {
  return codesOf(s) == Codes::F32 ? memory::data_type::f32
                                  : memory::data_type::s8;
}

int32_t Int8Gemms::zeroPointOf(const StepState &s) const {
  const GemmStep &g = *s.g;
  return (g.inputRange ? rangeZeroPoint : g.inputZeroPoint) +
         (codesOf(s) == Codes::U8 ? 128 : 0);
}

const float *Int8Gemms::inputMultipliers(const GemmStep &g) const {
  if (g.inputMultiplier == kNone)
    return nullptr;
  return reinterpret_cast<const float *>(
      model.artifact.weights().data +
      model.plan.values[model.plan.values[g.inputMultiplier].root].offset);
}

void Int8Gemms::prepare(StepState &s, const Shape &shape) const {
  if (!s.weightB)
    return;
  const Value &b = model.plan.values[s.g->b];
  const auto *codesB = reinterpret_cast<const int8_t *>(
      model.artifact.weights().data + b.offset);
  s.narrowWeight = codes == Codes::F32 && isNarrow(codesB, shape, s.g->transB);
  if (zeroPointOf(s) != 0 || s.g->inputRange)
    sumColumns(s, codesB, shape);
}

/// A's codes (dense, as quantizeA writes them) by B's into f32
/// C = (A·B - z·colSum)·colScale·rowScale + bias, activation, + beta·C.
/// oneDNN 2.6's matmul output scales are per column at most, and its brgemm
/// kernels take a binary post-op broadcast along the rows only on 3-D
/// operands (2-D: ref_int8, 1.6 s per 768x768 GEMM), where a weight stays
/// plain, 10-40 % slower than a 2-D one oneDNN blocks (BA16a64b4a with
/// AMX). So the matmul is 2-D with the column scales alone, and the row
/// scales and the epilogue follow as a binary primitive over C (one more
/// pass over it, cheaper than the plain weight). A constant A scale (1.12)
/// folds into the column scales instead: one primitive with the epilogue as
/// post-ops. The column scales are weights, given when the primitive is
/// made: with scales given at run time (DNNL_RUNTIME_F32_VAL) oneDNN 2.6
/// drops from its brgemm kernels to gemm:jit, or to its reference code with
/// post-ops.
Entry Int8Gemms::makeEntry(StepState &s, const Shape &shape,
                           const memory::desc *bDesc) const {
  const GemmStep &g = *s.g;
  static const memory::data_type codeTypes[] = {
      memory::data_type::s8, memory::data_type::u8, memory::data_type::f32};
  Entry e;
  e.shape = shape;
  const Codes form = codesOf(s);
  e.a = matrixDesc(codeTypes[int(form)], 1, shape.m, shape.k, shape.k, 0, false,
                   true);
  // B unprepared: as stored (s8), or its codes as f32 in B's layout
  // (floatCodesB).
  e.b = bDesc ? *bDesc
              : matrixDesc(weightType(s), 1, shape.k, shape.n, shape.ldb,
                           shape.strideB, g.transB, true);
  e.preparedB = bDesc != nullptr;
  e.c = matrixDesc(memory::data_type::f32, 1, shape.m, shape.n, shape.ldc,
                   shape.strideC, false, true);
  dnnl::primitive_attr attr;
  const float *columnScales = weightScales(model, g);
  std::vector<float> outputScales(columnScales, columnScales + shape.n);
  if (g.inputScale > 0)
    for (float &scale : outputScales)
      scale *= g.inputScale;
  attr.set_output_scales(1 << 1, outputScales);
  dnnl::post_ops ops;
  e.bias = memory::desc(Dims{1, shape.n}, memory::data_type::f32,
                        memory::format_tag::ab);
  // The zero point's term as the matmul's bias, and the bias with it where
  // it is a constant the output scales can divide; else a post-op.
  e.biasFolded = g.inputScale > 0 && s.biasIsConstant && g.bias != kNone &&
                 std::all_of(outputScales.begin(), outputScales.end(),
                             [](float scale) { return std::isnormal(scale); });
  // A range's zero point is the run's.
  e.biasArg = e.biasFolded || zeroPointOf(s) != 0 || g.inputRange;
  if (g.bias != kNone && !e.biasFolded)
    ops.append_binary(dnnl::algorithm::binary_add, e.bias);
  appendActivation(ops, GemmActivation(g.activation));
  if (g.beta != 0.0f)
    ops.append_sum(g.beta);
  e.product = e.c;
  if (g.inputScale > 0) {
    attr.set_post_ops(ops);
  } else {
    // In place on C, unless the sum post-op reads C's old values.
    e.separateProduct = g.beta != 0.0f;
    if (e.separateProduct)
      e.product = memory::desc(Dims{shape.m, shape.n}, memory::data_type::f32,
                               memory::format_tag::ab);
    dnnl::primitive_attr epilogue;
    epilogue.set_post_ops(ops);
    dnnl::binary::primitive_desc rows(
        dnnl::binary::desc(dnnl::algorithm::binary_mul, e.product,
                           rowScalesDesc(shape), e.c),
        epilogue, engine);
    e.rowScale = dnnl::binary(rows);
  }
  dnnl::matmul::primitive_desc pd(
      e.biasArg ? dnnl::matmul::desc(e.a, e.b, e.bias, e.product)
                : dnnl::matmul::desc(e.a, e.b, e.product),
      attr, engine);
  e.primitive = dnnl::matmul(pd);
  e.b = pd.weights_desc();
  // The profile names the codes' form.
  static const char *const names[] = {"int8 s8 ", "int8 u8 ", "int8 f32 "};
  s.impl = names[int(form)] + std::string(s.narrowWeight ? "7-bit " : "") +
           pd.impl_info_str();
  return e;
}

/// Whether int8 step `step` finds its A quantized by the step before it:
/// that was an int8 step of the same A value, sizes and constant scale (or
/// none) whose C does not share A's storage (steps run in order, so A is
/// what it quantized).
bool Int8Gemms::reusesQuantizedA(size_t step, const StepState &s,
                                 const Shape &shape) const {
  const GemmStep &g = *s.g;
  if (quantizedStep < 0 || size_t(quantizedStep) + 1 != step ||
      quantizedCodes != codesOf(s) || quantizedValue != g.a ||
      quantizedScale != g.inputScale ||
      quantizedZeroPoint != g.inputZeroPoint ||
      quantizedMultiplier != g.inputMultiplier ||
      quantizedRange != g.inputRange || quantizedShape.m != shape.m ||
      quantizedShape.k != shape.k || quantizedShape.lda != shape.lda)
    return false;
  const Plan &plan = model.plan;
  const GemmStep &before = plan.steps[size_t(quantizedStep)].gemm;
  return plan.values[before.c].root != plan.values[g.a].root;
}

void Int8Gemms::quantize(size_t step, const StepState &s, const Shape &shape,
                         const float *a) {
  const GemmStep &g = *s.g;
  if (!reusesQuantizedA(step, s, shape)) {
    const Codes form = codesOf(s);
    if (g.inputRange) {
      float scale = rangeScale(a, shape);
      quantizeA(form, a, shape, /*perRow=*/false, scale, rangeZeroPoint,
                nullptr);
      rowScales.assign(size_t(shape.m), scale);
    } else {
      quantizeA(form, a, shape, /*perRow=*/g.inputScale == 0, g.inputScale,
                g.inputZeroPoint, inputMultipliers(g));
    }
    quantizedCodes = form;
    quantizedRange = g.inputRange;
    quantizedValue = g.a;
    quantizedMultiplier = g.inputMultiplier;
    quantizedScale = g.inputScale;
    quantizedZeroPoint = g.inputZeroPoint;
    quantizedShape = shape;
  }
  quantizedStep = int64_t(step);
}

/// DynamicQuantizeLinear's scale of A, (max(max(a), 0) - min(min(a), 0)) /
/// 255 (NaN where A has a NaN, as tsc.reduce_max and tsc.max propagate
/// it), leaving its zero point, round(-min(min(a), 0) / scale) saturated to
/// u8 (tsc.quantize's arithmetic), less 128 in rangeZeroPoint. A scale of 0
/// (A all zeros) gives every code and the product 0, as the IR's ops do.
float Int8Gemms::rangeScale(const float *a, const Shape &shape) {
  float lo = 0.0f, hi = 0.0f;
  bool nan = false;
#pragma omp parallel
  {
    float rowLo = 0.0f, rowHi = 0.0f;
    bool rowNan = false;
#pragma omp for schedule(static) nowait
    for (int64_t r = 0; r < shape.m; ++r)
      extendRange(a + r * shape.lda, shape.k, rowLo, rowHi, rowNan);
#pragma omp critical
    {
      lo = std::min(lo, rowLo);
      hi = std::max(hi, rowHi);
      nan = nan || rowNan;
    }
  }
  float scale = nan ? NAN : (hi - lo) / 255.0f;
  float negLo = nan ? NAN : -lo;
  uint8_t zeroPoint;
  quantizeRow(&negLo, 1, scale, -128, /*toUnsigned=*/true, &zeroPoint);
  rangeZeroPoint = int32_t(zeroPoint) - 128;
  return scale;
}

/// A's rows (times `multipliers`, when given: a smoothed A) quantized into
/// quantizedA, rounding half to even as tsc.quantize does: by
/// `scale` and `zeroPoint` (1.12, 1.17, 1.23), or (`perRow`) each row
/// symmetrically by max(max|row| / 127, FLT_MIN), written to rowScales: the
/// formula of tsc-quantize-dynamic-int8 (passes/transforms/DynamicInt8.h).
void Int8Gemms::quantizeA(Codes form, const float *a, const Shape &shape,
                          bool perRow, float constantScale, int32_t zeroPoint,
                          const float *multipliers) {
  quantizedA.resize(size_t(shape.m * shape.k));
  if (form == Codes::F32)
    floatCodesA.resize(quantizedA.size());
  rowScales.resize(perRow ? size_t(shape.m) : 0);
  const bool toUnsigned = form == Codes::U8;
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < shape.m; ++r) {
    const float *row = a + r * shape.lda;
    uint8_t *q = quantizedA.data() + r * shape.k;
    float scale = constantScale;
    if (perRow) {
      float largest = multipliers ? absMaxScaled(row, multipliers, shape.k)
                                  : absMax(row, shape.k);
      scale = std::max(largest / 127.0f, FLT_MIN);
      rowScales[size_t(r)] = scale;
    }
    if (multipliers)
      quantizeScaledRow(row, multipliers, shape.k, scale, zeroPoint, toUnsigned,
                        q);
    else
      quantizeRow(row, shape.k, scale, zeroPoint, toUnsigned, q);
    if (form == Codes::F32)
      for (int64_t j = 0; j < shape.k; ++j)
        floatCodesA[size_t(r * shape.k + j)] = float(int8_t(q[j]));
  }
}

/// An unprepared B's s8 codes as f32, in its layout (Codes::F32).
float *Int8Gemms::floatCodesB(const GemmStep &g, const int8_t *b,
                              const Shape &shape) {
  const int64_t rows = g.transB ? shape.n : shape.k;
  const int64_t columns = g.transB ? shape.k : shape.n;
  floatB.resize(size_t(rows * shape.ldb));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < columns; ++c)
      floatB[size_t(r * shape.ldb + c)] = float(b[r * shape.ldb + c]);
  return floatB.data();
}

/// s.columnSums for B as stored (s8, `shape`'s layout).
void Int8Gemms::sumColumns(StepState &s, const int8_t *b,
                           const Shape &shape) const {
  const GemmStep &g = *s.g;
  // Row by row in B's layout: [N, K] (transB) or [K, N].
  std::vector<int64_t> sums(size_t(shape.n), 0);
  const int64_t rows = g.transB ? shape.n : shape.k;
  const int64_t columns = g.transB ? shape.k : shape.n;
  for (int64_t r = 0; r < rows; ++r) {
    const int8_t *row = b + r * shape.ldb;
    if (g.transB) {
      int64_t sum = 0;
      for (int64_t c = 0; c < columns; ++c)
        sum += row[c];
      sums[size_t(r)] = sum;
    } else {
      for (int64_t c = 0; c < columns; ++c)
        sums[size_t(c)] += row[c];
    }
  }
  s.columnSums.assign(sums.begin(), sums.end());
}

/// s.matmulBias: bias / (scale(A)·scale(B_n)) (none: 0) less the zero
/// point's term z·Σ_k B_kn.
void Int8Gemms::foldBias(StepState &s, const float *bias,
                         const Shape &shape) const {
  const GemmStep &g = *s.g;
  const float *columnScales = weightScales(model, g);
  const double zeroPoint = zeroPointOf(s);
  s.matmulBias.resize(size_t(shape.n));
  for (int64_t n = 0; n < shape.n; ++n) {
    // The divisor as oneDNN's output scale is: the f32 product.
    double add =
        bias ? double(bias[n]) / double(columnScales[n] * g.inputScale) : 0.0;
    if (zeroPoint != 0)
      add -= zeroPoint * double(s.columnSums[size_t(n)]);
    s.matmulBias[size_t(n)] = float(add);
  }
}

void Int8Gemms::run(StepState &s, Entry &e, const void *b, void *c,
                    const void *bias) {
  const GemmStep &g = *s.g;
  const auto *codesB = static_cast<const int8_t *>(b);
  const Codes form = codesOf(s);
  if (zeroPointOf(s) != 0 && (s.columnSums.empty() || !s.weightB)) {
    sumColumns(s, codesB, e.shape);
    s.matmulBias.clear();
  }
  if (e.biasArg && (s.matmulBias.empty() || g.inputRange))
    foldBias(s, e.biasFolded ? static_cast<const float *>(bias) : nullptr,
             e.shape);
  void *product = c;
  if (e.separateProduct) {
    productBuffer.resize(size_t(e.shape.m * e.shape.n));
    product = productBuffer.data();
  }
  void *weights = e.preparedB          ? s.prepared.get()
                  : form == Codes::F32 ? floatCodesB(g, codesB, e.shape)
                                       : const_cast<void *>(b);
  std::unordered_map<int, memory> args;
  args.emplace(DNNL_ARG_SRC,
               memory(e.a, engine,
                      form == Codes::F32
                          ? static_cast<void *>(floatCodesA.data())
                          : static_cast<void *>(quantizedA.data())));
  args.emplace(DNNL_ARG_WEIGHTS, memory(e.b, engine, weights));
  args.emplace(DNNL_ARG_DST, memory(e.product, engine, product));
  // A bias not folded is the first post-op: of the matmul, or of the row
  // scales' binary primitive.
  std::unordered_map<int, memory> rowArgs;
  std::unordered_map<int, memory> &epilogue = g.inputScale > 0 ? args : rowArgs;
  if (e.biasArg)
    args.emplace(DNNL_ARG_BIAS, memory(e.bias, engine, s.matmulBias.data()));
  if (bias && !e.biasFolded)
    epilogue.emplace(DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1,
                     memory(e.bias, engine, const_cast<void *>(bias)));
  e.primitive.execute(stream, args);
  if (g.inputScale == 0) {
    rowArgs.emplace(DNNL_ARG_SRC_0, memory(e.product, engine, product));
    rowArgs.emplace(DNNL_ARG_SRC_1,
                    memory(rowScalesDesc(e.shape), engine, rowScales.data()));
    rowArgs.emplace(DNNL_ARG_DST, memory(e.c, engine, c));
    e.rowScale.execute(stream, rowArgs);
  }
  stream.wait();
}

} // namespace tsc::rt::gemm
