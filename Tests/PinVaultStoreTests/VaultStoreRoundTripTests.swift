import PinVaultCrypto
import XCTest
@testable import PinVaultStore

final class VaultStoreRoundTripTests: StoreTestCase {

    func testInsert_thenRead_returnsEqualRecord() throws {
        var record = try CredentialFixtures.record(label: "phone")
        record.lastUsedAt = 1_700_000_100
        record.failedAttempts = 2
        record.lockedUntil = 1_700_000_200
        record.pendingUnregistration = PendingUnregistration(tokenHash: RandomBytes.make(count: 32), expiresAt: 1_700_000_300)
        try store.write { try $0.insert(record) }
        let read = try store.read { try $0.credential(keyId: record.keyId) }
        XCTAssertEqual(read, record)
        XCTAssertEqual(read?.ownerUid, 1000)
        XCTAssertEqual(read?.user, "alice@example.com")
    }

    func testRecordReadBack_stillOpensWithPinAndPepper() throws {
        let record = try CredentialFixtures.record()
        try store.write { try $0.insert(record) }
        let read = try XCTUnwrap(try store.read { try $0.credential(keyId: record.keyId) })
        let pepper = try XCTUnwrap(CredentialFixtures.pepper)
        let seed = try SeedSealer.open(read.sealed, pin: try CredentialFixtures.pin(), pepper: pepper)
        XCTAssertEqual(try SigningKeyPair(algorithm: .ed25519, seed: seed).publicKey, record.publicKey)
    }

    func testCredential_whenMissing_returnsNil() throws {
        let record = try CredentialFixtures.record()
        XCTAssertNil(try store.read { try $0.credential(keyId: record.keyId) })
    }

    func testUpdate_rewritesEveryMutableColumn() throws {
        let record = try CredentialFixtures.record(label: "old")
        try store.write { try $0.insert(record) }
        let changed = try CredentialFixtures.changed(record)
        try store.write { try $0.update(changed) }
        XCTAssertEqual(try store.read { try $0.credential(keyId: record.keyId) }, changed)

        var cleared = changed
        cleared.label = nil
        cleared.lastUsedAt = nil
        cleared.lockedUntil = nil
        cleared.pendingUnregistration = nil
        cleared.failedAttempts = 0
        try store.write { try $0.update(cleared) }
        XCTAssertEqual(try store.read { try $0.credential(keyId: record.keyId) }, cleared)
    }

    func testUpdate_whenMissing_throwsNotFound() throws {
        let record = try CredentialFixtures.record()
        XCTAssertThrowsError(try store.write { try $0.update(record) }) { error in
            XCTAssertEqual(error as? StoreError, .notFound)
        }
    }

    func testDelete_removesOnlyThatCredential() throws {
        let first = try CredentialFixtures.record(label: "a")
        let second = try CredentialFixtures.record(label: "b")
        try store.write { writer in
            try writer.insert(first)
            try writer.insert(second)
        }
        XCTAssertTrue(try store.write { try $0.delete(keyId: first.keyId) })
        XCTAssertFalse(try store.write { try $0.delete(keyId: first.keyId) }, "second delete finds nothing")
        XCTAssertNil(try store.read { try $0.credential(keyId: first.keyId) })
        XCTAssertEqual(try store.read { try $0.credential(keyId: second.keyId) }, second)
    }

    func testCredentials_filterByOwnerAndUser_orderedByCreationThenKeyId() throws {
        let late = try CredentialFixtures.record(createdAt: 300)
        let early = try CredentialFixtures.record(createdAt: 100)
        let tieA = try CredentialFixtures.record(createdAt: 200)
        let tieB = try CredentialFixtures.record(createdAt: 200)
        let bob = try CredentialFixtures.record(user: "bob", createdAt: 50)
        let otherUid = try CredentialFixtures.record(ownerUid: 1001, createdAt: 10)
        try store.write { writer in
            for record in [late, early, tieA, tieB, bob, otherUid] { try writer.insert(record) }
        }
        let ties = [tieA, tieB].sorted { $0.keyId < $1.keyId }
        let alice = try store.read { try $0.credentials(ownerUid: 1000, user: "alice@example.com") }
        XCTAssertEqual(alice, [early] + ties + [late])
        let uid1000 = try store.read { try $0.credentials(ownerUid: 1000, user: nil) }
        XCTAssertEqual(uid1000, [bob, early] + ties + [late])
        let everyone = try store.read { try $0.credentials(ownerUid: nil, user: nil) }
        XCTAssertEqual(everyone, [otherUid, bob, early] + ties + [late])
        let anyOwnerAlice = try store.read { try $0.credentials(ownerUid: nil, user: "alice@example.com") }
        XCTAssertEqual(anyOwnerAlice, [otherUid, early] + ties + [late])
    }

