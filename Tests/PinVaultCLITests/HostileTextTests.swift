import Foundation
import PinVaultTestKit
import XCTest

/// Text a daemon (or whoever holds its socket) sends, shown to a person: every control
/// (C0, DEL, C1 such as CSI U+009B and OSC U+009D), format character (bidi overrides
/// and isolates) and line or paragraph separator reaches the terminal as `\u{XXXX}`,
/// and tables stay aligned on the escaped text. `--json` escapes C1 and U+2028/U+2029.
final class HostileTextTests: XCTestCase {
    /// A user name that clears the screen through CSI, writes the clipboard through
    /// OSC 52, and reverses what follows it.
    private static let hostileUser = "eve\u{9B}2J\u{1B}]52;c;aGk=\u{07}\u{202E}fdp.exe\u{2028}x\u{2066}"
    private static let hostileLabel = "\u{9D}8;;http://evil\u{9C}link\u{200F}\u{85}"
    private static let keyId = String(repeating: "ab", count: 16)

    /// `text` as a JSON string literal with every non-ASCII scalar as `\uXXXX`.
    private static func json(_ text: String) -> String {
        "\"" + text.unicodeScalars.map { scalar in
            scalar.isASCII && scalar.value >= 0x20 ? String(scalar) : String(format: "\\u%04x", scalar.value)
        }.joined() + "\""
    }

    private static var listReply: String {
        let publicKey = Data(repeating: 7, count: 32).base64EncodedString()
        let credential = { (user: String, label: String) in
            #"{"user":\#(json(user)),"keyId":"\#(keyId)","label":\#(json(label)),"publicKey":"\#(publicKey)","ownerUid":1000,"# +
                #""createdAt":"2026-01-31T12:00:00Z","failedAttempts":0,"remainingAttempts":10,"state":"active"}"#
        }
        return #"{"parameters":{"credentials":["# + credential(hostileUser, hostileLabel) + "," + credential("bob", "phone") + "]}}"
    }

    /// The scalars of `text` that must never reach a terminal raw (a newline is allowed).
    private static func rawControls(in text: String) -> [String] {
        text.unicodeScalars.filter { $0 != "\n" && isControlOrFormat($0) }.map { String(format: "U+%04X", $0.value) }
    }

    private static func isControlOrFormat(_ scalar: Unicode.Scalar) -> Bool {
        [.control, .format, .lineSeparator, .paragraphSeparator].contains(scalar.properties.generalCategory)
    }

    private func run(_ arguments: [String], against daemon: ScriptedVarlinkServer) throws -> Subprocess.Result {
        try PinVaultBinary.run(arguments + ["--socket", daemon.socketPath])
    }

    func testList_escapesControlAndBidiCharacters_inUsersAndLabels_andKeepsColumnsAligned() throws {
        let daemon = try ScriptedVarlinkServer { _ in ScriptedVarlinkServer.reply(Self.listReply) }
        defer { daemon.stop() }
        for arguments in [["list"], ["list", "--owner-uid", "1000"]] {
            let result = try run(arguments, against: daemon)
            XCTAssertEqual(result.status, 0, result.description)
            let output = result.standardOutput
            XCTAssertEqual(Self.rawControls(in: output), [], output)
            XCTAssertTrue(output.contains(#"eve\u{009B}2J\u{001B}]52;c;aGk=\u{0007}\u{202E}fdp.exe\u{2028}x\u{2066}"#), output)
            XCTAssertTrue(output.contains(#"\u{009D}8;;http://evil\u{009C}link\u{200F}\u{0085}"#), output)
            let lines = output.split(separator: "\n").map(String.init)
            XCTAssertEqual(lines.count, 3, output)
            let columns = try zip(lines, ["KEY ID", Self.keyId, Self.keyId]).map { line, column in
                line.distance(from: line.startIndex, to: try XCTUnwrap(line.range(of: column), line).lowerBound)
            }
            XCTAssertEqual(Set(columns).count, 1, "KEY ID columns differ: \(columns)\n\(output)")
        }
    }

    func testListJson_escapesC1AndLineSeparators_andStillParsesToTheSameText() throws {
        let daemon = try ScriptedVarlinkServer { _ in ScriptedVarlinkServer.reply(Self.listReply) }
        defer { daemon.stop() }
        let result = try run(["list", "--json"], against: daemon)
        XCTAssertEqual(result.status, 0, result.description)
        let raw = result.standardOutput.unicodeScalars.filter { scalar in
            scalar != "\n" && (scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar == "\u{2028}" || scalar == "\u{2029}")
        }
        XCTAssertEqual(raw.map { String(format: "U+%04X", $0.value) }, [], result.standardOutput)
        XCTAssertTrue(result.standardOutput.contains(#"\u009b"#) && result.standardOutput.contains(#"\u2028"#), result.standardOutput)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        let first = try XCTUnwrap((object["credentials"] as? [[String: Any]])?.first)
        XCTAssertEqual(first["user"] as? String, Self.hostileUser)
        XCTAssertEqual(first["label"] as? String, Self.hostileLabel)
    }

    func testErrorMessages_escapeKeyIdsAndNamesTheDaemonSent() throws {
        let replies = [
            #"{"error":"io.pinvault.Vault.AmbiguousCredential","parameters":{"keyIds":["a\u001b[2Jb","c\u009b1;1H\u202ed"]}}"#,
            #"{"error":"io.evil.Unknown\u009d52;c;aGk=\u0007","parameters":{}}"#,
            #"{"error":"org.varlink.service.MethodNotFound","parameters":{"method":"x\u2066\n\u001b[31my"}}"#,
        ]
        let expected = [
            ["\n  a\\u{001B}[2Jb\n", "\n  c\\u{009B}1;1H\\u{202E}d\n"],
            [#"io.evil.Unknown\u{009D}52;c;aGk=\u{0007}"#],
            [#"x\u{2066}\u{000A}\u{001B}[31my"#],
        ]
        for (reply, fragments) in zip(replies, expected) {
            let daemon = try ScriptedVarlinkServer { _ in ScriptedVarlinkServer.reply(reply) }
            defer { daemon.stop() }
            let result = try run(["list"], against: daemon)
            XCTAssertNotEqual(result.status, 0, result.description)
            XCTAssertEqual(Self.rawControls(in: result.standardError), [], result.standardError)
            XCTAssertTrue(result.standardError.hasPrefix("pinvault: "), result.standardError)
            for fragment in fragments {
                XCTAssertTrue(result.standardError.contains(fragment), "\(fragment) not in:\n\(result.standardError)")
            }
        }
    }
}
