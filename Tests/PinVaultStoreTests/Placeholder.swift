import XCTest

final class PinVaultStoreTestsPlaceholder: XCTestCase {}
