import XCTest
@testable import PinVaultStore

final class CorruptRecordTests: StoreTestCase {

    /// Damages one row from outside, as a disk error or a hand edit would: CHECK
    /// constraints are switched off for the edit, so the row violates them afterwards.
    private func damage(_ sql: String, _ values: [SQLiteValue]) throws {
        try store.withConnection { connection in
            try connection.execute("PRAGMA ignore_check_constraints = ON")
            defer { try? connection.execute("PRAGMA ignore_check_constraints = OFF") }
            try connection.execute(sql, values)
            XCTAssertEqual(try connection.changes(), 1)
        }
    }

    func testRowWithWrongSizedBlob_isCorruptRecord_andOtherRowsStillList() throws {
        let good = try CredentialFixtures.record(createdAt: 1)
        let bad = try CredentialFixtures.record(createdAt: 2)
        try store.write { writer in
            try writer.insert(good)
            try writer.insert(bad)
        }
        try damage("UPDATE credentials SET sealed_seed = ?1 WHERE key_id = ?2", [.blob([1, 2, 3]), .text(bad.keyId.hex)])

        XCTAssertThrowsError(try store.read { try $0.credential(keyId: bad.keyId) }) { error in
            XCTAssertEqual(error as? StoreError, .corruptRecord(bad.keyId.hex))
        }
        XCTAssertEqual(try store.read { try $0.credentials(ownerUid: 1000, user: nil) }, [good])
        XCTAssertEqual(try store.read { try $0.corruptRecords() }, [bad.keyId.hex])
        XCTAssertEqual(try store.read { try $0.count(ownerUid: 1000) }, 2, "a corrupt row still takes its quota place")
    }

    func testRowWithBadKeyId_isNamedByRowid_andDeletedWithItsUser() throws {
        let good = try CredentialFixtures.record()
        let bad = try CredentialFixtures.record()
        try store.write { writer in
            try writer.insert(good)
            try writer.insert(bad)
        }
        try damage("UPDATE credentials SET key_id = ?1 WHERE key_id = ?2", [.text("NOT-A-KEY-ID"), .text(bad.keyId.hex)])
        let rowid = try store.withConnection { try $0.scalar("SELECT rowid FROM credentials WHERE key_id = 'NOT-A-KEY-ID'") }
        guard case .integer(let number)? = rowid else { return XCTFail("no rowid") }

        XCTAssertEqual(try store.read { try $0.corruptRecords() }, ["rowid \(number)"])
        XCTAssertEqual(try store.read { try $0.credentials(ownerUid: nil, user: nil) }, [good])
        let deleted = try store.write { try $0.deleteAll(ownerUid: 1000, user: "alice@example.com") }
        XCTAssertEqual(deleted, [good.keyId], "the unreadable key id cannot be named, but its row goes too")
        XCTAssertEqual(try store.read { try $0.totalCount() }, 0)
    }

    func testHalfSetUnregistration_andNegativeCounter_areCorrupt() throws {
        let half = try CredentialFixtures.record()
        let negative = try CredentialFixtures.record()
        try store.write { writer in
            try writer.insert(half)
            try writer.insert(negative)
        }
        try damage("UPDATE credentials SET unregister_expires_at = 5 WHERE key_id = ?1", [.text(half.keyId.hex)])
        try damage("UPDATE credentials SET failed_attempts = -1 WHERE key_id = ?1", [.text(negative.keyId.hex)])
        XCTAssertEqual(Set(try store.read { try $0.corruptRecords() }), [half.keyId.hex, negative.keyId.hex])
        XCTAssertEqual(try store.read { try $0.credentials(ownerUid: nil, user: nil) }, [])
    }

    func testInvalidUTF8User_isCorrupt_notRepaired() throws {
        let record = try CredentialFixtures.record()
        try store.write { try $0.insert(record) }
        // 0xff is never valid UTF-8; bind it as TEXT bytes.
        try damage("UPDATE credentials SET user = ?1 WHERE key_id = ?2", [.text([0x61, 0xff]), .text(record.keyId.hex)])
        XCTAssertThrowsError(try store.read { try $0.credential(keyId: record.keyId) }) { error in
            XCTAssertEqual(error as? StoreError, .corruptRecord(record.keyId.hex))
        }
    }

    func testStrictTable_refusesWrongTypes_evenWithoutChecks() throws {
        let record = try CredentialFixtures.record()
        try store.write { try $0.insert(record) }
        XCTAssertThrowsError(try damage(
            "UPDATE credentials SET public_key = ?1 WHERE key_id = ?2", [.text("not a blob"), .text(record.keyId.hex)]))
    }

    func testCheckConstraints_refuseBadRowsWrittenBehindTheStoresBack() throws {
        let record = try CredentialFixtures.record()
        try store.write { try $0.insert(record) }
        XCTAssertThrowsError(try store.withConnection {
            try $0.execute("UPDATE credentials SET salt = ?1", [.blob([0])])
        }) { error in
            guard case .sqlite(let code, _)? = error as? StoreError else { return XCTFail("\(error)") }
            XCTAssertEqual(code, 275, "SQLITE_CONSTRAINT_CHECK")
        }
    }
}
