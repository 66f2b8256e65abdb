//===- crc32c.cpp - CRC-32C with an SSE4.2 path and a table fallback ------===//

#include "crc32c.h"

#include <array>
#include <cstring>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "the artifact format and its weights are little-endian");

namespace tsc::rt {
namespace {

constexpr uint32_t kPolynomial = 0x82F63B78u; // 0x1EDC6F41 reflected

// Slicing-by-8 tables: table[k][b] is the CRC of byte b followed by k zero
// bytes.
using Tables = std::array<std::array<uint32_t, 256>, 8>;

constexpr Tables makeTables() {
  Tables t{};
  for (uint32_t b = 0; b < 256; ++b) {
    uint32_t crc = b;
    for (int i = 0; i < 8; ++i)
      crc = (crc >> 1) ^ ((crc & 1u) ? kPolynomial : 0u);
    t[0][b] = crc;
  }
  for (uint32_t b = 0; b < 256; ++b)
    for (size_t k = 1; k < 8; ++k)
      t[k][b] = (t[k - 1][b] >> 8) ^ t[0][t[k - 1][b] & 0xFFu];
  return t;
}

constexpr Tables kTables = makeTables();

uint32_t updatePortable(uint32_t crc, const uint8_t *p, size_t n) {
  while (n >= 8) {
    uint32_t lo, hi;
    std::memcpy(&lo, p, 4);
    std::memcpy(&hi, p + 4, 4);
    lo ^= crc;
    crc = kTables[7][lo & 0xFF] ^ kTables[6][(lo >> 8) & 0xFF] ^
          kTables[5][(lo >> 16) & 0xFF] ^ kTables[4][lo >> 24] ^
          kTables[3][hi & 0xFF] ^ kTables[2][(hi >> 8) & 0xFF] ^
          kTables[1][(hi >> 16) & 0xFF] ^ kTables[0][hi >> 24];
    p += 8;
    n -= 8;
  }
  while (n--)
    crc = (crc >> 8) ^ kTables[0][(crc ^ *p++) & 0xFF];
  return crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) uint32_t
updateHardware(uint32_t crc, const uint8_t *p, size_t n) {
  uint64_t c = crc;
  while (n >= 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    c = _mm_crc32_u64(c, word);
    p += 8;
    n -= 8;
  }
  uint32_t c32 = static_cast<uint32_t>(c);
  while (n--)
    c32 = _mm_crc32_u8(c32, *p++);
  return c32;
}

bool detectHardware() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("sse4.2");
}
#else
bool detectHardware() { return false; }
#endif

} // namespace

bool crc32cUsesHardware() {
  static const bool hardware = detectHardware();
  return hardware;
}

uint32_t crc32cPortable(const void *data, size_t size) {
  return ~updatePortable(0xFFFFFFFFu, static_cast<const uint8_t *>(data), size);
}

uint32_t crc32cExtend(uint32_t crc, const void *data, size_t size) {
  const auto *bytes = static_cast<const uint8_t *>(data);
#if defined(__x86_64__)
  if (crc32cUsesHardware())
    return ~updateHardware(~crc, bytes, size);
#endif
  return ~updatePortable(~crc, bytes, size);
}

uint32_t crc32c(const void *data, size_t size) {
  return crc32cExtend(0, data, size);
}

} // namespace tsc::rt
