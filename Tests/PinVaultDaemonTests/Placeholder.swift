import XCTest

final class PinVaultDaemonTestsPlaceholder: XCTestCase {}
