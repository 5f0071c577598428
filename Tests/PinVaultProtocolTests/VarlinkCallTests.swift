import PinVaultCrypto
@testable import PinVaultProtocol
import XCTest

final class VarlinkCallTests: XCTestCase {
    private func parse(_ text: String) -> Result<(String, String, String, Bool, Bool, Bool, [String]), VarlinkCallError> {
        Array(text.utf8).withUnsafeBytes { raw in
            do throws(VarlinkCallError) {
                let call = try VarlinkCall.parse(raw)
                return .success((call.method, call.interface, call.methodName, call.oneway, call.more, call.upgrade,
                                 call.parameters.names))
            } catch {
                return .failure(error)
            }
        }
    }

    private func error(_ text: String) -> VarlinkCallError? {
        if case .failure(let error) = parse(text) { return error }
        return nil
    }

    func testParse_ofAFullCall_readsEveryField() throws {
        let call = try parse(#"{"method":"io.pinvault.Vault.Register","parameters":{"user":"a","pin":"1"},"oneway":true,"more":false}"#).get()
        XCTAssertEqual(call.0, "io.pinvault.Vault.Register")
        XCTAssertEqual(call.1, "io.pinvault.Vault")
        XCTAssertEqual(call.2, "Register")
        XCTAssertTrue(call.3)
        XCTAssertFalse(call.4)
        XCTAssertFalse(call.5)
        XCTAssertEqual(call.6, ["user", "pin"])
    }

    func testParse_withoutParameters_orWithNull_hasNone() throws {
        XCTAssertEqual(try parse(#"{"method":"org.varlink.service.GetInfo"}"#).get().6, [])
        XCTAssertEqual(try parse(#"{"method":"org.varlink.service.GetInfo","parameters":null}"#).get().6, [])
        XCTAssertFalse(try parse(#"{"method":"a.b.C","oneway":null}"#).get().3)
    }

    func testParse_ofAFrameThatIsNotAVarlinkCall_isAProtocolViolation() {
        let frames = [
            "", "[]", "\"method\"", "42", "null", "{", "{}", #"{"parameters":{}}"#, #"{"method":1}"#,
            #"{"method":null}"#, #"{"method":["a.b.C"]}"#, #"{"method":"a.b.C","method":"a.b.D"}"#,
            "{\"method\":\"a.b.C\"}\0",
        ]
        for frame in frames {
            XCTAssertEqual(error(frame), .protocolViolation, "for \(frame)")
        }
    }

    func testParse_withAMalformedMethodName_namesTheMethodField() {
        let names = [
            "", "Register", ".Register", "io.pinvault.Vault.", "io.pinvault.Vault.register", "io.pinvault.Vault.Re-gister",
            "io..Vault.Register", "1io.pinvault.Register", "io.-pinvault.Register", "io.pinvault-.Register",
            "io.pinvault.Vault.Régister", "io.pinvault.Vault.Register\\u0000", "io.pin vault.Register",
            "a." + String(repeating: "b", count: 300) + ".C",
        ]
        for name in names {  // as JSON string contents
            let frame = #"{"method":""# + name + #""}"#
            XCTAssertEqual(error(frame), .invalidField("method", oneway: false), "for \(name)")
        }
    }

    func testParse_acceptsNamesTheGrammarAllows() throws {
        for name in ["io.pinvault.Vault.Register", "org.varlink.service.GetInfo", "a.b.C", "com.example-x.v2.M9", "A.b.C"] {
            XCTAssertNoThrow(try parse(#"{"method":""# + name + #""}"#).get(), name)
        }
    }

    func testParse_withWrongFieldTypes_namesTheField() {
        XCTAssertEqual(error(#"{"method":"a.b.C","parameters":[]}"#), .invalidField("parameters", oneway: false))
        XCTAssertEqual(error(#"{"method":"a.b.C","parameters":"x"}"#), .invalidField("parameters", oneway: false))
        XCTAssertEqual(error(#"{"method":"a.b.C","oneway":"true"}"#), .invalidField("oneway", oneway: false))
        XCTAssertEqual(error(#"{"method":"a.b.C","more":1}"#), .invalidField("more", oneway: false))
        XCTAssertEqual(error(#"{"method":"a.b.C","upgrade":{}}"#), .invalidField("upgrade", oneway: false))
        // A oneway call is still oneway when another field is bad: it gets no reply.
        XCTAssertEqual(error(#"{"method":"x","oneway":true}"#), .invalidField("method", oneway: true))
        XCTAssertEqual(error(#"{"method":"a.b.C","oneway":true,"parameters":[]}"#), .invalidField("parameters", oneway: true))
    }

    func testParse_ignoresUnknownTopLevelFields() throws {
        XCTAssertEqual(try parse(#"{"method":"a.b.C","future":{"x":1}}"#).get().0, "a.b.C")
    }

    func testAppendCall_writesAMessageTheParserAccepts() throws {
        let buffer = ReplyBuffer()
        VarlinkCall.append(method: "io.pinvault.Vault.CheckPin", oneway: true, to: buffer) { $0.field("pin", "1234") }
        var bytes = buffer.copyBytes()
        XCTAssertEqual(bytes.last, 0)
        bytes.removeLast()
        XCTAssertEqual(String(decoding: bytes, as: UTF8.self), #"{"method":"io.pinvault.Vault.CheckPin","parameters":{"pin":"1234"},"oneway":true}"#)
        let call = try parse(String(decoding: bytes, as: UTF8.self)).get()
        XCTAssertEqual(call.2, "CheckPin")
        XCTAssertTrue(call.3)
    }
}
