//===- Signature.h - signing an artifact with an Ed25519 key ----*- C++ -*-===//
//
// `tsc --sign-key KEY.pem -o m.tscm` writes m.tscm.sig: the detached Ed25519
// signature the runtime verifies when a product gives it the public key
// (tsc_model_options_t.public_key; docs/artifact-format.md "Signatures").
//
//===----------------------------------------------------------------------===//

#ifndef TSC_COMPILER_ARTIFACT_SIGNATURE_H
#define TSC_COMPILER_ARTIFACT_SIGNATURE_H

#include "mlir/Support/LLVM.h"

namespace mlir::tsc {

/// Checks that `keyPath` holds an Ed25519 private key (PEM), before a
/// compile writes an artifact it could not sign; prints why not.
LogicalResult checkSigningKey(StringRef keyPath);

/// Signs the artifact at `artifactPath` with the Ed25519 private key in the
/// PEM file `keyPath` and writes the signature to `artifactPath`.sig. Errors
/// (unreadable key, not an Ed25519 key) are printed, naming the file.
LogicalResult signArtifact(StringRef artifactPath, StringRef keyPath);

} // namespace mlir::tsc

#endif // TSC_COMPILER_ARTIFACT_SIGNATURE_H
