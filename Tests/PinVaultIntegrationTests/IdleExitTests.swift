import Foundation
import Glibc
import PinVaultSystem
import PinVaultTestKit
import XCTest

/// `server.exit_on_idle_seconds` (docs/OPERATIONS.md, "Exit on idle"): socket-activated,
/// the daemon exits cleanly after that long with no connection and no work, and the
/// socket's next connection starts it again (an unlocked key counts as work); a
/// connection made at the moment of exit waits in the socket's backlog and is served by
/// the next start, never refused.
final class IdleExitTests: XCTestCase {
    private var daemon: TestDaemon!

    override func setUpWithError() throws {
        daemon = try TestDaemon()
        let directory = (daemon.socketPath as NSString).deletingLastPathComponent
        XCTAssertEqual(mkdir(directory, 0o755), 0, "mkdir: errno \(errno)")
    }

    override func tearDownWithError() throws {
        if daemon.process != nil { _ = try? daemon.stop(signal: SIGKILL) }
        daemon = nil
    }

    func testExitOnIdle_withoutSocketActivation_stopsTheStart_withAConfigurationError() throws {
        let status = try daemon.runToExit(arguments: daemon.standardArguments + ["--exit-on-idle-seconds", "1"])
        XCTAssertEqual(status, 78, daemon.log)
        XCTAssertTrue(daemon.log.contains("server.exit_on_idle_seconds is 1, but pinvaultd was not socket-activated"), daemon.log)
    }

    func testExitOnIdle_underSocketActivation_waitsForTheLastConnection_thenExitsCleanly() throws {
        let notify = try NotifySocket(path: daemon.root + "/notify")
        try daemon.start(
            arguments: daemon.standardArguments + ["--exit-on-idle-seconds", "1"],
            environment: ["NOTIFY_SOCKET": notify.path],
            // It passes on only the variables named with -E.
            launcher: ("/usr/bin/systemd-socket-activate", ["-l", daemon.socketPath, "-E", "NOTIFY_SOCKET"])
        )
        do {
            let client = try daemon.connect()
            XCTAssertSuccess(try client.call("io.pinvault.Vault.GetPolicy"))
            // Three idle periods with a connection open: it stays.
            XCTAssertNil(daemon.waitForExit(timeout: 3), "pinvaultd exited with a connection open:\n\(daemon.log)")
        }
        XCTAssertEqual(daemon.waitForExit(timeout: 15), 0, "pinvaultd did not exit once idle:\n\(daemon.log)")
        XCTAssertTrue(daemon.log.contains("exiting after server.exit_on_idle_seconds"), daemon.log)
        XCTAssertFalse(notify.messages(until: "STOPPING=1", timeout: 5).isEmpty, "no STOPPING=1 arrived")
    }

    func testAnUnlockedKey_keepsTheDaemon_untilItIsLocked() throws {
        try daemon.start(
            arguments: daemon.standardArguments + ["--exit-on-idle-seconds", "1"],
            launcher: ("/usr/bin/systemd-socket-activate", ["-l", daemon.socketPath])
        )
        let keyId: String
        do {
            let client = try daemon.connect()
            let credential = try client.register(user: "idle@example.com", pin: "258046")
            keyId = try XCTUnwrap(credential["keyId"] as? String)
            XCTAssertSuccess(try client.call("io.pinvault.Vault.Unlock", ["user": "idle@example.com", "pin": "258046", "ttlSeconds": 600]))
        }
        // No connection, no request: only the session. Three idle periods, and it stays.
        XCTAssertNil(daemon.waitForExit(timeout: 3), "pinvaultd exited, ending an unlocked session:\n\(daemon.log)")
        do {
            let client = try daemon.connect()
            XCTAssertSuccess(try client.call("io.pinvault.Vault.Lock", ["keyId": keyId]))
        }
        XCTAssertEqual(daemon.waitForExit(timeout: 15), 0, "pinvaultd did not exit once the key was locked:\n\(daemon.log)")
    }

    func testConnectionsAtTheMomentOfAnIdleExit_areAllServed_byTheNextStart() throws {
        let supervisor = try SocketSupervisor(daemon: daemon, arguments: daemon.standardArguments + ["--exit-on-idle-seconds", "1"])
        defer { supervisor.stop() }
        // Requests spaced around the moment the daemon decides to exit (1-2 s after the
        // last one): each must be answered, by the running daemon or by the next.
        var generator = SystemRandomNumberGenerator()
        for round in 0..<8 {
            usleep(UInt32.random(in: 900_000...2_200_000, using: &generator))
            let client = try VarlinkClient(socketPath: daemon.socketPath, timeoutSeconds: 20)
            let reply = try client.call("io.pinvault.Vault.GetPolicy")
            XCTAssertNil(reply.error, "round \(round): \(reply)\n\(daemon.log)")
        }
        supervisor.stop()
        XCTAssertGreaterThanOrEqual(supervisor.starts, 3, "the daemon should have exited when idle:\n\(daemon.log)")
        XCTAssertEqual(supervisor.failedExits, 0, "an exit was not clean:\n\(daemon.log)")
    }
}

/// What systemd does for `pinvaultd.socket`, for one test: it owns the listening
/// socket, hands it to pinvaultd as fd 3 (`LISTEN_FDS=1`, `LISTEN_PID` set by the
/// shell that execs the daemon), and, from its own thread, starts pinvaultd again
/// whenever none runs and a connection waits.
private final class SocketSupervisor: @unchecked Sendable {
    private let daemon: TestDaemon
    private let arguments: [String]
    private let listener: Int32
    private let lock = ConditionLock()
    private var child: ChildProcess?
    private var stopping = false
    private var thread: Thread?
    private(set) var starts = 0
    private(set) var failedExits = 0

    init(daemon: TestDaemon, arguments: [String]) throws {
        self.daemon = daemon
        self.arguments = arguments
        listener = try UnixSocket.bind(path: daemon.socketPath)
        guard chmod(daemon.socketPath, 0o666) == 0, listen(listener, 64) == 0 else {
            throw TestKitError("listen \(daemon.socketPath): errno \(errno)")
        }
        try lock.withLock { try start() }
        let thread = Thread { [self] in supervise() }
        self.thread = thread
        thread.start()
    }

    /// With the lock held.
    private func start() throws {
        var environment = ChildProcess.inheritedEnvironment()
        environment["LISTEN_FDS"] = "1"
        child = try ChildProcess(
            path: "/bin/sh",
            arguments: ["-c", "LISTEN_PID=$$ exec \"$0\" \"$@\"", daemon.binary] + arguments,
            environment: environment, logPath: daemon.logPath, descriptors: [listener: 3]
        )
        starts += 1
    }

    private func supervise() {
        while true {
            var entry = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            let waiting = poll(&entry, 1, 20) > 0
            let done: Bool = lock.withLock {
                guard !stopping else { return true }
                guard let child, !child.isRunning else { return false }
                if child.exitStatus != 0 { failedExits += 1 }
                if waiting {
                    do { try start() } catch { XCTFail("cannot start pinvaultd again: \(error)") }
                }
                return false
            }
            if done { return }
            if waiting { usleep(5_000) }
        }
    }

    func stop() {
        let child: ChildProcess? = lock.withLock {
            guard !stopping else { return nil }
            stopping = true
            return self.child
        }
        while thread?.isFinished == false { usleep(5_000) }
        _ = child?.stop()
        close(listener)
        unlink(daemon.socketPath)
    }
}
