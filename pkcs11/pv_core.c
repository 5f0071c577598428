/* The lock, the fork check, the connection and the error table (pv_core.h). */
#define _GNU_SOURCE
#include "pv_core.h"

#include <pthread.h>
#include <pwd.h>
#include <sodium.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

/* The system user pinvaultd runs as (pinvaultd.service's User=). */
#define PV_SERVER_USER "pinvault"

static pthread_mutex_t pv_lock = PTHREAD_MUTEX_INITIALIZER;
/* The pid that initialized the module, 0 when none: read before the lock is taken. */
static pid_t initialized_pid;

/* Under pv_lock. */
static struct {
    bool initialized;
    pinvault_connection *connection;
    uint64_t generation;
} core;

CK_RV pv_enter(void)
{
    pid_t owner = __atomic_load_n(&initialized_pid, __ATOMIC_ACQUIRE);
    /* A child of the process that initialized the module must C_Initialize again. */
    if (owner == 0 || owner != getpid())
        return CKR_CRYPTOKI_NOT_INITIALIZED;
    if (pthread_mutex_lock(&pv_lock) != 0)
        return CKR_GENERAL_ERROR;
    if (!core.initialized) {
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

CK_RV pv_core_start(void)
{
    pid_t self = getpid();
    pid_t owner = __atomic_load_n(&initialized_pid, __ATOMIC_ACQUIRE);
    if (owner != 0 && owner != self) {
        /*
         * A child: the parent's state is not ours. Its lock may have been held by
         * another thread at the fork, so it is made anew; its connection is the
         * parent's and is closed here without a word sent on it (pinvault_close
         * sends nothing: it closes this process's copy of the socket).
         */
        pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
        memcpy(&pv_lock, &fresh, sizeof fresh);
        pinvault_close(core.connection);
        memset(&core, 0, sizeof core);
        __atomic_store_n(&initialized_pid, 0, __ATOMIC_RELEASE);
    }
    if (pthread_mutex_lock(&pv_lock) != 0)
        return CKR_GENERAL_ERROR;
    if (core.initialized) {
        pv_leave();
        return CKR_CRYPTOKI_ALREADY_INITIALIZED;
    }
    if (sodium_init() < 0) {
        pv_leave();
        return CKR_GENERAL_ERROR;
    }
    uint64_t generation = core.generation;
    memset(&core, 0, sizeof core);
    core.generation = generation + 1; /* no login of an earlier initialization is alive */
    return CKR_OK;
}

void pv_core_started(void)
{
    core.initialized = true;
    __atomic_store_n(&initialized_pid, getpid(), __ATOMIC_RELEASE);
    pv_leave();
}

void pv_core_stop(void)
{
    pv_drop_connection();
    core.initialized = false;
    __atomic_store_n(&initialized_pid, 0, __ATOMIC_RELEASE);
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
    pinvault_close(core.connection);
    core.connection = NULL;
    core.generation++;
}

uint64_t pv_connection_generation(void)
{
    return core.generation;
}

pinvault_connection *pv_open_connection(void)
{
    return core.connection;
}

pinvault_connection *pv_connection(CK_RV *rv)
{
    if (core.connection != NULL) {
        if (pinvault_check(core.connection) == PINVAULT_OK)
            return core.connection;
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
    core.connection = connection;
    core.generation++;
    return connection;
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
