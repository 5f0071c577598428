import Foundation
import Glibc
import PinVaultTestKit
import XCTest

/// PinVault's ssh-agent socket with OpenSSH itself (Debian's ssh, ssh-add, ssh-keygen
/// and sshd on 127.0.0.1): a credential is offered, logs in and signs for git only
/// while unlocked, only to its own uid, and every end of the session takes it away.
final class OpenSSHTests: XCTestCase {
    private var fixture: OpenSSHFixture!

    override func setUpWithError() throws {
        try OpenSSHFixture.requirements(of: self)
        fixture = try OpenSSHFixture(algorithm: OpenSSHFixture.algorithm(of: self))
    }

    override func tearDownWithError() throws {
        if let daemon = fixture?.daemon, daemon.process != nil {
            XCTAssertEqual(try daemon.stop(), 0, "pinvaultd did not exit cleanly:\n\(daemon.log)")
        }
        fixture = nil
    }

    func testBeforeUnlock_nothing_afterUnlock_sshAddSshAndGitSigning_butNotForAnotherUid() throws {
        try beforeUnlockNothing_afterUnlockSshAddSshAndGitSigning_butNotForAnotherUid()
    }

    /// The same with an ECDSA P-256 key: `ecdsa-sha2-nistp256`, its (r, s) signature.
    func testBeforeUnlock_nothing_afterUnlock_sshAddSshAndGitSigning_butNotForAnotherUid_p256() throws {
        XCTAssertTrue(fixture.keyLine.hasPrefix("ecdsa-sha2-nistp256 "), fixture.keyLine)
        try beforeUnlockNothing_afterUnlockSshAddSshAndGitSigning_butNotForAnotherUid()
        XCTAssertTrue(fixture.server.log.contains("ECDSA SHA256:"), "not by the P-256 key:\n\(fixture.server.log)")
    }

    private func beforeUnlockNothing_afterUnlockSshAddSshAndGitSigning_butNotForAnotherUid() throws {
        try fixture.assertAllFails("before unlock")
        try fixture.unlock()
        try fixture.assertAllWorks()
        // Another uid on the same socket sees no identity and cannot sign.
        let nobody = try SSHTestUser.run(uid: 65534, gid: 65534, ["/usr/bin/ssh-add", "-l"], environment: fixture.environment)
        XCTAssertEqual(nobody.status, 1, "another uid: \(nobody)")
        XCTAssertTrue(nobody.standardOutput.contains("no identities"), "\(nobody)")
        let removed = try SSHTestUser.run(uid: 65534, gid: 65534, ["/usr/bin/ssh-add", "-D"], environment: fixture.environment)
        XCTAssertEqual(removed.status, 0, "\(removed)")
        try fixture.assertAllWorks()
        XCTAssertTrue(fixture.daemon.log.contains("event=session.unlock"), fixture.daemon.log)
    }

    func testPinvaultLock_takesTheKeyAway() throws {
        try fixture.unlock()
        try fixture.assertAllWorks()
        _ = try fixture.checked(fixture.pinvault(["lock", fixture.user.name]), "pinvault lock")
        try fixture.assertAllFails("after pinvault lock")
    }

    func testSshAddD_takesTheKeyAway() throws {
        try fixture.unlock()
        try fixture.assertAllWorks()
        let removed = try fixture.user.run(["/usr/bin/ssh-add", "-D"], environment: fixture.environment)
        XCTAssertEqual(removed.status, 0, "\(removed)")
        try fixture.assertAllFails("after ssh-add -D")
    }

    func testTheTTL_takesTheKeyAway() throws {
        // Everything works inside the TTL: when this machine took longer than the TTL for
        // the checks, a failure among them proves nothing, and they run again under a TTL
        // twice as long. Past the TTL (slept after the unlock), nothing works.
        var ttl = 3
        while true {
            let unlocked = Date()
            try fixture.unlock(ttl: "\(ttl)s")
            let failures = try fixture.failuresOfAllWorks()
            if failures.isEmpty { break }
            guard Date().timeIntervalSince(unlocked) >= Double(ttl), ttl < 48 else {
                return XCTFail("within its TTL of \(ttl) s:\n" + failures.joined(separator: "\n"))
            }
            _ = try fixture.checked(fixture.pinvault(["lock", "--all"]), "pinvault lock")
            ttl *= 2
        }
        sleep(UInt32(ttl))
        try fixture.assertAllFails("after the TTL")
    }

    func testChangePin_takesTheKeyAway() throws {
        try fixture.unlock()
        try fixture.assertAllWorks()
        _ = try fixture.checked(
            fixture.pinvault(["change-pin", fixture.user.name, "--pin-stdin"], input: "\(fixture.pin)\n\(fixture.newPin)\n"),
            "pinvault change-pin"
        )
        try fixture.assertAllFails("after change-pin")
    }

    /// `pinvault unlock --bind` holds the session while it runs; ending it (SIGTERM)
    /// closes its connection, and the key goes.
    func testUnlockWithBind_lastsAsLongAsTheCommand() throws {
        let process = try Spawned(
            ["/usr/bin/setpriv", "--reuid=\(fixture.user.uid)", "--regid=\(fixture.user.gid)", "--clear-groups", "--",
             fixture.pinvault, "unlock", fixture.user.name, "--bind", "--pin-stdin"],
            environment: fixture.environment.merging(["PATH": "/usr/bin:/bin", "HOME": fixture.user.home]) { $1 },
            input: "\(fixture.pin)\n"
        )
        XCTAssertTrue(eventually(timeout: 20) { process.standardOutput.contains("Unlocked") || !process.isRunning },
                      "unlock --bind: \(process.standardOutput)\(process.standardError)")
        XCTAssertTrue(process.isRunning, "unlock --bind did not stay in the foreground: \(process.standardError)")
        try fixture.assertAllWorks()
        kill(process.pid, SIGTERM)
        XCTAssertEqual(process.waitUntilExit(timeout: 20), 0, process.standardError)
        XCTAssertTrue(eventually { (try? self.fixture.sshAddList().status) == 1 }, "the key outlived the bound command")
        try fixture.assertAllFails("after unlock --bind ended")
    }

    func testAWrongPinInUnlock_countsLikeAnyOther_andUnlocksNothing() throws {
        let wrong = try fixture.pinvault(["unlock", fixture.user.name, "--pin-stdin"], input: "999135\n")
        XCTAssertEqual(wrong.status, 2, "\(wrong)")
        let listed = try fixture.checked(fixture.pinvault(["list", fixture.user.name, "--json"]), "pinvault list")
        XCTAssertTrue(listed.standardOutput.contains("\"failedAttempts\": 1"), listed.standardOutput)
        try fixture.assertAllFails("after a wrong PIN")
        let right = try fixture.unlock()
        XCTAssertTrue(right.standardError.contains("1 wrong PIN"), "the right PIN did not report the wrong one: \(right)")
    }

    private func eventually(timeout: TimeInterval = 10, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            usleep(50_000)
        }
        return condition()
    }
}
