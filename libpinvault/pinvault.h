/*
 * libpinvault: the C client of pinvaultd (docs/LIBPINVAULT.md, pinvault.h(3)).
 *
 * pinvaultd keeps PIN-protected keys (Ed25519 or ECDSA P-256) and serves them
 * over the Varlink interface io.pinvault.Vault on a Unix socket. This library
 * speaks that interface for C programs, PAM modules and PKCS#11 modules: programs
 * that other programs load, which must not bring a language runtime into their
 * host. It links only libc, libsodium and libcrypto (P-256 verification), keeps
 * no global state, and raises no signal.
 *
 * A connection (pinvault_connection) is one socket to the daemon. Every call on
 * it sends one request and waits for its reply, at most the connection's timeout;
 * one thread at a time may use a connection. A process that forks must not use
 * its parent's connection in the child: the daemon would see both as one peer.
 *
 * PINs are never copied out of the caller's memory except into the request, which
 * is built in locked memory (sodium_malloc) and wiped once sent. Keep the PIN in
 * secret memory too: pinvault_secret_alloc gives locked pages that
 * pinvault_secret_free wipes.
 *
 * Every function that can fail returns a pinvault_status: PINVAULT_OK (0), a local
 * failure (< 100), or the daemon's error (>= 100), whose details the connection
 * keeps until its next call (pinvault_error_name, _value, _detail). A daemon of a
 * later release may answer an error this library does not know: PINVAULT_E_OTHER.
 *
 * ABI: libpinvault.so.0. Symbols are versioned (LIBPINVAULT_0); the structures
 * below are part of the ABI and change only with the soname.
 */
#ifndef PINVAULT_H
#define PINVAULT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PINVAULT_VERSION_MAJOR 0
#define PINVAULT_VERSION_MINOR 1

/* The daemon's socket when neither the caller nor $PINVAULT_SOCKET names one. */
#define PINVAULT_DEFAULT_SOCKET "/run/pinvault/io.pinvault.Vault"

/* Sizes of the interface (ProtocolLimits in the daemon). */
#define PINVAULT_KEY_ID_LENGTH 32        /* lowercase hex digits; buffers hold one more for the NUL */
#define PINVAULT_USER_MAX_BYTES 256
#define PINVAULT_LABEL_MAX_BYTES 256
#define PINVAULT_PIN_MAX_BYTES 1024
#define PINVAULT_CHALLENGE_MAX_BYTES 1024 /* Authenticate's challenge: 1 to this many bytes */
#define PINVAULT_MESSAGE_MAX_BYTES 16384  /* Sign's challenge: 1 to this many bytes (a certificate with many names) */
#define PINVAULT_DIGEST_MAX_BYTES 64      /* SignDigest's digest: the key's algorithm says how long (P-256: 32) */

/*
 * A public key or a signature is bytes and a length (struct pinvault_public_key,
 * struct pinvault_signature), the length set by the key's algorithm:
 *
 *   algorithm  public key                          signature
 *   ed25519    32 bytes, raw (RFC 8032)            64 bytes (R || S)
 *   p256       65 bytes, SEC1 uncompressed point   DER ECDSA-Sig-Value, 8 to 72 bytes
 *
 * The maxima are the ABI's, fixed for libpinvault.so.0: 2048 and 4096 bytes hold
 * every elliptic-curve algorithm (P-521: 133 and 139 bytes; Ed448: 57 and 114) many
 * times over, and also ML-DSA-44 and ML-DSA-65 (public keys of 1312 and 1952 bytes,
 * signatures of 2420 and 3309), the post-quantum signatures whose keys come from a
 * 32-byte seed as PinVault's do: a later algorithm of that kind needs no new soname.
 */
#define PINVAULT_PUBLIC_KEY_MAX_BYTES 2048
#define PINVAULT_SIGNATURE_MAX_BYTES 4096

/* owner_uid for the caller's own credentials (only an admin may name another uid). */
#define PINVAULT_OWNER_SELF ((int64_t)-1)

