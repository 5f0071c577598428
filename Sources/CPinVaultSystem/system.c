#define _GNU_SOURCE
#include "CPinVaultSystem.h"

#include <errno.h>
#include <malloc.h>
#include <fcntl.h>
#include <unistd.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>

int CPinVaultSystem_peer_credentials(int fd, pid_t *pid, uid_t *uid, gid_t *gid) {
    struct ucred cred;
    socklen_t len = sizeof(cred);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
        return -1;
    }
    if (len != sizeof(cred)) {
        errno = EPROTO;
        return -1;
    }
    *pid = cred.pid;
    *uid = cred.uid;
    *gid = cred.gid;
    return 0;
}

int CPinVaultSystem_peer_groups(int fd, gid_t *groups, int *count) {
    if (*count < 0) {
        errno = EINVAL;
        return -1;
    }
    socklen_t len = (socklen_t)((size_t)*count * sizeof(gid_t));
    if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) != 0) {
        if (errno == ERANGE) {
            *count = (int)(len / sizeof(gid_t));
        }
        return -1;
    }
    *count = (int)(len / sizeof(gid_t));
    return 0;
}

int CPinVaultSystem_accept(int fd) {
    return accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

int CPinVaultSystem_set_nondumpable(void) {
    return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

int CPinVaultSystem_get_dumpable(void) {
    return prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
}

int CPinVaultSystem_set_thread_name(const char *name) {
    return prctl(PR_SET_NAME, name, 0, 0, 0);
}

void *CPinVaultSystem_memmem(const void *haystack, size_t haystack_len, const void *needle, size_t needle_len) {
    return memmem(haystack, haystack_len, needle, needle_len);
}

int CPinVaultSystem_release_free_heap(void)
{
    return malloc_trim(0);
}

int CPinVaultSystem_pipe_closing_on_exec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}
