#!/usr/bin/python3
"""Runs a command under the sandbox a systemd service unit describes, without systemd.

PinVault's deployment tests use it to prove that pinvaultd really works under the
settings of systemd/pinvaultd.service on a machine whose PID 1 is not systemd (CI,
containers). It reads the unit's [Service] section and applies, in systemd's order,
what can be applied from user space:

  Limit*=                       setrlimit (MEMLOCK, CORE, NOFILE)
  PrivateNetwork=, PrivateIPC=, ProtectHostname=
                                new network, IPC and UTS namespaces
  ProtectSystem=strict          every mount read-only except /proc, /sys, /dev and --rw
  ProtectHome=yes               empty read-only tmpfs over /home, /root, /run/user
  PrivateTmp=yes                fresh tmpfs on /tmp and /var/tmp
  PrivateDevices=yes            a /dev with only null, zero, full, random, urandom, tty
  ProtectProc=invisible, ProcSubset=pid
                                a new procfs mounted hidepid=invisible,subset=pid
  ProtectKernelTunables=, ProtectControlGroups=
                                /sys read-only
  UMask=                        umask
  CapabilityBoundingSet=        every capability dropped from the bounding set (but the
                                ones it names: pinvault-uhid.service keeps two)
  User=/Group=                  --uid/--gid (a static user need not exist here)
  NoNewPrivileges=yes           PR_SET_NO_NEW_PRIVS
  MemoryDenyWriteExecute=yes    systemd's seccomp rules, plus the kernel's PR_SET_MDWE
  RestrictNamespaces=yes        seccomp: unshare, setns, clone(CLONE_NEW*) refused, clone3 ENOSYS
  RestrictSUIDSGID=yes          seccomp: chmod/open/mkdir with S_ISUID or S_ISGID refused
  LockPersonality=yes           seccomp: personality() other than PER_LINUX refused
  RestrictAddressFamilies=      seccomp: socket() of another family answers EAFNOSUPPORT
  SystemCallFilter=, SystemCallErrorNumber=, SystemCallArchitectures=native
                                seccomp allow-list, groups expanded by
                                `systemd-analyze syscall-filter`, other ABIs killed

Namespaces, mounts, the bounding set and the uid switch need root; without root they
are skipped and said so on stderr. Needs Debian's python3-seccomp.

usage: unit-sandbox.py --unit FILE [--uid N --gid N] [--rw PATH]... [--scratch DIR] -- COMMAND...
"""

import argparse
import ctypes
import errno
import os
import resource
import subprocess
import sys

import seccomp

libc = ctypes.CDLL(None, use_errno=True)

PR_CAPBSET_DROP = 24
PR_SET_NO_NEW_PRIVS = 38
PR_SET_MDWE = 65
PR_MDWE_REFUSE_EXEC_GAIN = 1
CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET, CLONE_NEWCGROUP = 0x10000000, 0x20000000, 0x40000000, 0x02000000
NAMESPACE_FLAGS = [CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET, CLONE_NEWCGROUP]
PROT_WRITE, PROT_EXEC = 0x2, 0x4
SHM_EXEC = 0o100000
O_CREAT = 0o100
S_ISUID, S_ISGID = 0o4000, 0o2000
ADDRESS_FAMILIES = {"AF_UNIX": 1, "AF_LOCAL": 1, "AF_INET": 2, "AF_INET6": 10, "AF_NETLINK": 16, "AF_PACKET": 17}


def note(message):
    print(f"unit-sandbox: {message}", file=sys.stderr)


def read_service_section(path):
    """The [Service] assignments, in order, as (key, value) pairs."""
    pairs, section = [], None
    with open(path, encoding="utf-8") as unit:
        for raw in unit:
            line = raw.strip()
            if not line or line[0] in "#;":
                continue
            if line.startswith("["):
                section = line
                continue
            if section == "[Service]" and "=" in line:
                key, value = line.split("=", 1)
                pairs.append((key.strip(), value.strip()))
    return pairs


def settings(pairs):
    """Last value wins, as in systemd, except for the list-valued keys."""
    single = {}
    for key, value in pairs:
        single[key] = value
    return single


def is_yes(value):
    return value is not None and value.lower() in ("yes", "true", "1", "on")


def parse_size(text):
    if text == "infinity":
        return resource.RLIM_INFINITY
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    if text[-1].upper() in units:
        return int(text[:-1]) * units[text[-1].upper()]
    return int(text)


