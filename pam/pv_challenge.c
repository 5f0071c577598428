/* The module's challenge (pv_challenge.h). */
#include "pv_challenge.h"

#include <string.h>

size_t pv_challenge(unsigned char *out, const char *service, const char *user,
                    const unsigned char nonce[PV_NONCE_BYTES])
{
    size_t context = sizeof PV_CONTEXT; /* its NUL is the first separator */
    size_t service_length = strlen(service), user_length = strlen(user);
    if (service_length > PV_SERVICE_MAX_BYTES || user_length > PINVAULT_CHALLENGE_MAX_BYTES)
        return 0;
    size_t total = context + service_length + 1 + user_length + 1 + PV_NONCE_BYTES;
    if (total > PINVAULT_CHALLENGE_MAX_BYTES)
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
