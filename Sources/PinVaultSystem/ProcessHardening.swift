import CPinVaultSystem
import Glibc

/// What pinvaultd and pinvault agent do to themselves before they touch a secret: no core dumps, not
/// dumpable (so no ptrace by the same uid and /proc/PID/mem for root only), and a
/// umask under which every file it makes is private.
public enum ProcessHardening {
    public static func apply() throws(SystemError) {
        var none = rlimit(rlim_cur: 0, rlim_max: 0)
        guard setrlimit(RLIMIT_CORE_VALUE, &none) == 0 else { throw SystemError.last("setrlimit(RLIMIT_CORE)") }
        guard CPinVaultSystem_set_nondumpable() == 0 else { throw SystemError.last("prctl(PR_SET_DUMPABLE)") }
        umask(0o077)
    }

    /// Raises the soft descriptor limit to the hard one (systemd's default soft
    /// limit of 1024 is below what `server.max_connections` may ask) and returns it.
    public static func raiseDescriptorLimit() -> Int {
        var limit = rlimit()
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        guard getrlimit(resource, &limit) == 0 else { return 0 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(resource, &raised) == 0 { limit = raised }
        }
        return limit.rlim_cur > rlim_t(Int.max) ? Int.max : Int(limit.rlim_cur)
    }

    /// True when the process is non-dumpable (for tests and start-up logging).
    public static var isNonDumpable: Bool { CPinVaultSystem_get_dumpable() == 0 }

    private static var RLIMIT_CORE_VALUE: __rlimit_resource_t { __rlimit_resource_t(RLIMIT_CORE.rawValue) }
}
