import PinVaultClient
import PinVaultProtocol

extension CommandFailure {
    /// The report of a failed call: the daemon's error under its own Varlink name and
    /// parameters, or a failure on the client's side as `io.pinvault.cli.*`. The
    /// message is escaped for the terminal (`TerminalText`): it may quote key ids, error
    /// and method names that the daemon sent.
    init(_ error: PinVaultError) {
        var message = TerminalText.escaped(error.description)
        var parameters: [(String, JSONValue)] = []
        if let vault = VaultErrorName(qualifiedName: error.code.description) {
            // Exhaustive, like ExitStatus: a new interface error needs its row here.
            switch vault {
            case .wrongPin:
                parameters = [("remainingAttempts", .int(error.remainingAttempts ?? 0))]
            case .lockedOut:
                parameters = [("retryAfterSeconds", .int(WireText.seconds(error.retryAfter ?? .zero)))]
            case .credentialBlocked:
                message += " (pinvault unblock)"
            case .unblockRefused:
                parameters = [("wrongPins", .int(error.wrongPins ?? 0))]
                message += " (pinvault wipe USER --owner-uid UID, or unregister begin and commit)"
            case .credentialWiped, .noSuchCredential, .invalidToken:
                break
            case .pinPolicyViolation:
                parameters = [("violations", .array(error.violations.map { .string($0.rawValue) }))]
            case .ambiguousCredential:
                parameters = [("keyIds", .array(error.keyIds.map { .string($0) }))]
                message = "the user holds several credentials; choose one with --label or --key-id:"
                    + error.keyIds.map { "\n  " + TerminalText.escaped($0) }.joined()
            case .tooManyCredentials:
                parameters = [("limit", .int(error.limit ?? 0))]
            case .unregistrationPending:
                parameters = error.expiresAt.map { [("expiresAt", .string(WireText.time($0)))] } ?? []
                message += " (pinvault unregister commit or abort)"
            case .busy:
                parameters = [("retryAfterMilliseconds", .int(WireText.milliseconds(error.retryAfter ?? .zero)))]
            case .conflict, .shuttingDown:
                break
            case .tooManySessions:
                parameters = [("limit", .int(error.limit ?? 0))]
                message += " (pinvault lock)"
            case .notUnlocked:
                message += " (pinvault unlock USER)"
            case .internalError:
                message += " (the daemon's log says why)"
            case .confirmationRequired, .forwardingNotAllowed:
                break
            case .tooManyCertificates:
                parameters = [("limit", .int(error.limit ?? 0))]
            case .wrongPurpose:
                parameters = [("purpose", .string(error.purpose?.rawValue ?? ""))]
                // The door is this command: name it, and what the key is for.
                let door = PinVaultCommand.invoked.isEmpty ? "this command" : "pinvault " + PinVaultCommand.invoked
                message = "this key is for \(error.purpose?.rawValue ?? "another purpose"); \(door) cannot use it"
                    + " (pinvault register --purpose makes a key for it)"
            }
        } else {
            switch error.code {
            case .invalidParameter:
                parameters = [("parameter", .string(error.name ?? ""))]
                if error.name == "token" { message = "the unregistration token is malformed" }
            case .permissionDenied:
                message += " (only root or a member of the daemon's admin group may do this)"
            case .methodNotFound:
                parameters = [("method", .string(error.name ?? ""))]
            case .interfaceNotFound:
                parameters = [("interface", .string(error.name ?? ""))]
            case .daemonUnavailable:
                if let socket = error.socket {
                    parameters = [("socket", .string(socket.path)), ("errno", .int(Int(socket.errno)))]
                }
                message += " (is pinvaultd running? --socket or $PINVAULT_SOCKET names another socket)"
            case .untrustedServer:
                if let server = error.server {
                    parameters = [("socket", .string(server.path)), ("uid", .int(Int(server.uid)))]
                }
            case .protocolError:
                parameters = [("reason", .string(error.reason ?? ""))]
            default:
                break
            }
        }
        // The daemon's errors keep their Varlink names; the client's own are the CLI's.
        let name = error.code.interface == nil ? "io.pinvault.cli." + error.code.name : error.code.description
        self.init(status: ExitStatus(error), message: message, name: name, parameters: parameters)
    }
}
