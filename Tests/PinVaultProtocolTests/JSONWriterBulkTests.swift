import PinVaultCrypto
@testable import PinVaultProtocol
import XCTest

/// The run-at-a-time string escaper, the stack-built integers and the buffer's bulk
/// appends, checked byte for byte against an independent statement of RFC 8259.
final class JSONWriterBulkTests: XCTestCase {
    func testAppendSecretString_raw_escapesEveryByteValueAsRFC8259Says() throws {
        for value in 0...255 {
            let byte = UInt8(value)
            let secret = try [byte].withUnsafeBytes { try SecretBytes(copying: $0) }
            let buffer = ReplyBuffer(capacity: 16)
            JSONWriter.appendSecretString(secret, encoding: .raw, to: buffer)
            XCTAssertEqual(buffer.copyBytes(), quoted(expectedEscape(of: byte)), "byte \(value)")
        }
    }

    func testAppendString_escapesEveryASCIICharacter_aloneAndBetweenRuns() {
        for value in 0..<128 {
            let byte = UInt8(value)
            let alone = ReplyBuffer(capacity: 16)
            JSONWriter.appendString(String(decoding: [byte], as: UTF8.self), to: alone)
            XCTAssertEqual(alone.copyBytes(), quoted(expectedEscape(of: byte)), "byte \(value)")

            let between = ReplyBuffer(capacity: 16)
            JSONWriter.appendString(String(decoding: Array("ab".utf8) + [byte] + Array("cd".utf8), as: UTF8.self), to: between)
            XCTAssertEqual(between.copyBytes(), quoted(Array("ab".utf8) + expectedEscape(of: byte) + Array("cd".utf8)), "byte \(value)")
        }
    }

    func testAppendString_writesRunsThatStartOrEndTheString() {
        let cases: [(String, String)] = [
            ("", #""""#),
            ("plain", #""plain""#),
            ("\nabc", #""\nabc""#),
            ("abc\"", #""abc\"""#),
            ("\"abc\\", #""\"abc\\""#),
            ("\"\\\n\u{1}", #""\"\\\n\u0001""#),
            ("a\u{1f}b\u{7f}c", "\"a\\u001fb\u{7f}c\""),
            ("é\tü", "\"é\\tü\""),
        ]
        for (input, expected) in cases {
            let buffer = ReplyBuffer(capacity: 16)
            JSONWriter.appendString(input, to: buffer)
            XCTAssertEqual(text(of: buffer), expected)
        }
    }

    func testAppendString_longRunsAcrossGrowth_keepEveryByte() throws {
        let run = String(repeating: "0123456789", count: 50)
        let input = run + "\n" + run + "\"" + run
        let buffer = ReplyBuffer(capacity: 16)
        JSONWriter.appendString(input, to: buffer)
        XCTAssertEqual(text(of: buffer), "\"" + run + "\\n" + run + "\\\"" + run + "\"")
        try withDocument(bytes: buffer.copyBytes()) { document in
            XCTAssertEqual(document.string(document.root), input)
        }
    }

    func testAppendSecretString_raw_writesTheSameBytesAsAppendString() throws {
        let sample = "\"pin\\\n12€34\u{0}"
        let secret = try Array(sample.utf8).withUnsafeBytes { try SecretBytes(copying: $0) }
        let fromSecret = ReplyBuffer(capacity: 16)
        JSONWriter.appendSecretString(secret, encoding: .raw, to: fromSecret)
        let fromString = ReplyBuffer(capacity: 16)
        JSONWriter.appendString(sample, to: fromString)
        XCTAssertEqual(fromSecret.copyBytes(), fromString.copyBytes())
        XCTAssertEqual(text(of: fromSecret), #""\"pin\\\n12€34\u0000""#)
    }

    func testAppendSecretString_base64url_matchesTheEncoderForEveryRemainder() throws {
        for length in 0...7 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: 0xF8 + $0 * 37) }
            let secret = try bytes.withUnsafeBytes { try SecretBytes(copying: $0) }
            let buffer = ReplyBuffer(capacity: 16)
            JSONWriter.appendSecretString(secret, encoding: .base64url, to: buffer)
            XCTAssertEqual(text(of: buffer), "\"" + Base64.encodedString(bytes, alphabet: .url) + "\"", "length \(length)")
        }
    }

    func testAppendInt_writesTheSameDigitsAsTheStandardLibrary() {
        var samples: [Int64] = [.min, .min + 1, .max, .max - 1, 0, 1, -1, 9, -9, 10, -10]
        var power: Int64 = 10
        for _ in 1...18 {
            samples += [power - 1, power, power + 1, -(power - 1), -power, -(power + 1)]
            power = power &* 10
        }
        for value in samples {
            let buffer = ReplyBuffer(capacity: 16)
            JSONWriter.appendInt(value, to: buffer)
            XCTAssertEqual(text(of: buffer), String(value))
        }
    }

    func testAppendInt_afterOtherBytes_appendsOnlyTheDigits() {
        let buffer = ReplyBuffer(capacity: 16)
        buffer.append(utf8: "0123456789abcde")
        JSONWriter.appendInt(Int64.min, to: buffer)
        XCTAssertEqual(text(of: buffer), "0123456789abcde-9223372036854775808")
    }

    func testReplyBuffer_bulkAppendsThatFillAndOverflowTheCapacity_keepEveryByte() {
        let buffer = ReplyBuffer(capacity: 16)
        let first = [UInt8](repeating: 0x41, count: 16)
        let second = [UInt8](0..<100)
        first.withUnsafeBytes { buffer.append($0) }
        XCTAssertEqual(buffer.capacity, 16, "exactly full does not grow")
        [UInt8]().withUnsafeBytes { buffer.append($0) }
        second.withUnsafeBytes { buffer.append($0) }
        buffer.append(0xFF)
        XCTAssertEqual(buffer.copyBytes(), first + second + [0xFF])
        XCTAssertEqual(buffer.capacity, 128)
    }

    func testReplyBuffer_appendAfterConsume_continuesAfterTheRemainingBytes() {
        let buffer = ReplyBuffer(capacity: 16)
        buffer.append(utf8: "abcdefghij")
        buffer.consume(8)
        buffer.append(utf8: "klmnopqrstuvwxyz")
        XCTAssertEqual(text(of: buffer), "ijklmnopqrstuvwxyz")
    }

    // MARK: The reference

    /// RFC 8259 §7, written out independently of the writer.
    private func expectedEscape(of byte: UInt8) -> [UInt8] {
        let short: [UInt8: String] = [0x22: "\\\"", 0x5C: "\\\\", 0x08: "\\b", 0x0C: "\\f", 0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t"]
        if let escape = short[byte] { return Array(escape.utf8) }
        guard byte < 0x20 else { return [byte] }
        let hex = Array("0123456789abcdef".utf8)
        return Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
    }

    private func quoted(_ bytes: [UInt8]) -> [UInt8] {
        [UInt8(ascii: "\"")] + bytes + [UInt8(ascii: "\"")]
    }
}
