import PinVaultCrypto
import PinVaultProtocol

/// The protocol's limits, checked before a call is sent: a value the daemon would refuse
/// with `InvalidParameter` never leaves the client, and throws the same error here.
///
/// Only lengths and formats the wire defines are checked. What the daemon decides from
/// values (control characters in a user name, an `ownerUid` that is not a uid) is left
/// to it, so that the answer comes from one place.
enum ClientLimits {
    /// `user`: 1-256 bytes of UTF-8.
    static func checkUser(_ user: String, parameter: String = "user") throws(PinVaultError) {
        guard ProtocolLimits.userBytes.contains(user.utf8.count) else { throw .invalidParameter(parameter) }
    }

    /// `label`: absent, or 1-256 bytes of UTF-8.
    static func checkLabel(_ label: String?) throws(PinVaultError) {
        guard let label else { return }
        guard ProtocolLimits.labelBytes.contains(label.utf8.count) else { throw .invalidParameter("label") }
    }

    /// A PIN sent as `parameter`: at most 1024 bytes of valid UTF-8 (anything else would
    /// make a frame that is not JSON, and the daemon would drop the connection), and not
    /// empty unless `allowingEmpty` (CheckPin, whose answer for it is `empty`): an empty
    /// PIN is never right, and sending it could only cost an attempt. Validated in place,
    /// in secret memory.
    static func checkPin(_ pin: SecretBytes, parameter: String, allowingEmpty: Bool) throws(PinVaultError) {
        guard ProtocolLimits.pinBytes.contains(pin.count), allowingEmpty || pin.count > 0 else {
            throw .invalidParameter(parameter)
        }
        guard pin.withUnsafeBytes(isValidUTF8) else { throw .invalidParameter(parameter) }
    }

    /// Whether `bytes` are well-formed UTF-8 (no overlong form, surrogate or scalar past
    /// U+10FFFF), read without copying them.
    static func isValidUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var iterator = bytes.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }

    /// `keyId`: absent, or 32 lowercase hex digits.
    static func checkKeyId(_ keyId: String?) throws(PinVaultError) {
        guard let keyId else { return }
        let hex = keyId.utf8.allSatisfy { byte in
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
        }
        guard hex, keyId.utf8.count == ProtocolLimits.keyIdHexDigits else { throw .invalidParameter("keyId") }
    }

    /// `challenge`: 1-1024 bytes (Authenticate), or as many as `range` allows (Sign's 16 KiB).
    static func checkChallenge(
        _ challenge: [UInt8], within range: ClosedRange<Int> = ProtocolLimits.challengeBytes
    ) throws(PinVaultError) {
        guard range.contains(challenge.count) else { throw .invalidParameter("challenge") }
    }

    /// Unlock's `ttlSeconds`: a duration of whole seconds in `ProtocolLimits.ttlSeconds`,
    /// rounded up (a session is never shorter than asked, short of the daemon's cap).
    static func ttlSeconds(_ ttl: Duration) throws(PinVaultError) -> Int64 {
        let (seconds, attoseconds) = ttl.components
        let whole = attoseconds > 0 ? seconds + 1 : seconds
        guard ProtocolLimits.ttlSeconds.contains(whole) else { throw .invalidParameter("ttlSeconds") }
        return whole
    }

    /// `token`: 43 characters of base64url (the daemon checks the alphabet).
    static func checkToken(_ token: UnregistrationToken) throws(PinVaultError) {
        let count = token.withUnsafeBytes { $0.count }
        guard count == ProtocolLimits.tokenCharacters else { throw .invalidParameter("token") }
    }
}
