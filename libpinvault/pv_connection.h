/*
 * One Varlink connection to pinvaultd: connect, check who serves it, send a frame,
 * receive a frame. Every wait is bounded by a deadline on CLOCK_MONOTONIC, so a
 * daemon that hangs never hangs login; SIGPIPE is never raised in the caller.
 */
#ifndef PV_CONNECTION_H
#define PV_CONNECTION_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Largest reply accepted, NUL included: pinvaultd's default server.max_message_bytes. */
#define PV_MAX_REPLY_BYTES 65536

enum pv_io {
    PV_IO_OK,
    PV_IO_TIMEOUT,   /* the deadline passed */
    PV_IO_CLOSED,    /* the daemon closed the connection */
    PV_IO_TOO_LONG,  /* a reply without NUL within PV_MAX_REPLY_BYTES */
    PV_IO_ERROR,     /* a system call failed: errno says why */
};

struct pv_connection {
    int fd;
    unsigned char *buffer;  /* PV_MAX_REPLY_BYTES */
    size_t length;          /* bytes received */
    size_t consumed;        /* bytes of frames already handed out */
};

/* Milliseconds on CLOCK_MONOTONIC, `after_ms` from now. */
int64_t pv_deadline(int64_t after_ms);

/* Connects to the socket at `path` before `deadline`. */
enum pv_io pv_connect(struct pv_connection *connection, const char *path, int64_t deadline);

/* The uid of the process serving the socket (SO_PEERCRED); 0 on success. */
int pv_server_uid(const struct pv_connection *connection, uid_t *uid);

/* Sends all of `frame` (its NUL included) before `deadline`. */
enum pv_io pv_send(struct pv_connection *connection, const void *frame, size_t length, int64_t deadline);

/*
 * Receives the next frame before `deadline`: `*frame` points to its bytes (NUL
 * excluded, but NUL-terminated), valid until the next call.
 */
enum pv_io pv_receive(struct pv_connection *connection, int64_t deadline,
                      const unsigned char **frame, size_t *length);

/*
 * Whether the connection can carry a call now, without waiting: the daemon has not
 * closed it (an idle connection, a restart) and nothing it did not ask for waits
 * on it, nor is left over from the last frame. PV_IO_CLOSED or PV_IO_TOO_LONG (bytes
 * nobody asked for) otherwise.
 */
enum pv_io pv_ready(struct pv_connection *connection);

/* Closes the socket and frees the buffer. Safe on a connection that never opened. */
void pv_close(struct pv_connection *connection);

#endif
