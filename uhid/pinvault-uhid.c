/*
 * pinvault-uhid: PinVault's passkeys as a FIDO security key on the seat, for browsers
 * (Firefox, Chromium), credentialsd and libfido2, which find security keys as hidraw
 * devices (pinvault-uhid(8), docs/WEBAUTHN.md).
 *
 * Creating a HID device is a privilege: whoever can, can type on the seat as a
 * keyboard. This process keeps that privilege small. It runs as root (its unit allows
 * it /dev/uhid and the capabilities to change uid, nothing else) and reads nothing
 * from any peer: it only watches logind for the active session of its seat. For that
 * session's user it opens /dev/uhid and forks a relay, which drops to the user for
 * good (groups, gid, uid; no way back, no new privileges, no children) before it
 * creates the device, connects to pinvaultd's CTAPHID socket (so that the daemon
 * learns the uid from the kernel, SO_PEERCRED) and copies 64-byte reports between
 * the two (pv_uhid.h), reading of the device's events only their type and size.
 *
 * When the seat changes hands the relay is killed and waited for before another
 * starts: its device disappears (every open hidraw descriptor of it with it, so a
 * program of the previous user keeps no way to the next user's passkeys) and its
 * connection closes (no CTAPHID channel outlives it). With no active user, or one
 * not served (root, a greeter), there is no device at all: a security key that
 * answers nobody would only make browsers wait for it.
 *
 * For the tests (no logind, no /dev/uhid): --test-seat-stdin reads the active uid
 * from standard input, a line at a time ("-" for none; end of input stops), and
 * --test-uhid-socket connects a SOCK_SEQPACKET socket per device instead of opening
 * /dev/uhid, so that a test plays the kernel.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <systemd/sd-login.h>
#include <time.h>
#include <unistd.h>

#include "pv_uhid.h"

#define DEFAULT_SOCKET "/run/pinvault/ctaphid.sock"
#define DEFAULT_SEAT "seat0"
#define UHID_PATH "/dev/uhid"
/* A relay that ended (or could not start: no account, no /dev/uhid) while its user is
 * still active is tried again after a second, then twice as long after each further
 * end, up to a minute (a seat change starts over): one that cannot work fills no log. */
#define RESTART_SECONDS 1
#define RESTART_SECONDS_MAX 60
/* The most supplementary groups a user's relay takes. */
#define MAX_GROUPS 256
/* A line of --test-seat-stdin. */
#define SEAT_LINE_MAX 32

#define NO_UID ((uid_t)-1)

struct options {
    const char *socket_path;
    const char *seat;
    const char *test_uhid_socket; /* NULL: /dev/uhid */
    int test_seat_stdin;
};

/* The relay running, and for whom. */
struct relay_process {
    pid_t pid;         /* 0: none */
    uid_t uid;
};

/* The user a relay runs as, resolved before the fork. */
struct seat_user {
    uid_t uid;
    gid_t gid;
    gid_t groups[MAX_GROUPS];
    int group_count;
};

static void usage(FILE *out)
{
    fprintf(out,
            "usage: pinvault-uhid [--ctaphid-socket PATH] [--seat NAME]\n"
            "A virtual FIDO security key on /dev/uhid for the active user of the seat (default %s),\n"
            "relayed to pinvaultd's CTAPHID socket (default %s). See pinvault-uhid(8).\n",
            DEFAULT_SEAT, DEFAULT_SOCKET);
}

