import PinVaultCrypto
import XCTest

@testable import PinVaultStore

/// Schema version 5: the wrong PINs since the owner's last success, a count an admin's
/// Unblock never resets (SECURITY.md "Admins and the lockout"). A vault of the third
/// release opens with each credential's count of wrong PINs carried into it.
final class WrongPinsMigrationTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var path: String { directory.file("vault.sqlite") }

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
    }

    override func tearDown() {
        directory = nil
    }

    func testAVaultOfTheThirdRelease_opens_andItsWrongPinsSinceSuccess_areItsFailedAttempts() throws {
        let fresh = try CredentialFixtures.record(user: "alice", purpose: .ssh, formatVersion: 2, createdAt: 1)
        var guessed = try CredentialFixtures.record(user: "bob", purpose: .authenticate, formatVersion: 2, createdAt: 2)
        guessed.failedAttempts = 4
        guessed.lockedUntil = 1_800_000_000
        var blocked = try CredentialFixtures.record(user: "carol", purpose: .legacy, createdAt: 3)
        blocked.failedAttempts = 10
        try EarlierReleaseVault.make(path: path, schemaVersion: EarlierReleaseVault.third, records: [fresh, guessed, blocked])

        let store = try VaultStore(path: path)
        defer { store.close() }
        XCTAssertEqual(try store.withConnection { try Schema.userVersion($0) }, Schema.latestVersion)
        let read = try store.read { try $0.credentials(ownerUid: 1000, user: nil) }
        XCTAssertEqual(read.map(\.wrongPinsSinceSuccess), [0, 4, 10], "the wrong PINs a release without the count had seen")
        var expected = [fresh, guessed, blocked]
        for index in expected.indices { expected[index].wrongPinsSinceSuccess = expected[index].failedAttempts }
        XCTAssertEqual(read, expected, "every other column as the third release wrote it")
        XCTAssertEqual(try store.read { try $0.corruptRecords() }, [])
    }

    func testTheCount_roundTrips_apartFromFailedAttempts() throws {
        let store = try VaultStore(path: path)
        defer { store.close() }
        var record = try CredentialFixtures.record()
        try store.write { try $0.insert(record) }
        record.failedAttempts = 0
        record.wrongPinsSinceSuccess = 13
        try store.write { try $0.update(record) }
        XCTAssertEqual(try store.read { try $0.credential(keyId: record.keyId) }, record)
        record.wrongPinsSinceSuccess = -1
        XCTAssertThrowsError(try store.write { try $0.update(record) }) { error in
            XCTAssertEqual(error as? StoreError, .invalidRecord("wrongPinsSinceSuccess"))
        }
    }
}
