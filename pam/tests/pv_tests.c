/*
 * Unit tests of the module's pure parts and of the libpinvault parsers it relies on:
 * the JSON reader, the replies of List and Authenticate, the choice of credential by purpose, the calls it builds, the
 * challenge, times, options and the locality of a transaction. Ends with a
 * deterministic mutation run over valid replies and hosts files (built with ASan
 * and UBSan by `make pam-test`): hostile bytes must be refused, never crash or
 * read out of bounds.
 *
 * Prints one line per failed check and "pam_pinvault unit tests: N passed, M failed".
 */
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pv_challenge.h"
#include "pv_choice.h"
#include "pv_json.h"
#include "pv_locality.h"
#include "pv_options.h"
#include "pv_reply.h"
#include "pv_request.h"

#include "tests/check.h" /* libpinvault/tests: the checks both C test programs count with */

/* A whole document skipped as one value: 0 when it is valid JSON. */
static int json_valid(const char *text)
{
    struct pv_json json;
    pv_json_init(&json, (const unsigned char *)text, strlen(text));
    return pv_json_skip(&json) == 0 && pv_json_finish(&json) == 0;
}

static void test_json(void)
{
    const char *valid[] = {
        "{}", "[]", "0", "-0", "1.5e3", "-12.0E-2", "\"\"", "true", "false", "null",
        " { \"a\" : [1, 2, {\"b\": null}] , \"c\": \"\\u00e9\\ud83d\\ude00\\n\" } ",
        "\"caf\xc3\xa9 \xf0\x9f\x98\x80\"", "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
    };
    const char *invalid[] = {
        "", "{", "}", "[1,]", "{\"a\":1,}", "[,1]", "{\"a\" 1}", "{1:2}", "01", "1.", ".5", "1e", "+1", "-",
        "\"abc", "\"\\x\"", "\"\\u12\"", "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"", "\"\\u0000\"",
        "\"a\x01\"", "\"\xc0\x80\"", "\"\xed\xa0\x80\"", "\"\xf5\x80\x80\x80\"", "\"\xe2\x82\"", "\"\x80\"",
        "tru", "nul", "True", "{} {}", "[] x", "[1 2]",
        "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
        "12345678901234567890123456789012345678901234567890123456789012345",
    };
    for (size_t i = 0; i < sizeof valid / sizeof *valid; i++)
        if (!json_valid(valid[i])) {
            failed++;
            printf("FAILED: valid JSON refused: %s\n", valid[i]);
        } else {
            passed++;
        }
    for (size_t i = 0; i < sizeof invalid / sizeof *invalid; i++)
        if (json_valid(invalid[i])) {
            failed++;
            printf("FAILED: invalid JSON accepted: %s\n", invalid[i]);
        } else {
            passed++;
        }

    /* Strings unescape exactly, and refuse to overflow their buffer. */
    struct pv_json json;
    char out[8];
    size_t length;
    const char *text = "\"a\\\"\\\\\\u00e9\"";
    pv_json_init(&json, (const unsigned char *)text, strlen(text));
    CHECK(pv_json_string(&json, out, sizeof out, &length) == 0 && length == 5 && memcmp(out, "a\"\\\xc3\xa9", 6) == 0);
    text = "\"12345678\"";
    pv_json_init(&json, (const unsigned char *)text, strlen(text));
    CHECK(pv_json_string(&json, out, sizeof out, &length) != 0);

    /* Integers: bounds and int64 overflow. */
    int64_t value;
    const char *numbers[] = {"9223372036854775807", "-9223372036854775808", "9223372036854775808", "1.0", "1e2"};
    int expected[] = {0, 0, -1, -1, -1};
    for (int i = 0; i < 5; i++) {
        pv_json_init(&json, (const unsigned char *)numbers[i], strlen(numbers[i]));
        CHECK(pv_json_int(&json, INT64_MIN, INT64_MAX, &value) == expected[i]);
    }
    pv_json_init(&json, (const unsigned char *)"5", 1);
    CHECK(pv_json_int(&json, 0, 4, &value) != 0);

    /* The reader never looks past the length it was given, NUL or not. */
    const char cut[] = "{\"a\":1}";
    pv_json_init(&json, (const unsigned char *)cut, 6);
    CHECK(pv_json_skip(&json) != 0);
}

/*
 * A credential object for `public_key`, with its real keyId unless `key_id` is
 * given, and no "purpose" when `purpose` is NULL (a daemon before the third release).
 */
static void credential_json(char *out, size_t size, const char *user, unsigned owner, const char *label,
                            const unsigned char public_key[32], const char *key_id, const char *state,
                            const char *purpose)
{
    unsigned char hash[32];
    char hex[65], b64[64], label_json[300], purpose_json[64] = "";
    crypto_generichash(hash, sizeof hash, public_key, 32, NULL, 0);
    sodium_bin2hex(hex, sizeof hex, hash, 16);
    sodium_bin2base64(b64, sizeof b64, public_key, 32, sodium_base64_VARIANT_ORIGINAL);
    if (label != NULL)
        snprintf(label_json, sizeof label_json, "\"%s\"", label);
    else
        snprintf(label_json, sizeof label_json, "null");
    if (purpose != NULL)
        snprintf(purpose_json, sizeof purpose_json, "\"purpose\":\"%s\",", purpose);
    snprintf(out, size,
             "{\"user\":\"%s\",\"keyId\":\"%s\",\"label\":%s,%s\"publicKey\":\"%s\",\"ownerUid\":%u,"
             "\"createdAt\":\"2026-01-31T12:00:00Z\",\"lastUsedAt\":null,\"failedAttempts\":0,"
             "\"remainingAttempts\":10,\"state\":\"%s\",\"lockedUntil\":null,\"unregistrationExpiresAt\":null}",
             user, key_id != NULL ? key_id : hex, label_json, purpose_json, b64, owner, state);
}

/* What a List reply listed, as the module's choice saw it (label= as given, or NULL). */
struct listed {
    unsigned count;
    struct pinvault_credential last;
    struct pv_choice choice;
};

