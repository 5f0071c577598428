import Foundation
import PinVaultTestKit

/// The `pinvault` executable of the same build as the tests, run as a subprocess with
/// no controlling terminal (`setsid`), so that a test never reads from the terminal of
/// whoever runs `make test`.
enum PinVaultBinary {
    /// `pinvault`, beside the `pinvaultd` that `TestDaemon` starts.
    static var path: String {
        URL(fileURLWithPath: TestDaemon.binaryPath).deletingLastPathComponent().appendingPathComponent("pinvault").path
    }

    /// Runs `pinvault arguments` with `input` on stdin. `uid` runs it as another user
    /// (`setpriv`); `shell` wraps it in `/bin/sh -c shell`, where `"$@"` is the command.
    static func run(
        _ arguments: [String],
        input: String = "",
        uid: UInt32? = nil,
        shell: String? = nil,
        environment: [String: String]? = nil
    ) throws -> Subprocess.Result {
        // Another uid runs a staged copy: the checkout may sit in a 0700 home.
        let executable = uid == nil ? path : try WorldReadableStage.copy(of: path)
        var command = ["/usr/bin/setsid", "--wait", executable] + arguments
        if let shell {
            command = ["/bin/sh", "-c", shell, "sh"] + command
        }
        if let uid {
            command = ["/usr/bin/setpriv", "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "--"] + command
        }
        return try Subprocess.run(command[0], Array(command.dropFirst()), input: Data(input.utf8), environment: environment)
    }
}
