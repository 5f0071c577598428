/*
 * Layer 4 of the module (docs/ARCHITECTURE.md, "The C door"): sessions, and the
 * objects a session sees. A handle is its index in the table plus one. When the
 * last session with a token closes, the application is logged out of it (PKCS#11
 * §5.6): the module Locks the key (pv_slots.h).
 */
#ifndef PV_SESSIONS_H
#define PV_SESSIONS_H

#include <stdbool.h>

#include "pv_core.h"
#include "pv_pkcs11.h"
#include "pv_slots.h"

#define PV_MAX_SESSIONS 1024

enum pv_operation { PV_OP_NONE, PV_OP_FIND, PV_OP_SIGN, PV_OP_VERIFY };

struct pv_session {
    bool used;
    CK_SLOT_ID slot;
    CK_FLAGS flags;
    enum pv_operation operation;
    /* PV_OP_FIND: the handles found, and how many were handed out. */
    CK_OBJECT_HANDLE found[2];
    unsigned found_count, found_next;
};

/* Forgets every session (C_Initialize, C_Finalize). */
void pv_sessions_reset(void);

/* The session `handle`, or NULL with *rv = CKR_SESSION_HANDLE_INVALID. */
struct pv_session *pv_session(CK_SESSION_HANDLE handle, CK_RV *rv);

/*
 * pv_enter(), then the session `handle`: on success the caller holds the module and
 * must pv_leave() (pv_done); NULL with *rv when either failed, and nothing is held.
 */
struct pv_session *pv_enter_session(CK_SESSION_HANDLE handle, CK_RV *rv);

/* The slot of the session's token (every session has one: it was opened on it). */
struct pv_slot *pv_session_slot(const struct pv_session *session);

/* Ends every signing operation on the token of `slot` (its login ended). */
void pv_end_signing(CK_SLOT_ID slot);

/* Objects: two per token, a public and a private key. */
#define PV_OBJECT_PUBLIC 1
#define PV_OBJECT_PRIVATE 2
CK_OBJECT_HANDLE pv_object_handle(CK_SLOT_ID slot, int kind);
/* The kind of `handle` on the session's token, visible in this session; 0 when none. */
int pv_object_kind(const struct pv_session *session, CK_OBJECT_HANDLE handle);

#endif
