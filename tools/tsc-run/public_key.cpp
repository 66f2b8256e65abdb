//===- public_key.cpp - tsc-run --public-key: reading an Ed25519 key ------===//

#include "public_key.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#if TSC_RUN_HAS_OPENSSL
#include <openssl/evp.h>
#include <openssl/pem.h>
#endif

std::array<uint8_t, 32> tsc::run::readPublicKey(const std::string &path) {
#if !TSC_RUN_HAS_OPENSSL
  throw std::runtime_error(path + ": this tsc-run was built without OpenSSL "
                                  "and cannot read keys");
#else
  std::FILE *file = std::fopen(path.c_str(), "rb");
  if (!file)
    throw std::runtime_error(path + ": cannot open: " + std::strerror(errno));
  EVP_PKEY *key = PEM_read_PUBKEY(file, nullptr, nullptr, nullptr);
  std::fclose(file);
  if (!key)
    throw std::runtime_error(path + ": not a PEM public key (make one with "
                                    "`openssl pkey -in KEY.pem -pubout`)");
  std::array<uint8_t, 32> raw{};
  size_t size = raw.size();
  bool ed25519 = EVP_PKEY_get_id(key) == EVP_PKEY_ED25519 &&
                 EVP_PKEY_get_raw_public_key(key, raw.data(), &size) == 1 &&
                 size == raw.size();
  EVP_PKEY_free(key);
  if (!ed25519)
    throw std::runtime_error(path + ": not an Ed25519 public key");
  return raw;
#endif
}
