/*
 * Unit tests of libpinvault's calls and replies beyond what pam/tests/pv_tests.c
 * covers (the JSON reader, List and Authenticate): the frames of List with a
 * purpose and no user, Unlock, Lock, Sign and GetPolicy; their replies; the
 * errors and what they carry; the API's refusals before anything is sent; the
 * fuzz seeds replayed. Built with ASan and UBSan by `make lib-test`. Ends with a
 * deterministic mutation run over every reply.
 *
 * Prints one line per failed check and "libpinvault unit tests: N passed, M failed".
 */
#include <dirent.h>
#include <errno.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "pinvault.h"
#include "pv_json.h"
#include "pv_reply.h"
#include "pv_request.h"

#include "check.h"

#define KEY_ID "0123456789abcdef0123456789abcdef"
#define SIGNATURE_B64 "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=="

/* Builds a frame with `build` into a buffer of `capacity`; the frame without its NUL, or "" on failure. */
static const char *frame_of(int built, struct pv_buffer *buffer)
{
    if (built != 0 || buffer->length == 0 || buffer->data[buffer->length - 1] != '\0')
        return "";
    return buffer->data;
}

static void test_requests(void)
{
    char data[2048];
    struct pv_buffer buffer = {.data = data, .capacity = sizeof data};
    CHECK(strcmp(frame_of(pv_request_list(&buffer, NULL, "authenticate", false, 0), &buffer),
                 "{\"method\":\"io.pinvault.Vault.List\",\"parameters\":{\"purpose\":\"authenticate\"}}") == 0);
    buffer = (struct pv_buffer){.data = data, .capacity = sizeof data};
    CHECK(strcmp(frame_of(pv_request_list(&buffer, NULL, NULL, false, 0), &buffer),
                 "{\"method\":\"io.pinvault.Vault.List\",\"parameters\":{}}") == 0);
    buffer = (struct pv_buffer){.data = data, .capacity = sizeof data};
    CHECK(strcmp(frame_of(pv_request_list(&buffer, NULL, NULL, true, 7), &buffer),
                 "{\"method\":\"io.pinvault.Vault.List\",\"parameters\":{\"ownerUid\":7}}") == 0);
    buffer = (struct pv_buffer){.data = data, .capacity = sizeof data};
    CHECK(strcmp(frame_of(pv_request_policy(&buffer), &buffer),
                 "{\"method\":\"io.pinvault.Vault.GetPolicy\",\"parameters\":{}}") == 0);
    buffer = (struct pv_buffer){.data = data, .capacity = sizeof data};
    CHECK(strcmp(frame_of(pv_request_lock(&buffer, NULL), &buffer),
                 "{\"method\":\"io.pinvault.Vault.Lock\",\"parameters\":{}}") == 0);
    buffer = (struct pv_buffer){.data = data, .capacity = sizeof data};
    CHECK(strcmp(frame_of(pv_request_lock(&buffer, KEY_ID), &buffer),
                 "{\"method\":\"io.pinvault.Vault.Lock\",\"parameters\":{\"keyId\":\"" KEY_ID "\"}}") == 0);
    buffer = (struct pv_buffer){.data = data, .capacity = sizeof data};
    CHECK(strcmp(frame_of(pv_request_sign(&buffer, KEY_ID, (const unsigned char *)"abc", 3), &buffer),
                 "{\"method\":\"io.pinvault.Vault.Sign\",\"parameters\":{\"keyId\":\"" KEY_ID
                 "\",\"challenge\":\"YWJj\"}}") == 0);
    /* The PIN is escaped so that the daemon unescapes exactly the bytes given, and comes last. */
    const unsigned char pin[] = {'1', '"', '\\', 0x01, 'z'};
    buffer = (struct pv_buffer){.data = data, .capacity = sizeof data};
    CHECK(strcmp(frame_of(pv_request_unlock(&buffer, "al\"ice", KEY_ID, pin, sizeof pin, 3600, true), &buffer),
                 "{\"method\":\"io.pinvault.Vault.Unlock\",\"parameters\":{\"user\":\"al\\\"ice\",\"keyId\":\"" KEY_ID
                 "\",\"ttlSeconds\":3600,\"bindToConnection\":true,\"pin\":\"1\\\"\\\\\\u0001z\"}}") == 0);
    buffer = (struct pv_buffer){.data = data, .capacity = sizeof data};
    CHECK(strcmp(frame_of(pv_request_unlock(&buffer, "bob", NULL, pin, 1, 1, false), &buffer),
                 "{\"method\":\"io.pinvault.Vault.Unlock\",\"parameters\":{\"user\":\"bob\",\"ttlSeconds\":1,\"pin\":\"1\"}}") == 0);
    /* What the interface would refuse is not built: a keyId that is not 32 lowercase hex digits, a challenge out of range. */
    buffer = (struct pv_buffer){.data = data, .capacity = sizeof data};
    CHECK(pv_request_sign(&buffer, "0123456789ABCDEF0123456789abcdef", (const unsigned char *)"a", 1) != 0);
    CHECK(pv_request_sign(&buffer, KEY_ID, (const unsigned char *)"a", 0) != 0);
    unsigned char big[PV_CHALLENGE_MAX_BYTES + 1];
    memset(big, 'x', sizeof big);
    CHECK(pv_request_authenticate(&buffer, "alice", NULL, pin, 1, big, sizeof big, false, 0) != 0);
    buffer = (struct pv_buffer){.data = data, .capacity = sizeof data};
    CHECK(pv_request_sign(&buffer, KEY_ID, big, PV_CHALLENGE_MAX_BYTES) == 0);
    CHECK(pv_request_lock(&buffer, "short") != 0);
    /* Sign's message may be 16 KiB (a certificate with many names); SignDigest carries a digest. */
    static unsigned char message[PV_MESSAGE_MAX_BYTES + 1];
    memset(message, 'm', sizeof message);
    static char large[PV_MESSAGE_MAX_BYTES * 2];
    buffer = (struct pv_buffer){.data = large, .capacity = pv_request_bytes_call_size(PV_MESSAGE_MAX_BYTES)};
    CHECK(pv_request_sign(&buffer, KEY_ID, message, PV_MESSAGE_MAX_BYTES) == 0 && buffer.length < buffer.capacity);
    buffer = (struct pv_buffer){.data = large, .capacity = sizeof large};
    CHECK(pv_request_sign(&buffer, KEY_ID, message, sizeof message) != 0);
    buffer = (struct pv_buffer){.data = data, .capacity = sizeof data};
    CHECK(strcmp(frame_of(pv_request_sign_digest(&buffer, KEY_ID, (const unsigned char *)"abc", 3), &buffer),
                 "{\"method\":\"io.pinvault.Vault.SignDigest\",\"parameters\":{\"keyId\":\"" KEY_ID
                 "\",\"digest\":\"YWJj\"}}") == 0);
    buffer = (struct pv_buffer){.data = data, .capacity = sizeof data};
    CHECK(pv_request_sign_digest(&buffer, KEY_ID, message, PV_DIGEST_MAX_BYTES + 1) != 0);
    CHECK(pv_request_sign_digest(&buffer, KEY_ID, message, 0) != 0);
    /* Too small a buffer is refused, never overrun. */
    buffer = (struct pv_buffer){.data = data, .capacity = 40};
    CHECK(pv_request_unlock(&buffer, "alice", KEY_ID, pin, sizeof pin, 5, true) != 0 && buffer.length <= 40);
}