static void collect(void *context, const pinvault_credential *credential)
{
    struct listed *listed = context;
    listed->count++;
    listed->last = *credential;
    pv_choice_consider(&listed->choice, credential);
}

static enum pv_reply_status list_with_label(const char *frame, const char *label, struct listed *listed,
                                            struct pv_error *error)
{
    memset(listed, 0, sizeof *listed);
    pv_choice_init(&listed->choice, label);
    return pv_reply_list((const unsigned char *)frame, strlen(frame), "alice", 1000, collect, listed, error);
}

static enum pv_reply_status list(const char *frame, struct listed *listed, struct pv_error *error)
{
    return list_with_label(frame, NULL, listed, error);
}

/* The credential the choice made, or NULL; `*fitting` as pv_choice_result says. */
static const struct pv_login_credential *chosen(const struct listed *listed, unsigned *fitting)
{
    return pv_choice_result(&listed->choice, fitting);
}

static void test_list(void)
{
    unsigned char key1[32], key2[32];
    char c1[1024], c2[1024], frame[4096];
    struct listed result;
    struct pv_error error;
    unsigned fitting;
    memset(key1, 1, 32);
    memset(key2, 2, 32);
    credential_json(c1, sizeof c1, "alice", 1000, "laptop", key1, NULL, "active", "authenticate");
    credential_json(c2, sizeof c2, "alice", 1000, "login", key2, NULL, "throttled", "login");
    snprintf(frame, sizeof frame, "{\"parameters\":{\"credentials\":[%s,%s]}}", c1, c2);
    CHECK(list(frame, &result, &error) == PV_REPLY_OK && result.count == 2 &&
          result.last.public_key.length == 32 && memcmp(result.last.public_key.bytes, key2, 32) == 0 && result.last.state == PINVAULT_STATE_THROTTLED &&
          result.last.locked_until == -1 && result.last.purpose == PINVAULT_PURPOSE_LOGIN && result.last.has_label &&
          strcmp(result.last.label, "login") == 0);
    CHECK(chosen(&result, &fitting) != NULL && fitting == 1 && memcmp(chosen(&result, &fitting)->public_key.bytes, key2, 32) == 0);

    snprintf(frame, sizeof frame, "{\"parameters\":{\"credentials\":[]}}");
    CHECK(list(frame, &result, &error) == PV_REPLY_OK && result.count == 0 && chosen(&result, &fitting) == NULL);
    snprintf(frame, sizeof frame, "{\"parameters\":{\"credentials\":[%s,%s]}}", c2, c2);
    CHECK(list(frame, &result, &error) == PV_REPLY_OK && chosen(&result, &fitting) != NULL && fitting == 2);

    /* A keyId that is not the hash of the public key, another user or uid: not ours. */
    credential_json(c2, sizeof c2, "alice", 1000, "login", key2, "00112233445566778899aabbccddeeff", "active", "login");
    snprintf(frame, sizeof frame, "{\"parameters\":{\"credentials\":[%s]}}", c2);
    CHECK(list(frame, &result, &error) == PV_REPLY_MALFORMED);
    credential_json(c2, sizeof c2, "bob", 1000, "login", key2, NULL, "active", "login");
    snprintf(frame, sizeof frame, "{\"parameters\":{\"credentials\":[%s]}}", c2);
    CHECK(list(frame, &result, &error) == PV_REPLY_MALFORMED);
    credential_json(c2, sizeof c2, "alice", 1001, "login", key2, NULL, "active", "login");
    snprintf(frame, sizeof frame, "{\"parameters\":{\"credentials\":[%s]}}", c2);
    CHECK(list(frame, &result, &error) == PV_REPLY_MALFORMED);

    /* A label of null is no label; an unknown state is left to the daemon. */
    credential_json(c2, sizeof c2, "alice", 1000, NULL, key2, NULL, "active", "login");
    snprintf(frame, sizeof frame, "{\"parameters\":{\"credentials\":[%s]}}", c2);
    CHECK(list(frame, &result, &error) == PV_REPLY_OK && result.count == 1 && !result.last.has_label);
    credential_json(c2, sizeof c2, "alice", 1000, "login", key2, NULL, "someFutureState", "login");
    snprintf(frame, sizeof frame, "{\"parameters\":{\"credentials\":[%s]}}", c2);
    CHECK(list(frame, &result, &error) == PV_REPLY_OK && result.last.state == PINVAULT_STATE_OTHER);

    /* lockedUntil is read when present. */
    credential_json(c2, sizeof c2, "alice", 1000, "login", key2, NULL, "throttled", "login");
    char *locked = strstr(c2, "\"lockedUntil\":null");
    CHECK(locked != NULL);
    if (locked != NULL) {
        char patched[1100];
        snprintf(patched, sizeof patched, "%.*s\"lockedUntil\":\"1970-01-01T00:01:40Z\"%s",
                 (int)(locked - c2), c2, locked + strlen("\"lockedUntil\":null"));
        snprintf(frame, sizeof frame, "{\"parameters\":{\"credentials\":[%s]}}", patched);
        CHECK(list(frame, &result, &error) == PV_REPLY_OK && result.last.locked_until == 100);
    }

    /* Envelopes: duplicate keys, "continues", missing parameters, extra top-level fields. */
    CHECK(list("{\"parameters\":{\"credentials\":[]},\"parameters\":{\"credentials\":[]}}", &result, &error) == PV_REPLY_MALFORMED);
    CHECK(list("{\"parameters\":{\"credentials\":[],\"credentials\":[]}}", &result, &error) == PV_REPLY_MALFORMED);
    CHECK(list("{\"parameters\":{\"credentials\":[]},\"continues\":true}", &result, &error) == PV_REPLY_MALFORMED);
    CHECK(list("{\"parameters\":{\"credentials\":[]},\"continues\":false,\"x\":[1]}", &result, &error) == PV_REPLY_OK);
    CHECK(list("{\"parameters\":{}}", &result, &error) == PV_REPLY_MALFORMED);
    CHECK(list("{}", &result, &error) == PV_REPLY_MALFORMED);
    CHECK(list("{\"parameters\":{\"credentials\":[1]}}", &result, &error) == PV_REPLY_MALFORMED);
    CHECK(list("[]", &result, &error) == PV_REPLY_MALFORMED);
}

