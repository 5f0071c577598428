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
}
