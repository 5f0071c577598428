/*
 * Layer 2 of the module (docs/ARCHITECTURE.md, "The C door"): the ground every
 * entry point stands on - the one lock, the fork check, the one connection to
 * pinvaultd and the one table from its errors to CKR_ values. It knows nothing of
 * slots or sessions.
 *
 * One process-wide module, one Varlink connection to pinvaultd, opened when first
 * needed. Every entry point takes the one module lock for its whole call (daemon
 * round trip included): PKCS#11 applications call from many threads, and the
 * connection is one stream.
 *
 * Fork: the state belongs to the process that called C_Initialize (its pid is
 * kept). In a child every call answers CKR_CRYPTOKI_NOT_INITIALIZED until the
 * child calls C_Initialize, which forgets the parent's state - its connection is
 * closed unused, its logins are the parent's - as PKCS#11 3.0 §6.7.6 asks.
 */
#ifndef PV_CORE_H
#define PV_CORE_H

#include <pinvault.h>
#include <stdbool.h>
#include <stdint.h>

#include "pv_pkcs11.h"

#define PV_EXPORT __attribute__((visibility("default")))

/*
 * How long a call to pinvaultd may take: C_Login's Unlock runs Argon2id behind others'
 * (and may wait its turn in a full KDF pool); everything else answers at once, so a
 * daemon that stops answering holds the application (and the module's lock) briefly.
 */
#define PV_CALL_TIMEOUT_MS 5000
#define PV_LOGIN_TIMEOUT_MS 30000

/*
 * Enters a call: locks the module and checks that this process initialized it.
 * On CKR_OK the caller must pv_leave(); on anything else nothing is held.
 */
CK_RV pv_enter(void);
void pv_leave(void);
/* pv_leave() and `rv`, for `return pv_done(rv);`. */
CK_RV pv_done(CK_RV rv);

/*
 * C_Initialize's part: in a child of the process that initialized the module, the
 * parent's lock and connection are forgotten (the connection closed unused). On
 * CKR_OK the module is locked, not yet initialized, its connection none: the caller
 * resets the layers above and calls pv_core_started(), which marks it initialized by
 * this process and unlocks it. CKR_CRYPTOKI_ALREADY_INITIALIZED, or another error,
 * holds nothing.
 */
CK_RV pv_core_start(void);
void pv_core_started(void);

/* C_Finalize's part, under the lock: closes the connection and marks the module not initialized. */
void pv_core_stop(void);

/*
 * The connection to pinvaultd, opened (or opened again) when needed, its server
 * checked: root, the pinvault user, or the caller's own uid. NULL when none can be
 * had (*rv says why, CKR_DEVICE_ERROR).
 */
pinvault_connection *pv_connection(CK_RV *rv);

/* The open connection, or NULL: what a logout uses, never opening one. */
pinvault_connection *pv_open_connection(void);

/*
 * Which connection is open: a number that changes whenever a connection is closed
 * or made. A login is an unlock bound to the connection it was made on, so it is
 * alive only while this number is the one it was made under.
 */
uint64_t pv_connection_generation(void);

/*
 * After a call on the connection failed with `status`: a failure of the connection
 * itself closes it, and with it every login (the daemon ends bound sessions when
 * their connection goes).
 */
void pv_connection_failed(int status);

/* Closes the connection: every login was a session bound to it, so each ends with it. */
void pv_drop_connection(void);

/* The PKCS#11 error for a daemon's or the library's status; `pin_call` for C_Login. */
CK_RV pv_ckr(int status, bool pin_call);

/* `text` as a blank-padded PKCS#11 string field of `size` bytes, cut at a UTF-8 boundary. */
void pv_pad(unsigned char *field, size_t size, const char *text);

#endif
