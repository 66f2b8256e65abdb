//===- host_gemm.cpp - a host session's GEMM steps as oneDNN matmuls ------===//

#include "host_gemm.h"

#include "half.h"
#include "host_gemm_int8.h"
#include "internal.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <unordered_map>

namespace tsc::rt {
namespace gemm {

memory::desc matrixDesc(memory::data_type type, int64_t batch, int64_t rows,
                        int64_t cols, int64_t ld, int64_t stride,
                        bool transposed, bool flat) {
  if (flat)
    return memory::desc(Dims{rows, cols}, type,
                        transposed ? Dims{1, ld} : Dims{ld, 1});
  int64_t count = batch > 1 && stride == 0 ? 1 : batch;
  // One matrix: its dense size, whatever the plan says (oneDNN's brgemm
  // matmul refuses a zero stride and falls back to a slower gemm).
  int64_t batchStride = count == 1 ? (transposed ? cols : rows) * ld : stride;
  return memory::desc(Dims{count, rows, cols}, type,
                      transposed ? Dims{batchStride, 1, ld}
                                 : Dims{batchStride, ld, 1});
}

void appendActivation(dnnl::post_ops &ops, GemmActivation a) {
  switch (a) {
  case GemmActivation::None:
    break;
  case GemmActivation::Gelu:
    ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_gelu_erf, 0.0f, 0.0f);
    break;
  case GemmActivation::GeluTanh:
    ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_gelu_tanh, 0.0f, 0.0f);
    break;
  }
}

const float *weightScales(const tsc_model_s &model, const GemmStep &g) {
  return reinterpret_cast<const float *>(
      model.artifact.weights().data +
      model.plan.values[model.plan.values[g.weightScale].root].offset);
}

} // namespace gemm

using namespace gemm;

namespace {

Shape shapeOf(const GemmStep &g, const Layout &layout) {
  const std::vector<int64_t> &e = layout.exprValues;
  return {e[g.batch], e[g.m],   e[g.n],       e[g.k],       e[g.lda],
          e[g.ldb],   e[g.ldc], e[g.strideA], e[g.strideB], e[g.strideC]};
}

memory::data_type dnnlType(uint8_t dtype) {
  switch (dtype) {
  case TSC_DTYPE_BF16:
    return memory::data_type::bf16;
  case TSC_DTYPE_F16:
    return memory::data_type::f16;
  default:
    return memory::data_type::f32;
  }
}

/// Element `at` of an i8 or packed i4 (`bits`) array: i4s two a byte, the
/// first in the low nibble.
int codeAt(const uint8_t *bytes, int64_t at, unsigned bits) {
  if (bits == 4)
    return (((bytes[at / 2] >> (4 * (at & 1))) & 0xF) ^ 8) - 8;
  return static_cast<int8_t>(bytes[at]);
}

/// Weight-only GEMM (format 1.15): the f32 values of B, an i8 or packed i4
/// weight (`bits`) of `shape`'s k x n (n x k when `transB`) with row stride
/// ldb, minus its zero points (1.18; null: none) and times its scales:
/// `scales[j]` for output channel j (groupSize 0), else one per group of
/// groupSize along K, in B's layout with K replaced by ceil(k / groupSize);
/// the zero points laid out as the scales, of B's type. Into `to`, in B's
/// layout.
void dequantizeWeight(const void *weight, unsigned bits, const float *scales,
                      const void *zeroPoints, uint32_t groupSize, bool transB,
                      const Shape &shape, std::vector<float> &to) {
  const int64_t rows = transB ? shape.n : shape.k;
  const int64_t cols = transB ? shape.k : shape.n;
  const int64_t groups =
      groupSize ? (shape.k + int64_t(groupSize) - 1) / int64_t(groupSize) : 0;
  to.assign(size_t(rows > 0 ? (rows - 1) * shape.ldb + cols : 0), 0.0f);
  const auto *bytes = static_cast<const uint8_t *>(weight);
  const auto *zeros = static_cast<const uint8_t *>(zeroPoints);
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      const int64_t at = r * shape.ldb + c;
      const int64_t kk = transB ? c : r, j = transB ? r : c;
      const int64_t s = !groupSize ? j
                        : transB   ? j * groups + kk / int64_t(groupSize)
                                   : (kk / int64_t(groupSize)) * shape.n + j;
      const int q =
          codeAt(bytes, at, bits) - (zeros ? codeAt(zeros, s, bits) : 0);
      to[size_t(at)] = float(q) * scales[s];
    }
}

