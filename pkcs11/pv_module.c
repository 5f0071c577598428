/*
 * The module's life (pv_module.h): C_Initialize, C_Finalize, C_GetInfo, the
 * function lists and interfaces, the lock, the fork check, the connection, and
 * the one table from pinvaultd's errors to CKR_ values.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pwd.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pv_module.h"

struct pv_module pv;

static pthread_mutex_t pv_lock = PTHREAD_MUTEX_INITIALIZER;
/* The pid that initialized the module, 0 when none: read before the lock is taken. */
static pid_t initialized_pid;

/* The system user pinvaultd runs as (pinvaultd.service's User=). */
#define PV_SERVER_USER "pinvault"

CK_RV pv_enter(void)
{
    pid_t owner = __atomic_load_n(&initialized_pid, __ATOMIC_ACQUIRE);
    /* A child of the process that initialized the module must C_Initialize again. */
    if (owner == 0 || owner != getpid())
        return CKR_CRYPTOKI_NOT_INITIALIZED;
    if (pthread_mutex_lock(&pv_lock) != 0)
        return CKR_GENERAL_ERROR;
    if (!pv.initialized) {
        (void)pthread_mutex_unlock(&pv_lock);
        return CKR_CRYPTOKI_NOT_INITIALIZED;
    }
    return CKR_OK;
}

void pv_leave(void)
{
    (void)pthread_mutex_unlock(&pv_lock);
}

CK_RV pv_done(CK_RV rv)
{
    pv_leave();
    return rv;
}

/* Whether `uid` may serve the socket: root, the pinvault user, or this process's own uid. */
static bool trusted_server(uid_t uid)
{
    if (uid == 0 || uid == geteuid())
        return true;
    struct passwd entry, *found = NULL;
    char buffer[16384]; /* glibc's own initial size for getpwnam; a long gecos or NSS entry fits */
    return getpwnam_r(PV_SERVER_USER, &entry, buffer, sizeof buffer, &found) == 0 && found != NULL &&
           found->pw_uid == uid;
}

void pv_drop_connection(void)
{
    pinvault_close(pv.connection);
    pv.connection = NULL;
    pv_forget_logins();
}

pinvault_connection *pv_connection(CK_RV *rv)
{
    if (pv.connection != NULL) {
        if (pinvault_check(pv.connection) == PINVAULT_OK)
            return pv.connection;
        /* The daemon closed it (idle with no login, a restart) or it is out of step: a new one. */
        pv_drop_connection();
    }
    pinvault_connection *connection;
    if (pinvault_connect(NULL, PV_CALL_TIMEOUT_MS, &connection) != PINVAULT_OK) {
        *rv = CKR_DEVICE_ERROR;
        return NULL;
    }
    uid_t server;
    if (pinvault_server_uid(connection, &server) != PINVAULT_OK || !trusted_server(server)) {
        pinvault_close(connection);
        *rv = CKR_DEVICE_ERROR;
        return NULL;
    }
    pv.connection = connection;
    return connection;
}

void pv_forget_logins(void)
{
    for (size_t i = 0; i < PV_MAX_SLOTS; i++)
        pv.slots[i].logged_in = false;
}

void pv_connection_failed(int status)
{
    switch (status) {
    case PINVAULT_E_SYSTEM:
    case PINVAULT_E_TIMEOUT:
    case PINVAULT_E_CLOSED:
    case PINVAULT_E_PROTOCOL:
        /* The stream is lost or out of step: a new one next time, and no login survives it. */
        pv_drop_connection();
        break;
    default:
        break;
    }
}

/*
 * pinvaultd's answers as PKCS#11 errors (docs/PKCS11.md, "Errors"). A PIN that
 * the daemon counted is CKR_PIN_INCORRECT; one it would not check now (throttled)
 * or ever (blocked) CKR_PIN_LOCKED. What C_Sign's challenge rules refuse
 * (InvalidParameter(challenge): data shaped as SSH data) is CKR_DATA_INVALID.
 */
