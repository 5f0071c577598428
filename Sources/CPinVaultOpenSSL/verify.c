/* See CPinVaultOpenSSL.h. Every allocation is freed on every path; every return of
 * libcrypto is checked. */
#include "CPinVaultOpenSSL.h"
#include "libcrypto.h"

/* Verifies `signature` (in the encoding EVP expects: DER for ECDSA, raw for RSA) of
 * `data` under `key`. */
static int verify(EVP_PKEY *key, const char *digest, const uint8_t *signature, size_t signature_length,
                  const uint8_t *data, size_t data_length)
{
    int good = 0;
    EVP_MD_CTX *context = EVP_MD_CTX_new();
    if (context != NULL && EVP_DigestVerifyInit_ex(context, NULL, digest, NULL, NULL, key, NULL) == 1)
        good = EVP_DigestVerify(context, signature, signature_length, data, data_length) == 1;
    EVP_MD_CTX_free(context);
    return good;
}

/* A key of `type` ("EC" or "RSA") from `params`. */
static EVP_PKEY *key_from(const char *type, OSSL_PARAM *params)
{
    EVP_PKEY *key = NULL;
    EVP_PKEY_CTX *context = EVP_PKEY_CTX_new_from_name(NULL, type, NULL);
    if (context != NULL && EVP_PKEY_fromdata_init(context) == 1)
        if (EVP_PKEY_fromdata(context, &key, EVP_PKEY_PUBLIC_KEY, params) != 1)
            key = NULL;
    EVP_PKEY_CTX_free(context);
    return key;
}

int CPinVaultOpenSSL_ecdsa_verify(const char *group, const char *digest,
                                  const uint8_t *point, size_t point_length,
                                  const uint8_t *r, size_t r_length, const uint8_t *s, size_t s_length,
                                  const uint8_t *data, size_t data_length)
{
    if (!CPinVaultOpenSSL_libcrypto())
        return 0;
    int good = 0;
    OSSL_PARAM_BLD *builder = OSSL_PARAM_BLD_new();
    OSSL_PARAM *params = NULL;
    EVP_PKEY *key = NULL;
    ECDSA_SIG *signature = ECDSA_SIG_new();
    BIGNUM *r_number = BN_bin2bn(r, (int)r_length, NULL);
    BIGNUM *s_number = BN_bin2bn(s, (int)s_length, NULL);
    unsigned char *der = NULL;
    int der_length = 0;

    if (builder == NULL || signature == NULL || r_number == NULL || s_number == NULL
        || r_length > 66 || s_length > 66)
        goto out;
    if (OSSL_PARAM_BLD_push_utf8_string(builder, OSSL_PKEY_PARAM_GROUP_NAME, group, 0) != 1
        || OSSL_PARAM_BLD_push_octet_string(builder, OSSL_PKEY_PARAM_PUB_KEY, point, point_length) != 1
        || (params = OSSL_PARAM_BLD_to_param(builder)) == NULL
        || (key = key_from("EC", params)) == NULL)
        goto out;
    if (ECDSA_SIG_set0(signature, r_number, s_number) != 1)
        goto out;
    r_number = s_number = NULL; /* the signature owns them now */
    if ((der_length = i2d_ECDSA_SIG(signature, &der)) <= 0)
        goto out;
    good = verify(key, digest, der, (size_t)der_length, data, data_length);
out:
    OPENSSL_free(der);
    BN_free(r_number);
    BN_free(s_number);
    ECDSA_SIG_free(signature);
    EVP_PKEY_free(key);
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(builder);
    return good;
}

int CPinVaultOpenSSL_rsa_verify(const char *digest, unsigned minimum_bits,
                                const uint8_t *modulus, size_t modulus_length,
                                const uint8_t *exponent, size_t exponent_length,
                                const uint8_t *signature, size_t signature_length,
                                const uint8_t *data, size_t data_length)
{
    if (!CPinVaultOpenSSL_libcrypto())
        return 0;
    int good = 0;
    OSSL_PARAM_BLD *builder = OSSL_PARAM_BLD_new();
    OSSL_PARAM *params = NULL;
    EVP_PKEY *key = NULL;
    BIGNUM *n = BN_bin2bn(modulus, (int)modulus_length, NULL);
    BIGNUM *e = BN_bin2bn(exponent, (int)exponent_length, NULL);

    /* Past 8192 bits and a 32-bit exponent, a verification costs a peer nothing and
     * the daemon milliseconds: no host key is that large. */
    if (builder == NULL || n == NULL || e == NULL || modulus_length > 1025 || exponent_length > 4
        || (unsigned)BN_num_bits(n) < minimum_bits || BN_num_bits(n) > 8192)
        goto out;
    if (OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_N, n) != 1
        || OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_E, e) != 1
        || (params = OSSL_PARAM_BLD_to_param(builder)) == NULL
        || (key = key_from("RSA", params)) == NULL)
        goto out;
    good = verify(key, digest, signature, signature_length, data, data_length);
out:
    BN_free(n);
    BN_free(e);
    EVP_PKEY_free(key);
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(builder);
    return good;
}
