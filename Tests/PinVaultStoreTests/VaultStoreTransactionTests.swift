import XCTest
@testable import PinVaultStore

final class VaultStoreTransactionTests: StoreTestCase {

    private struct BodyFailed: Error, Equatable { var marker: Int }

    func testWrite_whenBodyThrows_rollsBackEverything_andRethrowsSameError() throws {
        let kept = try CredentialFixtures.record(label: "kept")
        try store.write { try $0.insert(kept) }
        let changed = try CredentialFixtures.changed(kept)
        XCTAssertThrowsError(try store.write { writer in
            try writer.insert(try CredentialFixtures.record())
            try writer.update(changed)
            try writer.deleteEverything()
            throw BodyFailed(marker: 7)
        }) { error in
            XCTAssertEqual(error as? BodyFailed, BodyFailed(marker: 7))
        }
        XCTAssertEqual(try store.read { try $0.credentials(ownerUid: nil, user: nil) }, [kept])
    }

    func testWrite_whenStoreErrorEscapesBody_rollsBackEarlierChanges() throws {
        let first = try CredentialFixtures.record()
        XCTAssertThrowsError(try store.write { writer in
            try writer.insert(first)
            try writer.insert(first)
        }) { error in
            XCTAssertEqual(error as? StoreError, .duplicate)
        }
        XCTAssertEqual(try store.read { try $0.totalCount() }, 0, "the first insert went with the transaction")
    }

    func testInsert_duplicateKeyId_throwsDuplicate_andKeepsOriginal() throws {
        let original = try CredentialFixtures.record(label: "original")
        try store.write { try $0.insert(original) }
        let impostor = try CredentialFixtures.changed(original)
        XCTAssertThrowsError(try store.write { try $0.insert(impostor) }) { error in
            XCTAssertEqual(error as? StoreError, .duplicate)
        }
        XCTAssertEqual(try store.read { try $0.credential(keyId: original.keyId) }, original)
    }

    func testWrite_returnsBodyValue_andCommits() throws {
        let record = try CredentialFixtures.record()
        let total = try store.write { writer -> Int in
            try writer.insert(record)
            return try writer.totalCount()
        }
        XCTAssertEqual(total, 1)
        XCTAssertEqual(try store.read { try $0.totalCount() }, 1)
    }

    func testWriter_usedAfterWriteReturned_failsWithTransactionEnded() throws {
        let escaped = try store.write { $0 }
        XCTAssertThrowsError(try escaped.insert(try CredentialFixtures.record())) { error in
            XCTAssertEqual(error as? StoreError, .transactionEnded)
        }
        let reader = try store.read { $0 }
        XCTAssertThrowsError(try reader.totalCount()) { error in
            XCTAssertEqual(error as? StoreError, .transactionEnded)
        }
        XCTAssertEqual(try store.read { try $0.totalCount() }, 0)
    }

    func testWrite_nestedInRead_failsWithReentrantAccess_insteadOfDeadlock() throws {
        XCTAssertThrowsError(try store.read { _ in try self.store.write { try $0.totalCount() } }) { error in
            XCTAssertEqual(error as? StoreError, .reentrantAccess)
        }
        XCTAssertEqual(try store.read { try $0.totalCount() }, 0, "the store is usable afterwards")
    }

    func testConcurrentWrites_fromManyThreads_allLand() throws {
        let records = try (0..<16).map { _ in try CredentialFixtures.record() }
        let store = self.store!
        DispatchQueue.concurrentPerform(iterations: records.count) { index in
            do {
                try store.write { try $0.insert(records[index]) }
            } catch {
                XCTFail("insert \(index) failed: \(error)")
            }
        }
        XCTAssertEqual(try store.read { try $0.totalCount() }, records.count)
    }

    func testSecondConnection_seesCommittedWriteOnly() throws {
        let other = try VaultStore(path: directory.file("vault.sqlite"))
        defer { other.close() }
        let record = try CredentialFixtures.record()
        try store.write { writer in
            try writer.insert(record)
            XCTAssertEqual(try other.read { try $0.totalCount() }, 0, "uncommitted write is invisible")
        }
        XCTAssertEqual(try other.read { try $0.credential(keyId: record.keyId) }, record)
    }
}