constexpr size_t kShapesPerStep = 8;

/// A plain 2-D weight of K rows whose rows (N contiguous elements) lie a
/// multiple of 4 KiB apart, as the same with each row padded by 64 bytes;
/// otherwise nothing. oneDNN 2.6's gemm:jit (its f32 kernel without
/// AVX-512) reads such rows into the same L1 sets: BERT-base's 768 x 3072
/// FFN weight (12 KiB rows) ran 1.5x slower per FLOP than its 3072 x 768
/// twin at m = 128, as fast once padded (docs/runtime.md).
std::optional<memory::desc> unaliasedRows(const memory::desc &b) {
  const dnnl_memory_desc_t &d = b.data;
  if (d.ndims != 2 || d.format_kind != dnnl_blocked ||
      d.format_desc.blocking.inner_nblks != 0)
    return std::nullopt;
  const dnnl_dims_t &strides = d.format_desc.blocking.strides;
  const int64_t rowBytes =
      strides[0] * int64_t(dnnl_data_type_size(d.data_type));
  if (strides[1] != 1 || d.dims[0] < 2 || rowBytes % 4096 != 0)
    return std::nullopt;
  const int64_t pad = 64 / int64_t(dnnl_data_type_size(d.data_type));
  return memory::desc(b.dims(), b.data_type(), Dims{strides[0] + pad, 1});
}

/// A GEMM epilogue's activation of `x`, as oneDNN's eltwise post-ops
/// compute it.
float activate(GemmActivation activation, float x) {
  switch (activation) {
  case GemmActivation::None:
    break;
  case GemmActivation::Gelu:
    return 0.5f * x * (1.0f + std::erf(x * float(M_SQRT1_2)));
  case GemmActivation::GeluTanh: {
    const float sqrt2OverPi = 0.7978845608028654f;
    return 0.5f * x *
           (1.0f + std::tanh(sqrt2OverPi * (x + 0.044715f * x * x * x)));
  }
  }
  return x;
}

} // namespace

struct HostGemms::Impl {
  const tsc_model_s &model;
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  std::map<size_t, StepState> steps;
  std::vector<bool> readElsewhere; // per value: see findPlainReads
  // Widened operands of half-precision steps run in f32, per value.
  std::vector<std::vector<float>> wide;
  Int8Gemms int8{model, engine, stream};

  explicit Impl(const tsc_model_s &m) : model(m) {}

  std::string where(size_t step) const {
    return formatString("%s: step %zu (gemm)", model.artifact.name().c_str(),
                        step);
  }

  // A bf16-inputs step's A rounded (bf16, or f32 when widened), one step
  // at a time.
  std::vector<uint16_t> roundedA;
  std::vector<float> roundedWideA;

  memory::data_type computeType(const StepState &s) const {
    if (s.int8) // B's codes
      return int8.weightType(s);
    if (s.bf16Product)
      return memory::data_type::bf16;
    return s.widen ? memory::data_type::f32 : dnnlType(s.dtype);
  }

