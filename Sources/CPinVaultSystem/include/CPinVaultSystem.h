#ifndef CPINVAULT_SYSTEM_H
#define CPINVAULT_SYSTEM_H

// The few Linux interfaces Swift's Glibc module hides or cannot call (variadic prctl,
// struct ucred and memmem behind _GNU_SOURCE). No logic lives here.

#include <sys/types.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <signal.h>

/// Reads SO_PEERCRED of a connected Unix socket. Returns 0, or -1 with errno set.
int CPinVaultSystem_peer_credentials(int fd, pid_t *pid, uid_t *uid, gid_t *gid);

/// Reads SO_PEERGROUPS (the peer's supplementary groups at connect time) into
/// `groups`, at most `*count` entries; sets `*count` to the number stored. Returns 0,
/// or -1 with errno set (ERANGE when `*count` was too small: `*count` then holds the need).
int CPinVaultSystem_peer_groups(int fd, gid_t *groups, int *count);

/// pipe2(fds, O_CLOEXEC): both ends close on exec from the start. Returns 0, or -1
/// with errno set.
int CPinVaultSystem_pipe_closing_on_exec(int fds[2]);

/// accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC). Returns the new fd, or -1.
int CPinVaultSystem_accept(int fd);

/// prctl(PR_SET_DUMPABLE, 0): no core dumps, no ptrace by the same uid, /proc/PID/mem
/// readable by root only. Returns 0, or -1 with errno set.
int CPinVaultSystem_set_nondumpable(void);

/// prctl(PR_GET_DUMPABLE). Returns 0 or 1, or -1 with errno set.
int CPinVaultSystem_get_dumpable(void);

/// prctl(PR_SET_NAME, name): the thread's name in /proc and in ps/top.
int CPinVaultSystem_set_thread_name(const char *name);

/// memmem(3): the first occurrence of `needle` in `haystack`, or NULL.
void *CPinVaultSystem_memmem(const void *haystack, size_t haystack_len, const void *needle, size_t needle_len);

/// malloc_trim(3) with no padding: glibc gives the free pages of every arena back to the
/// kernel. 1 when it released some.
int CPinVaultSystem_release_free_heap(void);

#endif
