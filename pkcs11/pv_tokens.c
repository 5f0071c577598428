/*
 * The entry points of slots and tokens (layer 5): C_GetSlotList, C_GetSlotInfo,
 * C_GetTokenInfo, the mechanisms of a token, C_Login as an Unlock bound to the
 * module's connection and C_Logout as a Lock (pv_slots.h).
 */
#include <string.h>
#include <time.h>

#include "pv_sessions.h"
#include "pv_slots.h"

PV_EXPORT CK_RV C_GetSlotList(CK_BBOOL tokenPresent, CK_SLOT_ID_PTR pSlotList, CK_ULONG_PTR pulCount)
{
    CK_RV rv = pv_enter();
    if (rv != CKR_OK)
        return rv;
    if (pulCount == NULL)
        return pv_done(CKR_ARGUMENTS_BAD);
    /*
     * The credentials are listed again at each call, so that one registered
     * meanwhile appears (a list too short for it is CKR_BUFFER_TOO_SMALL, as the
     * count changed). pinvaultd unreachable: the slots known so far, not an error
     * (the module may load before the daemon runs).
     */
    rv = pv_refresh_slots();
    if (rv != CKR_OK && rv != CKR_DEVICE_ERROR)
        return pv_done(rv);
    CK_ULONG count = 0;
    for (CK_SLOT_ID i = 0; i < PV_MAX_SLOTS; i++) {
        const struct pv_slot *slot = pv_slot_at(i);
        if (slot == NULL || (tokenPresent && !slot->present))
            continue;
        if (pSlotList != NULL && count < *pulCount)
            pSlotList[count] = i;
        count++;
    }
    if (pSlotList != NULL && count > *pulCount) {
        *pulCount = count;
        return pv_done(CKR_BUFFER_TOO_SMALL);
    }
    *pulCount = count;
    return pv_done(CKR_OK);
}

PV_EXPORT CK_RV C_GetSlotInfo(CK_SLOT_ID slotID, CK_SLOT_INFO_PTR pInfo)
{
    CK_RV rv = pv_enter();
    if (rv != CKR_OK)
        return rv;
    struct pv_slot *slot = pv_slot(slotID, false, &rv);
    if (slot == NULL)
        return pv_done(rv);
    if (pInfo == NULL)
        return pv_done(CKR_ARGUMENTS_BAD);
    char label[PV_TOKEN_LABEL_BYTES], description[sizeof label + 16];
    pv_token_label(slot, label, sizeof label);
    strcpy(description, "PinVault ");
    strcat(description, label);
    memset(pInfo, 0, sizeof *pInfo);
    pv_pad(pInfo->slotDescription, sizeof pInfo->slotDescription, description);
    pv_pad(pInfo->manufacturerID, sizeof pInfo->manufacturerID, "PinVault");
    /* A credential can be deleted (wipe, unregister): its token can go, as a card is pulled. */
    pInfo->flags = CKF_REMOVABLE_DEVICE | (slot->present ? CKF_TOKEN_PRESENT : 0);
    pInfo->hardwareVersion.major = PINVAULT_VERSION_MAJOR;
    pInfo->hardwareVersion.minor = PINVAULT_VERSION_MINOR;
    pInfo->firmwareVersion = pInfo->hardwareVersion;
    return pv_done(CKR_OK);
}

/*
 * The PIN flags, from the daemon's durable count (List's failedAttempts,
 * remainingAttempts, state, lockedUntil): COUNT_LOW after a wrong PIN since the
 * last right one, FINAL_TRY when one more wrong PIN blocks or wipes it, LOCKED
 * when C_Login cannot succeed now (blocked, or throttled until lockedUntil).
 */
static CK_FLAGS pin_flags(const struct pv_slot *slot)
{
    CK_FLAGS flags = 0;
    if (slot->failed_attempts > 0)
        flags |= CKF_USER_PIN_COUNT_LOW;
    if (slot->remaining_attempts == 1)
        flags |= CKF_USER_PIN_FINAL_TRY;
    if (slot->state == PINVAULT_STATE_BLOCKED ||
        (slot->state == PINVAULT_STATE_THROTTLED && slot->locked_until > (int64_t)time(NULL)))
        flags |= CKF_USER_PIN_LOCKED;
    return flags;
}

