import Foundation
import Glibc
import PinVaultTestKit
import XCTest

/// The daemon as a process (docs/OPERATIONS.md): signals, its socket file, start-up refusals,
/// connection limits, sd_notify and socket activation.
final class DaemonLifeTests: DaemonTestCase {
    private func socketFileExists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFSOCK
    }

    /// Makes `sock/` under the daemon's root, as the daemon would.
    private func makeSocketDirectory() throws {
        let directory = (daemon.socketPath as NSString).deletingLastPathComponent
        XCTAssertEqual(mkdir(directory, 0o755), 0, "mkdir: errno \(errno)")
    }

    func testSIGTERM_exitsZero_andRemovesTheSocketFile() throws {
        try startDaemon()
        XCTAssertTrue(socketFileExists(daemon.socketPath))
        client = nil
        XCTAssertEqual(try daemon.stop(signal: SIGTERM), 0, daemon.log)
        XCTAssertFalse(socketFileExists(daemon.socketPath))
    }

    func testSIGINT_exitsZero_andRemovesTheSocketFile() throws {
        try startDaemon()
        client = nil
        XCTAssertEqual(try daemon.stop(signal: SIGINT), 0, daemon.log)
        XCTAssertFalse(socketFileExists(daemon.socketPath))
    }

    func testSIGTERM_duringACall_finishesTheCallFirst() throws {
        try startDaemon(removing: ["kdf": ["opslimit", "memlimit_kib", "allow_weak"]])
        try client.send("io.pinvault.Vault.Register", ["user": "slow", "pin": pin])
        // The signal comes once the daemon has read the call (a turn of its loop hands a
        // call over as it reads it), not after a guessed pause.
        XCTAssertTrue(eventually(timeout: 30) { client.unreadByPeer == 0 }, "the daemon never read the call")
        guard let pid = daemon.pid else { return XCTFail("not running") }
        kill(pid, SIGTERM)
        let reply = try client.receive()
        XCTAssertSuccess(reply)
        XCTAssertEqual(daemon.waitForExit(timeout: 20), 0, daemon.log)
    }

    func testAStaleSocketFile_isReplacedAtStart() throws {
        daemon = try TestDaemon()
        try makeSocketDirectory()
        // Bound and closed without unlinking: what a crashed daemon leaves behind.
        XCTAssertNoThrow(try StaleSocketFile.make(at: daemon.socketPath))
        XCTAssertTrue(socketFileExists(daemon.socketPath))

        try daemon.start()
        client = try daemon.connect()
        XCTAssertSuccess(try client.call("org.varlink.service.GetInfo"))
    }

    func testALiveSocket_makesASecondDaemonExitNonZero_andTheFirstGoesOn() throws {
        try startDaemon()
        let second = try TestDaemon()
        let status = try second.runToExit(arguments: [
            "--config", second.configPath, "--socket", daemon.socketPath, "--state-directory", second.stateDirectory,
        ])
        XCTAssertNotEqual(status, 0)
        XCTAssertTrue(second.log.contains("in use"), second.log)
        XCTAssertSuccess(try client.call("org.varlink.service.GetInfo"))
        XCTAssertSuccess(try daemon.connect().call("org.varlink.service.GetInfo"))
    }

    func testAnUnknownConfigurationKey_stopsTheStart_namingFileAndKey() throws {
        daemon = try TestDaemon(overrides: ["server": ["max_conections": "5"]])
        XCTAssertEqual(try daemon.runToExit(), 78, daemon.log)
        XCTAssertTrue(daemon.log.contains(daemon.configPath), daemon.log)
        XCTAssertTrue(daemon.log.contains("server.max_conections"), daemon.log)
        XCTAssertFalse(socketFileExists(daemon.socketPath))
    }

    func testWeakKDFParameters_withoutAllowWeak_stopTheStart() throws {
        daemon = try TestDaemon(removing: ["kdf": ["allow_weak"]])
        XCTAssertEqual(try daemon.runToExit(), 78, daemon.log)
        XCTAssertTrue(daemon.log.contains(daemon.configPath), daemon.log)
        XCTAssertTrue(daemon.log.contains("kdf.opslimit"), daemon.log)
        XCTAssertTrue(daemon.log.contains("allow_weak"), daemon.log)
    }

    func testAnIdleConnection_isClosedAfterIdleTimeout_whileABusyOneStays() throws {
        // The busy connection calls every 0.1 s until the idle one is closed: it is never
        // idle for anything near the 2 s, even on a busy machine.
        try startDaemon(["server": ["idle_timeout_seconds": "2"]])
        let idle = try daemon.connect()
        XCTAssertSuccess(try idle.call("org.varlink.service.GetInfo"))
        let deadline = Date().addingTimeInterval(60)
        var closed = false
        while !closed && Date() < deadline {
            XCTAssertSuccess(try client.call("org.varlink.service.GetInfo"))
            closed = idle.isClosedByPeer(timeout: 0.1)
        }
        XCTAssertTrue(closed, "the idle connection stayed open")
        XCTAssertSuccess(try client.call("org.varlink.service.GetInfo"))
    }

    /// A session bound to its connection (a PKCS#11 login) would end with it: such a
    /// connection stays open however long it idles, and closes for idleness once the
    /// session is gone.
    func testAConnectionHoldingABoundSession_outlivesTheIdleTimeout_untilItsSessionEnds() throws {
        try startDaemon(["server": ["idle_timeout_seconds": "1"]])
        let credential = try client.register(user: "alice", pin: pin)
        let keyId = try XCTUnwrap(credential["keyId"] as? String)
        let held = try daemon.connect()
        XCTAssertSuccess(try held.vault("Unlock", ["user": "alice", "pin": pin, "ttlSeconds": 3600, "bindToConnection": true]))
        sleep(3)  // three times the idle timeout, with the sweep running each second
        let challenge = Data("still here".utf8).base64EncodedString()
        XCTAssertSuccess(try held.vault("Sign", ["keyId": keyId, "challenge": challenge]))
        XCTAssertSuccess(try held.vault("Lock", ["keyId": keyId]))
        XCTAssertTrue(held.isClosedByPeer(timeout: 5), "with its session gone, the idle connection stayed open")
    }

    func testMaxConnectionsPerUid_refusesTheNextConnection() throws {
        try startDaemon(["server": ["max_connections_per_uid": "2"]])
        // The start-up probe's connection must be gone before counting.
        XCTAssertTrue(try eventually(timeout: 30) {
            try client.succeeding("GetStats").object("counters")?.int("activeConnections") == 1
        })
        let second = try daemon.connect()
        XCTAssertSuccess(try second.call("org.varlink.service.GetInfo"))
        let third = try daemon.connect()
        XCTAssertTrue(third.isClosedByPeer(timeout: 30), "a third connection was served")
        XCTAssertSuccess(try client.call("org.varlink.service.GetInfo"))

        second.close()
        XCTAssertTrue(eventually(timeout: 30) {
            (try? daemon.connect().call("org.varlink.service.GetInfo"))?.error == nil
        })
    }

    func testSdNotify_sendsReadyOnceServing_andStoppingOnSIGTERM() throws {
        daemon = try TestDaemon()
        let notify = try NotifySocket(path: daemon.root + "/notify")
        try daemon.start(environment: ["NOTIFY_SOCKET": notify.path])
        let ready = notify.messages(until: "READY=1", timeout: 10)
        XCTAssertFalse(ready.isEmpty, "no READY=1 arrived")
        XCTAssertTrue(ready.joined().contains("STATUS="), ready.joined())
        client = try daemon.connect()
        XCTAssertSuccess(try client.call("org.varlink.service.GetInfo"))

        client = nil
        XCTAssertEqual(try daemon.stop(), 0, daemon.log)
        XCTAssertFalse(notify.messages(until: "STOPPING=1", timeout: 5).isEmpty, "no STOPPING=1 arrived")
    }

    func testSocketActivation_servesTheInheritedSocket_andNeverUnlinksIt() throws {
        daemon = try TestDaemon()
        try makeSocketDirectory()
        try daemon.start(launcher: ("/usr/bin/systemd-socket-activate", ["-l", daemon.socketPath]))
        client = try daemon.connect()
        XCTAssertSuccess(try client.call("org.varlink.service.GetInfo"))
        try client.register(user: "activated", pin: pin)
        XCTAssertEqual(try client.list().count, 1)
        XCTAssertTrue(daemon.log.contains("from systemd"), daemon.log)

        client = nil
        XCTAssertEqual(try daemon.stop(), 0, daemon.log)
        XCTAssertTrue(socketFileExists(daemon.socketPath), "pinvaultd unlinked a socket systemd owns")
    }

    /// Both sockets from socket units that name them (`FileDescriptorName=`, in
    /// `LISTEN_FDNAMES`), the agent's listed first.
    func testSocketActivation_servesTheAgentOnTheSocketNamedSshAgent() throws {
        daemon = try TestDaemon()
        try makeSocketDirectory()
        try daemon.start(launcher: ("/usr/bin/systemd-socket-activate", [
            "-l", daemon.sshAgentSocketPath, "-l", daemon.socketPath, "--fdname=ssh-agent:varlink",
        ]))
        client = try daemon.connect()
        XCTAssertSuccess(try client.call("org.varlink.service.GetInfo"))
        let agent = try SSHAgentClient(path: daemon.sshAgentSocketPath)
        try agent.send(SSHAgentClient.identitiesRequest)
        XCTAssertEqual(try agent.receiveFrame(), SSHAgentClient.noIdentities)
        XCTAssertTrue(daemon.log.contains("using 2 socket(s) from systemd"), daemon.log)
        client = nil
        XCTAssertEqual(try daemon.stop(), 0, daemon.log)
        XCTAssertTrue(socketFileExists(daemon.sshAgentSocketPath), "pinvaultd unlinked a socket systemd owns")
    }

    func testAnEmptyAgentSocketPath_servesNoAgent() throws {
        daemon = try TestDaemon()
        try daemon.start(arguments: daemon.standardArguments.map { $0 == daemon.sshAgentSocketPath ? "" : $0 })
        client = try daemon.connect()
        XCTAssertSuccess(try client.call("org.varlink.service.GetInfo"))
        XCTAssertFalse(socketFileExists(daemon.sshAgentSocketPath))
        XCTAssertTrue(daemon.log.contains("sshAgentSocket=none"), daemon.log)
    }

    /// The agent turned off while the socket unit still passes its socket: a clear
    /// configuration error, not Varlink served where ssh looks for an agent.
    func testSocketActivation_ofTheAgentSocket_withTheAgentOff_isAConfigurationError() throws {
        daemon = try TestDaemon()
        try makeSocketDirectory()
        let arguments = daemon.standardArguments.map { $0 == daemon.sshAgentSocketPath ? "" : $0 }
        try daemon.start(arguments: arguments, launcher: ("/usr/bin/systemd-socket-activate", [
            "-l", daemon.sshAgentSocketPath, "-l", daemon.socketPath, "--fdname=ssh-agent:varlink",
        ]), waitForSocket: false)
        // The activator execs pinvaultd on the first connection, which waits in its backlog.
        var waited = 0
        while !socketFileExists(daemon.socketPath) && waited < 200 {
            usleep(20_000)
            waited += 1
        }
        let first = try? daemon.connect()
        XCTAssertEqual(daemon.waitForExit(timeout: 20), 78, daemon.log)
        _ = first
        XCTAssertTrue(daemon.log.contains("systemd passed the ssh-agent socket"), daemon.log)
        XCTAssertTrue(daemon.log.contains("ssh_agent.socket_path is \"\""), daemon.log)
    }

    /// Both sockets from one socket unit, as the shipped pinvaultd.socket passes them:
    /// one name for both, so the agent's is the one bound to `ssh_agent.socket_path`.
    func testSocketActivation_ofOneUnitWithBothSockets_tellsThemApartByPath() throws {
        daemon = try TestDaemon(overrides: ["ssh_agent": ["socket_path": "\"/placeholder/agent.sock\""]])
        try makeSocketDirectory()
        let config = try String(contentsOfFile: daemon.configPath, encoding: .utf8)
            .replacingOccurrences(of: "/placeholder/agent.sock", with: daemon.sshAgentSocketPath)
        try config.write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
        try daemon.start(
            arguments: ["--config", daemon.configPath, "--socket", daemon.socketPath, "--state-directory", daemon.stateDirectory],
            launcher: ("/usr/bin/systemd-socket-activate", ["-l", daemon.socketPath, "-l", daemon.sshAgentSocketPath])
        )
        client = try daemon.connect()
        XCTAssertSuccess(try client.call("org.varlink.service.GetInfo"))
        let agent = try SSHAgentClient(path: daemon.sshAgentSocketPath)
        try agent.send(SSHAgentClient.identitiesRequest)
        XCTAssertEqual(try agent.receiveFrame(), SSHAgentClient.noIdentities)
    }
}
