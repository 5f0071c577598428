/* Slots, tokens and logins (pv_slots.h). */
#include "pv_slots.h"

#include <sodium.h>
#include <string.h>

static struct {
    struct pinvault_policy policy;
    bool has_policy;
    struct pv_slot slots[PV_MAX_SLOTS];
} table;

void pv_slots_reset(void)
{
    memset(&table, 0, sizeof table);
}

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
        if (table.slots[i].used && strcmp(table.slots[i].key_id, key_id) == 0)
            return &table.slots[i];
        if (!table.slots[i].used && free_slot == NULL)
            free_slot = &table.slots[i];
    }
    return free_slot;
}

/* A pinvault_credential_visitor: one listed credential into its slot, when it is a token. */
static void take_credential(void *context, const pinvault_credential *credential)
{
    (void)context;
    const struct pv_kind *kind =
        pv_kind_of(pinvault_credential_algorithm(credential), pinvault_credential_purpose(credential));
    const struct pinvault_public_key *public_key = pinvault_credential_public_key(credential);
    if (kind == NULL || public_key->length != kind->public_key_bytes)
        return;
    const char *key_id = pinvault_credential_key_id(credential);
    struct pv_slot *slot = slot_for(key_id);
    if (slot == NULL)
        return; /* more credentials than slots: the first PV_MAX_SLOTS */
    if (slot->used && slot->kind != kind)
        return; /* a key does not change kind: the slot keeps the one it was listed with */
    const char *label = pinvault_credential_label(credential);
    if (!slot->used) {
        memset(slot, 0, sizeof *slot);
        slot->used = true;
        slot->kind = kind;
        memcpy(slot->key_id, key_id, sizeof slot->key_id);
        size_t length;
        (void)sodium_hex2bin(slot->id, sizeof slot->id, key_id, PINVAULT_KEY_ID_LENGTH, NULL, &length, NULL);
    }
    slot->present = true;
    memcpy(slot->user, pinvault_credential_user(credential), sizeof slot->user);
    slot->has_label = label != NULL;
    if (label != NULL)
        memcpy(slot->label, label, strlen(label) + 1);
    memcpy(slot->public_key, public_key->bytes, kind->public_key_bytes);
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
    if (!table.has_policy) {
        int status = pinvault_get_policy(connection, &table.policy);
        if (status != PINVAULT_OK) {
            pv_connection_failed(status);
            return pv_ckr(status, false);
        }
        table.has_policy = true;
    }
    bool was_present[PV_MAX_SLOTS];
    for (size_t i = 0; i < PV_MAX_SLOTS; i++) {
        was_present[i] = table.slots[i].present;
        table.slots[i].present = false;
    }
    /* Every purpose: pv_kind_of keeps the authenticate and ssh credentials that are tokens. */
    int status = pinvault_list(connection, NULL, NULL, PINVAULT_OWNER_SELF, take_credential, NULL);
    if (status != PINVAULT_OK) {
        /* What the reply visited is not to be trusted: the table stays as it was. */
        for (size_t i = 0; i < PV_MAX_SLOTS; i++)
            table.slots[i].present = was_present[i];
        pv_connection_failed(status);
        return pv_ckr(status, false);
    }
    for (size_t i = 0; i < PV_MAX_SLOTS; i++)
        if (table.slots[i].used && !table.slots[i].present)
            table.slots[i].login = 0; /* its credential went: so did its session */
    return CKR_OK;
}

const struct pv_slot *pv_slot_at(CK_SLOT_ID id)
{
    return id < PV_MAX_SLOTS && table.slots[id].used ? &table.slots[id] : NULL;
}

struct pv_slot *pv_slot(CK_SLOT_ID id, bool token, CK_RV *rv)
{
    /* An ID not handed out yet may be one the module would report: list, then look. */
    if (id < PV_MAX_SLOTS && !table.slots[id].used)
        (void)pv_refresh_slots();
    if (id >= PV_MAX_SLOTS || !table.slots[id].used) {
        *rv = CKR_SLOT_ID_INVALID;
        return NULL;
    }
    if (token && !table.slots[id].present) {
        *rv = CKR_TOKEN_NOT_PRESENT;
        return NULL;
    }
    return &table.slots[id];
}

void pv_pin_lengths(CK_ULONG *min, CK_ULONG *max)
{
    *min = table.has_policy ? (CK_ULONG)table.policy.min_length : 1;
    *max = table.has_policy ? (CK_ULONG)table.policy.max_length : PINVAULT_PIN_MAX_BYTES;
}

bool pv_logged_in(const struct pv_slot *slot)
{
    return slot->login != 0 && slot->login == pv_connection_generation();
}

int pv_login(struct pv_slot *slot, const unsigned char *pin, size_t pin_length)
{
    CK_RV rv;
    pinvault_connection *connection = pv_connection(&rv);
    if (connection == NULL)
        return PINVAULT_E_CLOSED;
    /* The PIN goes from the application's buffer into libpinvault's locked request, wiped once sent. */
    (void)pinvault_set_timeout(connection, PV_LOGIN_TIMEOUT_MS);
    int status = pinvault_unlock(connection, slot->user, slot->key_id, pin, pin_length, PV_LOGIN_TTL_SECONDS,
                                 PINVAULT_UNLOCK_BIND_TO_CONNECTION, NULL);
    (void)pinvault_set_timeout(connection, PV_CALL_TIMEOUT_MS);
    if (status == PINVAULT_OK) {
        slot->login = pv_connection_generation();
        slot->failed_attempts = 0;
        return status;
    }
    if (status == PINVAULT_E_WRONG_PIN) {
        slot->failed_attempts++;
        slot->remaining_attempts = pinvault_error_value(connection);
    }
    if (status == PINVAULT_E_CREDENTIAL_WIPED || status == PINVAULT_E_NO_SUCH_CREDENTIAL)
        slot->present = false;
    pv_connection_failed(status);
    return status;
}

void pv_logout_slot(struct pv_slot *slot)
{
    if (!pv_logged_in(slot)) {
        slot->login = 0;
        return; /* never logged in, or the connection went and with it the bound session */
    }
    slot->login = 0;
    int status = pinvault_lock(pv_open_connection(), slot->key_id, NULL);
    /*
     * NotUnlocked: nothing was left to end. Any other failure (a busy or stopping daemon,
     * a lost connection) may leave the session open in pinvaultd: closing the connection
     * it is bound to ends it, and the other logins with it, as a logout must not fail open.
     */
    if (status != PINVAULT_OK && status != PINVAULT_E_NOT_UNLOCKED)
        pv_drop_connection();
}

void pv_logout_all(void)
{
    for (size_t i = 0; i < PV_MAX_SLOTS; i++)
        if (table.slots[i].used)
            pv_logout_slot(&table.slots[i]);
}

void pv_slot_public_key(const struct pv_slot *slot, struct pinvault_public_key *key)
{
    key->length = slot->kind->public_key_bytes;
    memcpy(key->bytes, slot->public_key, key->length);
}
