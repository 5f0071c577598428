/// A successful `authenticate`: the signature over exactly the challenge bytes, by the
/// credential's key (`Credential.Algorithm`).
public struct Authentication: Equatable, Sendable {
    /// The credential that signed.
    public var keyId: String
    /// Its raw public key (32 bytes for Ed25519, 65 for P-256).
    public var publicKey: [UInt8]
    /// The signature of the challenge: Ed25519's 64 bytes, or P-256's DER ECDSA-Sig-Value
    /// of SHA-256(challenge).
    public var signature: [UInt8]
    /// True when the PIN no longer meets the current policy: prompt for a change.
    public var pinPolicyOutdated: Bool
    /// The wrong PINs this right PIN cleared: tried since the credential's last success.
    /// Tell the owner when it is not 0 ("2 wrong PINs were tried since your last
    /// sign-in"): they may be someone else's guesses. 0 from a daemon that predates it.
    public var failedAttemptsCleared: Int

    /// Each field as given.
    public init(
        keyId: String, publicKey: [UInt8], signature: [UInt8], pinPolicyOutdated: Bool, failedAttemptsCleared: Int = 0
    ) {
        self.keyId = keyId
        self.publicKey = publicKey
        self.signature = signature
        self.pinPolicyOutdated = pinPolicyOutdated
        self.failedAttemptsCleared = failedAttemptsCleared
    }
}
