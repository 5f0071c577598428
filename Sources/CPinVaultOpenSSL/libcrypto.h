/* The system's libcrypto, loaded when PinVault first needs it (libcrypto.c) rather
 * than by the dynamic linker at start: an idle daemon with no P-256 key in use, no
 * session-bind to verify and no passkey PIN protocol running maps none of it (its
 * relocation alone made 2 MiB of the daemon's idle RSS).
 *
 * Each C file of this target includes this header after nothing else of OpenSSL's:
 * it includes OpenSSL's headers for the prototypes, then makes each name below the
 * pointer the loader found for it, with the prototype's type. A function used here
 * and not listed fails to compile (an implicit declaration is an error), so the list
 * is exactly what the target calls. Every entry point first calls
 * CPinVaultOpenSSL_libcrypto(), and fails when it returns 0. */
#ifndef PINVAULT_LIBCRYPTO_H
#define PINVAULT_LIBCRYPTO_H

#define OPENSSL_SUPPRESS_DEPRECATED

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/obj_mac.h>
#include <openssl/param_build.h>
#include <openssl/sha.h>

#define CPINVAULTOPENSSL_FUNCTIONS(X) \
    X(BN_bin2bn) X(BN_bn2binpad) X(BN_clear_free) X(BN_CTX_free) X(BN_CTX_secure_new) X(BN_free) \
    X(BN_num_bits) X(BN_secure_new) X(BN_set_flags) \
    X(CRYPTO_free) X(CRYPTO_secure_malloc_init) X(CRYPTO_secure_malloc_initialized) \
    X(EC_GROUP_free) X(EC_GROUP_new_by_curve_name) \
    X(EC_KEY_free) X(EC_KEY_new) X(EC_KEY_set_group) X(EC_KEY_set_private_key) \
    X(EC_POINT_clear_free) X(EC_POINT_free) X(EC_POINT_get_affine_coordinates) X(EC_POINT_is_at_infinity) \
    X(EC_POINT_is_on_curve) X(EC_POINT_mul) X(EC_POINT_new) X(EC_POINT_oct2point) X(EC_POINT_point2oct) \
    X(ECDSA_do_sign) X(ECDSA_SIG_free) X(ECDSA_SIG_get0) X(ECDSA_SIG_new) X(ECDSA_SIG_set0) X(i2d_ECDSA_SIG) \
    X(EVP_aes_256_cbc) X(EVP_CIPHER_CTX_free) X(EVP_CIPHER_CTX_new) X(EVP_CIPHER_CTX_set_padding) \
    X(EVP_CipherFinal_ex) X(EVP_CipherInit_ex) X(EVP_CipherUpdate) \
    X(EVP_DigestVerify) X(EVP_DigestVerifyInit_ex) X(EVP_MD_CTX_free) X(EVP_MD_CTX_new) \
    X(EVP_PKEY_CTX_free) X(EVP_PKEY_CTX_new_from_name) X(EVP_PKEY_free) X(EVP_PKEY_fromdata) \
    X(EVP_PKEY_fromdata_init) \
    X(OpenSSL_version_num) \
    X(OSSL_PARAM_BLD_free) X(OSSL_PARAM_BLD_new) X(OSSL_PARAM_BLD_push_BN) X(OSSL_PARAM_BLD_push_octet_string) \
    X(OSSL_PARAM_BLD_push_utf8_string) X(OSSL_PARAM_BLD_to_param) X(OSSL_PARAM_free) \
    X(SHA256_Final) X(SHA256_Init) X(SHA256_Update)

#define CPINVAULTOPENSSL_POINTER(name) __typeof__(name) *name;
struct CPinVaultOpenSSL_functions {
    CPINVAULTOPENSSL_FUNCTIONS(CPINVAULTOPENSSL_POINTER)
};
#undef CPINVAULTOPENSSL_POINTER

/* The loaded functions; written once, under CPinVaultOpenSSL_libcrypto's pthread_once. */
extern struct CPinVaultOpenSSL_functions CPinVaultOpenSSL_crypto;

/* Loads libcrypto.so.3 and every function above, once; 1 when all are there (and the
 * library is OpenSSL 3), 0 otherwise, then and ever after. Thread-safe. */
int CPinVaultOpenSSL_libcrypto(void);

/* Whether libcrypto's secure heap is set up (CPinVaultOpenSSL_libcrypto sets it up
 * before any other call into the library): the private keys that live in libcrypto
 * (p256.c) are made only then, never on its ordinary heap. */
int CPinVaultOpenSSL_secure_heap(void);

