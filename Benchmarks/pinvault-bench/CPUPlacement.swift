import Glibc

/// Where the round-trip benchmarks' parties run, set with util-linux's
/// `taskset --all-tasks` on every thread of each server and of this process (the
/// client).
///
/// - `oneCore`: all on CPU 0. The client's blocking `recv` hands the CPU straight to
///   the server and back: the figure is the software path itself.
/// - `acrossCores`: the client on CPU 0, every thread of each server on CPU 1. Each
///   request and each reply wakes a thread on the other CPU, which on a virtual machine
///   costs the hypervisor's cross-CPU wake-up (here ~20 µs each way, several times
///   either server's own work). This is the placement the cross-core goals judge.
/// - `scheduler`: every party free on every CPU, as users run them. The scheduler
///   sometimes runs a woken server on its client's CPU, so the figure mixes one-core
///   and cross-core trips in proportions it chooses (docs/PERFORMANCE.md).
enum CPUPlacement: CaseIterable {
    case oneCore
    case acrossCores
    case scheduler

    var title: String {
        switch self {
        case .oneCore: "on one core (client and servers pinned to CPU 0)"
        case .acrossCores: "across cores (client pinned to CPU 0, every thread of the servers to CPU 1)"
        case .scheduler: "the scheduler's placement (nothing pinned)"
        }
    }

    /// A short name for goals.
    var name: String {
        switch self {
        case .oneCore: "one core"
        case .acrossCores: "across cores"
        case .scheduler: "scheduler's placement"
        }
    }

    /// The placements a machine with `cores` online CPUs can give.
    static func available(cores: Int) -> [CPUPlacement] {
        cores > 1 ? [.oneCore, .acrossCores, .scheduler] : [.oneCore]
    }

    /// Places every thread of each process in `pids` (the servers) and of this process.
    func apply(to pids: [pid_t], cores: Int) throws {
        let all = "0-\(cores - 1)"
        let (servers, client) = switch self {
        case .oneCore: ("0", "0")
        case .acrossCores: ("1", "0")
        case .scheduler: (all, all)
        }
        for pid in pids {
            try Self.pin(pid, servers)
        }
        try Self.pin(getpid(), client)
    }

    private static func pin(_ pid: pid_t, _ cpus: String) throws {
        try Executable.run("taskset", ["--all-tasks", "--cpu-list", "--pid", cpus, String(pid)],
                           environment: ["PATH": "/usr/bin:/bin"])
    }
}
