import Foundation
import PinVaultTestKit
import XCTest

/// The security key end to end, as a browser and a website use it: Yubico's python-fido2
/// (its Fido2Client, the PIN typed through its UserInteraction) over a CtapHidDevice on the
/// daemon's CTAPHID socket, and its Fido2Server as the relying party
/// (Tests/Python/fido2_client.py). setPIN; an ES256-only registration verified by the server; a
/// discoverable sign-in verified; another rp id refused (NO_CREDENTIALS); a wrong PIN
/// answered PIN_INVALID and counted — in getPINRetries and, read here afterwards, in the
/// daemon's List as the security key's failedAttempts, to the same uid.
final class PasskeyEndToEndTests: DaemonTestCase {
    func testFido2ClientRegistersAndSignsIn_overTheSocket_andAWrongPinIsCountedInList() throws {
        try startDaemon()
        let python = try PythonVarlink.interpreter()
        let script = TestDaemon.repositoryRoot + "/Tests/Python/fido2_client.py"
        let result = try Subprocess.run(python, [script, daemon.ctaphidSocketPath])
        XCTAssertEqual(result.status, 0, "python-fido2 (run `make venv`): \(result.description)")
        XCTAssertTrue(result.standardError.hasSuffix("ok\n"), result.description)

        let securityKeys = try client.list().filter { $0["purpose"] as? String == "webauthn" }
        XCTAssertEqual(securityKeys.count, 1, "\(securityKeys)")
        XCTAssertEqual(securityKeys.first?["ownerUid"] as? Int, Int(getuid()))
        XCTAssertEqual(securityKeys.first?["failedAttempts"] as? Int, 1, "\(securityKeys)")
        // getPINRetries' figure, as python-fido2 read it after the wrong PIN.
        let retries = Int(result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
        XCTAssertNotNil(retries, result.description)
        XCTAssertEqual(securityKeys.first?["remainingAttempts"] as? Int, retries, "\(securityKeys)")
    }
}
