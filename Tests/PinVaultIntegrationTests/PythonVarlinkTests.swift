import Foundation
import PinVaultTestKit
import XCTest

/// The README's promise: the Python `varlink` package (PyPI) opens io.pinvault.Vault — it parses
/// the served interface description — and calls the methods.
final class PythonVarlinkTests: DaemonTestCase {
    private static let script = #"""
    import base64, json, sys, varlink
    path, pin = sys.argv[1], sys.argv[2]
    def show(name, value):
        print(json.dumps({"step": name, "result": value}), flush=True)
    with varlink.Client(address="unix:" + path) as client, client.open("io.pinvault.Vault") as vault:
        with client.open("org.varlink.service") as service:
            show("GetInfo", service.GetInfo())
        show("GetPolicy", vault.GetPolicy())
        show("Register", vault.Register("python", pin, "from python"))
        show("Authenticate", vault.Authenticate(user="python", pin=pin, challenge=base64.b64encode(b"hello python").decode()))
        show("List", vault.List(user="python"))
        try:
            vault.Authenticate(user="python", pin="999999", challenge="AA==")
            show("WrongPin", None)
        except varlink.VarlinkError as error:
            show("WrongPin", {"error": error.error(), "parameters": error.parameters()})
    """#

    func testThePythonVarlinkClient_registersAuthenticatesAndLists() throws {
        try startDaemon()
        let python = try PythonVarlink.interpreter()
        let result = try Subprocess.run(python, ["-c", Self.script, daemon.socketPath, pin])
        XCTAssertEqual(result.status, 0, result.description)

        var steps: [String: Any] = [:]
        for line in result.standardOutput.split(separator: "\n") {
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            steps[try XCTUnwrap(object["step"] as? String)] = object["result"]
        }
        // GetInfo names no invented home page: url is declared `string`, so it is there, empty.
        let info = try XCTUnwrap(steps["GetInfo"] as? [String: Any], result.description)
        XCTAssertEqual(info["vendor"] as? String, "PinVault")
        XCTAssertEqual(info["url"] as? String, "", "GetInfo's url")
        XCTAssertEqual(info["interfaces"] as? [String], ["org.varlink.service", "io.pinvault.Vault"])
        let policy = try XCTUnwrap((steps["GetPolicy"] as? [String: Any])?["policy"] as? [String: Any], result.description)
        XCTAssertEqual(policy["minLength"] as? Int, 6)
        let credential = try XCTUnwrap((steps["Register"] as? [String: Any])?["credential"] as? [String: Any], result.description)
        XCTAssertEqual(credential["label"] as? String, "from python")
        let auth = try XCTUnwrap(steps["Authenticate"] as? [String: Any], result.description)
        XCTAssertEqual(auth["keyId"] as? String, credential["keyId"] as? String)
        let signature = try XCTUnwrap(Data(base64Encoded: auth["signature"] as? String ?? ""))
        let publicKey = try XCTUnwrap(Data(base64Encoded: credential["publicKey"] as? String ?? ""))
        XCTAssertTrue(try IndependentEd25519.verify(publicKey: publicKey, signature: signature, message: Data("hello python".utf8)))
        let listed = try XCTUnwrap((steps["List"] as? [String: Any])?["credentials"] as? [[String: Any]], result.description)
        XCTAssertEqual(listed.map { $0["keyId"] as? String }, [credential["keyId"] as? String])
        let wrong = try XCTUnwrap(steps["WrongPin"] as? [String: Any], result.description)
        XCTAssertEqual(wrong["error"] as? String, "io.pinvault.Vault.WrongPin")
        XCTAssertEqual((wrong["parameters"] as? [String: Any])?["remainingAttempts"] as? Int, 4)

        // What the Python client did, the Swift one sees.
        XCTAssertEqual(try client.list(user: "python").first?.int("failedAttempts"), 1)
    }
}
