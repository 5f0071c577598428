/*
 * libFuzzer over the module's parsers (`make pam-fuzz`): any bytes, no crash, no
 * read out of bounds. Each input is, whole, a reply to List (read into the choice
 * of credential, with and without label=) and to Authenticate; and, split at its
 * first NUL, a PAM_RHOST and the text of a hosts file after it.
 */
#include <sodium.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pv_choice.h"
#include "pv_locality.h"
#include "pv_reply.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_replies(const uint8_t *data, size_t size)
{
    struct pinvault_proof proof;
    struct pv_error error;
    const char *labels[] = {NULL, "login"};
    for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++) {
        struct pv_choice choice;
        unsigned fitting;
        pv_choice_init(&choice, labels[i]);
        if (pv_reply_list(data, size, "alice", 1000, pv_choice_consider, &choice, &error) == PV_REPLY_OK)
            (void)pv_choice_result(&choice, &fitting);
    }
    (void)pv_reply_authenticate(data, size, &proof, &error);
}

static void fuzz_locality(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, 0, size);
    size_t rhost_length = nul != NULL ? (size_t)(nul - data) : size;
    char *rhost = malloc(rhost_length + 1);
    if (rhost == NULL)
        return;
    memcpy(rhost, data, rhost_length);
    rhost[rhost_length] = '\0';
    const char *hosts = nul != NULL ? (const char *)nul + 1 : (const char *)data + size;
    size_t hosts_length = nul != NULL ? size - rhost_length - 1 : 0;
    (void)pv_origin(rhost, NULL, false, "vm");
    (void)pv_origin(rhost, NULL, false, "");
    (void)pv_hosts_names_this_machine(hosts, hosts_length, "vm", rhost);
    free(rhost);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int initialized;
    if (!initialized) {
        if (sodium_init() < 0)
            return 0;
        initialized = 1;
    }
    fuzz_replies(data, size);
    fuzz_locality(data, size);
    return 0;
}
