import PinVaultCrypto

/// Every size and range the wire protocol enforces, in one place.
///
/// The daemon checks these before it allocates anything for a value, and the client
/// library checks the same numbers before it sends, so that a request the daemon would
/// refuse never leaves the client.
public enum ProtocolLimits {
    /// Default `server.max_message_bytes`: one message, its NUL terminator included.
    /// A peer that sends this many bytes without a NUL is disconnected.
    public static let defaultMaxMessageBytes = 65_536

    /// Deepest nesting of JSON arrays and objects accepted in a message. Our calls need 2
    /// (call object → parameters); replies nest 4 (List → credentials → Credential).
    public static let maxJSONDepth = 32

    /// Longest `"interface.Method"` string accepted in a call, in bytes.
    public static let maxMethodNameBytes = 255

    /// `user`: 1–256 bytes of UTF-8 (an email, a username, an identity-provider id).
    public static let userBytes: ClosedRange<Int> = 1...256

    /// `label`: optional, 1–256 bytes of UTF-8 when present.
    public static let labelBytes: ClosedRange<Int> = 1...256

    /// `pin`, `currentPin`, `newPin`: 0–1024 bytes of UTF-8 after JSON unescaping. The
    /// empty PIN is let through so that the policy can name it (`empty`); the policy's
    /// own `max_length` is far tighter than this transport bound.
    public static let pinBytes: ClosedRange<Int> = 0...1024

    /// `challenge`: 1–1024 bytes once base64-decoded.
    public static let challengeBytes: ClosedRange<Int> = 1...1024

    /// `data` of AgentSign: what an ssh client asks its agent to sign, once
    /// base64-decoded — a userauth request with a certificate and an RSA host key stays
    /// under 8 KiB; this leaves room and keeps the call within `defaultMaxMessageBytes`.
    public static let agentDataBytes: ClosedRange<Int> = 1...32_768

    /// `SignDigest`'s digest: a SHA-256 digest, exactly (`KeyAlgorithm.digestSize`).
    public static let digestBytes: ClosedRange<Int> = KeyAlgorithm.digestSize...KeyAlgorithm.digestSize

    /// `certificate`: one OpenSSH certificate blob, once base64-decoded.
    public static let certificateBytes: ClosedRange<Int> = 1...16_384

    /// `ttlSeconds` of Unlock: at least 1 (the daemon then caps it at its
    /// `sessions.max_ttl_seconds`); at most a year, so that no arithmetic overflows.
    public static let ttlSeconds: ClosedRange<Int64> = 1...31_536_000

    /// `keyId`: exactly 32 lowercase hex digits (16 bytes of BLAKE2b-256).
    public static let keyIdHexDigits = 32

    /// The unregistration token: 32 random bytes.
    public static let tokenBytes = 32

    /// The unregistration token on the wire: 43 characters of unpadded base64url.
    public static let tokenCharacters = 43

    /// `Reset` runs only when `confirm` is exactly this string.
    public static let resetConfirmation = "RESET"

    /// `ownerUid`: a Linux uid (`uid_t` is 32-bit unsigned; `(uid_t)-1` is not a uid).
    public static let uidRange: ClosedRange<Int64> = 0...4_294_967_294

    /// A raw public key of any `KeyAlgorithm` (Ed25519 32 bytes, P-256 65); its exact
    /// size is its algorithm's (`KeyAlgorithm.isWellFormed`).
    public static let publicKeyBytes = 1...KeyAlgorithm.maxPublicKeySize

    /// A signature of any `KeyAlgorithm` (Ed25519 64 bytes, P-256 DER up to 72).
    public static let signatureBytes = 1...KeyAlgorithm.maxSignatureSize

    /// Most entries the client library accepts in one array of a reply (`credentials`,
    /// `deletedKeyIds`, `violations`, `keyIds`). Generous next to `credentials.max_per_uid`.
    public static let maxReplyArrayCount = 65_536
}
