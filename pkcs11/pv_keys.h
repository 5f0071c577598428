/*
 * Layer 1 of the module (docs/ARCHITECTURE.md, "The C door"): what each kind of
 * token holds and signs with. No state, no I/O.
 *
 * A token is one credential of the caller's, of one of these kinds:
 *
 *   credential              key        mechanism          C_Sign is pinvaultd's
 *   authenticate, Ed25519   CKK_EC_EDWARDS  CKM_EDDSA         Sign (the whole message)
 *   authenticate, P-256     CKK_EC     CKM_ECDSA_SHA256   Sign (the whole message; the daemon hashes it)
 *   ssh, P-256              CKK_EC     CKM_ECDSA          SignDigest (the caller's SHA-256)
 *
 * A whole message is shape-checked by the daemon as at every door; a hash cannot
 * be, so only ssh keys - which only sshd and git trust - sign one, on tokens of
 * their own. Any other credential (login, legacy, an Ed25519 ssh key, an algorithm
 * this module does not know) is no token.
 */
#ifndef PV_KEYS_H
#define PV_KEYS_H

#include <pinvault.h>
#include <stdbool.h>
#include <stddef.h>

#include "pv_pkcs11.h"

/* The longest public key a token holds: a P-256 point. */
#define PV_KEY_MAX_BYTES 65
/* What C_Sign returns for every kind: Ed25519's R || S, or ECDSA's r || s (PKCS#11 §2.3.1), 64 bytes. */
#define PV_SIGNATURE_BYTES 64
/* A P-256 scalar (r, s) and a SHA-256 digest. */
#define PV_P256_SCALAR_BYTES 32
#define PV_DIGEST_BYTES 32
/* The longest DER ECDSA-Sig-Value of P-256: 2 + 2 × (2 + 33). */
#define PV_P256_DER_MAX_BYTES 72

struct pv_kind {
    pinvault_algorithm algorithm;
    pinvault_purpose purpose;
    CK_KEY_TYPE key_type;
    CK_MECHANISM_TYPE key_gen_mechanism;
    /* The one mechanism its key signs and verifies with. */
    CK_MECHANISM_TYPE mechanism;
    /* Signs a caller's digest (SignDigest), not a whole message (Sign). */
    bool signs_digest;
    /* Its signatures come from the daemon as DER (ECDSA-Sig-Value), returned as r || s. */
    bool der_signatures;
    /* Its key size, as C_GetMechanismInfo says it (bits). */
    CK_ULONG key_bits;
    size_t public_key_bytes;
    /* CKA_EC_PARAMS: the DER of the curve's OID. */
    const unsigned char *ec_params;
    size_t ec_params_length;
    /* CKA_PUBLIC_KEY_INFO: the SubjectPublicKeyInfo up to the key's bytes. */
    const unsigned char *spki_prefix;
    size_t spki_prefix_length;
};

/* The kind of token a credential of `algorithm` and `purpose` is, or NULL: none. */
const struct pv_kind *pv_kind_of(pinvault_algorithm algorithm, pinvault_purpose purpose);

/*
 * r || s of a DER ECDSA-Sig-Value of P-256, only when it is strict DER (one
 * SEQUENCE of two positive INTEGERs in their shortest form, nothing after it) with
 * r and s of at most 32 bytes: 0, else -1.
 */
int pv_ecdsa_der_to_raw(const unsigned char *der, size_t length, unsigned char raw[2 * PV_P256_SCALAR_BYTES]);

/* The DER ECDSA-Sig-Value of r || s (its length; `der` holds PV_P256_DER_MAX_BYTES). */
size_t pv_ecdsa_raw_to_der(const unsigned char raw[2 * PV_P256_SCALAR_BYTES], unsigned char der[PV_P256_DER_MAX_BYTES]);

#endif