  /// The primitive for `shape`; B in `bDesc` when given, else plain.
  Entry makeEntry(StepState &s, const Shape &shape, const memory::desc *bDesc) {
    if (s.int8)
      return int8.makeEntry(s, shape, bDesc);
    const GemmStep &g = *s.g;
    const memory::data_type t = computeType(s);
    // One problem as 2-D matrices: oneDNN 2.6 gives a 2-D weight in `any`
    // its blocked brgemm layout (BA16a64b, BA16a64b2a for bf16), a 3-D one
    // stays plain, 3-7 % slower (docs/benchmarks.md). A weight prepared 3-D
    // (batched at the maxima) keeps its problems 3-D.
    const bool flat = shape.batch == 1 && (!bDesc || bDesc->dims().size() == 2);
    Entry e;
    e.shape = shape;
    // A bf16-inputs step reads A rounded into a dense copy.
    e.a = matrixDesc(t, shape.batch, shape.m, shape.k,
                     s.bf16Inputs ? shape.k : shape.lda, shape.strideA,
                     g.transA, flat);
    e.b = bDesc ? *bDesc
                : matrixDesc(t, shape.batch, shape.k, shape.n, shape.ldb,
                             shape.strideB, g.transB, flat);
    e.preparedB = bDesc != nullptr;
    e.c = matrixDesc(s.bf16Product ? memory::data_type::f32 : t, shape.batch,
                     shape.m, shape.n, shape.ldc, shape.strideC, false, flat);
    dnnl::primitive_attr attr;
    dnnl::post_ops ops;
    if (g.alpha != 1.0f)
      attr.set_output_scales(0, {g.alpha});
    // The epilogue in the plan's order: bias, activation, then beta·C.
    if (g.bias != kNone) {
      memory::data_type biasType =
          s.widen ? memory::data_type::f32
                  : dnnlType(model.plan.values[g.bias].dtype);
      e.bias = flat ? memory::desc(Dims{1, shape.n}, biasType,
                                   memory::format_tag::ab)
                    : memory::desc(Dims{1, 1, shape.n}, biasType,
                                   memory::format_tag::abc);
      // The output scale would scale the bias too; a post-op adds it after.
      e.biasArg = g.alpha == 1.0f;
      if (!e.biasArg)
        ops.append_binary(dnnl::algorithm::binary_add, e.bias);
    }
    appendActivation(ops, GemmActivation(g.activation));
    if (g.beta != 0.0f)
      ops.append_sum(g.beta);
    attr.set_post_ops(ops);
    dnnl::matmul::desc desc = e.biasArg
                                  ? dnnl::matmul::desc(e.a, e.b, e.bias, e.c)
                                  : dnnl::matmul::desc(e.a, e.b, e.c);
    dnnl::matmul::primitive_desc pd(desc, attr, engine);
    e.primitive = dnnl::matmul(pd);
    e.b = pd.weights_desc(); // `any` resolved
    s.impl =
        std::string(s.bf16Product ? "bf16 inputs " : "") + pd.impl_info_str();
    return e;
  }

  /// The weight as f32 (widened) or as stored, in a plain layout.
  tsc_status_t prepareWeight(size_t step, StepState &s, const Shape &max) {
    const GemmStep &g = *s.g;
    const memory::data_type t = computeType(s);
    // Int8 steps have one problem (run() refuses others). The reorder
    // rounds a bf16-inputs step's f32 B (exactly: its values are bf16's),
    // and widens an int8 step's s8 codes where the primitive reads f32.
    memory::desc plain = matrixDesc(s.bf16Inputs ? memory::data_type::f32
                                    : s.int8     ? memory::data_type::s8
                                                 : t,
                                    max.batch, max.k, max.n, max.ldb,
                                    max.strideB, g.transB, max.batch == 1);
    memory::desc any(plain.dims(), t, memory::format_tag::any);
    Entry e = makeEntry(s, max, &any);
    if (std::optional<memory::desc> padded = unaliasedRows(e.b)) {
      e = makeEntry(s, max, &*padded);
      s.paddedRows = true;
    }
    s.preparedDesc = e.b;
    const void *stored = model.artifact.weights().data +
                         model.plan.values[model.plan.values[g.b].root].offset;
    std::vector<float> widened;
    if (s.weightOnly) {
      stored = dequantizedB(s, stored, max);
    } else if (s.widen) {
      widened.resize(size_t(model.plan.values[g.b].byteSize / 2));
      widenHalves(static_cast<const uint16_t *>(stored), widened.data(),
                  widened.size(), s.dtype == TSC_DTYPE_BF16);
      stored = widened.data();
    }
    size_t bytes = (s.preparedDesc.get_size() + 63) / 64 * 64;
    s.prepared.reset(std::aligned_alloc(64, bytes ? bytes : 64));
    if (!s.prepared)
      return statusf(TSC_STATUS_RESOURCE_EXHAUSTED,
                     "%s: cannot allocate %zu bytes for the prepared weight",
                     where(step).c_str(), bytes);
    memory from(plain, engine, const_cast<void *>(stored));
    memory to(s.preparedDesc, engine, s.prepared.get());
    dnnl::reorder(from, to).execute(stream, from, to);
    stream.wait();
    // Not held twice (the mapped file and the prepared copy) when nothing
    // else reads it.
    const Value &b = model.plan.values[g.b];
    if (!readElsewhere[g.b])
      model.artifact.releasePages(model.artifact.weights().data + b.offset,
                                  size_t(b.byteSize));
    s.cache.push_back(std::move(e));
    // The prepared copy serves the runs; a shape it does not fit dequantizes
    // again.
    std::vector<float>().swap(s.dequantized);
    return nullptr;
  }

