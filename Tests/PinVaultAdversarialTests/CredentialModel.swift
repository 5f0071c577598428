import Foundation

/// What a crash-test client knows of one credential, from the calls it sent and the
/// replies it received.
///
/// A reply received means the operation committed; a call sent whole but cut off by
/// the crash may have committed or not, so the model then allows both outcomes until
/// the daemon, restarted, shows which one happened. A call that did not leave whole
/// cannot have been read, so the model goes back to what it was before it.
final class CredentialModel {
    /// Whether the credential exists, as far as acknowledged replies tell.
    enum Existence: Equatable {
        /// Register was sent but not answered.
        case maybeRegistered
        case exists
        /// CommitUnregister or Wipe was sent but not answered.
        case maybeDeleted
        /// Acknowledged deleted, or never registered (its Register did not leave).
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

    /// Everything a call in flight may change, so that an unsent call can be undone.
    struct Knowledge {
        /// The PIN the credential has: one, or two while a ChangePin went unanswered.
        var pins: Set<String>
        /// The new PIN of the ChangePin in flight.
        var changingTo: String?
        /// The values the failure counter may hold: exactly one once a reply or a
        /// restart settled it. A PIN in flight adds n+1 (counted before the check); a
        /// right one for Authenticate adds 0 too (counted, then cleared).
        var failures: Set<Int> = [0]
        /// For a ChangePin or BeginUnregister in flight, whose success shows (the new PIN
        /// opens, the credential is pending): what the counter may hold if it succeeded.
        /// `failures` then holds what it may hold if it did not.
        var failuresIfDone: Set<Int>?
        var existence: Existence = .maybeRegistered
        var pending: Pending = .none
    }

    /// Unique per registration, so that a credential found in List names its model.
    let user: String
    var keyId: String?
    var publicKey: String?
    var known: Knowledge

    init(user: String, pin: String) {
        self.user = user
        known = Knowledge(pins: [pin])
    }

    var pins: Set<String> {
        get { known.pins }
        set { known.pins = newValue }
    }
    var failures: Set<Int> {
        get { known.failures }
        set { known.failures = newValue }
    }
    var existence: Existence {
        get { known.existence }
        set { known.existence = newValue }
    }
    var pending: Pending {
        get { known.pending }
        set { known.pending = newValue }
    }

    /// The one PIN, when the model is sure of it.
    var pin: String? { pins.count == 1 ? pins.first : nil }

    /// The failure count, when the model is sure of it.
    var failureCount: Int? { failures.count == 1 ? failures.first : nil }

    /// True while the client may start an operation on it.
    var isSettled: Bool {
        existence == .exists && pins.count == 1 && failures.count == 1 && pending != .maybeBegun
    }

    /// Before sending a PIN: what the counter may hold once the call was read. A
    /// right PIN whose success shows (`successShows`) clears the counter only with it.
    func sendingPin(right: Bool, successShows: Bool = false) {
        let counted = Set(failures.map { $0 + 1 })
        failures.formUnion(counted)
        if right && successShows {
            known.failuresIfDone = [0]
        } else if right {
            failures.insert(0)
        }
    }

    /// A reply settled the call: the counter holds `count`.
    func settle(failures count: Int) {
        failures = [count]
        known.failuresIfDone = nil
        known.changingTo = nil
    }
}
