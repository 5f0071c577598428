/*
 * pam_pinvault: sign in with a PinVault PIN (docs/PAM.md).
 *
 * auth: a PIN stays on this machine. A remote transaction (pv_locality.h: sshd's,
 * or PAM_RHOST naming another host) is PAM_IGNORE before anything else - no
 * prompt, no connection - unless `allow_remote`. Otherwise the module finds the
 * PAM user's login credential with List (pv_choice.h), closes that connection,
 * asks for the PIN, and only then connects again to have pinvaultd sign a fresh
 * challenge that names this module, the PAM service and the user: a user may take
 * longer to type than the daemon keeps an idle connection. PAM_SUCCESS only once
 * that signature verifies with the credential's public key. Run as root (login,
 * sudo, su, sshd) the module acts as an admin and names the owner (`ownerUid`);
 * run as a user (a screen locker) it signs in only that user, with no `ownerUid`.
 *
 * Before anything is sent on a connection, its server must be root or
 * `server_user` (SO_PEERCRED). The module speaks to pinvaultd through libpinvault
 * (pinvault.h), the one C client. The PIN lives in sodium_malloc'd (locked)
 * memory, which libpinvault escapes straight into a locked request buffer and
 * wipes once sent; it is never logged, and never handed to other modules
 * (PAM_AUTHTOK is only read).
 *
 * Only the pam_sm_* functions are exported; everything else is hidden.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <security/pam_ext.h>
#include <security/pam_modules.h>
#include <security/pam_modutil.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <pinvault.h>

#include "pv_challenge.h"
#include "pv_choice.h"
#include "pv_locality.h"
#include "pv_options.h"

#define PV_EXPORT __attribute__((visibility("default")))

/* The hosts file (hosts(5)) that places a PAM_RHOST name, and how much of it is read. */
#define HOSTS_PATH "/etc/hosts"
#define HOSTS_MAX_BYTES (1024 * 1024)

/* pam_set_data key: present (non-NULL) once pam_sm_authenticate succeeded, for setcred. */
#define SUCCEEDED_DATA "pam_pinvault_succeeded"
static const int succeeded_marker = 1;

/* One sign-in: what every step needs. */
struct sign_in {
    pam_handle_t *pamh;
    bool silent;
    struct pv_options options;
    const char *user;
    const char *service;
    /* uid 0 running the module: it passes `ownerUid` = owner. */
    bool as_admin;
    uid_t owner;
    pinvault_connection *connection;
    struct pv_login_credential credential;
};

/* A message to the user (PAM_ERROR_MSG, PAM_TEXT_INFO), unless PAM_SILENT. */
__attribute__((format(printf, 3, 4)))
static void tell(struct sign_in *s, int style, const char *format, ...)
{
    if (s->silent)
        return;
    va_list arguments;
    va_start(arguments, format);
    /* A conversation that cannot show it changes nothing about the result. */
    int shown = pam_vprompt(s->pamh, style, NULL, format, arguments);
    va_end(arguments);
    if (shown != PAM_SUCCESS && s->options.debug)
        pam_syslog(s->pamh, LOG_DEBUG, "the conversation did not show a message: %s", pam_strerror(s->pamh, shown));
}

/* Why a call failed on our side (a status below 100). */
static const char *failure_reason(int status)
{
    return status == PINVAULT_E_SYSTEM ? strerror(errno) : pinvault_strerror(status);
}

