import Foundation
import Glibc
import PinVaultTestKit
import XCTest

/// A store that cannot be written (SECURITY.md, "The lockout": a failure is recorded durably before the
/// PIN is checked). On a full disk, and on a file system the kernel turned read-only
/// under the running daemon, every call that takes a PIN — right or wrong — answers
/// InternalError without a KDF (GetStats' `kdfEvaluations` unchanged) and counts
/// nothing; reads go on; once the disk is writable again the counter is what it was
/// and everything works. A store already read-only at start refuses the start.
///
/// Root only: each test mounts a small file system over the daemon's state directory.
final class UnwritableStoreTests: XCTestCase {
    private let pin = "258046"
    private let newPin = "370591"
    private let wrongPin = "999999"
    /// `max_attempts` of the test configuration.
    private let maxAttempts = 5

    func testDiskFull_everyPinCallAnswersInternalError_withoutKDF_countsNothing_andAllWorksWhenSpaceReturns() throws {
        try ScratchFileSystem.requireRoot(self, "the disk-full test")
        let daemon = try TestDaemon()
        let disk = try ScratchFileSystem(tmpfsAt: daemon.stateDirectory, kibibytes: 2048)
        defer { stop(daemon, unmounting: disk) }
        try daemon.start()
        let client = try daemon.connect()
        let keyId = try registerWithOneFailure(client)

        let filler = try disk.fill()
        try expectNoPinChecked(client, keyId: keyId, failedAttempts: 1, "on a full disk")
        // Register seals (a KDF) before it writes; it must leave nothing behind.
        XCTAssertEqual(try client.vault("Register", ["user": "bob", "pin": pin]).errorName, "InternalError")

        XCTAssertEqual(unlink(filler), 0)
        XCTAssertEqual(try client.list(user: "bob").count, 0, "a Register refused on a full disk left a credential")
        try expectAllWorks(client, keyId: keyId, failedAttempts: 1)
        XCTAssertEqual(try daemon.stop(), 0, daemon.log)
    }

    /// `mount -o remount,ro` under a running daemon is refused by the kernel (EBUSY:
    /// the daemon holds its files open for writing), so this remounts between two runs:
    /// the daemon must refuse to start on a read-only store, and lose nothing.
    func testReadOnlyRemount_beforeStart_refusesTheStart_andKeepsTheCounter() throws {
        try ScratchFileSystem.requireRoot(self, "the read-only remount test")
        let daemon = try TestDaemon()
        let disk = try ScratchFileSystem(tmpfsAt: daemon.stateDirectory, kibibytes: 2048)
        defer { stop(daemon, unmounting: disk) }
        try daemon.start()
        let keyId = try registerWithOneFailure(try daemon.connect())
        XCTAssertEqual(try daemon.stop(), 0, daemon.log)

        try disk.remount("ro")
        let options = try disk.options()
        XCTAssert(options.contains("ro"), "not read-only: \(options)")
        let status = try daemon.runToExit()
        XCTAssertNotEqual(status, 0, "pinvaultd started on a read-only store:\n\(daemon.log)")
        XCTAssert(daemon.log.contains("Read-only file system"), "the refusal does not say why:\n\(daemon.log)")

        try disk.remount("rw")
        try daemon.start()
        try expectAllWorks(try daemon.connect(), keyId: keyId, failedAttempts: 1)
        XCTAssertEqual(try daemon.stop(), 0, daemon.log)
    }

