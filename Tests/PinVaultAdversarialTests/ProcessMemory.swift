import Foundation
import PinVaultTestKit

/// A process's memory as `/proc/PID/status` reports it, in bytes.
struct ProcessMemory {
    /// Resident now (`VmRSS`).
    let resident: Int
    /// Peak resident since start (`VmHWM`).
    let peakResident: Int

    init(pid: Int32) throws {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        func kibibytes(_ field: String) throws -> Int {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }),
                  let value = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first.flatMap({ Int($0) })
            else { throw TestKitError("no \(field) in /proc/\(pid)/status") }
            return value * 1024
        }
        resident = try kibibytes("VmRSS")
        peakResident = try kibibytes("VmHWM")
    }

    /// `bytes` in MiB with one decimal, for reports.
    static func mebibytes(_ bytes: Int) -> String {
        String(format: "%.1f MiB", Double(bytes) / 1_048_576)
    }
}