PV_EXPORT CK_RV C_GetTokenInfo(CK_SLOT_ID slotID, CK_TOKEN_INFO_PTR pInfo)
{
    CK_RV rv = pv_enter();
    if (rv != CKR_OK)
        return rv;
    if (pv_slot(slotID, false, &rv) == NULL)
        return pv_done(rv);
    if (pInfo == NULL)
        return pv_done(CKR_ARGUMENTS_BAD);
    /* The count now, not as it was at C_GetSlotList. */
    rv = pv_refresh_slots();
    if (rv != CKR_OK)
        return pv_done(rv);
    struct pv_slot *slot = pv_slot(slotID, true, &rv);
    if (slot == NULL)
        return pv_done(rv);
    char label[PV_TOKEN_LABEL_BYTES];
    pv_token_label(slot, label, sizeof label);
    char serial[17];
    memcpy(serial, slot->key_id, 16); /* the serial holds 16 characters: keyId's first 16 */
    serial[16] = '\0';
    memset(pInfo, 0, sizeof *pInfo);
    pv_pad(pInfo->label, sizeof pInfo->label, label);
    pv_pad(pInfo->manufacturerID, sizeof pInfo->manufacturerID, "PinVault");
    pv_pad(pInfo->model, sizeof pInfo->model, "pinvaultd");
    pv_pad(pInfo->serialNumber, sizeof pInfo->serialNumber, serial);
    pv_pad(pInfo->utcTime, sizeof pInfo->utcTime, ""); /* no CKF_CLOCK_ON_TOKEN: blank, as padded fields are */
    pInfo->flags = CKF_TOKEN_INITIALIZED | CKF_USER_PIN_INITIALIZED | CKF_LOGIN_REQUIRED | pin_flags(slot);
    pInfo->ulMaxSessionCount = CK_EFFECTIVELY_INFINITE;
    pInfo->ulMaxRwSessionCount = CK_EFFECTIVELY_INFINITE;
    pInfo->ulSessionCount = CK_UNAVAILABLE_INFORMATION;
    pInfo->ulRwSessionCount = CK_UNAVAILABLE_INFORMATION;
    pv_pin_lengths(&pInfo->ulMinPinLen, &pInfo->ulMaxPinLen);
    pInfo->ulTotalPublicMemory = CK_UNAVAILABLE_INFORMATION;
    pInfo->ulFreePublicMemory = CK_UNAVAILABLE_INFORMATION;
    pInfo->ulTotalPrivateMemory = CK_UNAVAILABLE_INFORMATION;
    pInfo->ulFreePrivateMemory = CK_UNAVAILABLE_INFORMATION;
    pInfo->hardwareVersion.major = PINVAULT_VERSION_MAJOR;
    pInfo->hardwareVersion.minor = PINVAULT_VERSION_MINOR;
    pInfo->firmwareVersion = pInfo->hardwareVersion;
    return pv_done(CKR_OK);
}

/* Each token has one mechanism: its kind's (pv_keys.h). */
PV_EXPORT CK_RV C_GetMechanismList(CK_SLOT_ID slotID, CK_MECHANISM_TYPE_PTR pMechanismList, CK_ULONG_PTR pulCount)
{
    CK_RV rv = pv_enter();
    if (rv != CKR_OK)
        return rv;
    struct pv_slot *slot = pv_slot(slotID, true, &rv);
    if (slot == NULL)
        return pv_done(rv);
    if (pulCount == NULL)
        return pv_done(CKR_ARGUMENTS_BAD);
    if (pMechanismList != NULL && *pulCount < 1) {
        *pulCount = 1;
        return pv_done(CKR_BUFFER_TOO_SMALL);
    }
    if (pMechanismList != NULL)
        pMechanismList[0] = slot->kind->mechanism;
    *pulCount = 1;
    return pv_done(CKR_OK);
}

PV_EXPORT CK_RV C_GetMechanismInfo(CK_SLOT_ID slotID, CK_MECHANISM_TYPE type, CK_MECHANISM_INFO_PTR pInfo)
{
    CK_RV rv = pv_enter();
    if (rv != CKR_OK)
        return rv;
    struct pv_slot *slot = pv_slot(slotID, true, &rv);
    if (slot == NULL)
        return pv_done(rv);
    if (pInfo == NULL)
        return pv_done(CKR_ARGUMENTS_BAD);
    if (type != slot->kind->mechanism)
        return pv_done(CKR_MECHANISM_INVALID);
    /* Verification runs here too, with the public key (libpinvault: libsodium, libcrypto). */
    pInfo->ulMinKeySize = slot->kind->key_bits;
    pInfo->ulMaxKeySize = slot->kind->key_bits;
    pInfo->flags = CKF_SIGN | CKF_VERIFY;
    if (slot->kind->key_type == CKK_EC)
        pInfo->flags |= CKF_EC_F_P | CKF_EC_NAMEDCURVE | CKF_EC_UNCOMPRESS;
    return pv_done(CKR_OK);
}

PV_EXPORT CK_RV C_Login(CK_SESSION_HANDLE hSession, CK_USER_TYPE userType, CK_UTF8CHAR_PTR pPin, CK_ULONG ulPinLen)
{
    CK_RV rv;
    struct pv_session *session = pv_enter_session(hSession, &rv);
    if (session == NULL)
        return rv;
    struct pv_slot *slot = pv_slot(session->slot, true, &rv);
    if (slot == NULL)
        return pv_done(rv);
    if (userType == CKU_SO)
        return pv_done(CKR_USER_TYPE_INVALID); /* PinVault has no security officer: an admin uses pinvault */
    if (userType == CKU_CONTEXT_SPECIFIC)
        return pv_done(CKR_OPERATION_NOT_INITIALIZED); /* no key asks for it (CKA_ALWAYS_AUTHENTICATE false) */
    if (userType != CKU_USER)
        return pv_done(CKR_USER_TYPE_INVALID);
    if (pv_logged_in(slot))
        return pv_done(CKR_USER_ALREADY_LOGGED_IN);
    if (pPin == NULL)
        return pv_done(CKR_ARGUMENTS_BAD); /* no protected authentication path: the PIN comes in the call */
    /* An empty or over-long PIN never reaches the daemon, so it costs no attempt. */
    if (ulPinLen == 0 || ulPinLen > PINVAULT_PIN_MAX_BYTES)
        return pv_done(CKR_PIN_LEN_RANGE);
    return pv_done(pv_ckr(pv_login(slot, pPin, ulPinLen), true));
}

PV_EXPORT CK_RV C_Logout(CK_SESSION_HANDLE hSession)
{
    CK_RV rv;
    struct pv_session *session = pv_enter_session(hSession, &rv);
    if (session == NULL)
        return rv;
    struct pv_slot *slot = pv_session_slot(session);
    if (!pv_logged_in(slot))
        return pv_done(CKR_USER_NOT_LOGGED_IN);
    pv_logout_slot(slot);
    /* Operations on the private key end with the login. */
    pv_end_signing(session->slot);
    return pv_done(CKR_OK);
}
