/*
 * pinvaultd's replies to List and Authenticate, read from one frame (no I/O).
 *
 * Contract: a reply is either a success with exactly the fields below, or an error
 * named by the daemon. Anything else - not JSON, a field of the wrong type or size,
 * a key twice, a credential of another user or uid than asked for, "continues" -
 * is PV_REPLY_MALFORMED, and the caller treats the daemon as failing. Unknown
 * fields are skipped (the interface may grow), after being checked as JSON.
 * Which listed credential to use is the caller's choice (pv_credential_visitor).
 */
#ifndef PV_REPLY_H
#define PV_REPLY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PV_KEY_ID_HEX 32      /* 16 bytes of BLAKE2b-256 of the public key, lowercase hex */
#define PV_PUBLIC_KEY_BYTES 32
#define PV_SIGNATURE_BYTES 64
#define PV_USER_MAX_BYTES 256 /* ProtocolLimits.userBytes */
#define PV_LABEL_MAX_BYTES 256
#define PV_ERROR_NAME_MAX 128

enum pv_reply_status {
    PV_REPLY_OK,
    PV_REPLY_ERROR,
    PV_REPLY_MALFORMED,
};

/* The errors the module tells apart; everything else is PV_ERROR_OTHER. */
enum pv_error_kind {
    PV_ERROR_WRONG_PIN,        /* value: remainingAttempts */
    PV_ERROR_LOCKED_OUT,       /* value: retryAfterSeconds */
    PV_ERROR_BLOCKED,
    PV_ERROR_WIPED,
    PV_ERROR_NO_SUCH_CREDENTIAL,
    PV_ERROR_UNREGISTRATION_PENDING,
    PV_ERROR_BUSY,
    PV_ERROR_INTERNAL,
    PV_ERROR_PERMISSION_DENIED,
    PV_ERROR_OTHER,
};

struct pv_error {
    enum pv_error_kind kind;
    int64_t value;
    /* The error's name as sent, only [A-Za-z0-9.] (else the reply is malformed): safe to log. */
    char name[PV_ERROR_NAME_MAX];
};

/* What a credential's key is for (Credential.purpose; SECURITY.md, "Signature domains"). */
enum pv_purpose {
    PV_PURPOSE_AUTHENTICATE,
    PV_PURPOSE_SSH,
    PV_PURPOSE_LOGIN,
    PV_PURPOSE_LEGACY, /* made before purposes existed, or listed by a daemon that names none */
    PV_PURPOSE_OTHER,  /* a purpose this reader does not know */
};

enum pv_state {
    PV_STATE_ACTIVE,
    PV_STATE_THROTTLED,
    PV_STATE_BLOCKED,
    PV_STATE_PENDING_UNREGISTRATION,
    PV_STATE_OTHER, /* a state this module does not know: the daemon decides */
};

struct pv_credential {
    char key_id[PV_KEY_ID_HEX + 1];
    unsigned char public_key[PV_PUBLIC_KEY_BYTES];
    /* The label, when it is not null (no NUL inside: the reader refuses "\u0000"). */
    bool has_label;
    char label[PV_LABEL_MAX_BYTES + 1];
    /* PV_PURPOSE_LEGACY when the reply has no "purpose" (a daemon before the third release). */
    enum pv_purpose purpose;
    enum pv_state state;
    /* While throttled: Unix seconds of lockedUntil, or -1 when absent. */
    int64_t locked_until;
};

/*
 * Called with each credential of a List reply, in order (`credential` lives only
 * for the call). What the caller gathers is to be used only when pv_reply_list
 * answers PV_REPLY_OK: a reply may turn out malformed after some credentials.
 */
typedef void pv_credential_visitor(void *context, const struct pv_credential *credential);

struct pv_proof {
    char key_id[PV_KEY_ID_HEX + 1];
    unsigned char public_key[PV_PUBLIC_KEY_BYTES];
    unsigned char signature[PV_SIGNATURE_BYTES];
    bool pin_policy_outdated;
    /* failedAttemptsCleared (docs/PAM.md, "What the user sees"); 0 when the daemon does not send it. */
    int64_t failed_attempts_cleared;
};

/*
 * List's reply, asked for `user`'s credentials owned by `owner`: hands each to
 * `visit`. Every credential must be `user`'s and `owner`'s, with a keyId that is
 * the hash of its public key.
 */
enum pv_reply_status pv_reply_list(const unsigned char *frame, size_t length, const char *user, uid_t owner,
                                   pv_credential_visitor *visit, void *context, struct pv_error *error);

enum pv_reply_status pv_reply_authenticate(const unsigned char *frame, size_t length,
                                           struct pv_proof *proof, struct pv_error *error);

/* Unix seconds of an RFC 3339 time in pinvaultd's one form, YYYY-MM-DDTHH:MM:SSZ. */
int pv_parse_time(const char *text, int64_t *seconds);

/* Whether `key_id` is the lowercase hex of the first 16 bytes of BLAKE2b-256(public_key). */
bool pv_key_id_matches(const char *key_id, const unsigned char public_key[PV_PUBLIC_KEY_BYTES]);

#endif
