/* One Varlink connection to pinvaultd (pv_connection.h). */
#define _GNU_SOURCE /* struct ucred */
#include "pv_connection.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static int64_t now_ms(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
        return 0; /* cannot fail for CLOCK_MONOTONIC; 0 makes every deadline pass */
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t pv_deadline(int64_t after_ms)
{
    return now_ms() + after_ms;
}

/* Waits for `events` on the socket until `deadline`; PV_IO_OK when ready. */
static enum pv_io wait_for(int fd, short events, int64_t deadline)
{
    for (;;) {
        int64_t left = deadline - now_ms();
        if (left <= 0)
            return PV_IO_TIMEOUT;
        struct pollfd p = {.fd = fd, .events = events};
        int ready = poll(&p, 1, left > 60000 ? 60000 : (int)left);
        if (ready < 0) {
            if (errno == EINTR)
                continue;
            return PV_IO_ERROR;
        }
        if (ready > 0)
            return PV_IO_OK; /* including POLLHUP/POLLERR: the next call says what */
    }
}

enum pv_io pv_connect(struct pv_connection *connection, const char *path, int64_t deadline)
{
    struct sockaddr_un address;
    memset(connection, 0, sizeof *connection);
    connection->fd = -1;
    size_t path_length = strlen(path);
    memset(&address, 0, sizeof address);
    address.sun_family = AF_UNIX;
    if (path_length == 0 || path_length >= sizeof address.sun_path) {
        errno = ENAMETOOLONG;
        return PV_IO_ERROR;
    }
    memcpy(address.sun_path, path, path_length + 1);
    connection->buffer = malloc(PV_MAX_REPLY_BYTES);
    if (connection->buffer == NULL)
        return PV_IO_ERROR;
    connection->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (connection->fd < 0)
        return PV_IO_ERROR;
    for (;;) {
        if (connect(connection->fd, (const struct sockaddr *)&address, sizeof address) == 0)
            return PV_IO_OK;
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN) {
            /* The listen backlog is full: try again shortly, within the deadline. */
            struct timespec pause = {.tv_sec = 0, .tv_nsec = 20 * 1000000};
            if (now_ms() + 20 >= deadline)
                return PV_IO_TIMEOUT;
            (void)nanosleep(&pause, NULL); /* woken early by a signal: the loop tries again */
            continue;
        }
        if (errno != EINPROGRESS)
            return PV_IO_ERROR;
        enum pv_io waited = wait_for(connection->fd, POLLOUT, deadline);
        if (waited != PV_IO_OK)
            return waited;
        int error = 0;
        socklen_t size = sizeof error;
        if (getsockopt(connection->fd, SOL_SOCKET, SO_ERROR, &error, &size) != 0)
            return PV_IO_ERROR;
        if (error != 0) {
            errno = error;
            return PV_IO_ERROR;
        }
        return PV_IO_OK;
    }
}

int pv_server_uid(const struct pv_connection *connection, uid_t *uid)
{
    struct ucred credentials;
    socklen_t size = sizeof credentials;
    if (getsockopt(connection->fd, SOL_SOCKET, SO_PEERCRED, &credentials, &size) != 0)
        return -1;
    if (size != sizeof credentials) {
        errno = EPROTO;
        return -1;
    }
    *uid = credentials.uid;
    return 0;
}

enum pv_io pv_send(struct pv_connection *connection, const void *frame, size_t length, int64_t deadline)
{
    const unsigned char *p = frame;
    while (length > 0) {
        ssize_t sent = send(connection->fd, p, length, MSG_NOSIGNAL);
        if (sent > 0) {
            p += sent;
            length -= (size_t)sent;
            continue;
        }
        if (sent < 0 && errno == EINTR)
            continue;
        if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            enum pv_io waited = wait_for(connection->fd, POLLOUT, deadline);
            if (waited != PV_IO_OK)
                return waited;
            continue;
        }
        return sent < 0 && (errno == EPIPE || errno == ECONNRESET) ? PV_IO_CLOSED : PV_IO_ERROR;
    }
    return PV_IO_OK;
}

enum pv_io pv_receive(struct pv_connection *connection, int64_t deadline,
                      const unsigned char **frame, size_t *length)
{
    /* Drop the frames handed out before; keep what followed them. */
    if (connection->consumed > 0) {
        memmove(connection->buffer, connection->buffer + connection->consumed,
                connection->length - connection->consumed);
        connection->length -= connection->consumed;
        connection->consumed = 0;
    }
    size_t scanned = 0;
    for (;;) {
        unsigned char *nul = memchr(connection->buffer + scanned, 0, connection->length - scanned);
        if (nul != NULL) {
            *frame = connection->buffer;
            *length = (size_t)(nul - connection->buffer);
            connection->consumed = *length + 1;
            return PV_IO_OK;
        }
        scanned = connection->length;
        if (connection->length == PV_MAX_REPLY_BYTES)
            return PV_IO_TOO_LONG;
        ssize_t got = recv(connection->fd, connection->buffer + connection->length,
                           PV_MAX_REPLY_BYTES - connection->length, 0);
        if (got > 0) {
            connection->length += (size_t)got;
            continue;
        }
        if (got == 0)
            return PV_IO_CLOSED;
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            enum pv_io waited = wait_for(connection->fd, POLLIN, deadline);
            if (waited != PV_IO_OK)
                return waited;
            continue;
        }
        return errno == ECONNRESET ? PV_IO_CLOSED : PV_IO_ERROR;
    }
}

enum pv_io pv_ready(struct pv_connection *connection)
{
    /* Varlink without "more" sends one reply per call: anything past it is not ours. */
    if (connection->length > connection->consumed)
        return PV_IO_TOO_LONG;
    struct pollfd entry = {.fd = connection->fd, .events = POLLIN | POLLRDHUP};
    int ready;
    do {
        ready = poll(&entry, 1, 0);
    } while (ready < 0 && errno == EINTR);
    if (ready < 0)
        return PV_IO_ERROR;
    if (ready == 0)
        return PV_IO_OK;
    if (entry.revents & (POLLHUP | POLLRDHUP | POLLERR | POLLNVAL))
        return PV_IO_CLOSED;
    unsigned char byte;
    ssize_t peeked = recv(connection->fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    if (peeked == 0)
        return PV_IO_CLOSED;
    return peeked > 0 ? PV_IO_TOO_LONG : PV_IO_OK;
}

void pv_close(struct pv_connection *connection)
{
    if (connection->fd >= 0)
        (void)close(connection->fd); /* a socket: nothing to flush, nothing to report */
    connection->fd = -1;
    free(connection->buffer);
    connection->buffer = NULL;
    connection->length = connection->consumed = 0;
}