/* One credential of `purpose` (NULL: none sent) labelled `label`, made from key byte `k`. */
static void purposed(char *out, size_t size, unsigned char k, const char *label, const char *purpose)
{
    unsigned char key[32];
    memset(key, k, sizeof key);
    credential_json(out, size, "alice", 1000, label, key, NULL, "active", purpose);
}

/* The key byte of the credential a List of `credentials` (a JSON array's inside) leads to, under `label`; 0: none, -1: several. */
static int choose(const char *credentials, const char *label)
{
    char frame[8192];
    struct listed result;
    struct pv_error error;
    unsigned fitting;
    snprintf(frame, sizeof frame, "{\"parameters\":{\"credentials\":[%s]}}", credentials);
    if (list_with_label(frame, label, &result, &error) != PV_REPLY_OK)
        return -2;
    const struct pv_login_credential *credential = chosen(&result, &fitting);
    if (credential == NULL)
        return 0;
    return fitting > 1 ? -1 : credential->public_key.bytes[0];
}

static void test_purposes(void)
{
    char a[1024], b[1024], c[1024], both[3200];
    struct listed result;
    struct pv_error error;

    /* Each purpose is read; none (an older daemon) reads as legacy; an unknown one as other. */
    const struct { const char *name; pinvault_purpose purpose; } names[] = {
        {"authenticate", PINVAULT_PURPOSE_AUTHENTICATE}, {"ssh", PINVAULT_PURPOSE_SSH}, {"login", PINVAULT_PURPOSE_LOGIN},
        {"legacy", PINVAULT_PURPOSE_LEGACY}, {NULL, PINVAULT_PURPOSE_LEGACY}, {"fido", PINVAULT_PURPOSE_OTHER}, {"Login", PINVAULT_PURPOSE_OTHER},
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char frame[1200];
        purposed(a, sizeof a, 1, "x", names[i].name);
        snprintf(frame, sizeof frame, "{\"parameters\":{\"credentials\":[%s]}}", a);
        CHECK(list(frame, &result, &error) == PV_REPLY_OK && result.last.purpose == names[i].purpose);
    }
    /* A purpose that is not a string, or given twice: malformed. */
    purposed(a, sizeof a, 1, "x", "login");
    char *at = strstr(a, "\"purpose\":\"login\"");
    CHECK(at != NULL);
    if (at != NULL) {
        char frame[1400], patched[1200];
        snprintf(patched, sizeof patched, "%.*s\"purpose\":null%s", (int)(at - a), a, at + strlen("\"purpose\":\"login\""));
        snprintf(frame, sizeof frame, "{\"parameters\":{\"credentials\":[%s]}}", patched);
        CHECK(list(frame, &result, &error) == PV_REPLY_MALFORMED);
        snprintf(patched, sizeof patched, "%.*s\"purpose\":\"login\",%s", (int)(at - a), a, at);
        snprintf(frame, sizeof frame, "{\"parameters\":{\"credentials\":[%s]}}", patched);
        CHECK(list(frame, &result, &error) == PV_REPLY_MALFORMED);
    }

    /* The login credential, whatever its label, unless label= names one. */
    purposed(a, sizeof a, 1, "laptop", "login");
    CHECK(choose(a, NULL) == 1);
    CHECK(choose(a, "laptop") == 1);
    CHECK(choose(a, "login") == 0);
    purposed(a, sizeof a, 1, NULL, "login");
    CHECK(choose(a, NULL) == 1);
    CHECK(choose(a, "login") == 0);

    /* A login credential of an algorithm libpinvault cannot verify is never chosen: its PIN would be spent for nothing. */
    purposed(a, sizeof a, 1, "laptop", "login");
    at = strstr(a, "\"purpose\"");
    if (at != NULL) {
        char patched[1200];
        snprintf(patched, sizeof patched, "%.*s\"algorithm\":\"mldsa44\",%s", (int)(at - a), a, at);
        CHECK(choose(patched, NULL) == 0);
        snprintf(patched, sizeof patched, "%.*s\"algorithm\":\"ed25519\",%s", (int)(at - a), a, at);
        CHECK(choose(patched, NULL) == 1);
    }

    /* Never an authenticate or ssh credential, nor one of an unknown purpose, whatever its label. */
    for (const char *const *purpose = (const char *const[]){"authenticate", "ssh", "fido", NULL}; *purpose; purpose++) {
        purposed(a, sizeof a, 1, "login", *purpose);
        CHECK(choose(a, NULL) == 0);
        CHECK(choose(a, "login") == 0);
    }

    /* A legacy credential (or one an older daemon lists without purpose) labelled login, or as label= says. */
    for (const char *const *purpose = (const char *const[]){"legacy", NULL}; ; purpose++) {
        purposed(a, sizeof a, 2, "login", *purpose);
        CHECK(choose(a, NULL) == 2);
        CHECK(choose(a, "login") == 2);
        CHECK(choose(a, "work") == 0);
        purposed(a, sizeof a, 2, "work", *purpose);
        CHECK(choose(a, NULL) == 0);
        CHECK(choose(a, "work") == 2);
        purposed(a, sizeof a, 2, NULL, *purpose);
        CHECK(choose(a, NULL) == 0);
        if (*purpose == NULL)
            break;
    }

    /* A login credential goes before a legacy one (the user moved to a purpose-bound key). */
    purposed(a, sizeof a, 1, "login", "legacy");
    purposed(b, sizeof b, 2, "laptop", "login");
    purposed(c, sizeof c, 3, "login", "authenticate");
    snprintf(both, sizeof both, "%s,%s,%s", a, b, c);
    CHECK(choose(both, NULL) == 2);
    snprintf(both, sizeof both, "%s,%s,%s", c, b, a);
    CHECK(choose(both, NULL) == 2);
    /* ... unless label= rules the login one out. */
    snprintf(both, sizeof both, "%s,%s,%s", a, b, c);
    CHECK(choose(both, "login") == 1);

    /* Two login credentials: label= must tell them apart. */
    purposed(a, sizeof a, 1, "laptop", "login");
    purposed(b, sizeof b, 2, "desk", "login");
    snprintf(both, sizeof both, "%s,%s", a, b);
    CHECK(choose(both, NULL) == -1);
    CHECK(choose(both, "desk") == 2);
    CHECK(choose(both, "laptop") == 1);
    /* Two legacy ones with the label: ambiguous, as before. */
    purposed(a, sizeof a, 1, "login", "legacy");
    purposed(b, sizeof b, 2, "login", NULL);
    snprintf(both, sizeof both, "%s,%s", a, b);
    CHECK(choose(both, NULL) == -1);
}

