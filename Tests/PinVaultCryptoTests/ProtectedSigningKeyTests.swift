import Glibc
import XCTest

@testable import PinVaultCrypto

/// An unlock session's key: RFC 8032 answers, and pages no one may touch between
/// signatures (`SecretBytes.protect`, `ProtectedSigningKey`).
final class ProtectedSigningKeyTests: XCTestCase {
    /// RFC 8032 section 7.1, TEST 2.
    private let seed = "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb"
    private let publicKey = "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c"
    private let signature = "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da"
        + "085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"

    func testAProtectedKey_signsAsRFC8032Says_again_andAgain() throws {
        let key = try ProtectedSigningKey(algorithm: .ed25519, seed: secret([UInt8](hex: seed)))
        XCTAssertEqual(key.publicKey.hex, publicKey)
        for _ in 0..<3 {
            let signed = try [UInt8](hex: "72").withUnsafeBytes { try key.sign($0) }
            XCTAssertEqual(signed.hex, signature)
        }
    }

    func testAProtectedKey_refusesASeedOfTheWrongSize() throws {
        XCTAssertThrowsError(try ProtectedSigningKey(algorithm: .ed25519, seed: secret([UInt8](repeating: 1, count: 31))))
    }

    /// The bytes read back once access is restored, and a child process that reads them
    /// while they are inaccessible dies of SIGSEGV: the protection is real.
    func testANoAccessBuffer_faultsWhenRead_andReadsAgainOnceOpened() throws {
        let buffer = try secret([UInt8](hex: seed))
        try buffer.protect(.noAccess)
        let child = fork()
        if child == 0 {
            let sum = buffer.withUnsafeBytes { $0.reduce(0) { $0 &+ $1 } }
            _exit(sum == 255 ? 3 : 0)  // never reached: the read faults
        }
        XCTAssertGreaterThan(child, 0, "fork failed")
        var status: Int32 = 0
        XCTAssertEqual(waitpid(child, &status, 0), child)
        let signalled = status & 0x7f
        XCTAssertEqual(signalled, SIGSEGV, "reading a no-access buffer did not fault (status \(status))")
        try buffer.protect(.readOnly)
        XCTAssertEqual(contents(buffer).hex, seed)
        try buffer.protect(.readWrite)
        buffer.wipe()
        XCTAssertEqual(buffer.count, 0)
    }
}