  /// A weight-only step's B as f32, dequantized from `weight` once.
  const float *dequantizedB(StepState &s, const void *weight,
                            const Shape &shape) {
    if (s.dequantized.empty()) {
      const GemmStep &g = *s.g;
      const float *scales = weightScales(model, g);
      const void *zeroPoints =
          g.weightZeroPoint == kNone
              ? nullptr
              : model.artifact.weights().data +
                    model.plan.values[g.weightZeroPoint].offset;
      dequantizeWeight(weight, dtypeBits(model.plan.values[g.b].dtype), scales,
                       zeroPoints, g.groupSize, g.transB, shape, s.dequantized);
    }
    return s.dequantized.data();
  }

  /// Chooses a step's compute type and whether its B is a weight to prepare
  /// at `max`, the layout at the symbols' maxima (null: prepare nothing, and
  /// choose the type at the first run).
  void choose(size_t step, const GemmStep &g, const Layout *max) {
    StepState &s = steps[step];
    s.g = &g;
    s.dtype = model.plan.values[g.c].dtype;
    s.int8 = g.weightScale != kNone && !g.weightOnly;
    s.biasIsConstant =
        g.bias == kNone ||
        model.plan.values[model.plan.values[g.bias].root].storage ==
            Storage::Weight;
    s.weightOnly = g.weightOnly;
    s.bf16Inputs = g.bf16Inputs;
    // Without maxima no weight is prepared: B stays f32, and so does a
    // bf16-inputs step's product.
    if (!max)
      return;
    const Value &b = model.plan.values[g.b];
    const Shape shape = shapeOf(g, *max);
    s.weightB = model.plan.values[b.root].storage == Storage::Weight &&
                b.root == g.b && (shape.batch <= 1 || shape.strideB == 0) &&
                shape.m > 0 && shape.n > 0 && shape.k > 0;
    // A weight's column sums (A's zero point) once, with the session.
    if (s.int8)
      int8.prepare(s, shape);
    if (s.bf16Inputs && s.weightB) {
      // A bf16 product where the CPU has one (B unprepared is read as
      // stored, f32).
      s.bf16Product = true;
      try {
        makeEntry(s, shape, nullptr);
      } catch (const dnnl::error &) {
        s.bf16Product = false;
      }
    } else if (s.dtype != TSC_DTYPE_F32) {
      // A half-precision primitive where the CPU has one.
      try {
        makeEntry(s, shape, nullptr);
      } catch (const dnnl::error &) {
        s.widen = true;
      }
    }
  }

  /// Marks the values that steps read other than as a GEMM's B weight.
  void findPlainReads() {
    const Plan &plan = model.plan;
    readElsewhere.assign(plan.values.size(), false);
    auto reads = [&](uint32_t v) {
      if (v != kNone)
        readElsewhere[plan.values[v].root] = true;
    };
    for (size_t i = 0; i < plan.steps.size(); ++i) {
      const Step &step = plan.steps[i];
      for (uint32_t v : step.buffers)
        reads(v);
      if (step.kind == StepKind::Copy)
        reads(step.source);
      if (step.kind != StepKind::Gemm)
        continue;
      const GemmStep &g = step.gemm;
      for (uint32_t v : {g.a, g.c, g.bias, g.residual, g.weightScale,
                         g.weightZeroPoint, g.inputMultiplier})
        reads(v);
      if (!steps.at(i).weightB)
        reads(g.b);
    }
  }

