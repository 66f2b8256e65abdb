//===- plan.cpp - decoding the PLAN section with full bounds checks -------===//

#include "plan.h"

#include "internal.h"

#include <cstring>

namespace tsc::rt {
namespace {

// Reads little-endian fields from the section; the first failure is kept and
// every later read fails too, so callers check once per record.
class Reader {
public:
  Reader(const uint8_t *data, size_t size) : data_(data), size_(size) {}

  bool ok() const { return error_.empty(); }
  const std::string &error() const { return error_; }
  size_t position() const { return pos_; }
  size_t remaining() const { return size_ - pos_; }

  void fail(std::string message) {
    if (error_.empty())
      error_ = std::move(message);
  }

  const uint8_t *bytes(size_t n, const char *what) {
    if (!ok())
      return nullptr;
    if (n > remaining()) {
      fail(formatString(
          "truncated at byte %zu reading %s (%zu bytes needed, %zu left)", pos_,
          what, n, remaining()));
      return nullptr;
    }
    const uint8_t *p = data_ + pos_;
    pos_ += n;
    return p;
  }
  uint8_t u8(const char *what) {
    const uint8_t *p = bytes(1, what);
    return p ? *p : 0;
  }
  uint16_t u16(const char *what) {
    const uint8_t *p = bytes(2, what);
    return p ? loadU16(p) : 0;
  }
  uint32_t u32(const char *what) {
    const uint8_t *p = bytes(4, what);
    return p ? loadU32(p) : 0;
  }
  uint64_t u64(const char *what) {
    const uint8_t *p = bytes(8, what);
    return p ? loadU64(p) : 0;
  }
  int64_t i64(const char *what) { return int64_t(u64(what)); }
  float f32(const char *what) {
    uint32_t bits = u32(what);
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  std::string str(const char *what) {
    uint32_t n = u32(what);
    const uint8_t *p = bytes(n, what);
    if (!p)
      return std::string();
    if (std::memchr(p, 0, n)) {
      fail(formatString("%s at byte %zu contains a NUL byte", what, pos_ - n));
      return std::string();
    }
    return std::string(reinterpret_cast<const char *>(p), n);
  }
  /// Reads a count of records of at least `minBytes` each, rejecting counts
  /// the bytes left cannot hold (so a corrupt count never allocates much).
  uint32_t count(size_t minBytes, const char *what) {
    uint32_t n = u32(what);
    if (ok() && uint64_t(n) * minBytes > remaining()) {
      fail(formatString("%s %u at byte %zu needs at least %llu bytes, %zu left",
                        what, n, pos_ - 4,
                        static_cast<unsigned long long>(uint64_t(n) * minBytes),
                        remaining()));
      return 0;
    }
    return ok() ? n : 0;
  }

private:
  const uint8_t *data_;
  size_t size_;
  size_t pos_ = 0;
  std::string error_;
};

// Minimum encoded sizes, for count checks.
constexpr size_t kMinSymbol = 4 + 8 + 8;
constexpr size_t kMinExpr = 4;
constexpr size_t kMinValue = 1 + 1 + 2 + 4 + 4;
constexpr size_t kMinPort = 4 + 4;
constexpr size_t kMinStep = 1 + 4 + 4;

} // namespace

tsc_status_t parsePlan(const SectionView &section, const std::string &file,
                       uint16_t minor, Plan &plan) {
  Reader r(section.data, section.size);
  const char *name = file.c_str();
  bool newer = minor > kFormatMinor;
  // An enumerator this runtime does not know: corruption in a version it
  // knows, a newer feature otherwise.
  auto unknown = [&](const char *what, unsigned value) {
    if (newer)
      return statusf(TSC_STATUS_UNIMPLEMENTED,
                     "%s: PLAN: %s %u is not known to this runtime (artifact "
                     "format 1.%u is newer "
                     "than 1.%u)",
                     name, what, value, minor, kFormatMinor);
    return statusf(TSC_STATUS_DATA_LOSS,
                   "%s: PLAN: unknown %s %u at byte %zu (corrupt artifact)",
                   name, what, value, r.position() - 1);
  };
  auto corrupt = [&]() {
    return statusf(TSC_STATUS_DATA_LOSS, "%s: PLAN: %s (corrupt artifact)",
                   name, r.error().c_str());
  };

  plan.target = r.str("target");
  plan.isa = r.u64("isa");

  uint32_t symbolCount = r.count(kMinSymbol, "symbol_count");
  plan.symbols.resize(symbolCount);
  for (Symbol &s : plan.symbols) {
    s.name = r.str("symbol name");
    s.min = r.i64("symbol min");
    s.max = r.i64("symbol max");
  }

  uint32_t exprCount = r.count(kMinExpr, "expr_count");
  plan.exprs.resize(exprCount);
  for (uint32_t i = 0; i < exprCount && r.ok(); ++i) {
    uint32_t n = r.u32("expression byte_count");
    const uint8_t *code = r.bytes(n, "expression code");
    std::string error;
    if (code && !checkExpr(code, n, symbolCount, plan.exprs[i], error))
      return statusf(TSC_STATUS_DATA_LOSS,
                     "%s: PLAN: expression %u: %s (corrupt artifact)", name, i,
                     error.c_str());
  }

  uint32_t valueCount = r.count(kMinValue, "value_count");
  plan.values.resize(valueCount);
  for (uint32_t i = 0; i < valueCount && r.ok(); ++i) {
    Value &v = plan.values[i];
    v.dtype = r.u8("value dtype");
    if (r.ok() && dtypeSize(v.dtype) == 0)
      return unknown("dtype", v.dtype);
    uint8_t storage = r.u8("value storage");
    if (r.ok() && (storage < 1 || storage > 5))
      return unknown("storage", storage);
    v.storage = Storage(storage);
    r.u16("value reserved");
    uint32_t rank = r.count(4, "value rank");
    v.dims.resize(rank);
    for (uint32_t &d : v.dims) {
      d = r.u32("value dim");
      if (r.ok() && d >= exprCount)
        return statusf(TSC_STATUS_DATA_LOSS,
                       "%s: PLAN: value %u: dim uses expression %u, but there "
                       "are %u (corrupt "
                       "artifact)",
                       name, i, d, exprCount);
    }
    switch (v.storage) {
    case Storage::Input:
    case Storage::Output:
    case Storage::View:
      v.ref = r.u32("value index");
      break;
    case Storage::Weight:
      v.offset = r.u64("weight offset");
      v.byteSize = r.u64("weight byte size");
      break;
    case Storage::Arena:
      v.offset = r.u64("arena offset");
      break;
    }
  }

  plan.arenaSize = r.u64("arena_size");
  for (std::vector<Port> *ports : {&plan.inputs, &plan.outputs}) {
    const char *what = ports == &plan.inputs ? "input" : "output";
    uint32_t n = r.count(kMinPort, ports == &plan.inputs ? "input_count"
                                                         : "output_count");
    ports->resize(n);
    for (Port &p : *ports) {
      p.name = r.str(what);
      p.value = r.u32(what);
    }
  }

  uint32_t stepCount = r.count(kMinStep, "step_count");
  plan.steps.resize(stepCount);
  for (uint32_t i = 0; i < stepCount && r.ok(); ++i) {
    Step &s = plan.steps[i];
    uint8_t kind = r.u8("step kind");
    if (!r.ok())
      break;
    if (kind < 1 || kind > 4)
      return unknown("step kind", kind);
    // Kind 4 (format 1.1) is a GEMM with a residual.
    s.kind = kind == 4 ? StepKind::Gemm : StepKind(kind);
    if (s.kind == StepKind::Kernel) {
      s.function = r.str("kernel function name");
      s.buffers.resize(r.count(4, "kernel buffer_count"));
      for (uint32_t &b : s.buffers)
        b = r.u32("kernel buffer");
    } else if (s.kind == StepKind::Gemm) {
      GemmStep &g = s.gemm;
      g.a = r.u32("gemm a");
      g.b = r.u32("gemm b");
      g.c = r.u32("gemm c");
      g.bias = r.u32("gemm bias");
      g.transA = r.u8("gemm trans_a") != 0;
      g.transB = r.u8("gemm trans_b") != 0;
      r.u16("gemm reserved");
      for (uint32_t *e : {&g.batch, &g.m, &g.n, &g.k, &g.lda, &g.ldb, &g.ldc,
                          &g.strideA, &g.strideB, &g.strideC}) {
        *e = r.u32("gemm expression");
        if (r.ok() && *e >= exprCount)
          return statusf(TSC_STATUS_DATA_LOSS,
                         "%s: PLAN: step %u (gemm) uses expression %u, but "
                         "there are %u (corrupt "
                         "artifact)",
                         name, i, *e, exprCount);
      }
      g.alpha = r.f32("gemm alpha");
      g.beta = r.f32("gemm beta");
      if (kind == 4)
        g.residual = r.u32("gemm residual");
    } else {
      s.source = r.u32("copy source");
      s.destination = r.u32("copy destination");
    }
  }
  if (!r.ok())
    return corrupt();
  // A newer minor version may append fields; this one ends here.
  if (r.remaining() && !newer)
    return statusf(
        TSC_STATUS_DATA_LOSS,
        "%s: PLAN: %zu unexpected bytes after the last step (corrupt artifact)",
        name, r.remaining());
  return nullptr;
}

} // namespace tsc::rt
