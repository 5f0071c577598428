#ifndef CPINVAULT_SYSTEM_H
#define CPINVAULT_SYSTEM_H

#include <sys/types.h>

/// Reads SO_PEERCRED of a connected Unix socket. Returns 0, or -1 with errno set.
int CPinVaultSystem_peer_credentials(int fd, pid_t *pid, uid_t *uid, gid_t *gid);

/// prctl(PR_SET_DUMPABLE, 0): no core dumps, no ptrace by the same uid, /proc/PID/mem
/// readable by root only. Returns 0, or -1 with errno set.
int CPinVaultSystem_set_nondumpable(void);

/// prctl(PR_GET_DUMPABLE). Returns 0 or 1, or -1 with errno set.
int CPinVaultSystem_get_dumpable(void);

#endif
