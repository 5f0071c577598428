/* The library's calls (pv_request.h). */
#include "pv_request.h"

#include <sodium.h>
#include <stdio.h>
#include <string.h>

void pv_buffer_append(struct pv_buffer *buffer, const void *bytes, size_t count)
{
    if (buffer->overflow || count > buffer->capacity - buffer->length) {
        buffer->overflow = true;
        return;
    }
    memcpy(buffer->data + buffer->length, bytes, count);
    buffer->length += count;
}

static void append_text(struct pv_buffer *buffer, const char *text)
{
    pv_buffer_append(buffer, text, strlen(text));
}

size_t pv_json_escaped_length(const unsigned char *bytes, size_t count)
{
    size_t length = 0;
    for (size_t i = 0; i < count; i++)
        length += bytes[i] == '"' || bytes[i] == '\\' ? 2 : bytes[i] < 0x20 ? 6 : 1;
    return length;
}

void pv_json_escape(struct pv_buffer *buffer, const unsigned char *bytes, size_t count)
{
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < count; i++) {
        unsigned char c = bytes[i];
        if (c == '"' || c == '\\') {
            char escaped[2] = {'\\', (char)c};
            pv_buffer_append(buffer, escaped, 2);
        } else if (c < 0x20) {
            char escaped[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            pv_buffer_append(buffer, escaped, 6);
        } else {
            pv_buffer_append(buffer, &c, 1);
        }
    }
}

static void append_owner(struct pv_buffer *buffer, bool with_owner, uid_t owner)
{
    if (!with_owner)
        return;
    char number[32];
    int n = snprintf(number, sizeof number, ",\"ownerUid\":%lu", (unsigned long)owner);
    if (n < 0 || (size_t)n >= sizeof number) {
        buffer->overflow = true;
        return;
    }
    pv_buffer_append(buffer, number, (size_t)n);
}

bool pv_key_id_valid(const char *key_id)
{
    if (strlen(key_id) != 32)
        return false;
    for (size_t i = 0; i < 32; i++)
        if (!((key_id[i] >= '0' && key_id[i] <= '9') || (key_id[i] >= 'a' && key_id[i] <= 'f')))
            return false;
    return true;
}

/* ,"name":"escaped text" */
static void append_string_field(struct pv_buffer *buffer, const char *name, const unsigned char *bytes, size_t count)
{
    append_text(buffer, ",\"");
    append_text(buffer, name);
    append_text(buffer, "\":\"");
    pv_json_escape(buffer, bytes, count);
    append_text(buffer, "\"");
}

static void append_text_field(struct pv_buffer *buffer, const char *name, const char *text)
{
    append_string_field(buffer, name, (const unsigned char *)text, strlen(text));
}

/* ,"name":"base64", encoded straight into the buffer (base64 needs no escaping). */
static void append_base64_field(struct pv_buffer *buffer, const char *name, const unsigned char *bytes, size_t count)
{
    append_text(buffer, ",\"");
    append_text(buffer, name);
    append_text(buffer, "\":\"");
    size_t encoded = sodium_base64_ENCODED_LEN(count, sodium_base64_VARIANT_ORIGINAL); /* its NUL included */
    if (buffer->overflow || encoded > buffer->capacity - buffer->length ||
        sodium_bin2base64(buffer->data + buffer->length, encoded, bytes, count, sodium_base64_VARIANT_ORIGINAL) == NULL) {
        buffer->overflow = true;
        return;
    }
    buffer->length += encoded - 1;
    append_text(buffer, "\"");
}

/* The call's opening, up to its parameters' "{" and a first member, so that every field starts with ','. */
static void open_call(struct pv_buffer *buffer, const char *method)
{
    append_text(buffer, "{\"method\":\"io.pinvault.Vault.");
    append_text(buffer, method);
    append_text(buffer, "\",\"parameters\":{");
}

/* Closes the parameters and the call, with the NUL that ends the frame. */
static int close_call(struct pv_buffer *buffer)
{
    pv_buffer_append(buffer, "}}", 3);
    return buffer->overflow ? -1 : 0;
}

int pv_request_policy(struct pv_buffer *buffer)
{
    open_call(buffer, "GetPolicy");
    return close_call(buffer);
}

int pv_request_list(struct pv_buffer *buffer, const char *user, const char *purpose, bool with_owner, uid_t owner)
{
    open_call(buffer, "List");
    size_t start = buffer->length;
    if (user != NULL)
        append_text_field(buffer, "user", user);
    if (purpose != NULL)
        append_text_field(buffer, "purpose", purpose);
    append_owner(buffer, with_owner, owner);
    /* The first field's ',' goes: the parameters open with a member. */
    if (!buffer->overflow && buffer->length > start)
        memmove(buffer->data + start, buffer->data + start + 1, --buffer->length - start);
    return close_call(buffer);
}

