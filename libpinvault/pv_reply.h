/*
 * pinvaultd's replies, read from one frame (no I/O).
 *
 * Contract: a reply is either a success with exactly the fields below, or an error
 * named by the daemon. Anything else - not JSON, a field of the wrong type or size,
 * a key twice, a credential of another user or uid than asked for, "continues" -
 * is PV_REPLY_MALFORMED, and the caller treats the daemon as failing. Unknown
 * fields are skipped (the interface may grow), after being checked as JSON.
 */
#ifndef PV_REPLY_H
#define PV_REPLY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pinvault.h"

#define PV_KEY_ID_HEX PINVAULT_KEY_ID_LENGTH
#define PV_USER_MAX_BYTES PINVAULT_USER_MAX_BYTES   /* ProtocolLimits.userBytes */
#define PV_LABEL_MAX_BYTES PINVAULT_LABEL_MAX_BYTES
#define PV_ERROR_NAME_MAX 128
/* An InvalidParameter's parameter or a WrongPurpose's purpose, as long as we keep it. */
#define PV_ERROR_DETAIL_MAX 64

enum pv_reply_status {
    PV_REPLY_OK,
    PV_REPLY_ERROR,
    PV_REPLY_MALFORMED,
};

struct pv_error {
    /* A daemon's error (PINVAULT_E_WRONG_PIN ...), PINVAULT_E_OTHER for one this library does not know. */
    pinvault_status kind;
    /* The integer the error carries (remainingAttempts, retryAfterSeconds, ...), else 0. */
    int64_t value;
    /* The error's name as sent, only [A-Za-z0-9.] (else the reply is malformed): safe to log. */
    char name[PV_ERROR_NAME_MAX];
    /* InvalidParameter's parameter, WrongPurpose's purpose: only [A-Za-z0-9._-], else "". */
    char detail[PV_ERROR_DETAIL_MAX];
};

/* One Credential of a List reply (pinvault.h's accessors read it). */
struct pinvault_credential {
    char user[PV_USER_MAX_BYTES + 1];
    char key_id[PV_KEY_ID_HEX + 1];
    /* PINVAULT_ALGORITHM_ED25519 when the reply has no "algorithm" (a daemon before the fourth release). */
    pinvault_algorithm algorithm;
    /* Of the size its algorithm has (pv_public_key_fits). */
    struct pinvault_public_key public_key;
    /* The label, when it is not null (no NUL inside: the reader refuses "\u0000"). */
    bool has_label;
    char label[PV_LABEL_MAX_BYTES + 1];
    /* PINVAULT_PURPOSE_LEGACY when the reply has no "purpose" (a daemon before the third release). */
    pinvault_purpose purpose;
    pinvault_state state;
    int64_t failed_attempts;
    int64_t remaining_attempts;
    /* While throttled: Unix seconds of lockedUntil, or -1 when absent. */
    int64_t locked_until;
    /* While unlocked: Unix seconds of unlockedUntil, or -1 when absent. */
    int64_t unlocked_until;
};

/*
 * Called with each credential of a List reply, in order (`credential` lives only
 * for the call). What the caller gathers is to be used only when pv_reply_list
 * answers PV_REPLY_OK: a reply may turn out malformed after some credentials.
 */
typedef pinvault_credential_visitor pv_credential_visitor;

/*
 * List's reply, asked for `user`'s credentials (NULL: any user's) owned by
 * `owner`: hands each to `visit`. Every credential must be of `user` (when given)
 * and of `owner`, with a keyId that is the hash of its public key.
 */
enum pv_reply_status pv_reply_list(const unsigned char *frame, size_t length, const char *user, uid_t owner,
                                   pv_credential_visitor *visit, void *context, struct pv_error *error);

enum pv_reply_status pv_reply_authenticate(const unsigned char *frame, size_t length,
                                           struct pinvault_proof *proof, struct pv_error *error);

enum pv_reply_status pv_reply_unlock(const unsigned char *frame, size_t length,
                                     struct pinvault_unlock_result *result, struct pv_error *error);

/* Lock's reply: how many keyIds it lists. */
enum pv_reply_status pv_reply_lock(const unsigned char *frame, size_t length, size_t *locked, struct pv_error *error);

/* Sign's and SignDigest's reply: a signature of 1 to PINVAULT_SIGNATURE_MAX_BYTES. */
enum pv_reply_status pv_reply_sign(const unsigned char *frame, size_t length,
                                   struct pinvault_signature *signature, struct pv_error *error);

enum pv_reply_status pv_reply_policy(const unsigned char *frame, size_t length,
                                     struct pinvault_policy *policy, struct pv_error *error);

/* Unix seconds of an RFC 3339 time in pinvaultd's one form, YYYY-MM-DDTHH:MM:SSZ. */
int pv_parse_time(const char *text, int64_t *seconds);

/* Whether `key_id` is the lowercase hex of the first 16 bytes of BLAKE2b-256(public key, as on the wire). */
bool pv_key_id_matches(const char *key_id, const struct pinvault_public_key *public_key);

/*
 * Whether `public_key` has the form of `algorithm`'s (pinvault.h's table): Ed25519
 * 32 bytes, P-256 an uncompressed point (65 bytes, 0x04 first), an unknown
 * algorithm's anything from 1 byte to the maximum.
 */
bool pv_public_key_fits(pinvault_algorithm algorithm, const struct pinvault_public_key *public_key);

#endif
