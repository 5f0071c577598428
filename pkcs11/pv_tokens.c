/*
 * Slots, tokens and logins (pv_module.h): one slot per authenticate credential,
 * its token's flags from the daemon's durable count of wrong PINs, C_Login as an
 * Unlock bound to the module's connection and C_Logout as a Lock.
 */
#include <sodium.h>
#include <string.h>
#include <time.h>

#include "pv_module.h"

void pv_token_label(const struct pv_slot *slot, char *out, size_t size)
{
    size_t user = strlen(slot->user);
    if (user >= size)
        user = size - 1;
    memcpy(out, slot->user, user);
    out[user] = '\0';
    if (slot->has_label && user + 3 + strlen(slot->label) + 1 < size) {
        strcat(out, " (");
        strcat(out, slot->label);
        strcat(out, ")");
    }
}

/* The slot of `key_id`, or a free one; NULL when the table is full. */
static struct pv_slot *slot_for(const char *key_id)
{
    struct pv_slot *free_slot = NULL;
    for (size_t i = 0; i < PV_MAX_SLOTS; i++) {
        if (pv.slots[i].used && strcmp(pv.slots[i].key_id, key_id) == 0)
            return &pv.slots[i];
        if (!pv.slots[i].used && free_slot == NULL)
            free_slot = &pv.slots[i];
    }
    return free_slot;
}

/* A pinvault_credential_visitor: one listed credential into its slot. */
static void take_credential(void *context, const pinvault_credential *credential)
{
    (void)context;
    const char *key_id = pinvault_credential_key_id(credential);
    struct pv_slot *slot = slot_for(key_id);
    if (slot == NULL || pinvault_credential_algorithm(credential) != PINVAULT_ALGORITHM_ED25519)
        return; /* more credentials than slots: the first PV_MAX_SLOTS */
    const char *label = pinvault_credential_label(credential);
    if (!slot->used) {
        memset(slot, 0, sizeof *slot);
        slot->used = true;
        memcpy(slot->key_id, key_id, sizeof slot->key_id);
        size_t length;
        (void)sodium_hex2bin(slot->id, sizeof slot->id, key_id, PINVAULT_KEY_ID_LENGTH, NULL, &length, NULL);
    }
    slot->present = true;
    memcpy(slot->user, pinvault_credential_user(credential), sizeof slot->user);
    slot->has_label = label != NULL;
    if (label != NULL)
        memcpy(slot->label, label, strlen(label) + 1);
    memcpy(slot->public_key, pinvault_credential_public_key(credential)->bytes, sizeof slot->public_key);
    slot->state = pinvault_credential_state(credential);
    slot->failed_attempts = pinvault_credential_failed_attempts(credential);
    slot->remaining_attempts = pinvault_credential_remaining_attempts(credential);
    slot->locked_until = pinvault_credential_locked_until(credential);
}

CK_RV pv_refresh_slots(void)
{
    CK_RV rv = CKR_OK;
    pinvault_connection *connection = pv_connection(&rv);
    if (connection == NULL)
        return rv;
    if (!pv.has_policy) {
        int status = pinvault_get_policy(connection, &pv.policy);
        if (status != PINVAULT_OK) {
            pv_connection_failed(status);
            return pv_ckr(status, false);
        }
        pv.has_policy = true;
    }
    bool was_present[PV_MAX_SLOTS];
    for (size_t i = 0; i < PV_MAX_SLOTS; i++) {
        was_present[i] = pv.slots[i].present;
        pv.slots[i].present = false;
    }
    int status = pinvault_list(connection, NULL, "authenticate", PINVAULT_OWNER_SELF, take_credential, NULL);
    if (status != PINVAULT_OK) {
        /* What the reply visited is not to be trusted: the table stays as it was. */
        for (size_t i = 0; i < PV_MAX_SLOTS; i++)
            pv.slots[i].present = was_present[i];
        pv_connection_failed(status);
        return pv_ckr(status, false);
    }
    for (size_t i = 0; i < PV_MAX_SLOTS; i++)
        if (pv.slots[i].used && !pv.slots[i].present)
            pv.slots[i].logged_in = false; /* its credential went: so did its session */
    return CKR_OK;
}

struct pv_slot *pv_slot(CK_SLOT_ID id, bool token, CK_RV *rv)
{
    if (id >= PV_MAX_SLOTS || !pv.slots[id].used) {
        *rv = CKR_SLOT_ID_INVALID;
        return NULL;
    }
    if (token && !pv.slots[id].present) {
        *rv = CKR_TOKEN_NOT_PRESENT;
        return NULL;
    }
    return &pv.slots[id];
}

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
        if (!pv.slots[i].used || (tokenPresent && !pv.slots[i].present))
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
    char label[PINVAULT_USER_MAX_BYTES + PINVAULT_LABEL_MAX_BYTES + 8], description[sizeof label + 16];
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
    char label[PINVAULT_USER_MAX_BYTES + PINVAULT_LABEL_MAX_BYTES + 8];
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
    pInfo->ulMinPinLen = pv.has_policy ? (CK_ULONG)pv.policy.min_length : 1;
    pInfo->ulMaxPinLen = pv.has_policy ? (CK_ULONG)pv.policy.max_length : PINVAULT_PIN_MAX_BYTES;
    pInfo->ulTotalPublicMemory = CK_UNAVAILABLE_INFORMATION;
    pInfo->ulFreePublicMemory = CK_UNAVAILABLE_INFORMATION;
    pInfo->ulTotalPrivateMemory = CK_UNAVAILABLE_INFORMATION;
    pInfo->ulFreePrivateMemory = CK_UNAVAILABLE_INFORMATION;
    pInfo->hardwareVersion.major = PINVAULT_VERSION_MAJOR;
    pInfo->hardwareVersion.minor = PINVAULT_VERSION_MINOR;
    pInfo->firmwareVersion = pInfo->hardwareVersion;
    return pv_done(CKR_OK);
}

