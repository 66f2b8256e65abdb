//===- crc32c.h - CRC-32C (Castagnoli), the artifact's checksum -----------===//

#ifndef TSC_RUNTIME_CRC32C_H
#define TSC_RUNTIME_CRC32C_H

#include <cstddef>
#include <cstdint>

namespace tsc::rt {

/// CRC-32C of `size` bytes: initial value and final xor 0xFFFFFFFF, as the
/// SSE4.2 crc32 instruction computes it. Uses that instruction when the CPU has
/// it.
uint32_t crc32c(const void *data, size_t size);
/// The CRC-32C of some bytes whose CRC-32C is `crc` followed by `size` more:
/// crc32c(a ++ b) == crc32cExtend(crc32c(a), b). For writers that checksum
/// what they stream.
uint32_t crc32cExtend(uint32_t crc, const void *data, size_t size);
/// The portable table-driven version (for tests and CPUs without SSE4.2).
uint32_t crc32cPortable(const void *data, size_t size);
/// True when crc32c uses the SSE4.2 instruction.
bool crc32cUsesHardware();

} // namespace tsc::rt

#endif // TSC_RUNTIME_CRC32C_H
