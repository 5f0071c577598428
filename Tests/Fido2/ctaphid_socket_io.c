/*
 * pinvaultd's CTAPHID socket as a libfido2 device (ctaphid_socket_io.h).
 *
 * libfido2 writes a HID output report as its report-id byte (0) followed by
 * the report, and reads an input report without one. The socket carries the
 * bare 64-byte reports: the write drops the leading zero, the read waits (up
 * to libfido2's timeout) for one whole report.
 */
#include "ctaphid_socket_io.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define REPORT_LEN 64

struct socket_device {
	int fd;
};

static void *
socket_open(const char *path)
{
	struct sockaddr_un address = { .sun_family = AF_UNIX };
	struct socket_device *device;

	if (path == NULL || strlen(path) >= sizeof(address.sun_path))
		return NULL;
	memcpy(address.sun_path, path, strlen(path) + 1);
	if ((device = calloc(1, sizeof(*device))) == NULL)
		return NULL;
	device->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (device->fd < 0 || connect(device->fd, (struct sockaddr *)&address, sizeof(address)) != 0) {
		if (device->fd >= 0)
			close(device->fd);
		free(device);
		return NULL;
	}
	return device;
}

static void
socket_close(void *handle)
{
	struct socket_device *device = handle;

	close(device->fd);
	free(device);
}

/* One whole input report; ms < 0 waits without end. -1 on a timeout, an error or EOF. */
static int
socket_read(void *handle, unsigned char *buf, size_t len, int ms)
{
	struct socket_device *device = handle;
	struct pollfd ready = { .fd = device->fd, .events = POLLIN };
	size_t have = 0;
	ssize_t n;
	int polled;

	if (len != REPORT_LEN)
		return -1;
	while (have < len) {
		polled = poll(&ready, 1, ms);
		if (polled < 0 && errno == EINTR)
			continue;
		if (polled != 1)
			return -1;
		n = recv(device->fd, buf + have, len - have, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		have += (size_t)n;
	}
	return (int)len;
}

/* An output report: the report-id byte, then the report sent whole. */
static int
socket_write(void *handle, const unsigned char *buf, size_t len)
{
	struct socket_device *device = handle;
	size_t sent = 1;
	ssize_t n;

	if (len != REPORT_LEN + 1 || buf[0] != 0)
		return -1;
	while (sent < len) {
		n = send(device->fd, buf + sent, len - sent, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		sent += (size_t)n;
	}
	return (int)len;
}

const fido_dev_io_t ctaphid_socket_io = {
	.open = socket_open,
	.close = socket_close,
	.read = socket_read,
	.write = socket_write,
};
