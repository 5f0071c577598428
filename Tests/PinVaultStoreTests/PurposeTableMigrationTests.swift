import PinVaultCrypto
import XCTest

@testable import PinVaultStore

/// Schema version 8: the purposes in a table of their own, which a credential's purpose
/// references. A vault of schema 7 opens with every row as it was; the table holds every
/// purpose this code knows; a purpose the table does not hold is refused; and a purpose
/// the code knows but the table does not (as after an upgrade that adds one) is a row
/// the open inserts, with no rebuild of `credentials`.
final class PurposeTableMigrationTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var path: String { directory.file("vault.sqlite") }
    /// The schema before the purposes table: security keys, and a CHECK that names purposes.
    private let beforePurposeTable = 7

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
    }

    override func tearDown() {
        directory = nil
    }

    private func texts(_ store: VaultStore, _ sql: String) throws -> [String] {
        try store.withConnection { connection in
            let statement = try connection.prepare(sql)
            var values: [String] = []
            while try statement.step() {
                if case .text(let bytes) = statement.value(at: 0) { values.append(String(decoding: bytes, as: UTF8.self)) }
            }
            return values
        }
    }

    func testAVaultOfSchema7_opens_everyRowAsItWas_andEveryPurposeInItsTable() throws {
        let legacy = try CredentialFixtures.record(user: "alice", purpose: .legacy, createdAt: 1)
        var ssh = try CredentialFixtures.record(user: "bob", purpose: .ssh, algorithm: .p256, createdAt: 2)
        ssh.failedAttempts = 2
        ssh.wrongPinsSinceSuccess = 4
        let login = try CredentialFixtures.record(user: "carol", purpose: .login, formatVersion: 2, createdAt: 3)
        let app = try CredentialFixtures.record(user: "dave", label: "bank", purpose: .authenticate, createdAt: 4)
        let securityKey = try CredentialFixtures.record(user: "erin", purpose: .webauthn, algorithm: .p256, createdAt: 5)
        let records = [legacy, ssh, login, app, securityKey]
        try EarlierReleaseVault.make(path: path, schemaVersion: beforePurposeTable, records: records)

        let store = try VaultStore(path: path)
        defer { store.close() }
        XCTAssertEqual(try store.withConnection { try Schema.userVersion($0) }, Schema.latestVersion)
        XCTAssertEqual(try store.read { try $0.credentials(ownerUid: 1000, user: nil) }, records, "every column as schema 7 held it")
        XCTAssertEqual(try store.read { try $0.corruptRecords() }, [])
        XCTAssertEqual(try store.read { try $0.legacyCount() }, 1)
        XCTAssertEqual(Set(try texts(store, "SELECT name FROM purposes")), Set(KeyPurpose.allCases.map(\.rawValue)))
        let table = try texts(store, "SELECT sql FROM sqlite_schema WHERE name = 'credentials'").joined()
        XCTAssertTrue(table.contains("REFERENCES purposes (name)"), table)
        XCTAssertFalse(table.contains("purpose IN"), "no CHECK names the purposes any more: \(table)")
        // The rebuilt table keeps its indexes and triggers.
        XCTAssertEqual(
            Set(try texts(store, "SELECT name FROM sqlite_schema WHERE tbl_name = 'credentials' AND type IN ('index', 'trigger')")),
            ["sqlite_autoindex_credentials_1", "credentials_owner_user", "credentials_legacy", "credentials_purpose_is_immutable",
             "credentials_algorithm_is_immutable", "credentials_take_their_certificates", "credentials_take_their_passkeys"])
        XCTAssertThrowsError(try store.withConnection {
            try $0.execute("UPDATE credentials SET purpose = 'ssh' WHERE key_id = ?1", [.text(app.keyId.hex)])
        })
        try store.withConnection { connection in
            try connection.execute(
                "INSERT INTO ssh_certificates (key_id, certificate, added_at) VALUES (?1, ?2, 1)", [.text(ssh.keyId.hex), .blob([1, 2, 3])])
        }
        try store.write { _ = try $0.delete(keyId: ssh.keyId) }
        XCTAssertEqual(try store.withConnection { try $0.scalar("SELECT count(*) FROM ssh_certificates") }, .integer(0))
        // And a credential of every purpose is written into it as before.
        let more = try KeyPurpose.allCases.enumerated().map { index, purpose in
            try CredentialFixtures.record(user: "new\(index)", purpose: purpose, createdAt: 10 + Int64(index))
        }
        try store.write { writer in for record in more { try writer.insert(record) } }
        XCTAssertEqual(try store.read { try $0.credentials(ownerUid: 1000, user: nil) }.suffix(more.count), more[...])
    }

    /// A row written behind the store's back with a purpose the table does not hold is
    /// refused by the foreign key, as the CHECK refused it before.
    func testAPurposeTheTableDoesNotHold_isRefused() throws {
        let store = try VaultStore(path: path)
        defer { store.close() }
        let record = try CredentialFixtures.record(purpose: .ssh)
        try store.write { try $0.insert(record) }
        let copied = CredentialRecord.columns.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            .map { $0 == "key_id" ? "'00000000000000000000000000000000'" : $0 == "purpose" ? "'root'" : $0 }
            .joined(separator: ", ")
        XCTAssertThrowsError(try store.withConnection {
            try $0.execute("INSERT INTO credentials (\(CredentialRecord.columns)) SELECT \(copied) FROM credentials")
        }) { error in
            XCTAssertTrue("\(error)".contains("FOREIGN KEY"), "\(error)")
        }
        XCTAssertThrowsError(try store.withConnection { try $0.execute("DELETE FROM purposes WHERE name = 'ssh'") },
                             "a purpose a credential has stays")
        XCTAssertThrowsError(try store.withConnection { try $0.execute("INSERT INTO purposes (name) VALUES ('Not one')") })
        XCTAssertEqual(try store.read { try $0.credentials(ownerUid: 1000, user: nil) }, [record])
    }

    /// What a release that adds a purpose finds: a table without it. The open inserts it
    /// (a row, not a rebuild: `credentials` is the same table, its rows untouched), and an
    /// open that finds every purpose there writes nothing.
    func testAPurposeTheTableLacks_isInsertedAtOpen_andNothingElseChanges() throws {
        let record = try CredentialFixtures.record(purpose: .login)
        do {
            let store = try VaultStore(path: path)
            try store.write { try $0.insert(record) }
            try store.withConnection { try $0.execute("DELETE FROM purposes WHERE name IN ('webauthn', 'authenticate')") }
            store.close()
        }
        let before = try withRawConnection { connection in
            try connection.scalar("SELECT sql FROM sqlite_schema WHERE name = 'credentials'")
        }
        let store = try VaultStore(path: path)
        defer { store.close() }
        XCTAssertEqual(Set(try texts(store, "SELECT name FROM purposes")), Set(KeyPurpose.allCases.map(\.rawValue)))
        XCTAssertEqual(try store.withConnection { try $0.scalar("SELECT sql FROM sqlite_schema WHERE name = 'credentials'") }, before)
        XCTAssertEqual(try store.read { try $0.credentials(ownerUid: 1000, user: nil) }, [record])
        let again = try VaultStore(path: path)
        defer { again.close() }
        XCTAssertEqual(try again.withConnection { try $0.scalar("SELECT total_changes()") }, .integer(0), "the next open writes nothing")
    }

    private func withRawConnection<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        let connection = try SQLiteConnection(path: path)
        defer { connection.close() }
        return try body(connection)
    }
}