def check(result, what):
    if result != 0:
        code = ctypes.get_errno()
        raise OSError(code, f"{what}: {os.strerror(code)}")


def apply_limits(config):
    for key, name in (("LimitMEMLOCK", resource.RLIMIT_MEMLOCK), ("LimitCORE", resource.RLIMIT_CORE),
                      ("LimitNOFILE", resource.RLIMIT_NOFILE)):
        if key in config:
            soft, _, hard = config[key].partition(":")
            limit = (parse_size(soft), parse_size(hard or soft))
            try:
                resource.setrlimit(name, limit)
                note(f"{key}={config[key]} applied")
            except ValueError:
                # No CAP_SYS_RESOURCE (a container): the hard limit cannot be raised.
                ceiling = resource.getrlimit(name)[1]
                capped = tuple(value if ceiling == resource.RLIM_INFINITY else min(value, ceiling) for value in limit)
                resource.setrlimit(name, capped)
                note(f"{key}={config[key]} capped at the hard limit {ceiling} (no CAP_SYS_RESOURCE here)")


def mount(*arguments):
    subprocess.run(["mount", *arguments], check=True)


def mount_points():
    with open("/proc/self/mountinfo", encoding="utf-8") as table:
        return [line.split()[4].encode().decode("unicode_escape") for line in table]


def under(path, roots):
    return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)


def apply_namespaces(config, rw_paths, scratch):
    flags = CLONE_NEWNS
    if is_yes(config.get("PrivateNetwork")):
        flags |= CLONE_NEWNET
    if is_yes(config.get("PrivateIPC")):
        flags |= CLONE_NEWIPC
    if is_yes(config.get("ProtectHostname")):
        flags |= CLONE_NEWUTS
    check(libc.unshare(flags), "unshare")
    mount("--make-rprivate", "/")
    note("new mount namespace; PrivateNetwork/PrivateIPC/ProtectHostname namespaces as configured")

    if is_yes(config.get("PrivateDevices")):
        dev = os.path.join(scratch, "dev")
        os.makedirs(dev, exist_ok=True)
        mount("-t", "tmpfs", "-o", "mode=0755,nosuid,noexec", "tmpfs", dev)
        for node in ("null", "zero", "full", "random", "urandom", "tty"):
            target = os.path.join(dev, node)
            open(target, "w").close()
            mount("--bind", "/dev/" + node, target)
        os.symlink("/proc/self/fd", os.path.join(dev, "fd"))
        mount("--move", dev, "/dev")
        note("PrivateDevices=yes: /dev holds null, zero, full, random, urandom, tty")

    if config.get("ProtectSystem") == "strict":
        for path in rw_paths:
            mount("--bind", path, path)
        api = ["/proc", "/sys", "/dev"]
        for point in mount_points():
            if under(point, api) or under(point, rw_paths):
                continue
            subprocess.run(["mount", "-o", "remount,bind,ro", point], check=False)
        note(f"ProtectSystem=strict: read-only except /proc, /sys, /dev and {', '.join(rw_paths)}")

    if is_yes(config.get("ProtectKernelTunables")) or is_yes(config.get("ProtectControlGroups")):
        for point in mount_points():
            if under(point, ["/sys"]):
                subprocess.run(["mount", "-o", "remount,bind,ro", point], check=False)
        note("ProtectKernelTunables/ProtectControlGroups: /sys read-only")

    if is_yes(config.get("PrivateTmp")):
        for directory in ("/tmp", "/var/tmp"):
            if os.path.isdir(directory) and not under(directory, rw_paths):
                mount("-t", "tmpfs", "-o", "mode=1777,nosuid,nodev", "tmpfs", directory)
        note("PrivateTmp=yes: fresh /tmp and /var/tmp")

    if config.get("ProtectHome") in ("yes", "true"):
        for directory in ("/home", "/root", "/run/user"):
            if os.path.isdir(directory) and not under(directory, rw_paths):
                mount("-t", "tmpfs", "-o", "ro,mode=0755,nosuid,nodev", "tmpfs", directory)
        note("ProtectHome=yes: /home, /root, /run/user empty")

    if config.get("ProtectProc") == "invisible" or config.get("ProcSubset") == "pid":
        options = ["nosuid", "nodev", "noexec"]
        if config.get("ProtectProc") == "invisible":
            options.append("hidepid=invisible")
        if config.get("ProcSubset") == "pid":
            options.append("subset=pid")
        mount("-t", "proc", "-o", ",".join(options), "proc", "/proc")
        note(f"ProtectProc/ProcSubset: /proc mounted {','.join(options[3:])}")