#ifndef CPINVAULTOPENSSL_LOADER
#define BN_bin2bn (CPinVaultOpenSSL_crypto.BN_bin2bn)
#define BN_bn2binpad (CPinVaultOpenSSL_crypto.BN_bn2binpad)
#define BN_clear_free (CPinVaultOpenSSL_crypto.BN_clear_free)
#define BN_CTX_free (CPinVaultOpenSSL_crypto.BN_CTX_free)
#define BN_CTX_secure_new (CPinVaultOpenSSL_crypto.BN_CTX_secure_new)
#define BN_free (CPinVaultOpenSSL_crypto.BN_free)
#define BN_num_bits (CPinVaultOpenSSL_crypto.BN_num_bits)
#define BN_secure_new (CPinVaultOpenSSL_crypto.BN_secure_new)
#define BN_set_flags (CPinVaultOpenSSL_crypto.BN_set_flags)
#define CRYPTO_free (CPinVaultOpenSSL_crypto.CRYPTO_free)
#define CRYPTO_secure_malloc_init (CPinVaultOpenSSL_crypto.CRYPTO_secure_malloc_init)
#define CRYPTO_secure_malloc_initialized (CPinVaultOpenSSL_crypto.CRYPTO_secure_malloc_initialized)
#define EC_GROUP_free (CPinVaultOpenSSL_crypto.EC_GROUP_free)
#define EC_GROUP_new_by_curve_name (CPinVaultOpenSSL_crypto.EC_GROUP_new_by_curve_name)
#define EC_KEY_free (CPinVaultOpenSSL_crypto.EC_KEY_free)
#define EC_KEY_new (CPinVaultOpenSSL_crypto.EC_KEY_new)
#define EC_KEY_set_group (CPinVaultOpenSSL_crypto.EC_KEY_set_group)
#define EC_KEY_set_private_key (CPinVaultOpenSSL_crypto.EC_KEY_set_private_key)
#define EC_POINT_clear_free (CPinVaultOpenSSL_crypto.EC_POINT_clear_free)
#define EC_POINT_free (CPinVaultOpenSSL_crypto.EC_POINT_free)
#define EC_POINT_get_affine_coordinates (CPinVaultOpenSSL_crypto.EC_POINT_get_affine_coordinates)
#define EC_POINT_is_at_infinity (CPinVaultOpenSSL_crypto.EC_POINT_is_at_infinity)
#define EC_POINT_is_on_curve (CPinVaultOpenSSL_crypto.EC_POINT_is_on_curve)
#define EC_POINT_mul (CPinVaultOpenSSL_crypto.EC_POINT_mul)
#define EC_POINT_new (CPinVaultOpenSSL_crypto.EC_POINT_new)
#define EC_POINT_oct2point (CPinVaultOpenSSL_crypto.EC_POINT_oct2point)
#define EC_POINT_point2oct (CPinVaultOpenSSL_crypto.EC_POINT_point2oct)
#define ECDSA_do_sign (CPinVaultOpenSSL_crypto.ECDSA_do_sign)
#define ECDSA_SIG_free (CPinVaultOpenSSL_crypto.ECDSA_SIG_free)
#define ECDSA_SIG_get0 (CPinVaultOpenSSL_crypto.ECDSA_SIG_get0)
#define ECDSA_SIG_new (CPinVaultOpenSSL_crypto.ECDSA_SIG_new)
#define ECDSA_SIG_set0 (CPinVaultOpenSSL_crypto.ECDSA_SIG_set0)
#define i2d_ECDSA_SIG (CPinVaultOpenSSL_crypto.i2d_ECDSA_SIG)
#define EVP_aes_256_cbc (CPinVaultOpenSSL_crypto.EVP_aes_256_cbc)
#define EVP_CIPHER_CTX_free (CPinVaultOpenSSL_crypto.EVP_CIPHER_CTX_free)
#define EVP_CIPHER_CTX_new (CPinVaultOpenSSL_crypto.EVP_CIPHER_CTX_new)
#define EVP_CIPHER_CTX_set_padding (CPinVaultOpenSSL_crypto.EVP_CIPHER_CTX_set_padding)
#define EVP_CipherFinal_ex (CPinVaultOpenSSL_crypto.EVP_CipherFinal_ex)
#define EVP_CipherInit_ex (CPinVaultOpenSSL_crypto.EVP_CipherInit_ex)
#define EVP_CipherUpdate (CPinVaultOpenSSL_crypto.EVP_CipherUpdate)
#define EVP_DigestVerify (CPinVaultOpenSSL_crypto.EVP_DigestVerify)
#define EVP_DigestVerifyInit_ex (CPinVaultOpenSSL_crypto.EVP_DigestVerifyInit_ex)
#define EVP_MD_CTX_free (CPinVaultOpenSSL_crypto.EVP_MD_CTX_free)
#define EVP_MD_CTX_new (CPinVaultOpenSSL_crypto.EVP_MD_CTX_new)
#define EVP_PKEY_CTX_free (CPinVaultOpenSSL_crypto.EVP_PKEY_CTX_free)
#define EVP_PKEY_CTX_new_from_name (CPinVaultOpenSSL_crypto.EVP_PKEY_CTX_new_from_name)
#define EVP_PKEY_free (CPinVaultOpenSSL_crypto.EVP_PKEY_free)
#define EVP_PKEY_fromdata (CPinVaultOpenSSL_crypto.EVP_PKEY_fromdata)
#define EVP_PKEY_fromdata_init (CPinVaultOpenSSL_crypto.EVP_PKEY_fromdata_init)
#define OpenSSL_version_num (CPinVaultOpenSSL_crypto.OpenSSL_version_num)
#define OSSL_PARAM_BLD_free (CPinVaultOpenSSL_crypto.OSSL_PARAM_BLD_free)
#define OSSL_PARAM_BLD_new (CPinVaultOpenSSL_crypto.OSSL_PARAM_BLD_new)
#define OSSL_PARAM_BLD_push_BN (CPinVaultOpenSSL_crypto.OSSL_PARAM_BLD_push_BN)
#define OSSL_PARAM_BLD_push_octet_string (CPinVaultOpenSSL_crypto.OSSL_PARAM_BLD_push_octet_string)
#define OSSL_PARAM_BLD_push_utf8_string (CPinVaultOpenSSL_crypto.OSSL_PARAM_BLD_push_utf8_string)
#define OSSL_PARAM_BLD_to_param (CPinVaultOpenSSL_crypto.OSSL_PARAM_BLD_to_param)
#define OSSL_PARAM_free (CPinVaultOpenSSL_crypto.OSSL_PARAM_free)
#define SHA256_Final (CPinVaultOpenSSL_crypto.SHA256_Final)
#define SHA256_Init (CPinVaultOpenSSL_crypto.SHA256_Init)
#define SHA256_Update (CPinVaultOpenSSL_crypto.SHA256_Update)
#endif

#endif
