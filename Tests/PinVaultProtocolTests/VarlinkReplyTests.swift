import PinVaultCrypto
@testable import PinVaultProtocol
import XCTest

final class VarlinkReplyTests: XCTestCase {
    func testAppendSuccess_writesParametersAndANul() {
        let buffer = ReplyBuffer()
        VarlinkReply.appendSuccess(to: buffer) { $0.field("deletedCount", 3) }
        XCTAssertEqual(text(of: buffer), "{\"parameters\":{\"deletedCount\":3}}\0")
    }

    func testAppendSuccess_withoutParameters_writesAnEmptyObject() {
        let buffer = ReplyBuffer()
        VarlinkReply.appendSuccess(to: buffer)
        XCTAssertEqual(text(of: buffer), "{\"parameters\":{}}\0")
    }

    func testStandardErrors_haveTheirSpecNamesAndParameters() {
        let cases: [(VarlinkServiceError, String)] = [
            (.interfaceNotFound(interface: "x.y"), #"{"error":"org.varlink.service.InterfaceNotFound","parameters":{"interface":"x.y"}}"#),
            (.methodNotFound(method: "Nope"), #"{"error":"org.varlink.service.MethodNotFound","parameters":{"method":"Nope"}}"#),
            (.methodNotImplemented(method: "M"), #"{"error":"org.varlink.service.MethodNotImplemented","parameters":{"method":"M"}}"#),
            (.invalidParameter(parameter: "user"), #"{"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"user"}}"#),
            (.permissionDenied, #"{"error":"org.varlink.service.PermissionDenied","parameters":{}}"#),
            (.expectedMore, #"{"error":"org.varlink.service.ExpectedMore","parameters":{}}"#),
        ]
        for (error, expected) in cases {
            let buffer = ReplyBuffer()
            VarlinkReply.appendError(error, to: buffer)
            XCTAssertEqual(text(of: buffer), expected + "\0")
        }
    }

    func testReplies_neverSetContinues() {
        let buffer = ReplyBuffer()
        VarlinkReply.appendSuccess(to: buffer)
        VarlinkReply.appendError(.permissionDenied, to: buffer)
        XCTAssertFalse(text(of: buffer).contains("continues"))
    }

    func testReplyMessage_parsesWhatTheEncoderWrote() throws {
        let buffer = ReplyBuffer()
        VarlinkReply.appendError(.invalidParameter(parameter: "challenge"), to: buffer)
        var bytes = buffer.copyBytes()
        bytes.removeLast()
        try bytes.withUnsafeBytes { raw in
            let reply = try VarlinkReplyMessage.parse(raw)
            XCTAssertEqual(reply.error, "org.varlink.service.InvalidParameter")
            XCTAssertFalse(reply.continues)
            XCTAssertEqual(VarlinkServiceError(name: reply.error ?? "", parameters: reply.parameters), .invalidParameter(parameter: "challenge"))
        }
    }

    func testReplyMessage_ofANonObject_isMalformed() {
        for text in ["[]", "{\"error\":5}", "{\"parameters\":[]}", "{\"continues\":\"yes\"}", "{"] {
            let failed = Array(text.utf8).withUnsafeBytes { raw in
                (try? VarlinkReplyMessage.parse(raw)) == nil
            }
            XCTAssertTrue(failed, text)
        }
    }

    func testVaultErrorName_ofAnotherInterface_isNil() {
        XCTAssertNil(VaultErrorName(qualifiedName: "org.varlink.service.PermissionDenied"))
        XCTAssertNil(VaultErrorName(qualifiedName: "io.pinvault.Vault.Nope"))
        XCTAssertEqual(VaultErrorName(qualifiedName: "io.pinvault.Vault.WrongPin"), .wrongPin)
    }

    func testGetInfo_reply_namesPinVaultAndBothInterfaces() throws {
        let info = VarlinkServiceInfo.pinVault(version: "1.2.3", url: "https://example.org/pinvault")
        let buffer = ReplyBuffer()
        VarlinkReply.appendSuccess(to: buffer) { info.writeParameters(&$0) }
        XCTAssertEqual(
            text(of: buffer),
            #"{"parameters":{"vendor":"PinVault","product":"pinvaultd","version":"1.2.3","url":"https://example.org/pinvault","interfaces":["org.varlink.service","io.pinvault.Vault"]}}"# + "\0"
        )
        var bytes = buffer.copyBytes()
        bytes.removeLast()
        try bytes.withUnsafeBytes { raw in
            XCTAssertEqual(try VarlinkServiceInfo(from: VarlinkReplyMessage.parse(raw).parameters), info)
        }
    }
}
