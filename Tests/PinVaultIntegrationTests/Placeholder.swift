import XCTest

final class PinVaultIntegrationTestsPlaceholder: XCTestCase {}
