import Foundation
import PinVaultProtocol

/// Everything a `PinVaultClient` call can fail with: the daemon's answers, with their
/// parameters, and what can go wrong on the way to it.
public enum PinVaultError: Error, Equatable, Sendable, CustomStringConvertible {
    // io.pinvault.Vault errors

    /// The PIN is wrong; the failure was counted. `remainingAttempts` are left before the
    /// credential is blocked or wiped.
    case wrongPin(remainingAttempts: Int)
    /// Too many wrong PINs: no PIN is checked before `retryAfter` has passed. Not counted.
    case lockedOut(retryAfter: Duration)
    /// Too many wrong PINs: only an admin `unblock` revives the credential.
    case credentialBlocked
    /// Too many wrong PINs: the credential has been deleted.
    case credentialWiped
    /// The PIN breaks these rules of the policy.
    case pinPolicyViolation([PinViolation])
    /// No such credential for the caller (another uid's credential is reported so too).
    case noSuchCredential
    /// No keyId was given, but the user holds these credentials.
    case ambiguousCredential(keyIds: [String])
    /// The per-user or per-uid limit of credentials is reached.
    case tooManyCredentials(limit: Int)
    /// An unregistration is pending on the credential until `expiresAt`.
    case unregistrationPending(expiresAt: Date)
    /// The unregistration token is wrong, or nothing is pending for that keyId.
    case invalidToken
    /// The daemon's KDF queue is full: retry after `retryAfter`. Nothing was counted.
    case busy(retryAfter: Duration)
    /// The daemon's store or system failed; nothing was changed or counted.
    case internalError

    // org.varlink.service errors

    /// The daemon refused a parameter, named here (never its value). The client also
    /// throws this itself, without sending, for a value the daemon would refuse.
    case invalidParameter(String)
    /// The caller may not do this (an admin-only method, or `ownerUid`).
    case permissionDenied
    /// The daemon has no such method (an older daemon), named here.
    case methodNotFound(String)
    /// The daemon does not serve this interface, named here.
    case interfaceNotFound(String)

    // transport

    /// The daemon's socket could not be connected (`errno`: ENOENT, ECONNREFUSED, EACCES…).
    case daemonUnavailable(socketPath: String, errno: Int32)
    /// The connection ended (EOF or reset) before the reply; the connection is closed.
    case connectionLost
    /// No reply came within the client's timeout; the connection is closed.
    case timedOut
    /// The calling Task was cancelled: before the call was sent (the connection goes
    /// on), or while it was in flight (the connection is closed).
    case cancelled
    /// The reply was not what the interface says: malformed, an unknown error name, or
    /// larger than the client accepts. The connection is closed.
    case protocolError(String)
    /// A `PIN` that was already consumed or wiped was passed again.
    case pinConsumed

    /// A one-line English message; never contains a secret.
    public var description: String {
        switch self {
        case .wrongPin(let remaining):
            "wrong PIN (\(remaining) attempt\(remaining == 1 ? "" : "s") left)"
        case .lockedOut(let retryAfter):
            "too many wrong PINs: try again in \(Self.seconds(retryAfter)) s"
        case .credentialBlocked:
            "the credential is blocked after too many wrong PINs; an administrator must unblock it"
        case .credentialWiped:
            "the credential was deleted after too many wrong PINs"
        case .pinPolicyViolation(let violations):
            violations.isEmpty
                ? "the PIN does not meet the policy"
                : "the PIN does not meet the policy: " + violations.map(\.description).joined(separator: "; ")
        case .noSuchCredential:
            "no such credential"
        case .ambiguousCredential(let keyIds):
            "the user holds several credentials; choose one keyId of: " + keyIds.joined(separator: ", ")
        case .tooManyCredentials(let limit):
            "too many credentials (the limit is \(limit))"
        case .unregistrationPending(let expiresAt):
            "an unregistration is pending until " + RFC3339.string(fromUnixSeconds: Int64(expiresAt.timeIntervalSince1970))
        case .invalidToken:
            "the unregistration token is wrong, or no unregistration is pending"
        case .busy(let retryAfter):
            "the daemon is busy: retry in \(Self.milliseconds(retryAfter)) ms"
        case .internalError:
            "the daemon failed internally; nothing was changed"
        case .invalidParameter(let parameter):
            "invalid parameter \"\(parameter)\""
        case .permissionDenied:
            "permission denied"
        case .methodNotFound(let method):
            "the daemon has no method \(method)"
        case .interfaceNotFound(let interface):
            "the daemon does not serve the interface \(interface)"
        case .daemonUnavailable(let socketPath, let code):
            "cannot connect to pinvaultd at \(socketPath): \(String(cString: strerror(code)))"
        case .connectionLost:
            "the connection to pinvaultd was lost"
        case .timedOut:
            "pinvaultd did not answer in time"
        case .cancelled:
            "the call was cancelled"
        case .protocolError(let reason):
            "protocol error: \(reason)"
        case .pinConsumed:
            "the PIN was already used or wiped"
        }
    }

    /// Whole seconds of `duration`, rounded up.
    private static func seconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return attoseconds > 0 ? seconds + 1 : seconds
    }

    /// Whole milliseconds of `duration`, rounded up.
    private static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let perMillisecond: Int64 = 1_000_000_000_000_000
        let (whole, rest) = attoseconds.quotientAndRemainder(dividingBy: perMillisecond)
        return seconds * 1000 + whole + (rest > 0 ? 1 : 0)
    }
}
