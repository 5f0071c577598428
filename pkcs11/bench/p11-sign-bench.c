/*
 * p11-sign-bench: the signature round trips of `make bench`'s PKCS#11 section, one
 * C loop for every party, so that they compare (Benchmarks/pinvault-bench,
 * PKCS11SignBenchmark.swift). The PIN comes on standard input.
 *
 *   p11-sign-bench pkcs11 MODULE TOKEN_LABEL ROUNDS CALLS [MECHANISM]
 *                                                          C_SignInit + C_Sign of 32 bytes, MECHANISM EDDSA
 *                                                          (the default) or ECDSA (the 32 bytes as a SHA-256 digest)
 *   p11-sign-bench varlink USER KEY_ID ROUNDS CALLS        libpinvault's pinvault_sign (Varlink Sign)
 *   p11-sign-bench varlink-verify USER KEY_ID ROUNDS CALLS the same, each signature verified with the listed key
 *                                                          (what the module's C_Sign does before it returns one)
 *
 * Logs in (or unlocks) once, signs 50 times uncounted, then prints one line per
 * round: CALLS signatures divided by the round's seconds (CLOCK_MONOTONIC).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pinvault.h>
#include <sodium.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pv_pkcs11.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void fail(const char *what, unsigned long code)
{
    fprintf(stderr, "p11-sign-bench: %s: 0x%lx\n", what, code);
    exit(1);
}

static void read_pin(char *pin, size_t size)
{
    if (fgets(pin, (int)size, stdin) == NULL)
        fail("no PIN on standard input", 0);
    pin[strcspn(pin, "\n")] = '\0';
}

static unsigned char data[32] = "p11-sign-bench: 32 bytes signed";

/* One round trip of the party under test. */
struct party {
    CK_FUNCTION_LIST *p11;
    CK_MECHANISM_TYPE mechanism;
    CK_SESSION_HANDLE session;
    CK_OBJECT_HANDLE key;
    pinvault_connection *vault;
    const char *key_id;
    bool verify;
    pinvault_algorithm algorithm;
    struct pinvault_public_key public_key;
};

/* List's visitor: the public key of the party's credential. */
static void take_public_key(void *context, const pinvault_credential *credential)
{
    struct party *party = context;
    if (strcmp(pinvault_credential_key_id(credential), party->key_id) == 0) {
        party->algorithm = pinvault_credential_algorithm(credential);
        party->public_key = *pinvault_credential_public_key(credential);
        party->verify = true;
    }
}

static void sign_once(struct party *party)
{
    unsigned char signature[64];
    if (party->p11 != NULL) {
        CK_MECHANISM mechanism = {party->mechanism, NULL, 0};
        CK_ULONG length = sizeof signature;
        CK_RV rv = party->p11->C_SignInit(party->session, &mechanism, party->key);
        if (rv == CKR_OK)
            rv = party->p11->C_Sign(party->session, data, sizeof data, signature, &length);
        if (rv != CKR_OK)
            fail("C_Sign", rv);
    } else {
        struct pinvault_signature made;
        int status = pinvault_sign(party->vault, party->key_id, data, sizeof data, &made);
        if (status != PINVAULT_OK)
            fail("pinvault_sign", (unsigned long)status);
        if (party->verify && pinvault_verify(party->algorithm, &party->public_key, data, sizeof data, &made) != PINVAULT_OK)
            fail("a signature that does not verify", 0);
    }
}