static int count_visits;
static struct pinvault_credential last_visit;

static void visit(void *context, const pinvault_credential *credential)
{
    (void)context;
    count_visits++;
    last_visit = *credential;
}

/*
 * A credential object of `user` with a key of `key_length` bytes `k` (0x04 first when
 * 65, as a P-256 point), its real keyId, and `algorithm_member` (e.g. ",\"algorithm\":\"p256\"", or "").
 */
static void key_json(char *out, size_t size, const char *user, unsigned char k, size_t key_length,
                     const char *algorithm_member, int failed_attempts, int remaining, const char *state,
                     const char *unlocked_until)
{
    unsigned char key[256], hash[32];
    char hex[65], b64[400];
    memset(key, k, key_length);
    if (key_length == 65)
        key[0] = 0x04;
    crypto_generichash(hash, sizeof hash, key, key_length, NULL, 0);
    sodium_bin2hex(hex, sizeof hex, hash, 16);
    sodium_bin2base64(b64, sizeof b64, key, key_length, sodium_base64_VARIANT_ORIGINAL);
    snprintf(out, size,
             "{\"user\":\"%s\",\"keyId\":\"%s\",\"label\":\"laptop\",\"purpose\":\"authenticate\",\"publicKey\":\"%s\"%s,"
             "\"ownerUid\":1000,\"createdAt\":\"2026-01-31T12:00:00Z\",\"lastUsedAt\":null,\"failedAttempts\":%d,"
             "\"remainingAttempts\":%d,\"state\":\"%s\",\"lockedUntil\":null,\"unregistrationExpiresAt\":null,"
             "\"unlockedUntil\":%s}",
             user, hex, b64, algorithm_member, failed_attempts, remaining, state, unlocked_until);
}

/* An Ed25519 credential of a daemon that names no algorithm. */
static void credential_json(char *out, size_t size, const char *user, unsigned char k, int failed_attempts,
                            int remaining, const char *state, const char *unlocked_until)
{
    key_json(out, size, user, k, 32, "", failed_attempts, remaining, state, unlocked_until);
}

static enum pv_reply_status list(const char *frame, const char *user)
{
    struct pv_error error;
    count_visits = 0;
    memset(&last_visit, 0, sizeof last_visit);
    return pv_reply_list((const unsigned char *)frame, strlen(frame), user, 1000, visit, NULL, &error);
}

static void test_list(void)
{
    char a[1024], b[1024], frame[4096];
    credential_json(a, sizeof a, "alice", 1, 0, 10, "active", "null");
    credential_json(b, sizeof b, "bob", 2, 3, 2, "throttled", "\"2026-11-26T21:00:00Z\"");
    snprintf(frame, sizeof frame, "{\"parameters\":{\"credentials\":[%s,%s]}}", a, b);
    /* Asked for every user: both, each with its user, count and session. */
    CHECK(list(frame, NULL) == PV_REPLY_OK && count_visits == 2 && strcmp(last_visit.user, "bob") == 0 &&
          last_visit.failed_attempts == 3 && last_visit.remaining_attempts == 2 &&
          last_visit.state == PINVAULT_STATE_THROTTLED && last_visit.unlocked_until == 1795726800 &&
          last_visit.purpose == PINVAULT_PURPOSE_AUTHENTICATE);
    /* Asked for alice's: bob's credential makes the reply not ours. */
    CHECK(list(frame, "alice") == PV_REPLY_MALFORMED);
    /* A negative count is malformed; so is an empty user. */
    credential_json(a, sizeof a, "alice", 1, -1, 10, "active", "null");
    snprintf(frame, sizeof frame, "{\"parameters\":{\"credentials\":[%s]}}", a);
    CHECK(list(frame, NULL) == PV_REPLY_MALFORMED);
    credential_json(a, sizeof a, "", 1, 0, 10, "active", "null");
    snprintf(frame, sizeof frame, "{\"parameters\":{\"credentials\":[%s]}}", a);
    CHECK(list(frame, NULL) == PV_REPLY_MALFORMED);
    credential_json(a, sizeof a, "alice", 1, 0, 10, "active", "\"yesterday\"");
    snprintf(frame, sizeof frame, "{\"parameters\":{\"credentials\":[%s]}}", a);
    CHECK(list(frame, NULL) == PV_REPLY_MALFORMED);
}

