/*
 * Whether a PAM transaction comes from this machine (docs/PAM.md, "What is
 * local"), decided from what the application told PAM, with no lookup on the
 * network and no I/O but the caller's reading of /etc/hosts:
 *
 *  - sshd's transactions are remote, whatever the client's address: sshd marks
 *    them with PAM_TTY "ssh" (on Linux) and SSH_CONNECTION in the PAM
 *    environment. An address on loopback says only that the TCP connection came
 *    from this machine; port forwards, reverse tunnels and proxies end there and
 *    carry people who are elsewhere.
 *  - no PAM_RHOST (or an empty one) is local: sudo, su, login on a console, the
 *    display managers for local seats and the screen lockers set none;
 *  - a loopback address (127.0.0.0/8, ::1, ::ffff:127.0.0.0/104), "localhost" or
 *    this machine's hostname (gethostname) is local: what sudo's `pam_rhost` and
 *    programs that name their own host set;
 *  - another host name is local only when /etc/hosts gives it to this machine:
 *    on a line whose address is loopback or that also lists the hostname (where
 *    Debian puts the FQDN that `hostname -f` prints, and sudo's `fqdn` finds);
 *  - anything else - another address, another name, a malformed value - is remote.
 *
 * Names compare without regard to ASCII case and to one trailing dot.
 */
#ifndef PV_LOCALITY_H
#define PV_LOCALITY_H

#include <stdbool.h>
#include <stddef.h>

/* Longest PAM_RHOST read as a name or an address (a DNS name is at most 253). */
#define PV_RHOST_MAX_BYTES 255

enum pv_origin {
    PV_ORIGIN_LOCAL,
    PV_ORIGIN_SSHD,      /* a transaction of sshd, from any address */
    PV_ORIGIN_REMOTE,    /* PAM_RHOST names another host, or is malformed */
    PV_ORIGIN_HOST_NAME, /* a name only /etc/hosts can place: pv_hosts_names_this_machine */
};

/*
 * Where a transaction comes from: `rhost` and `tty` are PAM_RHOST and PAM_TTY (NULL
 * when unset), `ssh_connection` whether SSH_CONNECTION is in the PAM environment,
 * `hostname` this machine's (empty when unknown: then it matches nothing).
 */
enum pv_origin pv_origin(const char *rhost, const char *tty, bool ssh_connection, const char *hostname);

/*
 * Whether the text of a hosts file (hosts(5); `length` bytes, NUL not needed)
 * gives `name` to this machine: lists it on a line whose address is loopback or
 * that also lists `hostname`.
 */
bool pv_hosts_names_this_machine(const char *text, size_t length, const char *hostname, const char *name);

#endif
