/*
 * The entry points of signing (layer 5, docs/PKCS11.md, "Signing"): each token
 * signs with its kind's one mechanism (pv_keys.h), single-part, no parameters:
 *
 *  - CKM_EDDSA (Ed25519: neither Ed25519ctx nor Ed25519ph) and CKM_ECDSA_SHA256
 *    over a whole message: pinvaultd's Sign, 1 byte to 16 KiB, never data shaped
 *    as SSH data (the daemon's rule, InvalidParameter(challenge));
 *  - CKM_ECDSA over the caller's SHA-256 digest (32 bytes), on ssh tokens only:
 *    pinvaultd's SignDigest.
 *
 * Every signature is verified with the token's public key before it is returned
 * (libpinvault's pinvault_verify), and an ECDSA one turned from the daemon's DER
 * into the r || s PKCS#11 gives (§2.3.1), strictly. C_Verify checks a signature
 * here the same way.
 */
#include <string.h>

#include "pv_keys.h"
#include "pv_sessions.h"
#include "pv_slots.h"

/* The data C_Sign takes over a whole message: pinvaultd's Sign range. */
#define PV_SIGN_MIN_BYTES 1
#define PV_SIGN_MAX_BYTES PINVAULT_MESSAGE_MAX_BYTES

/*
 * The common checks of C_SignInit and C_VerifyInit: the session, the token's
 * mechanism without parameters, no operation running.
 */
static CK_RV begin_operation(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism, struct pv_session **session)
{
    CK_RV rv = CKR_OK;
    *session = pv_session(hSession, &rv);
    if (*session == NULL)
        return rv;
    if (pMechanism == NULL)
        return CKR_ARGUMENTS_BAD;
    if ((*session)->operation != PV_OP_NONE)
        return CKR_OPERATION_ACTIVE;
    if (pMechanism->mechanism != pv_session_slot(*session)->kind->mechanism)
        return CKR_MECHANISM_INVALID;
    /*
     * CK_EDDSA_PARAMS asks for Ed25519ph or Ed25519ctx: not Ed25519, which is what the
     * keys sign; the ECDSA mechanisms take none.
     */
    if (pMechanism->pParameter != NULL || pMechanism->ulParameterLen != 0)
        return CKR_MECHANISM_PARAM_INVALID;
    return CKR_OK;
}

/* Whether `length` bytes are data the token's mechanism signs: a digest, or a message in Sign's range. */
static bool data_in_range(const struct pv_kind *kind, CK_ULONG length)
{
    return kind->signs_digest ? length == PV_DIGEST_BYTES : length >= PV_SIGN_MIN_BYTES && length <= PV_SIGN_MAX_BYTES;
}

PV_EXPORT CK_RV C_SignInit(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism, CK_OBJECT_HANDLE hKey)
{
    CK_RV rv = pv_enter();
    if (rv != CKR_OK)
        return rv;
    struct pv_session *session;
    rv = begin_operation(hSession, pMechanism, &session);
    if (rv != CKR_OK)
        return pv_done(rv);
    const struct pv_slot *slot = pv_session_slot(session);
    if (hKey == pv_object_handle(session->slot, PV_OBJECT_PRIVATE) && slot->present) {
        if (!pv_logged_in(slot))
            return pv_done(CKR_USER_NOT_LOGGED_IN);
    } else if (pv_object_kind(session, hKey) == PV_OBJECT_PUBLIC) {
        return pv_done(CKR_KEY_FUNCTION_NOT_PERMITTED); /* CKA_SIGN is false on a public key */
    } else {
        return pv_done(CKR_KEY_HANDLE_INVALID);
    }
    session->operation = PV_OP_SIGN;
    return pv_done(CKR_OK);
}

