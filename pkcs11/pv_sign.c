/*
 * CKM_EDDSA (Ed25519, no parameters: neither Ed25519ctx nor Ed25519ph), single-part
 * as PKCS#11 3.0 §2.3.14 defines the mechanism (docs/PKCS11.md, "Signing").
 *
 * C_Sign is pinvaultd's Sign on the key the login unlocked: 1 to 1024 bytes
 * (ProtocolLimits.challengeBytes), never data shaped as SSH data (the daemon's
 * rule for every key but an ssh key's, InvalidParameter(challenge)). C_Verify
 * checks a signature here, with libsodium and the token's public key.
 */
#include <sodium.h>
#include <string.h>

#include "pv_module.h"

/* The data C_Sign takes: pinvaultd's challenge range. */
#define PV_SIGN_MIN_BYTES 1
#define PV_SIGN_MAX_BYTES PINVAULT_CHALLENGE_MAX_BYTES
#define PV_SIGNATURE_BYTES 64

/* The common checks of C_SignInit and C_VerifyInit: the session, the mechanism, no operation running. */
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
    if (pMechanism->mechanism != CKM_EDDSA)
        return CKR_MECHANISM_INVALID;
    /* CK_EDDSA_PARAMS asks for Ed25519ph or Ed25519ctx: not Ed25519, which is what the keys sign. */
    if (pMechanism->pParameter != NULL || pMechanism->ulParameterLen != 0)
        return CKR_MECHANISM_PARAM_INVALID;
    return CKR_OK;
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
    if (hKey == pv_object_handle(session->slot, PV_OBJECT_PRIVATE) && pv.slots[session->slot].present) {
        if (!pv.slots[session->slot].logged_in)
            return pv_done(CKR_USER_NOT_LOGGED_IN);
    } else if (pv_object_kind(session, hKey) == PV_OBJECT_PUBLIC) {
        return pv_done(CKR_KEY_FUNCTION_NOT_PERMITTED); /* CKA_SIGN is false on a public key */
    } else {
        return pv_done(CKR_KEY_HANDLE_INVALID);
    }
    session->operation = PV_OP_SIGN;
    session->key_slot = session->slot;
    return pv_done(CKR_OK);
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
    if (ulDataLen < PV_SIGN_MIN_BYTES || ulDataLen > PV_SIGN_MAX_BYTES)
        return pv_done(CKR_DATA_LEN_RANGE);
    struct pv_slot *slot = &pv.slots[session->key_slot];
    /* The connection first: one the daemon closed took the login with it. */
    pinvault_connection *connection = slot->logged_in ? pv_connection(&rv) : NULL;
    if (!slot->logged_in)
        return pv_done(CKR_USER_NOT_LOGGED_IN);
    if (connection == NULL)
        return pv_done(rv);
    struct pinvault_signature signature;
    int status = pinvault_sign(connection, slot->key_id, pData, ulDataLen, &signature);
    if (status != PINVAULT_OK) {
        pv_connection_failed(status);
        /* The session ended in pinvaultd (expired, locked elsewhere, the credential changed). */
        if (status == PINVAULT_E_NOT_UNLOCKED)
            slot->logged_in = false;
        return pv_done(pv_ckr(status, false));
    }
    /*
     * A signature that the token's key does not verify never leaves: a daemon (or a
     * peer passing as it) that answers wrongly, or a key that changed under the slot,
     * is a device error, not a signature for the application to send on.
     */
    if (signature.length != PV_SIGNATURE_BYTES ||
        crypto_sign_verify_detached(signature.bytes, pData, ulDataLen, slot->public_key) != 0)
        return pv_done(CKR_DEVICE_ERROR);
    memcpy(pSignature, signature.bytes, PV_SIGNATURE_BYTES);
    *pulSignatureLen = PV_SIGNATURE_BYTES;
    return pv_done(CKR_OK);
}

/*
 * C_SignUpdate and C_SignFinal, C_VerifyUpdate and C_VerifyFinal: CKM_EDDSA is a
 * single-part mechanism. An operation in progress is ended (a failed call
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
    session->key_slot = session->slot;
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
    if (ulSignatureLen != PV_SIGNATURE_BYTES)
        return pv_done(CKR_SIGNATURE_LEN_RANGE);
    static const unsigned char nothing[1];
    int verified = crypto_sign_verify_detached(pSignature, pData != NULL ? pData : nothing, ulDataLen,
                                               pv.slots[session->key_slot].public_key);
    return pv_done(verified == 0 ? CKR_OK : CKR_SIGNATURE_INVALID);
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
