import Foundation
import Glibc
import PinVaultTestKit
import XCTest

/// What is local (docs/PAM.md, "What is local"), through pamtester, which sets
/// PAM_RHOST and PAM_TTY (`-I`) and the PAM environment (`-E`) as an application
/// would: a remote transaction is PAM_IGNORE before any prompt or call; a local one
/// signs in as before.
final class LocalityTests: PAMTestCase {
    /// This machine's hostname, as gethostname gives it.
    private var hostname: String {
        var buffer = [CChar](repeating: 0, count: 256)
        return gethostname(&buffer, buffer.count) == 0 ? String(cString: buffer) : ""
    }

    /// The module, then pam_permit for what it ignores; anything else ends the stack
    /// with the module's result.
    private func ignoringStack(_ options: [String] = []) throws -> PAMServiceFile {
        try PAMServiceFile([moduleLine("[ignore=ignore default=die]", options), "auth required pam_permit.so"])
    }

    func testARemoteHost_isIgnored_beforeAnyPromptOrCall() throws {
        try startDaemon()
        try registerAsUser()
        let service = try ignoringStack()
        // Addresses (gdm names a remote display it cannot name 0.0.0.0), and names that
        // neither are this machine's nor /etc/hosts gives it.
        let remote = ["192.0.2.7", "2001:db8::7", "::ffff:192.0.2.7", "0.0.0.0", "host.example.org",
                      "localhost.example.org", hostname + ".example.invalid", "127.0.0.1.example.org"]
        for rhost in remote {
            let before = try daemonRequests()
            let outcome = try pamtester(service, input: pin + "\n", items: ["rhost": rhost])
            XCTAssertEqual(try daemonRequests(), before + 1, "\(rhost): the daemon was called:\n\(daemon.log)")
            XCTAssertTrue(outcome.succeeded, "\(rhost): PAM_IGNORE lets pam_permit decide: \(outcome)")
            XCTAssertEqual(outcome.prompts, 0, "\(rhost): \(outcome)")
        }
        XCTAssertEqual(try usersCredentials().first?["failedAttempts"] as? Int, 0)
        XCTAssertFalse(daemon.log.contains("event=auth"), daemon.log)
    }

    func testSshdsMarks_makeATransactionRemote_evenFromLoopback() throws {
        try startDaemon()
        try registerAsUser()
        let service = try ignoringStack()
        let marks: [(items: [String: String], environment: [String: String])] = [
            (["rhost": "127.0.0.1", "tty": "ssh"], [:]),
            (["tty": "ssh"], [:]),
            (["rhost": "::1"], ["SSH_CONNECTION": "::1 50022 ::1 22"]),
        ]
        for mark in marks {
            let before = try daemonRequests()
            let outcome = try pamtester(service, input: pin + "\n", items: mark.items, environment: mark.environment)
            XCTAssertEqual(try daemonRequests(), before + 1, "\(mark): the daemon was called")
            XCTAssertTrue(outcome.succeeded, "\(mark): \(outcome)")
            XCTAssertEqual(outcome.prompts, 0, "\(mark): \(outcome)")
        }
    }

    /// No PAM_RHOST (sudo, su, a console, a local display manager, a screen locker),
    /// loopback, and this machine's own names sign in with the PIN, as root and as the user.
    func testLocalTransactions_signInWithThePin() throws {
        try startDaemon()
        try registerAsUser()
        let service = try onlyModule()
        var local: [[String: String]] = [
            [:], ["rhost": "localhost"], ["rhost": "127.0.0.1"], ["rhost": "127.0.1.1"], ["rhost": "::1"],
            ["rhost": hostname], ["rhost": hostname.uppercased() + "."], ["tty": "/dev/tty1"], ["tty": ":0"],
        ]
        // Names /etc/hosts gives to loopback here (Debian's FQDN on 127.0.1.1), if any.
        for name in Self.loopbackNamesInHosts() { local.append(["rhost": name]) }
        for items in local {
            let outcome = try pamtester(service, input: pin + "\n", items: items)
            XCTAssertTrue(outcome.succeeded, "\(items): \(outcome)")
            XCTAssertEqual(outcome.prompts, 1, "\(items): \(outcome)")
        }
        let locker = try pamtester(service, input: pin + "\n", asUser: true, items: ["tty": ":0"])
        XCTAssertTrue(locker.succeeded, "a screen locker, as the user: \(locker)")
    }

    func testAllowRemote_takesThePin_fromAnywhere() throws {
        try startDaemon()
        try registerAsUser()
        let service = try onlyModule(["allow_remote"])
        for items in [["rhost": "192.0.2.7"], ["rhost": "127.0.0.1", "tty": "ssh"]] {
            let outcome = try pamtester(service, input: pin + "\n", items: items)
            XCTAssertTrue(outcome.succeeded, "\(items): \(outcome)")
        }
        let wrong = try pamtester(service, input: wrongPin + "\n", items: ["rhost": "192.0.2.7"])
        XCTAssertTrue(wrong.failed(with: PAMResult.authError), "a remote guess now counts: \(wrong)")
        XCTAssertEqual(try usersCredentials().first?["failedAttempts"] as? Int, 1)
    }

    /// The names of the lines of /etc/hosts whose address is in 127.0.0.0/8 (an
    /// independent reading: fields split on blanks, comments dropped).
    private static func loopbackNamesInHosts() -> [String] {
        guard let text = try? String(contentsOfFile: "/etc/hosts", encoding: .utf8) else { return [] }
        return text.split(separator: "\n").flatMap { line -> [String] in
            let fields = line.prefix { $0 != "#" }.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            guard let address = fields.first, address.hasPrefix("127.") else { return [] }
            return Array(fields.dropFirst())
        }
    }
}
