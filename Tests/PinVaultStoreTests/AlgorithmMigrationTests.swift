import PinVaultCrypto
import XCTest

@testable import PinVaultStore

/// Schema version 6: the key's algorithm. A vault of the release before it opens with
/// every row unchanged and Ed25519; a P-256 key is stored and read back; the column
/// never changes, and a row whose public key or format does not fit its algorithm is
/// listed as damaged, not used.
final class AlgorithmMigrationTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var path: String { directory.file("vault.sqlite") }

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
    }

    override func tearDown() {
        directory = nil
    }

    func testAVaultOfTheReleaseBeforeAlgorithms_opens_everyRowEd25519AndAsItWas() throws {
        let legacy = try CredentialFixtures.record(user: "alice", purpose: .legacy, createdAt: 1)
        var ssh = try CredentialFixtures.record(user: "bob", purpose: .ssh, formatVersion: 2, createdAt: 2)
        ssh.failedAttempts = 3
        ssh.wrongPinsSinceSuccess = 5
        let login = try CredentialFixtures.record(user: "carol", purpose: .login, formatVersion: 2, createdAt: 3)
        try EarlierReleaseVault.make(path: path, schemaVersion: EarlierReleaseVault.beforeAlgorithms, records: [legacy, ssh, login])

        let store = try VaultStore(path: path)
        defer { store.close() }
        XCTAssertEqual(try store.withConnection { try Schema.userVersion($0) }, Schema.latestVersion)
        let read = try store.read { try $0.credentials(ownerUid: 1000, user: nil) }
        XCTAssertEqual(read, [legacy, ssh, login], "every column as the release before wrote it")
        XCTAssertEqual(read.map(\.algorithm), [.ed25519, .ed25519, .ed25519])
        XCTAssertEqual(read.map(\.sealed.header.formatVersion), [1, 2, 2])
        XCTAssertEqual(try store.read { try $0.corruptRecords() }, [])
        XCTAssertEqual(try store.read { try $0.legacyCount() }, 1)
        for record in read {
            XCTAssertNoThrow(try SeedSealer.open(record.sealed, pin: CredentialFixtures.pin(), pepper: XCTUnwrap(CredentialFixtures.pepper)))
        }
        // The rebuilt table keeps its triggers: a credential still takes its certificates.
        try store.withConnection { connection in
            try connection.execute(
                "INSERT INTO ssh_certificates (key_id, certificate, added_at) VALUES (?1, ?2, 1)",
                [.text(ssh.keyId.hex), .blob([1, 2, 3])])
        }
        try store.write { _ = try $0.delete(keyId: ssh.keyId) }
        let left = try store.withConnection { try $0.scalar("SELECT count(*) FROM ssh_certificates") }
        XCTAssertEqual(left, .integer(0))
        XCTAssertThrowsError(try store.withConnection { try $0.execute("UPDATE credentials SET purpose = 'ssh' WHERE key_id = ?1", [.text(legacy.keyId.hex)]) })
    }

    func testAP256Record_roundTrips_andItsAlgorithmNeverChanges() throws {
        let store = try VaultStore(path: path)
        defer { store.close() }
        let record = try CredentialFixtures.record(purpose: .ssh, algorithm: .p256)
        XCTAssertEqual(record.publicKey.count, 65)
        try store.write { try $0.insert(record) }
        let read = try store.read { try $0.credential(keyId: record.keyId) }
        XCTAssertEqual(read, record)
        XCTAssertEqual(read?.algorithm, .p256)
        XCTAssertThrowsError(try store.withConnection {
            try $0.execute("UPDATE credentials SET algorithm = 'ed25519' WHERE key_id = ?1", [.text(record.keyId.hex)])
        })
        XCTAssertEqual(try store.read { try $0.credential(keyId: record.keyId) }, record)
    }

    /// Rows edited from outside: an unknown algorithm, a public key of another
    /// algorithm's size, a P-256 key in format 2 (which holds no algorithm byte).
    func testARowThatDoesNotFitItsAlgorithm_isDamaged() throws {
        let store = try VaultStore(path: path)
        defer { store.close() }
        let unknown = try CredentialFixtures.record(user: "a", purpose: .ssh, algorithm: .p256)
        let shortKey = try CredentialFixtures.record(user: "b", purpose: .ssh, algorithm: .p256)
        let format2 = try CredentialFixtures.record(user: "c", purpose: .ssh, algorithm: .p256)
        let edEd = try CredentialFixtures.record(user: "d", purpose: .ssh, algorithm: .ed25519)
        for record in [unknown, shortKey, format2, edEd] { try store.write { try $0.insert(record) } }
        try store.withConnection { connection in
            try connection.execute("DROP TRIGGER credentials_algorithm_is_immutable")
            try connection.execute("UPDATE credentials SET algorithm = 'rsa' WHERE key_id = ?1", [.text(unknown.keyId.hex)])
            try connection.execute(
                "UPDATE credentials SET public_key = ?1 WHERE key_id = ?2", [.blob(Array(shortKey.publicKey.prefix(32))), .text(shortKey.keyId.hex)])
            try connection.execute("UPDATE credentials SET format_version = 2 WHERE key_id = ?1", [.text(format2.keyId.hex)])
            try connection.execute("UPDATE credentials SET algorithm = 'p256' WHERE key_id = ?1", [.text(edEd.keyId.hex)])
        }
        XCTAssertEqual(
            Set(try store.read { try $0.corruptRecords() }),
            Set([unknown, shortKey, format2, edEd].map(\.keyId.hex)))
    }

    /// A record the store refuses to write: a public key its algorithm does not have.
    func testARecordWhosePublicKeyIsNotItsAlgorithms_isNotWritten() throws {
        let store = try VaultStore(path: path)
        defer { store.close() }
        var record = try CredentialFixtures.record(purpose: .ssh, algorithm: .p256)
        record.publicKey = Array(record.publicKey.prefix(32))
        XCTAssertThrowsError(try store.write { try $0.insert(record) })
    }
}
