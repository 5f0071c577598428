import PinVaultCore
import PinVaultCrypto

/// Every way an `io.pinvault.Vault` call can fail, as the service decides it. The
/// encoder turns each into its Varlink error (DESIGN §6); lower layers' errors are
/// translated into these at the service boundary, never passed through.
enum ServiceError: Error, Equatable {
    case wrongPin(remainingAttempts: Int)
    case lockedOut(retryAfterSeconds: Int64)
    case credentialBlocked
    case credentialWiped
    case pinPolicyViolation([PinViolation])
    case noSuchCredential
    case ambiguousCredential([KeyID])
    case tooManyCredentials(limit: Int)
    case unregistrationPending(expiresAt: Int64)
    case invalidToken
    case busy(retryAfterMilliseconds: Int)
    /// `org.varlink.service.InvalidParameter`.
    case invalidParameter(String)
    /// `org.varlink.service.PermissionDenied`.
    case permissionDenied
    /// The store or the system failed; the daemon's log says how. Nothing changed.
    case internalError
}
