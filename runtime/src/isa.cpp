//===- isa.cpp - checking the CPU against the ISA the host code needs -----===//

#include "isa.h"

#include "internal.h"

#include <cstdio>

#if defined(__x86_64__)
#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace tsc::rt {
namespace {

constexpr uint64_t kAvx2Fma = 1u << 0;
constexpr uint64_t kAvx512 = 1u << 1;
constexpr uint64_t kAmxBf16 = 1u << 2;
constexpr uint64_t kAvx512Bf16 = 1u << 3;
constexpr uint64_t kKnownBits = kAvx2Fma | kAvx512 | kAmxBf16 | kAvx512Bf16;

#if defined(__x86_64__)
/// Whether the CPU has AMX-TILE and AMX-BF16 (CPUID leaf 7: EDX bits 24 and
/// 22) and Linux lets this process use the tile data (it must ask once:
/// arch_prctl ARCH_REQ_XCOMP_PERM for XFEATURE_XTILEDATA, which fails where
/// the kernel or the hypervisor does not allow it).
bool amxUsable() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) || !(edx & (1u << 24)) ||
      !(edx & (1u << 22)))
    return false;
  constexpr long kReqXcompPerm = 0x1023, kXfeatureXtiledata = 18;
  return syscall(SYS_arch_prctl, kReqXcompPerm, kXfeatureXtiledata) == 0;
}
#endif

// The first feature of `bits` this CPU lacks (__builtin_cpu_supports also
// checks that the OS saves the wider registers), or nullptr.
const char *firstMissing(uint64_t bits) {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (bits & kAvx2Fma) {
    if (!__builtin_cpu_supports("avx2"))
      return "AVX2";
    if (!__builtin_cpu_supports("fma"))
      return "FMA";
  }
  if (bits & kAvx512) {
    if (!__builtin_cpu_supports("avx512f"))
      return "AVX-512F";
    if (!__builtin_cpu_supports("avx512bw"))
      return "AVX-512BW";
    if (!__builtin_cpu_supports("avx512dq"))
      return "AVX-512DQ";
    if (!__builtin_cpu_supports("avx512vl"))
      return "AVX-512VL";
  }
  if ((bits & kAvx512Bf16) && !__builtin_cpu_supports("avx512bf16"))
    return "AVX512_BF16";
  if ((bits & kAmxBf16) && !amxUsable())
    return "AMX-TILE and AMX-BF16 (or the OS's permission to use them)";
  return nullptr;
#else
  return bits ? "an x86-64 CPU" : nullptr;
#endif
}

} // namespace

tsc_status_t checkIsa(uint64_t isa, const std::string &file) {
  if (uint64_t unknown = isa & ~kKnownBits)
    return statusf(TSC_STATUS_UNIMPLEMENTED,
                   "%s: the host code needs ISA bits 0x%llx that this runtime "
                   "does not know",
                   file.c_str(), static_cast<unsigned long long>(unknown));
  if (const char *missing = firstMissing(isa))
    return statusf(TSC_STATUS_UNAVAILABLE,
                   "%s: this CPU lacks %s, which the artifact's host code was "
                   "compiled for",
                   file.c_str(), missing);
  return nullptr;
}

std::string isaText(uint64_t isa) {
  std::string text;
  auto add = [&](const std::string &feature) {
    text += (text.empty() ? "" : ", ") + feature;
  };
  if (isa & kAvx2Fma)
    add("AVX2+FMA");
  if (isa & kAvx512)
    add("AVX-512 (F, BW, DQ, VL)");
  if (isa & kAvx512Bf16)
    add("AVX512_BF16");
  if (isa & kAmxBf16)
    add("AMX (TILE, BF16)");
  if (uint64_t unknown = isa & ~kKnownBits) {
    char bits[32];
    std::snprintf(bits, sizeof bits, "bits 0x%llx",
                  static_cast<unsigned long long>(unknown));
    add(bits);
  }
  return text.empty() ? "baseline" : text;
}

} // namespace tsc::rt