/*
 * The values of the interface's Credential.purpose (`  purpose: (a, b, …),` inside
 * `type Credential (`), in order, into `names`; how many, or -1 if none is found.
 */
static int interface_purposes(const char *path, char names[][32], int capacity)
{
    FILE *file = fopen(path, "r");
    if (file == NULL)
        return -1;
    char line[512];
    int count = -1;
    bool in_credential = false;
    while (count < 0 && fgets(line, sizeof line, file) != NULL) {
        if (strncmp(line, "type ", 5) == 0)
            in_credential = strncmp(line, "type Credential (", 17) == 0;
        if (!in_credential || strncmp(line, "  purpose: (", 12) != 0)
            continue;
        count = 0;
        for (char *name = strtok(line + 12, ", )\n"); name != NULL && count < capacity; name = strtok(NULL, ", )\n"))
            snprintf(names[count++], sizeof names[0], "%s", name);
    }
    fclose(file);
    return count;
}

/* The text of the file at `path` (at most `size` - 1 bytes, NUL-terminated), or "" on failure. */
static const char *file_text(const char *path, char *text, size_t size)
{
    FILE *file = fopen(path, "r");
    size_t length = file != NULL ? fread(text, 1, size - 1, file) : 0;
    if (file != NULL)
        fclose(file);
    text[length] = '\0';
    return text;
}

/* What a List of one credential of purpose `name` reads it as (-1: the reply is refused). */
static int purpose_read(const char *name)
{
    char a[1024], named[1100], frame[2048];
    credential_json(a, sizeof a, "alice", 1, 0, 10, "active", "null");
    const char *at = strstr(a, "\"authenticate\"");
    if (at == NULL)
        return -1;
    snprintf(named, sizeof named, "%.*s\"%s\"%s", (int)(at - a), a, name, at + strlen("\"authenticate\""));
    snprintf(frame, sizeof frame, "{\"parameters\":{\"credentials\":[%s]}}", named);
    return list(frame, NULL) == PV_REPLY_OK ? (int)last_visit.purpose : -1;
}

/*
 * pinvault_purpose agrees with the interface (pinvault.h): the n-th purpose of
 * Credential.purpose is PINVAULT_PURPOSE_<NAME> = n, 4 (OTHER) skipped, with no entry
 * the interface does not have, and a reply naming it reads as that number; a purpose the
 * interface does not name reads as OTHER. Run from the checkout's top (as make does).
 */
static void test_purposes(void)
{
    char names[32][32], header[65536];
    int count = interface_purposes("io.pinvault.Vault.varlink", names, 32);
    CHECK(count >= 5);
    file_text("libpinvault/pinvault.h", header, sizeof header);
    for (int n = 0; n < count; n++) {
        int number = n < PINVAULT_PURPOSE_OTHER ? n : n + 1;
        char entry[96];
        int length = snprintf(entry, sizeof entry, "\n    PINVAULT_PURPOSE_");
        for (const char *c = names[n]; *c != '\0' && length < (int)sizeof entry - 1; c++)
            entry[length++] = (char)(*c >= 'a' && *c <= 'z' ? *c - 'a' + 'A' : *c);
        snprintf(entry + length, sizeof entry - (size_t)length, " = %d,", number);
        if (strstr(header, entry) == NULL || purpose_read(names[n]) != number)
            printf("purpose %s: pinvault.h should have \"%s\" and read it as %d\n", names[n], entry + 1, number);
        CHECK(strstr(header, entry) != NULL);
        CHECK(purpose_read(names[n]) == number);
    }
    /* OTHER and the interface's purposes: nothing else. */
    int entries = 0;
    for (const char *at = header; (at = strstr(at, "\n    PINVAULT_PURPOSE_")) != NULL; at++)
        entries++;
    CHECK(entries == count + 1);
    CHECK(strstr(header, "\n    PINVAULT_PURPOSE_OTHER = 4,") != NULL);
    CHECK(purpose_read("smtp") == PINVAULT_PURPOSE_OTHER);
}

/* A List of one credential of `length` key bytes and `member`; its status, the credential in last_visit. */
static enum pv_reply_status list_key(size_t length, const char *member)
{
    char a[1024], frame[2048];
    key_json(a, sizeof a, "alice", 9, length, member, 0, 10, "active", "null");
    snprintf(frame, sizeof frame, "{\"parameters\":{\"credentials\":[%s]}}", a);
    return list(frame, NULL);
}

