import Foundation
import Glibc
import PinVaultTestKit
import Synchronization
import XCTest

/// The event loop must sleep while it waits: level-triggered epoll spins on any
/// readiness the loop does not consume. The loop runs on the daemon's main thread,
/// so its CPU time is that of the task whose tid is the pid.
///
/// How much CPU a spinning thread gets depends on what else the machine runs, so the
/// loop's CPU time is compared with a baseline measured over the same interval: a
/// thread of this process that never sleeps (`Spinner`). A spinning loop gets about
/// as much as it; a loop that sleeps, next to nothing.
final class EventLoopTests: DaemonTestCase {
    /// utime + stime of the daemon's main thread, in seconds.
    private func loopThreadCPUSeconds() throws -> Double {
        let pid = try XCTUnwrap(daemon.pid)
        let stat = try String(contentsOfFile: "/proc/\(pid)/task/\(pid)/stat", encoding: .utf8)
        // Fields after the parenthesised command name: state is field 3, utime 14, stime 15.
        let fields = stat[stat.index(after: try XCTUnwrap(stat.lastIndex(of: ")")))...].split(separator: " ")
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        return (Double(fields[11]) ?? 0) / ticks + (Double(fields[12]) ?? 0) / ticks
    }

    func testAHalfClosedPeerWithAFullBufferAndACallInFlight_doesNotMakeTheLoopSpin() throws {
        // Production KDF costs keep each call in flight for a while; 1024-byte frames
        // and ~900-byte calls keep the input buffer full behind it, so the loop cannot
        // read the peer's EOF — the state in which a registered EPOLLRDHUP would fire
        // on every wait.
        try startDaemon(
            ["server": ["max_message_bytes": "1024"]],
            removing: ["kdf": ["opslimit", "memlimit_kib", "allow_weak"]]
        )
        try client.register(user: "alice", pin: pin)
        let challenge = Data(repeating: 7, count: 600).base64EncodedString()
        let spinner = Spinner()
        let before = try loopThreadCPUSeconds()
        for _ in 0..<8 {
            try client.send("io.pinvault.Vault.Authenticate", ["user": "alice", "pin": pin, "challenge": challenge])
        }
        client.shutdownWriting()
        for _ in 0..<8 {
            XCTAssertNil(try client.receive().error)
        }
        let cpu = try loopThreadCPUSeconds() - before
        let baseline = spinner.stop()
        XCTAssertLessThan(cpu, baseline * 0.3, "the loop thread used \(cpu) s of CPU while a spinning thread got \(baseline) s")
    }

    func testRunningOutOfDescriptors_pausesAcceptingInsteadOfSpinning_andRecovers() throws {
        daemon = try TestDaemon()
        // A hard limit of 24 descriptors: about a dozen connections exhaust it.
        try daemon.start(launcher: (path: "/usr/bin/prlimit", arguments: ["--nofile=24:24", "--"]))
        var held: [VarlinkClient] = []
        for _ in 0..<40 {
            if let connection = try? daemon.connect() { held.append(connection) }
        }
        let spinner = Spinner()
        let before = try loopThreadCPUSeconds()
        usleep(1_000_000)
        let cpu = try loopThreadCPUSeconds() - before
        let baseline = spinner.stop()
        XCTAssertLessThan(cpu, baseline * 0.3,
                          "the loop thread used \(cpu) s of CPU with its descriptors exhausted while a spinning thread got \(baseline) s")

        held.forEach { $0.close() }
        held = []
        let recovered = try eventually(timeout: 10) {
            guard let fresh = try? daemon.connect() else { return false }
            return (try? fresh.vault("GetPolicy"))?.error == nil
        }
        XCTAssertTrue(recovered, "accepting resumes once descriptors are free again:\n\(daemon.log)")
        client = try daemon.connect()
    }
}

/// A thread of this process that never sleeps, from `init` to `stop`: the CPU time a
/// spinning thread gets from the machine meanwhile, under whatever else it runs.
private final class Spinner: Sendable {
    private let running = Atomic<Bool>(true)
    private let used = Mutex<Double>(0)
    private let done = DispatchSemaphore(value: 0)

    init() {
        let thread = Thread { [self] in
            let start = Self.threadCPUSeconds()
            while running.load(ordering: .relaxed) {}
            let spent = Self.threadCPUSeconds() - start
            used.withLock { $0 = spent }
            done.signal()
        }
        thread.start()
    }

    /// Stops the thread and returns the CPU seconds it got.
    func stop() -> Double {
        running.store(false, ordering: .relaxed)
        done.wait()
        return used.withLock { $0 }
    }

    private static func threadCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