    /// What a live store goes through: a disk error makes ext4 (`errors=remount-ro`)
    /// read-only at once, files open for writing or not. The admin then stops the
    /// daemon, repairs the file system and starts it again.
    func testDiskErrorTurnsTheStoreReadOnly_everyPinCallAnswersInternalError_withoutKDF_countsNothing_andAllWorksAfterRepair() throws {
        try ScratchFileSystem.requireRoot(self, "the read-only store test")
        let daemon = try TestDaemon()
        let disk = try ScratchFileSystem(ext4At: daemon.stateDirectory, image: daemon.root + "/disk.img", mebibytes: 16)
        defer { stop(daemon, unmounting: disk) }
        try daemon.start()
        let client = try daemon.connect()
        let keyId = try registerWithOneFailure(client)

        try disk.failWithError()
        let probe = open(daemon.stateDirectory + "/probe", O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        XCTAssertEqual(probe < 0 ? errno : 0, EROFS, "the file system is still writable")
        if probe >= 0 { close(probe) }
        try expectNoPinChecked(client, keyId: keyId, failedAttempts: 1, "on a read-only store")
        XCTAssertEqual(daemon.process?.isRunning, true, "pinvaultd died on a read-only store:\n\(daemon.log)")
        XCTAssertEqual(try daemon.stop(), 0, daemon.log)

        disk.unmount()
        try disk.repair()
        try disk.mount()
        try daemon.start()
        try expectAllWorks(try daemon.connect(), keyId: keyId, failedAttempts: 1)
        XCTAssertEqual(try daemon.stop(), 0, daemon.log)
    }

    // MARK: Steps

    /// Registers alice and fails her PIN once, so that a counter cleared by mistake
    /// would show as well as one raised. Returns her keyId.
    private func registerWithOneFailure(_ client: VarlinkClient) throws -> String {
        let keyId = try XCTUnwrap(try client.register(user: "alice", pin: pin)["keyId"] as? String)
        let wrong = try client.authenticate(user: "alice", pin: wrongPin, keyId: keyId)
        XCTAssertEqual(wrong.errorName, "WrongPin", "\(wrong)")
        XCTAssertEqual(try failedAttempts(client, keyId), 1)
        return keyId
    }

    /// Every call that takes a PIN, with a wrong one and the right one: each answers
    /// InternalError, no KDF runs, and the counter stays at `failedAttempts`.
    private func expectNoPinChecked(_ client: VarlinkClient, keyId: String, failedAttempts: Int, _ context: String) throws {
        let kdfRuns = try kdfEvaluations(client)
        for candidate in [wrongPin, pin] {
            let calls: [(String, [String: Any])] = [
                ("Authenticate", ["user": "alice", "keyId": keyId, "pin": candidate, "challenge": Data("c".utf8).base64EncodedString()]),
                ("ChangePin", ["user": "alice", "keyId": keyId, "currentPin": candidate, "newPin": newPin]),
                ("BeginUnregister", ["user": "alice", "keyId": keyId, "pin": candidate]),
                ("Wipe", ["user": "alice", "keyId": keyId, "pin": candidate]),
            ]
            for (method, parameters) in calls {
                let reply = try client.vault(method, parameters)
                XCTAssertEqual(reply.errorName, "InternalError",
                               "\(method) with the \(candidate == pin ? "right" : "wrong") PIN \(context): \(reply)")
            }
        }
        XCTAssertEqual(try kdfEvaluations(client), kdfRuns, "a PIN was checked \(context), where its failure could not be recorded")
        let listed = try client.credential(keyId: keyId)
        XCTAssertEqual((listed["failedAttempts"] as? NSNumber)?.intValue, failedAttempts, "\(context): \(listed)")
        XCTAssertEqual(listed["state"] as? String, "active", "\(context): \(listed)")
    }

    /// Writable again: the counter is still `failedAttempts`, a wrong PIN counts one
    /// more, the right PIN opens and clears it.
    private func expectAllWorks(_ client: VarlinkClient, keyId: String, failedAttempts: Int) throws {
        XCTAssertEqual(try self.failedAttempts(client, keyId), failedAttempts, "the refused calls changed the counter")
        let wrong = try client.authenticate(user: "alice", pin: wrongPin, keyId: keyId)
        XCTAssertEqual(wrong.errorName, "WrongPin", "\(wrong)")
        XCTAssertEqual(wrong.int("remainingAttempts"), maxAttempts - failedAttempts - 1, "\(wrong)")
        let right = try client.authenticate(user: "alice", pin: pin, keyId: keyId)
        XCTAssertNil(right.error, "\(right)")
        XCTAssertEqual(try self.failedAttempts(client, keyId), 0)
    }

    private func failedAttempts(_ client: VarlinkClient, _ keyId: String) throws -> Int? {
        (try client.credential(keyId: keyId)["failedAttempts"] as? NSNumber)?.intValue
    }

    private func kdfEvaluations(_ client: VarlinkClient) throws -> Int {
        let counters = try XCTUnwrap(try client.succeeding("GetStats").object("counters"))
        return try XCTUnwrap((counters["kdfEvaluations"] as? NSNumber)?.intValue, "\(counters)")
    }

    /// Leaves nothing mounted, whatever the test did.
    private func stop(_ daemon: TestDaemon, unmounting disk: ScratchFileSystem) {
        if daemon.process != nil { _ = try? daemon.stop(signal: SIGKILL) }
        disk.unmount()
    }
}
