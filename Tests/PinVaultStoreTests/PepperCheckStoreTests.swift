import PinVaultCrypto
import XCTest

@testable import PinVaultStore

/// The pepper's check value in the store (docs/FORMAT.md §9): recorded once, matched
/// after, a mismatch reported while records exist, and a store from before the check
/// (schema version 1) migrated and given one on its first start.
final class PepperCheckStoreTests: StoreTestCase {
    func testANewVault_recordsTheCheckValue_thenMatchesOnlyThatPepper() throws {
        let pepper = try Pepper.generate()
        XCTAssertNil(try store.pepperCheckValue())
        XCTAssertEqual(try store.checkPepper(pepper), .recorded(recordCount: 0))
        XCTAssertEqual(try store.pepperCheckValue(), try pepper.checkValue())
        XCTAssertEqual(try store.checkPepper(pepper), .matches)

        try store.write { try $0.insert(try CredentialFixtures.record()) }
        XCTAssertEqual(try store.checkPepper(try Pepper.generate()), .mismatch(recordCount: 1))
        XCTAssertEqual(try store.pepperCheckValue(), try pepper.checkValue(), "a mismatch changes nothing")
        XCTAssertEqual(try store.checkPepper(pepper), .matches)
    }

    func testAVaultWithoutCredentials_takesTheCheckValueOfANewPepper() throws {
        XCTAssertEqual(try store.checkPepper(try Pepper.generate()), .recorded(recordCount: 0))
        let replacement = try Pepper.generate()
        XCTAssertEqual(try store.checkPepper(replacement), .replacedOnEmptyVault)
        XCTAssertEqual(try store.checkPepper(replacement), .matches)
    }

    func testAStoreFromBeforeTheCheck_migratesToVersion2_andRecordsItsPepperOnce() throws {
        store.close()
        let path = directory.file("vault.sqlite")
        unlink(path)
        // Version 1 had no vault_metadata table.
        try DatabaseFile.prepare(path: path)
        let connection = try SQLiteConnection(path: path)
        try Schema.migrate(connection, to: 1)
        try EarlierReleaseVault.insert(try CredentialFixtures.record(purpose: .legacy), into: connection, schemaVersion: 1)
        connection.close()
        store = try VaultStore(path: path)
        XCTAssertEqual(try store.withConnection { try Schema.userVersion($0) }, VaultStore.currentSchemaVersion)
        XCTAssertEqual(try store.read { try $0.totalCount() }, 1, "the records survive the migration")
        let pepper = try Pepper.generate()
        XCTAssertEqual(try store.checkPepper(pepper), .recorded(recordCount: 1))
        XCTAssertEqual(try store.checkPepper(pepper), .matches)
        XCTAssertEqual(try store.checkPepper(try Pepper.generate()), .mismatch(recordCount: 1))
    }
}
