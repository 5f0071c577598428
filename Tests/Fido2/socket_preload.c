/*
 * Loaded into Yubico's fido2-token, fido2-cred and fido2-assert (LD_PRELOAD), it
 * makes the device path they are given pinvaultd's CTAPHID socket: every device
 * libfido2 makes gets the socket's I/O functions (ctaphid_socket_io.c) in place
 * of its hidraw ones. The rest is the tools' and libfido2's own code. A test
 * aid only: the tools, as shipped, open hidraw devices and cannot reach a socket.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fido.h>

#include "ctaphid_socket_io.h"

__attribute__((visibility("default"))) fido_dev_t *
fido_dev_new(void)
{
	fido_dev_t *(*real)(void) = (fido_dev_t *(*)(void))dlsym(RTLD_NEXT, "fido_dev_new");
	fido_dev_t *dev;

	if (real == NULL || (dev = real()) == NULL)
		return NULL;
	if (fido_dev_set_io_functions(dev, &ctaphid_socket_io) != FIDO_OK)
		fido_dev_free(&dev);
	return dev;
}