  Entry &entryFor(StepState &s, const Shape &shape) {
    for (Entry &e : s.cache)
      if (e.shape == shape)
        return e;
    Entry made;
    bool fits = false;
    if (s.weightB) {
      // The prepared weight serves every shape whose B it matches.
      memory::desc plainB =
          matrixDesc(computeType(s), shape.batch, shape.k, shape.n, shape.ldb,
                     shape.strideB, s.g->transB,
                     shape.batch == 1 && s.preparedDesc.dims().size() == 2);
      if (plainB.dims() == s.preparedDesc.dims()) {
        try {
          made = makeEntry(s, shape, &s.preparedDesc);
          fits = true;
        } catch (const dnnl::error &) {
        }
      }
    }
    if (!fits && s.bf16Product)
      // Its B is f32 in memory, bf16 only as prepared (a linear's weight
      // has one shape, so this does not happen for what tsc writes).
      throw dnnl::error(dnnl_unimplemented,
                        "the bf16-inputs step's prepared weight does not fit "
                        "this shape");
    if (!fits) {
      try {
        made = makeEntry(s, shape, nullptr);
      } catch (const dnnl::error &) {
        // No half-precision primitive here (when choose could not probe).
        if (s.dtype == TSC_DTYPE_F32 || s.widen)
          throw;
        s.widen = true;
        made = makeEntry(s, shape, nullptr);
      }
    }
    if (s.cache.size() < kShapesPerStep)
      return s.cache.emplace_back(std::move(made));
    Entry &slot = s.cache[s.nextEvict];
    s.nextEvict = (s.nextEvict + 1) % kShapesPerStep;
    slot = std::move(made);
    return slot;
  }

  /// The f32 copy of a half-precision value, made once per run and value.
  float *widened(uint32_t value, const Layout &layout,
                 const std::vector<void *> &addresses, uint8_t dtype,
                 std::vector<uint32_t> &done) {
    std::vector<float> &to = wide[value];
    for (uint32_t v : done)
      if (v == value)
        return to.data();
    to.resize(size_t(layout.elements[value]));
    widenHalves(static_cast<const uint16_t *>(addresses[value]), to.data(),
                to.size(), dtype == TSC_DTYPE_BF16);
    done.push_back(value);
    return to.data();
  }