static void test_errors(void)
{
    struct listed result;
    struct pv_error error;
    /* The parameters may come before the error's name. */
    CHECK(list("{\"parameters\":{\"remainingAttempts\":4},\"error\":\"io.pinvault.Vault.WrongPin\"}", &result, &error) ==
              PV_REPLY_ERROR && error.kind == PINVAULT_E_WRONG_PIN && error.value == 4);
    CHECK(list("{\"error\":\"io.pinvault.Vault.LockedOut\",\"parameters\":{\"retryAfterSeconds\":30}}", &result, &error) ==
              PV_REPLY_ERROR && error.kind == PINVAULT_E_LOCKED_OUT && error.value == 30);
    CHECK(list("{\"error\":\"io.pinvault.Vault.WrongPin\",\"parameters\":{}}", &result, &error) == PV_REPLY_MALFORMED);
    CHECK(list("{\"error\":\"io.pinvault.Vault.WrongPin\"}", &result, &error) == PV_REPLY_MALFORMED);
    CHECK(list("{\"error\":\"io.pinvault.Vault.WrongPin\",\"parameters\":{\"remainingAttempts\":-1}}", &result, &error) ==
          PV_REPLY_MALFORMED);
    CHECK(list("{\"error\":\"io.pinvault.Vault.CredentialBlocked\",\"parameters\":{}}", &result, &error) ==
              PV_REPLY_ERROR && error.kind == PINVAULT_E_CREDENTIAL_BLOCKED);
    CHECK(list("{\"error\":\"io.pinvault.Vault.CredentialWiped\"}", &result, &error) == PV_REPLY_ERROR &&
          error.kind == PINVAULT_E_CREDENTIAL_WIPED);
    CHECK(list("{\"error\":\"io.pinvault.Vault.Busy\",\"parameters\":{\"retryAfterMilliseconds\":5}}", &result, &error) ==
              PV_REPLY_ERROR && error.kind == PINVAULT_E_BUSY);
    CHECK(list("{\"error\":\"org.varlink.service.PermissionDenied\"}", &result, &error) == PV_REPLY_ERROR &&
          error.kind == PINVAULT_E_PERMISSION_DENIED);
    CHECK(list("{\"error\":\"com.example.Other\"}", &result, &error) == PV_REPLY_ERROR && error.kind == PINVAULT_E_OTHER &&
          strcmp(error.name, "com.example.Other") == 0);
    /* An error name that could forge a log line is refused. */
    CHECK(list("{\"error\":\"io.pinvault.Vault.WrongPin\\nuser=root\"}", &result, &error) == PV_REPLY_MALFORMED);
    CHECK(list("{\"error\":\"\"}", &result, &error) == PV_REPLY_MALFORMED);
    CHECK(list("{\"error\":1}", &result, &error) == PV_REPLY_MALFORMED);
}