def capability_number(name):
    """CAP_SETUID and the like, as libcap numbers them."""
    libcap = ctypes.CDLL("libcap.so.2", use_errno=True)
    value = ctypes.c_int()
    check(libcap.cap_from_name(name.lower().encode(), ctypes.byref(value)), f"cap_from_name {name}")
    return value.value


def drop_bounding_set(highest, keep_names):
    keep = {capability_number(name) for name in keep_names}
    for capability in range(highest + 1):
        if capability not in keep:
            check(libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0), f"PR_CAPBSET_DROP {capability}")
    note(f"CapabilityBoundingSet={' '.join(keep_names)}: bounding set "
         + ("cleared" if not keep_names else "reduced to it"))


def switch_user(uid, gid):
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
    note(f"User=/Group=: now uid {uid} gid {gid}, no supplementary groups, no capabilities")


def syscall_group(name, cache={}):
    """The system calls of a `@group`, nested groups expanded."""
    if name in cache:
        return cache[name]
    output = subprocess.run(["systemd-analyze", "syscall-filter", name], check=True,
                            capture_output=True, text=True).stdout
    calls = set()
    for line in output.splitlines()[1:]:
        entry = line.strip()
        if not entry or entry.startswith("#"):
            continue
        calls |= syscall_group(entry) if entry.startswith("@") else {entry}
    cache[name] = calls
    return calls


def expand(names):
    calls = set()
    for name in names:
        calls |= syscall_group(name) if name.startswith("@") else {name}
    return calls


def allow_list(pairs):
    """systemd's reading of SystemCallFilter= lines: the first decides allow or deny."""
    allowed, mode = set(), None
    for key, value in pairs:
        if key != "SystemCallFilter":
            continue
        if not value:
            allowed, mode = set(), None
            continue
        negate = value.startswith("~")
        names = expand(value.lstrip("~").split())
        if mode is None:
            mode = "deny" if negate else "allow"
        if mode == "allow":
            allowed = allowed - names if negate else allowed | names
        else:
            raise SystemExit("unit-sandbox: a deny-list SystemCallFilter= is not supported")
    return allowed if mode == "allow" else None


def errno_number(name):
    return getattr(errno, name) if not name.isdigit() else int(name)


def add_rule(flt, action, name, *arguments):
    try:
        flt.add_rule(action, name, *arguments)
        return True
    except (RuntimeError, ValueError, OSError):
        return False  # not a system call of this architecture