CK_RV pv_ckr(int status, bool pin_call)
{
    switch ((pinvault_status)status) {
    case PINVAULT_OK: return CKR_OK;
    case PINVAULT_E_ARGUMENT: return pin_call ? CKR_PIN_INVALID : CKR_ARGUMENTS_BAD; /* a PIN not UTF-8: not sent */
    case PINVAULT_E_SYSTEM:
    case PINVAULT_E_TIMEOUT:
    case PINVAULT_E_CLOSED:
    case PINVAULT_E_PROTOCOL:
    case PINVAULT_E_SIGNATURE: return CKR_DEVICE_ERROR; /* a signature the token's key does not verify */
    case PINVAULT_E_WRONG_PIN: return CKR_PIN_INCORRECT;
    case PINVAULT_E_LOCKED_OUT:
    case PINVAULT_E_CREDENTIAL_BLOCKED: return CKR_PIN_LOCKED;
    case PINVAULT_E_CREDENTIAL_WIPED:
    case PINVAULT_E_NO_SUCH_CREDENTIAL: return CKR_DEVICE_REMOVED;
    case PINVAULT_E_AMBIGUOUS_CREDENTIAL: return CKR_GENERAL_ERROR; /* the module always names the keyId */
    case PINVAULT_E_UNREGISTRATION_PENDING: return CKR_FUNCTION_FAILED;
    case PINVAULT_E_TOO_MANY_CREDENTIALS:
    case PINVAULT_E_TOO_MANY_SESSIONS: return CKR_DEVICE_MEMORY;
    case PINVAULT_E_CONFLICT: return CKR_FUNCTION_FAILED;       /* nothing counted: the caller may retry */
    case PINVAULT_E_SHUTTING_DOWN: return CKR_DEVICE_ERROR;
    case PINVAULT_E_NOT_UNLOCKED: return CKR_USER_NOT_LOGGED_IN;
    case PINVAULT_E_WRONG_PURPOSE: return CKR_KEY_FUNCTION_NOT_PERMITTED;
    case PINVAULT_E_BUSY: return CKR_FUNCTION_FAILED;
    case PINVAULT_E_INTERNAL: return CKR_DEVICE_ERROR;
    case PINVAULT_E_INVALID_PARAMETER: return pin_call ? CKR_PIN_INVALID : CKR_DATA_INVALID;
    case PINVAULT_E_PERMISSION_DENIED: return CKR_ACTION_PROHIBITED;
    case PINVAULT_E_OTHER: return CKR_FUNCTION_FAILED;
    }
    return CKR_GENERAL_ERROR;
}

/* Forgets all state; the caller holds the lock (or is the only thread, in a child). */
static void reset_state(void)
{
    memset(&pv, 0, sizeof pv);
}

PV_EXPORT CK_RV C_Initialize(CK_VOID_PTR pInitArgs)
{
    if (pInitArgs != NULL) {
        CK_C_INITIALIZE_ARGS *args = pInitArgs;
        if (args->pReserved != NULL)
            return CKR_ARGUMENTS_BAD;
        bool some = args->CreateMutex != NULL || args->DestroyMutex != NULL || args->LockMutex != NULL ||
                    args->UnlockMutex != NULL;
        bool all = args->CreateMutex != NULL && args->DestroyMutex != NULL && args->LockMutex != NULL &&
                   args->UnlockMutex != NULL;
        if (some && !all)
            return CKR_ARGUMENTS_BAD;
        /* The module locks with the system's mutexes; it cannot use only the application's. */
        if (all && !(args->flags & CKF_OS_LOCKING_OK))
            return CKR_CANT_LOCK;
    }
    pid_t self = getpid();
    pid_t owner = __atomic_load_n(&initialized_pid, __ATOMIC_ACQUIRE);
    if (owner != 0 && owner != self) {
        /*
         * A child: the parent's state is not ours. Its lock may have been held by
         * another thread at the fork, so it is made anew; its connection is the
         * parent's and is closed here without a word sent on it.
         */
        pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
        memcpy(&pv_lock, &fresh, sizeof fresh);
        if (pv.connection != NULL) {
            /* pinvault_close sends nothing: it closes this process's copy of the socket. */
            pinvault_close(pv.connection);
        }
        reset_state();
        __atomic_store_n(&initialized_pid, 0, __ATOMIC_RELEASE);
    }
    if (pthread_mutex_lock(&pv_lock) != 0)
        return CKR_GENERAL_ERROR;
    if (pv.initialized) {
        pthread_mutex_unlock(&pv_lock);
        return CKR_CRYPTOKI_ALREADY_INITIALIZED;
    }
    if (sodium_init() < 0) {
        pthread_mutex_unlock(&pv_lock);
        return CKR_GENERAL_ERROR;
    }
    reset_state();
    pv.initialized = true;
    pv.pid = self;
    __atomic_store_n(&initialized_pid, self, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&pv_lock);
    return CKR_OK;
}

