/*
 * pinvault_verify and pinvault_verify_digest (pinvault.h): a signature checked with
 * a public key in the wire's encodings. Ed25519 with libsodium; ECDSA P-256 with
 * the system's libcrypto, which also refuses a point off the curve and a
 * signature that is not strict DER (OpenSSL re-encodes what it parsed and compares).
 */
#include "pinvault.h"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <sodium.h>
#include <stdbool.h>
#include <string.h>

#define PV_EXPORT __attribute__((visibility("default")))

#define ED25519_PUBLIC_KEY_BYTES 32
#define ED25519_SIGNATURE_BYTES 64
#define P256_POINT_BYTES 65
#define P256_DER_SIGNATURE_MAX_BYTES 72
#define SHA256_BYTES 32

/*
 * The P-256 key of a SEC1 uncompressed point, checked on the curve (OpenSSL refuses a
 * point off it); NULL when it is not one. EVP_PKEY_fromdata, not d2i_PUBKEY: OpenSSL
 * 3's decoders cost several times the verification itself.
 */
static EVP_PKEY *p256_key(const struct pinvault_public_key *public_key)
{
    if (public_key->length != P256_POINT_BYTES || public_key->bytes[0] != 0x04)
        return NULL;
    unsigned char point[P256_POINT_BYTES];
    memcpy(point, public_key->bytes, sizeof point);
    char group[] = "prime256v1";
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, group, 0),
        OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY, point, sizeof point),
        OSSL_PARAM_construct_end(),
    };
    EVP_PKEY_CTX *context = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
    EVP_PKEY *key = NULL;
    if (context == NULL || EVP_PKEY_fromdata_init(context) != 1 ||
        EVP_PKEY_fromdata(context, &key, EVP_PKEY_PUBLIC_KEY, params) != 1) {
        EVP_PKEY_free(key);
        key = NULL;
    }
    EVP_PKEY_CTX_free(context);
    return key;
}

static bool p256_signature_sized(const struct pinvault_signature *signature)
{
    return signature->length >= 8 && signature->length <= P256_DER_SIGNATURE_MAX_BYTES;
}

/* ECDSA over SHA-256(message). */
static int p256_verify(const struct pinvault_public_key *public_key, const void *message, size_t message_length,
                       const struct pinvault_signature *signature)
{
    EVP_PKEY *key = p256_key(public_key);
    if (key == NULL)
        return PINVAULT_E_ARGUMENT;
    EVP_MD_CTX *context = EVP_MD_CTX_new();
    int verified = context != NULL && p256_signature_sized(signature) &&
                   EVP_DigestVerifyInit(context, NULL, EVP_sha256(), NULL, key) == 1 &&
                   EVP_DigestVerify(context, signature->bytes, signature->length, message, message_length) == 1;
    EVP_MD_CTX_free(context);
    EVP_PKEY_free(key);
    return verified ? PINVAULT_OK : PINVAULT_E_SIGNATURE;
}

/* ECDSA over a SHA-256 digest the caller made. */
static int p256_verify_digest(const struct pinvault_public_key *public_key, const void *digest,
                              const struct pinvault_signature *signature)
{
    EVP_PKEY *key = p256_key(public_key);
    if (key == NULL)
        return PINVAULT_E_ARGUMENT;
    EVP_PKEY_CTX *context = EVP_PKEY_CTX_new(key, NULL);
    int verified = context != NULL && p256_signature_sized(signature) && EVP_PKEY_verify_init(context) == 1 &&
                   EVP_PKEY_verify(context, signature->bytes, signature->length, digest, SHA256_BYTES) == 1;
    EVP_PKEY_CTX_free(context);
    EVP_PKEY_free(key);
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
    case PINVAULT_ALGORITHM_P256:
        return p256_verify(public_key, message, message_length, signature);
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
