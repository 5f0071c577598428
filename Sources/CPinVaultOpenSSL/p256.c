/* See CPinVaultOpenSSL.h. Every allocation is freed on every path; every return of
 * libcrypto is checked.
 *
 * ECDSA P-256 for PinVault's own keys, through libcrypto's EC_KEY interface, as
 * OpenSSH's ssh-ecdsa.c does. OpenSSL 3 marks it deprecated in favour of EVP_PKEY, but
 * an EVP key can only be built from parameters, which makes a new curve group for every
 * signature (EVP_PKEY_fromdata) and fetches the algorithms again (EVP_DigestSignInit):
 * twice the cost of the signature itself. Here the group is made once and each
 * signature's key borrows it; nothing else changes.
 *
 * The scalar enters libcrypto only for the length of one call: as a BIGNUM from
 * BN_secure_new, freed with BN_clear_free, and as the EC_KEY's private key (a copy
 * EC_KEY_free clears). ECDSA's nonce comes from BN_generate_dsa_nonce: random bytes
 * hashed with the private key and the digest, its copy of the key cleansed. */
#define OPENSSL_SUPPRESS_DEPRECATED

#include "CPinVaultOpenSSL.h"

#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/obj_mac.h>
#include <openssl/sha.h>
#include <pthread.h>

static const size_t p256_scalar_bytes = 32;
static const size_t p256_point_bytes = 65;
static const size_t p256_digest_bytes = 32;

static EC_GROUP *p256_group;
static pthread_once_t p256_group_once = PTHREAD_ONCE_INIT;

static void p256_make_group(void)
{
    p256_group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
}

/* The P-256 group, made once; read-only after that, shared by every thread. */
static const EC_GROUP *p256(void)
{
    pthread_once(&p256_group_once, p256_make_group);
    return p256_group;
}

/* A key of `scalar` (32 bytes, big-endian) on the shared group, or NULL. */
static EC_KEY *p256_key(const uint8_t *scalar)
{
    const EC_GROUP *group = p256();
    EC_KEY *key = group != NULL ? EC_KEY_new() : NULL;
    BIGNUM *d = BN_secure_new();
    int done = key != NULL && d != NULL && EC_KEY_set_group(key, group) == 1
        && BN_bin2bn(scalar, (int)p256_scalar_bytes, d) != NULL && EC_KEY_set_private_key(key, d) == 1;
    BN_clear_free(d);
    if (!done) {
        EC_KEY_free(key);
        return NULL;
    }
    return key;
}

int CPinVaultOpenSSL_p256_public_key(const uint8_t *scalar, uint8_t *point)
{
    int done = 0;
    const EC_GROUP *group = p256();
    EC_POINT *public_point = group != NULL ? EC_POINT_new(group) : NULL;
    BN_CTX *context = BN_CTX_secure_new();
    BIGNUM *d = BN_secure_new();

    if (public_point == NULL || context == NULL || d == NULL
        || BN_bin2bn(scalar, (int)p256_scalar_bytes, d) == NULL)
        goto out;
    BN_set_flags(d, BN_FLG_CONSTTIME);
    if (EC_POINT_mul(group, public_point, d, NULL, NULL, context) != 1)
        goto out;
    done = EC_POINT_point2oct(group, public_point, POINT_CONVERSION_UNCOMPRESSED, point,
                              p256_point_bytes, context) == p256_point_bytes;
out:
    BN_clear_free(d);
    BN_CTX_free(context);
    EC_POINT_free(public_point);
    return done;
}

int CPinVaultOpenSSL_p256_sign(const uint8_t *scalar, int prehashed, const uint8_t *data, size_t data_length,
                               uint8_t *der, size_t der_capacity, size_t *der_length)
{
    unsigned char digest[32];
    const unsigned char *hash = data;
    if (prehashed) {
        if (data_length != p256_digest_bytes)
            return 0;
    } else {
        if (SHA256(data, data_length, digest) == NULL)
            return 0;
        hash = digest;
    }
    EC_KEY *key = p256_key(scalar);
    if (key == NULL)
        return 0;
    ECDSA_SIG *signature = ECDSA_do_sign(hash, (int)p256_digest_bytes, key);
    EC_KEY_free(key);
    if (signature == NULL)
        return 0;
    int done = 0;
    int length = i2d_ECDSA_SIG(signature, NULL);
    if (length > 0 && (size_t)length <= der_capacity) {
        unsigned char *out = der;
        done = i2d_ECDSA_SIG(signature, &out) == length;
        *der_length = (size_t)length;
    }
    ECDSA_SIG_free(signature);
    return done;
}
