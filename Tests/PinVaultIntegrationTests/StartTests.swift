import Foundation
import PinVaultTestKit
import XCTest

/// The start reads no row (docs/OPERATIONS.md, "Start"), and every record is checked
/// afterwards, in slices between requests: a row damaged on disk is reported once the
/// sweep reaches it, and the vault serves meanwhile.
final class StartTests: DaemonTestCase {
    /// Waits for `line` in the daemon's log; false after `timeout`.
    private func logContains(_ line: String, timeout: TimeInterval = 10) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if daemon.log.contains(line) { return true }
            usleep(20_000)
        }
        return false
    }

    func testAStart_checksEveryRecordAfterReady_andReportsTheOnesThatDoNotDecode() throws {
        try startDaemon()
        let damaged = try XCTUnwrap(try client.register(user: "damaged", pin: pin).string("keyId"))
        try client.register(user: "intact", pin: pin)
        XCTAssertTrue(logContains("every stored record decodes"), daemon.log)
        client = nil
        XCTAssertEqual(try daemon.stop(), 0, daemon.log)

        // A disk error or a hand edit: the row breaks its own CHECK constraints.
        let edit = try Subprocess.run("/usr/bin/python3", ["-c", """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            db.execute("PRAGMA ignore_check_constraints = ON")
            db.execute("UPDATE credentials SET sealed_seed = x'010203' WHERE key_id = ?", (sys.argv[2],))
            db.commit()
            db.close()
            """, daemon.stateDirectory + "/vault.sqlite", damaged])
        XCTAssertEqual(edit.status, 0, edit.description)

        try daemon.start()
        client = try daemon.connect()
        XCTAssertEqual(try client.list().count, 1, "the damaged row is left out of List")
        XCTAssertTrue(logContains("records that do not decode are ignored count=1 records=\(damaged)"), daemon.log)
        XCTAssertFalse(daemon.log.contains("quick_check"), "a clean stop needs no whole-file check:\n\(daemon.log)")
    }
}