    func testCounts_countByOwnerByUserAndInTotal() throws {
        try store.write { writer in
            try writer.insert(try CredentialFixtures.record())
            try writer.insert(try CredentialFixtures.record())
            try writer.insert(try CredentialFixtures.record(user: "bob"))
            try writer.insert(try CredentialFixtures.record(ownerUid: 0, user: "root"))
        }
        try store.read { reader in
            XCTAssertEqual(try reader.count(ownerUid: 1000), 3)
            XCTAssertEqual(try reader.count(ownerUid: 1000, user: "alice@example.com"), 2)
            XCTAssertEqual(try reader.count(ownerUid: 1000, user: "bob"), 1)
            XCTAssertEqual(try reader.count(ownerUid: 0), 1)
            XCTAssertEqual(try reader.count(ownerUid: 42), 0)
            XCTAssertEqual(try reader.totalCount(), 4)
        }
    }

    func testDeleteAll_removesThatUsersCredentialsOnly_andReturnsSortedKeyIds() throws {
        let a1 = try CredentialFixtures.record()
        let a2 = try CredentialFixtures.record()
        let bob = try CredentialFixtures.record(user: "bob")
        let sameNameOtherUid = try CredentialFixtures.record(ownerUid: 1001)
        try store.write { writer in
            for record in [a1, a2, bob, sameNameOtherUid] { try writer.insert(record) }
        }
        let deleted = try store.write { try $0.deleteAll(ownerUid: 1000, user: "alice@example.com") }
        XCTAssertEqual(deleted, [a1.keyId, a2.keyId].sorted())
        XCTAssertEqual(try store.read { try $0.credentials(ownerUid: nil, user: nil) }.map(\.keyId).sorted(),
                       [bob.keyId, sameNameOtherUid.keyId].sorted())
        XCTAssertEqual(try store.write { try $0.deleteAll(ownerUid: 1000, user: "alice@example.com") }, [])
    }

    func testDeleteEverything_removesAllAndCountsThem() throws {
        try store.write { writer in
            for _ in 0..<3 { try writer.insert(try CredentialFixtures.record()) }
        }
        XCTAssertEqual(try store.write { try $0.deleteEverything() }, 3)
        XCTAssertEqual(try store.read { try $0.totalCount() }, 0)
        XCTAssertEqual(try store.write { try $0.deleteEverything() }, 0)
    }

    func testInsert_withWrongSizedField_throwsInvalidRecord() throws {
        var record = try CredentialFixtures.record()
        record.publicKey.removeLast()
        XCTAssertThrowsError(try store.write { try $0.insert(record) }) { error in
            XCTAssertEqual(error as? StoreError, .invalidRecord("publicKey"))
        }
        record = try CredentialFixtures.record()
        record.sealed.nonce.append(0)
        XCTAssertThrowsError(try store.write { try $0.insert(record) }) { error in
            XCTAssertEqual(error as? StoreError, .invalidRecord("nonce"))
        }
        record = try CredentialFixtures.record(user: String(repeating: "é", count: 129))  // 258 bytes
        XCTAssertThrowsError(try store.write { try $0.insert(record) }) { error in
            XCTAssertEqual(error as? StoreError, .invalidRecord("user"))
        }
        XCTAssertEqual(try store.read { try $0.totalCount() }, 0)
    }

    func testUserAndLabel_keepUnicodeAndEmbeddedBytesExactly() throws {
        let record = try CredentialFixtures.record(user: "zoë+ключ@例え.jp", label: "🔑 work\u{0}laptop")
        try store.write { try $0.insert(record) }
        let read = try store.read { try $0.credentials(ownerUid: 1000, user: "zoë+ключ@例え.jp") }
        XCTAssertEqual(read, [record])
    }
}
