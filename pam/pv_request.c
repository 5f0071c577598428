/* The module's calls and its challenge (pv_request.h). */
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

size_t pv_challenge(unsigned char *out, const char *service, const char *user,
                    const unsigned char nonce[PV_NONCE_BYTES])
{
    size_t context = sizeof PV_CONTEXT; /* its NUL is the first separator */
    size_t service_length = strlen(service), user_length = strlen(user);
    if (service_length > PV_SERVICE_MAX_BYTES || user_length > PV_CHALLENGE_MAX_BYTES)
        return 0;
    size_t total = context + service_length + 1 + user_length + 1 + PV_NONCE_BYTES;
    if (total > PV_CHALLENGE_MAX_BYTES)
        return 0;
    unsigned char *p = out;
    memcpy(p, PV_CONTEXT, context);
    p += context;
    memcpy(p, service, service_length + 1);
    p += service_length + 1;
    memcpy(p, user, user_length + 1);
    p += user_length + 1;
    memcpy(p, nonce, PV_NONCE_BYTES);
    return total;
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

int pv_request_list(struct pv_buffer *buffer, const char *user, bool with_owner, uid_t owner)
{
    append_text(buffer, "{\"method\":\"io.pinvault.Vault.List\",\"parameters\":{\"user\":\"");
    pv_json_escape(buffer, (const unsigned char *)user, strlen(user));
    append_text(buffer, "\"");
    append_owner(buffer, with_owner, owner);
    pv_buffer_append(buffer, "}}", 3); /* with the NUL that ends the frame */
    return buffer->overflow ? -1 : 0;
}

/* Everything of an Authenticate call but the escaped user and PIN and the challenge. */
#define AUTHENTICATE_FRAME_BYTES 200

size_t pv_request_authenticate_size(const char *user, const unsigned char *pin, size_t pin_length,
                                    size_t challenge_length)
{
    return AUTHENTICATE_FRAME_BYTES + pv_json_escaped_length((const unsigned char *)user, strlen(user)) +
           pv_json_escaped_length(pin, pin_length) +
           sodium_base64_ENCODED_LEN(challenge_length, sodium_base64_VARIANT_ORIGINAL);
}

int pv_request_authenticate(struct pv_buffer *buffer, const char *user, const char *key_id,
                            const unsigned char *pin, size_t pin_length,
                            const unsigned char *challenge, size_t challenge_length,
                            bool with_owner, uid_t owner)
{
    char encoded[sodium_base64_ENCODED_LEN(PV_CHALLENGE_MAX_BYTES, sodium_base64_VARIANT_ORIGINAL)];
    if (challenge_length == 0 || challenge_length > PV_CHALLENGE_MAX_BYTES || strlen(key_id) != 32)
        return -1;
    if (sodium_bin2base64(encoded, sizeof encoded, challenge, challenge_length, sodium_base64_VARIANT_ORIGINAL) == NULL)
        return -1;
    append_text(buffer, "{\"method\":\"io.pinvault.Vault.Authenticate\",\"parameters\":{\"user\":\"");
    pv_json_escape(buffer, (const unsigned char *)user, strlen(user));
    append_text(buffer, "\",\"keyId\":\"");
    append_text(buffer, key_id);
    append_text(buffer, "\",\"challenge\":\"");
    append_text(buffer, encoded);
    append_text(buffer, "\"");
    append_owner(buffer, with_owner, owner);
    append_text(buffer, ",\"pin\":\"");
    pv_json_escape(buffer, pin, pin_length);
    pv_buffer_append(buffer, "\"}}", 4); /* with the NUL that ends the frame */
    return buffer->overflow ? -1 : 0;
}