def load_filters(config, allowed):
    deny = seccomp.ERRNO(errno.EPERM)
    native_only = config.get("SystemCallArchitectures") == "native"

    if is_yes(config.get("RestrictNamespaces")):
        flt = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
        add_rule(flt, deny, "unshare")
        add_rule(flt, deny, "setns")
        for flag in NAMESPACE_FLAGS:
            add_rule(flt, deny, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))
        add_rule(flt, seccomp.ERRNO(errno.ENOSYS), "clone3")
        flt.load()
        note("RestrictNamespaces=yes: seccomp filter loaded (clone3 answers ENOSYS, as under systemd)")

    if is_yes(config.get("RestrictSUIDSGID")):
        flt = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
        for bit in (S_ISUID, S_ISGID):
            for name, index in (("chmod", 1), ("fchmod", 1), ("fchmodat", 2), ("mkdir", 1), ("mkdirat", 2),
                                ("mknod", 1), ("mknodat", 2), ("creat", 1)):
                add_rule(flt, deny, name, seccomp.Arg(index, seccomp.MASKED_EQ, bit, bit))
            add_rule(flt, deny, "open", seccomp.Arg(1, seccomp.MASKED_EQ, O_CREAT, O_CREAT),
                     seccomp.Arg(2, seccomp.MASKED_EQ, bit, bit))
            add_rule(flt, deny, "openat", seccomp.Arg(2, seccomp.MASKED_EQ, O_CREAT, O_CREAT),
                     seccomp.Arg(3, seccomp.MASKED_EQ, bit, bit))
        flt.load()
        note("RestrictSUIDSGID=yes: seccomp filter loaded")

    if is_yes(config.get("LockPersonality")):
        flt = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
        add_rule(flt, deny, "personality", seccomp.Arg(0, seccomp.NE, 0))
        flt.load()
        note("LockPersonality=yes: seccomp filter loaded")

    families = config.get("RestrictAddressFamilies")
    if families:
        wanted = {ADDRESS_FAMILIES[name] for name in families.split()}
        if len(wanted) != 1:
            raise SystemExit("unit-sandbox: only one address family is supported")
        flt = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
        add_rule(flt, seccomp.ERRNO(errno.EAFNOSUPPORT), "socket", seccomp.Arg(0, seccomp.NE, wanted.pop()))
        flt.load()
        note(f"RestrictAddressFamilies={families}: seccomp filter loaded")

    if is_yes(config.get("MemoryDenyWriteExecute")):
        flt = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
        both = PROT_WRITE | PROT_EXEC
        add_rule(flt, deny, "mmap", seccomp.Arg(2, seccomp.MASKED_EQ, both, both))
        add_rule(flt, deny, "mprotect", seccomp.Arg(2, seccomp.MASKED_EQ, PROT_EXEC, PROT_EXEC))
        add_rule(flt, deny, "pkey_mprotect", seccomp.Arg(2, seccomp.MASKED_EQ, PROT_EXEC, PROT_EXEC))
        add_rule(flt, deny, "shmat", seccomp.Arg(2, seccomp.MASKED_EQ, SHM_EXEC, SHM_EXEC))
        flt.load()
        if libc.prctl(PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN, 0, 0, 0) == 0:
            note("MemoryDenyWriteExecute=yes: seccomp filter loaded and PR_SET_MDWE set")
        else:
            note("MemoryDenyWriteExecute=yes: seccomp filter loaded (no PR_SET_MDWE on this kernel)")

    if allowed is not None:
        action = seccomp.ERRNO(errno_number(config.get("SystemCallErrorNumber", "EPERM"))) \
            if "SystemCallErrorNumber" in config else seccomp.KILL_PROCESS
        flt = seccomp.SyscallFilter(defaction=action)
        if not native_only:
            raise SystemExit("unit-sandbox: SystemCallArchitectures=native is expected")
        known = sum(add_rule(flt, seccomp.ALLOW, name) for name in sorted(allowed))
        flt.load()
        note(f"SystemCallFilter=: allow-list of {known} system calls loaded, native ABI only")


def main():
    parser = argparse.ArgumentParser(description="Run a command under a service unit's sandbox.")
    parser.add_argument("--unit", required=True)
    parser.add_argument("--uid", type=int)
    parser.add_argument("--gid", type=int)
    parser.add_argument("--rw", action="append", default=[], help="stays writable (StateDirectory=, the socket)")
    parser.add_argument("--scratch", help="a directory for the private /dev; required as root")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    options = parser.parse_args()
    command = options.command[1:] if options.command[:1] == ["--"] else options.command
    if not command:
        parser.error("no command")

    pairs = read_service_section(options.unit)
    config = settings(pairs)
    root = os.geteuid() == 0
    # Read before /proc and the file system change under us.
    allowed = allow_list(pairs)
    with open("/proc/sys/kernel/cap_last_cap", encoding="ascii") as last:
        highest_capability = int(last.read())

    apply_limits(config)
    if root:
        if not options.scratch:
            parser.error("--scratch is required as root")
        apply_namespaces(config, [os.path.realpath(path) for path in options.rw], options.scratch)
    else:
        note("not root: namespaces, mounts, bounding set and User= skipped")
    if "UMask" in config:
        os.umask(int(config["UMask"], 8))
    if root and "CapabilityBoundingSet" in config:
        drop_bounding_set(highest_capability, config["CapabilityBoundingSet"].split())
    if root and options.uid is not None:
        switch_user(options.uid, options.gid if options.gid is not None else options.uid)
    # Set whatever NoNewPrivileges= says: seccomp without CAP_SYS_ADMIN needs it, and
    # systemd sets it for every unit with a system call filter for the same reason.
    check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "PR_SET_NO_NEW_PRIVS")
    note(f"NoNewPrivileges={config.get('NoNewPrivileges', 'no')} (set regardless, as the filters imply)")
    load_filters(config, allowed)
    sys.stderr.flush()
    os.execv(command[0], command)


if __name__ == "__main__":
    main()
