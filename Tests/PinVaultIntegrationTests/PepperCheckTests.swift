import Foundation
import Glibc
import PinVaultTestKit
import XCTest

/// A wrong pepper (SECURITY.md, "A wrong pepper"): the store keeps a check value of the
/// pepper it was sealed with, so a start with another pepper refuses — before it, every
/// right PIN answered WrongPin and counted, and `on_max_attempts = "wipe"` deleted
/// every credential in ordinary use. A credentials-directory pepper that differs from
/// an existing `<state>/pepper` refuses too, and a store from before the check records
/// the check value of the pepper it starts with, once.
final class PepperCheckTests: DaemonTestCase {
    private var pepperPath: String { daemon.stateDirectory + "/pepper" }

    private func writePepper(_ bytes: [UInt8], to path: String) throws {
        unlink(path)
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard fd >= 0 else { throw TestKitError("cannot create \(path)") }
        defer { close(fd) }
        XCTAssertEqual(write(fd, bytes, bytes.count), bytes.count)
    }

    private func pepper() throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: pepperPath)))
    }

    private func otherPepper() throws -> [UInt8] {
        try pepper().map { $0 ^ 0x5a }
    }

    /// Registers a credential and stops the daemon cleanly.
    private func registerAndStop() throws {
        try startDaemon()
        try client.register(user: "alice", pin: pin)
        client = nil
        XCTAssertEqual(try daemon.stop(), 0, daemon.log)
    }

    /// Starts the daemon expecting a refusal; returns what it logged on this start.
    private func refusedStart(environment: [String: String] = [:]) throws -> String {
        let logged = daemon.log.count
        let status = try daemon.runToExit(environment: environment)
        let log = String(daemon.log.dropFirst(logged))
        // 78 (EX_CONFIG), which the unit's RestartPreventExitStatus= does not restart:
        // a restart cannot mend a wrong pepper, and a loop would only bury the message.
        XCTAssertEqual(status, 78, "pinvaultd started with a wrong pepper, or refused as something a restart mends:\n\(log)")
        return log
    }

    func testAReplacedStatePepper_refusesTheStart_namingBothSources() throws {
        try registerAndStop()
        try writePepper(try otherPepper(), to: pepperPath)

        let log = try refusedStart()
        XCTAssertTrue(log.contains(pepperPath), "the message names the pepper file:\n\(log)")
        XCTAssertTrue(log.contains(daemon.stateDirectory + "/vault.sqlite"), "and the vault that recorded the check:\n\(log)")
        XCTAssertTrue(log.contains("does not match"), log)
    }

    func testACredentialsPepperUnlikeTheOneTheRecordsWereSealedWith_refusesTheStart() throws {
        try registerAndStop()
        // The credential is the only pepper: the state file was shredded, as OPERATIONS.md advises.
        let credentials = daemon.root + "/credentials"
        XCTAssertEqual(mkdir(credentials, 0o700), 0)
        try writePepper(try otherPepper(), to: credentials + "/pinvault.pepper")
        unlink(pepperPath)

        let log = try refusedStart(environment: ["CREDENTIALS_DIRECTORY": credentials])
        XCTAssertTrue(log.contains(credentials + "/pinvault.pepper"), log)
        XCTAssertTrue(log.contains("does not match"), log)
    }

    func testACredentialsPepperThatDiffersFromAnExistingStatePepper_refusesTheStart() throws {
        try registerAndStop()
        let credentials = daemon.root + "/credentials"
        XCTAssertEqual(mkdir(credentials, 0o700), 0)
        try writePepper(try otherPepper(), to: credentials + "/pinvault.pepper")

        let log = try refusedStart(environment: ["CREDENTIALS_DIRECTORY": credentials])
        XCTAssertTrue(log.contains(credentials + "/pinvault.pepper") && log.contains(pepperPath),
                      "the message names both peppers:\n\(log)")
    }

    func testTheSamePepperFromTheCredentialsDirectory_starts_andTheRightPinOpens() throws {
        try registerAndStop()
        let credentials = daemon.root + "/credentials"
        XCTAssertEqual(mkdir(credentials, 0o700), 0)
        try writePepper(try pepper(), to: credentials + "/pinvault.pepper")
        try daemon.start(environment: ["CREDENTIALS_DIRECTORY": credentials])
        client = try daemon.connect()
        XCTAssertSuccess(try client.authenticate(user: "alice", pin: pin))
    }

    func testAStoreFromBeforeTheCheck_recordsTheCheckValueOnce_thenRefusesAnotherPepper() throws {
        try registerAndStop()
        // What a store written before the check looks like: schema version 1, no metadata,
        // no purposes, no certificates, no passkeys, and its records in format 1.
        _ = try LegacyCredentials.add(to: daemon, user: "legacy", label: nil, pin: pin)
        let database = daemon.stateDirectory + "/vault.sqlite"
        let downgrade = try Subprocess.run("/usr/bin/python3", ["-c", """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            db.execute("DELETE FROM credentials WHERE purpose != 'legacy'")
            db.execute("DROP TRIGGER credentials_purpose_is_immutable")
            db.execute("DROP INDEX credentials_legacy")
            db.execute("ALTER TABLE credentials DROP COLUMN wrong_pins_since_success")
            db.execute("ALTER TABLE credentials DROP COLUMN purpose")
            db.execute("DROP TABLE purposes")
            db.execute("DROP TABLE IF EXISTS vault_metadata")
            db.execute("DROP TRIGGER credentials_take_their_certificates")
            db.execute("DROP TABLE ssh_certificates")
            db.execute("DROP TABLE passkeys")
            db.execute("PRAGMA user_version = 1")
            db.commit()
            """, database])
        XCTAssertEqual(downgrade.status, 0, downgrade.description)

        let logged = daemon.log.count
        try daemon.start()
        client = try daemon.connect()
        XCTAssertSuccess(try client.authenticate(user: "legacy", pin: pin))
        client = nil
        XCTAssertEqual(try daemon.stop(), 0, daemon.log)
        let firstStart = String(daemon.log.dropFirst(logged))
        XCTAssertTrue(firstStart.contains("recorded the check value of the pepper"), "the first start says so:\n\(firstStart)")

        let again = daemon.log.count
        try daemon.start()
        XCTAssertEqual(try daemon.stop(), 0, daemon.log)
        XCTAssertFalse(String(daemon.log.dropFirst(again)).contains("recorded the check value"), "only once")

        try writePepper(try otherPepper(), to: pepperPath)
        XCTAssertTrue(try refusedStart().contains("does not match"))
    }
}
