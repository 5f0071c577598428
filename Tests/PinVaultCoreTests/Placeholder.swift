import XCTest

final class PinVaultCoreTestsPlaceholder: XCTestCase {}
