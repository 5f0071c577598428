/* See CPinVaultOpenSSL.h. Every allocation is freed on every path; every return of
 * libcrypto is checked.
 *
 * ECDSA P-256 for PinVault's own keys, through libcrypto's EC_KEY interface, as
 * OpenSSH's ssh-ecdsa.c does. OpenSSL 3 marks it deprecated in favour of EVP_PKEY, but
 * an EVP key can only be built from parameters, which makes a new curve group for every
 * signature (EVP_PKEY_fromdata) and fetches the algorithms again (EVP_DigestSignInit):
 * twice the cost of the signature itself. Here the group is made once and every key
 * shares it.
 *
 * A key (`CPinVaultOpenSSL_p256_key`) is an EC_KEY whose private BIGNUM libcrypto
 * allocates from its secure heap (CRYPTO_secure_malloc_init, libcrypto.c: locked
 * pages, left out of core dumps, between guard pages, cleared when freed): BN_bin2bn
 * into a BIGNUM from BN_secure_new, which EC_KEY_set_private_key copies with BN_dup,
 * secure like its source, before the first is cleared. An unlock session keeps one for
 * its life and frees it at its end (EC_KEY_free clears it), so that a signature costs
 * only ECDSA itself. ECDSA's nonce comes from BN_generate_dsa_nonce: random bytes hashed
 * with the private key and the digest, its copy of the key cleansed.
 *
 * The signature's DER is written here (two INTEGERs in a SEQUENCE, at most 72 bytes):
 * i2d_ECDSA_SIG, libcrypto's general ASN.1 encoder, twice, cost 8k instructions of its 270k. */
#define OPENSSL_SUPPRESS_DEPRECATED

#include "CPinVaultOpenSSL.h"
#include "libcrypto.h"

#include <pthread.h>
#include <string.h>

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
    if (!CPinVaultOpenSSL_libcrypto())
        return NULL;
    pthread_once(&p256_group_once, p256_make_group);
    return p256_group;
}

CPinVaultOpenSSL_p256_key *CPinVaultOpenSSL_p256_key_new(const uint8_t *scalar, uint8_t *point)
{
    const EC_GROUP *group = p256();
    if (group == NULL || !CPinVaultOpenSSL_secure_heap())
        return NULL;
    EC_KEY *key = EC_KEY_new();
    BIGNUM *d = BN_secure_new();
    EC_POINT *public_point = point != NULL ? EC_POINT_new(group) : NULL;
    BN_CTX *context = point != NULL ? BN_CTX_secure_new() : NULL;
    int done = key != NULL && d != NULL && (point == NULL || (public_point != NULL && context != NULL))
        && EC_KEY_set_group(key, group) == 1 && BN_bin2bn(scalar, (int)p256_scalar_bytes, d) != NULL;
    if (done) {
        BN_set_flags(d, BN_FLG_CONSTTIME);
        done = EC_KEY_set_private_key(key, d) == 1;
    }
    if (done && point != NULL)
        done = EC_POINT_mul(group, public_point, d, NULL, NULL, context) == 1
            && EC_POINT_point2oct(group, public_point, POINT_CONVERSION_UNCOMPRESSED, point, p256_point_bytes,
                                  context) == p256_point_bytes;
    BN_clear_free(d);
    BN_CTX_free(context);
    EC_POINT_free(public_point);
    if (!done) {
        EC_KEY_free(key);
        return NULL;
    }
    return (CPinVaultOpenSSL_p256_key *)key;
}

void CPinVaultOpenSSL_p256_key_free(CPinVaultOpenSSL_p256_key *key)
{
    if (key != NULL)
        EC_KEY_free((EC_KEY *)key); /* BN_clear_free of the private key, into the secure heap */
}

/* Appends the DER INTEGER of `number` (0 < number < 2^256) at `out`; returns its size. */
static size_t der_integer(const BIGNUM *number, uint8_t *out)
{
    uint8_t bytes[32];
    if (BN_bn2binpad(number, bytes, (int)sizeof bytes) != (int)sizeof bytes)
        return 0;
    size_t skip = 0;
    while (skip < sizeof bytes - 1 && bytes[skip] == 0)
        skip++;
    size_t length = sizeof bytes - skip, pad = bytes[skip] >= 0x80;
    out[0] = 0x02;
    out[1] = (uint8_t)(length + pad);
    out[2] = 0;
    memcpy(out + 2 + pad, bytes + skip, length);
    return 2 + pad + length;
}

int CPinVaultOpenSSL_p256_key_sign(const CPinVaultOpenSSL_p256_key *key, int prehashed, const uint8_t *data,
                                   size_t data_length, uint8_t *der, size_t der_capacity, size_t *der_length)
{
    unsigned char digest[32];
    const unsigned char *hash = data;
    if (key == NULL || der_capacity < 72)
        return 0;
    if (prehashed) {
        if (data_length != p256_digest_bytes)
            return 0;
    } else {
        /* The low-level calls: SHA256(), EVP's one-shot, fetches the algorithm each time. */
        SHA256_CTX context;
        if (SHA256_Init(&context) != 1 || SHA256_Update(&context, data, data_length) != 1
            || SHA256_Final(digest, &context) != 1)
            return 0;
        hash = digest;
    }
    /* ECDSA_do_sign takes the key as not const; it changes nothing in it. */
    ECDSA_SIG *signature = ECDSA_do_sign(hash, (int)p256_digest_bytes, (EC_KEY *)key);
    if (signature == NULL)
        return 0;
    const BIGNUM *r = NULL, *s = NULL;
    ECDSA_SIG_get0(signature, &r, &s);
    size_t r_length = der_integer(r, der + 2);
    size_t s_length = r_length != 0 ? der_integer(s, der + 2 + r_length) : 0;
    ECDSA_SIG_free(signature);
    if (s_length == 0)
        return 0;
    der[0] = 0x30;
    der[1] = (uint8_t)(r_length + s_length);
    *der_length = 2 + r_length + s_length;
    return 1;
}

int CPinVaultOpenSSL_p256_public_key(const uint8_t *scalar, uint8_t *point)
{
    CPinVaultOpenSSL_p256_key *key = CPinVaultOpenSSL_p256_key_new(scalar, point);
    CPinVaultOpenSSL_p256_key_free(key);
    return key != NULL;
}

int CPinVaultOpenSSL_p256_sign(const uint8_t *scalar, int prehashed, const uint8_t *data, size_t data_length,
                               uint8_t *der, size_t der_capacity, size_t *der_length)
{
    CPinVaultOpenSSL_p256_key *key = CPinVaultOpenSSL_p256_key_new(scalar, NULL);
    int done = CPinVaultOpenSSL_p256_key_sign(key, prehashed, data, data_length, der, der_capacity, der_length);
    CPinVaultOpenSSL_p256_key_free(key);
    return done;
}
