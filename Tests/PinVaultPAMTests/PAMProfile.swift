import Foundation
import PinVaultTestKit

/// The shipped pam-auth-update profile (`packaging/pam-configs/pinvault`), read from
/// the repository, and the `auth` stack pam-auth-update writes from it into
/// common-auth on Debian: the module first (Priority 320 above pam_unix's 256), each
/// `end` replaced by the number of primary lines after it, as pam-auth-update does.
enum PAMProfile {
    static let path = TestDaemon.repositoryRoot + "/packaging/pam-configs/pinvault"

    /// The profile's `Auth-Initial:` line (the module is the first primary), e.g.
    /// `[success=end default=ignore] pam_pinvault.so`.
    static func initialAuthLine() throws -> String {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let header = lines.firstIndex(of: "Auth-Initial:"), header + 1 < lines.count,
              lines[header + 1].first == "\t" || lines[header + 1].first == " " else {
            throw TestKitError("no Auth-Initial line in \(path)")
        }
        return lines[header + 1].trimmingCharacters(in: .whitespaces)
    }

    /// common-auth with the profile enabled: pam_pinvault (`module`, with `options`)
    /// as the profile puts it, then Debian's pam_unix, pam_deny and pam_permit lines.
    static func commonAuth(module: String, options: [String]) throws -> [String] {
        let profile = try initialAuthLine()
        guard let control = profile.range(of: #"^\[[^\]]*\]"#, options: .regularExpression),
              profile[control.upperBound...].trimmingCharacters(in: .whitespaces) == "pam_pinvault.so" else {
            throw TestKitError("unexpected profile line: \(profile)")
        }
        // One primary line (pam_unix) follows: "end" jumps over it and pam_deny.
        let jump = profile[control].replacingOccurrences(of: "end", with: "2")
        return [
            (["auth", jump, module] + options).joined(separator: " "),
            "auth [success=1 default=ignore] pam_unix.so nullok",
            "auth requisite pam_deny.so",
            "auth required pam_permit.so",
        ]
    }
}
