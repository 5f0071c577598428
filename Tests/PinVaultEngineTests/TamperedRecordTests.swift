import PinVaultCore
import PinVaultCrypto
import XCTest

@testable import PinVaultEngine
@testable import PinVaultStore

/// A record whose KDF costs were edited past the configured maximum (a row edited in
/// SQLite could otherwise tie a KDF thread up for hours) is refused before any KDF
/// runs: InternalError, a log line, nothing counted.
final class TamperedRecordTests: XCTestCase {
    private let pin = "258046"

    func testARecordEditedToCostsBeyondTheMaximum_isRefusedBeforeAnyKDF_andNothingIsCounted() throws {
        let fixture = try EngineFixture(lockout: LockoutPolicy())
        let keyId = try fixture.register(user: "alice", pin: pin)
        // As an attacker with write access to vault.sqlite would: the row names 1000 passes
        // (a real one would name 2^32 - 1, hours of Argon2id; 1000 passes over 8 KiB keep
        // this test fast even where the refusal is missing).
        try fixture.store.withConnection { connection in
            try connection.execute("UPDATE credentials SET kdf_opslimit = 1000 WHERE key_id = '\(keyId.hex)'")
        }
        let kdfRuns = fixture.kdfEvaluations
        for _ in 0..<2 {
            guard case .failure(let error) = try fixture.authenticate(user: "alice", pin: pin) else {
                return XCTFail("a tampered record opened")
            }
            XCTAssertEqual(error, .internalError)
        }
        XCTAssertEqual(fixture.kdfEvaluations, kdfRuns, "no KDF ran")
        XCTAssertEqual(try fixture.record(keyId)?.failedAttempts, 0, "nothing was counted")
    }
}
