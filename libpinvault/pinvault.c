/* libpinvault's public calls (pinvault.h): one request, one reply, on one connection. */
#define _GNU_SOURCE /* secure_getenv */
#include "pinvault.h"

#include <errno.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pv_connection.h"
#include "pv_json.h"
#include "pv_reply.h"
#include "pv_request.h"

#define PV_EXPORT __attribute__((visibility("default")))

/* pinvault_set_timeout's bounds. */
#define TIMEOUT_MIN_MS 1
#define TIMEOUT_MAX_MS (10 * 60 * 1000)
/* A call without a PIN or a challenge fits here (List names a user of at most 256 bytes, escaped ×6). */
#define SMALL_CALL_BYTES 2048

struct pinvault_connection {
    struct pv_connection socket;
    int timeout_ms;
    /* Whose credentials List answers without ownerUid: the effective uid at connect (SO_PEERCRED's). */
    uid_t self;
    /* The last call's daemon error. */
    struct pv_error error;
    /*
     * The stream is out of step (a timeout, a half-sent call, a malformed or unasked
     * reply): no later call is sent on it, or it could be answered with an earlier
     * call's reply.
     */
    bool broken;
};

PV_EXPORT const char *pinvault_default_socket(void)
{
    const char *path = secure_getenv("PINVAULT_SOCKET");
    return path != NULL && path[0] == '/' ? path : PINVAULT_DEFAULT_SOCKET;
}

static int status_of_io(enum pv_io io)
{
    switch (io) {
    case PV_IO_OK: return PINVAULT_OK;
    case PV_IO_TIMEOUT: return PINVAULT_E_TIMEOUT;
    case PV_IO_CLOSED: return PINVAULT_E_CLOSED;
    case PV_IO_TOO_LONG: return PINVAULT_E_PROTOCOL;
    case PV_IO_ERROR: return PINVAULT_E_SYSTEM;
    }
    return PINVAULT_E_SYSTEM;
}

PV_EXPORT int pinvault_connect(const char *socket_path, int timeout_ms, pinvault_connection **connection)
{
    if (connection == NULL || timeout_ms < TIMEOUT_MIN_MS || timeout_ms > TIMEOUT_MAX_MS)
        return PINVAULT_E_ARGUMENT;
    *connection = NULL;
    if (sodium_init() < 0)
        return PINVAULT_E_SYSTEM;
    struct pinvault_connection *made = calloc(1, sizeof *made);
    if (made == NULL)
        return PINVAULT_E_SYSTEM;
    made->timeout_ms = timeout_ms;
    made->self = geteuid();
    enum pv_io io = pv_connect(&made->socket, socket_path != NULL ? socket_path : pinvault_default_socket(),
                               pv_deadline(timeout_ms));
    if (io != PV_IO_OK) {
        int saved = errno;
        pv_close(&made->socket);
        free(made);
        errno = saved;
        return status_of_io(io);
    }
    *connection = made;
    return PINVAULT_OK;
}

PV_EXPORT void pinvault_close(pinvault_connection *connection)
{
    if (connection == NULL)
        return;
    pv_close(&connection->socket);
    free(connection);
}

PV_EXPORT int pinvault_set_timeout(pinvault_connection *connection, int timeout_ms)
{
    if (connection == NULL || timeout_ms < TIMEOUT_MIN_MS || timeout_ms > TIMEOUT_MAX_MS)
        return PINVAULT_E_ARGUMENT;
    connection->timeout_ms = timeout_ms;
    return PINVAULT_OK;
}

PV_EXPORT int pinvault_server_uid(const pinvault_connection *connection, uid_t *uid)
{
    if (connection == NULL || uid == NULL)
        return PINVAULT_E_ARGUMENT;
    return pv_server_uid(&connection->socket, uid) == 0 ? PINVAULT_OK : PINVAULT_E_SYSTEM;
}

PV_EXPORT const char *pinvault_error_name(const pinvault_connection *connection)
{
    return connection != NULL ? connection->error.name : "";
}

PV_EXPORT int64_t pinvault_error_value(const pinvault_connection *connection)
{
    return connection != NULL ? connection->error.value : 0;
}

