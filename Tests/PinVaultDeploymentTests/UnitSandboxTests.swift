import Foundation
import Glibc
import PinVaultTestKit
import XCTest

/// The installed pinvaultd under the installed unit's sandbox, applied without systemd
/// by scripts/unit-sandbox.py (namespaces, mounts, capabilities, NoNewPrivileges, the
/// seccomp filters of SystemCallFilter=, RestrictAddressFamilies=,
/// MemoryDenyWriteExecute= and the rest): it must still register, authenticate and
/// shut down cleanly, with production KDF parameters.
final class UnitSandboxTests: XCTestCase {
    /// The sandbox's stand-in for the static `pinvault` user.
    static let serviceUid: uid_t = 64000
    static let python = "/usr/bin/python3"

    override class func tearDown() { Installation.removeShared() }

    /// Root and the tools root applies the sandbox with; a missing one skips loudly
    /// (and fails under CI, which runs as root with `make test`'s packages).
    private func requireSandbox() throws {
        guard geteuid() == 0 else {
            try RootOnlySuites.skip(self, "the unit sandbox needs root (namespaces, mounts, User=)") { XCTSkip($0) }
        }
        guard FileManager.default.isExecutableFile(atPath: Self.python),
              (try? Subprocess.run(Self.python, ["-c", "import seccomp"]).status) == 0
        else { try RootOnlySuites.skip(self, "Debian's python3-seccomp is not installed (make deps installs it)") { XCTSkip($0) } }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze") else {
            try RootOnlySuites.skip(self, "systemd-analyze is not installed (make deps installs systemd)") { XCTSkip($0) }
        }
        guard (try? Subprocess.run("/usr/bin/unshare", ["--mount", "--net", "/bin/true"]).status) == 0 else {
            try RootOnlySuites.skip(self, "this machine forbids new mount and network namespaces") { XCTSkip($0) }
        }
    }

    private func startSandboxed(_ installation: Installation) throws -> TestDaemon {
        let daemon = try TestDaemon.installed(installation, owner: Self.serviceUid)
        try daemon.start(launcher: (Self.python, [
            TestDaemon.repositoryRoot + "/scripts/unit-sandbox.py",
            "--unit", installation.servicePath,
            "--uid", "\(Self.serviceUid)", "--gid", "\(Self.serviceUid)",
            "--rw", daemon.stateDirectory, "--rw", daemon.root + "/sock",
            "--scratch", try daemon.scratch(), "--",
        ]))
        return daemon
    }

    func testInstalledDaemon_underTheUnitSandbox_registersAuthenticatesAndStopsCleanly() throws {
        try requireSandbox()
        let installation = try Installation.shared()
        let daemon = try startSandboxed(installation)
        let client = try daemon.connect()

        let credential = try client.register(user: "alice@example.org", pin: "258046")
        XCTAssertEqual(credential["state"] as? String, "active")
        let reply = try client.authenticate(user: "alice@example.org", pin: "258046")
        XCTAssertNil(reply.error, reply.description)
        XCTAssertNotNil(reply.string("signature"), reply.description)
        let wrong = try client.authenticate(user: "alice@example.org", pin: "370591")
        XCTAssertEqual(wrong.error, VarlinkClient.vault + ".WrongPin", wrong.description)

        let log = daemon.log
        for applied in ["SystemCallFilter=: allow-list", "MemoryDenyWriteExecute=yes: seccomp filter loaded",
                        "RestrictAddressFamilies=AF_UNIX", "RestrictNamespaces=yes", "ProtectSystem=strict",
                        "PrivateTmp=yes", "PrivateDevices=yes", "CapabilityBoundingSet="] {
            XCTAssertTrue(log.contains(applied), "not applied: \(applied)\n\(log)")
        }
        XCTAssertTrue(log.contains("event=auth.ok"), log)
        XCTAssertEqual(try daemon.stop(), 0, daemon.log)
    }

    func testSandboxedDaemon_runsUnprivilegedUnderSeccompWithoutCapabilities() throws {
        try requireSandbox()
        let installation = try Installation.shared()
        let daemon = try startSandboxed(installation)
        let status = try daemon.memory().status
        XCTAssertEqual(status["Uid"]?.split(separator: "\t").first.map(String.init), "\(Self.serviceUid)")
        XCTAssertEqual(status["NoNewPrivs"], "1")
        XCTAssertEqual(status["Seccomp"], "2", "no seccomp filter")
        XCTAssertGreaterThanOrEqual(Int(status["Seccomp_filters"] ?? "") ?? 0, 6)
        XCTAssertEqual(status["CapBnd"], "0000000000000000")
        XCTAssertEqual(status["CapEff"], "0000000000000000")
        // The pepper the daemon made itself is locked in memory.
        XCTAssertGreaterThan(try daemon.memory().lockedKiB, 0)
        XCTAssertEqual(try daemon.stop(), 0, daemon.log)
    }

    /// The installed pinvault-uhid under its installed unit's sandbox (root, the bounding
    /// set down to CAP_SETUID, CAP_SETGID and CAP_KILL, the system call filter, AF_UNIX
    /// only, no network, a read-only system): its relay still becomes the seat user
    /// (setgroups, setresgid, setresuid under the filter) and carries an INIT to the
    /// daemon and back, and a seat switch still ends that relay (which runs as the user:
    /// without CAP_KILL the kill failed and the switch waited forever).
    func testInstalledUHIDBridge_underItsUnitSandbox_becomesTheSeatUserAndRelays() throws {
        try requireSandbox()
        let installation = try Installation.shared()
        let daemon = try TestDaemon.installed(installation)
        try daemon.start()
        let kernel = try UHIDKernel(path: daemon.root + "/uhid.sock")
        let bridge = try UHIDBridge(
            binary: installation.destination + "/usr/local/sbin/pinvault-uhid",
            launcher: (Self.python, [
                TestDaemon.repositoryRoot + "/scripts/unit-sandbox.py",
                "--unit", installation.unitDirectory + "/pinvault-uhid.service", "--scratch", try daemon.scratch(), "--",
            ]),
            ctaphidSocket: daemon.ctaphidSocketPath, kernelPath: kernel.path, directory: daemon.root)
        let user = try LocalUser()
        try bridge.activate(user.uid)
        let (device, _) = try kernel.nextDevice()
        let channel = try device.initialize()
        try device.send(command: 0x81, channel: channel, payload: [3, 1, 4])
        XCTAssertEqual(try device.receiveMessage().payload, [3, 1, 4])
        try bridge.activate(nil)
        XCTAssertTrue(device.isClosed(within: 30), "the relay outlived its user's turn: \(bridge.log)")
        XCTAssertEqual(bridge.stop(), 0, bridge.log)
        for applied in ["SystemCallFilter=: allow-list", "RestrictAddressFamilies=AF_UNIX", "ProtectSystem=strict",
                        "CapabilityBoundingSet=CAP_SETUID CAP_SETGID CAP_KILL: bounding set reduced to it"] {
            XCTAssertTrue(bridge.log.contains(applied), "not applied: \(applied)\n\(bridge.log)")
        }
        XCTAssertEqual(try daemon.stop(), 0, daemon.log)
    }
}
