import Foundation
import PinVaultCrypto

/// The `[kdf]` keys of the configuration file the daemon runs with, read here so that
/// raw Argon2id runs at exactly the daemon's parameters.
struct ConfiguredKDF {
    let parameters: KDFParameters
    /// KDF jobs at once, as the daemon resolves `max_parallel` (0 = one per core).
    let maxParallel: Int

    /// Reads `opslimit`, `memlimit_mib` and `max_parallel` of `[kdf]` in `path`.
    init(path: String, cores: Int) throws {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw BenchError("cannot read \(path)")
        }
        var section = ""
        var values: [String: Int] = [:]
        for rawLine in text.split(separator: "\n") {
            let line = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
                .trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("[") {
                section = line
            } else if section == "[kdf]", let equals = line.firstIndex(of: "=") {
                let key = line[..<equals].trimmingCharacters(in: .whitespaces)
                let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
                values[key] = Int(value.replacingOccurrences(of: "_", with: ""))
            }
        }
        guard values["memlimit_kib"] == nil else {
            throw BenchError("\(path) sets memlimit_kib; the benchmark expects production memlimit_mib")
        }
        guard let opslimit = values["opslimit"], let memlimit = values["memlimit_mib"] else {
            throw BenchError("\(path) lacks [kdf] opslimit or memlimit_mib")
        }
        parameters = KDFParameters(opslimit: UInt64(opslimit), memlimit: UInt64(memlimit) << 20)
        let configured = values["max_parallel"] ?? 0
        maxParallel = configured > 0 ? configured : cores
    }

    /// "opslimit 3, 64 MiB".
    var description: String {
        "opslimit \(parameters.opslimit), \(parameters.memlimit >> 20) MiB"
    }
}