/* Each algorithm's key has its size; one a daemon names without an algorithm is Ed25519's. */
static void test_algorithms(void)
{
    CHECK(list_key(32, "") == PV_REPLY_OK && last_visit.algorithm == PINVAULT_ALGORITHM_ED25519 &&
          last_visit.public_key.length == 32);
    CHECK(list_key(32, ",\"algorithm\":\"ed25519\"") == PV_REPLY_OK && last_visit.algorithm == PINVAULT_ALGORITHM_ED25519);
    CHECK(list_key(65, ",\"algorithm\":\"p256\"") == PV_REPLY_OK && last_visit.algorithm == PINVAULT_ALGORITHM_P256 &&
          last_visit.public_key.length == 65 && last_visit.public_key.bytes[0] == 0x04 &&
          pinvault_credential_public_key(&last_visit) == &last_visit.public_key &&
          pinvault_credential_algorithm(&last_visit) == PINVAULT_ALGORITHM_P256);
    /* A key of another algorithm's size, or a compressed point, is not the daemon's. */
    CHECK(list_key(65, "") == PV_REPLY_MALFORMED);
    CHECK(list_key(32, ",\"algorithm\":\"p256\"") == PV_REPLY_MALFORMED);
    CHECK(list_key(33, ",\"algorithm\":\"p256\"") == PV_REPLY_MALFORMED);
    CHECK(list_key(65, ",\"algorithm\":\"ed25519\"") == PV_REPLY_MALFORMED);
    CHECK(list_key(65, ",\"algorithm\":\"p256\",\"algorithm\":\"p256\"") == PV_REPLY_MALFORMED);
    CHECK(list_key(65, ",\"algorithm\":17") == PV_REPLY_MALFORMED);
    /* An algorithm of a later release: listed as OTHER, its key as sent. */
    CHECK(list_key(200, ",\"algorithm\":\"mldsa44\"") == PV_REPLY_OK && last_visit.algorithm == PINVAULT_ALGORITHM_OTHER &&
          last_visit.public_key.length == 200);
}

/* A fresh P-256 key pair (OpenSSL) and its SEC1 uncompressed point. */
static EVP_PKEY *p256_pair(struct pinvault_public_key *point)
{
    EVP_PKEY *key = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
    if (key == NULL || EVP_PKEY_get_octet_string_param(key, OSSL_PKEY_PARAM_PUB_KEY, point->bytes, sizeof point->bytes,
                                                       &point->length) != 1)
        abort();
    return key;
}

/* OpenSSL's DER ECDSA signature of `message` (SHA-256). */
static void p256_sign(EVP_PKEY *key, const char *message, struct pinvault_signature *signature)
{
    EVP_MD_CTX *context = EVP_MD_CTX_new();
    signature->length = sizeof signature->bytes;
    if (context == NULL || EVP_DigestSignInit(context, NULL, EVP_sha256(), NULL, key) != 1 ||
        EVP_DigestSign(context, signature->bytes, &signature->length, (const unsigned char *)message, strlen(message)) != 1)
        abort();
    EVP_MD_CTX_free(context);
}

/* pinvault_verify: each algorithm's signatures, and nothing else. */
static void test_verify(void)
{
    struct pinvault_public_key ed_key = {.length = 32};
    struct pinvault_signature ed_signature = {.length = 64};
    unsigned char secret[crypto_sign_SECRETKEYBYTES];
    crypto_sign_keypair(ed_key.bytes, secret);
    crypto_sign_detached(ed_signature.bytes, NULL, (const unsigned char *)"hello", 5, secret);
    CHECK(pinvault_verify(PINVAULT_ALGORITHM_ED25519, &ed_key, "hello", 5, &ed_signature) == PINVAULT_OK);
    CHECK(pinvault_verify(PINVAULT_ALGORITHM_ED25519, &ed_key, "hellO", 5, &ed_signature) == PINVAULT_E_SIGNATURE);
    CHECK(pinvault_verify(PINVAULT_ALGORITHM_P256, &ed_key, "hello", 5, &ed_signature) == PINVAULT_E_ARGUMENT);
    CHECK(pinvault_verify(PINVAULT_ALGORITHM_OTHER, &ed_key, "hello", 5, &ed_signature) == PINVAULT_E_ARGUMENT);
    ed_signature.length = 63;
    CHECK(pinvault_verify(PINVAULT_ALGORITHM_ED25519, &ed_key, "hello", 5, &ed_signature) == PINVAULT_E_SIGNATURE);

    struct pinvault_public_key point;
    struct pinvault_signature signature;
    EVP_PKEY *key = p256_pair(&point);
    p256_sign(key, "hello", &signature);
    CHECK(point.length == 65 && signature.length >= 8 && signature.length <= 72);
    CHECK(pinvault_verify(PINVAULT_ALGORITHM_P256, &point, "hello", 5, &signature) == PINVAULT_OK);
    CHECK(pinvault_verify(PINVAULT_ALGORITHM_P256, &point, "hellO", 5, &signature) == PINVAULT_E_SIGNATURE);
    CHECK(pinvault_verify(PINVAULT_ALGORITHM_ED25519, &point, "hello", 5, &signature) == PINVAULT_E_ARGUMENT);
    /* Over the digest, as SignDigest signs: SHA-256("hello"). */
    unsigned char digest[32];
    crypto_hash_sha256(digest, (const unsigned char *)"hello", 5);
    CHECK(pinvault_verify_digest(PINVAULT_ALGORITHM_P256, &point, digest, 32, &signature) == PINVAULT_OK);
    CHECK(pinvault_verify_digest(PINVAULT_ALGORITHM_P256, &point, digest, 31, &signature) == PINVAULT_E_ARGUMENT);
    CHECK(pinvault_verify_digest(PINVAULT_ALGORITHM_ED25519, &ed_key, digest, 32, &signature) == PINVAULT_E_ARGUMENT);
    digest[0] ^= 1;
    CHECK(pinvault_verify_digest(PINVAULT_ALGORITHM_P256, &point, digest, 32, &signature) == PINVAULT_E_SIGNATURE);
    /* Only strict DER: one byte of garbage after it, or an integer with a needless leading zero, fails. */
    struct pinvault_signature longer = signature;
    longer.bytes[longer.length++] = 0;
    CHECK(pinvault_verify(PINVAULT_ALGORITHM_P256, &point, "hello", 5, &longer) == PINVAULT_E_SIGNATURE);
    struct pinvault_signature padded = {.length = signature.length + 1};
    unsigned r_length = signature.bytes[3];
    padded.bytes[0] = 0x30;
    padded.bytes[1] = (unsigned char)(signature.bytes[1] + 1);
    padded.bytes[2] = 0x02;
    padded.bytes[3] = (unsigned char)(r_length + 1);
    padded.bytes[4] = 0x00;
    memcpy(padded.bytes + 5, signature.bytes + 4, signature.length - 4);
    CHECK(signature.bytes[1] < 0x7f && pinvault_verify(PINVAULT_ALGORITHM_P256, &point, "hello", 5, &padded) == PINVAULT_E_SIGNATURE);
    /* A point off the curve is no key. */
    struct pinvault_public_key off = point;
    off.bytes[64] ^= 1;
    CHECK(pinvault_verify(PINVAULT_ALGORITHM_P256, &off, "hello", 5, &signature) == PINVAULT_E_ARGUMENT);
    off = point;
    off.bytes[0] = 0x02;
    CHECK(pinvault_verify(PINVAULT_ALGORITHM_P256, &off, "hello", 5, &signature) == PINVAULT_E_ARGUMENT);
    EVP_PKEY_free(key);
}

