/* The module's arguments (pv_options.h). */
#include "pv_options.h"

#include <string.h>
#include <sys/un.h>

/* The value of `argument` when it is `name=VALUE`, else NULL. */
static const char *value_of(const char *argument, const char *name)
{
    size_t n = strlen(name);
    return strncmp(argument, name, n) == 0 && argument[n] == '=' ? argument + n + 1 : NULL;
}

static bool is_text(const char *value, size_t max)
{
    size_t n = strlen(value);
    if (n == 0 || n > max)
        return false;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)value[i] < 0x20 || value[i] == 0x7f)
            return false;
    return true;
}

static bool is_socket_path(const char *value)
{
    struct sockaddr_un address;
    return value[0] == '/' && strlen(value) < sizeof address.sun_path && is_text(value, sizeof address.sun_path);
}

static bool is_user_name(const char *value)
{
    if (!is_text(value, 32))
        return false;
    for (const char *p = value; *p != '\0'; p++)
        if (*p == '/' || *p == ':' || *p == ' ')
            return false;
    return true;
}

static bool parse_seconds(const char *value, int *seconds)
{
    int n = 0;
    if (*value == '\0')
        return false;
    for (const char *p = value; *p != '\0'; p++) {
        if (*p < '0' || *p > '9' || n > PV_MAX_TIMEOUT_SECONDS)
            return false;
        n = n * 10 + (*p - '0');
    }
    if (n < 1 || n > PV_MAX_TIMEOUT_SECONDS)
        return false;
    *seconds = n;
    return true;
}

int pv_options_parse(struct pv_options *options, int argc, const char **argv, const char **bad)
{
    *options = (struct pv_options){
        .socket_path = PV_DEFAULT_SOCKET,
        .server_user = PV_DEFAULT_SERVER_USER,
        .timeout_seconds = PV_DEFAULT_TIMEOUT_SECONDS,
    };
    for (int i = 0; i < argc; i++) {
        const char *argument = argv[i], *value;
        bool ok;
        if (argument == NULL) {
            ok = false;
        } else if (strcmp(argument, "allow_remote") == 0) {
            ok = options->allow_remote = true;
        } else if (strcmp(argument, "nouserok") == 0) {
            ok = options->nouserok = true;
        } else if (strcmp(argument, "try_first_pass") == 0) {
            ok = options->try_first_pass = true;
        } else if (strcmp(argument, "use_first_pass") == 0) {
            ok = options->use_first_pass = true;
        } else if (strcmp(argument, "debug") == 0) {
            ok = options->debug = true;
        } else if ((value = value_of(argument, "socket")) != NULL) {
            ok = is_socket_path(value);
            options->socket_path = value;
        } else if ((value = value_of(argument, "label")) != NULL) {
            ok = is_text(value, 256);
            options->label = value;
        } else if ((value = value_of(argument, "server_user")) != NULL) {
            ok = is_user_name(value);
            options->server_user = value;
        } else if ((value = value_of(argument, "timeout")) != NULL) {
            ok = parse_seconds(value, &options->timeout_seconds);
        } else {
            ok = false;
        }
        if (!ok) {
            *bad = argument != NULL ? argument : "(null)";
            return -1;
        }
    }
    return 0;
}
