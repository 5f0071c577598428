#ifndef PINVAULT_CPINVAULTOPENSSL_H
#define PINVAULT_CPINVAULTOPENSSL_H

/*
 * Signature verification with the system's libcrypto (OpenSSL 3), for the host keys
 * an ssh client names in session-bind@openssh.com: ECDSA over the NIST curves and RSA
 * with SHA-2. (Ed25519, the host key most servers offer first, is libsodium's.) No
 * logic beyond building the key from its SSH encoding and calling EVP_DigestVerify.
 * Each returns 1 for a good signature, 0 for anything else.
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

#endif