static void test_authenticate(void)
{
    unsigned char public_key[32], secret_key[64], signature[64];
    char frame[1024], hex[65], pk[64], sig[128];
    unsigned char hash[32];
    struct pinvault_proof proof;
    struct pv_error error;
    crypto_sign_keypair(public_key, secret_key);
    crypto_sign_detached(signature, NULL, (const unsigned char *)"x", 1, secret_key);
    crypto_generichash(hash, sizeof hash, public_key, 32, NULL, 0);
    sodium_bin2hex(hex, sizeof hex, hash, 16);
    sodium_bin2base64(pk, sizeof pk, public_key, 32, sodium_base64_VARIANT_ORIGINAL);
    sodium_bin2base64(sig, sizeof sig, signature, 64, sodium_base64_VARIANT_ORIGINAL);

    snprintf(frame, sizeof frame,
             "{\"parameters\":{\"keyId\":\"%s\",\"publicKey\":\"%s\",\"signature\":\"%s\",\"pinPolicyOutdated\":false}}",
             hex, pk, sig);
    CHECK(pv_reply_authenticate((unsigned char *)frame, strlen(frame), &proof, &error) == PV_REPLY_OK &&
          proof.failed_attempts_cleared == 0 && !proof.pin_policy_outdated && proof.signature.length == 64 &&
          memcmp(proof.signature.bytes, signature, 64) == 0 && strcmp(proof.key_id, hex) == 0 &&
          pinvault_verify(PINVAULT_ALGORITHM_ED25519, &proof.public_key, "x", 1, &proof.signature) == PINVAULT_OK);
    snprintf(frame, sizeof frame,
             "{\"parameters\":{\"keyId\":\"%s\",\"publicKey\":\"%s\",\"signature\":\"%s\",\"pinPolicyOutdated\":true,"
             "\"failedAttemptsCleared\":3}}",
             hex, pk, sig);
    CHECK(pv_reply_authenticate((unsigned char *)frame, strlen(frame), &proof, &error) == PV_REPLY_OK &&
          proof.failed_attempts_cleared == 3 && proof.pin_policy_outdated);
    /* No signature, unpadded base64, an upper-case keyId, a keyId of another key: malformed. */
    snprintf(frame, sizeof frame, "{\"parameters\":{\"keyId\":\"%s\",\"publicKey\":\"%s\"}}", hex, pk);
    CHECK(pv_reply_authenticate((unsigned char *)frame, strlen(frame), &proof, &error) == PV_REPLY_MALFORMED);
    snprintf(frame, sizeof frame, "{\"parameters\":{\"keyId\":\"%s\",\"publicKey\":\"%s\",\"signature\":\"%s\"}}",
             "00000000000000000000000000000000", pk, sig);
    CHECK(pv_reply_authenticate((unsigned char *)frame, strlen(frame), &proof, &error) == PV_REPLY_MALFORMED);
    /* A signature of another size reads (its size is the algorithm's), and does not verify. */
    snprintf(frame, sizeof frame, "{\"parameters\":{\"keyId\":\"%s\",\"publicKey\":\"%s\",\"signature\":\"%s\"}}", hex, pk, pk);
    CHECK(pv_reply_authenticate((unsigned char *)frame, strlen(frame), &proof, &error) == PV_REPLY_OK &&
          proof.signature.length == 32 &&
          pinvault_verify(PINVAULT_ALGORITHM_ED25519, &proof.public_key, "x", 1, &proof.signature) == PINVAULT_E_SIGNATURE);
    char unpadded[64];
    snprintf(unpadded, sizeof unpadded, "%.43s", pk);
    snprintf(frame, sizeof frame, "{\"parameters\":{\"keyId\":\"%s\",\"publicKey\":\"%s\",\"signature\":\"%s\"}}", hex, unpadded, sig);
    CHECK(pv_reply_authenticate((unsigned char *)frame, strlen(frame), &proof, &error) == PV_REPLY_MALFORMED);
    char upper[65];
    snprintf(upper, sizeof upper, "%s", hex);
    for (char *p = upper; *p; p++)
        if (*p >= 'a' && *p <= 'f')
            *p = (char)(*p - 'a' + 'A');
    snprintf(frame, sizeof frame, "{\"parameters\":{\"keyId\":\"%s\",\"publicKey\":\"%s\",\"signature\":\"%s\"}}", upper, pk, sig);
    CHECK(strcmp(upper, hex) == 0 || pv_reply_authenticate((unsigned char *)frame, strlen(frame), &proof, &error) == PV_REPLY_MALFORMED);
    snprintf(frame, sizeof frame,
             "{\"parameters\":{\"keyId\":\"%s\",\"publicKey\":\"%s\",\"signature\":\"%s\",\"failedAttemptsCleared\":-2}}",
             hex, pk, sig);
    CHECK(pv_reply_authenticate((unsigned char *)frame, strlen(frame), &proof, &error) == PV_REPLY_MALFORMED);
    struct pinvault_public_key key = {.length = 32};
    memcpy(key.bytes, public_key, 32);
    CHECK(pv_key_id_matches(hex, &key) && !pv_key_id_matches("00000000000000000000000000000000", &key));
}

static void test_requests(void)
{
    /* The PIN is escaped so that the daemon unescapes exactly the bytes typed. */
    const unsigned char pin[] = {'1', '"', '\\', 0x01, 0x1f, 'z', 0x7f, 0xc3, 0xa9};
    unsigned char challenge[PV_CHALLENGE_MAX_BYTES], nonce[PV_NONCE_BYTES];
    memset(nonce, 0xab, sizeof nonce);
    size_t challenge_length = pv_challenge(challenge, "sudo", "alice", nonce);
    const char expected[] = "pam_pinvault v1\0sudo\0alice\0";
    CHECK(challenge_length == sizeof expected - 1 + 32 && memcmp(challenge, expected, sizeof expected - 1) == 0 &&
          memcmp(challenge + sizeof expected - 1, nonce, 32) == 0);

    size_t capacity = pv_request_pin_call_size("al\"ice", pv_json_escaped_length(pin, sizeof pin), challenge_length);
    char *frame = malloc(capacity);
    struct pv_buffer buffer = {.data = frame, .capacity = capacity};
    CHECK(frame != NULL && pv_request_authenticate(&buffer, "al\"ice", "0123456789abcdef0123456789abcdef", pin, sizeof pin,
                                                   challenge, challenge_length, true, 1000) == 0);
    CHECK(buffer.length > 0 && frame[buffer.length - 1] == '\0' && strlen(frame) == buffer.length - 1);
    /* Read it back with the reader: user, pin and ownerUid as given. */
    struct pv_json json;
    bool first = true, more, inner_first = true, inner_more;
    char key[32];
    size_t key_length, length;
    char value[64];
    int found = 0;
    pv_json_init(&json, (unsigned char *)frame, buffer.length - 1);
    CHECK(pv_json_enter(&json, '{') == 0);
    while (pv_json_member(&json, &first, &more, key, sizeof key, &key_length) == 0 && more) {
        if (strcmp(key, "parameters") != 0) {
            CHECK(pv_json_skip(&json) == 0);
            continue;
        }
        CHECK(pv_json_enter(&json, '{') == 0);
        while (pv_json_member(&json, &inner_first, &inner_more, key, sizeof key, &key_length) == 0 && inner_more) {
            if (strcmp(key, "pin") == 0) {
                CHECK(pv_json_string(&json, value, sizeof value, &length) == 0 && length == sizeof pin &&
                      memcmp(value, pin, sizeof pin) == 0);
                found |= 1;
            } else if (strcmp(key, "user") == 0) {
                CHECK(pv_json_string(&json, value, sizeof value, &length) == 0 && strcmp(value, "al\"ice") == 0);
                found |= 2;
            } else if (strcmp(key, "ownerUid") == 0) {
                int64_t uid;
                CHECK(pv_json_int(&json, 0, UINT32_MAX, &uid) == 0 && uid == 1000);
                found |= 4;
            } else {
                CHECK(pv_json_skip(&json) == 0);
            }
        }
    }
    CHECK(found == 7 && pv_json_finish(&json) == 0);
    /* Too small a buffer is refused, not overrun. */
    buffer = (struct pv_buffer){.data = frame, .capacity = 40};
    CHECK(pv_request_authenticate(&buffer, "alice", "0123456789abcdef0123456789abcdef", pin, sizeof pin, challenge,
                                  challenge_length, false, 0) != 0 && buffer.length <= 40);
    free(frame);

    char list_frame[128];
    buffer = (struct pv_buffer){.data = list_frame, .capacity = sizeof list_frame};
    CHECK(pv_request_list(&buffer, "alice", NULL, false, 0) == 0 &&
          strcmp(list_frame, "{\"method\":\"io.pinvault.Vault.List\",\"parameters\":{\"user\":\"alice\"}}") == 0);
    buffer = (struct pv_buffer){.data = list_frame, .capacity = sizeof list_frame};
    CHECK(pv_request_list(&buffer, "alice", NULL, true, 4294967294u) == 0 &&
          strcmp(list_frame, "{\"method\":\"io.pinvault.Vault.List\",\"parameters\":{\"user\":\"alice\",\"ownerUid\":4294967294}}") == 0);

    char long_service[300];
    memset(long_service, 's', sizeof long_service - 1);
    long_service[sizeof long_service - 1] = '\0';
    CHECK(pv_challenge(challenge, long_service, "alice", nonce) == 0);
}

