import Glibc
import PinVaultCrypto
import XCTest

@testable import PinVaultStore

/// Schema version 3: every credential's purpose. A vault of the second release opens,
/// its credentials read `legacy` with every other column as it was, and the purpose of
/// a row can neither change nor disagree with its format.
final class PurposeMigrationTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var path: String { directory.file("vault.sqlite") }

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
    }

    override func tearDown() {
        directory = nil
    }

    /// Three credentials as the second release left them: one fresh, one with wrong PINs
    /// and a throttle, one pending unregistration.
    private func secondReleaseRecords() throws -> [CredentialRecord] {
        var counted = try CredentialFixtures.record(user: "bob", label: "laptop", purpose: .legacy, createdAt: 2)
        counted.failedAttempts = 6
        counted.lockedUntil = 1_800_000_000
        counted.lastUsedAt = 1_700_000_100
        var pending = try CredentialFixtures.record(user: "carol", purpose: .legacy, createdAt: 3)
        pending.pendingUnregistration = PendingUnregistration(tokenHash: RandomBytes.make(count: 32), expiresAt: 1_900_000_000)
        return [try CredentialFixtures.record(purpose: .legacy, createdAt: 1), counted, pending]
    }

    func testAVaultOfTheSecondRelease_opens_andItsCredentialsReadLegacy_withEveryColumnKept() throws {
        let records = try secondReleaseRecords()
        try EarlierReleaseVault.make(path: path, schemaVersion: EarlierReleaseVault.second, records: records)
        let store = try VaultStore(path: path)
        defer { store.close() }
        XCTAssertEqual(try store.withConnection { try Schema.userVersion($0) }, VaultStore.currentSchemaVersion)
        let read = try store.read { try $0.credentials(ownerUid: 1000, user: nil) }
        // Schema version 5 starts the wrong PINs since the last success from the count.
        var expected = records
        for index in expected.indices { expected[index].wrongPinsSinceSuccess = expected[index].failedAttempts }
        XCTAssertEqual(read, expected, "every column as the second release wrote it")
        XCTAssertEqual(read.map(\.purpose), [.legacy, .legacy, .legacy])
        XCTAssertEqual(read.map(\.sealed.header.formatVersion), [1, 1, 1])
        XCTAssertEqual(try store.read { try $0.legacyCount() }, 3)
        XCTAssertEqual(try store.read { try $0.corruptRecords() }, [])
        let pepper = try XCTUnwrap(CredentialFixtures.pepper)
        for record in read {
            XCTAssertNoThrow(try SeedSealer.open(record.sealed, pin: CredentialFixtures.pin(), pepper: pepper), "\(record.user)")
        }
    }

    /// A legacy record re-sealed (ChangePin, upgrade on use) stays legacy, in format 1,
    /// and a new credential beside it has its purpose.
    func testALegacyRecord_updatedAndResealed_staysLegacy_besideNewOnes() throws {
        let old = try XCTUnwrap(try secondReleaseRecords().first)
        try EarlierReleaseVault.make(path: path, schemaVersion: EarlierReleaseVault.second, records: [old])
        let store = try VaultStore(path: path)
        defer { store.close() }
        var changed = try CredentialFixtures.changed(old)
        changed.sealed = try SeedSealer.seal(
            seed: try SecretBytes.random(count: 32), pin: CredentialFixtures.pin(), pepper: try XCTUnwrap(CredentialFixtures.pepper),
            purpose: old.purpose, algorithm: .ed25519, ownerUid: old.ownerUid, user: old.user, keyId: old.keyId, parameters: CredentialFixtures.weakKDF
        )
        try store.write { try $0.update(changed) }
        let fresh = try CredentialFixtures.record(purpose: .ssh, createdAt: 9)
        try store.write { try $0.insert(fresh) }
        let read = try store.read { try $0.credentials(ownerUid: 1000, user: nil) }
        XCTAssertEqual(read.map(\.purpose), [.legacy, .ssh])
        XCTAssertEqual(read.map(\.sealed.header.formatVersion), [1, 3])
        XCTAssertEqual(read.first, changed)
        XCTAssertEqual(try store.read { try $0.legacyCount() }, 1)
    }

    /// No UPDATE gives a key another purpose: the schema's trigger refuses it, even one
    /// written behind the store's back.
    func testThePurposeColumn_neverChanges() throws {
        let store = try VaultStore(path: path)
        defer { store.close() }
        let record = try CredentialFixtures.record(purpose: .authenticate)
        try store.write { try $0.insert(record) }
        XCTAssertThrowsError(try store.withConnection {
            try $0.execute("UPDATE credentials SET purpose = 'ssh' WHERE key_id = ?1", [.text(record.keyId.hex)])
        }) { error in
            XCTAssertTrue("\(error)".contains("purpose never changes"), "\(error)")
        }
        var relabelled = record
        relabelled.sealed.header.purpose = .login
        XCTAssertThrowsError(try store.write { try $0.update(relabelled) })
        XCTAssertEqual(try store.read { try $0.credential(keyId: record.keyId) }?.purpose, .authenticate)
        XCTAssertThrowsError(try store.withConnection {
            try $0.execute("UPDATE credentials SET purpose = 'root' WHERE key_id = ?1", [.text(record.keyId.hex)])
        }, "a purpose the schema does not know")
    }

    /// A row whose purpose its format cannot hold (a format-2 row passed off as legacy,
    /// a format-1 row given a purpose) is corrupt: listed, never used.
    func testARowWhosePurposeAndFormatDisagree_isCorrupt() throws {
        let store = try VaultStore(path: path)
        defer { store.close() }
        let bound = try CredentialFixtures.record(purpose: .ssh, createdAt: 1)
        let good = try CredentialFixtures.record(purpose: .login, createdAt: 2)
        try store.write { writer in
            try writer.insert(bound)
            try writer.insert(good)
        }
        try store.withConnection { connection in
            try connection.execute("DROP TRIGGER credentials_purpose_is_immutable")
            try connection.execute("UPDATE credentials SET purpose = 'legacy' WHERE key_id = ?1", [.text(bound.keyId.hex)])
        }
        XCTAssertEqual(try store.read { try $0.corruptRecords() }, [bound.keyId.hex])
        XCTAssertEqual(try store.read { try $0.credentials(ownerUid: 1000, user: nil) }, [good])
        var mismatched = good
        mismatched.sealed.header.formatVersion = 1
        XCTAssertThrowsError(try store.write { try $0.update(mismatched) }) { error in
            XCTAssertEqual(error as? StoreError, .invalidRecord("purpose"))
        }
    }
}
