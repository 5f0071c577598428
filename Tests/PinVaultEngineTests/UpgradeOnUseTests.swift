import PinVaultCore
import PinVaultCrypto
import XCTest

@testable import PinVaultEngine

/// Upgrade on use (docs/OPERATIONS.md, "Rotating the KDF parameters") re-seals at the
/// larger of each cost: it never lowers one.
final class UpgradeOnUseTests: XCTestCase {
    private let pin = "258046"

    func testUpgradeOnUse_takesTheLargerOfEachCost_neverLowersOne() throws {
        let sealedWith = KDFParameters(opslimit: 4, memlimit: 8 << 10)
        let configured = KDFParameters(opslimit: 3, memlimit: 16 << 10)
        let before = try EngineFixture(lockout: LockoutPolicy(), kdf: sealedWith)
        let keyId = try before.register(user: "alice", pin: pin)
        XCTAssertEqual(try before.record(keyId)?.sealed.header.kdf, sealedWith)

        let after = try EngineFixture(sharing: before, lockout: LockoutPolicy(), kdf: configured)
        guard case .success(.authenticated) = try after.authenticate(user: "alice", pin: pin) else {
            return XCTFail("Authenticate failed")
        }
        XCTAssertEqual(try after.record(keyId)?.sealed.header.kdf, KDFParameters(opslimit: 4, memlimit: 16 << 10),
                       "resealed at the larger of each cost")
        // The upgraded record opens, and is not resealed again.
        guard case .success(.authenticated) = try after.authenticate(user: "alice", pin: pin) else {
            return XCTFail("the upgraded record did not open")
        }
        XCTAssertEqual(try after.record(keyId)?.sealed.header.kdf, KDFParameters(opslimit: 4, memlimit: 16 << 10))
    }
}