PV_EXPORT const char *pinvault_error_detail(const pinvault_connection *connection)
{
    return connection != NULL ? connection->error.detail : "";
}

PV_EXPORT const char *pinvault_strerror(int status)
{
    switch ((pinvault_status)status) {
    case PINVAULT_OK: return "success";
    case PINVAULT_E_ARGUMENT: return "invalid argument";
    case PINVAULT_E_SYSTEM: return "system error";
    case PINVAULT_E_TIMEOUT: return "pinvaultd did not answer in time";
    case PINVAULT_E_CLOSED: return "pinvaultd closed the connection";
    case PINVAULT_E_PROTOCOL: return "malformed reply";
    case PINVAULT_E_SIGNATURE: return "the signature does not verify";
    case PINVAULT_E_WRONG_PIN: return "wrong PIN";
    case PINVAULT_E_LOCKED_OUT: return "too many wrong PINs: wait";
    case PINVAULT_E_CREDENTIAL_BLOCKED: return "credential blocked";
    case PINVAULT_E_CREDENTIAL_WIPED: return "credential wiped";
    case PINVAULT_E_NO_SUCH_CREDENTIAL: return "no such credential";
    case PINVAULT_E_AMBIGUOUS_CREDENTIAL: return "several credentials: name a keyId";
    case PINVAULT_E_UNREGISTRATION_PENDING: return "unregistration pending";
    case PINVAULT_E_TOO_MANY_CREDENTIALS: return "too many credentials";
    case PINVAULT_E_TOO_MANY_SESSIONS: return "too many unlock sessions";
    case PINVAULT_E_CONFLICT: return "the credential changed meanwhile: retry";
    case PINVAULT_E_SHUTTING_DOWN: return "pinvaultd is stopping";
    case PINVAULT_E_NOT_UNLOCKED: return "not unlocked";
    case PINVAULT_E_WRONG_PURPOSE: return "the key was made for another purpose";
    case PINVAULT_E_BUSY: return "pinvaultd is busy";
    case PINVAULT_E_INTERNAL: return "pinvaultd failed";
    case PINVAULT_E_INVALID_PARAMETER: return "pinvaultd refused a parameter";
    case PINVAULT_E_PERMISSION_DENIED: return "permission denied";
    case PINVAULT_E_OTHER: return "pinvaultd answered an error";
    }
    return "unknown status";
}

/*
 * Whether a call may be sent: not on a broken stream, nor on one the daemon has
 * closed (PINVAULT_E_CLOSED: nothing was sent, connect again) or sent unasked bytes on.
 */
static int ready(pinvault_connection *connection)
{
    if (connection->broken)
        return PINVAULT_E_CLOSED;
    enum pv_io io = pv_ready(&connection->socket);
    if (io == PV_IO_OK)
        return PINVAULT_OK;
    connection->broken = true;
    return io == PV_IO_TOO_LONG ? PINVAULT_E_PROTOCOL : status_of_io(io);
}

PV_EXPORT int pinvault_check(pinvault_connection *connection)
{
    return connection != NULL ? ready(connection) : PINVAULT_E_ARGUMENT;
}

/* A call's I/O outcome; any failure leaves the stream out of step, so broken. */
static int finished(pinvault_connection *connection, enum pv_io io)
{
    if (io != PV_IO_OK)
        connection->broken = true;
    return status_of_io(io);
}

/*
 * Sends `frame` (NUL included) and receives the reply; PINVAULT_OK leaves it in
 * *reply, valid until the next call. Clears the last error first.
 */
static int exchange(pinvault_connection *connection, const char *frame, size_t length,
                    const unsigned char **reply, size_t *reply_length)
{
    int status = ready(connection);
    if (status != PINVAULT_OK)
        return status;
    int64_t deadline = pv_deadline(connection->timeout_ms);
    enum pv_io io = pv_send(&connection->socket, frame, length, deadline);
    if (io == PV_IO_OK)
        io = pv_receive(&connection->socket, deadline, reply, reply_length);
    return finished(connection, io);
}

