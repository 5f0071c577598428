import Foundation
import Glibc
import PinVaultDoor
import PinVaultEmbedded
import PinVaultTransport
import XCTest

/// User names and labels (the interface's `Credential.user`): no control,
/// bidi or separator character gets in, through pinvaultd's own request path; the
/// joiners that emoji and Persian or Indic words need still do.
final class AccountNameTests: XCTestCase {
    private var directory = ""
    private var vault: InProcessVault!
    private let peer = Peer(pid: 4242, uid: 1000, gid: 1000, groups: [1000], isAdmin: false)

    /// One scalar of each class the rule refuses, named for the failure message.
    private let refused: [(String, Unicode.Scalar)] = [
        ("C0 ESC", "\u{1B}"), ("DEL", "\u{7F}"),
        ("C1 NEL", "\u{85}"), ("C1 CSI", "\u{9B}"), ("C1 first", "\u{80}"), ("C1 last", "\u{9F}"),
        ("LRE", "\u{202A}"), ("RLO", "\u{202E}"),
        ("LRI", "\u{2066}"), ("PDI", "\u{2069}"),
        ("LRM", "\u{200E}"), ("RLM", "\u{200F}"), ("ALM", "\u{061C}"),
        ("LINE SEPARATOR", "\u{2028}"), ("PARAGRAPH SEPARATOR", "\u{2029}"),
        ("BOM", "\u{FEFF}"),
    ]

    override func setUpWithError() throws {
        var template = Array("/tmp/pinvault-names-test-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw POSIXError(.EIO) }
        directory = String(cString: made)
        vault = try InProcessVault(stateDirectory: directory)
    }

    override func tearDownWithError() throws {
        vault = nil
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The reply's `error` and `parameters`, as JSON objects.
    private func call(_ method: String, _ parameters: [String: Any]) throws -> (error: String?, parameters: [String: Any]) {
        let frame = try JSONSerialization.data(withJSONObject: ["method": "io.pinvault.Vault." + method, "parameters": parameters])
        let (outcome, bytes) = Array(frame).withUnsafeBytes {
            vault.exchange(frame: $0, peer: peer) { outcome, reply in (outcome, Array(reply)) }
        }
        guard outcome == .replied else {
            XCTFail("\(method) got no reply: \(outcome)")
            return (nil, [:])
        }
        let reply = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        return (reply["error"] as? String, reply["parameters"] as? [String: Any] ?? [:])
    }

    private func assertRefused(
        _ method: String, _ parameters: [String: Any], naming parameter: String, _ message: String,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let reply = try call(method, parameters)
        XCTAssertEqual(reply.error, "org.varlink.service.InvalidParameter", message, file: file, line: line)
        XCTAssertEqual(reply.parameters["parameter"] as? String, parameter, message, file: file, line: line)
    }

    func testRegister_withAControlOrBidiCharacterInTheUser_answersInvalidParameterUser() throws {
        for (name, scalar) in refused {
            try assertRefused("Register", ["user": "alice\(scalar)nimda", "pin": "258046"], naming: "user", name)
            try assertRefused("Register", ["user": "\(scalar)", "pin": "258046"], naming: "user", name + " alone")
        }
        XCTAssertEqual((try call("List", [:]).parameters["credentials"] as? [Any])?.count, 0, "nothing was registered")
    }

    func testRegister_withAControlOrBidiCharacterInTheLabel_answersInvalidParameterLabel() throws {
        for (name, scalar) in refused {
            try assertRefused("Register", ["user": "alice", "pin": "258046", "label": "bank\(scalar)"], naming: "label", name)
        }
    }

    func testEveryMethodTakingAUser_refusesABidiOverrideInIt() throws {
        let user = "alice\u{202E}nimda"
        try assertRefused("List", ["user": user], naming: "user", "List")
        try assertRefused("Authenticate", ["user": user, "pin": "258046", "challenge": "YWJj"], naming: "user", "Authenticate")
        try assertRefused("ChangePin", ["user": user, "currentPin": "258046", "newPin": "370591"], naming: "user", "ChangePin")
        try assertRefused("BeginUnregister", ["user": user, "pin": "258046"], naming: "user", "BeginUnregister")
        try assertRefused("Wipe", ["user": user, "pin": "258046"], naming: "user", "Wipe")
    }

    func testRegister_withJoinersAndRightToLeftScripts_succeeds() throws {
        let names = [
            "👩\u{200D}💻 dev",  // ZWJ emoji sequence
            "می\u{200C}خواهم",  // Persian, ZWNJ
            "क्\u{200D}ष",  // Devanagari, ZWJ
            "שלום",  // Hebrew
            "مرحبا@example.com",  // Arabic
            "zoë.ünïcode",
        ]
        for name in names {
            let reply = try call("Register", ["user": name, "pin": "258046", "label": name])
            XCTAssertNil(reply.error, name)
            let credential = reply.parameters["credential"] as? [String: Any]
            XCTAssertEqual(credential?["user"] as? String, name)
            XCTAssertEqual(credential?["label"] as? String, name)
        }
        XCTAssertEqual((try call("List", [:]).parameters["credentials"] as? [Any])?.count, names.count)
    }
}
