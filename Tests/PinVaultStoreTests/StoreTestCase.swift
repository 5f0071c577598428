import XCTest
@testable import PinVaultStore

/// A fresh store in a fresh temporary directory for every test.
class StoreTestCase: XCTestCase {
    var directory: TemporaryDirectory!
    var store: VaultStore!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
        store = try VaultStore(path: directory.file("vault.sqlite"))
    }

    override func tearDown() {
        store.close()
        store = nil
        directory = nil
    }
}
