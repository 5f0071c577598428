import FoundationEssentials
import Glibc
import PinVaultProtocol

extension PinVaultError {
    /// A one-line English message; never contains a secret.
    public var description: String {
        switch code {
        case .wrongPin:
            let remaining = remainingAttempts ?? 0
            return "wrong PIN (\(remaining) attempt\(remaining == 1 ? "" : "s") left)"
        case .lockedOut:
            return "too many wrong PINs: try again in \(Self.seconds(retryAfter ?? .zero)) s"
        case .credentialBlocked:
            return "the credential is blocked after too many wrong PINs; an administrator must unblock it"
        case .credentialWiped:
            return "the credential was deleted after too many wrong PINs"
        case .unblockRefused:
            let tried = wrongPins ?? 0
            return "the credential cannot be unblocked: \(tried) wrong PIN\(tried == 1 ? " was" : "s were") tried since its owner's last success; only deleting it is left"
        case .pinPolicyViolation:
            return violations.isEmpty
                ? "the PIN does not meet the policy"
                : "the PIN does not meet the policy: " + violations.map(\.description).joined(separator: "; ")
        case .noSuchCredential:
            return "no such credential"
        case .ambiguousCredential:
            return "the user holds several credentials; choose one keyId of: " + keyIds.joined(separator: ", ")
        case .tooManyCredentials:
            return "too many credentials (the limit is \(limit ?? 0))"
        case .unregistrationPending:
            let until = Int64((expiresAt ?? Date(timeIntervalSince1970: 0)).timeIntervalSince1970)
            return "an unregistration is pending until " + RFC3339.string(fromUnixSeconds: until)
        case .invalidToken:
            return "the unregistration token is wrong, or no unregistration is pending"
        case .busy:
            return "the daemon is busy: retry in \(Self.milliseconds(retryAfter ?? .zero)) ms"
        case .conflict:
            return "the credential changed while the call ran; nothing was counted: retry"
        case .shuttingDown:
            return "pinvaultd is stopping; nothing was done: retry"
        case .tooManySessions:
            return "too many unlock sessions (the limit is \(limit ?? 0)): lock one first"
        case .notUnlocked:
            return "the credential is not unlocked"
        case .internalError:
            return "the daemon failed internally; nothing was changed"
        case .forwardingNotAllowed:
            return "the key may not sign for a forwarded agent (pinvault unlock --allow-forwarding allows it)"
        case .confirmationRequired:
            return "each use of the key must be confirmed, and nothing here can ask"
        case .tooManyCertificates:
            return "the credential carries as many certificates as it may (\(limit ?? 0))"
        case .wrongPurpose:
            return "the credential's key is for \(purpose?.rawValue ?? "another purpose"), not for this"
        case .invalidParameter:
            return "invalid parameter \"\(name ?? "")\""
        case .permissionDenied:
            return "permission denied"
        case .methodNotFound:
            return "the daemon has no method \(name ?? "")"
        case .interfaceNotFound:
            return "the daemon does not serve the interface \(name ?? "")"
        case .daemonUnavailable:
            let (path, code) = socket ?? ("", 0)
            return "cannot connect to pinvaultd at \(path): \(String(cString: strerror(code)))"
        case .untrustedServer:
            let (path, uid) = server ?? ("", 0)
            return "refusing \(path): it is served by uid \(uid), neither root, the pinvault user nor this user; nothing was sent"
        case .connectionLost:
            return "the connection to pinvaultd was lost"
        case .timedOut:
            return "pinvaultd did not answer in time"
        case .cancelled:
            return "the call was cancelled"
        case .protocolError:
            return "protocol error: \(reason ?? "")"
        case .pinConsumed:
            return "the PIN was already used or wiped"
        default:
            return "the daemon answered \(code)"
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