PV_EXPORT CK_RV C_Finalize(CK_VOID_PTR pReserved)
{
    if (pReserved != NULL)
        return CKR_ARGUMENTS_BAD;
    CK_RV rv = pv_enter();
    if (rv != CKR_OK)
        return rv;
    /* Every login ends (Lock), then the connection, which ends any bound session left. */
    for (size_t i = 0; i < PV_MAX_SLOTS; i++)
        if (pv.slots[i].used)
            pv_logout_slot(&pv.slots[i]);
    pinvault_close(pv.connection);
    reset_state();
    __atomic_store_n(&initialized_pid, 0, __ATOMIC_RELEASE);
    pv_leave();
    return CKR_OK;
}

void pv_pad(unsigned char *field, size_t size, const char *text)
{
    size_t n = strlen(text);
    if (n > size) {
        n = size;
        /* Not in the middle of a UTF-8 sequence: back up over continuation bytes. */
        while (n > 0 && ((unsigned char)text[n] & 0xC0) == 0x80)
            n--;
    }
    memset(field, ' ', size);
    memcpy(field, text, n);
}

PV_EXPORT CK_RV C_GetInfo(CK_INFO_PTR pInfo)
{
    CK_RV rv = pv_enter();
    if (rv != CKR_OK)
        return rv;
    if (pInfo == NULL)
        return pv_done(CKR_ARGUMENTS_BAD);
    memset(pInfo, 0, sizeof *pInfo);
    pInfo->cryptokiVersion.major = 3;
    pInfo->cryptokiVersion.minor = 0;
    pv_pad(pInfo->manufacturerID, sizeof pInfo->manufacturerID, "PinVault");
    pv_pad(pInfo->libraryDescription, sizeof pInfo->libraryDescription, "PinVault PKCS#11 module");
    pInfo->libraryVersion.major = PINVAULT_VERSION_MAJOR;
    pInfo->libraryVersion.minor = PINVAULT_VERSION_MINOR;
    return pv_done(CKR_OK);
}

/* The function lists: every entry point, the 3.0 ones after the 2.40 ones. */
#define PV_FUNCTIONS_2 \
    C_Initialize, C_Finalize, C_GetInfo, C_GetFunctionList, C_GetSlotList, C_GetSlotInfo, C_GetTokenInfo, \
    C_GetMechanismList, C_GetMechanismInfo, C_InitToken, C_InitPIN, C_SetPIN, C_OpenSession, C_CloseSession, \
    C_CloseAllSessions, C_GetSessionInfo, C_GetOperationState, C_SetOperationState, C_Login, C_Logout, \
    C_CreateObject, C_CopyObject, C_DestroyObject, C_GetObjectSize, C_GetAttributeValue, C_SetAttributeValue, \
    C_FindObjectsInit, C_FindObjects, C_FindObjectsFinal, C_EncryptInit, C_Encrypt, C_EncryptUpdate, \
    C_EncryptFinal, C_DecryptInit, C_Decrypt, C_DecryptUpdate, C_DecryptFinal, C_DigestInit, C_Digest, \
    C_DigestUpdate, C_DigestKey, C_DigestFinal, C_SignInit, C_Sign, C_SignUpdate, C_SignFinal, \
    C_SignRecoverInit, C_SignRecover, C_VerifyInit, C_Verify, C_VerifyUpdate, C_VerifyFinal, \
    C_VerifyRecoverInit, C_VerifyRecover, C_DigestEncryptUpdate, C_DecryptDigestUpdate, C_SignEncryptUpdate, \
    C_DecryptVerifyUpdate, C_GenerateKey, C_GenerateKeyPair, C_WrapKey, C_UnwrapKey, C_DeriveKey, \
    C_SeedRandom, C_GenerateRandom, C_GetFunctionStatus, C_CancelFunction, C_WaitForSlotEvent