static void test_time(void)
{
    int64_t t;
    CHECK(pv_parse_time("1970-01-01T00:00:00Z", &t) == 0 && t == 0);
    CHECK(pv_parse_time("2026-01-31T12:00:00Z", &t) == 0 && t == 1769860800);
    CHECK(pv_parse_time("2024-02-29T23:59:59Z", &t) == 0 && t == 1709251199);
    CHECK(pv_parse_time("2023-02-29T00:00:00Z", &t) != 0);
    CHECK(pv_parse_time("2026-01-31T24:00:00Z", &t) != 0);
    CHECK(pv_parse_time("2026-01-31T12:00:60Z", &t) != 0);
    CHECK(pv_parse_time("2026-01-31 12:00:00Z", &t) != 0);
    CHECK(pv_parse_time("2026-01-31T12:00:00+00:00", &t) != 0);
    CHECK(pv_parse_time("2026-13-01T00:00:00Z", &t) != 0);
}

static void test_options(void)
{
    struct pv_options o;
    const char *bad = NULL;
    CHECK(pv_options_parse(&o, 0, NULL, &bad) == 0 && strcmp(o.socket_path, PV_DEFAULT_SOCKET) == 0 &&
          o.label == NULL && strcmp(o.server_user, "pinvault") == 0 && o.timeout_seconds == 10 &&
          !o.nouserok && !o.debug && !o.try_first_pass && !o.use_first_pass && !o.allow_remote);
    const char *all[] = {"socket=/run/x.sock", "label=sudo pin", "nouserok", "try_first_pass", "use_first_pass",
                         "debug", "server_user=nobody", "timeout=3", "allow_remote"};
    CHECK(pv_options_parse(&o, 9, all, &bad) == 0 && strcmp(o.socket_path, "/run/x.sock") == 0 &&
          strcmp(o.label, "sudo pin") == 0 && o.nouserok && o.try_first_pass && o.use_first_pass && o.debug &&
          strcmp(o.server_user, "nobody") == 0 && o.timeout_seconds == 3 && o.allow_remote);
    const char *bads[] = {"nouserok=1", "socket=relative", "socket=", "label=", "timeout=0", "timeout=121",
                          "timeout=1x", "server_user=a/b", "server_user=", "frobnicate", "label=a\tb",
                          "allow_remote=yes", "allow-remote"};
    for (size_t i = 0; i < sizeof bads / sizeof *bads; i++) {
        const char *one[] = {bads[i]};
        bad = NULL;
        if (pv_options_parse(&o, 1, one, &bad) == 0 || bad != bads[i]) {
            failed++;
            printf("FAILED: option accepted: %s\n", bads[i]);
        } else {
            passed++;
        }
    }
    char long_socket[200];
    memset(long_socket, 'a', sizeof long_socket - 1);
    long_socket[sizeof long_socket - 1] = '\0';
    memcpy(long_socket, "socket=/", 8);
    const char *too_long[] = {long_socket};
    CHECK(pv_options_parse(&o, 1, too_long, &bad) != 0);
}

/* xorshift64*: the same mutations on every run. */
static uint64_t state = 0x9E3779B97F4A7C15ull;
static uint64_t next_random(void)
{
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return state * 0x2545F4914F6CDD1Dull;
}

/* `seed` (its first `seed_length` bytes) with 1-4 random edits, in `copy` (room for 16 more); its new length. */
static size_t mutate(unsigned char *copy, const char *seed, size_t seed_length, const char *tokens, size_t token_count)
{
    size_t length = seed_length;
    memcpy(copy, seed, seed_length);
    int edits = 1 + (int)(next_random() % 4);
    for (int e = 0; e < edits && length > 0; e++) {
        size_t at = (size_t)(next_random() % length);
        switch (next_random() % 4) {
        case 0: copy[at] = (unsigned char)tokens[next_random() % token_count]; break;
        case 1: copy[at] = (unsigned char)next_random(); break;
        case 2: length = at; break; /* truncate */
        case 3:
            if (length < seed_length + 16) {
                memmove(copy + at + 1, copy + at, length - at);
                copy[at] = (unsigned char)tokens[next_random() % token_count];
                length++;
            }
            break;
        }
    }
    return length;
}

/* A copy of `bytes` in a buffer of exactly `length` bytes (ASan sees any overread). */
static unsigned char *exact_copy(const unsigned char *bytes, size_t length)
{
    unsigned char *exact = malloc(length > 0 ? length : 1);
    if (exact == NULL)
        abort();
    memcpy(exact, bytes, length);
    return exact;
}

