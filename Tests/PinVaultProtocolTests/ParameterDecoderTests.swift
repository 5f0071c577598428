import PinVaultCrypto
@testable import PinVaultProtocol
import XCTest

final class ParameterDecoderTests: XCTestCase {
    private func failure<T>(_ body: () throws -> T) -> ParameterError? {
        do {
            _ = try body()
            return nil
        } catch {
            return error as? ParameterError
        }
    }

    func testString_readsAndUnescapesTheValue() throws {
        try withParameters(#"{"user":"al\u0069ce@example.org"}"#) { parameters in
            XCTAssertEqual(try parameters.string("user", required: true, bytes: ProtocolLimits.userBytes), "alice@example.org")
        }
    }

    func testString_errorsNameTheParameterAndTheReason() throws {
        try withParameters(#"{"user":"","label":7,"long":"abcdef"}"#) { parameters in
            XCTAssertEqual(failure { try parameters.string("user", required: true, bytes: 1...256) }, ParameterError("user", .outOfRange))
            XCTAssertEqual(failure { try parameters.string("label", required: false, bytes: 1...256) }, ParameterError("label", .wrongType))
            XCTAssertEqual(failure { try parameters.string("long", required: true, bytes: 1...5) }, ParameterError("long", .outOfRange))
            XCTAssertEqual(failure { try parameters.string("missing", required: true, bytes: 1...5) }, ParameterError("missing", .missing))
        }
    }

    func testString_lengthIsCountedInDecodedUTF8Bytes() throws {
        // Six escaped characters decode to 3 bytes: within 1...3.
        try withParameters(#"{"user":"\u0061\u0062\u0063","wide":"éé"}"#) { parameters in
            XCTAssertEqual(try parameters.string("user", required: true, bytes: 1...3), "abc")
            XCTAssertEqual(failure { try parameters.string("wide", required: true, bytes: 1...3) }, ParameterError("wide", .outOfRange))
        }
    }

    func testNull_meansAbsent_forOptionalAndRequired() throws {
        try withParameters(#"{"label":null,"keyId":null}"#) { parameters in
            XCTAssertNil(try parameters.string("label", required: false, bytes: 1...256))
            XCTAssertNil(try parameters.keyID(required: false))
            XCTAssertEqual(failure { try parameters.string("label", required: true, bytes: 1...256) }, ParameterError("label", .missing))
            XCTAssertFalse(parameters.contains("label"))
        }
    }

    func testSecret_unescapesStraightIntoSecretBytes() throws {
        try withParameters(#"{"pin":"\u0031\u00322\ud83d\ude00"}"#) { parameters in
            let pin = try XCTUnwrap(try parameters.secret("pin", required: true, bytes: ProtocolLimits.pinBytes))
            XCTAssertEqual(contents(of: pin), Array("122\u{1F600}".utf8))
            XCTAssertEqual(pin.capacity, pin.count)
        }
    }

    func testSecret_acceptsTheEmptyPin_soThePolicyCanNameIt() throws {
        try withParameters(#"{"pin":""}"#) { parameters in
            let pin = try XCTUnwrap(try parameters.secret("pin", required: true, bytes: ProtocolLimits.pinBytes))
            XCTAssertEqual(pin.count, 0)
        }
    }

    func testSecret_errorsNameTheParameter() throws {
        let tooLong = String(repeating: "1", count: ProtocolLimits.pinBytes.upperBound + 1)
        try withParameters(#"{"currentPin":1234,"newPin":""# + tooLong + #""}"#) { parameters in
            XCTAssertEqual(failure { try parameters.secret("currentPin", required: true, bytes: ProtocolLimits.pinBytes) }, ParameterError("currentPin", .wrongType))
            XCTAssertEqual(failure { try parameters.secret("newPin", required: true, bytes: ProtocolLimits.pinBytes) }, ParameterError("newPin", .outOfRange))
            XCTAssertEqual(failure { try parameters.secret("pin", required: true, bytes: ProtocolLimits.pinBytes) }, ParameterError("pin", .missing))
        }
    }

    func testInt_acceptsOnlyIntegersInRange() throws {
        try withParameters(#"{"a":1000,"b":1.0,"c":1e3,"d":-1,"e":"5","f":99999999999999999999999}"#) { parameters in
            XCTAssertEqual(try parameters.int("a", required: true, range: ProtocolLimits.uidRange), 1000)
            XCTAssertEqual(failure { try parameters.int("b", required: true, range: ProtocolLimits.uidRange) }, ParameterError("b", .wrongType))
            XCTAssertEqual(failure { try parameters.int("c", required: true, range: ProtocolLimits.uidRange) }, ParameterError("c", .wrongType))
            XCTAssertEqual(failure { try parameters.int("d", required: true, range: ProtocolLimits.uidRange) }, ParameterError("d", .outOfRange))
            XCTAssertEqual(failure { try parameters.int("e", required: true, range: ProtocolLimits.uidRange) }, ParameterError("e", .wrongType))
            XCTAssertEqual(failure { try parameters.int("f", required: true, range: ProtocolLimits.uidRange) }, ParameterError("f", .outOfRange))
        }
    }