  /// A bf16-inputs step's A (dense, m x k), rounded to bf16: as bf16 for a
  /// bf16 primitive, else as the f32 values of the bf16 ones.
  void *roundA(const StepState &s, const float *a, const Shape &shape) {
    const int64_t k = shape.k;
    roundedA.resize(size_t(shape.m * k));
    if (!s.bf16Product)
      roundedWideA.resize(roundedA.size());
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < shape.m; ++r) {
      uint16_t *row = roundedA.data() + r * k;
      narrowToBf16(a + r * shape.lda, row, size_t(k));
      if (!s.bf16Product)
        widenHalves(row, roundedWideA.data() + r * k, size_t(k), true);
    }
    return s.bf16Product ? static_cast<void *>(roundedA.data())
                         : static_cast<void *>(roundedWideA.data());
  }

  void execute(size_t step, StepState &s, const Shape &shape,
               const Layout &layout, const std::vector<void *> &addresses) {
    const GemmStep &g = *s.g;
    void *a = addresses[g.a], *b = addresses[g.b], *c = addresses[g.c];
    void *bias = g.bias == kNone ? nullptr : addresses[g.bias];
    void *residual = g.residual == kNone ? nullptr : addresses[g.residual];
    std::vector<uint32_t> done;
    if (s.int8 && shape.k > 0)
      int8.quantize(step, s, shape, static_cast<const float *>(a));
    else
      int8.forget();
    // First: making the primitive may settle s.widen.
    Entry *entry = shape.k == 0 ? nullptr : &entryFor(s, shape);
    if (s.weightOnly && entry && !entry->preparedB)
      b = const_cast<float *>(dequantizedB(s, b, shape));
    const size_t elementBytes = s.widen ? 4 : dtypeBits(s.dtype) / 8;
    if (s.bf16Inputs && entry)
      a = roundA(s, static_cast<const float *>(a), shape);
    if (s.widen) {
      if (wide.size() < addresses.size())
        wide.resize(addresses.size());
      a = widened(g.a, layout, addresses, s.dtype, done);
      if (!(entry && entry->preparedB))
        b = widened(g.b, layout, addresses, s.dtype, done);
      if (bias)
        bias = widened(g.bias, layout, addresses, s.dtype, done);
      if (residual)
        residual = widened(g.residual, layout, addresses, s.dtype, done);
      // C is read by the sum post-op, and written either way.
      c = g.beta != 0.0f && !residual
              ? widened(g.c, layout, addresses, s.dtype, done)
              : (wide[g.c].resize(size_t(layout.elements[g.c])),
                 wide[g.c].data());
      if (residual && g.residual == g.c)
        residual = c;
    }
    // The residual is the sum post-op's operand: C is seeded with it.
    if (residual && residual != c)
      for (int64_t i = 0; i < shape.batch; ++i)
        for (int64_t r = 0; r < shape.m; ++r) {
          size_t at = size_t(i * shape.strideC + r * shape.ldc) * elementBytes;
          std::memcpy(static_cast<uint8_t *>(c) + at,
                      static_cast<const uint8_t *>(residual) + at,
                      size_t(shape.n) * elementBytes);
        }
    if (entry && s.int8)
      int8.run(s, *entry, b, c, bias);
    else if (entry)
      runPrimitive(s, *entry, a, b, c, bias);
    else
      epilogueOnly(s, shape, c, bias);
    if (s.widen)
      narrowToHalves(static_cast<const float *>(c),
                     static_cast<uint16_t *>(addresses[g.c]),
                     size_t(layout.elements[g.c]), s.dtype == TSC_DTYPE_BF16);
  }

  void runPrimitive(StepState &s, Entry &e, void *a, void *b, void *c,
                    void *bias) {
    std::unordered_map<int, memory> args;
    args.emplace(DNNL_ARG_SRC, memory(e.a, engine, a));
    args.emplace(DNNL_ARG_WEIGHTS,
                 memory(e.b, engine, e.preparedB ? s.prepared.get() : b));
    args.emplace(DNNL_ARG_DST, memory(e.c, engine, c));
    if (bias && e.biasArg)
      args.emplace(DNNL_ARG_BIAS, memory(e.bias, engine, bias));
    else if (bias) // the first post-op
      args.emplace(DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1,
                   memory(e.bias, engine, bias));
    e.primitive.execute(stream, args);
    stream.wait();
  }

  /// k = 0: the product is zero, C = act(bias) + beta·C.
  void epilogueOnly(const StepState &s, const Shape &shape, void *c,
                    const void *bias) {
    const bool f32 = s.widen || s.dtype == TSC_DTYPE_F32;
    for (int64_t i = 0; i < shape.batch; ++i)
      for (int64_t r = 0; r < shape.m; ++r)
        for (int64_t j = 0; j < shape.n; ++j) {
          int64_t at = i * shape.strideC + r * shape.ldc + j;
          float old = 0, add = 0;
          if (f32) {
            old = static_cast<float *>(c)[at];
            add = bias ? static_cast<const float *>(bias)[j] : 0.0f;
          } else {
            auto toFloat = [&](uint16_t h) {
              return s.dtype == TSC_DTYPE_BF16 ? bf16ToFloat(h)
                                               : halfToFloat(h);
            };
            old = toFloat(static_cast<uint16_t *>(c)[at]);
            add = bias ? toFloat(static_cast<const uint16_t *>(bias)[j]) : 0.0f;
          }
          float value = activate(GemmActivation(s.g->activation), add) +
                        (s.g->beta != 0.0f ? s.g->beta * old : 0.0f);
          if (f32)
            static_cast<float *>(c)[at] = value;
          else
            static_cast<uint16_t *>(c)[at] = s.dtype == TSC_DTYPE_BF16
                                                 ? floatToBf16(value)
                                                 : floatToHalf(value);
        }
  }
};

