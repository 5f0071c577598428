import PinVaultCrypto
@testable import PinVaultProtocol
import XCTest

final class JSONWriterTests: XCTestCase {
    func testAppendString_escapesQuotesBackslashesAndControls() {
        let buffer = ReplyBuffer()
        JSONWriter.appendString("a\"b\\c\n\r\t\u{8}\u{c}\u{1}\u{1f}/é€😀", to: buffer)
        XCTAssertEqual(text(of: buffer), "\"a\\\"b\\\\c\\n\\r\\t\\b\\f\\u0001\\u001f/é€😀\"")
    }

    func testWrittenStrings_parseBackToTheSameText() throws {
        let samples = ["", "plain", "\u{0}\u{7f}", "\"\\\"", "line\nbreak", "ünïcødé 😀", String(repeating: "x", count: 3000)]
        for sample in samples {
            let buffer = ReplyBuffer(capacity: 16)
            JSONWriter.appendString(sample, to: buffer)
            try withDocument(bytes: buffer.copyBytes()) { document in
                XCTAssertEqual(document.string(document.root), sample)
            }
        }
    }

    func testWriteObject_placesCommasAndNestsContainers() {
        let buffer = ReplyBuffer()
        JSONWriter.writeObject(into: buffer) { object in
            object.field("s", "x")
            object.field("i", Int64(-7))
            object.field("n", 3)
            object.field("b", false)
            object.nullField("z")
            object.optionalField("absent", nil as String?)
            object.optionalField("present", "y")
            object.field("list", strings: ["a", "b"])
            object.arrayField("empty") { _ in }
            object.objectField("o") { inner in inner.field("t", true) }
            object.arrayField("mixed") { array in
                array.element(Int64(1))
                array.element("two")
                array.element(true)
                array.nullElement()
                array.objectElement { $0.field("k", "v") }
                array.arrayElement { $0.element(Int64(2)) }
            }
        }
        XCTAssertEqual(
            text(of: buffer),
            #"{"s":"x","i":-7,"n":3,"b":false,"z":null,"present":"y","list":["a","b"],"empty":[],"o":{"t":true},"#
                + #""mixed":[1,"two",true,null,{"k":"v"},[2]]}"#
        )
    }

    func testAppendInt_writesTheExtremes() {
        let buffer = ReplyBuffer()
        JSONWriter.writeArray(into: buffer) { array in
            array.element(Int64.min)
            array.element(Int64.max)
            array.element(Int64(0))
        }
        XCTAssertEqual(text(of: buffer), "[-9223372036854775808,9223372036854775807,0]")
    }

    func testAppendSecretString_base64url_writesUnpaddedTokenFromSecretMemory() throws {
        let secret = try [UInt8](0..<32).withUnsafeBytes { try SecretBytes(copying: $0) }
        let buffer = ReplyBuffer()
        JSONWriter.writeObject(into: buffer) { $0.secretField("token", secret, encoding: .base64url) }
        XCTAssertEqual(text(of: buffer), #"{"token":"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"}"#)
    }

    func testBase64Field_writesPaddedStandardBase64_asBase64EncodedStringDoes() {
        for count in [0, 1, 2, 3, 4, 5, 148] {
            let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 250) }
            let buffer = ReplyBuffer()
            JSONWriter.writeObject(into: buffer) { $0.base64Field("challenge", bytes) }
            XCTAssertEqual(text(of: buffer), #"{"challenge":""# + Base64.encodedString(bytes) + #""}"#, "\(count) bytes")
        }
        let buffer = ReplyBuffer()
        JSONWriter.writeObject(into: buffer) { $0.base64Field("challenge", Array("any carnal pleas".utf8)) }
        XCTAssertEqual(text(of: buffer), #"{"challenge":"YW55IGNhcm5hbCBwbGVhcw=="}"#)
    }

    func testAppendSecretString_raw_escapesTheSecretBytes() throws {
        let secret = try Array("12\"3\n".utf8).withUnsafeBytes { try SecretBytes(copying: $0) }
        let buffer = ReplyBuffer()
        JSONWriter.appendSecretString(secret, encoding: .raw, to: buffer)
        XCTAssertEqual(text(of: buffer), #""12\"3\n""#)
    }

    func testReplyBuffer_growsPastItsInitialCapacity_keepingEveryByte() {
        let buffer = ReplyBuffer(capacity: 16)
        for index in 0..<10_000 { buffer.append(UInt8(truncatingIfNeeded: index)) }
        XCTAssertEqual(buffer.count, 10_000)
        XCTAssertGreaterThanOrEqual(buffer.capacity, 10_000)
        XCTAssertEqual(buffer.copyBytes(), (0..<10_000).map { UInt8(truncatingIfNeeded: $0) })
    }

    func testReplyBuffer_consume_dropsSentBytesAndKeepsTheRest() {
        let buffer = ReplyBuffer()
        buffer.append(utf8: "abcdef")
        buffer.consume(4)
        XCTAssertEqual(text(of: buffer), "ef")
        buffer.consume(99)
        XCTAssertEqual(buffer.count, 0)
    }

    func testReplyBuffer_zero_emptiesIt() {
        let buffer = ReplyBuffer()
        buffer.append(utf8: "secret-ish")
        buffer.zero()
        XCTAssertEqual(buffer.count, 0)
        XCTAssertEqual(buffer.copyBytes(), [])
    }
}