/* Milliseconds on CLOCK_MONOTONIC. */
static int64_t now_ms(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
        return 0;
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* What is left of a wait that ends at `deadline`, at least 1 ms (the call then times out at once). */
static int left_until(int64_t deadline)
{
    int64_t left = deadline - now_ms();
    return left < 1 ? 1 : left > 600000 ? 600000 : (int)left;
}

/* The server of the socket must be root or `server_user`: else nothing is sent. */
static int check_server(struct sign_in *s)
{
    uid_t server;
    if (pinvault_server_uid(s->connection, &server) != PINVAULT_OK) {
        pam_syslog(s->pamh, LOG_ERR, "cannot read the credentials of %s's server: %m", s->options.socket_path);
        return PAM_AUTHINFO_UNAVAIL;
    }
    if (server == 0)
        return PAM_SUCCESS;
    const struct passwd *daemon_user = pam_modutil_getpwnam(s->pamh, s->options.server_user);
    if (daemon_user != NULL && daemon_user->pw_uid == server)
        return PAM_SUCCESS;
    pam_syslog(s->pamh, LOG_ERR, "refusing %s: it is served by uid %lu, neither root nor %s",
               s->options.socket_path, (unsigned long)server, s->options.server_user);
    return PAM_AUTHINFO_UNAVAIL;
}

/* A new connection (any earlier one closed) to a trusted server, within `deadline`. */
static int connect_to_daemon(struct sign_in *s, int64_t deadline)
{
    pinvault_close(s->connection);
    s->connection = NULL;
    int status = pinvault_connect(s->options.socket_path, left_until(deadline), &s->connection);
    if (status != PINVAULT_OK) {
        pam_syslog(s->pamh, LOG_ERR, "cannot reach pinvaultd at %s: %s", s->options.socket_path, failure_reason(status));
        return PAM_AUTHINFO_UNAVAIL;
    }
    return check_server(s);
}

/* Whether the hosts file gives `rhost` to this machine; a file that cannot be read gives it nothing. */
static bool hosts_file_names_this_machine(struct sign_in *s, const char *rhost, const char *hostname)
{
    int fd = open(HOSTS_PATH, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        if (s->options.debug)
            pam_syslog(s->pamh, LOG_DEBUG, "cannot read %s: %m", HOSTS_PATH);
        return false;
    }
    char *text = malloc(HOSTS_MAX_BYTES);
    size_t length = 0;
    bool complete = false;
    while (text != NULL && length < HOSTS_MAX_BYTES) {
        ssize_t got = read(fd, text + length, HOSTS_MAX_BYTES - length);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            complete = got == 0;
            break;
        }
        length += (size_t)got;
    }
    (void)close(fd); /* opened for reading: nothing to lose */
    bool named = false;
    if (text != NULL && (complete || length == HOSTS_MAX_BYTES)) {
        if (!complete) {
            /* Longer than read: its lines up to the last whole one. */
            char *newline = memrchr(text, '\n', length);
            length = newline != NULL ? (size_t)(newline - text) : 0;
        }
        named = pv_hosts_names_this_machine(text, length, hostname, rhost);
    } else if (s->options.debug) {
        pam_syslog(s->pamh, LOG_DEBUG, "cannot read %s", HOSTS_PATH);
    }
    free(text);
    return named;
}

/*
 * PAM_SUCCESS when the transaction is local (or `allow_remote`), else PAM_IGNORE:
 * decided from PAM's items alone, before any prompt or connection (pv_locality.h).
 */
static int check_locality(struct sign_in *s)
{
    if (s->options.allow_remote)
        return PAM_SUCCESS;
    const void *rhost = NULL, *tty = NULL;
    if (pam_get_item(s->pamh, PAM_RHOST, &rhost) != PAM_SUCCESS || pam_get_item(s->pamh, PAM_TTY, &tty) != PAM_SUCCESS) {
        pam_syslog(s->pamh, LOG_ERR, "cannot read PAM_RHOST or PAM_TTY: taken as remote");
        return PAM_IGNORE;
    }
    char hostname[HOST_NAME_MAX + 1];
    if (gethostname(hostname, sizeof hostname) != 0)
        hostname[0] = '\0'; /* unknown: it names nothing */
    hostname[sizeof hostname - 1] = '\0';
    enum pv_origin origin = pv_origin(rhost, tty, pam_getenv(s->pamh, "SSH_CONNECTION") != NULL, hostname);
    if (origin == PV_ORIGIN_HOST_NAME)
        origin = hosts_file_names_this_machine(s, rhost, hostname) ? PV_ORIGIN_LOCAL : PV_ORIGIN_REMOTE;
    switch (origin) {
    case PV_ORIGIN_LOCAL:
        return PAM_SUCCESS;
    case PV_ORIGIN_SSHD:
        if (s->options.debug)
            pam_syslog(s->pamh, LOG_DEBUG, "a sign-in through sshd is remote: ignored (allow_remote would take the PIN)");
        return PAM_IGNORE;
    case PV_ORIGIN_REMOTE:
    case PV_ORIGIN_HOST_NAME:
        break;
    }
    /* PAM_RHOST is the peer's to choose (sshd with UseDNS, say): not logged. */
    if (s->options.debug)
        pam_syslog(s->pamh, LOG_DEBUG, "PAM_RHOST names another host: ignored (allow_remote would take the PIN)");
    return PAM_IGNORE;
}

