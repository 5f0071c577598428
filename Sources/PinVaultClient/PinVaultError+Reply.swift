import Foundation
import PinVaultProtocol

extension PinVaultError {
    /// The typed error for an error reply named `name`: an `io.pinvault.Vault` error or
    /// an `org.varlink.service` one, with its parameters. A name the client does not
    /// know, or known parameters that are malformed, are a `.protocolError` naming it.
    init(replyError name: String, parameters: ParameterDecoder) {
        let vaultError: VaultError?
        do {
            vaultError = try VaultError(qualifiedName: name, parameters: parameters)
        } catch {
            self = .protocolError("the error \(name) has a malformed parameter \"\(error.parameter)\"")
            return
        }
        if let vaultError {
            self = PinVaultError(vaultError)
        } else if let serviceError = VarlinkServiceError(name: name, parameters: parameters) {
            self = PinVaultError(serviceError)
        } else {
            self = .protocolError("the daemon answered an unknown error \(name)")
        }
    }

    /// The public form of an `io.pinvault.Vault` error.
    init(_ error: VaultError) {
        switch error {
        case .wrongPin(let remaining): self = .wrongPin(remainingAttempts: Int(remaining))
        case .lockedOut(let seconds): self = .lockedOut(retryAfter: .seconds(max(seconds, 0)))
        case .credentialBlocked: self = .credentialBlocked
        case .credentialWiped: self = .credentialWiped
        case .pinPolicyViolation(let violations): self = .pinPolicyViolation(violations.map(PinViolation.init(rawValue:)))
        case .noSuchCredential: self = .noSuchCredential
        case .ambiguousCredential(let keyIds): self = .ambiguousCredential(keyIds: keyIds)
        case .tooManyCredentials(let limit): self = .tooManyCredentials(limit: Int(limit))
        case .unregistrationPending(let expiresAt): self = .unregistrationPending(expiresAt: Date(unixSeconds: expiresAt))
        case .invalidToken: self = .invalidToken
        case .busy(let milliseconds): self = .busy(retryAfter: .milliseconds(max(milliseconds, 0)))
        case .internalError: self = .internalError
        }
    }

    /// The public form of an `org.varlink.service` error. `MethodNotImplemented` (a
    /// declared method the service lacks) is `.methodNotFound` to a caller;
    /// `ExpectedMore` cannot answer a PinVault call and is a `.protocolError`.
    init(_ error: VarlinkServiceError) {
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
