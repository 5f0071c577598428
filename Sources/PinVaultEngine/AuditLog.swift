import Logging
import PinVaultCrypto

/// Security-relevant events, logged at `notice` with the caller's uid and pid and the
/// credential's keyId. By construction it takes no free text: a PIN, seed, token or
/// pepper has no way in.
struct AuditLog: Sendable {
    enum Event: String, Sendable {
        case register
        case authenticationSucceeded = "auth.ok"
        case authenticationFailed = "auth.failed"
        case throttled
        case blocked
        case wiped
        case pinChanged = "pin.changed"
        case resealed
        case unregisterBegin = "unregister.begin"
        case unregisterCommit = "unregister.commit"
        case unregisterAbort = "unregister.abort"
        case accountWiped = "account.wiped"
        case unblocked
        case reset
        case sessionUnlocked = "session.unlock"
        case sessionLocked = "session.lock"
        case sessionExpired = "session.expired"
        case sessionEnded = "session.end"
        case forwardedSignatureRefused = "sign.forwarding_refused"
    }

    let logger: Logger

    func record(_ event: Event, caller: Caller, keyId: KeyID? = nil, ownerUid: UInt32? = nil, count: Int? = nil) {
        var metadata: Logger.Metadata = [
            "event": "\(event.rawValue)",
            "uid": "\(caller.uid)",
            "pid": "\(caller.pid)",
        ]
        if let keyId { metadata["keyId"] = "\(keyId.hex)" }
        if let ownerUid, ownerUid != caller.uid { metadata["ownerUid"] = "\(ownerUid)" }
        if let count { metadata["count"] = "\(count)" }
        logger.notice("audit", metadata: metadata)
    }

    /// An unlock session opened or extended, until `ttlSeconds` from now.
    func recordUnlock(caller: Caller, keyId: KeyID, ttlSeconds: Int64, extended: Bool, bound: Bool) {
        logger.notice("audit", metadata: [
            "event": "\(Event.sessionUnlocked.rawValue)",
            "uid": "\(caller.uid)",
            "pid": "\(caller.pid)",
            "keyId": "\(keyId.hex)",
            "ttlSeconds": "\(ttlSeconds)",
            "extended": "\(extended)",
            "bound": "\(bound)",
        ])
    }

    /// A session's end: one line per session, however many signatures it made (never
    /// one per signature). `caller` is who ended it, when someone did (Lock, a change
    /// of the credential); the owner's uid stands alone for an expiry or the exit.
    func recordSessionEnd(keyId: KeyID, owner: UInt32, reason: SessionEnd, signatures: Int, caller: Caller?) {
        let event: Event = switch reason {
        case .locked: .sessionLocked
        case .expired: .sessionExpired
        case .connectionClosed, .credentialChanged, .daemonExit: .sessionEnded
        }
        var metadata: Logger.Metadata = [
            "event": "\(event.rawValue)",
            "uid": "\(caller?.uid ?? owner)",
            "keyId": "\(keyId.hex)",
            "reason": "\(reason.rawValue)",
            "signatures": "\(signatures)",
        ]
        if let caller {
            metadata["pid"] = "\(caller.pid)"
            if caller.uid != owner { metadata["ownerUid"] = "\(owner)" }
        }
        logger.notice("audit", metadata: metadata)
    }
}