typedef enum pinvault_status {
    PINVAULT_OK = 0,

    /* Local failures. */
    PINVAULT_E_ARGUMENT = 1, /* a parameter the interface would refuse: nothing was sent */
    PINVAULT_E_SYSTEM,       /* a system call failed (errno says why), or memory ran out */
    PINVAULT_E_TIMEOUT,      /* no answer within the connection's timeout */
    PINVAULT_E_CLOSED,       /* the daemon closed the connection */
    PINVAULT_E_PROTOCOL,     /* an answer that is not the daemon's: malformed, too long, or of another peer */
    PINVAULT_E_SIGNATURE,    /* pinvault_verify: the signature does not verify with that key */

    /* The daemon's errors: io.pinvault.Vault.<Name> unless said. */
    PINVAULT_E_WRONG_PIN = 100,        /* WrongPin: value = remainingAttempts; the attempt was counted */
    PINVAULT_E_LOCKED_OUT,             /* LockedOut: value = retryAfterSeconds; nothing was counted */
    PINVAULT_E_CREDENTIAL_BLOCKED,     /* CredentialBlocked */
    PINVAULT_E_CREDENTIAL_WIPED,       /* CredentialWiped */
    PINVAULT_E_NO_SUCH_CREDENTIAL,     /* NoSuchCredential */
    PINVAULT_E_AMBIGUOUS_CREDENTIAL,   /* AmbiguousCredential: name a keyId */
    PINVAULT_E_UNREGISTRATION_PENDING, /* UnregistrationPending */
    PINVAULT_E_TOO_MANY_CREDENTIALS,   /* TooManyCredentials: value = limit */
    PINVAULT_E_NOT_UNLOCKED,           /* NotUnlocked: no unlock session of the caller on that key */
    PINVAULT_E_WRONG_PURPOSE,          /* WrongPurpose: detail = the key's purpose */
    PINVAULT_E_BUSY,                   /* Busy: value = retryAfterMilliseconds; nothing was counted */
    PINVAULT_E_INTERNAL,               /* InternalError: the daemon's store or system failed */
    PINVAULT_E_INVALID_PARAMETER,      /* org.varlink.service.InvalidParameter: detail = the parameter */
    PINVAULT_E_PERMISSION_DENIED,      /* org.varlink.service.PermissionDenied */
    PINVAULT_E_OTHER,                  /* any other error: pinvault_error_name says which */
    PINVAULT_E_TOO_MANY_SESSIONS,      /* TooManySessions: value = limit; a full session table, nothing counted */
    PINVAULT_E_CONFLICT,               /* Conflict: the credential changed meanwhile; nothing counted, retry at once */
    PINVAULT_E_SHUTTING_DOWN,          /* ShuttingDown: pinvaultd is stopping; retry once it is back */
} pinvault_status;

/*
 * What a key is for: the interface's Credential.purpose (io.pinvault.Vault.varlink says
 * what each may do; Sign serves authenticate and legacy keys only). The numbers never
 * change: the interface only appends purposes, and its n-th is numbered n here (from 0),
 * but for 4, which is PINVAULT_PURPOSE_OTHER, so a later purpose gets the next number.
 * A library older than the daemon reads a purpose it does not know as
 * PINVAULT_PURPOSE_OTHER; a switch over the purposes wants a default. `make lib-test`
 * fails while this list and the interface disagree.
 */
typedef enum pinvault_purpose {
    PINVAULT_PURPOSE_AUTHENTICATE = 0,
    PINVAULT_PURPOSE_SSH = 1,
    PINVAULT_PURPOSE_LOGIN = 2,
    PINVAULT_PURPOSE_LEGACY = 3,   /* made before purposes existed, or listed by a daemon that names none */
    PINVAULT_PURPOSE_OTHER = 4,    /* a purpose this library does not know */
    PINVAULT_PURPOSE_WEBAUTHN = 5, /* a security key's PIN (passkeys, over CTAP): no call here signs with it */
} pinvault_purpose;

/* A key's algorithm (Credential.algorithm): chosen at Register, never changed. */
typedef enum pinvault_algorithm {
    PINVAULT_ALGORITHM_ED25519, /* also every credential listed by a daemon that names no algorithm */
    PINVAULT_ALGORITHM_P256,    /* ECDSA over NIST P-256 (prime256v1) with SHA-256 */
    PINVAULT_ALGORITHM_OTHER,   /* an algorithm this library does not know: its key is 1 to the maximum bytes */
} pinvault_algorithm;

typedef enum pinvault_state {
    PINVAULT_STATE_ACTIVE,
    PINVAULT_STATE_THROTTLED, /* wrong PINs: no PIN is checked before pinvault_credential_locked_until */
    PINVAULT_STATE_BLOCKED,   /* only an admin's Unblock revives it */
    PINVAULT_STATE_PENDING_UNREGISTRATION,
    PINVAULT_STATE_OTHER,     /* a state this library does not know */
} pinvault_state;

typedef struct pinvault_connection pinvault_connection;
typedef struct pinvault_credential pinvault_credential;

