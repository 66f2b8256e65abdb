//===- Signature.cpp - signing an artifact with an Ed25519 key ------------===//
//
// The message signed is format.h's context string (with its NUL) followed by
// the SHA-512 of the artifact, so a multi-gigabyte artifact is hashed from its
// mapping in one pass; OpenSSL's libcrypto does the cryptography.
//
//===----------------------------------------------------------------------===//

#include "compiler/artifact/Signature.h"

#include "runtime/src/format.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <openssl/evp.h>
#include <openssl/pem.h>

#include <cstdio>
#include <cstring>
#include <vector>

using namespace mlir;

namespace {

LogicalResult keyError(StringRef keyPath, const Twine &message) {
  llvm::errs() << "tsc: error: --sign-key " << keyPath << ": " << message
               << "\n";
  return failure();
}

/// The Ed25519 private key in the PEM file `keyPath` (the caller frees it),
/// or null after printing why not.
EVP_PKEY *readSigningKey(StringRef keyPath) {
  std::FILE *keyFile = std::fopen(keyPath.str().c_str(), "rb");
  if (!keyFile) {
    (void)keyError(keyPath, Twine("cannot open: ") + std::strerror(errno));
    return nullptr;
  }
  EVP_PKEY *key = PEM_read_PrivateKey(keyFile, nullptr, nullptr, nullptr);
  std::fclose(keyFile);
  if (!key) {
    (void)keyError(keyPath, "not a PEM private key (make one with `openssl "
                            "genpkey -algorithm ed25519 -out KEY.pem`)");
    return nullptr;
  }
  if (EVP_PKEY_get_id(key) != EVP_PKEY_ED25519) {
    EVP_PKEY_free(key);
    (void)keyError(keyPath,
                   "not an Ed25519 key (artifact signatures are Ed25519)");
    return nullptr;
  }
  return key;
}

} // namespace

LogicalResult tsc::checkSigningKey(StringRef keyPath) {
  EVP_PKEY *key = readSigningKey(keyPath);
  bool valid = key != nullptr;
  EVP_PKEY_free(key);
  return success(valid);
}

LogicalResult tsc::signArtifact(StringRef artifactPath, StringRef keyPath) {
  auto fail = [&](const Twine &message) { return keyError(keyPath, message); };
  EVP_PKEY *key = readSigningKey(keyPath);
  if (!key)
    return failure();
  llvm::scope_exit freeKey([&] { EVP_PKEY_free(key); });

  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> artifact =
      llvm::MemoryBuffer::getFile(artifactPath, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!artifact) {
    llvm::errs() << "tsc: error: " << artifactPath
                 << ": cannot read the artifact to sign: "
                 << artifact.getError().message() << "\n";
    return failure();
  }
  std::vector<unsigned char> message(sizeof ::tscm::kSignatureContext +
                                     ::tscm::kSha512Size);
  std::memcpy(message.data(), ::tscm::kSignatureContext,
              sizeof ::tscm::kSignatureContext);
  unsigned digestSize = 0;
  if (!EVP_Digest((*artifact)->getBufferStart(), (*artifact)->getBufferSize(),
                  message.data() + sizeof ::tscm::kSignatureContext,
                  &digestSize, EVP_sha512(), nullptr) ||
      digestSize != ::tscm::kSha512Size)
    return fail("SHA-512 of the artifact failed");
  unsigned char signature[::tscm::kSignatureSize];
  size_t signatureSize = sizeof signature;
  EVP_MD_CTX *context = EVP_MD_CTX_new();
  bool signed_ =
      context &&
      EVP_DigestSignInit(context, nullptr, nullptr, nullptr, key) == 1 &&
      EVP_DigestSign(context, signature, &signatureSize, message.data(),
                     message.size()) == 1 &&
      signatureSize == sizeof signature;
  EVP_MD_CTX_free(context);
  if (!signed_)
    return fail("signing failed");

  std::string sigPath = (artifactPath + ".sig").str();
  std::error_code error;
  llvm::raw_fd_ostream out(sigPath, error);
  if (error) {
    llvm::errs() << "tsc: error: " << sigPath << ": " << error.message()
                 << "\n";
    return failure();
  }
  out.write(reinterpret_cast<const char *>(signature), sizeof signature);
  return success();
}
