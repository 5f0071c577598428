/*
 * pinvault-pkcs11.so's state, shared by its parts (docs/PKCS11.md).
 *
 * One process-wide module: a slot and token per `authenticate` credential of the
 * caller's uid, found with List; one Varlink connection to pinvaultd, opened when
 * first needed, on which C_Login is an Unlock bound to that connection and C_Sign a
 * Sign. Every entry point takes the one module lock for its whole call (daemon
 * round trip included): PKCS#11 applications call from many threads, and the
 * connection is one stream.
 *
 * Fork: the state belongs to the process that called C_Initialize (its pid is
 * kept). In a child every call answers CKR_CRYPTOKI_NOT_INITIALIZED until the
 * child calls C_Initialize, which forgets the parent's state - its connection is
 * closed unused, its logins are the parent's - as PKCS#11 3.0 §6.7.6 asks.
 */
#ifndef PV_MODULE_H
#define PV_MODULE_H

#include <pinvault.h>
#include <pthread.h>
#include <stdbool.h>
#include <sys/types.h>

#include "pv_pkcs11.h"

#define PV_EXPORT __attribute__((visibility("default")))

/* Most slots (credentials) and sessions the module keeps. */
#define PV_MAX_SLOTS 128
#define PV_MAX_SESSIONS 1024
/*
 * How long a call to pinvaultd may take: C_Login's Unlock runs Argon2id behind others'
 * (and may wait its turn in a full KDF pool); everything else answers at once, so a
 * daemon that stops answering holds the application (and the module's lock) briefly.
 */
#define PV_CALL_TIMEOUT_MS 5000
#define PV_LOGIN_TIMEOUT_MS 30000
/* ttlSeconds of C_Login's Unlock: the daemon caps it at sessions.max_ttl_seconds. */
#define PV_LOGIN_TTL_SECONDS 31536000
/* CKA_ID: the 16 bytes a keyId is the hex of. */
#define PV_ID_BYTES 16

struct pv_slot {
    bool used;
    /* Listed by the last List: a credential that went away leaves its slot without a token. */
    bool present;
    char user[PINVAULT_USER_MAX_BYTES + 1];
    bool has_label;
    char label[PINVAULT_LABEL_MAX_BYTES + 1];
    char key_id[PINVAULT_KEY_ID_LENGTH + 1];
    unsigned char id[PV_ID_BYTES];
    unsigned char public_key[32]; /* Ed25519's */
    pinvault_state state;
    int64_t failed_attempts;
    int64_t remaining_attempts;
    int64_t locked_until;
    /* This module's C_Login succeeded and no Logout, closed session or NotUnlocked ended it. */
    bool logged_in;
    unsigned sessions;
};

enum pv_operation { PV_OP_NONE, PV_OP_FIND, PV_OP_SIGN, PV_OP_VERIFY };

struct pv_session {
    bool used;
    CK_SLOT_ID slot;
    CK_FLAGS flags;
    enum pv_operation operation;
    /* PV_OP_FIND: the handles found, and how many were handed out. */
    CK_OBJECT_HANDLE found[2];
    unsigned found_count, found_next;
    /* PV_OP_SIGN and PV_OP_VERIFY: the key's slot. */
    CK_SLOT_ID key_slot;
};

struct pv_module {
    bool initialized;
    pid_t pid;
    pinvault_connection *connection;
    struct pinvault_policy policy;
    bool has_policy;
    struct pv_slot slots[PV_MAX_SLOTS];
    struct pv_session sessions[PV_MAX_SESSIONS];
};

/* The module, under `pv_lock`. */
extern struct pv_module pv;

/*
 * Enters a call: locks the module and checks that this process initialized it.
 * On CKR_OK the caller must pv_leave(); on anything else nothing is held.
 */
CK_RV pv_enter(void);
void pv_leave(void);
/* pv_leave() and `rv`, for `return pv_done(rv);`. */
CK_RV pv_done(CK_RV rv);

/*
 * The connection to pinvaultd, opened (or opened again) when needed, its server
 * checked: root, the pinvault user, or the caller's own uid. NULL when none can be
 * had (*rv says why, CKR_DEVICE_ERROR).
 */
pinvault_connection *pv_connection(CK_RV *rv);

/*
 * After a call on the connection failed with `status`: a failure of the
 * connection itself closes it, and with it every login (the daemon ends bound
 * sessions when their connection goes).
 */
void pv_connection_failed(int status);

/* Ends every login of the module (its keys are no longer unlocked for it). */
void pv_forget_logins(void);

/* Closes the connection: every login was a session bound to it, so each ends with it. */
void pv_drop_connection(void);

/* Refreshes the slot table with List (the caller's authenticate credentials). */
CK_RV pv_refresh_slots(void);

/* The slot `id` when it is in use (and, with `token`, has a token); else NULL and *rv. */
struct pv_slot *pv_slot(CK_SLOT_ID id, bool token, CK_RV *rv);

/* The session `handle`, or NULL with *rv = CKR_SESSION_HANDLE_INVALID. */
struct pv_session *pv_session(CK_SESSION_HANDLE handle, CK_RV *rv);

/*
 * pv_enter(), then the session `handle`: on success the caller holds the module and
 * must pv_leave() (pv_done); NULL with *rv when either failed, and nothing is held.
 */
struct pv_session *pv_enter_session(CK_SESSION_HANDLE handle, CK_RV *rv);

/* Locks the slot's key in pinvaultd (Lock keyId) if it is logged in; forgets the login. */
void pv_logout_slot(struct pv_slot *slot);

/* Objects: two per token, a public and a private key. */
#define PV_OBJECT_PUBLIC 1
#define PV_OBJECT_PRIVATE 2
CK_OBJECT_HANDLE pv_object_handle(CK_SLOT_ID slot, int kind);
/* The kind of `handle` on the session's token, visible in this session; 0 when none. */
int pv_object_kind(const struct pv_session *session, CK_OBJECT_HANDLE handle);

/* `text` as a blank-padded PKCS#11 string field of `size` bytes, cut at a UTF-8 boundary. */
void pv_pad(unsigned char *field, size_t size, const char *text);

/* The token label, "user (label)" or "user", into `out` (NUL-terminated). */
void pv_token_label(const struct pv_slot *slot, char *out, size_t size);

/* The PKCS#11 error for a daemon's or the library's status; `pin_call` for C_Login. */
CK_RV pv_ckr(int status, bool pin_call);

#endif
