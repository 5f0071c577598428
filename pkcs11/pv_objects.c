/*
 * The entry points of objects (layer 5): the two objects of each token, the
 * credential's public key and its private key, of the token's kind (pv_keys.h:
 * CKK_EC_EDWARDS for Ed25519, CKK_EC for P-256), with one CKA_ID, the 16 bytes
 * whose hex is the keyId. Nothing about them can be changed through PKCS#11, and
 * the private key's value never leaves pinvaultd: it is only a handle for C_Sign.
 *
 * CKA_EC_PARAMS is the DER of the curve's OID (id-Ed25519 1.3.101.112, RFC 8410;
 * prime256v1 1.2.840.10045.3.1.7, RFC 5480), as SoftHSM2 writes them and OpenSSH,
 * OpenSC and pkcs11-provider read them; CKA_EC_POINT the public key (32 bytes, or
 * the 65-byte SEC1 uncompressed point) as a DER OCTET STRING (PKCS#11 3.0 §2.3.3,
 * §2.3.5); CKA_PUBLIC_KEY_INFO its SubjectPublicKeyInfo. The private key is
 * visible only while logged in.
 */
#include <string.h>

#include "pv_sessions.h"
#include "pv_slots.h"

/* One attribute's value: where it is, and how long. */
struct value {
    const void *bytes;
    CK_ULONG length;
    /* Scratch for values made on the fly. */
    union {
        CK_BBOOL boolean;
        CK_ULONG number;
        CK_MECHANISM_TYPE mechanism;
        unsigned char bytes[128]; /* a SubjectPublicKeyInfo: 26 + 65 bytes for P-256 */
        char text[PV_TOKEN_LABEL_BYTES];
    } scratch;
};

enum lookup { FOUND, TYPE_INVALID, SENSITIVE };

static enum lookup boolean(struct value *value, bool on)
{
    value->scratch.boolean = on ? CK_TRUE : CK_FALSE;
    value->bytes = &value->scratch.boolean;
    value->length = sizeof value->scratch.boolean;
    return FOUND;
}

static enum lookup number(struct value *value, CK_ULONG n)
{
    value->scratch.number = n;
    value->bytes = &value->scratch.number;
    value->length = sizeof value->scratch.number;
    return FOUND;
}

static enum lookup bytes(struct value *value, const void *data, CK_ULONG length)
{
    value->bytes = data;
    value->length = length;
    return FOUND;
}

/* The attribute `type` of the object `kind` of `slot`. */
static enum lookup attribute(const struct pv_slot *slot, int kind, CK_ATTRIBUTE_TYPE type, struct value *value)
{
    bool private_key = kind == PV_OBJECT_PRIVATE;
    const struct pv_kind *key = slot->kind;
    switch (type) {
    /* Every object, every key. */
    case CKA_CLASS: return number(value, private_key ? CKO_PRIVATE_KEY : CKO_PUBLIC_KEY);
    case CKA_TOKEN: return boolean(value, true);
    case CKA_PRIVATE: return boolean(value, private_key);
    case CKA_MODIFIABLE: return boolean(value, false);
    case CKA_COPYABLE: return boolean(value, false);
    case CKA_DESTROYABLE: return boolean(value, false);
    case CKA_LABEL:
        pv_token_label(slot, value->scratch.text, sizeof value->scratch.text);
        return bytes(value, value->scratch.text, (CK_ULONG)strlen(value->scratch.text));
    case CKA_KEY_TYPE: return number(value, key->key_type);
    case CKA_ID: return bytes(value, slot->id, sizeof slot->id);
    case CKA_START_DATE:
    case CKA_END_DATE:
    case CKA_SUBJECT: return bytes(value, "", 0);
    case CKA_DERIVE: return boolean(value, false);
    case CKA_LOCAL: return boolean(value, true); /* made in pinvaultd (pinvault register) */
    case CKA_KEY_GEN_MECHANISM: return number(value, key->key_gen_mechanism);
    case CKA_ALLOWED_MECHANISMS:
        value->scratch.mechanism = key->mechanism;
        return bytes(value, &value->scratch.mechanism, sizeof value->scratch.mechanism);
    case CKA_EC_PARAMS: return bytes(value, key->ec_params, key->ec_params_length);
    case CKA_PUBLIC_KEY_INFO:
        memcpy(value->scratch.bytes, key->spki_prefix, key->spki_prefix_length);
        memcpy(value->scratch.bytes + key->spki_prefix_length, slot->public_key, key->public_key_bytes);
        return bytes(value, value->scratch.bytes, (CK_ULONG)(key->spki_prefix_length + key->public_key_bytes));
    default:
        break;
    }
    if (!private_key) {
        switch (type) {
        case CKA_EC_POINT:
            value->scratch.bytes[0] = 0x04; /* OCTET STRING, of a length in the short form (< 128) */
            value->scratch.bytes[1] = (unsigned char)key->public_key_bytes;
            memcpy(value->scratch.bytes + 2, slot->public_key, key->public_key_bytes);
            return bytes(value, value->scratch.bytes, (CK_ULONG)(2 + key->public_key_bytes));
        case CKA_VERIFY: return boolean(value, true);
        case CKA_ENCRYPT:
        case CKA_VERIFY_RECOVER:
        case CKA_WRAP:
        case CKA_TRUSTED: return boolean(value, false);
        default: return TYPE_INVALID;
        }
    }
    switch (type) {
    case CKA_SIGN: return boolean(value, true);
    case CKA_SENSITIVE:
    case CKA_ALWAYS_SENSITIVE:
    case CKA_NEVER_EXTRACTABLE: return boolean(value, true);
    case CKA_DECRYPT:
    case CKA_SIGN_RECOVER:
    case CKA_UNWRAP:
    case CKA_EXTRACTABLE:
    case CKA_WRAP_WITH_TRUSTED:
    case CKA_ALWAYS_AUTHENTICATE: return boolean(value, false);
    case CKA_VALUE: return SENSITIVE; /* the seed stays in pinvaultd */
    default: return TYPE_INVALID;
    }
}

