import FoundationEssentials
import PinVaultProtocol

/// Everything a `PinVaultClient` call can fail with: the daemon's answers, with their
/// parameters, and what can go wrong on the way to it.
///
/// A struct, not an enum, so that a newer release can add an error without breaking
/// an app that switches over them: compare `code` with the constants of
/// `PinVaultError.Code` (`if error.code == .wrongPin`), or compare whole errors
/// (`error == .wrongPin(remainingAttempts: 3)`), and read the parameters through the
/// accessors (`remainingAttempts`, `retryAfter`, …).
public struct PinVaultError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What failed.
    public let code: Code
    /// The error's parameters.
    let detail: Detail

    init(_ code: Code, _ detail: Detail = .none) {
        self.code = code
        self.detail = detail
    }

    /// The parameters one error carries.
    enum Detail: Equatable, Sendable {
        case none
        case remainingAttempts(Int)
        case wrongPins(Int)
        case retryAfter(Duration)
        case violations([PinViolation])
        case keyIds([String])
        case limit(Int)
        case expiresAt(Date)
        /// The parameter, method or interface an `org.varlink.service` error names.
        case name(String)
        case socket(path: String, errno: Int32)
        case server(path: String, uid: UInt32)
        case purpose(Credential.Purpose)
        case reason(String)
    }

    // MARK: Parameters

    /// `wrongPin`: attempts left before the credential is blocked or wiped.
    public var remainingAttempts: Int? {
        if case .remainingAttempts(let count) = detail { return count }
        return nil
    }

    /// `unblockRefused`: the wrong PINs tried since the owner's last success.
    public var wrongPins: Int? {
        if case .wrongPins(let count) = detail { return count }
        return nil
    }

    /// `lockedOut`, `busy`: how long to wait before trying again.
    public var retryAfter: Duration? {
        if case .retryAfter(let duration) = detail { return duration }
        return nil
    }

    /// `pinPolicyViolation`: the rules the PIN breaks.
    public var violations: [PinViolation] {
        if case .violations(let violations) = detail { return violations }
        return []
    }

    /// `ambiguousCredential`: the credentials to choose from.
    public var keyIds: [String] {
        if case .keyIds(let keyIds) = detail { return keyIds }
        return []
    }

    /// `tooManyCredentials`, `tooManySessions`, `tooManyCertificates`: the limit reached.
    public var limit: Int? {
        if case .limit(let limit) = detail { return limit }
        return nil
    }

    /// `unregistrationPending`: when the pending unregistration lapses.
    public var expiresAt: Date? {
        if case .expiresAt(let date) = detail { return date }
        return nil
    }

    /// `invalidParameter`: the parameter; `methodNotFound`: the method;
    /// `interfaceNotFound`: the interface.
    public var name: String? {
        if case .name(let name) = detail { return name }
        return nil
    }

    /// `wrongPurpose`: what the credential's key is for.
    public var purpose: Credential.Purpose? {
        if case .purpose(let purpose) = detail { return purpose }
        return nil
    }

    /// `daemonUnavailable`: the socket path and the `errno` of connecting to it.
    public var socket: (path: String, errno: Int32)? {
        if case .socket(let path, let code) = detail { return (path, code) }
        return nil
    }

    /// `untrustedServer`: the socket path and the uid that serves it.
    public var server: (path: String, uid: UInt32)? {
        if case .server(let path, let uid) = detail { return (path, uid) }
        return nil
    }

    /// `protocolError`: what was wrong with the reply.
    public var reason: String? {
        if case .reason(let reason) = detail { return reason }
        return nil
    }
}
