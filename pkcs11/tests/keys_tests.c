/*
 * Unit tests of the module's first layer (pv_keys.h): which credentials are tokens,
 * and ECDSA's two signature encodings, DER to r || s only when strict. Built with
 * ASan and UBSan by `make pkcs11-test`; every DER an OpenSSL signature can take
 * (r or s shorter, or needing a leading zero) goes both ways.
 */
#include <openssl/bn.h>
#include <openssl/ecdsa.h>
#include <stdio.h>
#include <string.h>

#include "../../libpinvault/tests/check.h"
#include "pv_keys.h"

static void test_kinds(void)
{
    const struct pv_kind *ed = pv_kind_of(PINVAULT_ALGORITHM_ED25519, PINVAULT_PURPOSE_AUTHENTICATE);
    const struct pv_kind *p256 = pv_kind_of(PINVAULT_ALGORITHM_P256, PINVAULT_PURPOSE_AUTHENTICATE);
    const struct pv_kind *ssh = pv_kind_of(PINVAULT_ALGORITHM_P256, PINVAULT_PURPOSE_SSH);
    CHECK(ed != NULL && ed->mechanism == CKM_EDDSA && ed->key_type == CKK_EC_EDWARDS && !ed->signs_digest);
    CHECK(p256 != NULL && p256->mechanism == CKM_ECDSA_SHA256 && p256->key_type == CKK_EC && !p256->signs_digest &&
          p256->der_signatures && p256->public_key_bytes == 65);
    CHECK(ssh != NULL && ssh->mechanism == CKM_ECDSA && ssh->signs_digest);
    /* Hash signing only for ssh keys; an Ed25519 ssh key cannot sign a hash; login and legacy keys are no tokens. */
    CHECK(pv_kind_of(PINVAULT_ALGORITHM_ED25519, PINVAULT_PURPOSE_SSH) == NULL);
    CHECK(pv_kind_of(PINVAULT_ALGORITHM_P256, PINVAULT_PURPOSE_LOGIN) == NULL);
    CHECK(pv_kind_of(PINVAULT_ALGORITHM_ED25519, PINVAULT_PURPOSE_LEGACY) == NULL);
    CHECK(pv_kind_of(PINVAULT_ALGORITHM_OTHER, PINVAULT_PURPOSE_AUTHENTICATE) == NULL);
}

/* The DER OpenSSL writes for r and s (as 32 big-endian bytes each). */
static int openssl_der(const unsigned char raw[64], unsigned char *der)
{
    ECDSA_SIG *sig = ECDSA_SIG_new();
    BIGNUM *r = BN_bin2bn(raw, 32, NULL), *s = BN_bin2bn(raw + 32, 32, NULL);
    if (sig == NULL || r == NULL || s == NULL || ECDSA_SIG_set0(sig, r, s) != 1)
        return -1;
    unsigned char *out = der;
    int length = i2d_ECDSA_SIG(sig, &out);
    ECDSA_SIG_free(sig);
    return length;
}

static void round_trip(const unsigned char raw[64])
{
    unsigned char der[PV_P256_DER_MAX_BYTES], theirs[80], back[64];
    size_t length = pv_ecdsa_raw_to_der(raw, der);
    int expected = openssl_der(raw, theirs);
    CHECK(expected > 0 && (size_t)expected == length && memcmp(der, theirs, length) == 0);
    CHECK(pv_ecdsa_der_to_raw(der, length, back) == 0 && memcmp(back, raw, 64) == 0);
}

static void test_der(void)
{
    unsigned char raw[64];
    memset(raw, 0x11, sizeof raw);
    round_trip(raw); /* 32 bytes each, no padding: 70 bytes of DER */
    raw[0] = 0x80;
    raw[32] = 0xff;
    round_trip(raw); /* both need a leading zero: 72 bytes */
    memset(raw, 0, 5);
    raw[5] = 0x7f;
    round_trip(raw); /* r shorter */
    memset(raw + 32, 0, 31);
    round_trip(raw); /* s of one byte */

    unsigned char der[PV_P256_DER_MAX_BYTES + 8], out[64];
    memset(raw, 0x11, sizeof raw);
    size_t length = pv_ecdsa_raw_to_der(raw, der);
    /* Anything but strict DER is refused: trailing bytes, a wrong length, a needless zero, a negative integer. */
    CHECK(pv_ecdsa_der_to_raw(der, length - 1, out) != 0);
    der[length] = 0;
    CHECK(pv_ecdsa_der_to_raw(der, length + 1, out) != 0);
    unsigned char padded[] = {0x30, 0x07, 0x02, 0x02, 0x00, 0x01, 0x02, 0x01, 0x01};
    CHECK(pv_ecdsa_der_to_raw(padded, sizeof padded, out) != 0);
    unsigned char negative[] = {0x30, 0x06, 0x02, 0x01, 0x81, 0x02, 0x01, 0x01};
    CHECK(pv_ecdsa_der_to_raw(negative, sizeof negative, out) != 0);
    unsigned char small[] = {0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x02};
    CHECK(pv_ecdsa_der_to_raw(small, sizeof small, out) == 0 && out[31] == 1 && out[63] == 2 && out[0] == 0);
    unsigned char long_form[] = {0x30, 0x81, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x02};
    CHECK(pv_ecdsa_der_to_raw(long_form, sizeof long_form, out) != 0);
    unsigned char empty_integer[] = {0x30, 0x05, 0x02, 0x00, 0x02, 0x01, 0x02};
    CHECK(pv_ecdsa_der_to_raw(empty_integer, sizeof empty_integer, out) != 0);
    unsigned char not_integer[] = {0x30, 0x06, 0x04, 0x01, 0x01, 0x02, 0x01, 0x02};
    CHECK(pv_ecdsa_der_to_raw(not_integer, sizeof not_integer, out) != 0);
    /* An integer of 33 bytes that is not a padded 32-byte one is too large for P-256. */
    unsigned char big[2 + 2 + 33 + 3] = {0x30, 2 + 33 + 3, 0x02, 33, 0x01};
    big[2 + 2 + 33] = 0x02;
    big[2 + 2 + 33 + 1] = 0x01;
    big[2 + 2 + 33 + 2] = 0x01;
    CHECK(pv_ecdsa_der_to_raw(big, sizeof big, out) != 0);
    /* Every truncation of a valid signature is refused, and read within its length. */
    for (size_t cut = 0; cut < length; cut++)
        CHECK(pv_ecdsa_der_to_raw(der, cut, out) != 0);
}

int main(void)
{
    test_kinds();
    test_der();
    printf("pinvault-pkcs11 unit tests: %d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
