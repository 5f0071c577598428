/* Which credential the module signs in with (pv_choice.h). */
#include "pv_choice.h"

#include <string.h>

void pv_choice_init(struct pv_choice *choice, const char *label)
{
    memset(choice, 0, sizeof *choice);
    choice->label = label;
}

static bool labelled(const pinvault_credential *credential, const char *label)
{
    const char *own = pinvault_credential_label(credential);
    return own != NULL && strcmp(own, label) == 0;
}

/* Counts `credential` among those that fit, keeping the first. */
static void count(unsigned *fitting, struct pv_login_credential *first, const pinvault_credential *credential)
{
    if ((*fitting)++ > 0)
        return;
    memcpy(first->key_id, pinvault_credential_key_id(credential), sizeof first->key_id);
    first->algorithm = pinvault_credential_algorithm(credential);
    first->public_key = *pinvault_credential_public_key(credential);
    first->state = pinvault_credential_state(credential);
    first->locked_until = pinvault_credential_locked_until(credential);
}

void pv_choice_consider(void *context, const pinvault_credential *credential)
{
    struct pv_choice *choice = context;
    if (pinvault_credential_algorithm(credential) == PINVAULT_ALGORITHM_OTHER)
        return;
    switch (pinvault_credential_purpose(credential)) {
    case PINVAULT_PURPOSE_LOGIN:
        if (choice->label == NULL || labelled(credential, choice->label))
            count(&choice->logins, &choice->login, credential);
        break;
    case PINVAULT_PURPOSE_LEGACY:
        if (labelled(credential, choice->label != NULL ? choice->label : PV_LEGACY_LABEL))
            count(&choice->legacies, &choice->legacy, credential);
        break;
    default: /* every other purpose, those added later too: never pam_pinvault's */
        break;
    }
}

const struct pv_login_credential *pv_choice_result(const struct pv_choice *choice, unsigned *fitting)
{
    if (choice->logins > 0) {
        *fitting = choice->logins;
        return &choice->login;
    }
    *fitting = choice->legacies;
    return choice->legacies > 0 ? &choice->legacy : NULL;
}
