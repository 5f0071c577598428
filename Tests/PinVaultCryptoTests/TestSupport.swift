import XCTest

@testable import PinVaultCrypto

extension Array where Element == UInt8 {
    /// Bytes from hex; test vectors only, so a malformed literal fails the test loudly.
    init(hex: String) {
        let digits = Array(hex.utf8)
        var bytes = [UInt8]()
        var index = 0
        while index + 1 < digits.count {
            let pair = String(decoding: digits[index...index + 1], as: UTF8.self)
            bytes.append(UInt8(pair, radix: 16) ?? 0)
            index += 2
        }
        XCTAssertEqual(digits.count % 2, 0, "odd-length hex literal")
        XCTAssertEqual(bytes.count * 2, digits.count, "malformed hex literal")
        self = bytes
    }

    /// Lowercase hex.
    var hex: String { map { String(format: "%02x", $0) }.joined() }
}

/// Secret bytes holding a copy of `bytes`.
func secret(_ bytes: [UInt8]) throws -> SecretBytes {
    try bytes.withUnsafeBytes { try SecretBytes(copying: $0) }
}

/// Secret bytes holding the UTF-8 of `text` (a test PIN).
func secret(_ text: String) throws -> SecretBytes {
    try secret(Array(text.utf8))
}

/// A copy of the bytes in use, for assertions.
func contents(_ secret: SecretBytes) -> [UInt8] {
    secret.withUnsafeBytes { Array($0) }
}

/// Every byte of the capacity, including those past `count`, for assertions.
func wholeCapacity(_ secret: SecretBytes) -> [UInt8] {
    var all = [UInt8]()
    let count = secret.count
    secret.fill { buffer in
        all = Array(buffer)
        return count
    }
    return all
}

/// Asserts that `body` throws exactly `expected`.
func assertThrows<T>(
    _ expected: CryptoError,
    file: StaticString = #filePath,
    line: UInt = #line,
    _ body: () throws -> T
) {
    do {
        _ = try body()
        XCTFail("expected \(expected), nothing was thrown", file: file, line: line)
    } catch {
        XCTAssertEqual(error as? CryptoError, expected, file: file, line: line)
    }
}

/// Argon2id parameters at libsodium's minimum, so tests run fast.
let weakParameters = KDFParameters(opslimit: 1, memlimit: 8192)
