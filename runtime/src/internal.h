//===- internal.h - shared definitions of the runtime's sources -----------===//
//
// The handle structs behind the C API's opaque types and the helpers every
// source uses to make statuses. Nothing here is exported.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_RUNTIME_INTERNAL_H
#define TSC_RUNTIME_INTERNAL_H

#include "tsc/runtime.h"

#include <atomic>
#include <cstdint>
#include <exception>
#include <new>
#include <string>
#include <vector>

struct tsc_status_s {
  tsc_status_code_t code;
  std::string message;
};

struct tsc_tensor_s {
  std::atomic<int32_t> refs{1};
  tsc_dtype_t dtype = TSC_DTYPE_F32;
  std::vector<int64_t> dims;
  void *data = nullptr;
  size_t byteSize = 0;
  bool owned = false;
  tsc_location_t location = TSC_LOCATION_HOST;
  int32_t device = 0; // CUDA device ordinal of CUDA memory
};

namespace tsc::rt {

/// Makes a status; never returns NULL (OK is not made this way).
tsc_status_t makeStatus(tsc_status_code_t code, std::string message);
/// makeStatus with a printf-style message.
tsc_status_t statusf(tsc_status_code_t code, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
/// printf into a std::string.
std::string formatString(const char *format, ...)
    __attribute__((format(printf, 1, 2)));

/// Bits per element, 0 when `dtype` is not a tsc_dtype_t.
size_t dtypeBits(uint32_t dtype);

/// a × b, or false on overflow of i64 or a negative operand.
inline bool mulNonNegative(int64_t a, int64_t b, int64_t &out) {
  return a >= 0 && b >= 0 && !__builtin_mul_overflow(a, b, &out);
}

/// The bytes of `elements` dense elements of `dtype` (sub-byte types packed:
/// ceil(elements × bits / 8)), or false on overflow or a negative count.
inline bool denseBytes(int64_t elements, uint32_t dtype, int64_t &out) {
  int64_t bits = 0;
  if (!mulNonNegative(elements, int64_t(dtypeBits(dtype)), bits) ||
      bits > INT64_MAX - 7)
    return false;
  out = (bits + 7) / 8;
  return true;
}

/// Creates a host tensor that owns new 64-byte aligned memory.
tsc_status_t createHostTensor(tsc_dtype_t dtype, size_t rank,
                              const int64_t *dims, tsc_tensor_t **out);

/// Runs `body` (returning tsc_status_t) and turns an allocation failure or any
/// other escaping exception into a status: none may cross the C boundary.
template <typename Body> tsc_status_t guarded(Body &&body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc &) {
    return makeStatus(TSC_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  } catch (const std::exception &e) {
    return makeStatus(TSC_STATUS_INTERNAL,
                      std::string("unexpected exception: ") + e.what());
  }
}

} // namespace tsc::rt

#endif // TSC_RUNTIME_INTERNAL_H