/* GetPolicy's answer. */
struct pinvault_policy {
    int64_t min_length;
    int64_t max_length;
    int digits_only;
    int64_t max_identical_digits;
    int allow_sequences;
    int64_t deny_list_size;
    int64_t throttle_after; /* wrong PINs in a row after which a credential waits */
    int64_t max_attempts;   /* wrong PINs in a row after which it is blocked or wiped */
    int wipe_on_max_attempts;
};

struct pinvault_public_key {
    size_t length; /* 1 to PINVAULT_PUBLIC_KEY_MAX_BYTES */
    unsigned char bytes[PINVAULT_PUBLIC_KEY_MAX_BYTES];
};

struct pinvault_signature {
    size_t length; /* 1 to PINVAULT_SIGNATURE_MAX_BYTES */
    unsigned char bytes[PINVAULT_SIGNATURE_MAX_BYTES];
};

/* Authenticate's answer: the signature over exactly the challenge, and who made it. */
struct pinvault_proof {
    char key_id[PINVAULT_KEY_ID_LENGTH + 1];
    struct pinvault_public_key public_key;
    struct pinvault_signature signature;
    int pin_policy_outdated;
    int64_t failed_attempts_cleared; /* wrong PINs tried since the last success, which this one cleared */
};

/* Unlock's answer. */
struct pinvault_unlock_result {
    char key_id[PINVAULT_KEY_ID_LENGTH + 1];
    int64_t unlocked_until; /* Unix seconds */
    int64_t failed_attempts_cleared;
};

/* pinvault_unlock's flags. */
#define PINVAULT_UNLOCK_BIND_TO_CONNECTION 0x1u /* the session ends with this connection */

/* The socket to use: $PINVAULT_SOCKET (not in a setuid or setgid program) or PINVAULT_DEFAULT_SOCKET. */
const char *pinvault_default_socket(void);

/*
 * Connects to the socket at `socket_path` (NULL: pinvault_default_socket()) within
 * `timeout_ms`, which also bounds each later call on the connection until
 * pinvault_set_timeout changes it. On PINVAULT_OK, *connection is to be closed.
 */
int pinvault_connect(const char *socket_path, int timeout_ms, pinvault_connection **connection);

/* Closes the socket and frees the connection. NULL is allowed. */
void pinvault_close(pinvault_connection *connection);

/* The longest each later call may wait, from its start: 1 ms to 10 minutes. */
int pinvault_set_timeout(pinvault_connection *connection, int timeout_ms);

/* The uid of the process that serves the socket (SO_PEERCRED): check it before sending a PIN. */
int pinvault_server_uid(const pinvault_connection *connection, uid_t *uid);

/*
 * Whether a call can be sent on the connection now, without waiting: PINVAULT_OK;
 * PINVAULT_E_CLOSED when the daemon has closed it (its idle timeout, a restart) or an
 * earlier call failed midway (a timeout); PINVAULT_E_PROTOCOL when bytes nobody asked
 * for wait on it. On anything but OK, close it and connect again: an unlock bound
 * to it has ended. Every call makes this check itself before it sends.
 */
int pinvault_check(pinvault_connection *connection);

/* The last call's daemon error: its Varlink name ("" after success or a local failure). */
const char *pinvault_error_name(const pinvault_connection *connection);
/* Its integer: remainingAttempts, retryAfterSeconds, retryAfterMilliseconds or limit; else 0. */
int64_t pinvault_error_value(const pinvault_connection *connection);
/* Its text: InvalidParameter's parameter, WrongPurpose's purpose; else "". */
const char *pinvault_error_detail(const pinvault_connection *connection);

/* A constant English sentence for a status. */
const char *pinvault_strerror(int status);

/* GetPolicy. */
int pinvault_get_policy(pinvault_connection *connection, struct pinvault_policy *policy);

/*
 * List: calls `visit` with each credential of `user` (NULL: every user) of
 * `purpose` (its name in the interface, such as "ssh"; NULL: all) owned by
 * `owner_uid` (PINVAULT_OWNER_SELF: the caller's). The credential lives only
 * for the call. A reply may turn out malformed after some credentials were
 * visited: use what was gathered only when the call returns PINVAULT_OK. Every
 * credential is checked: its user and owner as asked, its keyId the hash of its key.
 */
typedef void pinvault_credential_visitor(void *context, const pinvault_credential *credential);
int pinvault_list(pinvault_connection *connection, const char *user, const char *purpose, int64_t owner_uid,
                  pinvault_credential_visitor *visit, void *context);