/* Everything of an Authenticate or Unlock call but the escaped user and PIN and the challenge. */
#define PIN_CALL_FRAME_BYTES 256

size_t pv_request_pin_call_size(const char *user, size_t pin_length_escaped, size_t challenge_length)
{
    return PIN_CALL_FRAME_BYTES + pv_json_escaped_length((const unsigned char *)user, strlen(user)) +
           pin_length_escaped + sodium_base64_ENCODED_LEN(challenge_length, sodium_base64_VARIANT_ORIGINAL);
}

int pv_request_authenticate(struct pv_buffer *buffer, const char *user, const char *key_id,
                            const unsigned char *pin, size_t pin_length,
                            const unsigned char *challenge, size_t challenge_length,
                            bool with_owner, uid_t owner)
{
    if (challenge_length == 0 || challenge_length > PV_CHALLENGE_MAX_BYTES || pin_length > PV_PIN_MAX_BYTES ||
        (key_id != NULL && !pv_key_id_valid(key_id)))
        return -1;
    open_call(buffer, "Authenticate");
    append_text(buffer, "\"user\":\"");
    pv_json_escape(buffer, (const unsigned char *)user, strlen(user));
    append_text(buffer, "\"");
    if (key_id != NULL)
        append_text_field(buffer, "keyId", key_id);
    append_base64_field(buffer, "challenge", challenge, challenge_length);
    append_owner(buffer, with_owner, owner);
    append_string_field(buffer, "pin", pin, pin_length);
    return close_call(buffer);
}

int pv_request_unlock(struct pv_buffer *buffer, const char *user, const char *key_id,
                      const unsigned char *pin, size_t pin_length, int64_t ttl_seconds, bool bind_to_connection)
{
    char number[48];
    if (pin_length > PV_PIN_MAX_BYTES || (key_id != NULL && !pv_key_id_valid(key_id)))
        return -1;
    int n = snprintf(number, sizeof number, ",\"ttlSeconds\":%lld", (long long)ttl_seconds);
    if (n < 0 || (size_t)n >= sizeof number)
        return -1;
    open_call(buffer, "Unlock");
    append_text(buffer, "\"user\":\"");
    pv_json_escape(buffer, (const unsigned char *)user, strlen(user));
    append_text(buffer, "\"");
    if (key_id != NULL)
        append_text_field(buffer, "keyId", key_id);
    pv_buffer_append(buffer, number, (size_t)n);
    if (bind_to_connection)
        append_text(buffer, ",\"bindToConnection\":true");
    append_string_field(buffer, "pin", pin, pin_length);
    return close_call(buffer);
}

int pv_request_lock(struct pv_buffer *buffer, const char *key_id)
{
    if (key_id != NULL && !pv_key_id_valid(key_id))
        return -1;
    open_call(buffer, "Lock");
    if (key_id != NULL) {
        append_text(buffer, "\"keyId\":\"");
        append_text(buffer, key_id);
        append_text(buffer, "\"");
    }
    return close_call(buffer);
}

/* Everything of a Sign or SignDigest call but the base64 of its bytes. */
#define BYTES_CALL_FRAME_BYTES 128

size_t pv_request_bytes_call_size(size_t length)
{
    return BYTES_CALL_FRAME_BYTES + sodium_base64_ENCODED_LEN(length, sodium_base64_VARIANT_ORIGINAL);
}

/* A call of a keyId and some bytes: Sign's challenge, SignDigest's digest. */
static int bytes_call(struct pv_buffer *buffer, const char *method, const char *key_id, const char *name,
                      const unsigned char *bytes, size_t length)
{
    open_call(buffer, method);
    append_text(buffer, "\"keyId\":\"");
    append_text(buffer, key_id);
    append_text(buffer, "\"");
    append_base64_field(buffer, name, bytes, length);
    return close_call(buffer);
}

int pv_request_sign(struct pv_buffer *buffer, const char *key_id, const unsigned char *message,
                    size_t message_length)
{
    if (!pv_key_id_valid(key_id) || message_length == 0 || message_length > PV_MESSAGE_MAX_BYTES)
        return -1;
    return bytes_call(buffer, "Sign", key_id, "challenge", message, message_length);
}

int pv_request_sign_digest(struct pv_buffer *buffer, const char *key_id, const unsigned char *digest,
                           size_t digest_length)
{
    if (!pv_key_id_valid(key_id) || digest_length == 0 || digest_length > PV_DIGEST_MAX_BYTES)
        return -1;
    return bytes_call(buffer, "SignDigest", key_id, "digest", digest, digest_length);
}
