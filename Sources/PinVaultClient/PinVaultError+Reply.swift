import FoundationEssentials
import PinVaultProtocol

extension PinVaultError {
    /// The typed error for an error reply named `name`: an `io.pinvault.Vault` error or
    /// an `org.varlink.service` one, with its parameters. A name the client does not
    /// know, or known parameters that are malformed, are a `.protocolError` naming it.
    init(replyError name: String, parameters: ParameterDecoder) {
        if let vault = VaultErrorName(qualifiedName: name) {
            do {
                self = try Self.decode(vault, parameters)
            } catch {
                self = .protocolError("the error \(name) has a malformed parameter \"\(error.parameter)\"")
            }
        } else if let serviceError = VarlinkServiceError(name: name, parameters: parameters) {
            self = PinVaultError(service: serviceError)
        } else {
            self = .protocolError("the daemon answered an unknown error \(name)")
        }
    }

    /// The client's side of the one error table: each error the interface file declares,
    /// decoded with its parameters. The switch is exhaustive over the generated
    /// `VaultErrorName`, so an error added to the file does not build until it is here.
    private static func decode(_ name: VaultErrorName, _ p: ParameterDecoder) throws(ParameterError) -> PinVaultError {
        let count = Int64.min...Int64.max
        func int(_ key: String) throws(ParameterError) -> Int64 { try p.int(key, required: true, range: count) ?? 0 }
        func strings(_ key: String) throws(ParameterError) -> [String] { try p.strings(key, required: true, bytes: 1...64) ?? [] }
        switch name {
        case .wrongPin:
            return .wrongPin(remainingAttempts: Int(clamping: try int("remainingAttempts")))
        case .lockedOut:
            return .lockedOut(retryAfter: .seconds(max(try int("retryAfterSeconds"), 0)))
        case .credentialBlocked:
            return .credentialBlocked
        case .credentialWiped:
            return .credentialWiped
        case .unblockRefused:
            return .unblockRefused(wrongPins: Int(clamping: try int("wrongPins")))
        case .pinPolicyViolation:
            return .pinPolicyViolation(try strings("violations").map(PinViolation.init(rawValue:)))
        case .noSuchCredential:
            return .noSuchCredential
        case .ambiguousCredential:
            return .ambiguousCredential(keyIds: try strings("keyIds"))
        case .tooManyCredentials:
            return .tooManyCredentials(limit: Int(clamping: try int("limit")))
        case .unregistrationPending:
            return .unregistrationPending(expiresAt: Date(unixSeconds: try p.time("expiresAt", required: true) ?? 0))
        case .invalidToken:
            return .invalidToken
        case .busy:
            return .busy(retryAfter: .milliseconds(max(try int("retryAfterMilliseconds"), 0)))
        case .conflict:
            return .conflict
        case .shuttingDown:
            return .shuttingDown
        case .tooManySessions:
            return .tooManySessions(limit: Int(clamping: try int("limit")))
        case .notUnlocked:
            return .notUnlocked
        case .internalError:
            return .internalError
        case .forwardingNotAllowed:
            return .forwardingNotAllowed
        case .confirmationRequired:
            return .confirmationRequired
        case .tooManyCertificates:
            return .tooManyCertificates(limit: Int(clamping: try int("limit")))
        case .wrongPurpose:
            return .wrongPurpose(try ParameterError.present("purpose", p.enumeration("purpose", required: true, as: Credential.Purpose.self)))
        }
    }

    /// The public form of an `org.varlink.service` error. `MethodNotImplemented` (a
    /// declared method the service lacks) is `.methodNotFound` to a caller;
    /// `ExpectedMore` cannot answer a PinVault call and is a `.protocolError`.
    init(service error: VarlinkServiceError) {
        switch error {
        case .interfaceNotFound(let interface): self = .interfaceNotFound(interface)
        case .methodNotFound(let method), .methodNotImplemented(let method): self = .methodNotFound(method)
        case .invalidParameter(let parameter): self = .invalidParameter(parameter)
        case .permissionDenied: self = .permissionDenied
        case .expectedMore: self = .protocolError("the daemon answered \(error.name)")
        }
    }
}

extension Date {
    /// The instant `seconds` after the Unix epoch.
    init(unixSeconds seconds: Int64) {
        self.init(timeIntervalSince1970: TimeInterval(seconds))
    }
}