/*
 * A call's failure as a PAM result: the daemon's error (with its message to the
 * user), or ours (logged). `value` is the error's integer (remaining attempts,
 * seconds to wait) and `name` its Varlink name.
 */
static int answer_failure(struct sign_in *s, const char *method, int status, int64_t value, const char *name)
{
    if (status < 100) {
        pam_syslog(s->pamh, LOG_ERR, "%s on %s: %s", method, s->options.socket_path, failure_reason(status));
        return PAM_AUTHINFO_UNAVAIL;
    }
    if (s->options.debug)
        pam_syslog(s->pamh, LOG_DEBUG, "%s: %s", method, name);
    switch ((pinvault_status)status) {
    case PINVAULT_E_WRONG_PIN:
        pam_syslog(s->pamh, LOG_NOTICE, "authentication failure: wrong PIN; user=%s", s->user);
        tell(s, PAM_ERROR_MSG, "Wrong PIN (%lld attempt%s left)", (long long)value, value == 1 ? "" : "s");
        return PAM_AUTH_ERR;
    case PINVAULT_E_LOCKED_OUT:
        tell(s, PAM_ERROR_MSG, "Too many wrong PINs: try again in %lld s", (long long)value);
        return PAM_MAXTRIES;
    case PINVAULT_E_CREDENTIAL_BLOCKED:
        pam_syslog(s->pamh, LOG_NOTICE, "PIN blocked; user=%s", s->user);
        tell(s, PAM_ERROR_MSG, "PIN blocked: ask an administrator");
        return PAM_MAXTRIES;
    case PINVAULT_E_CREDENTIAL_WIPED:
        pam_syslog(s->pamh, LOG_NOTICE, "PIN credential wiped after too many wrong PINs; user=%s", s->user);
        tell(s, PAM_ERROR_MSG, "Too many wrong PINs: the PIN sign-in was deleted");
        return PAM_MAXTRIES;
    case PINVAULT_E_NO_SUCH_CREDENTIAL:
        return s->options.nouserok ? PAM_IGNORE : PAM_USER_UNKNOWN;
    default:
        break;
    }
    pam_syslog(s->pamh, LOG_ERR, "pinvaultd answered %s with %s", method, name);
    return PAM_AUTHINFO_UNAVAIL;
}

/* The last call's failure on the connection, as a PAM result. */
static int answer_call(struct sign_in *s, const char *method, int status)
{
    if (status == PINVAULT_E_PROTOCOL) {
        pam_syslog(s->pamh, LOG_ERR, "pinvaultd's reply to %s is malformed", method);
        return PAM_AUTHINFO_UNAVAIL;
    }
    return answer_failure(s, method, status, pinvault_error_value(s->connection), pinvault_error_name(s->connection));
}

/* List: the user's login credential (pv_choice.h), usable now. */
static int find_credential(struct sign_in *s, int64_t deadline)
{
    struct pv_choice choice;
    pv_choice_init(&choice, s->options.label);
    (void)pinvault_set_timeout(s->connection, left_until(deadline));
    int status = pinvault_list(s->connection, s->user, NULL, s->as_admin ? (int64_t)s->owner : PINVAULT_OWNER_SELF,
                               pv_choice_consider, &choice);
    if (status != PINVAULT_OK)
        return answer_call(s, "List", status);
    if (s->options.debug)
        pam_syslog(s->pamh, LOG_DEBUG, "List: %u login and %u legacy credential(s) of %s fit", choice.logins,
                   choice.legacies, s->user);
    unsigned fitting;
    const struct pv_login_credential *chosen = pv_choice_result(&choice, &fitting);
    if (chosen == NULL)
        return s->options.nouserok ? PAM_IGNORE : PAM_USER_UNKNOWN;
    if (fitting > 1) {
        pam_syslog(s->pamh, LOG_ERR, "%u credentials of %s fit: label= picks one", fitting, s->user);
        return PAM_AUTHINFO_UNAVAIL;
    }
    s->credential = *chosen;
    /* What the daemon would refuse without checking a PIN is refused before asking for one. */
    switch (s->credential.state) {
    case PINVAULT_STATE_BLOCKED:
        return answer_failure(s, "List", PINVAULT_E_CREDENTIAL_BLOCKED, 0, "blocked (List)");
    case PINVAULT_STATE_THROTTLED: {
        int64_t wait = s->credential.locked_until - (int64_t)time(NULL);
        if (s->credential.locked_until < 0 || wait <= 0)
            return PAM_SUCCESS; /* the wait is over, or unknown: the daemon decides */
        return answer_failure(s, "List", PINVAULT_E_LOCKED_OUT, wait, "throttled (List)");
    }
    case PINVAULT_STATE_PENDING_UNREGISTRATION:
        return answer_failure(s, "List", PINVAULT_E_UNREGISTRATION_PENDING, 0, "pendingUnregistration (List)");
    case PINVAULT_STATE_ACTIVE:
    case PINVAULT_STATE_OTHER:
        break;
    }
    return PAM_SUCCESS;
}

