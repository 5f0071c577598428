/*
 * The library's calls as Varlink frames (JSON + NUL), built into a bounded buffer
 * (no I/O). A PIN is escaped straight into the buffer, which the caller keeps in
 * locked memory and wipes once sent: no other copy is made.
 */
#ifndef PV_REQUEST_H
#define PV_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pinvault.h"

#define PV_CHALLENGE_MAX_BYTES PINVAULT_CHALLENGE_MAX_BYTES /* Authenticate's (ProtocolLimits.challengeBytes) */
#define PV_MESSAGE_MAX_BYTES PINVAULT_MESSAGE_MAX_BYTES     /* Sign's (ProtocolLimits.signMessageBytes) */
#define PV_DIGEST_MAX_BYTES PINVAULT_DIGEST_MAX_BYTES       /* SignDigest's, at most */
#define PV_PIN_MAX_BYTES PINVAULT_PIN_MAX_BYTES             /* ProtocolLimits.pinBytes */

/* A bounded output; `overflow` is set, and nothing more written, once it is full. */
struct pv_buffer {
    char *data;
    size_t capacity;
    size_t length;
    bool overflow;
};

void pv_buffer_append(struct pv_buffer *buffer, const void *bytes, size_t count);

/* Bytes that `bytes` take as the contents of a JSON string (escaped, no quotes). */
size_t pv_json_escaped_length(const unsigned char *bytes, size_t count);

/* Appends `bytes` as the contents of a JSON string. */
void pv_json_escape(struct pv_buffer *buffer, const unsigned char *bytes, size_t count);

/* Whether `key_id` is 32 lowercase hex digits. */
bool pv_key_id_valid(const char *key_id);

/* GetPolicy. */
int pv_request_policy(struct pv_buffer *buffer);

/* List, of `user` and `purpose` when not NULL, with ownerUid when `with_owner`; 0 on success. */
int pv_request_list(struct pv_buffer *buffer, const char *user, const char *purpose, bool with_owner, uid_t owner);

/*
 * Capacity a PIN call (Authenticate, Unlock) needs, NUL included, so that its
 * locked buffer is allocated once.
 */
size_t pv_request_pin_call_size(const char *user, size_t pin_length_escaped, size_t challenge_length);

/* Authenticate (`key_id` may be NULL). 0 on success. */
int pv_request_authenticate(struct pv_buffer *buffer, const char *user, const char *key_id,
                            const unsigned char *pin, size_t pin_length,
                            const unsigned char *challenge, size_t challenge_length,
                            bool with_owner, uid_t owner);

/* Unlock (`key_id` may be NULL). 0 on success. */
int pv_request_unlock(struct pv_buffer *buffer, const char *user, const char *key_id,
                      const unsigned char *pin, size_t pin_length, int64_t ttl_seconds, bool bind_to_connection);

/* Lock (`key_id` NULL: all). */
int pv_request_lock(struct pv_buffer *buffer, const char *key_id);

/*
 * Capacity a call of a keyId and `length` bytes (Sign, SignDigest) needs, NUL included.
 */
size_t pv_request_bytes_call_size(size_t length);

/* Sign: a message of 1 to PV_MESSAGE_MAX_BYTES. */
int pv_request_sign(struct pv_buffer *buffer, const char *key_id, const unsigned char *message,
                    size_t message_length);

/* SignDigest: a digest of 1 to PV_DIGEST_MAX_BYTES (the daemon judges its size for the key). */
int pv_request_sign_digest(struct pv_buffer *buffer, const char *key_id, const unsigned char *digest,
                           size_t digest_length);

#endif
