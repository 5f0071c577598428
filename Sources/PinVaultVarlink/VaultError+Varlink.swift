import PinVaultCrypto
import PinVaultEngine
import PinVaultProtocol

/// The one table from the engine's errors to their Varlink replies. The switch is
/// exhaustive, so a new engine error does not build until it has its row; a test
/// (VarlinkErrorTableTests) checks that every error the interface file declares is
/// produced by some row, and that the client decodes each back.
extension VaultError {
    /// Appends this error's reply (and its NUL) to `buffer`.
    func appendVarlinkReply(to buffer: ReplyBuffer) {
        switch self {
        case .wrongPin(let remaining):
            append(.wrongPin, to: buffer) { $0.field("remainingAttempts", Int64(remaining)) }
        case .lockedOut(let seconds):
            append(.lockedOut, to: buffer) { $0.field("retryAfterSeconds", seconds) }
        case .credentialBlocked:
            append(.credentialBlocked, to: buffer)
        case .credentialWiped:
            append(.credentialWiped, to: buffer)
        case .unblockRefused(let wrongPins):
            append(.unblockRefused, to: buffer) { $0.field("wrongPins", Int64(wrongPins)) }
        case .pinPolicyViolation(let violations):
            append(.pinPolicyViolation, to: buffer) { $0.field("violations", strings: violations.map(\.rawValue)) }
        case .noSuchCredential:
            append(.noSuchCredential, to: buffer)
        case .ambiguousCredential(let keyIds):
            append(.ambiguousCredential, to: buffer) { $0.field("keyIds", strings: keyIds.map(\.hex)) }
        case .tooManyCredentials(let limit):
            append(.tooManyCredentials, to: buffer) { $0.field("limit", Int64(limit)) }
        case .unregistrationPending(let expiresAt):
            append(.unregistrationPending, to: buffer) { $0.field("expiresAt", RFC3339.string(fromUnixSeconds: expiresAt)) }
        case .invalidToken:
            append(.invalidToken, to: buffer)
        case .busy(let milliseconds):
            append(.busy, to: buffer) { $0.field("retryAfterMilliseconds", Int64(milliseconds)) }
        case .conflict:
            append(.conflict, to: buffer)
        case .shuttingDown:
            append(.shuttingDown, to: buffer)
        case .tooManySessions(let limit):
            append(.tooManySessions, to: buffer) { $0.field("limit", Int64(limit)) }
        case .notUnlocked:
            append(.notUnlocked, to: buffer)
        case .internalError:
            append(.internalError, to: buffer)
        case .wrongPurpose(let purpose):
            append(.wrongPurpose, to: buffer) { $0.field("purpose", purpose.rawValue) }
        case .invalidChallenge:
            VarlinkReply.appendError(.invalidParameter(parameter: "challenge"), to: buffer)
        case .signsNoDigest:
            VarlinkReply.appendError(.invalidParameter(parameter: "keyId"), to: buffer)
        case .forwardingNotAllowed:
            append(.forwardingNotAllowed, to: buffer)
        case .confirmationRequired:
            append(.confirmationRequired, to: buffer)
        case .invalidCertificate:
            VarlinkReply.appendError(.invalidParameter(parameter: "certificate"), to: buffer)
        case .tooManyCertificates(let limit):
            append(.tooManyCertificates, to: buffer) { $0.field("limit", Int64(limit)) }
        case .permissionDenied:
            VarlinkReply.appendError(.permissionDenied, to: buffer)
        }
    }

    private func append(
        _ name: VaultErrorName, to buffer: ReplyBuffer, _ parameters: (inout JSONObjectWriter) -> Void = { _ in }
    ) {
        VarlinkReply.appendError(name.qualifiedName, to: buffer, parameters)
    }
}
