import PinVaultCrypto

/// What an agent offers for one of its keys: the key, then the OpenSSH certificates
/// attached to it, under the key's comment (`user (label)`). Both of PinVault's agents
/// offer keys so, and know a key again from either blob.
public struct SSHAgentOffer: Sendable {
    public let key: SSHKey
    public let comment: String
    public let certificates: [[UInt8]]

    public init(algorithm: KeyAlgorithm, publicKey: [UInt8], user: String, label: String?, certificates: [[UInt8]]) {
        self.key = SSHKey(algorithm: algorithm, publicKey: publicKey)
        self.comment = SSHKey.comment(user: user, label: label)
        self.certificates = certificates
    }

    /// The identities of `offers`, in order, cut to what one IDENTITIES_ANSWER may hold
    /// (`SSHAgentLimits.maxMessageBytes`: ssh refuses a longer reply, and with it every
    /// key): every key is listed; certificates, in order, while they fit.
    public static func identities(_ offers: [SSHAgentOffer]) -> [SSHAgentReply.Identity] {
        func size(_ blob: [UInt8], _ comment: String) -> Int { 8 + blob.count + comment.utf8.count }
        let keys = offers.map { SSHAgentReply.Identity(keyBlob: $0.key.blob, comment: $0.comment) }
        var room = SSHAgentLimits.maxMessageBytes - 5 - keys.reduce(0) { $0 + size($1.keyBlob, $1.comment) }
        var identities: [SSHAgentReply.Identity] = []
        for (offer, key) in zip(offers, keys) {
            identities.append(key)
            let comment = offer.comment + " (certificate)"
            for certificate in offer.certificates where size(certificate, comment) <= room {
                room -= size(certificate, comment)
                identities.append(SSHAgentReply.Identity(keyBlob: certificate, comment: comment))
            }
        }
        return identities
    }

    /// The key of a key blob of PinVault's algorithms, or the key a certificate of one
    /// certifies; nil for any other blob.
    public static func key(ofBlob blob: [UInt8]) -> SSHKey? {
        blob.withUnsafeBytes { bytes in SSHKey(blob: bytes) ?? (try? SSHCertificate(blob: bytes))?.key }
    }

    /// The raw public key of `key(ofBlob:)`: what tells a credential's key apart (its
    /// key id is this key's hash, whatever its algorithm).
    public static func publicKey(ofBlob blob: [UInt8]) -> [UInt8]? {
        key(ofBlob: blob)?.publicKey
    }
}
