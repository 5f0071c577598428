import Glibc

/// Finds programs the benchmark runs beside the daemon.
enum Executable {
    /// The first executable `name` on `$PATH` (or the usual system directories).
    static func find(_ name: String) throws -> String {
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":").map(String.init) + ["/usr/bin", "/bin", "/usr/sbin"] {
            let candidate = directory + "/" + name
            if access(candidate, X_OK) == 0 { return candidate }
        }
        throw BenchError("\(name) not found on PATH (Debian: see DEB_PACKAGES in the Makefile)")
    }
}
