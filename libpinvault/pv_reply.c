/* pinvaultd's replies (pv_reply.h). */
#include "pv_reply.h"

#include <sodium.h>
#include <string.h>

#include "pv_json.h"

/* Longest key this module knows ("unregistrationExpiresAt"), with room to spare. */
#define KEY_CAPACITY 32
/* The longest base64 we decode: a signature of the largest size (a public key is shorter). */
#define BASE64_CAPACITY sodium_base64_ENCODED_LEN(PINVAULT_SIGNATURE_MAX_BYTES, sodium_base64_VARIANT_ORIGINAL)
#define UID_MAX 4294967294LL /* (uid_t)-1 is not a uid */

static int key_is(const char *key, const char *name)
{
    return strcmp(key, name) == 0;
}

/* Marks `bit` seen; -1 when it was already (a key given twice). */
static int once(unsigned *seen, unsigned bit)
{
    if (*seen & bit)
        return -1;
    *seen |= bit;
    return 0;
}

/* A standard base64 string (with padding) that decodes to 1 to `capacity` bytes, `*size` of them. */
static int read_base64(struct pv_json *json, unsigned char *out, size_t capacity, size_t *size)
{
    char text[BASE64_CAPACITY];
    size_t length, decoded;
    const char *end;
    if (pv_json_string(json, text, sizeof text, &length) != 0)
        return -1;
    if (sodium_base642bin(out, capacity, text, length, NULL, &decoded, &end, sodium_base64_VARIANT_ORIGINAL) != 0)
        return -1;
    if (end != text + length || decoded == 0)
        return -1;
    *size = decoded;
    return 0;
}

static int read_public_key(struct pv_json *json, struct pinvault_public_key *key)
{
    return read_base64(json, key->bytes, sizeof key->bytes, &key->length);
}

static int read_signature(struct pv_json *json, struct pinvault_signature *signature)
{
    return read_base64(json, signature->bytes, sizeof signature->bytes, &signature->length);
}

static int read_key_id(struct pv_json *json, char out[PV_KEY_ID_HEX + 1])
{
    size_t length;
    if (pv_json_string(json, out, PV_KEY_ID_HEX + 1, &length) != 0 || length != PV_KEY_ID_HEX)
        return -1;
    for (size_t i = 0; i < PV_KEY_ID_HEX; i++)
        if (!((out[i] >= '0' && out[i] <= '9') || (out[i] >= 'a' && out[i] <= 'f')))
            return -1;
    return 0;
}

bool pv_key_id_matches(const char *key_id, const struct pinvault_public_key *public_key)
{
    unsigned char hash[32];
    char hex[2 * sizeof hash + 1];
    if (public_key->length == 0 || public_key->length > sizeof public_key->bytes ||
        crypto_generichash(hash, sizeof hash, public_key->bytes, public_key->length, NULL, 0) != 0)
        return false;
    if (sodium_bin2hex(hex, sizeof hex, hash, sizeof hash) == NULL)
        return false;
    return strlen(key_id) == PV_KEY_ID_HEX && memcmp(key_id, hex, PV_KEY_ID_HEX) == 0;
}

/* Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar (H. Hinnant). */
static int64_t days_from_civil(int64_t y, int64_t m, int64_t d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

int pv_parse_time(const char *text, int64_t *seconds)
{
    static const char shape[] = "dddd-dd-ddTdd:dd:ddZ";
    int64_t v[6] = {0};
    static const int starts[6] = {0, 5, 8, 11, 14, 17}, widths[6] = {4, 2, 2, 2, 2, 2};
    if (strlen(text) != sizeof shape - 1)
        return -1;
    for (size_t i = 0; i < sizeof shape - 1; i++) {
        if (shape[i] == 'd' ? (text[i] < '0' || text[i] > '9') : text[i] != shape[i])
            return -1;
    }
    for (int f = 0; f < 6; f++)
        for (int i = 0; i < widths[f]; i++)
            v[f] = v[f] * 10 + (text[starts[f] + i] - '0');
    static const int month_days[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = (v[0] % 4 == 0 && v[0] % 100 != 0) || v[0] % 400 == 0;
    if (v[1] < 1 || v[1] > 12 || v[2] < 1 || v[2] > month_days[v[1] - 1] ||
        (v[1] == 2 && v[2] == 29 && !leap) || v[3] > 23 || v[4] > 59 || v[5] > 59)
        return -1;
    *seconds = days_from_civil(v[0], v[1], v[2]) * 86400 + v[3] * 3600 + v[4] * 60 + v[5];
    return 0;
}

/*
 * The first pass over a reply: its error name, if any, and where its parameters
 * start. The whole frame is checked as JSON here.
 */
struct envelope {
    bool is_error;
    char error[PV_ERROR_NAME_MAX];
    bool has_parameters;
    struct pv_json parameters;
};

static int read_envelope(const unsigned char *frame, size_t length, struct envelope *envelope)
{
    struct pv_json json;
    bool first = true, more;
    char key[KEY_CAPACITY];
    size_t key_length;
    unsigned seen = 0;
    memset(envelope, 0, sizeof *envelope);
    pv_json_init(&json, frame, length);
    if (pv_json_enter(&json, '{') != 0)
        return -1;
    for (;;) {
        if (pv_json_member(&json, &first, &more, key, sizeof key, &key_length) != 0)
            return -1;
        if (!more)
            break;
        if (key_is(key, "error")) {
            size_t n;
            if (once(&seen, 1) != 0 || pv_json_string(&json, envelope->error, sizeof envelope->error, &n) != 0 || n == 0)
                return -1;
            for (size_t i = 0; i < n; i++) {
                char c = envelope->error[i];
                if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.'))
                    return -1;
            }
            envelope->is_error = true;
        } else if (key_is(key, "parameters")) {
            if (once(&seen, 2) != 0)
                return -1;
            envelope->parameters = json;
            envelope->has_parameters = true;
            if (pv_json_skip(&json) != 0)
                return -1;
        } else if (key_is(key, "continues")) {
            bool continues;
            /* We never ask for more: a reply that promises more is not ours. */
            if (once(&seen, 4) != 0 || pv_json_bool(&json, &continues) != 0 || continues)
                return -1;
        } else if (pv_json_skip(&json) != 0) {
            return -1;
        }
    }
    return pv_json_finish(&json);
}

/* Whether `text` is a name that may reach a log: [A-Za-z0-9._-], not empty. */
static bool plain_name(const char *text, size_t length)
{
    if (length == 0)
        return false;
    for (size_t i = 0; i < length; i++) {
        char c = text[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
              c == '-'))
            return false;
    }
    return true;
}

/*
 * Every error the interface declares that a caller may tell apart, with the one
 * parameter it must carry: an integer (value) or a name (detail).
 */
static const struct {
    const char *name;
    pinvault_status kind;
    const char *integer;
    const char *text;
} known_errors[] = {
    {"io.pinvault.Vault.WrongPin", PINVAULT_E_WRONG_PIN, "remainingAttempts", NULL},
    {"io.pinvault.Vault.LockedOut", PINVAULT_E_LOCKED_OUT, "retryAfterSeconds", NULL},
    {"io.pinvault.Vault.CredentialBlocked", PINVAULT_E_CREDENTIAL_BLOCKED, NULL, NULL},
    {"io.pinvault.Vault.CredentialWiped", PINVAULT_E_CREDENTIAL_WIPED, NULL, NULL},
    {"io.pinvault.Vault.NoSuchCredential", PINVAULT_E_NO_SUCH_CREDENTIAL, NULL, NULL},
    {"io.pinvault.Vault.AmbiguousCredential", PINVAULT_E_AMBIGUOUS_CREDENTIAL, NULL, NULL},
    {"io.pinvault.Vault.UnregistrationPending", PINVAULT_E_UNREGISTRATION_PENDING, NULL, NULL},
    {"io.pinvault.Vault.TooManyCredentials", PINVAULT_E_TOO_MANY_CREDENTIALS, "limit", NULL},
    {"io.pinvault.Vault.NotUnlocked", PINVAULT_E_NOT_UNLOCKED, NULL, NULL},
    {"io.pinvault.Vault.WrongPurpose", PINVAULT_E_WRONG_PURPOSE, NULL, "purpose"},
    {"io.pinvault.Vault.Busy", PINVAULT_E_BUSY, "retryAfterMilliseconds", NULL},
    {"io.pinvault.Vault.TooManySessions", PINVAULT_E_TOO_MANY_SESSIONS, "limit", NULL},
    {"io.pinvault.Vault.Conflict", PINVAULT_E_CONFLICT, NULL, NULL},
    {"io.pinvault.Vault.ShuttingDown", PINVAULT_E_SHUTTING_DOWN, NULL, NULL},
    {"io.pinvault.Vault.InternalError", PINVAULT_E_INTERNAL, NULL, NULL},
    {"org.varlink.service.InvalidParameter", PINVAULT_E_INVALID_PARAMETER, NULL, "parameter"},
    {"org.varlink.service.PermissionDenied", PINVAULT_E_PERMISSION_DENIED, NULL, NULL},
};

/*
 * The error of an envelope, with the parameter its kind must carry. An error this
 * reader does not know is PINVAULT_E_OTHER, its parameters only checked as JSON.
 */
static enum pv_reply_status read_error(struct envelope *envelope, struct pv_error *error)
{
    memset(error, 0, sizeof *error);
    memcpy(error->name, envelope->error, sizeof error->name);
    error->kind = PINVAULT_E_OTHER;
    const char *integer = NULL, *text = NULL;
    for (size_t i = 0; i < sizeof known_errors / sizeof known_errors[0]; i++) {
        if (strcmp(envelope->error, known_errors[i].name) == 0) {
            error->kind = known_errors[i].kind;
            integer = known_errors[i].integer;
            text = known_errors[i].text;
        }
    }
    if (integer == NULL && text == NULL)
        return PV_REPLY_ERROR;
    if (!envelope->has_parameters)
        return PV_REPLY_MALFORMED;
    struct pv_json *json = &envelope->parameters;
    bool first = true, more, found = false;
    char key[KEY_CAPACITY];
    size_t key_length;
    if (pv_json_enter(json, '{') != 0)
        return PV_REPLY_MALFORMED;
    for (;;) {
        if (pv_json_member(json, &first, &more, key, sizeof key, &key_length) != 0)
            return PV_REPLY_MALFORMED;
        if (!more)
            break;
        if (integer != NULL && key_is(key, integer)) {
            if (found || pv_json_int(json, 0, INT32_MAX, &error->value) != 0)
                return PV_REPLY_MALFORMED;
            found = true;
        } else if (text != NULL && key_is(key, text)) {
            /* A name too long or too strange to keep is dropped, not the error. */
            struct pv_json start = *json;
            size_t length;
            if (found)
                return PV_REPLY_MALFORMED;
            if (pv_json_string(json, error->detail, sizeof error->detail, &length) != 0) {
                *json = start;
                if (pv_json_string(json, NULL, 0, NULL) != 0)
                    return PV_REPLY_MALFORMED;
                error->detail[0] = '\0';
            } else if (!plain_name(error->detail, length)) {
                error->detail[0] = '\0';
            }
            found = true;
        } else if (pv_json_skip(json) != 0) {
            return PV_REPLY_MALFORMED;
        }
    }
    return found ? PV_REPLY_ERROR : PV_REPLY_MALFORMED;
}

/* Reads the envelope; PV_REPLY_OK leaves `parameters` at the start of the success's object. */
static enum pv_reply_status open_reply(const unsigned char *frame, size_t length,
                                       struct envelope *envelope, struct pv_error *error)
{
    if (read_envelope(frame, length, envelope) != 0)
        return PV_REPLY_MALFORMED;
    if (envelope->is_error)
        return read_error(envelope, error);
    if (!envelope->has_parameters || pv_json_enter(&envelope->parameters, '{') != 0)
        return PV_REPLY_MALFORMED;
    return PV_REPLY_OK;
}

enum {
    SEEN_USER = 1 << 0, SEEN_KEY_ID = 1 << 1, SEEN_LABEL = 1 << 2, SEEN_PUBLIC_KEY = 1 << 3,
    SEEN_OWNER = 1 << 4, SEEN_STATE = 1 << 5, SEEN_LOCKED_UNTIL = 1 << 6, SEEN_PURPOSE = 1 << 7,
    SEEN_FAILED = 1 << 8, SEEN_REMAINING = 1 << 9, SEEN_UNLOCKED_UNTIL = 1 << 10, SEEN_ALGORITHM = 1 << 11,
};

/* A name of the interface's enumerations and the value this library gives it. */
struct named {
    const char *name;
    int value;
};

static const struct named algorithms[] = {
    {"ed25519", PINVAULT_ALGORITHM_ED25519},
    {"p256", PINVAULT_ALGORITHM_P256},
};

static const struct named purposes[] = {
    {"authenticate", PINVAULT_PURPOSE_AUTHENTICATE},
    {"ssh", PINVAULT_PURPOSE_SSH},
    {"login", PINVAULT_PURPOSE_LOGIN},
    {"legacy", PINVAULT_PURPOSE_LEGACY},
    {"webauthn", PINVAULT_PURPOSE_WEBAUTHN},
};

static const struct named states[] = {
    {"active", PINVAULT_STATE_ACTIVE},
    {"throttled", PINVAULT_STATE_THROTTLED},
    {"blocked", PINVAULT_STATE_BLOCKED},
    {"pendingUnregistration", PINVAULT_STATE_PENDING_UNREGISTRATION},
};

/*
 * The value of `name` in `table`, or `unknown` (the OTHER of its enumeration): a
 * daemon of a later release may name an algorithm, purpose or state this one does
 * not know, and the caller decides what to do with it.
 */
static int value_named(const struct named *table, size_t count, const char *name, int unknown)
{
    for (size_t i = 0; i < count; i++)
        if (key_is(name, table[i].name))
            return table[i].value;
    return unknown;
}

#define NAMED(table, name, unknown) value_named(table, sizeof table / sizeof table[0], name, unknown)

bool pv_public_key_fits(pinvault_algorithm algorithm, const struct pinvault_public_key *public_key)
{
    switch (algorithm) {
    case PINVAULT_ALGORITHM_ED25519:
        return public_key->length == 32;
    case PINVAULT_ALGORITHM_P256:
        return public_key->length == 65 && public_key->bytes[0] == 0x04;
    case PINVAULT_ALGORITHM_OTHER:
        break;
    }
    return public_key->length >= 1 && public_key->length <= sizeof public_key->bytes;
}

/* A time that may be null: -1 for null, else Unix seconds. */
static int read_optional_time(struct pv_json *json, int64_t *seconds)
{
    char text[32];
    size_t length;
    *seconds = -1;
    if (pv_json_null(json))
        return 0;
    if (pv_json_string(json, text, sizeof text, &length) != 0)
        return -1;
    return pv_parse_time(text, seconds);
}

/* One Credential object. */
static int read_credential(struct pv_json *json, const char *user, uid_t owner, struct pinvault_credential *credential)
{
    bool first = true, more;
    char key[KEY_CAPACITY];
    size_t key_length, length;
    unsigned seen = 0;
    char text[PV_LABEL_MAX_BYTES + 1];
    memset(credential, 0, sizeof *credential);
    credential->locked_until = -1;
    credential->unlocked_until = -1;
    credential->purpose = PINVAULT_PURPOSE_LEGACY;
    credential->algorithm = PINVAULT_ALGORITHM_ED25519;
    if (pv_json_enter(json, '{') != 0)
        return -1;
    for (;;) {
        if (pv_json_member(json, &first, &more, key, sizeof key, &key_length) != 0)
            return -1;
        if (!more)
            break;
        int failed;
        if (key_is(key, "user")) {
            failed = once(&seen, SEEN_USER) ||
                     pv_json_string(json, credential->user, sizeof credential->user, &length) || length == 0 ||
                     (user != NULL && strcmp(credential->user, user) != 0);
        } else if (key_is(key, "keyId")) {
            failed = once(&seen, SEEN_KEY_ID) || read_key_id(json, credential->key_id);
        } else if (key_is(key, "label")) {
            failed = once(&seen, SEEN_LABEL);
            if (!failed && !pv_json_null(json)) {
                failed = pv_json_string(json, credential->label, sizeof credential->label, &length);
                credential->has_label = true;
            }
        } else if (key_is(key, "purpose")) {
            failed = once(&seen, SEEN_PURPOSE) || pv_json_string(json, text, sizeof text, &length);
            if (!failed)
                credential->purpose = (pinvault_purpose)NAMED(purposes, text, PINVAULT_PURPOSE_OTHER);
        } else if (key_is(key, "algorithm")) {
            failed = once(&seen, SEEN_ALGORITHM) || pv_json_string(json, text, sizeof text, &length);
            if (!failed)
                credential->algorithm = (pinvault_algorithm)NAMED(algorithms, text, PINVAULT_ALGORITHM_OTHER);
        } else if (key_is(key, "publicKey")) {
            failed = once(&seen, SEEN_PUBLIC_KEY) || read_public_key(json, &credential->public_key);
        } else if (key_is(key, "ownerUid")) {
            int64_t uid;
            failed = once(&seen, SEEN_OWNER) || pv_json_int(json, 0, UID_MAX, &uid) || (uid_t)uid != owner;
        } else if (key_is(key, "state")) {
            failed = once(&seen, SEEN_STATE) || pv_json_string(json, text, sizeof text, &length);
            if (!failed)
                credential->state = (pinvault_state)NAMED(states, text, PINVAULT_STATE_OTHER);
        } else if (key_is(key, "failedAttempts")) {
            failed = once(&seen, SEEN_FAILED) || pv_json_int(json, 0, INT32_MAX, &credential->failed_attempts);
        } else if (key_is(key, "remainingAttempts")) {
            failed = once(&seen, SEEN_REMAINING) || pv_json_int(json, 0, INT32_MAX, &credential->remaining_attempts);
        } else if (key_is(key, "lockedUntil")) {
            failed = once(&seen, SEEN_LOCKED_UNTIL) || read_optional_time(json, &credential->locked_until);
        } else if (key_is(key, "unlockedUntil")) {
            failed = once(&seen, SEEN_UNLOCKED_UNTIL) || read_optional_time(json, &credential->unlocked_until);
        } else {
            failed = pv_json_skip(json);
        }
        if (failed)
            return -1;
    }
    unsigned required = SEEN_USER | SEEN_KEY_ID | SEEN_PUBLIC_KEY | SEEN_OWNER | SEEN_STATE;
    if ((seen & required) != required)
        return -1;
    if (!pv_public_key_fits(credential->algorithm, &credential->public_key))
        return -1;
    return pv_key_id_matches(credential->key_id, &credential->public_key) ? 0 : -1;
}

enum pv_reply_status pv_reply_list(const unsigned char *frame, size_t length, const char *user, uid_t owner,
                                   pv_credential_visitor *visit, void *context, struct pv_error *error)
{
    struct envelope envelope;
    enum pv_reply_status status = open_reply(frame, length, &envelope, error);
    if (status != PV_REPLY_OK)
        return status;
    struct pv_json *json = &envelope.parameters;
    bool first = true, more, found = false;
    char key[KEY_CAPACITY];
    size_t key_length;
    for (;;) {
        if (pv_json_member(json, &first, &more, key, sizeof key, &key_length) != 0)
            return PV_REPLY_MALFORMED;
        if (!more)
            break;
        if (!key_is(key, "credentials")) {
            if (pv_json_skip(json) != 0)
                return PV_REPLY_MALFORMED;
            continue;
        }
        if (found || pv_json_enter(json, '[') != 0)
            return PV_REPLY_MALFORMED;
        found = true;
        bool first_element = true, more_elements;
        for (;;) {
            struct pinvault_credential credential;
            if (pv_json_element(json, &first_element, &more_elements) != 0)
                return PV_REPLY_MALFORMED;
            if (!more_elements)
                break;
            if (read_credential(json, user, owner, &credential) != 0)
                return PV_REPLY_MALFORMED;
            visit(context, &credential);
        }
    }
    return found ? PV_REPLY_OK : PV_REPLY_MALFORMED;
}

/* A bool member into an int. */
static int read_flag(struct pv_json *json, int *out)
{
    bool value;
    if (pv_json_bool(json, &value) != 0)
        return -1;
    *out = value;
    return 0;
}

enum pv_reply_status pv_reply_authenticate(const unsigned char *frame, size_t length,
                                           struct pinvault_proof *proof, struct pv_error *error)
{
    struct envelope envelope;
    memset(proof, 0, sizeof *proof);
    enum pv_reply_status status = open_reply(frame, length, &envelope, error);
    if (status != PV_REPLY_OK)
        return status;
    struct pv_json *json = &envelope.parameters;
    bool first = true, more;
    char key[KEY_CAPACITY];
    size_t key_length;
    unsigned seen = 0;
    for (;;) {
        if (pv_json_member(json, &first, &more, key, sizeof key, &key_length) != 0)
            return PV_REPLY_MALFORMED;
        if (!more)
            break;
        int failed;
        if (key_is(key, "keyId"))
            failed = once(&seen, 1) || read_key_id(json, proof->key_id);
        else if (key_is(key, "publicKey"))
            failed = once(&seen, 2) || read_public_key(json, &proof->public_key);
        else if (key_is(key, "signature"))
            failed = once(&seen, 4) || read_signature(json, &proof->signature);
        else if (key_is(key, "pinPolicyOutdated"))
            failed = once(&seen, 8) || read_flag(json, &proof->pin_policy_outdated);
        else if (key_is(key, "failedAttemptsCleared"))
            failed = once(&seen, 16) || pv_json_int(json, 0, INT32_MAX, &proof->failed_attempts_cleared);
        else
            failed = pv_json_skip(json);
        if (failed)
            return PV_REPLY_MALFORMED;
    }
    /* The key that signed is the one named: whatever its algorithm, its keyId is its hash. */
    return (seen & 7) == 7 && pv_key_id_matches(proof->key_id, &proof->public_key) ? PV_REPLY_OK : PV_REPLY_MALFORMED;
}

enum pv_reply_status pv_reply_unlock(const unsigned char *frame, size_t length,
                                     struct pinvault_unlock_result *result, struct pv_error *error)
{
    struct envelope envelope;
    memset(result, 0, sizeof *result);
    enum pv_reply_status status = open_reply(frame, length, &envelope, error);
    if (status != PV_REPLY_OK)
        return status;
    struct pv_json *json = &envelope.parameters;
    bool first = true, more;
    char key[KEY_CAPACITY];
    size_t key_length;
    unsigned seen = 0;
    for (;;) {
        if (pv_json_member(json, &first, &more, key, sizeof key, &key_length) != 0)
            return PV_REPLY_MALFORMED;
        if (!more)
            break;
        int failed;
        if (key_is(key, "keyId"))
            failed = once(&seen, 1) || read_key_id(json, result->key_id);
        else if (key_is(key, "unlockedUntil"))
            failed = once(&seen, 2) || read_optional_time(json, &result->unlocked_until) || result->unlocked_until < 0;
        else if (key_is(key, "failedAttemptsCleared"))
            failed = once(&seen, 4) || pv_json_int(json, 0, INT32_MAX, &result->failed_attempts_cleared);
        else
            failed = pv_json_skip(json);
        if (failed)
            return PV_REPLY_MALFORMED;
    }
    return (seen & 3) == 3 ? PV_REPLY_OK : PV_REPLY_MALFORMED;
}

enum pv_reply_status pv_reply_lock(const unsigned char *frame, size_t length, size_t *locked, struct pv_error *error)
{
    struct envelope envelope;
    *locked = 0;
    enum pv_reply_status status = open_reply(frame, length, &envelope, error);
    if (status != PV_REPLY_OK)
        return status;
    struct pv_json *json = &envelope.parameters;
    bool first = true, more, found = false;
    char key[KEY_CAPACITY];
    size_t key_length;
    for (;;) {
        if (pv_json_member(json, &first, &more, key, sizeof key, &key_length) != 0)
            return PV_REPLY_MALFORMED;
        if (!more)
            break;
        if (!key_is(key, "lockedKeyIds")) {
            if (pv_json_skip(json) != 0)
                return PV_REPLY_MALFORMED;
            continue;
        }
        if (found || pv_json_enter(json, '[') != 0)
            return PV_REPLY_MALFORMED;
        found = true;
        bool first_element = true, more_elements;
        for (;;) {
            char key_id[PV_KEY_ID_HEX + 1];
            if (pv_json_element(json, &first_element, &more_elements) != 0)
                return PV_REPLY_MALFORMED;
            if (!more_elements)
                break;
            if (read_key_id(json, key_id) != 0)
                return PV_REPLY_MALFORMED;
            (*locked)++;
        }
    }
    return found ? PV_REPLY_OK : PV_REPLY_MALFORMED;
}

enum pv_reply_status pv_reply_sign(const unsigned char *frame, size_t length,
                                   struct pinvault_signature *signature, struct pv_error *error)
{
    struct envelope envelope;
    memset(signature, 0, sizeof *signature);
    enum pv_reply_status status = open_reply(frame, length, &envelope, error);
    if (status != PV_REPLY_OK)
        return status;
    struct pv_json *json = &envelope.parameters;
    bool first = true, more, found = false;
    char key[KEY_CAPACITY];
    size_t key_length;
    for (;;) {
        if (pv_json_member(json, &first, &more, key, sizeof key, &key_length) != 0)
            return PV_REPLY_MALFORMED;
        if (!more)
            break;
        int failed;
        if (key_is(key, "signature")) {
            failed = found || read_signature(json, signature);
            found = true;
        } else {
            failed = pv_json_skip(json);
        }
        if (failed)
            return PV_REPLY_MALFORMED;
    }
    return found ? PV_REPLY_OK : PV_REPLY_MALFORMED;
}

/* The PinPolicy object of GetPolicy. */
static int read_policy(struct pv_json *json, struct pinvault_policy *policy)
{
    static const char *const integers[] = {"minLength", "maxLength", "maxIdenticalDigits", "denyListSize",
                                           "throttleAfter", "maxAttempts"};
    int64_t *const targets[] = {&policy->min_length, &policy->max_length, &policy->max_identical_digits,
                                &policy->deny_list_size, &policy->throttle_after, &policy->max_attempts};
    bool first = true, more;
    char key[KEY_CAPACITY], text[16] = "";
    size_t key_length, length;
    unsigned seen = 0;
    if (pv_json_enter(json, '{') != 0)
        return -1;
    for (;;) {
        if (pv_json_member(json, &first, &more, key, sizeof key, &key_length) != 0)
            return -1;
        if (!more)
            break;
        int failed = -2;
        for (unsigned i = 0; i < sizeof integers / sizeof integers[0]; i++)
            if (key_is(key, integers[i]))
                failed = once(&seen, 1u << i) || pv_json_int(json, 0, INT32_MAX, targets[i]);
        if (failed != -2) {
        } else if (key_is(key, "digitsOnly")) {
            failed = once(&seen, 1u << 6) || read_flag(json, &policy->digits_only);
        } else if (key_is(key, "allowSequences")) {
            failed = once(&seen, 1u << 7) || read_flag(json, &policy->allow_sequences);
        } else if (key_is(key, "onMaxAttempts")) {
            failed = once(&seen, 1u << 8) || pv_json_string(json, text, sizeof text, &length) ||
                     !(key_is(text, "block") || key_is(text, "wipe"));
            policy->wipe_on_max_attempts = key_is(text, "wipe");
        } else {
            failed = pv_json_skip(json);
        }
        if (failed)
            return -1;
    }
    return seen == (1u << 9) - 1 ? 0 : -1;
}

enum pv_reply_status pv_reply_policy(const unsigned char *frame, size_t length,
                                     struct pinvault_policy *policy, struct pv_error *error)
{
    struct envelope envelope;
    memset(policy, 0, sizeof *policy);
    enum pv_reply_status status = open_reply(frame, length, &envelope, error);
    if (status != PV_REPLY_OK)
        return status;
    struct pv_json *json = &envelope.parameters;
    bool first = true, more, found = false;
    char key[KEY_CAPACITY];
    size_t key_length;
    for (;;) {
        if (pv_json_member(json, &first, &more, key, sizeof key, &key_length) != 0)
            return PV_REPLY_MALFORMED;
        if (!more)
            break;
        int failed;
        if (key_is(key, "policy")) {
            failed = found || read_policy(json, policy);
            found = true;
        } else {
            failed = pv_json_skip(json);
        }
        if (failed)
            return PV_REPLY_MALFORMED;
    }
    return found ? PV_REPLY_OK : PV_REPLY_MALFORMED;
}