static int parse_options(int argc, char **argv, struct options *options)
{
    static const struct option long_options[] = {
        {"ctaphid-socket", required_argument, NULL, 's'},
        {"seat", required_argument, NULL, 'e'},
        {"test-uhid-socket", required_argument, NULL, 'U'},
        {"test-seat-stdin", no_argument, NULL, 'I'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    *options = (struct options){.socket_path = DEFAULT_SOCKET, .seat = DEFAULT_SEAT};
    int option;
    while ((option = getopt_long(argc, argv, "h", long_options, NULL)) != -1) {
        switch (option) {
        case 's':
            options->socket_path = optarg;
            break;
        case 'e':
            options->seat = optarg;
            break;
        case 'U':
            options->test_uhid_socket = optarg;
            break;
        case 'I':
            options->test_seat_stdin = 1;
            break;
        case 'h':
            usage(stdout);
            exit(0);
        default:
            usage(stderr);
            return -1;
        }
    }
    if (optind != argc || options->socket_path[0] != '/' ||
        strlen(options->socket_path) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
        usage(stderr);
        return -1;
    }
    return 0;
}

/* A new device: /dev/uhid opened once more (each open is one device), or the tests' kernel. */
static int open_device(const struct options *options)
{
    if (options->test_uhid_socket == NULL)
        return open(UHID_PATH, O_RDWR | O_CLOEXEC);
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    size_t length = strlen(options->test_uhid_socket);
    if (length >= sizeof address.sun_path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(address.sun_path, options->test_uhid_socket, length);
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&address, sizeof address) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

/* The user's gid and groups, as login gives them. 0 if found. */
static int resolve_user(uid_t uid, struct seat_user *user)
{
    char buffer[16384];
    struct passwd entry, *found = NULL;
    int error = getpwuid_r(uid, &entry, buffer, sizeof buffer, &found);
    if (found == NULL) {
        pv_uhid_log("uid %u: no passwd entry (%s); not served", (unsigned)uid, error ? strerror(error) : "not found");
        return -1;
    }
    user->uid = uid;
    user->gid = entry.pw_gid;
    user->group_count = MAX_GROUPS;
    if (getgrouplist(entry.pw_name, entry.pw_gid, user->groups, &user->group_count) < 0) {
        pv_uhid_log("uid %u: more than %d groups; not served", (unsigned)uid, MAX_GROUPS);
        return -1;
    }
    return 0;
}

/*
 * In the relay, before anything else: become the user for good. Every step is checked
 * and a failure ends the process; nothing runs as root after it.
 */
static void become_user(const struct seat_user *user)
{
    uid_t real, effective, saved;
    gid_t real_gid, effective_gid, saved_gid;
    if (setgroups((size_t)user->group_count, user->groups) != 0 ||
        setresgid(user->gid, user->gid, user->gid) != 0 ||
        setresuid(user->uid, user->uid, user->uid) != 0 ||
        getresuid(&real, &effective, &saved) != 0 || getresgid(&real_gid, &effective_gid, &saved_gid) != 0 ||
        real != user->uid || effective != user->uid || saved != user->uid ||
        real_gid != user->gid || effective_gid != user->gid || saved_gid != user->gid) {
        pv_uhid_log("cannot become uid %u: %s", (unsigned)user->uid, strerror(errno));
        _exit(1);
    }
    /* No way back: uid 0 is out of reach (unless the user is root, who is never served). */
    if (setuid(0) == 0 || seteuid(0) == 0) {
        pv_uhid_log("uid %u could become root again", (unsigned)user->uid);
        _exit(1);
    }
    /* Not for the user to trace or dump (its descriptor is /dev/uhid's); no new
     * privileges through exec; no child processes; no core. (No RLIMIT_FSIZE: its
     * standard error may be a file, and a log line past the limit would kill it.) */
    struct rlimit none = {0, 0};
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        setrlimit(RLIMIT_NPROC, &none) != 0 || setrlimit(RLIMIT_CORE, &none) != 0) {
        pv_uhid_log("cannot restrict the relay: %s", strerror(errno));
        _exit(1);
    }
}

/* A relay for `uid`; 0 once it runs. */
static int start_relay(const struct options *options, struct relay_process *relay, uid_t uid)
{
    struct seat_user user;
    if (resolve_user(uid, &user) != 0)
        return -1;
    int device = open_device(options);
    if (device < 0) {
        pv_uhid_log("cannot open %s: %s", options->test_uhid_socket ? options->test_uhid_socket : UHID_PATH,
                    strerror(errno));
        return -1;
    }
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        pv_uhid_log("fork: %s", strerror(errno));
        close(device);
        return -1;
    }
    if (pid == 0) {
        /* Only the device and the standard streams cross over. */
        int keep = fcntl(device, F_DUPFD_CLOEXEC, 3);
        if (keep < 0)
            _exit(1);
        if (keep != 3) {
            if (dup3(keep, 3, O_CLOEXEC) < 0)
                _exit(1);
        }
        if (close_range(4, ~0U, 0) != 0)
            _exit(1);
        sigset_t none;
        sigemptyset(&none);
        signal(SIGPIPE, SIG_IGN);
        if (sigprocmask(SIG_SETMASK, &none, NULL) != 0)
            _exit(1);
        become_user(&user);
        /* Gone with this process (set after the uid change, which clears it). */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 || getppid() != parent)
            _exit(1);
        _exit(pv_uhid_relay(3, options->socket_path) == 0 ? 0 : 1);
    }
    close(device);
    relay->pid = pid;
    relay->uid = uid;
    pv_uhid_log("security key for uid %u (relay %ld)", (unsigned)uid, (long)pid);
    return 0;
}

