/*
 * The two calls the module makes, as Varlink frames (JSON + NUL), and the
 * challenge it has signed (no I/O).
 *
 * The challenge is exactly, byte for byte (docs/PAM.md):
 *     "pam_pinvault v1" 0x00 SERVICE 0x00 USER 0x00 NONCE
 * SERVICE is PAM_SERVICE and USER the PAM user, as given to the module (no
 * terminator of their own), and NONCE 32 bytes from randombytes_buf. A signature
 * made for one service, user or sign-in is worth nothing for another.
 */
#ifndef PV_REQUEST_H
#define PV_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define PV_CONTEXT "pam_pinvault v1"
#define PV_NONCE_BYTES 32
#define PV_CHALLENGE_MAX_BYTES 1024 /* Authenticate's limit (ProtocolLimits.challengeBytes) */
#define PV_SERVICE_MAX_BYTES 255
#define PV_PIN_MAX_BYTES 1024       /* ProtocolLimits.pinBytes */

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

/* Writes the challenge into `out` (PV_CHALLENGE_MAX_BYTES); its length, or 0 when too long. */
size_t pv_challenge(unsigned char *out, const char *service, const char *user,
                    const unsigned char nonce[PV_NONCE_BYTES]);

/* The List call for `user`, with ownerUid when `with_owner`; 0 on success. */
int pv_request_list(struct pv_buffer *buffer, const char *user, bool with_owner, uid_t owner);

/* Capacity an Authenticate call needs (NUL included), so that it is allocated once. */
size_t pv_request_authenticate_size(const char *user, const unsigned char *pin, size_t pin_length,
                                    size_t challenge_length);

/*
 * The Authenticate call. The PIN is escaped straight into `buffer` (the caller's
 * locked memory); no other copy is made. 0 on success.
 */
int pv_request_authenticate(struct pv_buffer *buffer, const char *user, const char *key_id,
                            const unsigned char *pin, size_t pin_length,
                            const unsigned char *challenge, size_t challenge_length,
                            bool with_owner, uid_t owner);

#endif
