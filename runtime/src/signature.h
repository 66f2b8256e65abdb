//===- signature.h - verifying an artifact's detached Ed25519 signature ---===//

#ifndef TSC_RUNTIME_SIGNATURE_H
#define TSC_RUNTIME_SIGNATURE_H

#include "tsc/runtime.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace tsc::rt {

/// Verifies `signature` (tscm::kSignatureSize bytes) of the artifact bytes
/// [file, file + size) with the Ed25519 `publicKey` (tscm::kPublicKeySize
/// bytes): UNAUTHENTICATED naming `name` when it does not verify,
/// UNIMPLEMENTED when this runtime was built without OpenSSL.
tsc_status_t verifySignature(const uint8_t *file, size_t size,
                             const uint8_t *publicKey, const void *signature,
                             size_t signatureSize, const std::string &name);

} // namespace tsc::rt

#endif // TSC_RUNTIME_SIGNATURE_H
