import XCTest

final class PinVaultCryptoTestsPlaceholder: XCTestCase {}