/* The relay killed and reaped: its device and its connection are gone when this returns.
 * A relay this process cannot kill (its unit lost CAP_KILL) must not outlive its user's
 * turn: then this process exits, and its service manager ends the relay with it. */
static void stop_relay(struct relay_process *relay)
{
    if (relay->pid == 0)
        return;
    if (kill(relay->pid, SIGKILL) != 0 && errno != ESRCH) {
        pv_uhid_log("cannot end the relay of uid %u: %s; exiting", (unsigned)relay->uid, strerror(errno));
        exit(1);
    }
    while (waitpid(relay->pid, NULL, 0) < 0 && errno == EINTR) {
    }
    pv_uhid_log("security key for uid %u removed", (unsigned)relay->uid);
    relay->pid = 0;
}

/* The uid to serve for the seat's active session, or NO_UID. */
static uid_t logind_active_uid(const char *seat)
{
    char *session = NULL;
    uid_t uid = NO_UID;
    if (sd_seat_get_active(seat, &session, &uid) < 0 || session == NULL)
        return NO_UID;
    char *class = NULL;
    /* A user's session, not a greeter's or a lock screen's, active now. */
    if (sd_session_get_class(session, &class) < 0 || class == NULL || strcmp(class, "user") != 0 ||
        sd_session_is_active(session) <= 0)
        uid = NO_UID;
    free(class);
    free(session);
    return uid;
}

/*
 * --test-seat-stdin, once standard input is readable: one read, then each complete line
 * (a uid, or anything else for none) in turn, the last one winning. 0 at the end of input.
 */
static int read_seat_lines(uid_t *wanted)
{
    static char line[SEAT_LINE_MAX];
    static size_t length;
    if (length == sizeof line)
        length = 0; /* a line too long for a uid: dropped */
    ssize_t got = read(STDIN_FILENO, line + length, sizeof line - length);
    if (got < 0)
        return errno == EINTR || errno == EAGAIN ? 1 : 0;
    if (got == 0)
        return 0;
    length += (size_t)got;
    char *newline;
    while ((newline = memchr(line, '\n', length)) != NULL) {
        *newline = '\0';
        char *end = NULL;
        errno = 0;
        unsigned long value = strtoul(line, &end, 10);
        *wanted = (line[0] >= '0' && line[0] <= '9' && *end == '\0' && errno == 0 && value < NO_UID) ? (uid_t)value : NO_UID;
        size_t used = (size_t)(newline - line) + 1;
        memmove(line, line + used, length - used);
        length -= used;
    }
    return 1;
}

/* The next try at a relay, `*seconds` from now; the wait after it twice as long. */
static void schedule_restart(struct timespec *at, long *seconds)
{
    clock_gettime(CLOCK_MONOTONIC, at);
    at->tv_sec += *seconds;
    if (*seconds < RESTART_SECONDS_MAX)
        *seconds *= 2;
}

/* Who gets a security key: a user, never root (whose relay would keep every privilege). */
static int served(uid_t uid)
{
    return uid != NO_UID && uid != 0;
}