enum pin_source { PIN_FROM_AUTHTOK, PIN_FROM_PROMPT };

/*
 * Copies `text` into the locked `pin` buffer. An empty PIN is not sent (it costs
 * no attempt): the caller answers AUTHINFO_UNAVAIL, so the next module (the
 * password) takes over. A PIN longer than the protocol allows is AUTH_ERR, unsent.
 */
static int take_pin(unsigned char *pin, size_t *pin_length, const char *text)
{
    size_t n = strnlen(text, PINVAULT_PIN_MAX_BYTES + 1);
    if (n == 0)
        return PAM_AUTHINFO_UNAVAIL;
    if (n > PINVAULT_PIN_MAX_BYTES)
        return PAM_AUTH_ERR;
    memcpy(pin, text, n);
    *pin_length = n;
    return PAM_SUCCESS;
}

/* The PIN typed at the prompt `PIN for USER: `, echo off. The response is wiped and freed. */
static int prompt_pin(struct sign_in *s, unsigned char *pin, size_t *pin_length)
{
    char *response = NULL;
    int result = pam_prompt(s->pamh, PAM_PROMPT_ECHO_OFF, &response, "PIN for %s: ", s->user);
    if (result != PAM_SUCCESS || response == NULL) {
        if (response != NULL) {
            explicit_bzero(response, strlen(response));
            free(response);
        }
        if (s->options.debug)
            pam_syslog(s->pamh, LOG_DEBUG, "no PIN from the conversation: %s", pam_strerror(s->pamh, result));
        return result == PAM_CONV_AGAIN ? PAM_INCOMPLETE : PAM_CONV_ERR;
    }
    result = take_pin(pin, pin_length, response);
    explicit_bzero(response, strlen(response));
    free(response);
    return result;
}

/* PAM_AUTHTOK as the PIN (libpam owns and wipes the item; only our locked copy is made). */
static int authtok_pin(struct sign_in *s, unsigned char *pin, size_t *pin_length)
{
    const void *item = NULL;
    int result = pam_get_item(s->pamh, PAM_AUTHTOK, &item);
    if (result != PAM_SUCCESS || item == NULL || *(const char *)item == '\0') {
        if (s->options.debug)
            pam_syslog(s->pamh, LOG_DEBUG, "no PAM_AUTHTOK to use");
        return PAM_AUTHINFO_UNAVAIL;
    }
    return take_pin(pin, pin_length, item);
}

/*
 * Authenticate with `pin` over a fresh challenge, and check the answer: the same
 * credential, and a signature over exactly that challenge. `*wrong_pin` tells a
 * WrongPin answer apart (for try_first_pass).
 */