/* The daemon's signature of `data` with the slot's key, verified, in PKCS#11's form (64 bytes). */
static CK_RV sign(struct pv_slot *slot, pinvault_connection *connection, const CK_BYTE *data, CK_ULONG length,
                  unsigned char out[PV_SIGNATURE_BYTES])
{
    const struct pv_kind *kind = slot->kind;
    struct pinvault_signature signature;
    int status = kind->signs_digest ? pinvault_sign_digest(connection, slot->key_id, data, length, &signature)
                                    : pinvault_sign(connection, slot->key_id, data, length, &signature);
    if (status != PINVAULT_OK) {
        /* The session ended in pinvaultd (expired, locked elsewhere, the credential changed). */
        if (status == PINVAULT_E_NOT_UNLOCKED)
            slot->login = 0;
        pv_connection_failed(status);
        return pv_ckr(status, false);
    }
    /*
     * A signature that the token's key does not verify never leaves: a daemon (or a
     * peer passing as it) that answers wrongly, or a key that changed under the slot,
     * is a device error, not a signature for the application to send on.
     */
    struct pinvault_public_key key;
    pv_slot_public_key(slot, &key);
    status = kind->signs_digest ? pinvault_verify_digest(kind->algorithm, &key, data, length, &signature)
                                : pinvault_verify(kind->algorithm, &key, data, length, &signature);
    if (status != PINVAULT_OK)
        return CKR_DEVICE_ERROR;
    if (kind->der_signatures)
        return pv_ecdsa_der_to_raw(signature.bytes, signature.length, out) == 0 ? CKR_OK : CKR_DEVICE_ERROR;
    if (signature.length != PV_SIGNATURE_BYTES)
        return CKR_DEVICE_ERROR;
    memcpy(out, signature.bytes, PV_SIGNATURE_BYTES);
    return CKR_OK;
}

PV_EXPORT CK_RV C_Sign(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pData, CK_ULONG ulDataLen, CK_BYTE_PTR pSignature,
                       CK_ULONG_PTR pulSignatureLen)
{
    CK_RV rv;
    struct pv_session *session = pv_enter_session(hSession, &rv);
    if (session == NULL)
        return rv;
    if (session->operation != PV_OP_SIGN)
        return pv_done(CKR_OPERATION_NOT_INITIALIZED);
    if ((pData == NULL && ulDataLen > 0) || pulSignatureLen == NULL) {
        session->operation = PV_OP_NONE;
        return pv_done(CKR_ARGUMENTS_BAD);
    }
    /* Asking for the length, or a buffer too small, leaves the operation running (PKCS#11 §5.2). */
    if (pSignature == NULL) {
        *pulSignatureLen = PV_SIGNATURE_BYTES;
        return pv_done(CKR_OK);
    }
    if (*pulSignatureLen < PV_SIGNATURE_BYTES) {
        *pulSignatureLen = PV_SIGNATURE_BYTES;
        return pv_done(CKR_BUFFER_TOO_SMALL);
    }
    session->operation = PV_OP_NONE;
    struct pv_slot *slot = pv_session_slot(session);
    if (!data_in_range(slot->kind, ulDataLen))
        return pv_done(CKR_DATA_LEN_RANGE);
    /* The connection first: one the daemon closed took the login with it. */
    pinvault_connection *connection = pv_logged_in(slot) ? pv_connection(&rv) : NULL;
    if (!pv_logged_in(slot))
        return pv_done(CKR_USER_NOT_LOGGED_IN);
    if (connection == NULL)
        return pv_done(rv);
    unsigned char signature[PV_SIGNATURE_BYTES];
    rv = sign(slot, connection, pData, ulDataLen, signature);
    if (rv != CKR_OK)
        return pv_done(rv);
    memcpy(pSignature, signature, sizeof signature);
    *pulSignatureLen = sizeof signature;
    return pv_done(CKR_OK);
}

/*
 * C_SignUpdate and C_SignFinal, C_VerifyUpdate and C_VerifyFinal: every mechanism
 * of the module is single-part. An operation in progress is ended (a failed call
 * terminates it, PKCS#11 §5.12), as SoftHSM2 does.
 */
