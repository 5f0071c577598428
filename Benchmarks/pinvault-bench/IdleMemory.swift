import Glibc
import PinVaultTestKit

/// The release daemon's memory while it waits for work (issue 16): RSS and PSS a
/// second after its first answers (the background sweep of the store done, no
/// connection open), with the shipped configuration. Goal: RSS ≤ 12 MiB.
enum IdleMemory {
    static let goalMiB = 12.0

    static func measure(_ daemon: DaemonInstance, report: Report) throws -> ProcessMemory {
        guard let pid = daemon.pid else { throw BenchError("pinvaultd is not running") }
        usleep(1_000_000)
        let memory = try daemon.memory()
        let proportional = try ProcessMemory.proportionalBytes(pid: pid)
        let residentMiB = Double(memory.residentBytes) / 1_048_576
        report.goal("Idle memory: RSS of the release daemon in MiB", residentMiB, atMost: goalMiB)

        var section = Report.Section("Idle memory")
        section.add("The release `pinvaultd` (statically linked Swift runtime, as the Debian package ships it) with the")
        section.add("shipped configuration, one second after its first answers, with no connection open: `VmRSS` and")
        section.add("`VmLck` from `/proc/PID/status`, `Pss` from `/proc/PID/smaps_rollup` (shared pages divided among")
        section.add("the processes that map them).")
        section.add()
        section.header("figure", "value")
        section.row("RSS", "**\(Format.mebibytes(memory.residentBytes))** (goal ≤ \(Int(goalMiB)) MiB)")
        section.row("PSS", Format.mebibytes(proportional))
        section.row("locked (VmLck)", "\(memory.lockedKiB) KiB")
        report.add(section)
        return memory
    }
}
