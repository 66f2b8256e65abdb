//===- public_key.h - tsc-run --public-key: reading an Ed25519 key --------===//

#ifndef TSC_TOOLS_TSC_RUN_PUBLIC_KEY_H
#define TSC_TOOLS_TSC_RUN_PUBLIC_KEY_H

#include <array>
#include <cstdint>
#include <string>

namespace tsc::run {

/// The raw 32 bytes of the Ed25519 public key in the PEM file `path`. Throws
/// std::runtime_error naming the file when it is not one.
std::array<uint8_t, 32> readPublicKey(const std::string &path);

} // namespace tsc::run

#endif // TSC_TOOLS_TSC_RUN_PUBLIC_KEY_H