static void test_replies(void)
{
    struct pv_error error;
    struct pinvault_unlock_result unlocked;
    const char *frame = "{\"parameters\":{\"keyId\":\"" KEY_ID "\",\"unlockedUntil\":\"1970-01-01T01:00:00Z\","
                        "\"failedAttemptsCleared\":2}}";
    CHECK(pv_reply_unlock((const unsigned char *)frame, strlen(frame), &unlocked, &error) == PV_REPLY_OK &&
          strcmp(unlocked.key_id, KEY_ID) == 0 && unlocked.unlocked_until == 3600 && unlocked.failed_attempts_cleared == 2);
    frame = "{\"parameters\":{\"keyId\":\"" KEY_ID "\",\"unlockedUntil\":null}}";
    CHECK(pv_reply_unlock((const unsigned char *)frame, strlen(frame), &unlocked, &error) == PV_REPLY_MALFORMED);
    frame = "{\"parameters\":{\"keyId\":\"" KEY_ID "\"}}";
    CHECK(pv_reply_unlock((const unsigned char *)frame, strlen(frame), &unlocked, &error) == PV_REPLY_MALFORMED);

    size_t locked;
    frame = "{\"parameters\":{\"lockedKeyIds\":[\"" KEY_ID "\",\"" KEY_ID "\"]}}";
    CHECK(pv_reply_lock((const unsigned char *)frame, strlen(frame), &locked, &error) == PV_REPLY_OK && locked == 2);
    frame = "{\"parameters\":{\"lockedKeyIds\":[]}}";
    CHECK(pv_reply_lock((const unsigned char *)frame, strlen(frame), &locked, &error) == PV_REPLY_OK && locked == 0);
    frame = "{\"parameters\":{\"lockedKeyIds\":[\"nothex\"]}}";
    CHECK(pv_reply_lock((const unsigned char *)frame, strlen(frame), &locked, &error) == PV_REPLY_MALFORMED);

    struct pinvault_signature signature;
    memset(&signature, 0xff, sizeof signature);
    frame = "{\"parameters\":{\"signature\":\"" SIGNATURE_B64 "\"}}";
    CHECK(pv_reply_sign((const unsigned char *)frame, strlen(frame), &signature, &error) == PV_REPLY_OK &&
          signature.length == 64 && signature.bytes[0] == 0 && signature.bytes[63] == 0);
    /* A signature's length is the algorithm's: a DER one of 3 bytes reads, an empty one does not. */
    frame = "{\"parameters\":{\"signature\":\"MAAA\"}}";
    CHECK(pv_reply_sign((const unsigned char *)frame, strlen(frame), &signature, &error) == PV_REPLY_OK &&
          signature.length == 3 && signature.bytes[0] == 0x30);
    frame = "{\"parameters\":{\"signature\":\"\"}}";
    CHECK(pv_reply_sign((const unsigned char *)frame, strlen(frame), &signature, &error) == PV_REPLY_MALFORMED);
    frame = "{\"parameters\":{\"signature\":\"AAA\"}}";
    CHECK(pv_reply_sign((const unsigned char *)frame, strlen(frame), &signature, &error) == PV_REPLY_MALFORMED);
    frame = "{\"parameters\":{}}";
    CHECK(pv_reply_sign((const unsigned char *)frame, strlen(frame), &signature, &error) == PV_REPLY_MALFORMED);
    /* One byte more than the maximum: not read, and nothing written past it. */
    static char huge[sodium_base64_ENCODED_LEN(PINVAULT_SIGNATURE_MAX_BYTES + 1, sodium_base64_VARIANT_ORIGINAL) + 64];
    static unsigned char zeros[PINVAULT_SIGNATURE_MAX_BYTES + 1];
    int at = snprintf(huge, sizeof huge, "{\"parameters\":{\"signature\":\"");
    sodium_bin2base64(huge + at, sizeof huge - (size_t)at, zeros, sizeof zeros, sodium_base64_VARIANT_ORIGINAL);
    strcat(huge, "\"}}");
    CHECK(pv_reply_sign((const unsigned char *)huge, strlen(huge), &signature, &error) == PV_REPLY_MALFORMED);
    at = snprintf(huge, sizeof huge, "{\"parameters\":{\"signature\":\"");
    sodium_bin2base64(huge + at, sizeof huge - (size_t)at, zeros, sizeof zeros - 1, sodium_base64_VARIANT_ORIGINAL);
    strcat(huge, "\"}}");
    CHECK(pv_reply_sign((const unsigned char *)huge, strlen(huge), &signature, &error) == PV_REPLY_OK &&
          signature.length == PINVAULT_SIGNATURE_MAX_BYTES);

    struct pinvault_policy policy;
    frame = "{\"parameters\":{\"policy\":{\"minLength\":6,\"maxLength\":64,\"digitsOnly\":true,\"maxIdenticalDigits\":3,"
            "\"allowSequences\":false,\"denyListSize\":100,\"throttleAfter\":5,\"maxAttempts\":10,\"onMaxAttempts\":\"wipe\","
            "\"futureRule\":[1]}}}";
    CHECK(pv_reply_policy((const unsigned char *)frame, strlen(frame), &policy, &error) == PV_REPLY_OK &&
          policy.min_length == 6 && policy.max_length == 64 && policy.digits_only && !policy.allow_sequences &&
          policy.max_attempts == 10 && policy.throttle_after == 5 && policy.wipe_on_max_attempts);
    frame = "{\"parameters\":{\"policy\":{\"minLength\":6}}}";
    CHECK(pv_reply_policy((const unsigned char *)frame, strlen(frame), &policy, &error) == PV_REPLY_MALFORMED);
}

