import Foundation
import PinVaultTestKit
import XCTest

/// The PIN reaches neither syslog (even with `debug`), nor the daemon's log, nor
/// what the PAM application shows.
final class SecretHygieneTests: PAMTestCase {
    func testThePin_isNeverLoggedNorShown_evenWithDebug() throws {
        guard let capture = try SyslogCapture.start() else {
            throw XCTSkip("a syslog daemon owns /dev/log here; not displacing it to read what the module logs")
        }
        var messages: [String] = []
        var outputs: [String] = []
        do {
            try startDaemon()
            try registerAsUser()
            let service = try onlyModule(["debug"])
            for input in [pin, wrongPin, pin] {
                outputs.append(try pamtester(service, input: input + "\n").output)
                outputs.append(try pamtester(service, input: input + "\n", asUser: true).output)
            }
            let unreachable = try onlyModule(["debug"], socket: "/nonexistent/io.pinvault.Vault")
            outputs.append(try pamtester(unreachable, input: pin + "\n").output)
            // PAM_RHOST is the peer's to choose: its value is not logged.
            outputs.append(try pamtester(service, input: pin + "\n", items: ["rhost": "192.0.2.99"]).output)
            outputs.append(try pamtester(service, input: pin + "\n", items: ["tty": "ssh"]).output)
        } catch {
            _ = capture.stop()
            throw error
        }
        messages = capture.stop().filter { $0.contains("pam_pinvault") }
        let text = messages.joined(separator: "\n")
        // The capture works: the module's own lines are there.
        XCTAssertTrue(text.contains("List: 1 login and 0 legacy credential(s) of \(user.name) fit"), text)
        XCTAssertTrue(text.contains("Authenticate: signature verified for \(user.name)"), text)
        XCTAssertTrue(text.contains("authentication failure: wrong PIN; user=\(user.name)"), text)
        XCTAssertTrue(text.contains("cannot reach pinvaultd at /nonexistent/io.pinvault.Vault"), text)
        XCTAssertTrue(text.contains("PAM_RHOST names another host: ignored"), text)
        XCTAssertTrue(text.contains("a sign-in through sshd is remote: ignored"), text)
        XCTAssertFalse(text.contains("192.0.2.99"), text)
        for secret in [pin, wrongPin] {
            XCTAssertFalse(text.contains(secret), "a PIN in syslog:\n\(text)")
            XCTAssertFalse(daemon.log.contains(secret), "a PIN in the daemon's log")
            for output in outputs { XCTAssertFalse(output.contains(secret), "a PIN shown:\n\(output)") }
        }
    }
}
