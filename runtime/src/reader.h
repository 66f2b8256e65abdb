//===- reader.h - bounds-checked little-endian reads of a section ---------===//

#ifndef TSC_RUNTIME_READER_H
#define TSC_RUNTIME_READER_H

#include "artifact.h"
#include "internal.h"

#include <cstring>
#include <string>

namespace tsc::rt {

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

} // namespace tsc::rt

#endif // TSC_RUNTIME_READER_H