static CK_FUNCTION_LIST function_list_2 = {{2, 40}, PV_FUNCTIONS_2};

static CK_FUNCTION_LIST_3_0 function_list_3 = {
    {3, 0}, PV_FUNCTIONS_2,
    C_GetInterfaceList, C_GetInterface, C_LoginUser, C_SessionCancel, C_MessageEncryptInit, C_EncryptMessage,
    C_EncryptMessageBegin, C_EncryptMessageNext, C_MessageEncryptFinal, C_MessageDecryptInit, C_DecryptMessage,
    C_DecryptMessageBegin, C_DecryptMessageNext, C_MessageDecryptFinal, C_MessageSignInit, C_SignMessage,
    C_SignMessageBegin, C_SignMessageNext, C_MessageSignFinal, C_MessageVerifyInit, C_VerifyMessage,
    C_VerifyMessageBegin, C_VerifyMessageNext, C_MessageVerifyFinal,
};

static CK_CHAR interface_name[] = "PKCS 11";

/* The 3.0 interface first: the default. Neither is fork-safe in 3.0's sense (a child must C_Initialize). */
static CK_INTERFACE interfaces[] = {
    {interface_name, &function_list_3, 0},
    {interface_name, &function_list_2, 0},
};
#define INTERFACE_COUNT (sizeof interfaces / sizeof interfaces[0])

PV_EXPORT CK_RV C_GetFunctionList(CK_FUNCTION_LIST_PTR_PTR ppFunctionList)
{
    if (ppFunctionList == NULL)
        return CKR_ARGUMENTS_BAD;
    *ppFunctionList = &function_list_2;
    return CKR_OK;
}

PV_EXPORT CK_RV C_GetInterfaceList(CK_INTERFACE_PTR pInterfacesList, CK_ULONG_PTR pulCount)
{
    if (pulCount == NULL)
        return CKR_ARGUMENTS_BAD;
    if (pInterfacesList == NULL) {
        *pulCount = INTERFACE_COUNT;
        return CKR_OK;
    }
    if (*pulCount < INTERFACE_COUNT) {
        *pulCount = INTERFACE_COUNT;
        return CKR_BUFFER_TOO_SMALL;
    }
    memcpy(pInterfacesList, interfaces, sizeof interfaces);
    *pulCount = INTERFACE_COUNT;
    return CKR_OK;
}

PV_EXPORT CK_RV C_GetInterface(CK_UTF8CHAR_PTR pInterfaceName, CK_VERSION_PTR pVersion,
                               CK_INTERFACE_PTR_PTR ppInterface, CK_FLAGS flags)
{
    if (ppInterface == NULL)
        return CKR_ARGUMENTS_BAD;
    for (size_t i = 0; i < INTERFACE_COUNT; i++) {
        const CK_VERSION *version = interfaces[i].pFunctionList; /* every list starts with its version */
        if (pInterfaceName != NULL && strcmp((const char *)pInterfaceName, (const char *)interface_name) != 0)
            continue;
        if (pVersion != NULL && (pVersion->major != version->major || pVersion->minor != version->minor))
            continue;
        if ((interfaces[i].flags & flags) != flags)
            continue;
        *ppInterface = &interfaces[i];
        return CKR_OK;
    }
    return CKR_ARGUMENTS_BAD;
}
