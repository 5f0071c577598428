import Foundation
import PinVaultTestKit

/// A PAM service file `/etc/pam.d/pinvault-test-<random>`, removed when released.
/// The module is named by its absolute (staged) path, so nothing is installed.
final class PAMServiceFile {
    let name: String
    let path: String

    init(_ lines: [String]) throws {
        name = "pinvault-test-" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
        path = "/etc/pam.d/" + name
        let text = "# Written by PinVault's PAM tests; removed when they finish.\n" + lines.joined(separator: "\n") + "\n"
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o644]) else {
            throw TestKitError("cannot write \(path)")
        }
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}
