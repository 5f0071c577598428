/* Which credential the module signs in with (pv_choice.h). */
#include "pv_choice.h"

#include <string.h>

void pv_choice_init(struct pv_choice *choice, const char *label)
{
    memset(choice, 0, sizeof *choice);
    choice->label = label;
}

static bool labelled(const struct pv_credential *credential, const char *label)
{
    return credential->has_label && strcmp(credential->label, label) == 0;
}

/* Counts `credential` among those that fit, keeping the first. */
static void count(unsigned *fitting, struct pv_credential *first, const struct pv_credential *credential)
{
    if ((*fitting)++ == 0)
        *first = *credential;
}

void pv_choice_consider(void *context, const struct pv_credential *credential)
{
    struct pv_choice *choice = context;
    switch (credential->purpose) {
    case PV_PURPOSE_LOGIN:
        if (choice->label == NULL || labelled(credential, choice->label))
            count(&choice->logins, &choice->login, credential);
        break;
    case PV_PURPOSE_LEGACY:
        if (labelled(credential, choice->label != NULL ? choice->label : PV_LEGACY_LABEL))
            count(&choice->legacies, &choice->legacy, credential);
        break;
    case PV_PURPOSE_AUTHENTICATE:
    case PV_PURPOSE_SSH:
    case PV_PURPOSE_OTHER:
        break;
    }
}

const struct pv_credential *pv_choice_result(const struct pv_choice *choice, unsigned *fitting)
{
    if (choice->logins > 0) {
        *fitting = choice->logins;
        return &choice->login;
    }
    *fitting = choice->legacies;
    return choice->legacies > 0 ? &choice->legacy : NULL;
}