static int authenticate(struct sign_in *s, const unsigned char *pin, size_t pin_length, bool *wrong_pin)
{
    unsigned char nonce[PV_NONCE_BYTES], challenge[PINVAULT_CHALLENGE_MAX_BYTES];
    *wrong_pin = false;
    randombytes_buf(nonce, sizeof nonce);
    size_t challenge_length = pv_challenge(challenge, s->service, s->user, nonce);
    if (challenge_length == 0)
        return PAM_SERVICE_ERR; /* cannot happen: service and user were bounded before */

    /* A connection of its own, made now that the PIN is typed (the daemon closes idle ones). */
    int64_t deadline = now_ms() + (int64_t)s->options.timeout_seconds * 1000;
    int connected = connect_to_daemon(s, deadline);
    if (connected != PAM_SUCCESS)
        return connected;

    struct pinvault_proof proof;
    (void)pinvault_set_timeout(s->connection, left_until(deadline));
    int status = pinvault_authenticate(s->connection, s->user, s->credential.key_id, pin, pin_length, challenge,
                                       challenge_length, s->as_admin ? (int64_t)s->owner : PINVAULT_OWNER_SELF, &proof);
    if (status == PINVAULT_E_ARGUMENT) {
        /* The user and keyId came from List: what the library refused unsent is the PIN (not UTF-8). */
        tell(s, PAM_ERROR_MSG, "A PIN is UTF-8 text: this one was not sent");
        return PAM_AUTH_ERR;
    }
    if (status != PINVAULT_OK) {
        *wrong_pin = status == PINVAULT_E_WRONG_PIN;
        return answer_call(s, "Authenticate", status);
    }
    /* The listed key, by its algorithm (Ed25519 or P-256), over exactly this challenge. */
    if (strcmp(proof.key_id, s->credential.key_id) != 0 || proof.public_key.length != s->credential.public_key.length ||
        memcmp(proof.public_key.bytes, s->credential.public_key.bytes, proof.public_key.length) != 0 ||
        pinvault_verify(s->credential.algorithm, &s->credential.public_key, challenge, challenge_length,
                        &proof.signature) != PINVAULT_OK) {
        pam_syslog(s->pamh, LOG_ERR, "pinvaultd's signature for %s does not verify with the listed key %s",
                   s->user, s->credential.key_id);
        return PAM_AUTH_ERR;
    }
    if (s->options.debug)
        pam_syslog(s->pamh, LOG_DEBUG, "Authenticate: signature verified for %s", s->user);
    if (proof.failed_attempts_cleared == 1)
        tell(s, PAM_TEXT_INFO, "1 wrong PIN was tried since your last sign-in");
    else if (proof.failed_attempts_cleared > 1)
        tell(s, PAM_TEXT_INFO, "%lld wrong PINs were tried since your last sign-in",
             (long long)proof.failed_attempts_cleared);
    if (proof.pin_policy_outdated)
        tell(s, PAM_TEXT_INFO, "Your PIN no longer meets the PIN policy: change it with `pinvault change-pin %s`", s->user);
    return PAM_SUCCESS;
}

/* Reads the PIN as the options say and authenticates with it. */
static int check_pin(struct sign_in *s)
{
    unsigned char *pin = sodium_malloc(PINVAULT_PIN_MAX_BYTES);
    size_t pin_length = 0;
    bool wrong_pin = false;
    if (pin == NULL) {
        pam_syslog(s->pamh, LOG_ERR, "sodium_malloc: %m");
        return PAM_AUTHINFO_UNAVAIL;
    }
    int result;
    bool first_pass = s->options.use_first_pass || s->options.try_first_pass;
    if (first_pass) {
        result = authtok_pin(s, pin, &pin_length);
        if (result == PAM_SUCCESS)
            result = authenticate(s, pin, pin_length, &wrong_pin);
        sodium_memzero(pin, PINVAULT_PIN_MAX_BYTES);
        /* try_first_pass asks once more when there was no token, or it was a wrong PIN. */
        bool again = !s->options.use_first_pass && (wrong_pin || (result == PAM_AUTHINFO_UNAVAIL && pin_length == 0));
        if (!again) {
            sodium_free(pin);
            return result;
        }
    }
    result = prompt_pin(s, pin, &pin_length);
    if (result == PAM_SUCCESS)
        result = authenticate(s, pin, pin_length, &wrong_pin);
    sodium_memzero(pin, PINVAULT_PIN_MAX_BYTES);
    sodium_free(pin);
    return result;
}

/* The PAM user, bounded and free of control characters (they would reach prompts and logs). */
static int read_user(struct sign_in *s)
{
    int result = pam_get_user(s->pamh, &s->user, NULL);
    if (result != PAM_SUCCESS)
        return result == PAM_CONV_AGAIN ? PAM_INCOMPLETE : result;
    size_t n = s->user != NULL ? strnlen(s->user, PINVAULT_USER_MAX_BYTES + 1) : 0;
    if (n == 0 || n > PINVAULT_USER_MAX_BYTES)
        return PAM_USER_UNKNOWN;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s->user[i] < 0x20 || s->user[i] == 0x7f)
            return PAM_USER_UNKNOWN;
    const void *service = NULL;
    if (pam_get_item(s->pamh, PAM_SERVICE, &service) != PAM_SUCCESS || service == NULL ||
        strnlen(service, PV_SERVICE_MAX_BYTES + 1) > PV_SERVICE_MAX_BYTES) {
        pam_syslog(s->pamh, LOG_ERR, "no PAM_SERVICE, or one longer than %d bytes", PV_SERVICE_MAX_BYTES);
        return PAM_SERVICE_ERR;
    }
    s->service = service;
    return PAM_SUCCESS;
}

