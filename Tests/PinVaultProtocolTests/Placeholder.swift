import XCTest

final class PinVaultProtocolTestsPlaceholder: XCTestCase {}
