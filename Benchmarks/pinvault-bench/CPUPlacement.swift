import Glibc

/// Where the round-trip benchmark's three parties run: wherever the scheduler puts
/// them, or all on one CPU.
///
/// On a virtual machine a blocked thread woken from another CPU pays the hypervisor's
/// cross-CPU wake-up (here ~50 µs, several times either server's own work), so across
/// cores both servers measure mostly that. On one CPU the client's blocking `recv`
/// hands the CPU straight to the server and back: the figure is the software path.
enum CPUPlacement: CaseIterable {
    case scheduler
    case oneCore

    var title: String {
        switch self {
        case .scheduler: "across cores (the scheduler's placement)"
        case .oneCore: "on one core (client, pinvaultd and ssh-agent pinned to CPU 0)"
        }
    }

    /// Pins every thread of each process in `pids` and of this process to CPU 0
    /// (`.oneCore`), or lets them run on every online CPU (`.scheduler`), with
    /// util-linux's `taskset --all-tasks`.
    func apply(to pids: [pid_t], cores: Int) throws {
        let cpus = self == .oneCore ? "0" : "0-\(cores - 1)"
        for pid in pids + [getpid()] {
            try Executable.run("taskset", ["--all-tasks", "--cpu-list", "--pid", cpus, String(pid)],
                               environment: ["PATH": "/usr/bin:/bin"])
        }
    }
}
