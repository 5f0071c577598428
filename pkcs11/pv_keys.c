/* The kinds of token and ECDSA's two signature encodings (pv_keys.h). */
#include "pv_keys.h"

#include <string.h>

/* id-Ed25519, 1.3.101.112 (RFC 8410), as SoftHSM2 writes it and OpenSSH, OpenSC and pkcs11-provider read it. */
static const unsigned char ed25519_params[] = {0x06, 0x03, 0x2b, 0x65, 0x70};
/* SubjectPublicKeyInfo of an Ed25519 key, up to its 32 bytes (RFC 8410 §4). */
static const unsigned char ed25519_spki[] = {0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00};
/* prime256v1, 1.2.840.10045.3.1.7 (RFC 5480): the namedCurve form, the one OpenSSH reads. */
static const unsigned char p256_params[] = {0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07};
/* SubjectPublicKeyInfo of a P-256 key (id-ecPublicKey, prime256v1), up to its 65-byte point (RFC 5480). */
static const unsigned char p256_spki[] = {0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d,
                                          0x02, 0x01, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01,
                                          0x07, 0x03, 0x42, 0x00};

static const struct pv_kind kinds[] = {
    {
        .algorithm = PINVAULT_ALGORITHM_ED25519, .purpose = PINVAULT_PURPOSE_AUTHENTICATE,
        .key_type = CKK_EC_EDWARDS, .key_gen_mechanism = CKM_EC_EDWARDS_KEY_PAIR_GEN, .mechanism = CKM_EDDSA,
        .key_bits = 255, .public_key_bytes = 32,
        .ec_params = ed25519_params, .ec_params_length = sizeof ed25519_params,
        .spki_prefix = ed25519_spki, .spki_prefix_length = sizeof ed25519_spki,
    },
    {
        .algorithm = PINVAULT_ALGORITHM_P256, .purpose = PINVAULT_PURPOSE_AUTHENTICATE,
        .key_type = CKK_EC, .key_gen_mechanism = CKM_EC_KEY_PAIR_GEN, .mechanism = CKM_ECDSA_SHA256,
        .der_signatures = true, .key_bits = 256, .public_key_bytes = 65,
        .ec_params = p256_params, .ec_params_length = sizeof p256_params,
        .spki_prefix = p256_spki, .spki_prefix_length = sizeof p256_spki,
    },
    {
        .algorithm = PINVAULT_ALGORITHM_P256, .purpose = PINVAULT_PURPOSE_SSH,
        .key_type = CKK_EC, .key_gen_mechanism = CKM_EC_KEY_PAIR_GEN, .mechanism = CKM_ECDSA,
        .signs_digest = true, .der_signatures = true, .key_bits = 256, .public_key_bytes = 65,
        .ec_params = p256_params, .ec_params_length = sizeof p256_params,
        .spki_prefix = p256_spki, .spki_prefix_length = sizeof p256_spki,
    },
};
#define KIND_COUNT (sizeof kinds / sizeof kinds[0])

const struct pv_kind *pv_kind_of(pinvault_algorithm algorithm, pinvault_purpose purpose)
{
    for (size_t i = 0; i < KIND_COUNT; i++)
        if (kinds[i].algorithm == algorithm && kinds[i].purpose == purpose)
            return &kinds[i];
    return NULL;
}

/*
 * One DER INTEGER at *at (of at most `end`): positive, shortest form, its value at
 * most 32 bytes, written right-aligned into `out`. 0, or -1.
 */
static int read_integer(const unsigned char **at, const unsigned char *end, unsigned char out[PV_P256_SCALAR_BYTES])
{
    const unsigned char *p = *at;
    if (end - p < 3 || p[0] != 0x02 || p[1] == 0 || p[1] > PV_P256_SCALAR_BYTES + 1 || end - p - 2 < p[1])
        return -1;
    size_t length = p[1];
    const unsigned char *value = p + 2;
    if (value[0] & 0x80)
        return -1; /* negative */
    if (length > 1 && value[0] == 0x00 && !(value[1] & 0x80))
        return -1; /* a leading zero that is not needed */
    if (value[0] == 0x00 && length > 1) {
        value++;
        length--;
    }
    if (length > PV_P256_SCALAR_BYTES)
        return -1;
    memset(out, 0, PV_P256_SCALAR_BYTES);
    memcpy(out + PV_P256_SCALAR_BYTES - length, value, length);
    *at = p + 2 + p[1];
    return 0;
}

int pv_ecdsa_der_to_raw(const unsigned char *der, size_t length, unsigned char raw[2 * PV_P256_SCALAR_BYTES])
{
    /* A SEQUENCE in the short form of length (it is at most 70 bytes), filling the input exactly. */
    if (length < 2 || length > PV_P256_DER_MAX_BYTES || der[0] != 0x30 || der[1] >= 0x80 || (size_t)der[1] != length - 2)
        return -1;
    const unsigned char *at = der + 2, *end = der + length;
    if (read_integer(&at, end, raw) != 0 || read_integer(&at, end, raw + PV_P256_SCALAR_BYTES) != 0)
        return -1;
    return at == end ? 0 : -1;
}

/* One INTEGER of a 32-byte scalar, in its shortest form. */
static size_t write_integer(unsigned char *out, const unsigned char scalar[PV_P256_SCALAR_BYTES])
{
    size_t skip = 0;
    while (skip < PV_P256_SCALAR_BYTES - 1 && scalar[skip] == 0)
        skip++;
    size_t length = PV_P256_SCALAR_BYTES - skip;
    bool pad = (scalar[skip] & 0x80) != 0;
    out[0] = 0x02;
    out[1] = (unsigned char)(length + pad);
    if (pad)
        out[2] = 0x00;
    memcpy(out + 2 + pad, scalar + skip, length);
    return 2 + pad + length;
}

size_t pv_ecdsa_raw_to_der(const unsigned char raw[2 * PV_P256_SCALAR_BYTES], unsigned char der[PV_P256_DER_MAX_BYTES])
{
    size_t length = write_integer(der + 2, raw);
    length += write_integer(der + 2 + length, raw + PV_P256_SCALAR_BYTES);
    der[0] = 0x30;
    der[1] = (unsigned char)length;
    return length + 2;
}
