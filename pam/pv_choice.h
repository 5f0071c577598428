/*
 * Which of the user's credentials pam_pinvault signs in with (docs/PAM.md, "Which
 * credential"), decided over the credentials of one List reply (no I/O):
 *
 *  - one of purpose login: the only one, or the one labelled `label` when the
 *    service names a label (label=);
 *  - when the user has none that fits, one of purpose legacy (made before key
 *    purposes, or listed by a daemon that names none) labelled `label`, or
 *    "login" when no label is named: the credentials that worked before;
 *  - never one made for authenticate or ssh, nor of a purpose this module does
 *    not know: their PINs guard other doors;
 *  - never one of an algorithm libpinvault cannot verify (a later release's):
 *    its PIN would be spent on a signature the module could not check.
 */
#ifndef PV_CHOICE_H
#define PV_CHOICE_H

#include <stdbool.h>
#include <stdint.h>

#include <pinvault.h>

/* The label a legacy credential must carry when the service names none. */
#define PV_LEGACY_LABEL "login"

/* What the module keeps of a listed credential (pinvault_credential lives only for the visit). */
struct pv_login_credential {
    char key_id[PINVAULT_KEY_ID_LENGTH + 1];
    pinvault_algorithm algorithm;
    struct pinvault_public_key public_key;
    pinvault_state state;
    /* While throttled: Unix seconds of lockedUntil, or -1 when absent. */
    int64_t locked_until;
};

struct pv_choice {
    const char *label;                /* label=, or NULL */
    unsigned logins;                  /* login credentials that fit */
    unsigned legacies;                /* legacy credentials that fit */
    struct pv_login_credential login; /* the first of each */
    struct pv_login_credential legacy;
};

/* Starts a choice for a service that names `label` (NULL: none). */
void pv_choice_init(struct pv_choice *choice, const char *label);

/* A pinvault_credential_visitor (`context` is the struct pv_choice): weighs one listed credential. */
void pv_choice_consider(void *context, const pinvault_credential *credential);

/*
 * The credential chosen, or NULL when none fits; `*fitting` is how many fit as
 * well as it (more than 1: the service must name a label that tells them apart).
 */
const struct pv_login_credential *pv_choice_result(const struct pv_choice *choice, unsigned *fitting);

#endif
