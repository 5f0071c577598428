/* Sessions, and the entry points that open, close and describe them (pv_sessions.h). */
#include "pv_sessions.h"

#include <string.h>

static struct pv_session sessions[PV_MAX_SESSIONS];

void pv_sessions_reset(void)
{
    memset(sessions, 0, sizeof sessions);
}

struct pv_session *pv_session(CK_SESSION_HANDLE handle, CK_RV *rv)
{
    if (handle == CK_INVALID_HANDLE || handle > PV_MAX_SESSIONS || !sessions[handle - 1].used) {
        *rv = CKR_SESSION_HANDLE_INVALID;
        return NULL;
    }
    return &sessions[handle - 1];
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

struct pv_slot *pv_session_slot(const struct pv_session *session)
{
    return (struct pv_slot *)pv_slot_at(session->slot);
}

void pv_end_signing(CK_SLOT_ID slot)
{
    for (size_t i = 0; i < PV_MAX_SESSIONS; i++)
        if (sessions[i].used && sessions[i].slot == slot && sessions[i].operation == PV_OP_SIGN)
            sessions[i].operation = PV_OP_NONE;
}

CK_OBJECT_HANDLE pv_object_handle(CK_SLOT_ID slot, int kind)
{
    return (CK_OBJECT_HANDLE)(slot * 2 + (CK_SLOT_ID)kind);
}

int pv_object_kind(const struct pv_session *session, CK_OBJECT_HANDLE handle)
{
    if (handle == CK_INVALID_HANDLE || (handle - 1) / 2 != session->slot)
        return 0;
    int kind = (int)((handle - 1) % 2) + 1;
    if (kind == PV_OBJECT_PRIVATE && !pv_logged_in(pv_session_slot(session)))
        return 0; /* a private object is not there in a public session */
    return kind;
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
        if (sessions[i].used)
            continue;
        memset(&sessions[i], 0, sizeof sessions[i]);
        sessions[i].used = true;
        sessions[i].slot = slotID;
        sessions[i].flags = flags & (CKF_SERIAL_SESSION | CKF_RW_SESSION);
        slot->sessions++;
        *phSession = (CK_SESSION_HANDLE)(i + 1);
        return pv_done(CKR_OK);
    }
    return pv_done(CKR_SESSION_COUNT);
}

/* Closes one session; the last one with its token logs the application out. */
static void close_session(struct pv_session *session)
{
    struct pv_slot *slot = pv_session_slot(session);
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
        if (sessions[i].used && sessions[i].slot == slotID)
            close_session(&sessions[i]);
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
    bool user = pv_logged_in(pv_session_slot(session));
    pInfo->slotID = session->slot;
    pInfo->state = rw ? (user ? CKS_RW_USER_FUNCTIONS : CKS_RW_PUBLIC_SESSION)
                      : (user ? CKS_RO_USER_FUNCTIONS : CKS_RO_PUBLIC_SESSION);
    pInfo->flags = session->flags;
    pInfo->ulDeviceError = 0;
    return pv_done(CKR_OK);
}
