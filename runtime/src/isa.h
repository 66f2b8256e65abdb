//===- isa.h - checking the CPU against the ISA the host code needs -------===//

#ifndef TSC_RUNTIME_ISA_H
#define TSC_RUNTIME_ISA_H

#include "tsc/runtime.h"

#include <cstdint>
#include <string>

namespace tsc::rt {

/// UNAVAILABLE naming the first missing CPU feature when this CPU lacks any
/// feature of the plan's `isa` bits; UNIMPLEMENTED for bits this runtime does
/// not know.
tsc_status_t checkIsa(uint64_t isa, const std::string &file);

/// The features of `isa` in words ("AVX2+FMA, AVX-512 (F, BW, DQ, VL)"),
/// "baseline" for none; unknown bits as "bits 0x...".
std::string isaText(uint64_t isa);

} // namespace tsc::rt

#endif // TSC_RUNTIME_ISA_H
