import Foundation
import Glibc
import PinVaultTestKit

/// What an application told PAM, seen from inside its stack: a line for pam_exec,
/// which runs a script that writes PAM_RHOST, PAM_TTY and SSH_CONNECTION (from the
/// PAM environment) as it finds them, one line per transaction. `optional`, reading
/// no token: it changes nothing in the stack it sits in.
final class PAMItemRecorder {
    private let directory: TemporaryDirectory
    private let script: String
    private let log: String

    init() throws {
        directory = try TemporaryDirectory(mode: 0o755)
        script = directory.path + "/record"
        log = directory.path + "/items"
        try """
            #!/bin/sh
            printf 'PAM_RHOST=%s\\tPAM_TTY=%s\\tSSH_CONNECTION=%s\\n' "${PAM_RHOST-(unset)}" "${PAM_TTY-(unset)}" "${SSH_CONNECTION-(unset)}"

            """.write(toFile: script, atomically: true, encoding: .utf8)
        guard chmod(script, 0o755) == 0 else { throw TestKitError("chmod \(script): errno \(errno)") }
    }

    /// The auth line that records.
    var line: String { "auth optional pam_exec.so quiet log=\(log) \(script)" }

    /// One entry per transaction so far: item → value, "(unset)" when not set.
    var transactions: [[String: String]] {
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        // pam_exec heads each run's output with a "*** date" line of its own.
        return text.split(separator: "\n").filter { $0.hasPrefix("PAM_RHOST=") }.map { line in
            Dictionary(uniqueKeysWithValues: line.split(separator: "\t").compactMap { field -> (String, String)? in
                guard let equals = field.firstIndex(of: "=") else { return nil }
                return (String(field[..<equals]), String(field[field.index(after: equals)...]))
            })
        }
    }
}