static CK_RV no_multi_part(CK_SESSION_HANDLE hSession, enum pv_operation operation)
{
    CK_RV rv;
    struct pv_session *session = pv_enter_session(hSession, &rv);
    if (session == NULL)
        return rv;
    if (session->operation != operation)
        return pv_done(CKR_OPERATION_NOT_INITIALIZED);
    session->operation = PV_OP_NONE;
    return pv_done(CKR_FUNCTION_NOT_SUPPORTED);
}

PV_EXPORT CK_RV C_SignUpdate(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pPart, CK_ULONG ulPartLen)
{
    (void)pPart;
    (void)ulPartLen;
    return no_multi_part(hSession, PV_OP_SIGN);
}

PV_EXPORT CK_RV C_SignFinal(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pSignature, CK_ULONG_PTR pulSignatureLen)
{
    (void)pSignature;
    (void)pulSignatureLen;
    return no_multi_part(hSession, PV_OP_SIGN);
}

PV_EXPORT CK_RV C_VerifyInit(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism, CK_OBJECT_HANDLE hKey)
{
    CK_RV rv = pv_enter();
    if (rv != CKR_OK)
        return rv;
    struct pv_session *session;
    rv = begin_operation(hSession, pMechanism, &session);
    if (rv != CKR_OK)
        return pv_done(rv);
    switch (pv_object_kind(session, hKey)) {
    case PV_OBJECT_PUBLIC:
        break;
    case PV_OBJECT_PRIVATE:
        return pv_done(CKR_KEY_FUNCTION_NOT_PERMITTED); /* CKA_VERIFY is not a private key's */
    default:
        return pv_done(CKR_KEY_HANDLE_INVALID);
    }
    session->operation = PV_OP_VERIFY;
    return pv_done(CKR_OK);
}

PV_EXPORT CK_RV C_Verify(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pData, CK_ULONG ulDataLen, CK_BYTE_PTR pSignature,
                         CK_ULONG ulSignatureLen)
{
    CK_RV rv;
    struct pv_session *session = pv_enter_session(hSession, &rv);
    if (session == NULL)
        return rv;
    if (session->operation != PV_OP_VERIFY)
        return pv_done(CKR_OPERATION_NOT_INITIALIZED);
    session->operation = PV_OP_NONE;
    if ((pData == NULL && ulDataLen > 0) || pSignature == NULL)
        return pv_done(CKR_ARGUMENTS_BAD);
    const struct pv_slot *slot = pv_session_slot(session);
    const struct pv_kind *kind = slot->kind;
    if (kind->signs_digest && ulDataLen != PV_DIGEST_BYTES)
        return pv_done(CKR_DATA_LEN_RANGE);
    if (ulSignatureLen != PV_SIGNATURE_BYTES)
        return pv_done(CKR_SIGNATURE_LEN_RANGE);
    struct pinvault_signature signature;
    if (kind->der_signatures) {
        signature.length = pv_ecdsa_raw_to_der(pSignature, signature.bytes);
    } else {
        signature.length = PV_SIGNATURE_BYTES;
        memcpy(signature.bytes, pSignature, PV_SIGNATURE_BYTES);
    }
    struct pinvault_public_key key;
    pv_slot_public_key(slot, &key);
    int status = kind->signs_digest ? pinvault_verify_digest(kind->algorithm, &key, pData, ulDataLen, &signature)
                                    : pinvault_verify(kind->algorithm, &key, pData, ulDataLen, &signature);
    return pv_done(status == PINVAULT_OK ? CKR_OK : CKR_SIGNATURE_INVALID);
}

PV_EXPORT CK_RV C_VerifyUpdate(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pPart, CK_ULONG ulPartLen)
{
    (void)pPart;
    (void)ulPartLen;
    return no_multi_part(hSession, PV_OP_VERIFY);
}

PV_EXPORT CK_RV C_VerifyFinal(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pSignature, CK_ULONG ulSignatureLen)
{
    (void)pSignature;
    (void)ulSignatureLen;
    return no_multi_part(hSession, PV_OP_VERIFY);
}