static void open_pkcs11(struct party *party, const char *module, const char *label, const char *pin)
{
    void *library = dlopen(module, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL)
        fail(dlerror(), 0);
    CK_C_GetFunctionList get = (CK_C_GetFunctionList)dlsym(library, "C_GetFunctionList");
    if (get == NULL || get(&party->p11) != CKR_OK)
        fail("C_GetFunctionList", 0);
    CK_C_INITIALIZE_ARGS args = {.flags = CKF_OS_LOCKING_OK};
    CK_RV rv = party->p11->C_Initialize(&args);
    if (rv != CKR_OK)
        fail("C_Initialize", rv);
    CK_SLOT_ID slots[64];
    CK_ULONG count = 64;
    if ((rv = party->p11->C_GetSlotList(CK_TRUE, slots, &count)) != CKR_OK)
        fail("C_GetSlotList", rv);
    size_t label_length = strlen(label);
    for (CK_ULONG i = 0; i < count; i++) {
        CK_TOKEN_INFO token;
        if (party->p11->C_GetTokenInfo(slots[i], &token) != CKR_OK)
            continue;
        size_t length = sizeof token.label;
        while (length > 0 && token.label[length - 1] == ' ')
            length--;
        if (length != label_length || memcmp(token.label, label, length) != 0)
            continue;
        if ((rv = party->p11->C_OpenSession(slots[i], CKF_SERIAL_SESSION, NULL, NULL, &party->session)) != CKR_OK)
            fail("C_OpenSession", rv);
        if ((rv = party->p11->C_Login(party->session, CKU_USER, (CK_UTF8CHAR_PTR)pin, strlen(pin))) != CKR_OK)
            fail("C_Login", rv);
        CK_OBJECT_CLASS class = CKO_PRIVATE_KEY;
        CK_ATTRIBUTE template = {CKA_CLASS, &class, sizeof class};
        CK_ULONG found = 0;
        if (party->p11->C_FindObjectsInit(party->session, &template, 1) != CKR_OK ||
            party->p11->C_FindObjects(party->session, &party->key, 1, &found) != CKR_OK || found != 1 ||
            party->p11->C_FindObjectsFinal(party->session) != CKR_OK)
            fail("no private key on the token", found);
        return;
    }
    fail("no token with that label", count);
}

int main(int argc, char **argv)
{
    if (argc != 6 && !(argc == 7 && strcmp(argv[1], "pkcs11") == 0)) {
        fprintf(stderr, "usage: p11-sign-bench pkcs11 MODULE TOKEN_LABEL ROUNDS CALLS [EDDSA|ECDSA] | "
                        "varlink[-verify] USER KEY_ID ROUNDS CALLS\n");
        return 2;
    }
    int rounds = atoi(argv[4]), calls = atoi(argv[5]);
    char pin[1100];
    read_pin(pin, sizeof pin);
    struct party party = {.mechanism = CKM_EDDSA};
    if (argc == 7 && strcmp(argv[6], "ECDSA") == 0)
        party.mechanism = CKM_ECDSA;
    else if (argc == 7 && strcmp(argv[6], "EDDSA") != 0)
        fail("no such mechanism", 0);
    if (strcmp(argv[1], "pkcs11") == 0) {
        open_pkcs11(&party, argv[2], argv[3], pin);
    } else {
        int status = pinvault_connect(NULL, 60000, &party.vault);
        if (status == PINVAULT_OK)
            status = pinvault_unlock(party.vault, argv[2], argv[3], pin, strlen(pin), 3600,
                                     PINVAULT_UNLOCK_BIND_TO_CONNECTION, NULL);
        if (status != PINVAULT_OK)
            fail("pinvault_unlock", (unsigned long)status);
        party.key_id = argv[3];
        if (strcmp(argv[1], "varlink-verify") == 0 &&
            (pinvault_list(party.vault, argv[2], NULL, PINVAULT_OWNER_SELF, take_public_key, &party) != PINVAULT_OK ||
             !party.verify))
            fail("no public key listed for the key", 0);
    }
    memset(pin, 0, sizeof pin);
    for (int i = 0; i < 50; i++)
        sign_once(&party);
    for (int round = 0; round < rounds; round++) {
        double begin = now();
        for (int i = 0; i < calls; i++)
            sign_once(&party);
        printf("%.1f\n", calls / (now() - begin));
        fflush(stdout);
    }
    if (party.p11 != NULL)
        party.p11->C_Finalize(NULL);
    pinvault_close(party.vault);
    return 0;
}
