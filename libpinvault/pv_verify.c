/*
 * pinvault_verify and pinvault_verify_digest (pinvault.h): a signature checked with
 * a public key in the wire's encodings. Ed25519 with libsodium; ECDSA P-256 with the
 * system's libcrypto, which also refuses a point off the curve and a signature that
 * is not strict DER (OpenSSL re-encodes what it parsed and compares).
 *
 * P-256 goes through libcrypto's EC_KEY interface, as OpenSSH's ssh-ecdsa.c and
 * pinvaultd's own signing do: OpenSSL 3 marks it deprecated in favour of EVP_PKEY,
 * whose keys are built through its decoders or parameter builders at several times
 * the cost of the verification itself. Nothing is kept between calls.
 */
#define OPENSSL_SUPPRESS_DEPRECATED

#include "pinvault.h"

#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/obj_mac.h>
#include <sodium.h>
#include <stdbool.h>
#include <string.h>

#define PV_EXPORT __attribute__((visibility("default")))

#define ED25519_PUBLIC_KEY_BYTES 32
#define ED25519_SIGNATURE_BYTES 64
#define P256_POINT_BYTES 65
#define P256_DER_SIGNATURE_MAX_BYTES 72
#define SHA256_BYTES 32

/* The P-256 key of a SEC1 uncompressed point, checked on the curve; NULL when it is not one. */
static EC_KEY *p256_key(const struct pinvault_public_key *public_key)
{
    if (public_key->length != P256_POINT_BYTES || public_key->bytes[0] != 0x04)
        return NULL;
    EC_KEY *key = EC_KEY_new_by_curve_name(NID_X9_62_prime256v1);
    if (key != NULL && EC_KEY_oct2key(key, public_key->bytes, P256_POINT_BYTES, NULL) != 1) {
        EC_KEY_free(key);
        key = NULL;
    }
    return key;
}

/* ECDSA over a SHA-256 digest: PINVAULT_OK, PINVAULT_E_SIGNATURE, or PINVAULT_E_ARGUMENT for no key. */
static int p256_verify_digest(const struct pinvault_public_key *public_key, const unsigned char digest[SHA256_BYTES],
                              const struct pinvault_signature *signature)
{
    EC_KEY *key = p256_key(public_key);
    if (key == NULL)
        return PINVAULT_E_ARGUMENT;
    int verified = signature->length >= 8 && signature->length <= P256_DER_SIGNATURE_MAX_BYTES &&
                   ECDSA_verify(0, digest, SHA256_BYTES, signature->bytes, (int)signature->length, key) == 1;
    EC_KEY_free(key);
    return verified ? PINVAULT_OK : PINVAULT_E_SIGNATURE;
}

PV_EXPORT int pinvault_verify(pinvault_algorithm algorithm, const struct pinvault_public_key *public_key,
                              const void *message, size_t message_length, const struct pinvault_signature *signature)
{
    static const unsigned char nothing[1];
    if (public_key == NULL || signature == NULL || (message == NULL && message_length > 0))
        return PINVAULT_E_ARGUMENT;
    if (message == NULL)
        message = nothing;
    if (sodium_init() < 0)
        return PINVAULT_E_SYSTEM;
    switch (algorithm) {
    case PINVAULT_ALGORITHM_ED25519:
        if (public_key->length != ED25519_PUBLIC_KEY_BYTES)
            return PINVAULT_E_ARGUMENT;
        if (signature->length != ED25519_SIGNATURE_BYTES)
            return PINVAULT_E_SIGNATURE;
        return crypto_sign_verify_detached(signature->bytes, message, message_length, public_key->bytes) == 0
            ? PINVAULT_OK : PINVAULT_E_SIGNATURE;
    case PINVAULT_ALGORITHM_P256: {
        unsigned char digest[SHA256_BYTES];
        crypto_hash_sha256(digest, message, message_length);
        return p256_verify_digest(public_key, digest, signature);
    }
    case PINVAULT_ALGORITHM_OTHER:
        break;
    }
    return PINVAULT_E_ARGUMENT;
}

PV_EXPORT int pinvault_verify_digest(pinvault_algorithm algorithm, const struct pinvault_public_key *public_key,
                                     const void *digest, size_t digest_length,
                                     const struct pinvault_signature *signature)
{
    if (public_key == NULL || signature == NULL || digest == NULL || algorithm != PINVAULT_ALGORITHM_P256 ||
        digest_length != SHA256_BYTES)
        return PINVAULT_E_ARGUMENT;
    return p256_verify_digest(public_key, digest, signature);
}
