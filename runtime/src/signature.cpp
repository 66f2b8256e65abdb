//===- signature.cpp - verifying an artifact's detached Ed25519 signature -===//
//
// OpenSSL's libcrypto does the cryptography: SHA-512 of the artifact, then
// Ed25519 (RFC 8032, pure) over the context string and that digest, so that a
// multi-gigabyte artifact is hashed in one streaming pass and never copied.
//
//===----------------------------------------------------------------------===//

#include "signature.h"

#include "format.h"
#include "internal.h"

#include <cstring>
#include <vector>

#if TSC_RUNTIME_HAS_OPENSSL
#include <openssl/evp.h>
#endif

namespace tsc::rt {

tsc_status_t verifySignature(const uint8_t *file, size_t size,
                             const uint8_t *publicKey, const void *signature,
                             size_t signatureSize, const std::string &name) {
  if (signatureSize != tscm::kSignatureSize)
    return statusf(TSC_STATUS_UNAUTHENTICATED,
                   "%s: the signature has %zu bytes, an Ed25519 signature %zu",
                   name.c_str(), signatureSize, tscm::kSignatureSize);
#if TSC_RUNTIME_HAS_OPENSSL
  std::vector<unsigned char> message(sizeof tscm::kSignatureContext +
                                     tscm::kSha512Size);
  std::memcpy(message.data(), tscm::kSignatureContext,
              sizeof tscm::kSignatureContext);
  unsigned digestSize = 0;
  if (!EVP_Digest(file, size, message.data() + sizeof tscm::kSignatureContext,
                  &digestSize, EVP_sha512(), nullptr) ||
      digestSize != tscm::kSha512Size)
    return statusf(TSC_STATUS_INTERNAL, "%s: SHA-512 failed", name.c_str());
  EVP_PKEY *key = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr,
                                              publicKey, tscm::kPublicKeySize);
  if (!key)
    return statusf(TSC_STATUS_INVALID_ARGUMENT,
                   "%s: the public key is not a valid Ed25519 key",
                   name.c_str());
  EVP_MD_CTX *context = EVP_MD_CTX_new();
  bool valid =
      context &&
      EVP_DigestVerifyInit(context, nullptr, nullptr, nullptr, key) == 1 &&
      EVP_DigestVerify(context, static_cast<const unsigned char *>(signature),
                       signatureSize, message.data(), message.size()) == 1;
  EVP_MD_CTX_free(context);
  EVP_PKEY_free(key);
  if (!valid)
    return statusf(TSC_STATUS_UNAUTHENTICATED,
                   "%s: the signature does not verify with the given public "
                   "key (a modified artifact, or signed with another key)",
                   name.c_str());
  return nullptr;
#else
  (void)file;
  (void)size;
  (void)publicKey;
  (void)signature;
  return statusf(TSC_STATUS_UNIMPLEMENTED,
                 "%s: this runtime was built without OpenSSL and cannot "
                 "verify signatures",
                 name.c_str());
#endif
}

} // namespace tsc::rt
