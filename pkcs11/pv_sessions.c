/*
 * Sessions (pv_module.h). A handle is its index in the table plus one. When the
 * last session with a token closes, the application is logged out of it
 * (PKCS#11 §5.6): the module Locks the key.
 */
#include <string.h>

#include "pv_module.h"

struct pv_session *pv_session(CK_SESSION_HANDLE handle, CK_RV *rv)
{
    if (handle == CK_INVALID_HANDLE || handle > PV_MAX_SESSIONS || !pv.sessions[handle - 1].used) {
        *rv = CKR_SESSION_HANDLE_INVALID;
        return NULL;
    }
    return &pv.sessions[handle - 1];
}

struct pv_session *pv_enter_session(CK_SESSION_HANDLE handle, CK_RV *rv)
{
    *rv = pv_enter();
    if (*rv != CKR_OK)
        return NULL;
    struct pv_session *session = pv_session(handle, rv);
    if (session == NULL)
        pv_leave();
    return session;
}

PV_EXPORT CK_RV C_OpenSession(CK_SLOT_ID slotID, CK_FLAGS flags, CK_VOID_PTR pApplication, CK_NOTIFY Notify,
                              CK_SESSION_HANDLE_PTR phSession)
{
    (void)pApplication;
    (void)Notify; /* no callbacks: nothing here ever needs the application's attention */
    CK_RV rv = pv_enter();
    if (rv != CKR_OK)
        return rv;
    struct pv_slot *slot = pv_slot(slotID, true, &rv);
    if (slot == NULL)
        return pv_done(rv);
    if (!(flags & CKF_SERIAL_SESSION))
        return pv_done(CKR_SESSION_PARALLEL_NOT_SUPPORTED);
    if (phSession == NULL)
        return pv_done(CKR_ARGUMENTS_BAD);
    for (size_t i = 0; i < PV_MAX_SESSIONS; i++) {
        if (pv.sessions[i].used)
            continue;
        memset(&pv.sessions[i], 0, sizeof pv.sessions[i]);
        pv.sessions[i].used = true;
        pv.sessions[i].slot = slotID;
        pv.sessions[i].flags = flags & (CKF_SERIAL_SESSION | CKF_RW_SESSION);
        slot->sessions++;
        *phSession = (CK_SESSION_HANDLE)(i + 1);
        return pv_done(CKR_OK);
    }
    return pv_done(CKR_SESSION_COUNT);
}

/* Closes one session; the last one with its token logs the application out. */
static void close_session(struct pv_session *session)
{
    struct pv_slot *slot = &pv.slots[session->slot];
    session->used = false;
    if (slot->sessions > 0 && --slot->sessions == 0)
        pv_logout_slot(slot);
}

PV_EXPORT CK_RV C_CloseSession(CK_SESSION_HANDLE hSession)
{
    CK_RV rv;
    struct pv_session *session = pv_enter_session(hSession, &rv);
    if (session == NULL)
        return rv;
    close_session(session);
    return pv_done(CKR_OK);
}

PV_EXPORT CK_RV C_CloseAllSessions(CK_SLOT_ID slotID)
{
    CK_RV rv = pv_enter();
    if (rv != CKR_OK)
        return rv;
    struct pv_slot *slot = pv_slot(slotID, false, &rv);
    if (slot == NULL)
        return pv_done(rv);
    for (size_t i = 0; i < PV_MAX_SESSIONS; i++)
        if (pv.sessions[i].used && pv.sessions[i].slot == slotID)
            close_session(&pv.sessions[i]);
    pv_logout_slot(slot); /* logged out even when no session was open */
    return pv_done(CKR_OK);
}

PV_EXPORT CK_RV C_GetSessionInfo(CK_SESSION_HANDLE hSession, CK_SESSION_INFO_PTR pInfo)
{
    CK_RV rv;
    struct pv_session *session = pv_enter_session(hSession, &rv);
    if (session == NULL)
        return rv;
    if (pInfo == NULL)
        return pv_done(CKR_ARGUMENTS_BAD);
    bool rw = (session->flags & CKF_RW_SESSION) != 0;
    bool user = pv.slots[session->slot].logged_in;
    pInfo->slotID = session->slot;
    pInfo->state = rw ? (user ? CKS_RW_USER_FUNCTIONS : CKS_RW_PUBLIC_SESSION)
                      : (user ? CKS_RO_USER_FUNCTIONS : CKS_RO_PUBLIC_SESSION);
    pInfo->flags = session->flags;
    pInfo->ulDeviceError = 0;
    return pv_done(CKR_OK);
}
