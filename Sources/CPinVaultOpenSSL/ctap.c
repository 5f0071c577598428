/* See CPinVaultOpenSSL.h. Every allocation is freed on every path; every return of
 * libcrypto is checked. */
#include "CPinVaultOpenSSL.h"
#include "libcrypto.h"

/* CTAP's key agreement: the x-coordinate of scalar × peer, the peer's point checked to
 * be on P-256 (EC_POINT_oct2point refuses one that is not) and not the identity. */
int CPinVaultOpenSSL_p256_ecdh(const uint8_t *scalar, const uint8_t *peer_point, uint8_t *shared_x)
{
    if (!CPinVaultOpenSSL_libcrypto())
        return 0;
    int done = 0;
    EC_GROUP *group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
    EC_POINT *peer = group != NULL ? EC_POINT_new(group) : NULL;
    EC_POINT *product = group != NULL ? EC_POINT_new(group) : NULL;
    BN_CTX *context = BN_CTX_secure_new();
    BIGNUM *d = BN_secure_new();
    BIGNUM *x = BN_secure_new();

    if (peer == NULL || product == NULL || context == NULL || d == NULL || x == NULL
        || BN_bin2bn(scalar, 32, d) == NULL)
        goto out;
    BN_set_flags(d, BN_FLG_CONSTTIME);
    if (EC_POINT_oct2point(group, peer, peer_point, 65, context) != 1
        || EC_POINT_is_at_infinity(group, peer) || EC_POINT_is_on_curve(group, peer, context) != 1)
        goto out;
    if (EC_POINT_mul(group, product, NULL, peer, d, context) != 1 || EC_POINT_is_at_infinity(group, product)
        || EC_POINT_get_affine_coordinates(group, product, x, NULL, context) != 1)
        goto out;
    done = BN_bn2binpad(x, shared_x, 32) == 32;
out:
    BN_clear_free(x);
    BN_clear_free(d);
    BN_CTX_free(context);
    EC_POINT_clear_free(product);
    EC_POINT_free(peer);
    EC_GROUP_free(group);
    return done;
}

/* AES-256-CBC without padding over whole blocks: CTAP's PIN and token encryption. */
int CPinVaultOpenSSL_aes256_cbc(int encrypt, const uint8_t *key, const uint8_t *iv, const uint8_t *input,
                                size_t length, uint8_t *output)
{
    if (!CPinVaultOpenSSL_libcrypto())
        return 0;
    int done = 0, written = 0, final = 0;
    EVP_CIPHER_CTX *cipher = EVP_CIPHER_CTX_new();

    if (cipher == NULL || length % 16 != 0 || length > 4096)
        goto out;
    if (EVP_CipherInit_ex(cipher, EVP_aes_256_cbc(), NULL, key, iv, encrypt ? 1 : 0) != 1
        || EVP_CIPHER_CTX_set_padding(cipher, 0) != 1
        || EVP_CipherUpdate(cipher, output, &written, input, (int)length) != 1
        || EVP_CipherFinal_ex(cipher, output + written, &final) != 1)
        goto out;
    done = (size_t)(written + final) == length;
out:
    EVP_CIPHER_CTX_free(cipher); /* clears the key schedule */
    return done;
}
