@testable import PinVaultProtocol
import XCTest

/// The call's top-level fields are found in one pass and its method name is read in the
/// frame: escaped keys and names must still mean what they decode to.
final class VarlinkCallInPlaceTests: XCTestCase {
    private func withCall<R>(_ text: String, _ body: (VarlinkCall) throws -> R) throws -> R {
        try Array(text.utf8).withUnsafeBytes { raw in
            let call: VarlinkCall
            do throws(VarlinkCallError) {
                call = try VarlinkCall.parse(raw)
            } catch {
                XCTFail("\(text) did not parse: \(error)")
                throw error
            }
            return try body(call)
        }
    }

    func testIsInterface_comparesTheInterfaceHalfOnly() throws {
        try withCall(#"{"method":"io.pinvault.Vault.GetPolicy"}"#) { call in
            XCTAssertTrue(call.isInterface("io.pinvault.Vault"))
            XCTAssertFalse(call.isInterface("io.pinvault.Vaul"))
            XCTAssertFalse(call.isInterface("io.pinvault.Vault.GetPolicy"))
            XCTAssertFalse(call.isInterface("org.varlink.service"))
            XCTAssertFalse(call.isInterface(""))
            XCTAssertEqual(call.interface, "io.pinvault.Vault")
            XCTAssertEqual(call.methodName, "GetPolicy")
            XCTAssertEqual(call.method, "io.pinvault.Vault.GetPolicy")
        }
    }

    func testMethodNameWrittenWithEscapes_isDecodedBeforeItIsSplit() throws {
        try withCall(#"{"method":"io.pinvault\u002eVault.Get\u0050olicy"}"#) { call in
            XCTAssertTrue(call.isInterface("io.pinvault.Vault"))
            XCTAssertEqual(call.interface, "io.pinvault.Vault")
            XCTAssertEqual(call.methodName, "GetPolicy")
            XCTAssertEqual(call.method, "io.pinvault.Vault.GetPolicy")
        }
    }

    func testTopLevelKeysWrittenWithEscapes_areRecognised() throws {
        let text = #"{"\u006dethod":"a.b.C","one\u0077ay":true,"mor\u0065":true,"\u0075pgrade":true,"p\u0061rameters":{"x":1}}"#
        try withCall(text) { call in
            XCTAssertEqual(call.method, "a.b.C")
            XCTAssertTrue(call.oneway)
            XCTAssertTrue(call.more)
            XCTAssertTrue(call.upgrade)
            XCTAssertEqual(call.parameters.names, ["x"])
        }
    }

    func testTopLevelFields_inAnyOrder_withUnknownOnesBetween() throws {
        let text = #"{"parameters":{"pin":"1"},"x":{"method":"no.no.No"},"oneway":false,"methods":1,"method":"a.b.C","more":true}"#
        try withCall(text) { call in
            XCTAssertEqual(call.method, "a.b.C")
            XCTAssertFalse(call.oneway)
            XCTAssertTrue(call.more)
            XCTAssertFalse(call.upgrade)
            XCTAssertEqual(call.parameters.names, ["pin"])
        }
    }

    func testKeysThatOnlyStartLikeAField_areNotThatField() {
        for text in [#"{"metho":"a.b.C"}"#, #"{"methodx":"a.b.C"}"#, #"{"Method":"a.b.C"}"#] {
            let result = Array(text.utf8).withUnsafeBytes { raw -> VarlinkCallError? in
                do throws(VarlinkCallError) {
                    _ = try VarlinkCall.parse(raw)
                    return nil
                } catch {
                    return error
                }
            }
            XCTAssertEqual(result, .protocolViolation, text)
        }
    }

    func testStringEquals_staticString_matchesTheStringOverload() throws {
        try withDocument(#"["method","metho","methods","m\u0065thod","",""]"#) { document in
            let names: [StaticString] = ["method", "metho", ""]
            for element in document.elements(of: document.root) {
                for name in names {
                    XCTAssertEqual(
                        document.stringEquals(element, name),
                        document.stringEquals(element, name.description),
                        "node \(element) vs \(name)"
                    )
                }
            }
            XCTAssertTrue(document.stringEquals(4, "method" as StaticString))
            XCTAssertFalse(document.stringEquals(0, "methoD" as StaticString))
        }
    }

    func testHasSameBytes_comparesLengthAndEveryByte() {
        let cases: [([UInt8], [UInt8], Bool)] = [
            ([], [], true), ([1], [1], true), ([1, 2, 3], [1, 2, 3], true),
            ([1, 2, 3], [1, 2], false), ([], [0], false), ([1, 2, 3], [1, 2, 4], false), ([0, 2], [1, 2], false),
        ]
        for (a, b, same) in cases {
            let result = a.withUnsafeBytes { x in b.withUnsafeBytes { y in x.hasSameBytes(as: y) } }
            XCTAssertEqual(result, same, "\(a) vs \(b)")
        }
    }
}
