/* libFuzzer over the module's reply parser (`make pam-fuzz`): any bytes, no crash. */
#include <sodium.h>
#include <stddef.h>
#include <stdint.h>

#include "../pv_reply.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int initialized;
    if (!initialized) {
        if (sodium_init() < 0)
            return 0;
        initialized = 1;
    }
    struct pv_list list;
    struct pv_proof proof;
    struct pv_error error;
    (void)pv_reply_list(data, size, "alice", 1000, "login", &list, &error);
    (void)pv_reply_authenticate(data, size, &proof, &error);
    return 0;
}
