/*
 * Layer 3 of the module (docs/ARCHITECTURE.md, "The C door"): slots and their
 * tokens. A slot per credential of the caller's uid that is a token
 * (pv_keys.h: authenticate credentials, and ssh credentials with P-256 keys),
 * found with List; its token's flags from the daemon's durable count of wrong
 * PINs; its login, an Unlock bound to the module's connection (pv_core.h).
 *
 * Slot IDs are indexes in the table, given to credentials in the order List
 * names them the first time the module lists them, and kept for as long as the
 * module is initialized. Any call that names a slot ID the table does not hold
 * yet lists the credentials first, so every ID the module would report is valid
 * straight after C_Initialize (Java's SunPKCS11 `slot=`, google/pkcs11test open
 * slot 0 without C_GetSlotList).
 */
#ifndef PV_SLOTS_H
#define PV_SLOTS_H

#include <pinvault.h>
#include <stdbool.h>
#include <stdint.h>

#include "pv_core.h"
#include "pv_keys.h"
#include "pv_pkcs11.h"

/* Most slots (credentials) the module keeps. */
#define PV_MAX_SLOTS 128
/* CKA_ID: the 16 bytes a keyId is the hex of. */
#define PV_ID_BYTES 16
/* ttlSeconds of C_Login's Unlock: the daemon caps it at sessions.max_ttl_seconds. */
#define PV_LOGIN_TTL_SECONDS 31536000
/* The token label "user (label)" with its NUL. */
#define PV_TOKEN_LABEL_BYTES (PINVAULT_USER_MAX_BYTES + PINVAULT_LABEL_MAX_BYTES + 8)

struct pv_slot {
    bool used;
    /* Listed by the last List: a credential that went away leaves its slot without a token. */
    bool present;
    const struct pv_kind *kind;
    char user[PINVAULT_USER_MAX_BYTES + 1];
    bool has_label;
    char label[PINVAULT_LABEL_MAX_BYTES + 1];
    char key_id[PINVAULT_KEY_ID_LENGTH + 1];
    unsigned char id[PV_ID_BYTES];
    /* kind->public_key_bytes of it. */
    unsigned char public_key[PV_KEY_MAX_BYTES];
    pinvault_state state;
    int64_t failed_attempts;
    int64_t remaining_attempts;
    int64_t locked_until;
    /*
     * The connection generation its C_Login succeeded under (pv_core.h), 0 when none:
     * logged in while that connection lives and no Logout, closed session or
     * NotUnlocked ended it.
     */
    uint64_t login;
    /* Sessions open with its token (pv_sessions.h keeps the count). */
    unsigned sessions;
};

/* Forgets every slot (C_Initialize, C_Finalize). */
void pv_slots_reset(void);

/* Refreshes the slot table with List (the caller's credentials that are tokens). */
CK_RV pv_refresh_slots(void);

/*
 * The slot `id`, listing the credentials first when the table does not hold it
 * yet; with `token`, only when its token is present. Else NULL and *rv
 * (CKR_SLOT_ID_INVALID, CKR_TOKEN_NOT_PRESENT).
 */
struct pv_slot *pv_slot(CK_SLOT_ID id, bool token, CK_RV *rv);

/* The slot at `id` as the table holds it now (no listing), or NULL: for C_GetSlotList's walk. */
const struct pv_slot *pv_slot_at(CK_SLOT_ID id);

/* The policy's PIN lengths, once a List succeeded (else 1 and PINVAULT_PIN_MAX_BYTES). */
void pv_pin_lengths(CK_ULONG *min, CK_ULONG *max);

bool pv_logged_in(const struct pv_slot *slot);

/* C_Login: Unlock of the slot's key, bound to the connection; the daemon's status. */
int pv_login(struct pv_slot *slot, const unsigned char *pin, size_t pin_length);

/* Locks the slot's key in pinvaultd (Lock keyId) if it is logged in; forgets the login. */
void pv_logout_slot(struct pv_slot *slot);

/* pv_logout_slot for every slot (C_Finalize). */
void pv_logout_all(void);

/* The token label, "user (label)" or "user", into `out` (NUL-terminated). */
void pv_token_label(const struct pv_slot *slot, char *out, size_t size);

/* The slot's public key as libpinvault verifies with it. */
void pv_slot_public_key(const struct pv_slot *slot, struct pinvault_public_key *key);

#endif
