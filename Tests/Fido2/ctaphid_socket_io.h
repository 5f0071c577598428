/*
 * pinvaultd's CTAPHID socket as a libfido2 device: I/O functions for
 * fido_dev_set_io_functions() that carry libfido2's HID reports over the Unix
 * socket, 64 bytes each way without the report-id byte. libfido2 keeps doing
 * the CTAPHID framing (INIT, channels, fragments, KEEPALIVE) itself.
 */
#ifndef CTAPHID_SOCKET_IO_H
#define CTAPHID_SOCKET_IO_H

#include <fido.h>

/* The functions, for fido_dev_set_io_functions(); open() takes the socket's path. */
extern const fido_dev_io_t ctaphid_socket_io;

#endif
