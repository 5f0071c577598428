/// An `io.pinvault.Vault` error with its parameters: encoded by the daemon, decoded by
/// the client.
public enum VaultError: Error, Equatable, Sendable {
    /// The PIN is wrong; the failure was counted.
    case wrongPin(remainingAttempts: Int64)
    /// Throttled: no PIN is checked for this long. Not counted.
    case lockedOut(retryAfterSeconds: Int64)
    /// Blocked until an admin `Unblock`.
    case credentialBlocked
    /// Deleted after too many wrong PINs.
    case credentialWiped
    /// The new PIN breaks these policy rules (names as in `CheckPin`).
    case pinPolicyViolation(violations: [String])
    /// No such credential for this caller.
    case noSuchCredential
    /// `keyId` omitted, but the user holds these credentials.
    case ambiguousCredential(keyIds: [String])
    /// The per-user or per-uid credential limit.
    case tooManyCredentials(limit: Int64)
    /// An unregistration is pending until this Unix time.
    case unregistrationPending(expiresAt: Int64)
    /// Wrong token, or nothing pending.
    case invalidToken
    /// The KDF queue is full. Not counted.
    case busy(retryAfterMilliseconds: Int64)
    /// The daemon's store or system failed; nothing changed.
    case internalError

    /// The error's name.
    public var name: VaultErrorName {
        switch self {
        case .wrongPin: .wrongPin
        case .lockedOut: .lockedOut
        case .credentialBlocked: .credentialBlocked
        case .credentialWiped: .credentialWiped
        case .pinPolicyViolation: .pinPolicyViolation
        case .noSuchCredential: .noSuchCredential
        case .ambiguousCredential: .ambiguousCredential
        case .tooManyCredentials: .tooManyCredentials
        case .unregistrationPending: .unregistrationPending
        case .invalidToken: .invalidToken
        case .busy: .busy
        case .internalError: .internalError
        }
    }

    /// Writes the error's parameters.
    public func writeParameters(_ object: inout JSONObjectWriter) {
        switch self {
        case .wrongPin(let remaining): object.field("remainingAttempts", remaining)
        case .lockedOut(let seconds): object.field("retryAfterSeconds", seconds)
        case .pinPolicyViolation(let violations): object.field("violations", strings: violations)
        case .ambiguousCredential(let keyIds): object.field("keyIds", strings: keyIds)
        case .tooManyCredentials(let limit): object.field("limit", limit)
        case .unregistrationPending(let expiresAt):
            object.field("expiresAt", RFC3339.string(fromUnixSeconds: expiresAt))
        case .busy(let milliseconds): object.field("retryAfterMilliseconds", milliseconds)
        case .credentialBlocked, .credentialWiped, .noSuchCredential, .invalidToken, .internalError: break
        }
    }

    /// Appends the whole error reply (and its NUL) to `buffer`.
    public func appendReply(to buffer: ReplyBuffer) {
        VarlinkReply.appendError(name.qualifiedName, to: buffer) { writeParameters(&$0) }
    }

    /// Decodes an error reply; nil when `qualifiedName` is not a Vault error, throws
    /// when it is one whose parameters are malformed.
    public init?(qualifiedName: String, parameters: ParameterDecoder) throws(ParameterError) {
        guard let name = VaultErrorName(qualifiedName: qualifiedName) else { return nil }
        let count = Int64.min...Int64.max
        switch name {
        case .wrongPin:
            self = .wrongPin(remainingAttempts: try parameters.int("remainingAttempts", required: true, range: count) ?? 0)
        case .lockedOut:
            self = .lockedOut(retryAfterSeconds: try parameters.int("retryAfterSeconds", required: true, range: count) ?? 0)
        case .credentialBlocked:
            self = .credentialBlocked
        case .credentialWiped:
            self = .credentialWiped
        case .pinPolicyViolation:
            self = .pinPolicyViolation(violations: try parameters.strings("violations", required: true, bytes: 1...64) ?? [])
        case .noSuchCredential:
            self = .noSuchCredential
        case .ambiguousCredential:
            self = .ambiguousCredential(keyIds: try parameters.strings("keyIds", required: true, bytes: 1...64) ?? [])
        case .tooManyCredentials:
            self = .tooManyCredentials(limit: try parameters.int("limit", required: true, range: count) ?? 0)
        case .unregistrationPending:
            self = .unregistrationPending(expiresAt: try parameters.time("expiresAt", required: true) ?? 0)
        case .invalidToken:
            self = .invalidToken
        case .busy:
            self = .busy(retryAfterMilliseconds: try parameters.int("retryAfterMilliseconds", required: true, range: count) ?? 0)
        case .internalError:
            self = .internalError
        }
    }
}
