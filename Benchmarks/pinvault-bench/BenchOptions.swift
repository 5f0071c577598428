/// The command line: `pinvault-bench --daemon PATH --config PATH --output PATH [--quick]
/// [--swift-version TEXT] [--commit TEXT]`, or `pinvault-bench drive-getpolicy SOCKET COUNT`
/// (round trips against a running daemon, for profiling it), or
/// `pinvault-bench drive-identities SOCKET COUNT` and `drive-signs SOCKET COUNT`
/// (REQUEST_IDENTITIES round trips, and SIGN_REQUESTs with the first identity, an Ed25519
/// key, against a running ssh-agent, for profiling `pinvault agent`), or
/// `pinvault-bench fill-store STATE_DIRECTORY COUNT` (a store as the scale test fills it),
/// or `pinvault-bench null-peer SOCKET BYTES` (the round trips' floor, see `NullPeer`).
enum BenchOptions {
    /// What to do.
    enum Command {
        case benchmark(daemonPath: String, configPath: String, outputPath: String, quick: Bool,
                       swiftVersion: String, commit: String)
        case driveGetPolicy(socketPath: String, count: Int)
        case driveIdentities(socketPath: String, count: Int)
        case driveSigns(socketPath: String, count: Int)
        case fillStore(stateDirectory: String, count: Int)
        case nullPeer(socketPath: String, replyBytes: Int)
    }

    static let usage = """
        usage: pinvault-bench --daemon PATH --config PATH --output PATH [--quick] [--swift-version TEXT] [--commit TEXT]
               pinvault-bench drive-getpolicy SOCKET COUNT
               pinvault-bench drive-identities SOCKET COUNT
               pinvault-bench drive-signs SOCKET COUNT
               pinvault-bench fill-store STATE_DIRECTORY COUNT
               pinvault-bench null-peer SOCKET BYTES
        """

    static func parse(_ arguments: [String]) throws -> Command {
        if arguments.first == "drive-getpolicy" {
            guard arguments.count == 3, let count = Int(arguments[2]), count > 0 else { throw BenchError(usage) }
            return .driveGetPolicy(socketPath: arguments[1], count: count)
        }
        if arguments.first == "drive-identities" {
            guard arguments.count == 3, let count = Int(arguments[2]), count > 0 else { throw BenchError(usage) }
            return .driveIdentities(socketPath: arguments[1], count: count)
        }
        if arguments.first == "drive-signs" {
            guard arguments.count == 3, let count = Int(arguments[2]), count > 0 else { throw BenchError(usage) }
            return .driveSigns(socketPath: arguments[1], count: count)
        }
        if arguments.first == "fill-store" {
            guard arguments.count == 3, let count = Int(arguments[2]), count > ScaleBenchmark.ownFillerRows else {
                throw BenchError(usage)
            }
            return .fillStore(stateDirectory: arguments[1], count: count)
        }
        if arguments.first == "null-peer" {
            guard arguments.count == 3, let bytes = Int(arguments[2]), (1...65536).contains(bytes) else { throw BenchError(usage) }
            return .nullPeer(socketPath: arguments[1], replyBytes: bytes)
        }
        var values: [String: String] = [:]
        var quick = false
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--quick":
                quick = true
            case "--daemon", "--config", "--output", "--swift-version", "--commit":
                guard index + 1 < arguments.count else { throw BenchError("\(argument) needs a value\n\(usage)") }
                values[argument] = arguments[index + 1]
                index += 1
            default:
                throw BenchError("unknown argument \(argument)\n\(usage)")
            }
            index += 1
        }
        guard let daemon = values["--daemon"], let config = values["--config"], let output = values["--output"] else {
            throw BenchError(usage)
        }
        return .benchmark(
            daemonPath: daemon, configPath: config, outputPath: output, quick: quick,
            swiftVersion: values["--swift-version"] ?? "unknown", commit: values["--commit"] ?? "unknown")
    }
}
