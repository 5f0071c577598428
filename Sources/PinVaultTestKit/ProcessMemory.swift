import Foundation

/// Another process's memory as `/proc/PID/status` reports it: how much is resident and
/// locked, and the fields beside them (`Uid`, `NoNewPrivs`, `Seccomp`, `CapEff`…) for
/// the tests that check a sandbox. `MemoryImage` reads the memory itself.
public struct ProcessMemory: Sendable {
    /// Every `Field:\tvalue` line, value trimmed (`"1234 kB"`, `"0\t0\t0\t0"`).
    public let status: [String: String]

    /// Reads `/proc/PID/status` now.
    public init(pid: pid_t) throws {
        let path = "/proc/\(pid)/status"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw TestKitError("cannot read \(path)")
        }
        var fields: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2 { fields[String(parts[0])] = parts[1].trimmingCharacters(in: .whitespaces) }
        }
        func kibibytes(_ field: String) throws -> Int {
            guard let value = fields[field]?.split(separator: " ").first.flatMap({ Int($0) }) else {
                throw TestKitError("no \(field) in \(path)")
            }
            return value
        }
        status = fields
        residentBytes = try kibibytes("VmRSS") * 1024
        peakResidentBytes = try kibibytes("VmHWM") * 1024
        lockedKiB = try kibibytes("VmLck")
    }

    /// Resident set size at the reading (`VmRSS`), in bytes.
    public let residentBytes: Int
    /// Peak resident set size since the process started (`VmHWM`), in bytes.
    public let peakResidentBytes: Int
    /// Memory locked with `mlock` (`VmLck`), in KiB.
    public let lockedKiB: Int

    /// Proportional set size (`Pss` of `/proc/PID/smaps_rollup`), in bytes: the pages
    /// resident for `pid` with each shared page divided among the processes that map
    /// it — what the process costs the machine beside the libraries others use too.
    public static func proportionalBytes(pid: pid_t) throws -> Int {
        let path = "/proc/\(pid)/smaps_rollup"
        let text = try MemoryImage.readProcFile(path)
        for line in text.split(separator: "\n") where line.hasPrefix("Pss:") {
            if let kib = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap({ Int($0) }) {
                return kib * 1024
            }
        }
        throw TestKitError("no Pss in \(path)")
    }

    /// `bytes` in MiB with one decimal, for reports.
    public static func mebibytes(_ bytes: Int) -> String {
        String(format: "%.1f MiB", Double(bytes) / 1_048_576)
    }
}
