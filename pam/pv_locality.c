/* Whether a PAM transaction comes from this machine (pv_locality.h). */
#include "pv_locality.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

/* sshd's marks (OpenSSH auth-pam.c, sshpam_init). */
#define SSHD_TTY "ssh"

/* Longest address field of a hosts file that can be a loopback address (INET6_ADDRSTRLEN). */
#define ADDRESS_CAPACITY 46

static char lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* Two names, `a_length` and `b_length` bytes, alike but for ASCII case and one trailing dot. */
static bool same_name(const char *a, size_t a_length, const char *b, size_t b_length)
{
    if (a_length > 0 && a[a_length - 1] == '.')
        a_length--;
    if (b_length > 0 && b[b_length - 1] == '.')
        b_length--;
    if (a_length == 0 || a_length != b_length)
        return false;
    for (size_t i = 0; i < a_length; i++)
        if (lower(a[i]) != lower(b[i]))
            return false;
    return true;
}

/* An IPv4 or IPv6 address, as text, that is loopback. */
static bool is_loopback_address(const char *text)
{
    struct in_addr v4;
    struct in6_addr v6;
    if (inet_pton(AF_INET, text, &v4) == 1)
        return (ntohl(v4.s_addr) >> 24) == 127;
    if (inet_pton(AF_INET6, text, &v6) == 1)
        return IN6_IS_ADDR_LOOPBACK(&v6) || (IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127);
    return false;
}

/* Letters, digits, '-', '_' and dots between labels (a trailing one allowed). */
static bool is_host_name(const char *name, size_t length)
{
    if (length == 0 || name[0] == '.')
        return false;
    for (size_t i = 0; i < length; i++) {
        char c = name[i];
        bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        if (!(letter || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.'))
            return false;
        if (c == '.' && i + 1 < length && name[i + 1] == '.')
            return false;
    }
    return true;
}

enum pv_origin pv_origin(const char *rhost, const char *tty, bool ssh_connection, const char *hostname)
{
    if (ssh_connection || (tty != NULL && strcmp(tty, SSHD_TTY) == 0))
        return PV_ORIGIN_SSHD;
    if (rhost == NULL || rhost[0] == '\0')
        return PV_ORIGIN_LOCAL;
    size_t length = strnlen(rhost, PV_RHOST_MAX_BYTES + 1);
    if (length > PV_RHOST_MAX_BYTES)
        return PV_ORIGIN_REMOTE;
    /* An address (IPv6 has a colon, IPv4 only digits and dots) is local only on loopback. */
    if (strchr(rhost, ':') != NULL || strspn(rhost, "0123456789.") == length)
        return is_loopback_address(rhost) ? PV_ORIGIN_LOCAL : PV_ORIGIN_REMOTE;
    if (!is_host_name(rhost, length))
        return PV_ORIGIN_REMOTE;
    if (same_name(rhost, length, "localhost", strlen("localhost")) ||
        same_name(rhost, length, hostname, strlen(hostname)))
        return PV_ORIGIN_LOCAL;
    return PV_ORIGIN_HOST_NAME;
}

/* The next field of a line (blanks between fields), or false at its end. */
static bool next_field(const char **pos, const char *end, const char **field, size_t *length)
{
    const char *p = *pos;
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
        p++;
    if (p == end)
        return false;
    *field = p;
    while (p < end && *p != ' ' && *p != '\t' && *p != '\r')
        p++;
    *length = (size_t)(p - *field);
    *pos = p;
    return true;
}

/* One line (comment included, newline excluded): whether it gives `name` to this machine. */
static bool line_names_this_machine(const char *line, const char *end, const char *hostname, const char *name)
{
    const char *comment = memchr(line, '#', (size_t)(end - line));
    if (comment != NULL)
        end = comment;
    const char *field, *pos = line;
    size_t length;
    if (!next_field(&pos, end, &field, &length))
        return false;
    char address[ADDRESS_CAPACITY];
    bool ours = false;
    if (length < sizeof address) {
        memcpy(address, field, length);
        address[length] = '\0';
        ours = is_loopback_address(address);
    }
    bool listed = false;
    size_t hostname_length = strlen(hostname), name_length = strlen(name);
    while (next_field(&pos, end, &field, &length)) {
        ours = ours || same_name(field, length, hostname, hostname_length);
        listed = listed || same_name(field, length, name, name_length);
    }
    return ours && listed;
}

bool pv_hosts_names_this_machine(const char *text, size_t length, const char *hostname, const char *name)
{
    const char *pos = text, *end = text + length;
    while (pos < end) {
        const char *newline = memchr(pos, '\n', (size_t)(end - pos));
        const char *line_end = newline != NULL ? newline : end;
        if (line_names_this_machine(pos, line_end, hostname, name))
            return true;
        pos = newline != NULL ? newline + 1 : end;
    }
    return false;
}