/* Hostile replies: mutated copies of valid ones. */
static void test_mutations(void)
{
    unsigned char key[32];
    char credential[1024], legacy[1024], seeds[3][4096];
    memset(key, 7, sizeof key);
    credential_json(credential, sizeof credential, "alice", 1000, "login", key, NULL, "throttled", "login");
    credential_json(legacy, sizeof legacy, "alice", 1000, "login", key, NULL, "active", NULL);
    snprintf(seeds[0], sizeof seeds[0], "{\"parameters\":{\"credentials\":[%s,%s]}}", credential, legacy);
    snprintf(seeds[1], sizeof seeds[1], "{\"error\":\"io.pinvault.Vault.WrongPin\",\"parameters\":{\"remainingAttempts\":3}}");
    unsigned char hash[32];
    char key_id[65];
    crypto_generichash(hash, sizeof hash, key, sizeof key, NULL, 0);
    sodium_bin2hex(key_id, sizeof key_id, hash, 16);
    snprintf(seeds[2], sizeof seeds[2],
             "{\"parameters\":{\"keyId\":\"%s\",\"publicKey\":\"BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc=\","
             "\"signature\":\"%s\",\"pinPolicyOutdated\":false,\"failedAttemptsCleared\":2}}",
             key_id, "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==");
    static const char tokens[] = "{}[]\",:\\0123456789-+.eEtrufalsn \x00\x7f\xc3\xa9\xed\xf4\xff";
    unsigned long runs = 0;
    for (int s = 0; s < 3; s++) {
        size_t seed_length = strlen(seeds[s]);
        for (int round = 0; round < 40000; round++) {
            unsigned char copy[4096 + 16];
            size_t length = mutate(copy, seeds[s], seed_length, tokens, sizeof tokens - 1);
            unsigned char *exact = exact_copy(copy, length);
            struct pv_choice choice;
            struct pinvault_proof proof;
            struct pv_error error;
            unsigned fitting;
            pv_choice_init(&choice, round % 2 == 0 ? NULL : "login");
            if (pv_reply_list(exact, length, "alice", 1000, pv_choice_consider, &choice, &error) == PV_REPLY_OK)
                (void)pv_choice_result(&choice, &fitting);
            (void)pv_reply_authenticate(exact, length, &proof, &error);
            free(exact);
            runs++;
        }
    }
    CHECK(runs == 120000);
}

/* Hostile hosts files and PAM_RHOSTs: mutated copies of plausible ones. */
static void test_locality_mutations(void)
{
    static const char hosts[] = "127.0.0.1\tlocalhost\n127.0.1.1 vm.example.org vm # comment\r\n::1 localhost ip6-localhost\n"
                                "10.0.0.5 db.example.org db\nfe80::1%lo0 link\n";
    static const char *const rhosts[] = {"vm.example.org", "127.0.0.1", "::ffff:127.0.0.1", "vm", "localhost."};
    static const char tokens[] = " \t\r\n#.:%0123456789abcdefvmx\x00\xff";
    unsigned long runs = 0;
    for (int round = 0; round < 40000; round++) {
        unsigned char text[sizeof hosts + 16], name[64 + 16];
        size_t text_length = mutate(text, hosts, sizeof hosts - 1, tokens, sizeof tokens - 1);
        const char *rhost = rhosts[round % 5];
        size_t name_length = mutate(name, rhost, strlen(rhost), tokens, sizeof tokens - 1);
        unsigned char *exact = exact_copy(text, text_length);
        char *terminated = (char *)exact_copy(name, name_length + 1);
        terminated[name_length] = '\0';
        (void)pv_origin(terminated, NULL, false, "vm");
        (void)pv_hosts_names_this_machine((const char *)exact, text_length, "vm", terminated);
        free(terminated);
        free(exact);
        runs++;
    }
    CHECK(runs == 40000);
}