static void test_errors(void)
{
    struct pv_error error;
    struct pinvault_signature signature;
    const struct {
        const char *frame;
        enum pv_reply_status status;
        pinvault_status kind;
        int64_t value;
        const char *detail;
    } cases[] = {
        {"{\"error\":\"io.pinvault.Vault.NotUnlocked\"}", PV_REPLY_ERROR, PINVAULT_E_NOT_UNLOCKED, 0, ""},
        {"{\"error\":\"io.pinvault.Vault.WrongPurpose\",\"parameters\":{\"purpose\":\"ssh\"}}", PV_REPLY_ERROR,
         PINVAULT_E_WRONG_PURPOSE, 0, "ssh"},
        {"{\"error\":\"io.pinvault.Vault.WrongPurpose\"}", PV_REPLY_MALFORMED, PINVAULT_OK, 0, ""},
        {"{\"error\":\"org.varlink.service.InvalidParameter\",\"parameters\":{\"parameter\":\"challenge\"}}",
         PV_REPLY_ERROR, PINVAULT_E_INVALID_PARAMETER, 0, "challenge"},
        /* A parameter name that could forge a log line is dropped, not the error. */
        {"{\"error\":\"org.varlink.service.InvalidParameter\",\"parameters\":{\"parameter\":\"a\\nb\"}}",
         PV_REPLY_ERROR, PINVAULT_E_INVALID_PARAMETER, 0, ""},
        {"{\"error\":\"org.varlink.service.InvalidParameter\",\"parameters\":{\"parameter\":"
         "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"}}",
         PV_REPLY_ERROR, PINVAULT_E_INVALID_PARAMETER, 0, ""},
        {"{\"error\":\"io.pinvault.Vault.TooManyCredentials\",\"parameters\":{\"limit\":16}}", PV_REPLY_ERROR,
         PINVAULT_E_TOO_MANY_CREDENTIALS, 16, ""},
        {"{\"error\":\"io.pinvault.Vault.Busy\",\"parameters\":{\"retryAfterMilliseconds\":250}}", PV_REPLY_ERROR,
         PINVAULT_E_BUSY, 250, ""},
        {"{\"error\":\"io.pinvault.Vault.TooManySessions\",\"parameters\":{\"limit\":16}}", PV_REPLY_ERROR,
         PINVAULT_E_TOO_MANY_SESSIONS, 16, ""},
        {"{\"error\":\"io.pinvault.Vault.TooManySessions\"}", PV_REPLY_MALFORMED, PINVAULT_OK, 0, ""},
        {"{\"error\":\"io.pinvault.Vault.Conflict\"}", PV_REPLY_ERROR, PINVAULT_E_CONFLICT, 0, ""},
        {"{\"error\":\"io.pinvault.Vault.ShuttingDown\"}", PV_REPLY_ERROR, PINVAULT_E_SHUTTING_DOWN, 0, ""},
        {"{\"error\":\"io.pinvault.Vault.AmbiguousCredential\",\"parameters\":{\"keyIds\":[]}}", PV_REPLY_ERROR,
         PINVAULT_E_AMBIGUOUS_CREDENTIAL, 0, ""},
        {"{\"error\":\"io.pinvault.Vault.InternalError\"}", PV_REPLY_ERROR, PINVAULT_E_INTERNAL, 0, ""},
        {"{\"error\":\"io.pinvault.Vault.SomethingNew\",\"parameters\":{\"x\":1}}", PV_REPLY_ERROR, PINVAULT_E_OTHER, 0, ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memset(&error, 0, sizeof error);
        enum pv_reply_status status =
            pv_reply_sign((const unsigned char *)cases[i].frame, strlen(cases[i].frame), &signature, &error);
        bool ok = status == cases[i].status &&
                  (status != PV_REPLY_ERROR || (error.kind == cases[i].kind && error.value == cases[i].value &&
                                                strcmp(error.detail, cases[i].detail) == 0));
        if (ok) {
            passed++;
        } else {
            failed++;
            printf("FAILED: error reply %zu: %s\n", i, cases[i].frame);
        }
    }
}

