//===- status.cpp - status objects, dtype helpers, the API version --------===//

#include "format.h"
#include "internal.h"

#include <cstdarg>
#include <cstdio>

namespace {
// Returned when a status cannot be allocated; never freed.
tsc_status_s outOfMemoryStatus{TSC_STATUS_RESOURCE_EXHAUSTED,
                               "out of memory (while reporting an error)"};
} // namespace

namespace tsc::rt {

tsc_status_t makeStatus(tsc_status_code_t code, std::string message) {
  try {
    return new tsc_status_s{code, std::move(message)};
  } catch (const std::bad_alloc &) {
    return &outOfMemoryStatus;
  }
}

static std::string vformat(const char *format, va_list args) {
  va_list copy;
  va_copy(copy, args);
  int n = std::vsnprintf(nullptr, 0, format, copy);
  va_end(copy);
  if (n <= 0)
    return std::string();
  std::string text(static_cast<size_t>(n) + 1, '\0');
  std::vsnprintf(&text[0], text.size(), format, args);
  text.resize(static_cast<size_t>(n));
  return text;
}

std::string formatString(const char *format, ...) {
  va_list args;
  va_start(args, format);
  std::string text = vformat(format, args);
  va_end(args);
  return text;
}

tsc_status_t statusf(tsc_status_code_t code, const char *format, ...) {
  try {
    va_list args;
    va_start(args, format);
    std::string text = vformat(format, args);
    va_end(args);
    return makeStatus(code, std::move(text));
  } catch (const std::bad_alloc &) {
    return &outOfMemoryStatus;
  }
}

size_t dtypeBits(uint32_t dtype) { return tscm::dtypeBits(dtype); }

// The API's dtype codes are the artifact format's (format.h).
#define TSC_SAME_CODE(api, format)                                             \
  static_assert(TSC_DTYPE_##api == uint8_t(tscm::DType::format),               \
                "TSC_DTYPE_" #api " differs from the artifact format's code")
TSC_SAME_CODE(F32, F32);
TSC_SAME_CODE(F16, F16);
TSC_SAME_CODE(BF16, BF16);
TSC_SAME_CODE(F64, F64);
TSC_SAME_CODE(I8, I8);
TSC_SAME_CODE(U8, U8);
TSC_SAME_CODE(I16, I16);
TSC_SAME_CODE(I32, I32);
TSC_SAME_CODE(I64, I64);
TSC_SAME_CODE(BOOL, Bool);
TSC_SAME_CODE(U16, U16);
TSC_SAME_CODE(U32, U32);
TSC_SAME_CODE(U64, U64);
TSC_SAME_CODE(F8E4M3FN, F8E4M3FN);
TSC_SAME_CODE(F8E4M3FNUZ, F8E4M3FNUZ);
TSC_SAME_CODE(F8E5M2, F8E5M2);
TSC_SAME_CODE(F8E5M2FNUZ, F8E5M2FNUZ);
TSC_SAME_CODE(F8E8M0, F8E8M0);
TSC_SAME_CODE(U4, U4);
TSC_SAME_CODE(I4, I4);
TSC_SAME_CODE(F4E2M1, F4E2M1);
TSC_SAME_CODE(U2, U2);
TSC_SAME_CODE(I2, I2);
#undef TSC_SAME_CODE

} // namespace tsc::rt

extern "C" {

uint32_t tsc_api_version(void) { return TSC_API_VERSION; }

tsc_status_code_t tsc_status_code(tsc_status_t status) {
  return status ? status->code : TSC_STATUS_OK;
}

const char *tsc_status_message(tsc_status_t status) {
  return status ? status->message.c_str() : "";
}

void tsc_status_free(tsc_status_t status) {
  if (status != &outOfMemoryStatus)
    delete status;
}

const char *tsc_status_code_name(tsc_status_code_t code) {
  switch (code) {
  case TSC_STATUS_OK:
    return "OK";
  case TSC_STATUS_INVALID_ARGUMENT:
    return "INVALID_ARGUMENT";
  case TSC_STATUS_NOT_FOUND:
    return "NOT_FOUND";
  case TSC_STATUS_OUT_OF_RANGE:
    return "OUT_OF_RANGE";
  case TSC_STATUS_FAILED_PRECONDITION:
    return "FAILED_PRECONDITION";
  case TSC_STATUS_DATA_LOSS:
    return "DATA_LOSS";
  case TSC_STATUS_UNIMPLEMENTED:
    return "UNIMPLEMENTED";
  case TSC_STATUS_UNAVAILABLE:
    return "UNAVAILABLE";
  case TSC_STATUS_RESOURCE_EXHAUSTED:
    return "RESOURCE_EXHAUSTED";
  case TSC_STATUS_INTERNAL:
    return "INTERNAL";
  case TSC_STATUS_UNAUTHENTICATED:
    return "UNAUTHENTICATED";
  default:
    return "UNKNOWN";
  }
}

size_t tsc_dtype_size(tsc_dtype_t dtype) {
  size_t bits = tsc::rt::dtypeBits(dtype);
  return bits % 8 ? 0 : bits / 8;
}

size_t tsc_dtype_bits(tsc_dtype_t dtype) { return tsc::rt::dtypeBits(dtype); }

const char *tsc_dtype_name(tsc_dtype_t dtype) {
  switch (dtype) {
  case TSC_DTYPE_F32:
    return "f32";
  case TSC_DTYPE_F16:
    return "f16";
  case TSC_DTYPE_BF16:
    return "bf16";
  case TSC_DTYPE_F64:
    return "f64";
  case TSC_DTYPE_I8:
    return "i8";
  case TSC_DTYPE_U8:
    return "u8";
  case TSC_DTYPE_I16:
    return "i16";
  case TSC_DTYPE_I32:
    return "i32";
  case TSC_DTYPE_I64:
    return "i64";
  case TSC_DTYPE_BOOL:
    return "bool";
  case TSC_DTYPE_U16:
    return "u16";
  case TSC_DTYPE_U32:
    return "u32";
  case TSC_DTYPE_U64:
    return "u64";
  case TSC_DTYPE_F8E4M3FN:
    return "f8e4m3fn";
  case TSC_DTYPE_F8E4M3FNUZ:
    return "f8e4m3fnuz";
  case TSC_DTYPE_F8E5M2:
    return "f8e5m2";
  case TSC_DTYPE_F8E5M2FNUZ:
    return "f8e5m2fnuz";
  case TSC_DTYPE_F8E8M0:
    return "f8e8m0";
  case TSC_DTYPE_U4:
    return "u4";
  case TSC_DTYPE_I4:
    return "i4";
  case TSC_DTYPE_F4E2M1:
    return "f4e2m1";
  case TSC_DTYPE_U2:
    return "u2";
  case TSC_DTYPE_I2:
    return "i2";
  default:
    return nullptr;
  }
}

} // extern "C"