static void test_origin(void)
{
    static const struct {
        const char *rhost;
        enum pv_origin origin;
    } cases[] = {
        /* Unset or empty: sudo, su, a console login, a local display manager or screen locker. */
        {NULL, PV_ORIGIN_LOCAL}, {"", PV_ORIGIN_LOCAL},
        /* Loopback, by address or name, and this machine's hostname (sudo's pam_rhost). */
        {"127.0.0.1", PV_ORIGIN_LOCAL}, {"127.255.3.4", PV_ORIGIN_LOCAL}, {"::1", PV_ORIGIN_LOCAL},
        {"0:0:0:0:0:0:0:1", PV_ORIGIN_LOCAL}, {"::ffff:127.0.0.1", PV_ORIGIN_LOCAL}, {"localhost", PV_ORIGIN_LOCAL},
        {"LocalHost.", PV_ORIGIN_LOCAL}, {"vm", PV_ORIGIN_LOCAL}, {"VM.", PV_ORIGIN_LOCAL},
        /* Other addresses, gdm's remote display without a name, near misses of loopback. */
        {"192.0.2.7", PV_ORIGIN_REMOTE}, {"0.0.0.0", PV_ORIGIN_REMOTE}, {"10.0.0.1", PV_ORIGIN_REMOTE},
        {"128.0.0.1", PV_ORIGIN_REMOTE}, {"1.127.0.0", PV_ORIGIN_REMOTE}, {"127.1", PV_ORIGIN_REMOTE},
        {"127.0.0.1.", PV_ORIGIN_REMOTE}, {"2001:db8::1", PV_ORIGIN_REMOTE}, {"::", PV_ORIGIN_REMOTE},
        {"::ffff:192.0.2.7", PV_ORIGIN_REMOTE}, {"::2", PV_ORIGIN_REMOTE}, {"fe80::1%lo", PV_ORIGIN_REMOTE},
        {"[::1]", PV_ORIGIN_REMOTE}, {"::1:", PV_ORIGIN_REMOTE},
        /* Names that only the hosts file can place. */
        {"vm.example.org", PV_ORIGIN_HOST_NAME}, {"localhost.example.org", PV_ORIGIN_HOST_NAME},
        {"vmx", PV_ORIGIN_HOST_NAME}, {"v", PV_ORIGIN_HOST_NAME}, {"ip6-localhost", PV_ORIGIN_HOST_NAME},
        /* Malformed: remote. */
        {"vm evil", PV_ORIGIN_REMOTE}, {"vm\n", PV_ORIGIN_REMOTE}, {".vm", PV_ORIGIN_REMOTE},
        {"vm..example.org", PV_ORIGIN_REMOTE}, {"vm/x", PV_ORIGIN_REMOTE}, {"v\xc3\xa9m", PV_ORIGIN_REMOTE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        enum pv_origin origin = pv_origin(cases[i].rhost, NULL, false, "vm");
        if (origin != cases[i].origin) {
            failed++;
            printf("FAILED: PAM_RHOST %s: origin %d, expected %d\n", cases[i].rhost ? cases[i].rhost : "(unset)",
                   (int)origin, (int)cases[i].origin);
        } else {
            passed++;
        }
    }
    char long_name[PV_RHOST_MAX_BYTES + 2];
    memset(long_name, 'a', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    CHECK(pv_origin(long_name, NULL, false, "vm") == PV_ORIGIN_REMOTE);
    long_name[PV_RHOST_MAX_BYTES] = '\0';
    CHECK(pv_origin(long_name, NULL, false, "vm") == PV_ORIGIN_HOST_NAME);

    /* sshd's marks make a transaction remote whatever the address, loopback included. */
    CHECK(pv_origin("127.0.0.1", "ssh", false, "vm") == PV_ORIGIN_SSHD);
    CHECK(pv_origin(NULL, "ssh", false, "vm") == PV_ORIGIN_SSHD);
    CHECK(pv_origin("::1", NULL, true, "vm") == PV_ORIGIN_SSHD);
    CHECK(pv_origin("vm", "/dev/pts/3", true, "vm") == PV_ORIGIN_SSHD);
    /* Other ttys: consoles, terminals, X displays. */
    CHECK(pv_origin(NULL, "/dev/tty1", false, "vm") == PV_ORIGIN_LOCAL);
    CHECK(pv_origin(NULL, ":0", false, "vm") == PV_ORIGIN_LOCAL);
    CHECK(pv_origin(NULL, "sshd", false, "vm") == PV_ORIGIN_LOCAL);
    CHECK(pv_origin(NULL, "SSH", false, "vm") == PV_ORIGIN_LOCAL);
    /* An unknown hostname names nothing. */
    CHECK(pv_origin("vm", NULL, false, "") == PV_ORIGIN_HOST_NAME);
    CHECK(pv_origin("localhost", NULL, false, "") == PV_ORIGIN_LOCAL);
}

static bool hosts_name(const char *text, const char *hostname, const char *name)
{
    return pv_hosts_names_this_machine(text, strlen(text), hostname, name);
}

static void test_hosts(void)
{
    /* Debian's layout: the FQDN beside the hostname on 127.0.1.1. */
    const char *debian = "127.0.0.1\tlocalhost\n"
                         "127.0.1.1\tvm.example.org\tvm\n"
                         "# vm.evil.org is not ours\n"
                         "\n"
                         "::1     localhost ip6-localhost ip6-loopback\n"
                         "ff02::1 ip6-allnodes\n"
                         "10.0.0.5 db.example.org db # vm.evil2.org\n";
    CHECK(hosts_name(debian, "vm", "vm.example.org"));
    CHECK(hosts_name(debian, "vm", "VM.Example.ORG."));
    CHECK(hosts_name(debian, "vm", "ip6-localhost"));
    CHECK(hosts_name(debian, "", "vm.example.org"));  /* its address is loopback */
    CHECK(!hosts_name(debian, "vm", "ip6-allnodes"));
    CHECK(!hosts_name(debian, "vm", "db.example.org"));
    CHECK(!hosts_name(debian, "vm", "db"));
    CHECK(!hosts_name(debian, "vm", "vm.evil.org"));
    CHECK(!hosts_name(debian, "vm", "vm.evil2.org"));
    CHECK(!hosts_name(debian, "vm", "localhost.localdomain"));
    CHECK(!hosts_name(debian, "vm", "vm.example"));
    CHECK(!hosts_name(debian, "vm", "example.org"));

    /* A cloud image's layout: the hostname on the machine's own address. */
    const char *cloud = "127.0.0.1 localhost\r\n10.0.0.5 vm.ec2.internal vm\r\n10.0.0.6 other.ec2.internal other";
    CHECK(hosts_name(cloud, "vm", "vm.ec2.internal"));
    CHECK(!hosts_name(cloud, "other", "vm.ec2.internal"));
    CHECK(hosts_name(cloud, "other", "other.ec2.internal")); /* the last line, without a newline */
    CHECK(!hosts_name(cloud, "", "vm.ec2.internal"));
    CHECK(!hosts_name(cloud, "vm", "10.0.0.5"));             /* an address is not a name */

    /* Lines with nothing to give, an address too long to be one, a NUL. */
    CHECK(!hosts_name("", "vm", "vm.example.org"));
    CHECK(!hosts_name("127.0.0.1\n", "vm", "vm.example.org"));
    CHECK(!hosts_name("   # vm.example.org\n", "vm", "vm.example.org"));
    CHECK(!hosts_name("0000000000000000000000000000000000000000000000000127.0.0.1 vm.example.org\n", "x", "vm.example.org"));
    CHECK(hosts_name("0000000000000000000000000000000000000000000000000127.0.0.1 vm.example.org vm\n", "vm", "vm.example.org"));
    const char nul[] = "127.0.1.1 vm.exa\0mple.org vm\n";
    CHECK(!pv_hosts_names_this_machine(nul, sizeof nul - 1, "vm", "vm.example.org"));
    CHECK(pv_hosts_names_this_machine(nul, sizeof nul - 1, "vm", "vm"));
    /* Only `length` bytes are read. */
    CHECK(!pv_hosts_names_this_machine(debian, 43, "vm", "vm.example.org"));
    CHECK(pv_hosts_names_this_machine(debian, 44, "vm", "vm.example.org"));
}

int main(void)
{
    if (sodium_init() < 0) {
        printf("sodium_init failed\n");
        return 1;
    }
    test_json();
    test_list();
    test_errors();
    test_authenticate();
    test_requests();
    test_time();
    test_options();
    test_purposes();
    test_origin();
    test_hosts();
    test_mutations();
    test_locality_mutations();
    printf("pam_pinvault unit tests: %d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
