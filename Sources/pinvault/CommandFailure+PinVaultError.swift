import PinVaultClient

extension CommandFailure {
    /// The report of a failed call: the daemon's error under its own Varlink name and
    /// parameters, or a transport failure as `io.pinvault.cli.*`. The message is escaped
    /// for the terminal (`TerminalText`): it may quote key ids, error and method names
    /// that the daemon sent.
    init(_ error: PinVaultError) {
        let vault = "io.pinvault.Vault."
        let service = "org.varlink.service."
        let cli = "io.pinvault.cli."
        var message = TerminalText.escaped(error.description)
        let name: String
        var parameters: [(String, JSONValue)] = []
        switch error {
        case .wrongPin(let remaining):
            name = vault + "WrongPin"
            parameters = [("remainingAttempts", .int(remaining))]
        case .lockedOut(let retryAfter):
            name = vault + "LockedOut"
            parameters = [("retryAfterSeconds", .int(WireText.seconds(retryAfter)))]
        case .credentialBlocked:
            name = vault + "CredentialBlocked"
            message += " (pinvault unblock)"
        case .credentialWiped:
            name = vault + "CredentialWiped"
        case .pinPolicyViolation(let violations):
            name = vault + "PinPolicyViolation"
            parameters = [("violations", .array(violations.map { .string($0.rawValue) }))]
        case .noSuchCredential:
            name = vault + "NoSuchCredential"
        case .ambiguousCredential(let keyIds):
            name = vault + "AmbiguousCredential"
            parameters = [("keyIds", .array(keyIds.map { .string($0) }))]
            message = "the user holds several credentials; choose one with --key-id:"
                + keyIds.map { "\n  " + TerminalText.escaped($0) }.joined()
        case .tooManyCredentials(let limit):
            name = vault + "TooManyCredentials"
            parameters = [("limit", .int(limit))]
        case .unregistrationPending(let expiresAt):
            name = vault + "UnregistrationPending"
            parameters = [("expiresAt", .string(WireText.time(expiresAt)))]
            message += " (pinvault unregister commit or abort)"
        case .invalidToken:
            name = vault + "InvalidToken"
        case .busy(let retryAfter):
            name = vault + "Busy"
            parameters = [("retryAfterMilliseconds", .int(WireText.milliseconds(retryAfter)))]
        case .internalError:
            name = vault + "InternalError"
            message += " (the daemon's log says why)"
        case .invalidParameter(let parameter):
            name = service + "InvalidParameter"
            parameters = [("parameter", .string(parameter))]
            if parameter == "token" { message = "the unregistration token is malformed" }
        case .permissionDenied:
            name = service + "PermissionDenied"
            message += " (only root or a member of the daemon's admin group may do this)"
        case .methodNotFound(let method):
            name = service + "MethodNotFound"
            parameters = [("method", .string(method))]
        case .interfaceNotFound(let interface):
            name = service + "InterfaceNotFound"
            parameters = [("interface", .string(interface))]
        case .daemonUnavailable(let socketPath, let code):
            name = cli + "DaemonUnavailable"
            parameters = [("socket", .string(socketPath)), ("errno", .int(Int(code)))]
            message += " (is pinvaultd running? --socket or $PINVAULT_SOCKET names another socket)"
        case .connectionLost:
            name = cli + "ConnectionLost"
        case .timedOut:
            name = cli + "TimedOut"
        case .cancelled:
            name = cli + "Cancelled"
        case .protocolError(let reason):
            name = cli + "ProtocolError"
            parameters = [("reason", .string(reason))]
        case .pinConsumed:
            name = cli + "PinConsumed"
        }
        self.init(status: ExitStatus(error), message: message, name: name, parameters: parameters)
    }
}
