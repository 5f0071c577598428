import PinVaultCrypto
@testable import PinVaultProtocol
import XCTest

/// Keys are `StaticString` literals written in one append without an escape scan: the
/// bytes must be exactly those of the escaping writer's `"key":`, commas included.
final class JSONKeyWriterTests: XCTestCase {
    func testFieldKeys_writeTheSameBytesAsTheEscapingStringWriter() {
        let buffer = ReplyBuffer(capacity: 16)
        JSONWriter.writeObject(into: buffer) { object in
            object.field("minLength", Int64(4))
            object.field("digitsOnly", true)
            object.field("onMaxAttempts", "block")
            object.nullField("x")
            object.optionalField("absent", nil as String?)
            object.field("violations", strings: ["tooShort"])
            object.objectField("policy") { $0.field("maxAttempts", 10) }
            object.arrayField("empty") { _ in }
        }

        let expected = ReplyBuffer(capacity: 16)
        expected.append(UInt8(ascii: "{"))
        let members: [(String, String)] = [
            ("minLength", "4"), ("digitsOnly", "true"), ("onMaxAttempts", #""block""#), ("x", "null"),
            ("violations", #"["tooShort"]"#), ("policy", #"{"maxAttempts":10}"#), ("empty", "[]"),
        ]
        for (index, (key, value)) in members.enumerated() {
            if index > 0 { expected.append(UInt8(ascii: ",")) }
            JSONWriter.appendString(key, to: expected)
            expected.append(utf8: ":" + value)
        }
        expected.append(UInt8(ascii: "}"))

        XCTAssertEqual(buffer.copyBytes(), expected.copyBytes())
        XCTAssertEqual(
            String(decoding: buffer.copyBytes(), as: UTF8.self),
            #"{"minLength":4,"digitsOnly":true,"onMaxAttempts":"block","x":null,"violations":["tooShort"],"policy":{"maxAttempts":10},"empty":[]}"#
        )
    }

    func testAppendKey_oneCharacterLiteral_isWrittenLikeALongerOne() {
        // A one-scalar literal may be stored as a scalar rather than as UTF-8 bytes.
        let buffer = ReplyBuffer(capacity: 16)
        JSONWriter.appendKey("é", separated: false, to: buffer)
        JSONWriter.appendKey("a", separated: true, to: buffer)
        XCTAssertEqual(String(decoding: buffer.copyBytes(), as: UTF8.self), #""é":,"a":"#)
    }

    func testAppendKey_thatOverflowsTheCapacity_growsAndKeepsEarlierBytes() {
        let buffer = ReplyBuffer(capacity: 16)
        buffer.append(utf8: "0123456789abcd")
        JSONWriter.appendKey("aRatherLongMemberNameThatDoesNotFit", separated: true, to: buffer)
        XCTAssertEqual(
            String(decoding: buffer.copyBytes(), as: UTF8.self),
            #"0123456789abcd,"aRatherLongMemberNameThatDoesNotFit":"#
        )
        XCTAssertEqual(buffer.capacity, 64)
    }
}
