//===- compare.cpp - tsc-run --expected: outputs against reference arrays -===//

#include "compare.h"

#include "half.h"
#include "npy.h"
#include "report.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <vector>

using namespace tsc;
using namespace tsc::run;

namespace {

/// The elements of `t` as doubles; nullopt-like empty flag for a dtype that
/// has no numeric reading here.
bool toDoubles(const Tensor &t, std::vector<double> &out) {
  size_t n = 1;
  for (int64_t d : t.dims())
    n *= size_t(d);
  out.resize(n);
  const void *data = t.data();
  auto read = [&](auto tag) {
    using T = decltype(tag);
    for (size_t i = 0; i < n; ++i) {
      T value;
      std::memcpy(&value, static_cast<const char *>(data) + i * sizeof(T),
                  sizeof(T));
      out[i] = double(value);
    }
  };
  switch (t.dtype()) {
  case TSC_DTYPE_F32:
    read(float());
    return true;
  case TSC_DTYPE_F64:
    read(double());
    return true;
  case TSC_DTYPE_I8:
    read(int8_t());
    return true;
  case TSC_DTYPE_U8:
    read(uint8_t());
    return true;
  case TSC_DTYPE_BOOL:
    read(uint8_t());
    return true;
  case TSC_DTYPE_I16:
    read(int16_t());
    return true;
  case TSC_DTYPE_U16:
    read(uint16_t());
    return true;
  case TSC_DTYPE_I32:
    read(int32_t());
    return true;
  case TSC_DTYPE_U32:
    read(uint32_t());
    return true;
  case TSC_DTYPE_I64:
    read(int64_t());
    return true;
  case TSC_DTYPE_U64:
    read(uint64_t());
    return true;
  case TSC_DTYPE_F16:
  case TSC_DTYPE_BF16: {
    bool half = t.dtype() == TSC_DTYPE_F16;
    for (size_t i = 0; i < n; ++i) {
      uint16_t bits;
      std::memcpy(&bits, static_cast<const char *>(data) + 2 * i, 2);
      out[i] = half ? rt::halfToFloat(bits) : rt::bf16ToFloat(bits);
    }
    return true;
  }
  default:
    return false;
  }
}

/// `t` in the representation tsc-run writes to .npy (see writeNpy).
Tensor asWritten(const Tensor &t) {
  if (isPacked(t.dtype()))
    return unpackTensor(t);
  if (isFloat8(t.dtype())) {
    Tensor bytes = Tensor::createHost(TSC_DTYPE_U8, t.dims());
    std::memcpy(bytes.data(), t.data(), t.byteSize());
    return bytes;
  }
  return t;
}

std::string format(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", value);
  return text;
}

} // namespace

std::string tsc::run::compareOutput(const std::string &name,
                                    const Tensor &actual,
                                    const Tensor &expected, double rtol,
                                    double atol) {
  std::string what = "--expected " + name + ": ";
  if (actual.dims() != expected.dims())
    return what + "output shape " + shapeText(actual.dims()) +
           ", expected array shape " + shapeText(expected.dims());
  std::vector<double> a, e;
  if (!toDoubles(asWritten(actual), a))
    return what + "output dtype " + tsc_dtype_name(actual.dtype()) +
           " cannot be compared";
  if (!toDoubles(expected, e))
    return what + "expected array dtype " + tsc_dtype_name(expected.dtype()) +
           " cannot be compared";
  size_t off = 0, worst = 0;
  double worstExcess = -1;
  for (size_t i = 0; i < a.size(); ++i) {
    double excess;
    if (std::isnan(a[i]) || std::isnan(e[i]))
      excess = std::isnan(a[i]) == std::isnan(e[i]) ? 0.0 : INFINITY;
    else if (std::isinf(a[i]) || std::isinf(e[i]))
      excess = a[i] == e[i] ? 0.0 : INFINITY;
    else
      excess = std::fabs(a[i] - e[i]) - (atol + rtol * std::fabs(e[i]));
    if (excess > 0) {
      ++off;
      if (excess > worstExcess) {
        worstExcess = excess;
        worst = i;
      }
    }
  }
  if (!off)
    return "";
  // The flat index as a multi-index.
  std::vector<int64_t> index(actual.dims().size());
  size_t rest = worst;
  for (size_t d = index.size(); d-- > 0;) {
    int64_t size = actual.dims()[d];
    index[d] = size ? int64_t(rest % size_t(size)) : 0;
    rest = size ? rest / size_t(size) : 0;
  }
  return what + std::to_string(off) + " of " + std::to_string(a.size()) +
         " elements outside atol " + format(atol) + " + rtol " + format(rtol) +
         " * |expected|; largest error " +
         format(std::fabs(a[worst] - e[worst])) + " at " + shapeText(index) +
         ": got " + format(a[worst]) + ", expected " + format(e[worst]);
}