PV_EXPORT CK_RV C_GetMechanismList(CK_SLOT_ID slotID, CK_MECHANISM_TYPE_PTR pMechanismList, CK_ULONG_PTR pulCount)
{
    CK_RV rv = pv_enter();
    if (rv != CKR_OK)
        return rv;
    if (pv_slot(slotID, true, &rv) == NULL)
        return pv_done(rv);
    if (pulCount == NULL)
        return pv_done(CKR_ARGUMENTS_BAD);
    if (pMechanismList != NULL && *pulCount < 1) {
        *pulCount = 1;
        return pv_done(CKR_BUFFER_TOO_SMALL);
    }
    if (pMechanismList != NULL)
        pMechanismList[0] = CKM_EDDSA;
    *pulCount = 1;
    return pv_done(CKR_OK);
}

PV_EXPORT CK_RV C_GetMechanismInfo(CK_SLOT_ID slotID, CK_MECHANISM_TYPE type, CK_MECHANISM_INFO_PTR pInfo)
{
    CK_RV rv = pv_enter();
    if (rv != CKR_OK)
        return rv;
    if (pv_slot(slotID, true, &rv) == NULL)
        return pv_done(rv);
    if (pInfo == NULL)
        return pv_done(CKR_ARGUMENTS_BAD);
    if (type != CKM_EDDSA)
        return pv_done(CKR_MECHANISM_INVALID);
    /* Ed25519 only: 255-bit keys. Verification runs here, with the public key (libsodium). */
    pInfo->ulMinKeySize = 255;
    pInfo->ulMaxKeySize = 255;
    pInfo->flags = CKF_SIGN | CKF_VERIFY;
    return pv_done(CKR_OK);
}

void pv_logout_slot(struct pv_slot *slot)
{
    if (!slot->logged_in)
        return;
    slot->logged_in = false;
    if (pv.connection == NULL)
        return; /* the connection went, and with it the bound session */
    int status = pinvault_lock(pv.connection, slot->key_id, NULL);
    /*
     * NotUnlocked: nothing was left to end. Any other failure (a busy or stopping daemon,
     * a lost connection) may leave the session open in pinvaultd: closing the connection
     * it is bound to ends it, and the other logins with it, as a logout must not fail open.
     */
    if (status != PINVAULT_OK && status != PINVAULT_E_NOT_UNLOCKED)
        pv_drop_connection();
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
    if (slot->logged_in)
        return pv_done(CKR_USER_ALREADY_LOGGED_IN);
    if (pPin == NULL)
        return pv_done(CKR_ARGUMENTS_BAD); /* no protected authentication path: the PIN comes in the call */
    /* An empty or over-long PIN never reaches the daemon, so it costs no attempt. */
    if (ulPinLen == 0 || ulPinLen > PINVAULT_PIN_MAX_BYTES)
        return pv_done(CKR_PIN_LEN_RANGE);
    pinvault_connection *connection = pv_connection(&rv);
    if (connection == NULL)
        return pv_done(rv);
    /* The PIN goes from the application's buffer into libpinvault's locked request, wiped once sent. */
    (void)pinvault_set_timeout(connection, PV_LOGIN_TIMEOUT_MS);
    int status = pinvault_unlock(connection, slot->user, slot->key_id, pPin, ulPinLen, PV_LOGIN_TTL_SECONDS,
                                 PINVAULT_UNLOCK_BIND_TO_CONNECTION, NULL);
    (void)pinvault_set_timeout(connection, PV_CALL_TIMEOUT_MS);
    if (status == PINVAULT_OK) {
        slot->logged_in = true;
        slot->failed_attempts = 0;
        return pv_done(CKR_OK);
    }
    pv_connection_failed(status);
    if (status == PINVAULT_E_WRONG_PIN) {
        slot->failed_attempts++;
        slot->remaining_attempts = pinvault_error_value(connection);
    }
    if (status == PINVAULT_E_CREDENTIAL_WIPED || status == PINVAULT_E_NO_SUCH_CREDENTIAL)
        slot->present = false;
    return pv_done(pv_ckr(status, true));
}

PV_EXPORT CK_RV C_Logout(CK_SESSION_HANDLE hSession)
{
    CK_RV rv;
    struct pv_session *session = pv_enter_session(hSession, &rv);
    if (session == NULL)
        return rv;
    struct pv_slot *slot = &pv.slots[session->slot];
    if (!slot->logged_in)
        return pv_done(CKR_USER_NOT_LOGGED_IN);
    pv_logout_slot(slot);
    /* Operations on the private key end with the login. */
    for (size_t i = 0; i < PV_MAX_SESSIONS; i++)
        if (pv.sessions[i].used && pv.sessions[i].slot == session->slot && pv.sessions[i].operation == PV_OP_SIGN)
            pv.sessions[i].operation = PV_OP_NONE;
    return pv_done(CKR_OK);
}