/* Whose credential: the user's uid. Run as another non-root uid, the module refuses. */
static int choose_owner(struct sign_in *s)
{
    const struct passwd *account = pam_modutil_getpwnam(s->pamh, s->user);
    if (account == NULL) {
        if (s->options.debug)
            pam_syslog(s->pamh, LOG_DEBUG, "no such user %s", s->user);
        return PAM_USER_UNKNOWN;
    }
    uid_t self = geteuid();
    s->as_admin = self == 0;
    s->owner = account->pw_uid;
    if (!s->as_admin && account->pw_uid != self) {
        pam_syslog(s->pamh, LOG_NOTICE, "running as uid %lu, which cannot sign in %s (uid %lu)",
                   (unsigned long)self, s->user, (unsigned long)account->pw_uid);
        return PAM_AUTHINFO_UNAVAIL;
    }
    return PAM_SUCCESS;
}

static int sign_in(struct sign_in *s, int argc, const char **argv)
{
    const char *bad = NULL;
    if (pv_options_parse(&s->options, argc, argv, &bad) != 0) {
        pam_syslog(s->pamh, LOG_ERR, "unknown or malformed option: %s", bad);
        return PAM_SERVICE_ERR;
    }
    int result = check_locality(s);
    if (result != PAM_SUCCESS)
        return result;
    if (sodium_init() < 0) {
        pam_syslog(s->pamh, LOG_ERR, "libsodium failed to initialize");
        return PAM_AUTHINFO_UNAVAIL;
    }
    result = read_user(s);
    if (result == PAM_SUCCESS)
        result = choose_owner(s);
    if (result != PAM_SUCCESS)
        return result;

    /* Connecting and List are bounded by the shorter of `timeout` and PV_LIST_TIMEOUT_SECONDS. */
    int list_seconds = s->options.timeout_seconds < PV_LIST_TIMEOUT_SECONDS ? s->options.timeout_seconds : PV_LIST_TIMEOUT_SECONDS;
    int64_t deadline = now_ms() + (int64_t)list_seconds * 1000;
    result = connect_to_daemon(s, deadline);
    if (result == PAM_SUCCESS)
        result = find_credential(s, deadline);
    /* No connection is held while the user types: Authenticate makes its own. */
    pinvault_close(s->connection);
    s->connection = NULL;
    if (result == PAM_SUCCESS)
        result = check_pin(s);
    return result;
}

PV_EXPORT int pam_sm_authenticate(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
    struct sign_in s = {.pamh = pamh, .silent = (flags & PAM_SILENT) != 0};
    int result = sign_in(&s, argc, argv);
    pinvault_close(s.connection);
    sodium_memzero(&s.credential, sizeof s.credential);
    if (pam_set_data(pamh, SUCCEEDED_DATA, result == PAM_SUCCESS ? (void *)&succeeded_marker : NULL, NULL) != PAM_SUCCESS)
        pam_syslog(pamh, LOG_ERR, "pam_set_data failed");
    return result;
}

/* Nothing to establish: PAM_SUCCESS after our own sign-in succeeded, else PAM_IGNORE. */
PV_EXPORT int pam_sm_setcred(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
    (void)flags;
    (void)argc;
    (void)argv;
    const void *data = NULL;
    return pam_get_data(pamh, SUCCEEDED_DATA, &data) == PAM_SUCCESS && data != NULL ? PAM_SUCCESS : PAM_IGNORE;
}

/* The other management groups are not this module's. */
PV_EXPORT int pam_sm_acct_mgmt(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
    (void)pamh; (void)flags; (void)argc; (void)argv;
    return PAM_IGNORE;
}

PV_EXPORT int pam_sm_open_session(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
    (void)pamh; (void)flags; (void)argc; (void)argv;
    return PAM_IGNORE;
}

PV_EXPORT int pam_sm_close_session(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
    (void)pamh; (void)flags; (void)argc; (void)argv;
    return PAM_IGNORE;
}

PV_EXPORT int pam_sm_chauthtok(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
    (void)pamh; (void)flags; (void)argc; (void)argv;
    return PAM_IGNORE;
}