/* A parsed reply's status: the daemon's error kind, or PROTOCOL for a malformed reply. */
static int status_of_reply(pinvault_connection *connection, enum pv_reply_status reply)
{
    switch (reply) {
    case PV_REPLY_OK:
        return PINVAULT_OK;
    case PV_REPLY_ERROR:
        return connection->error.kind;
    case PV_REPLY_MALFORMED:
        break;
    }
    memset(&connection->error, 0, sizeof connection->error);
    connection->broken = true;
    return PINVAULT_E_PROTOCOL;
}

/* Starts a call: the last error is forgotten. */
static bool begin(pinvault_connection *connection)
{
    if (connection == NULL)
        return false;
    memset(&connection->error, 0, sizeof connection->error);
    return true;
}

/*
 * A user the interface accepts the size and encoding of (which characters a name
 * may have is the daemon's to judge; bytes that are not UTF-8 could not even be sent
 * as a JSON string).
 */
static bool user_valid(const char *user)
{
    size_t n = user != NULL ? strnlen(user, PINVAULT_USER_MAX_BYTES + 1) : 0;
    return n > 0 && n <= PINVAULT_USER_MAX_BYTES && pv_json_utf8_valid((const unsigned char *)user, n);
}

/* A PIN the interface accepts: at most PINVAULT_PIN_MAX_BYTES of UTF-8. */
static bool pin_valid(const void *pin, size_t pin_length)
{
    return (pin != NULL || pin_length == 0) && pin_length <= PINVAULT_PIN_MAX_BYTES &&
           (pin_length == 0 || pv_json_utf8_valid(pin, pin_length));
}

PV_EXPORT int pinvault_get_policy(pinvault_connection *connection, struct pinvault_policy *policy)
{
    char frame[SMALL_CALL_BYTES];
    struct pv_buffer request = {.data = frame, .capacity = sizeof frame};
    const unsigned char *reply;
    size_t reply_length;
    if (!begin(connection) || policy == NULL || pv_request_policy(&request) != 0)
        return PINVAULT_E_ARGUMENT;
    int status = exchange(connection, request.data, request.length, &reply, &reply_length);
    if (status != PINVAULT_OK)
        return status;
    return status_of_reply(connection, pv_reply_policy(reply, reply_length, policy, &connection->error));
}

PV_EXPORT int pinvault_list(pinvault_connection *connection, const char *user, const char *purpose, int64_t owner_uid,
                            pinvault_credential_visitor *visit, void *context)
{
    char frame[SMALL_CALL_BYTES];
    struct pv_buffer request = {.data = frame, .capacity = sizeof frame};
    const unsigned char *reply;
    size_t reply_length;
    bool with_owner = owner_uid != PINVAULT_OWNER_SELF;
    if (!begin(connection) || visit == NULL || (user != NULL && !user_valid(user)) ||
        (purpose != NULL && strnlen(purpose, 64) >= 64) || (with_owner && (owner_uid < 0 || owner_uid > 4294967294LL)))
        return PINVAULT_E_ARGUMENT;
    uid_t owner = with_owner ? (uid_t)owner_uid : connection->self;
    if (pv_request_list(&request, user, purpose, with_owner, owner) != 0)
        return PINVAULT_E_ARGUMENT;
    int status = exchange(connection, request.data, request.length, &reply, &reply_length);
    if (status != PINVAULT_OK)
        return status;
    return status_of_reply(connection,
                           pv_reply_list(reply, reply_length, user, owner, visit, context, &connection->error));
}

PV_EXPORT const char *pinvault_credential_user(const pinvault_credential *credential)
{
    return credential->user;
}

PV_EXPORT const char *pinvault_credential_key_id(const pinvault_credential *credential)
{
    return credential->key_id;
}

PV_EXPORT const char *pinvault_credential_label(const pinvault_credential *credential)
{
    return credential->has_label ? credential->label : NULL;
}

PV_EXPORT pinvault_algorithm pinvault_credential_algorithm(const pinvault_credential *credential)
{
    return credential->algorithm;
}

PV_EXPORT const struct pinvault_public_key *pinvault_credential_public_key(const pinvault_credential *credential)
{
    return &credential->public_key;
}