/* The public calls refuse what the interface would, before connecting or sending. */
static void test_api_refusals(void)
{
    pinvault_connection *connection = NULL;
    CHECK(pinvault_connect("/nonexistent/socket", 0, &connection) == PINVAULT_E_ARGUMENT && connection == NULL);
    CHECK(pinvault_connect("/nonexistent/socket", 1000, NULL) == PINVAULT_E_ARGUMENT);
    CHECK(pinvault_connect("/nonexistent/socket", 1000, &connection) == PINVAULT_E_SYSTEM && connection == NULL);
    struct pinvault_signature signature;
    CHECK(pinvault_sign(NULL, KEY_ID, "a", 1, &signature) == PINVAULT_E_ARGUMENT);
    CHECK(pinvault_sign_digest(NULL, KEY_ID, "a", 1, &signature) == PINVAULT_E_ARGUMENT);
    CHECK(pinvault_unlock(NULL, "alice", NULL, "1", 1, 60, 0, NULL) == PINVAULT_E_ARGUMENT);
    CHECK(strcmp(pinvault_error_name(NULL), "") == 0 && pinvault_error_value(NULL) == 0);
    CHECK(strcmp(pinvault_strerror(PINVAULT_E_WRONG_PIN), "wrong PIN") == 0);
    CHECK(strcmp(pinvault_strerror(12345), "unknown status") == 0);
    /* A status for every value the header names. */
    for (int status = PINVAULT_E_WRONG_PIN; status <= PINVAULT_E_SHUTTING_DOWN; status++)
        CHECK(strcmp(pinvault_strerror(status), "unknown status") != 0);
    for (int status = PINVAULT_OK; status <= PINVAULT_E_SIGNATURE; status++)
        CHECK(strcmp(pinvault_strerror(status), "unknown status") != 0);
    void *secret = pinvault_secret_alloc(64);
    CHECK(secret != NULL);
    if (secret != NULL)
        memset(secret, '7', 64);
    pinvault_secret_free(secret);
    pinvault_secret_free(NULL);
    setenv("PINVAULT_SOCKET", "relative/path", 1);
    CHECK(strcmp(pinvault_default_socket(), PINVAULT_DEFAULT_SOCKET) == 0);
    setenv("PINVAULT_SOCKET", "/run/user/1000/pv.sock", 1);
    CHECK(strcmp(pinvault_default_socket(), "/run/user/1000/pv.sock") == 0);
    unsetenv("PINVAULT_SOCKET");
}

/* A listening socket in a fresh directory: the daemon's side of test_stream_in_step. */
struct peer {
    char directory[64];
    char path[96];
    int listener;
};

static int peer_open(struct peer *peer)
{
    snprintf(peer->directory, sizeof peer->directory, "/tmp/pv-lib-tests.XXXXXX");
    if (mkdtemp(peer->directory) == NULL)
        return -1;
    snprintf(peer->path, sizeof peer->path, "%s/socket", peer->directory);
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    snprintf(address.sun_path, sizeof address.sun_path, "%s", peer->path);
    peer->listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (peer->listener < 0 || bind(peer->listener, (struct sockaddr *)&address, sizeof address) != 0 ||
        listen(peer->listener, 8) != 0)
        return -1;
    return 0;
}

static void peer_close(struct peer *peer)
{
    close(peer->listener);
    unlink(peer->path);
    rmdir(peer->directory);
}

/* A client connection and the daemon's end of it (-1 when either failed). */
static int peer_accept(struct peer *peer, int timeout_ms, pinvault_connection **connection)
{
    *connection = NULL;
    if (pinvault_connect(peer->path, timeout_ms, connection) != PINVAULT_OK)
        return -1;
    return accept(peer->listener, NULL, NULL);
}

/* Bytes the client sent that the daemon's end has not read: 0 when none (nothing was sent). */
static ssize_t pending(int fd)
{
    char bytes[4096];
    ssize_t n = recv(fd, bytes, sizeof bytes, MSG_DONTWAIT);
    return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : n;
}

/*
 * A connection never answers a call with another call's reply: after a timeout, a
 * malformed reply or bytes nobody asked for, and once the daemon has closed it, every
 * call answers CLOSED (or PROTOCOL) without sending. pinvault_check says so first.
 * PINs and users that are not UTF-8 are refused before anything is sent.
 */
static void test_stream_in_step(void)
{
    struct peer peer;
    if (peer_open(&peer) != 0) {
        CHECK(!"a listening socket for the stream tests");
        return;
    }
    pinvault_connection *connection;
    size_t locked = 0;
    static const char lock_reply[] = "{\"parameters\":{\"locked\":1}}";

    /* A healthy connection, then one reply too many from the daemon. */
    int daemon = peer_accept(&peer, 1000, &connection);
    CHECK(daemon >= 0 && pinvault_check(connection) == PINVAULT_OK);
    CHECK(send(daemon, lock_reply, sizeof lock_reply, MSG_NOSIGNAL) == (ssize_t)sizeof lock_reply);
    CHECK(pinvault_check(connection) == PINVAULT_E_PROTOCOL);
    CHECK(pinvault_lock(connection, NULL, &locked) == PINVAULT_E_CLOSED && locked == 0);
    CHECK(pending(daemon) == 0);
    pinvault_close(connection);
    close(daemon);

    /* The daemon closed it (its idle timeout): known before anything is sent. */
    daemon = peer_accept(&peer, 1000, &connection);
    CHECK(daemon >= 0);
    close(daemon);
    CHECK(pinvault_check(connection) == PINVAULT_E_CLOSED);
    CHECK(pinvault_lock(connection, NULL, &locked) == PINVAULT_E_CLOSED);
    pinvault_close(connection);

    /* A call that timed out: its late reply must not answer the next call. */
    daemon = peer_accept(&peer, 50, &connection);
    CHECK(daemon >= 0 && pinvault_lock(connection, NULL, &locked) == PINVAULT_E_TIMEOUT);
    CHECK(pending(daemon) > 0);
    CHECK(send(daemon, lock_reply, sizeof lock_reply, MSG_NOSIGNAL) == (ssize_t)sizeof lock_reply);
    CHECK(pinvault_lock(connection, NULL, &locked) == PINVAULT_E_CLOSED && locked == 0);
    CHECK(pinvault_check(connection) == PINVAULT_E_CLOSED);
    CHECK(pending(daemon) == 0);
    pinvault_close(connection);
    close(daemon);

    /* A PIN or a user that is not UTF-8 is refused, and nothing is sent; a UTF-8 PIN goes. */
    daemon = peer_accept(&peer, 50, &connection);
    CHECK(daemon >= 0);
    CHECK(pinvault_unlock(connection, "alice", NULL, "12\xff" "34", 5, 60, 0, NULL) == PINVAULT_E_ARGUMENT);
    CHECK(pinvault_unlock(connection, "alice", NULL, "\xc3", 1, 60, 0, NULL) == PINVAULT_E_ARGUMENT);
    CHECK(pinvault_unlock(connection, "alice", NULL, "\xed\xa0\x80", 3, 60, 0, NULL) == PINVAULT_E_ARGUMENT);
    struct pinvault_proof proof;
    CHECK(pinvault_authenticate(connection, "al\xe9", NULL, "1234", 4, "c", 1, PINVAULT_OWNER_SELF, &proof) ==
          PINVAULT_E_ARGUMENT);
    CHECK(pinvault_check(connection) == PINVAULT_OK && pending(daemon) == 0);
    CHECK(pinvault_unlock(connection, "alice", NULL, "p\xc3\xa9", 3, 60, 0, NULL) == PINVAULT_E_TIMEOUT);
    CHECK(pending(daemon) > 0);
    pinvault_close(connection);
    close(daemon);
    peer_close(&peer);
}

