import ArgumentParser
import PinVaultClient
import PinVaultProtocol

/// The exit status of every `pinvault` command: one per kind of outcome a script may
/// want to tell apart. 64 and 69 are sysexits' EX_USAGE and EX_UNAVAILABLE.
enum ExitStatus: Int32, CaseIterable {
    /// The command did what it was asked.
    case success = 0
    /// Any other failure: an internal error of the daemon, a protocol error, a lost
    /// connection, too many credentials, sessions or certificates, the two PINs typed
    /// differ, a declined confirmation, stdout that could not be written.
    case failure = 1
    /// The PIN is wrong; the attempt was counted.
    case wrongPin = 2
    /// Too many wrong PINs: the credential is throttled for a while.
    case lockedOut = 3
    /// The credential is blocked (an admin can unblock it) or was wiped.
    case blockedOrWiped = 4
    /// The PIN breaks the policy (also `check-pin` of such a PIN).
    case policyViolation = 5
    /// No such credential, or several and neither `--label` nor `--key-id` chose one.
    case noSuchCredential = 6
    /// Only an admin may do this.
    case permissionDenied = 7
    /// A queue of the daemon is full; retry shortly. Nothing was counted.
    case busy = 8
    /// The unregistration token is wrong or expired, or an unregistration is pending.
    case invalidToken = 9
    /// The credential is not unlocked for this user (`sign`): `pinvault unlock` first.
    case notUnlocked = 10
    /// The credential's key is for another purpose than this command (an `ssh` key and
    /// `auth` or `sign`, say): use one registered for it. Nothing was counted.
    case wrongPurpose = 11
    /// The session refuses this use: it was unlocked to confirm each use (only the
    /// per-user agent can ask), or the request came through a forwarded agent.
    case sessionRefused = 12
    /// The credential changed while the command ran (a `change-pin` meanwhile): nothing
    /// was done or counted; run the command again.
    case conflict = 13
    /// The command line is wrong, no terminal to read a secret from, or the daemon
    /// refused a value as malformed (InvalidParameter).
    case usage = 64
    /// pinvaultd cannot be reached on its socket (or an untrusted uid serves it: UntrustedServer), or is stopping (ShuttingDown).
    case unavailable = 69

    /// The status for a failed call. The daemon's own errors go through an exhaustive
    /// switch over the interface's error names, so that one added to the interface file
    /// does not build until it has its status here.
    init(_ error: PinVaultError) {
        if let vault = VaultErrorName(qualifiedName: error.code.description) {
            switch vault {
            case .wrongPin: self = .wrongPin
            case .lockedOut: self = .lockedOut
            case .credentialBlocked, .credentialWiped, .unblockRefused: self = .blockedOrWiped
            case .pinPolicyViolation: self = .policyViolation
            case .noSuchCredential, .ambiguousCredential: self = .noSuchCredential
            case .busy: self = .busy
            case .conflict: self = .conflict
            case .shuttingDown: self = .unavailable
            case .invalidToken, .unregistrationPending: self = .invalidToken
            case .notUnlocked: self = .notUnlocked
            case .wrongPurpose: self = .wrongPurpose
            case .confirmationRequired, .forwardingNotAllowed: self = .sessionRefused
            case .tooManyCertificates, .tooManyCredentials, .tooManySessions, .internalError: self = .failure
            }
            return
        }
        switch error.code {
        case .permissionDenied: self = .permissionDenied
        // A malformed token is an invalid one: it was read as a secret, not given as an option.
        case .invalidParameter: self = error.name == "token" ? .invalidToken : .usage
        case .daemonUnavailable, .untrustedServer: self = .unavailable
        default: self = .failure  // methodNotFound, interfaceNotFound, the transport's failures
        }
    }

    /// What `pinvault --help` and the README say about each status (one short line).
    var summary: String {
        switch self {
        case .success: "success"
        case .failure: "other failure: daemon error, lost connection, PINs differ, not confirmed, stdout not writable"
        case .wrongPin: "wrong PIN (the attempt was counted)"
        case .lockedOut: "locked out after wrong PINs: wait and retry"
        case .blockedOrWiped: "credential blocked (an admin can unblock it) or wiped"
        case .policyViolation: "the PIN breaks the PIN policy"
        case .noSuchCredential: "no such credential, or several and no --label or --key-id"
        case .permissionDenied: "permission denied (admins only)"
        case .busy: "the daemon is busy: retry shortly (nothing was counted)"
        case .invalidToken: "invalid or expired token, or an unregistration is pending"
        case .notUnlocked: "the credential is not unlocked (pinvault unlock)"
        case .wrongPurpose: "the credential's key is for another purpose than this command"
        case .sessionRefused: "the session refuses this use (unlocked to confirm each use, or forwarding)"
        case .conflict: "the credential changed meanwhile: run it again (nothing was counted)"
        case .usage: "usage error, unknown command, no terminal for a secret, or a malformed value"
        case .unavailable: "pinvaultd cannot be reached on its socket (or an untrusted uid serves it), or is stopping"
        }
    }

    /// The table of every status, for `--help`.
    static var table: String {
        allCases.map { status in
            let code = String(status.rawValue)
            return String(repeating: " ", count: 4 - code.count) + code + "  " + status.summary
        }.joined(separator: "\n")
    }

    /// Ends the command with this status (ArgumentParser exits without printing).
    var exitCode: ExitCode { ExitCode(rawValue) }
}