PV_EXPORT pinvault_purpose pinvault_credential_purpose(const pinvault_credential *credential)
{
    return credential->purpose;
}

PV_EXPORT pinvault_state pinvault_credential_state(const pinvault_credential *credential)
{
    return credential->state;
}

PV_EXPORT int64_t pinvault_credential_failed_attempts(const pinvault_credential *credential)
{
    return credential->failed_attempts;
}

PV_EXPORT int64_t pinvault_credential_remaining_attempts(const pinvault_credential *credential)
{
    return credential->remaining_attempts;
}

PV_EXPORT int64_t pinvault_credential_locked_until(const pinvault_credential *credential)
{
    return credential->locked_until;
}

PV_EXPORT int64_t pinvault_credential_unlocked_until(const pinvault_credential *credential)
{
    return credential->unlocked_until;
}

/*
 * Sends a call that carries a PIN, built by `build` into locked memory that is
 * wiped and freed before the reply is read.
 */
struct pin_call {
    const char *user;
    const char *key_id;
    const unsigned char *pin;
    size_t pin_length;
    /* Authenticate */
    const unsigned char *challenge;
    size_t challenge_length;
    bool with_owner;
    uid_t owner;
    /* Unlock */
    bool unlock;
    int64_t ttl_seconds;
    bool bind;
};

static int send_pin_call(pinvault_connection *connection, const struct pin_call *call,
                         const unsigned char **reply, size_t *reply_length)
{
    size_t capacity = pv_request_pin_call_size(call->user, pv_json_escaped_length(call->pin, call->pin_length),
                                               call->challenge_length);
    char *locked = sodium_malloc(capacity);
    if (locked == NULL)
        return PINVAULT_E_SYSTEM;
    struct pv_buffer request = {.data = locked, .capacity = capacity};
    int built = call->unlock
        ? pv_request_unlock(&request, call->user, call->key_id, call->pin, call->pin_length, call->ttl_seconds, call->bind)
        : pv_request_authenticate(&request, call->user, call->key_id, call->pin, call->pin_length, call->challenge,
                                  call->challenge_length, call->with_owner, call->owner);
    int status = built == 0 ? ready(connection) : PINVAULT_E_ARGUMENT;
    int64_t deadline = pv_deadline(connection->timeout_ms);
    enum pv_io io = status == PINVAULT_OK ? pv_send(&connection->socket, request.data, request.length, deadline) : PV_IO_OK;
    sodium_free(locked); /* zeroes the whole allocation */
    if (status != PINVAULT_OK)
        return status;
    if (io == PV_IO_OK)
        io = pv_receive(&connection->socket, deadline, reply, reply_length);
    return finished(connection, io);
}

PV_EXPORT int pinvault_authenticate(pinvault_connection *connection, const char *user, const char *key_id, const void *pin,
                                    size_t pin_length, const void *challenge, size_t challenge_length, int64_t owner_uid,
                                    struct pinvault_proof *proof)
{
    bool with_owner = owner_uid != PINVAULT_OWNER_SELF;
    if (!begin(connection) || !user_valid(user) || proof == NULL || !pin_valid(pin, pin_length) || challenge == NULL || challenge_length == 0 ||
        challenge_length > PINVAULT_CHALLENGE_MAX_BYTES || (key_id != NULL && !pv_key_id_valid(key_id)) ||
        (with_owner && (owner_uid < 0 || owner_uid > 4294967294LL)))
        return PINVAULT_E_ARGUMENT;
    struct pin_call call = {
        .user = user, .key_id = key_id, .pin = pin, .pin_length = pin_length, .challenge = challenge,
        .challenge_length = challenge_length, .with_owner = with_owner, .owner = (uid_t)owner_uid,
    };
    const unsigned char *reply;
    size_t reply_length;
    int status = send_pin_call(connection, &call, &reply, &reply_length);
    if (status != PINVAULT_OK)
        return status;
    return status_of_reply(connection, pv_reply_authenticate(reply, reply_length, proof, &connection->error));
}

