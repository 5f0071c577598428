/*
 * The challenge the module has pinvaultd sign (no I/O), exactly, byte for byte
 * (docs/PAM.md):
 *     "pam_pinvault v1" 0x00 SERVICE 0x00 USER 0x00 NONCE
 * SERVICE is PAM_SERVICE and USER the PAM user, as given to the module (no
 * terminator of their own), and NONCE 32 bytes from randombytes_buf. A signature
 * made for one service, user or sign-in is worth nothing for another.
 */
#ifndef PV_CHALLENGE_H
#define PV_CHALLENGE_H

#include <stddef.h>

#include <pinvault.h>

#define PV_CONTEXT "pam_pinvault v1"
#define PV_NONCE_BYTES 32
#define PV_SERVICE_MAX_BYTES 255

/* Writes the challenge into `out` (PINVAULT_CHALLENGE_MAX_BYTES); its length, or 0 when too long. */
size_t pv_challenge(unsigned char *out, const char *service, const char *user,
                    const unsigned char nonce[PV_NONCE_BYTES]);

#endif
