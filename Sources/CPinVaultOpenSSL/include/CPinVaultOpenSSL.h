#ifndef PINVAULT_CPINVAULTOPENSSL_H
#define PINVAULT_CPINVAULTOPENSSL_H

/*
 * The system's libcrypto (OpenSSL 3), for what libsodium does not do:
 * - signature verification for the host keys an ssh client names in
 *   session-bind@openssh.com (ECDSA over the NIST curves, RSA with SHA-2; Ed25519, the
 *   host key most servers offer first, is libsodium's), and for P-256 keys' signatures;
 * - ECDSA P-256 for PinVault's own P-256 keys: the public point of a scalar, and
 *   signatures, by a key libcrypto holds in its secure heap for as long as the
 *   caller keeps it, or by a scalar of the caller's (in guarded memory) for one call.
 * libcrypto is loaded at the first call of any of these (libcrypto.h), not at start.
 * No logic beyond building the key and calling libcrypto. Each returns 1 for success
 * (a good signature), 0 for anything else (libcrypto.so.3 missing among it).
 */

#include <stddef.h>
#include <stdint.h>

/* `group` is "P-256", "P-384" or "P-521"; `digest` "SHA256", "SHA384" or "SHA512";
 * `point` the SEC1 point of the key; `r` and `s` the signature's big-endian integers. */
int CPinVaultOpenSSL_ecdsa_verify(const char *group, const char *digest,
                                  const uint8_t *point, size_t point_length,
                                  const uint8_t *r, size_t r_length, const uint8_t *s, size_t s_length,
                                  const uint8_t *data, size_t data_length);

/* PKCS#1 v1.5 with `digest` ("SHA256" or "SHA512"); `modulus` and `exponent`
 * big-endian. Moduli under `minimum_bits` or over 8192 bits, and exponents over 32
 * bits, are refused. */
int CPinVaultOpenSSL_rsa_verify(const char *digest, unsigned minimum_bits,
                                const uint8_t *modulus, size_t modulus_length,
                                const uint8_t *exponent, size_t exponent_length,
                                const uint8_t *signature, size_t signature_length,
                                const uint8_t *data, size_t data_length);

/* The SEC1 uncompressed point (65 bytes) of the P-256 private scalar `scalar`
 * (32 bytes, big-endian, 1 <= scalar < n; the caller checks the range). */
int CPinVaultOpenSSL_p256_public_key(const uint8_t *scalar, uint8_t *point);

/* A P-256 signing key: libcrypto's EC_KEY, its private key in libcrypto's secure heap
 * (locked pages, left out of core dumps, cleared when freed; p256.c). */
typedef struct CPinVaultOpenSSL_p256_key CPinVaultOpenSSL_p256_key;

/* The key of `scalar` (32 bytes, big-endian, 1 <= scalar < n), and, when `point` is not
 * NULL, its SEC1 uncompressed point (65 bytes) into `point`; NULL on failure, and when
 * libcrypto's secure heap could not be set up. The caller may wipe `scalar` at once. */
CPinVaultOpenSSL_p256_key *CPinVaultOpenSSL_p256_key_new(const uint8_t *scalar, uint8_t *point);

/* Frees `key` (NULL: nothing), clearing its private key. */
void CPinVaultOpenSSL_p256_key_free(CPinVaultOpenSSL_p256_key *key);

/* An ECDSA P-256 signature by `key`, DER ECDSA-Sig-Value (at most 72 bytes into `der`;
 * `der_capacity` must be at least 72): of SHA-256(`data`) when `prehashed` is 0, else of
 * `data` itself, which must then be a 32-byte digest. Nonces are libcrypto's: k from
 * fresh random bytes hashed with the private key and the digest. */
int CPinVaultOpenSSL_p256_key_sign(const CPinVaultOpenSSL_p256_key *key, int prehashed, const uint8_t *data,
                                   size_t data_length, uint8_t *der, size_t der_capacity, size_t *der_length);

/* The same by the key of `scalar` (32 bytes, big-endian), made and freed within the call. */
int CPinVaultOpenSSL_p256_sign(const uint8_t *scalar, int prehashed, const uint8_t *data, size_t data_length,
                               uint8_t *der, size_t der_capacity, size_t *der_length);


/* CTAP 2.1's PIN/UV auth protocols (ctap.c). The P-256 ECDH x-coordinate of scalar (32
 * bytes, big-endian) times peer_point (65 bytes, SEC1 uncompressed, checked to be on the
 * curve) into shared_x (32 bytes). 1 on success, 0 otherwise (nothing written). */
int CPinVaultOpenSSL_p256_ecdh(const uint8_t *scalar, const uint8_t *peer_point, uint8_t *shared_x);

/* AES-256-CBC without padding: length a multiple of 16 (at most 4096); key 32 bytes, iv
 * 16 bytes; output as long as input. 1 on success, 0 otherwise. */
int CPinVaultOpenSSL_aes256_cbc(int encrypt, const uint8_t *key, const uint8_t *iv, const uint8_t *input,
                                size_t length, uint8_t *output);

#endif
