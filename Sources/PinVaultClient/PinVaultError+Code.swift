import FoundationEssentials
import PinVaultProtocol

extension PinVaultError {
    /// What failed: a Varlink error the daemon answered, under its interface and name,
    /// or a failure on the client's side of the socket (no interface). New codes may
    /// appear in later releases; compare with the constants here.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// `io.pinvault.Vault` or `org.varlink.service`; nil for the client's own failures.
        public let interface: String?
        /// The error's name, e.g. `WrongPin`, `PermissionDenied`, `ConnectionLost`.
        public let name: String

        init(interface: String?, name: String) {
            self.interface = interface
            self.name = name
        }

        init(_ vault: VaultErrorName) {
            self.init(interface: VaultInterface.name, name: vault.rawValue)
        }

        /// `interface.Name` for the daemon's errors (the Varlink error name), `Name` otherwise.
        public var description: String {
            interface.map { $0 + "." + name } ?? name
        }

        // io.pinvault.Vault

        /// The PIN is wrong; the failure was counted (`remainingAttempts`).
        public static let wrongPin = Code(.wrongPin)
        /// Too many wrong PINs: no PIN is checked before `retryAfter`. Not counted.
        public static let lockedOut = Code(.lockedOut)
        /// Too many wrong PINs: only an admin `unblock` revives the credential.
        public static let credentialBlocked = Code(.credentialBlocked)
        /// Too many wrong PINs: the credential has been deleted.
        public static let credentialWiped = Code(.credentialWiped)
        /// `unblock` only: `wrongPins` wrong PINs (at least twice the daemon's
        /// `maxAttempts`) were tried since the owner's last success, so no admin may
        /// revive the credential. Nothing was changed; only deleting it is left.
        public static let unblockRefused = Code(.unblockRefused)
        /// The PIN breaks rules of the policy (`violations`).
        public static let pinPolicyViolation = Code(.pinPolicyViolation)
        /// No such credential for the caller (another uid's credential is reported so too).
        public static let noSuchCredential = Code(.noSuchCredential)
        /// No keyId was given, but the user holds several credentials (`keyIds`).
        public static let ambiguousCredential = Code(.ambiguousCredential)
        /// The per-user or per-uid limit of credentials is reached (`limit`).
        public static let tooManyCredentials = Code(.tooManyCredentials)
        /// An unregistration is pending on the credential (`expiresAt`).
        public static let unregistrationPending = Code(.unregistrationPending)
        /// The unregistration token is wrong, or nothing is pending for that keyId.
        public static let invalidToken = Code(.invalidToken)
        /// A queue of the daemon is full (KDF, store or signing): retry after `retryAfter`.
        /// Nothing was done or counted.
        public static let busy = Code(.busy)
        /// The credential changed while the call ran (a ChangePin, say): nothing was done
        /// or counted. Retry at once.
        public static let conflict = Code(.conflict)
        /// The daemon is stopping and takes no new work: nothing was done or counted.
        /// Retry on a new connection (`PinVaultClient` makes one).
        public static let shuttingDown = Code(.shuttingDown)
        /// The caller's uid has as many unlock sessions as the daemon allows (`limit`):
        /// lock one. Refused before the PIN.
        public static let tooManySessions = Code(.tooManySessions)
        /// No unlock session of the caller on that key: never unlocked, locked, expired,
        /// ended by a change of the credential, or another uid's credential.
        public static let notUnlocked = Code(.notUnlocked)
        /// The daemon's store or system failed; nothing was changed or counted.
        public static let internalError = Code(.internalError)
        /// The credential's key is for another `purpose` than this call serves (an
        /// `ssh` key and `sign`, say). Nothing was counted.
        public static let wrongPurpose = Code(.wrongPurpose)
        /// The signature was asked through a connection ssh forwarded (`ssh -A`), and the
        /// key was not unlocked to allow that.
        public static let forwardingNotAllowed = Code(.forwardingNotAllowed)
        /// The key was unlocked to confirm each use, and the call did not confirm this one.
        public static let confirmationRequired = Code(.confirmationRequired)
        /// The credential carries as many OpenSSH certificates as it may (`limit`).
        public static let tooManyCertificates = Code(.tooManyCertificates)

        // org.varlink.service

        /// The daemon refused a parameter, named by `name` (never its value). The client
        /// also throws this itself, without sending, for a value the daemon would refuse.
        public static let invalidParameter = Code(interface: "org.varlink.service", name: "InvalidParameter")
        /// The caller may not do this (an admin-only method, or `ownerUid`).
        public static let permissionDenied = Code(interface: "org.varlink.service", name: "PermissionDenied")
        /// The daemon has no such method (an older daemon), named by `name`.
        public static let methodNotFound = Code(interface: "org.varlink.service", name: "MethodNotFound")
        /// The daemon does not serve this interface, named by `name`.
        public static let interfaceNotFound = Code(interface: "org.varlink.service", name: "InterfaceNotFound")

        // The client's own