PV_EXPORT CK_RV C_GetAttributeValue(CK_SESSION_HANDLE hSession, CK_OBJECT_HANDLE hObject, CK_ATTRIBUTE_PTR pTemplate,
                                    CK_ULONG ulCount)
{
    CK_RV rv;
    struct pv_session *session = pv_enter_session(hSession, &rv);
    if (session == NULL)
        return rv;
    int kind = pv_object_kind(session, hObject);
    if (kind == 0)
        return pv_done(CKR_OBJECT_HANDLE_INVALID);
    if (pTemplate == NULL && ulCount > 0)
        return pv_done(CKR_ARGUMENTS_BAD);
    /* Every attribute is answered; the error is that of the last one that failed (PKCS#11 §5.7). */
    for (CK_ULONG i = 0; i < ulCount; i++) {
        struct value value;
        switch (attribute(pv_session_slot(session), kind, pTemplate[i].type, &value)) {
        case TYPE_INVALID:
            pTemplate[i].ulValueLen = CK_UNAVAILABLE_INFORMATION;
            rv = CKR_ATTRIBUTE_TYPE_INVALID;
            continue;
        case SENSITIVE:
            pTemplate[i].ulValueLen = CK_UNAVAILABLE_INFORMATION;
            rv = CKR_ATTRIBUTE_SENSITIVE;
            continue;
        case FOUND:
            break;
        }
        if (pTemplate[i].pValue == NULL) {
            pTemplate[i].ulValueLen = value.length;
        } else if (pTemplate[i].ulValueLen < value.length) {
            pTemplate[i].ulValueLen = CK_UNAVAILABLE_INFORMATION;
            rv = CKR_BUFFER_TOO_SMALL;
        } else {
            memcpy(pTemplate[i].pValue, value.bytes, value.length);
            pTemplate[i].ulValueLen = value.length;
        }
    }
    return pv_done(rv);
}

/* Whether the object has every attribute of the template, with exactly its value. */
static bool matches(const struct pv_slot *slot, int kind, const CK_ATTRIBUTE *template, CK_ULONG count)
{
    for (CK_ULONG i = 0; i < count; i++) {
        struct value value;
        if (attribute(slot, kind, template[i].type, &value) != FOUND || template[i].ulValueLen != value.length ||
            (value.length > 0 && (template[i].pValue == NULL || memcmp(template[i].pValue, value.bytes, value.length) != 0)))
            return false;
    }
    return true;
}

PV_EXPORT CK_RV C_FindObjectsInit(CK_SESSION_HANDLE hSession, CK_ATTRIBUTE_PTR pTemplate, CK_ULONG ulCount)
{
    CK_RV rv;
    struct pv_session *session = pv_enter_session(hSession, &rv);
    if (session == NULL)
        return rv;
    if (pTemplate == NULL && ulCount > 0)
        return pv_done(CKR_ARGUMENTS_BAD);
    if (session->operation != PV_OP_NONE)
        return pv_done(CKR_OPERATION_ACTIVE);
    session->operation = PV_OP_FIND;
    session->found_count = session->found_next = 0;
    const struct pv_slot *slot = pv_session_slot(session);
    for (int kind = PV_OBJECT_PUBLIC; kind <= PV_OBJECT_PRIVATE; kind++) {
        CK_OBJECT_HANDLE handle = pv_object_handle(session->slot, kind);
        if (slot->present && pv_object_kind(session, handle) == kind && matches(slot, kind, pTemplate, ulCount))
            session->found[session->found_count++] = handle;
    }
    return pv_done(CKR_OK);
}

PV_EXPORT CK_RV C_FindObjects(CK_SESSION_HANDLE hSession, CK_OBJECT_HANDLE_PTR phObject, CK_ULONG ulMaxObjectCount,
                              CK_ULONG_PTR pulObjectCount)
{
    CK_RV rv;
    struct pv_session *session = pv_enter_session(hSession, &rv);
    if (session == NULL)
        return rv;
    if (session->operation != PV_OP_FIND)
        return pv_done(CKR_OPERATION_NOT_INITIALIZED);
    if ((phObject == NULL && ulMaxObjectCount > 0) || pulObjectCount == NULL)
        return pv_done(CKR_ARGUMENTS_BAD);
    CK_ULONG count = 0;
    while (count < ulMaxObjectCount && session->found_next < session->found_count)
        phObject[count++] = session->found[session->found_next++];
    *pulObjectCount = count;
    return pv_done(CKR_OK);
}

PV_EXPORT CK_RV C_FindObjectsFinal(CK_SESSION_HANDLE hSession)
{
    CK_RV rv;
    struct pv_session *session = pv_enter_session(hSession, &rv);
    if (session == NULL)
        return rv;
    if (session->operation != PV_OP_FIND)
        return pv_done(CKR_OPERATION_NOT_INITIALIZED);
    session->operation = PV_OP_NONE;
    return pv_done(CKR_OK);
}