    func testBool_rejectsOtherTypes() throws {
        try withParameters(#"{"yes":true,"no":"false"}"#) { parameters in
            XCTAssertEqual(try parameters.bool("yes", required: true), true)
            XCTAssertEqual(failure { try parameters.bool("no", required: true) }, ParameterError("no", .wrongType))
        }
    }

    func testKeyID_acceptsOnly32LowercaseHexDigits() throws {
        let good = "00112233445566778899aabbccddeeff"
        try withParameters(#"{"keyId":""# + good + #"","upper":"00112233445566778899AABBCCDDEEFF","short":"0011"}"#) { parameters in
            XCTAssertEqual(try parameters.keyID(required: true)?.hex, good)
            XCTAssertEqual(failure { try parameters.keyID("upper", required: true) }, ParameterError("upper", .malformed))
            XCTAssertEqual(failure { try parameters.keyID("short", required: true) }, ParameterError("short", .outOfRange))
        }
    }

    func testBase64_decodesAndChecksDecodedLength() throws {
        try withParameters(#"{"challenge":"aGVsbG8=","empty":"","bad":"aGVsbG8","slash":"aGVsbG8\/"}"#) { parameters in
            XCTAssertEqual(try parameters.base64("challenge", required: true, decodedBytes: ProtocolLimits.challengeBytes), Array("hello".utf8))
            XCTAssertEqual(failure { try parameters.base64("empty", required: true, decodedBytes: ProtocolLimits.challengeBytes) }, ParameterError("empty", .outOfRange))
            XCTAssertEqual(failure { try parameters.base64("bad", required: true, decodedBytes: ProtocolLimits.challengeBytes) }, ParameterError("bad", .malformed))
            // JSON escapes are undone before base64 decoding: "\/" is "/".
            XCTAssertEqual(try parameters.base64("slash", required: true, decodedBytes: ProtocolLimits.challengeBytes), Array("hello?".utf8))
        }
    }

    func testBase64_ofAChallengeOverTheLimit_isOutOfRangeBeforeDecoding() throws {
        let encoded = Base64.encodedString([UInt8](repeating: 7, count: 1025))
        let exact = Base64.encodedString([UInt8](repeating: 7, count: 1024))
        try withParameters(#"{"challenge":""# + encoded + #"","exact":""# + exact + #""}"#) { parameters in
            XCTAssertEqual(failure { try parameters.base64("challenge", required: true, decodedBytes: ProtocolLimits.challengeBytes) }, ParameterError("challenge", .outOfRange))
            XCTAssertEqual(try parameters.base64("exact", required: true, decodedBytes: ProtocolLimits.challengeBytes)?.count, 1024)
        }
    }

    func testSecretBase64_decodesTheTokenIntoSecretBytes() throws {
        let token = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"
        let tokenBytes = ProtocolLimits.tokenBytes...ProtocolLimits.tokenBytes
        try withParameters(#"{"token":""# + token + #"","short":"AAEC","padded":""# + token + #"="}"#) { parameters in
            let secret = try XCTUnwrap(try parameters.secretBase64("token", required: true, alphabet: .url, decodedBytes: tokenBytes))
            XCTAssertEqual(contents(of: secret), Array(0..<32))
            XCTAssertEqual(failure { try parameters.secretBase64("short", required: true, alphabet: .url, decodedBytes: tokenBytes) }, ParameterError("short", .outOfRange))
            XCTAssertEqual(failure { try parameters.secretBase64("padded", required: true, alphabet: .url, decodedBytes: tokenBytes) }, ParameterError("padded", .malformed))
        }
    }

    func testRejectUnknown_namesTheFirstUnknownParameter() throws {
        try withParameters(#"{"user":"a","pin":"1","colour":"red"}"#) { parameters in
            XCTAssertEqual(failure { try parameters.rejectUnknown(allowed: VaultMethod.register.parameterNames) }, ParameterError("colour", .unknown))
            XCTAssertNil(failure { try parameters.rejectUnknown(allowed: ["user", "pin", "colour"]) })
        }
    }

    func testEmptyParameters_haveNoMembers() throws {
        try withDocument("{}") { document in
            let parameters = ParameterDecoder(document: document, object: nil)
            XCTAssertNil(failure { try parameters.rejectUnknown(allowed: []) })
            XCTAssertEqual(failure { try parameters.string("user", required: true, bytes: 1...256) }, ParameterError("user", .missing))
        }
    }

    func testArrays_decodeStringsAndObjects_andBoundTheirCount() throws {
        try withParameters(#"{"ids":["a","b"],"objs":[{"x":1},{"x":2}],"mixed":["a",1],"many":[1,2,3]}"#) { parameters in
            XCTAssertEqual(try parameters.strings("ids", required: true, bytes: 1...8), ["a", "b"])
            let objects = try XCTUnwrap(try parameters.objects("objs", required: true))
            XCTAssertEqual(try objects.map { try $0.int("x", required: true, range: 0...9) }, [1, 2])
            XCTAssertEqual(failure { try parameters.strings("mixed", required: true, bytes: 1...8) }, ParameterError("mixed", .wrongType))
            XCTAssertEqual(failure { try parameters.objects("many", required: true, maxCount: 2) }, ParameterError("many", .outOfRange))
        }
    }
}