        /// The daemon's socket could not be connected (`socket`: ENOENT, ECONNREFUSED, EACCES…).
        public static let daemonUnavailable = Code(interface: nil, name: "DaemonUnavailable")
        /// The socket is served by a uid that is neither root, the `pinvault` user nor the
        /// caller's own (`server`): nothing was sent, the connection is closed.
        public static let untrustedServer = Code(interface: nil, name: "UntrustedServer")
        /// The connection ended (EOF or reset) before the reply; the connection is closed.
        public static let connectionLost = Code(interface: nil, name: "ConnectionLost")
        /// No reply came within the client's timeout; the connection is closed.
        public static let timedOut = Code(interface: nil, name: "TimedOut")
        /// The calling Task was cancelled: before the call was sent (the connection goes
        /// on), or while it was in flight (the connection is closed).
        public static let cancelled = Code(interface: nil, name: "Cancelled")
        /// The reply was not what the interface says (`reason`): malformed, an unknown
        /// error name, or larger than the client accepts. The connection is closed.
        public static let protocolError = Code(interface: nil, name: "ProtocolError")
        /// A `PIN` that was already consumed or wiped was passed again.
        public static let pinConsumed = Code(interface: nil, name: "PinConsumed")

        /// Every code this release knows, the daemon's in the interface's order.
        public static let known: [Code] = VaultErrorName.allCases.map(Code.init) + [
            .invalidParameter, .permissionDenied, .methodNotFound, .interfaceNotFound,
            .daemonUnavailable, .untrustedServer, .connectionLost, .timedOut, .cancelled, .protocolError, .pinConsumed,
        ]
    }

    // MARK: Errors

    public static func wrongPin(remainingAttempts: Int) -> PinVaultError { .init(Code.wrongPin, .remainingAttempts(remainingAttempts)) }
    public static func lockedOut(retryAfter: Duration) -> PinVaultError { .init(Code.lockedOut, .retryAfter(retryAfter)) }
    public static let credentialBlocked = PinVaultError(Code.credentialBlocked)
    public static let credentialWiped = PinVaultError(Code.credentialWiped)
    public static func unblockRefused(wrongPins: Int) -> PinVaultError { .init(Code.unblockRefused, .wrongPins(wrongPins)) }
    public static func pinPolicyViolation(_ violations: [PinViolation]) -> PinVaultError { .init(Code.pinPolicyViolation, .violations(violations)) }
    public static let noSuchCredential = PinVaultError(Code.noSuchCredential)
    public static func ambiguousCredential(keyIds: [String]) -> PinVaultError { .init(Code.ambiguousCredential, .keyIds(keyIds)) }
    public static func tooManyCredentials(limit: Int) -> PinVaultError { .init(Code.tooManyCredentials, .limit(limit)) }
    public static func unregistrationPending(expiresAt: Date) -> PinVaultError { .init(Code.unregistrationPending, .expiresAt(expiresAt)) }
    public static let invalidToken = PinVaultError(Code.invalidToken)
    public static func busy(retryAfter: Duration) -> PinVaultError { .init(Code.busy, .retryAfter(retryAfter)) }
    public static let conflict = PinVaultError(Code.conflict)
    public static let shuttingDown = PinVaultError(Code.shuttingDown)
    public static func tooManySessions(limit: Int) -> PinVaultError { .init(Code.tooManySessions, .limit(limit)) }
    public static let notUnlocked = PinVaultError(Code.notUnlocked)
    public static let internalError = PinVaultError(Code.internalError)
    public static func wrongPurpose(_ purpose: Credential.Purpose) -> PinVaultError { .init(Code.wrongPurpose, .purpose(purpose)) }
    public static let forwardingNotAllowed = PinVaultError(Code.forwardingNotAllowed)
    public static let confirmationRequired = PinVaultError(Code.confirmationRequired)
    public static func tooManyCertificates(limit: Int) -> PinVaultError { .init(Code.tooManyCertificates, .limit(limit)) }
    public static func invalidParameter(_ parameter: String) -> PinVaultError { .init(Code.invalidParameter, .name(parameter)) }
    public static let permissionDenied = PinVaultError(Code.permissionDenied)
    public static func methodNotFound(_ method: String) -> PinVaultError { .init(Code.methodNotFound, .name(method)) }
    public static func interfaceNotFound(_ interface: String) -> PinVaultError { .init(Code.interfaceNotFound, .name(interface)) }
    public static func daemonUnavailable(socketPath: String, errno: Int32) -> PinVaultError {
        .init(Code.daemonUnavailable, .socket(path: socketPath, errno: errno))
    }
    public static func untrustedServer(socketPath: String, uid: UInt32) -> PinVaultError {
        .init(Code.untrustedServer, .server(path: socketPath, uid: uid))
    }
    public static let connectionLost = PinVaultError(Code.connectionLost)
    public static let timedOut = PinVaultError(Code.timedOut)
    public static let cancelled = PinVaultError(Code.cancelled)
    public static func protocolError(_ reason: String) -> PinVaultError { .init(Code.protocolError, .reason(reason)) }
    public static let pinConsumed = PinVaultError(Code.pinConsumed)
}