/* Every reader over one input, as the fuzz target runs them. */
static void read_all(const unsigned char *bytes, size_t length)
{
    struct pv_error error;
    struct pinvault_proof proof;
    struct pinvault_unlock_result unlocked;
    struct pinvault_policy policy;
    struct pinvault_signature signature;
    size_t locked;
    (void)pv_reply_list(bytes, length, NULL, 1000, visit, NULL, &error);
    (void)pv_reply_authenticate(bytes, length, &proof, &error);
    (void)pv_reply_unlock(bytes, length, &unlocked, &error);
    (void)pv_reply_lock(bytes, length, &locked, &error);
    (void)pv_reply_sign(bytes, length, &signature, &error);
    (void)pv_reply_policy(bytes, length, &policy, &error);
}

/* The committed fuzz seeds (libpinvault/tests/fuzz-seeds), read as the fuzzer reads them. */
static unsigned replay_seeds(const char *directory)
{
    DIR *dir = opendir(directory);
    unsigned count = 0;
    if (dir == NULL)
        return 0;
    for (struct dirent *entry; (entry = readdir(dir)) != NULL;) {
        if (entry->d_name[0] == '.')
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", directory, entry->d_name);
        FILE *file = fopen(path, "rb");
        if (file == NULL)
            continue;
        unsigned char bytes[16384];
        size_t length = fread(bytes, 1, sizeof bytes, file);
        fclose(file);
        unsigned char *exact = malloc(length > 0 ? length : 1);
        if (exact == NULL)
            abort();
        memcpy(exact, bytes, length);
        read_all(exact, length);
        free(exact);
        count++;
    }
    closedir(dir);
    return count;
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

static void test_mutations(void)
{
    char credential[1024], seeds[5][2048];
    credential_json(credential, sizeof credential, "alice", 7, 1, 9, "throttled", "\"2026-11-26T21:00:00Z\"");
    snprintf(seeds[0], sizeof seeds[0], "{\"parameters\":{\"credentials\":[%s]}}", credential);
    snprintf(seeds[1], sizeof seeds[1], "{\"parameters\":{\"keyId\":\"" KEY_ID "\",\"unlockedUntil\":\"2026-11-26T21:00:00Z\",\"failedAttemptsCleared\":1}}");
    snprintf(seeds[2], sizeof seeds[2], "{\"parameters\":{\"lockedKeyIds\":[\"" KEY_ID "\"]}}");
    snprintf(seeds[3], sizeof seeds[3], "{\"parameters\":{\"signature\":\"" SIGNATURE_B64 "\"}}");
    snprintf(seeds[4], sizeof seeds[4], "{\"error\":\"org.varlink.service.InvalidParameter\",\"parameters\":{\"parameter\":\"challenge\"}}");
    static const char tokens[] = "{}[]\",:\\0123456789-+.eEtrufalsn \x00\x7f\xc3\xa9\xed\xf4\xff";
    unsigned long runs = 0;
    for (int s = 0; s < 5; s++) {
        size_t seed_length = strlen(seeds[s]);
        for (int round = 0; round < 20000; round++) {
            unsigned char copy[2048 + 16];
            size_t length = seed_length;
            memcpy(copy, seeds[s], seed_length);
            int edits = 1 + (int)(next_random() % 4);
            for (int e = 0; e < edits && length > 0; e++) {
                size_t at = (size_t)(next_random() % length);
                switch (next_random() % 3) {
                case 0: copy[at] = (unsigned char)tokens[next_random() % (sizeof tokens - 1)]; break;
                case 1: copy[at] = (unsigned char)next_random(); break;
                case 2: length = at; break;
                }
            }
            unsigned char *exact = malloc(length > 0 ? length : 1);
            if (exact == NULL)
                abort();
            memcpy(exact, copy, length);
            read_all(exact, length);
            free(exact);
            runs++;
        }
    }
    CHECK(runs == 100000);
}

int main(int argc, char **argv)
{
    if (sodium_init() < 0) {
        printf("sodium_init failed\n");
        return 1;
    }
    test_requests();
    test_list();
    test_purposes();
    test_algorithms();
    test_verify();
    test_replies();
    test_errors();
    test_api_refusals();
    test_stream_in_step();
    CHECK(replay_seeds(argc > 1 ? argv[1] : "libpinvault/tests/fuzz-seeds") >= 10);
    test_mutations();
    printf("libpinvault unit tests: %d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
