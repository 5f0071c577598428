/* See CPinVaultOpenSSL.h. Every allocation is freed on every path; every return of
 * libcrypto is checked. */
#include "CPinVaultOpenSSL.h"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/obj_mac.h>

/* ECDSA P-256 for PinVault's own keys. The scalar enters libcrypto only as a BIGNUM
 * made with BN_secure_new (freed with BN_clear_free) and, through EVP_PKEY_fromdata, as
 * the EC_KEY's private key (EC_KEY_free clears it); the little-endian copy
 * OSSL_PARAM_construct_BN needs lives on this stack and is cleansed. */

static const size_t p256_scalar_bytes = 32;
static const size_t p256_point_bytes = 65;

int CPinVaultOpenSSL_p256_public_key(const uint8_t *scalar, uint8_t *point)
{
    int done = 0;
    EC_GROUP *group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
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
    EC_GROUP_free(group);
    return done;
}

/* The key pair of `scalar` and `point`, or NULL. */
static EVP_PKEY *p256_key_pair(const uint8_t *scalar, const uint8_t *point)
{
    EVP_PKEY *key = NULL;
    unsigned char little_endian[32];
    char group[] = "P-256";
    for (size_t i = 0; i < p256_scalar_bytes; i++)
        little_endian[i] = scalar[p256_scalar_bytes - 1 - i];
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, group, 0),
        OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY, (void *)point, p256_point_bytes),
        OSSL_PARAM_construct_BN(OSSL_PKEY_PARAM_PRIV_KEY, little_endian, sizeof little_endian),
        OSSL_PARAM_construct_end(),
    };
    EVP_PKEY_CTX *context = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
    if (context == NULL || EVP_PKEY_fromdata_init(context) != 1
        || EVP_PKEY_fromdata(context, &key, EVP_PKEY_KEYPAIR, params) != 1)
        key = NULL;
    EVP_PKEY_CTX_free(context);
    OPENSSL_cleanse(little_endian, sizeof little_endian);
    return key;
}

int CPinVaultOpenSSL_p256_sign(const uint8_t *scalar, const uint8_t *point, int prehashed,
                               const uint8_t *data, size_t data_length,
                               uint8_t *der, size_t der_capacity, size_t *der_length)
{
    int done = 0;
    size_t length = der_capacity;
    EVP_PKEY *key = NULL;

    if (prehashed && data_length != 32)
        return 0;
    if ((key = p256_key_pair(scalar, point)) == NULL)
        return 0;
    if (prehashed) {
        EVP_PKEY_CTX *context = EVP_PKEY_CTX_new_from_pkey(NULL, key, NULL);
        done = context != NULL && EVP_PKEY_sign_init(context) == 1
            && EVP_PKEY_sign(context, der, &length, data, data_length) == 1;
        EVP_PKEY_CTX_free(context);
    } else {
        EVP_MD_CTX *context = EVP_MD_CTX_new();
        done = context != NULL && EVP_DigestSignInit_ex(context, NULL, "SHA256", NULL, NULL, key, NULL) == 1
            && EVP_DigestSign(context, der, &length, data, data_length) == 1;
        EVP_MD_CTX_free(context);
    }
    EVP_PKEY_free(key);
    if (!done || length > der_capacity)
        return 0;
    *der_length = length;
    return 1;
}
