import CSodium
import Foundation

/// What the figures were measured on.
struct MachineDescription {
    let cpuModel: String
    let cores: Int
    let kernel: String
    let memoryTotal: String
    let libsodium: String

    init() {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        cpuModel = cpuinfo.split(separator: "\n")
            .first { $0.hasPrefix("model name") }
            .flatMap { $0.split(separator: ":", maxSplits: 1).last }
            .map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown"
        cores = max(Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), 1)
        var names = utsname()
        uname(&names)
        func field<T>(_ value: inout T) -> String {
            withUnsafeBytes(of: &value) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        }
        kernel = "\(field(&names.sysname)) \(field(&names.release)) (\(field(&names.machine)))"
        let meminfo = (try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8)) ?? ""
        let totalKiB = meminfo.split(separator: "\n").first { $0.hasPrefix("MemTotal:") }
            .flatMap { $0.split(separator: " ").dropFirst().first }
            .flatMap { Int($0) } ?? 0
        memoryTotal = Format.mebibytes(totalKiB * 1024)
        libsodium = String(cString: sodium_version_string())
    }

    /// The first three fields of `/proc/loadavg`.
    static func loadAverage() -> String {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
        return text.split(separator: " ").prefix(3).joined(separator: " ")
    }
}
