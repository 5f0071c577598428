import Foundation

/// Resident memory of a process, from the `VmRSS` and `VmHWM` lines of `/proc/PID/status`.
struct ProcessMemory {
    /// Resident set size now, in bytes.
    let residentBytes: Int
    /// Peak resident set size since the process started, in bytes.
    let peakResidentBytes: Int

    init(pid: pid_t) throws {
        let path = "/proc/\(pid)/status"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw BenchError("cannot read \(path)")
        }
        func kilobytes(_ key: String) -> Int? {
            for line in text.split(separator: "\n") where line.hasPrefix(key + ":") {
                return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
            }
            return nil
        }
        guard let rss = kilobytes("VmRSS"), let hwm = kilobytes("VmHWM") else {
            throw BenchError("no VmRSS/VmHWM in \(path)")
        }
        residentBytes = rss * 1024
        peakResidentBytes = hwm * 1024
    }
}