const char *pinvault_credential_user(const pinvault_credential *credential);
const char *pinvault_credential_key_id(const pinvault_credential *credential);
/* NULL when it has none. */
const char *pinvault_credential_label(const pinvault_credential *credential);
/* The key's algorithm, and its public key as the table above says. */
pinvault_algorithm pinvault_credential_algorithm(const pinvault_credential *credential);
const struct pinvault_public_key *pinvault_credential_public_key(const pinvault_credential *credential);
pinvault_purpose pinvault_credential_purpose(const pinvault_credential *credential);
pinvault_state pinvault_credential_state(const pinvault_credential *credential);
/* Consecutive wrong PINs since the last success, and how many more before the block or wipe. */
int64_t pinvault_credential_failed_attempts(const pinvault_credential *credential);
int64_t pinvault_credential_remaining_attempts(const pinvault_credential *credential);
/* Unix seconds; -1 when not throttled (locked) or not unlocked. */
int64_t pinvault_credential_locked_until(const pinvault_credential *credential);
int64_t pinvault_credential_unlocked_until(const pinvault_credential *credential);

/*
 * Authenticate: checks the PIN (`pin_length` bytes of UTF-8, counted by the daemon when
 * wrong) and signs exactly the challenge (1 to PINVAULT_CHALLENGE_MAX_BYTES).
 * `key_id` may be NULL when the user holds one credential Authenticate may use.
 * The caller should verify proof->signature with a public key it trusts (pinvault_verify).
 */
int pinvault_authenticate(pinvault_connection *connection, const char *user, const char *key_id, const void *pin,
                          size_t pin_length, const void *challenge, size_t challenge_length, int64_t owner_uid,
                          struct pinvault_proof *proof);

/*
 * Unlock: checks the PIN as Authenticate does and keeps the key open for the
 * caller's uid for `ttl_seconds` (the daemon caps it at sessions.max_ttl_seconds),
 * or until Lock, or - with PINVAULT_UNLOCK_BIND_TO_CONNECTION - the end of this
 * connection. `result` may be NULL.
 */
int pinvault_unlock(pinvault_connection *connection, const char *user, const char *key_id, const void *pin,
                    size_t pin_length, int64_t ttl_seconds, unsigned flags, struct pinvault_unlock_result *result);

/* Lock: ends the caller's session on `key_id` (NULL: all); `*locked` (may be NULL) how many ended. */
int pinvault_lock(pinvault_connection *connection, const char *key_id, size_t *locked);

/*
 * Sign: an unlocked key signs exactly the message (1 to PINVAULT_MESSAGE_MAX_BYTES;
 * a P-256 key hashes it with SHA-256 first). No PIN. The daemon refuses data shaped
 * as SSH data, whatever the key (InvalidParameter(challenge)).
 */
int pinvault_sign(pinvault_connection *connection, const char *key_id, const void *message, size_t message_length,
                  struct pinvault_signature *signature);

/*
 * SignDigest: an unlocked P-256 key of purpose `ssh` signs a digest the caller made
 * (SHA-256: 32 bytes), as a PKCS#11 CKM_ECDSA does. No PIN. A digest cannot be
 * shape-checked, so the daemon serves only ssh keys here (else WrongPurpose), whose
 * signatures only sshd and git trust.
 */
int pinvault_sign_digest(pinvault_connection *connection, const char *key_id, const void *digest,
                         size_t digest_length, struct pinvault_signature *signature);

/*
 * Whether `signature` is `algorithm`'s signature over `message` (pinvault_verify)
 * or over a SHA-256 `digest` of 32 bytes (pinvault_verify_digest, P-256 only) with
 * `public_key`, in the wire's encodings (the table above): PINVAULT_OK, or
 * PINVAULT_E_SIGNATURE; PINVAULT_E_ARGUMENT for a key of the wrong size or an
 * algorithm this library cannot verify. No connection: pure computation.
 */
int pinvault_verify(pinvault_algorithm algorithm, const struct pinvault_public_key *public_key, const void *message,
                    size_t message_length, const struct pinvault_signature *signature);
int pinvault_verify_digest(pinvault_algorithm algorithm, const struct pinvault_public_key *public_key,
                           const void *digest, size_t digest_length, const struct pinvault_signature *signature);

/*
 * Locked memory for a PIN (sodium_malloc: guarded pages kept out of swap and core
 * dumps); NULL when none is left. pinvault_secret_free wipes all of it and frees
 * it; NULL is allowed.
 */
void *pinvault_secret_alloc(size_t size);
void pinvault_secret_free(void *secret);

#ifdef __cplusplus
}
#endif

#endif
