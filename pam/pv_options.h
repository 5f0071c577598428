/* The module's arguments in a PAM service file (docs/PAM.md, pam_pinvault(8)). */
#ifndef PV_OPTIONS_H
#define PV_OPTIONS_H

#include <stdbool.h>

#define PV_DEFAULT_SOCKET "/run/pinvault/io.pinvault.Vault"
#define PV_DEFAULT_SERVER_USER "pinvault"
#define PV_DEFAULT_TIMEOUT_SECONDS 10
#define PV_MAX_TIMEOUT_SECONDS 120
/* The wait for connecting and for List, at most (Authenticate gets `timeout`). */
#define PV_LIST_TIMEOUT_SECONDS 5

struct pv_options {
    const char *socket_path;  /* socket=PATH: absolute, shorter than sun_path */
    const char *label;        /* label=LABEL: 1-256 bytes, no control character; NULL when not given */
    const char *server_user;  /* server_user=NAME: besides root, who may serve the socket */
    int timeout_seconds;      /* timeout=SECONDS: 1-120, the wait for Authenticate */
    bool allow_remote;        /* use the PIN for remote transactions too (pv_locality.h) */
    bool nouserok;
    bool try_first_pass;
    bool use_first_pass;
    bool debug;
};

/*
 * Reads argv (the strings stay argv's). Returns 0, or -1 with *bad pointing to the
 * first argument that is unknown or malformed.
 */
int pv_options_parse(struct pv_options *options, int argc, const char **argv, const char **bad);

#endif