HostGemms::HostGemms(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HostGemms::~HostGemms() = default;

tsc_status_t HostGemms::create(const tsc_model_s &model,
                               std::unique_ptr<HostGemms> &out) {
  const Plan &plan = model.plan;
  std::vector<int64_t> maxima;
  for (const Symbol &symbol : plan.symbols)
    maxima.push_back(symbol.max);
  // A plan whose symbols are defined from others (format 1.6) need not be
  // consistent with every symbol at its maximum: then no weight is prepared
  // ahead, and each step gets its primitives at run time.
  Layout max;
  tsc_status_t status = computeLayout(model, maxima.data(), max);
  const Layout *atMaxima = status ? nullptr : &max;
  tsc_status_free(status);
  auto impl = std::make_unique<Impl>(model);
  try {
    for (size_t i = 0; i < plan.steps.size(); ++i)
      if (plan.steps[i].kind == StepKind::Gemm)
        impl->choose(i, plan.steps[i].gemm, atMaxima);
  } catch (const dnnl::error &e) {
    return statusf(TSC_STATUS_UNAVAILABLE,
                   "%s: oneDNN cannot make its matmuls: %s",
                   model.artifact.name().c_str(), e.what());
  }
  impl->findPlainReads();
  for (auto &[i, s] : impl->steps) {
    if (!s.weightB)
      continue;
    try {
      if (tsc_status_t status = impl->prepareWeight(i, s, shapeOf(*s.g, max)))
        return status;
    } catch (const dnnl::error &e) {
      return statusf(TSC_STATUS_UNAVAILABLE,
                     "%s: oneDNN cannot make its matmul: %s",
                     impl->where(i).c_str(), e.what());
    }
  }
  out.reset(new HostGemms(std::move(impl)));
  return nullptr;
}

tsc_status_t HostGemms::run(size_t step, const Layout &layout,
                            const std::vector<void *> &addresses) {
  StepState &s = impl_->steps.at(step);
  const Shape shape = shapeOf(*s.g, layout);
  if (shape.batch == 0 || shape.m == 0 || shape.n == 0)
    return nullptr;
  // The compiler flattens a linear's rows into M: an int8 or bf16-inputs
  // step is one problem, and its primitives are made for one.
  if ((s.int8 || s.bf16Inputs) && shape.batch != 1)
    return statusf(TSC_STATUS_INVALID_ARGUMENT,
                   "%s: an %s gemm of %lld problems (one expected)",
                   impl_->where(step).c_str(), s.int8 ? "int8" : "bf16-inputs",
                   static_cast<long long>(shape.batch));
  try {
    impl_->execute(step, s, shape, layout, addresses);
  } catch (const dnnl::error &e) {
    return statusf(
        TSC_STATUS_INTERNAL,
        "%s: oneDNN failed on batch, m, n, k = %lld, %lld, %lld, %lld: %s",
        impl_->where(step).c_str(), static_cast<long long>(shape.batch),
        static_cast<long long>(shape.m), static_cast<long long>(shape.n),
        static_cast<long long>(shape.k), e.what());
  }
  return nullptr;
}

std::string HostGemms::describe() const {
  const dnnl_version_t *v = dnnl_version();
  std::string text =
      formatString("oneDNN %d.%d.%d", v->major, v->minor, v->patch);
  static const std::map<dnnl::cpu_isa, const char *> names = {
      {dnnl::cpu_isa::sse41, "sse41"},
      {dnnl::cpu_isa::avx, "avx"},
      {dnnl::cpu_isa::avx2, "avx2"},
      {dnnl::cpu_isa::avx2_vnni, "avx2_vnni"},
      {dnnl::cpu_isa::avx512_core, "avx512_core"},
      {dnnl::cpu_isa::avx512_core_vnni, "avx512_core_vnni"},
      {dnnl::cpu_isa::avx512_core_bf16, "avx512_core_bf16"},
      {dnnl::cpu_isa::avx512_core_amx, "avx512_core_amx"}};
  auto isa = names.find(dnnl::get_effective_cpu_isa());
  text += formatString(", ISA %s:", isa == names.end() ? "other" : isa->second);
  std::map<std::string, int> impls;
  for (const auto &[step, state] : impl_->steps)
    ++impls[state.impl];
  for (const auto &[name, count] : impls)
    text += formatString(" %s x%d", name.c_str(), count);
  // Prepared weights in a blocked layout (oneDNN's brgemm kernels read
  // them faster than plain rows, docs/runtime.md).
  int blocked = 0, prepared = 0, padded = 0;
  for (const auto &[step, state] : impl_->steps)
    if (state.prepared) {
      ++prepared;
      blocked += state.preparedDesc.data.format_desc.blocking.inner_nblks > 0;
      padded += state.paddedRows;
    }
  if (prepared)
    text +=
        formatString("; weights prepared %d, blocked %d", prepared, blocked);
  if (padded)
    text += formatString(", rows padded %d", padded);
  return text;
}

} // namespace tsc::rt