int main(int argc, char **argv)
{
    struct options options;
    if (parse_options(argc, argv, &options) != 0)
        return 2;
    setvbuf(stderr, NULL, _IOLBF, 0);

    sigset_t handled;
    sigemptyset(&handled);
    sigaddset(&handled, SIGCHLD);
    sigaddset(&handled, SIGTERM);
    sigaddset(&handled, SIGINT);
    sigaddset(&handled, SIGHUP);
    if (sigprocmask(SIG_BLOCK, &handled, NULL) != 0)
        return 1;
    int signals = signalfd(-1, &handled, SFD_CLOEXEC | SFD_NONBLOCK);
    if (signals < 0) {
        pv_uhid_log("signalfd: %s", strerror(errno));
        return 1;
    }

    sd_login_monitor *monitor = NULL;
    int seat_fd = STDIN_FILENO;
    if (!options.test_seat_stdin) {
        int error = sd_login_monitor_new(NULL, &monitor);
        if (error < 0) {
            pv_uhid_log("cannot watch logind: %s", strerror(-error));
            return 1;
        }
        seat_fd = sd_login_monitor_get_fd(monitor);
    }

    struct relay_process relay = {0};
    uid_t wanted = options.test_seat_stdin ? NO_UID : logind_active_uid(options.seat);
    struct timespec restart_at = {0};
    int running = 1, restart_due = 1;
    long restart_seconds = RESTART_SECONDS;
    pv_uhid_log("watching %s for %s", options.test_seat_stdin ? "standard input" : options.seat, options.socket_path);

    while (running) {
        /* Exactly the wanted user's relay, or none. */
        if (relay.pid != 0 && relay.uid != wanted)
            stop_relay(&relay);
        if (relay.pid == 0 && served(wanted) && restart_due && start_relay(&options, &relay, wanted) != 0) {
            restart_due = 0;
            schedule_restart(&restart_at, &restart_seconds);
        }

        int timeout = -1;
        if (relay.pid == 0 && served(wanted) && !restart_due) {
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            long milliseconds = (restart_at.tv_sec - now.tv_sec) * 1000 + (restart_at.tv_nsec - now.tv_nsec) / 1000000;
            timeout = milliseconds > 0 ? (int)milliseconds : 0;
        }
        struct pollfd fds[2] = {{.fd = signals, .events = POLLIN}, {.fd = seat_fd, .events = POLLIN}};
        if (monitor != NULL)
            fds[1].events = (short)sd_login_monitor_get_events(monitor);
        int ready = poll(fds, 2, timeout);
        if (ready < 0 && errno != EINTR) {
            pv_uhid_log("poll: %s", strerror(errno));
            break;
        }
        if (ready == 0)
            restart_due = 1;

        if (fds[0].revents & POLLIN) {
            struct signalfd_siginfo info;
            while (read(signals, &info, sizeof info) == sizeof info) {
                if (info.ssi_signo != SIGCHLD) {
                    running = 0;
                    continue;
                }
                int status;
                pid_t ended;
                while ((ended = waitpid(-1, &status, WNOHANG)) > 0) {
                    if (ended != relay.pid)
                        continue;
                    pv_uhid_log("relay for uid %u ended (%s %d)", (unsigned)relay.uid,
                                WIFSIGNALED(status) ? "signal" : "status",
                                WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
                    relay.pid = 0;
                    restart_due = 0;
                    schedule_restart(&restart_at, &restart_seconds);
                }
            }
        }
        if (fds[1].revents) {
            uid_t before = wanted;
            if (monitor != NULL) {
                sd_login_monitor_flush(monitor);
                wanted = logind_active_uid(options.seat);
            } else if (read_seat_lines(&wanted) == 0) {
                wanted = NO_UID;
                running = 0;
            }
            if (wanted != before) {
                restart_due = 1;
                restart_seconds = RESTART_SECONDS;
                if (wanted == 0)
                    pv_uhid_log("uid 0 is at the seat: root gets no security key");
            }
        }
    }
    stop_relay(&relay);
    if (monitor != NULL)
        sd_login_monitor_unref(monitor);
    pv_uhid_log("stopped");
    return 0;
}
