import Glibc
import PinVaultTestKit

/// Finds and runs the programs the benchmark uses beside the daemon.
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

    /// Runs `name` (found on `$PATH`) to completion with only `environment`; throws,
    /// with its output, unless it exits 0.
    static func run(_ name: String, _ arguments: [String], environment: [String: String]) throws {
        let path = try find(name)
        let result = try Subprocess.run(path, arguments, environment: environment, timeout: 60)
        guard result.status == 0 else { throw BenchError("\(path) \(arguments.joined(separator: " ")): \(result)") }
    }
}