PV_EXPORT int pinvault_unlock(pinvault_connection *connection, const char *user, const char *key_id, const void *pin,
                              size_t pin_length, int64_t ttl_seconds, unsigned flags, struct pinvault_unlock_result *result)
{
    struct pinvault_unlock_result ignored;
    if (!begin(connection) || !user_valid(user) || !pin_valid(pin, pin_length) || (key_id != NULL && !pv_key_id_valid(key_id)) || ttl_seconds < 1 || ttl_seconds > 31536000 ||
        (flags & ~PINVAULT_UNLOCK_BIND_TO_CONNECTION) != 0)
        return PINVAULT_E_ARGUMENT;
    struct pin_call call = {
        .user = user, .key_id = key_id, .pin = pin, .pin_length = pin_length, .unlock = true,
        .ttl_seconds = ttl_seconds, .bind = (flags & PINVAULT_UNLOCK_BIND_TO_CONNECTION) != 0,
    };
    const unsigned char *reply;
    size_t reply_length;
    int status = send_pin_call(connection, &call, &reply, &reply_length);
    if (status != PINVAULT_OK)
        return status;
    return status_of_reply(connection,
                           pv_reply_unlock(reply, reply_length, result != NULL ? result : &ignored, &connection->error));
}

PV_EXPORT int pinvault_lock(pinvault_connection *connection, const char *key_id, size_t *locked)
{
    char frame[SMALL_CALL_BYTES];
    struct pv_buffer request = {.data = frame, .capacity = sizeof frame};
    const unsigned char *reply;
    size_t reply_length, count;
    if (!begin(connection) || pv_request_lock(&request, key_id) != 0)
        return PINVAULT_E_ARGUMENT;
    int status = exchange(connection, request.data, request.length, &reply, &reply_length);
    if (status != PINVAULT_OK)
        return status;
    status = status_of_reply(connection, pv_reply_lock(reply, reply_length, &count, &connection->error));
    if (status == PINVAULT_OK && locked != NULL)
        *locked = count;
    return status;
}

/*
 * A call of a keyId and some bytes whose reply is a signature (Sign, SignDigest),
 * its frame built in memory of its own size: a message may be 16 KiB.
 */
static int signature_call(pinvault_connection *connection, const char *key_id, const void *bytes, size_t length,
                          int (*build)(struct pv_buffer *, const char *, const unsigned char *, size_t),
                          struct pinvault_signature *signature)
{
    if (!begin(connection) || key_id == NULL || bytes == NULL || signature == NULL || length == 0 ||
        length > PV_MESSAGE_MAX_BYTES)
        return PINVAULT_E_ARGUMENT;
    size_t capacity = pv_request_bytes_call_size(length);
    char *frame = malloc(capacity);
    if (frame == NULL)
        return PINVAULT_E_SYSTEM;
    struct pv_buffer request = {.data = frame, .capacity = capacity};
    int status = build(&request, key_id, bytes, length) == 0 ? PINVAULT_OK : PINVAULT_E_ARGUMENT;
    const unsigned char *reply;
    size_t reply_length;
    if (status == PINVAULT_OK)
        status = exchange(connection, request.data, request.length, &reply, &reply_length);
    free(frame);
    if (status != PINVAULT_OK)
        return status;
    return status_of_reply(connection, pv_reply_sign(reply, reply_length, signature, &connection->error));
}

PV_EXPORT int pinvault_sign(pinvault_connection *connection, const char *key_id, const void *message,
                            size_t message_length, struct pinvault_signature *signature)
{
    return signature_call(connection, key_id, message, message_length, pv_request_sign, signature);
}

PV_EXPORT int pinvault_sign_digest(pinvault_connection *connection, const char *key_id, const void *digest,
                                   size_t digest_length, struct pinvault_signature *signature)
{
    return signature_call(connection, key_id, digest, digest_length, pv_request_sign_digest, signature);
}

PV_EXPORT void *pinvault_secret_alloc(size_t size)
{
    if (sodium_init() < 0)
        return NULL;
    return sodium_malloc(size);
}

PV_EXPORT void pinvault_secret_free(void *secret)
{
    sodium_free(secret); /* wipes the whole allocation; NULL does nothing */
}
