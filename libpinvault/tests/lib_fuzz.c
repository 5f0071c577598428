/*
 * libFuzzer over every reply libpinvault reads (`make lib-fuzz`): any bytes, no
 * crash, no read out of bounds, and nothing accepted that breaks the reader's
 * contract. Each input is, whole, a reply to List (of one user and of all),
 * Authenticate, Unlock, Lock, Sign and GetPolicy.
 */
#include <sodium.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pv_reply.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every credential a List reply hands over holds NUL-terminated fields within their arrays. */
static void check_credential(void *context, const pinvault_credential *credential)
{
    (void)context;
    if (strlen(credential->user) > PV_USER_MAX_BYTES || strlen(credential->key_id) != PV_KEY_ID_HEX ||
        (credential->has_label && strlen(credential->label) > PV_LABEL_MAX_BYTES) ||
        !pv_public_key_fits(credential->algorithm, &credential->public_key))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int initialized;
    if (!initialized) {
        if (sodium_init() < 0)
            return 0;
        initialized = 1;
    }
    struct pv_error error;
    struct pinvault_proof proof;
    struct pinvault_unlock_result unlocked;
    struct pinvault_policy policy;
    struct pinvault_signature signature;
    size_t locked;
    (void)pv_reply_list(data, size, "alice", 1000, check_credential, NULL, &error);
    (void)pv_reply_list(data, size, NULL, 1000, check_credential, NULL, &error);
    (void)pv_reply_authenticate(data, size, &proof, &error);
    (void)pv_reply_unlock(data, size, &unlocked, &error);
    (void)pv_reply_lock(data, size, &locked, &error);
    if (pv_reply_sign(data, size, &signature, &error) == PV_REPLY_OK &&
        (signature.length == 0 || signature.length > sizeof signature.bytes))
        abort();
    if (pv_reply_policy(data, size, &policy, &error) == PV_REPLY_ERROR && strlen(error.detail) >= PV_ERROR_DETAIL_MAX)
        abort();
    return 0;
}
