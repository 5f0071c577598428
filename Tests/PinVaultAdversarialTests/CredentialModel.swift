import Foundation

/// What a crash-test client knows of one credential, from the replies it received.
///
/// A reply received means the operation committed; a call cut off by SIGKILL may
/// have committed or not, so the model then allows both outcomes until the daemon,
/// restarted, shows which one happened.
final class CredentialModel {
    /// Whether the credential exists, as far as acknowledged replies tell.
    enum Existence: Equatable {
        /// Register was sent but not answered.
        case maybeRegistered
        case exists
        /// CommitUnregister or Wipe was sent but not answered.
        case maybeDeleted
        case deleted
    }

    /// The unregistration in progress, as far as acknowledged replies tell.
    enum Pending: Equatable {
        case none
        /// Answered: pending with this token until this expiry.
        case pending(token: String, expiresAt: String)
        /// BeginUnregister sent, not answered: pending with a token we never saw, or not.
        case maybeBegun
        /// AbortUnregister sent, not answered: still pending, or active again.
        case maybeAborted(token: String, expiresAt: String)
    }

    /// Unique per registration, so that a credential found in List names its model.
    let user: String
    var keyId: String?
    var publicKey: String?
    /// The PIN the credential has: one, or two while a ChangePin went unanswered.
    var pins: Set<String>
    /// Wrong PINs answered since the last success: the failure counter may never be lower.
    var minimumFailures = 0
    var existence: Existence = .maybeRegistered
    var pending: Pending = .none

    init(user: String, pin: String) {
        self.user = user
        pins = [pin]
    }

    /// The one PIN, when the model is sure of it.
    var pin: String? { pins.count == 1 ? pins.first : nil }

    /// True while the client may start an operation on it.
    var isSettled: Bool {
        existence == .exists && pins.count == 1 && pending != .maybeBegun
    }
}
