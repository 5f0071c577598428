/// What an agent offers for one of its keys: the key, then the OpenSSH certificates
/// attached to it, under the key's comment (`user (label)`). Both of PinVault's agents
/// offer keys so, and know a key again from either blob.
public struct SSHAgentOffer: Sendable {
    public let publicKey: [UInt8]
    public let comment: String
    public let certificates: [[UInt8]]

    public init(publicKey: [UInt8], user: String, label: String?, certificates: [[UInt8]]) {
        self.publicKey = publicKey
        self.comment = SSHEd25519.comment(user: user, label: label)
        self.certificates = certificates
    }

    /// The identities of `offers`, in order, cut to what one IDENTITIES_ANSWER may hold
    /// (`SSHAgentLimits.maxMessageBytes`: ssh refuses a longer reply, and with it every
    /// key): every key is listed; certificates, in order, while they fit.
    public static func identities(_ offers: [SSHAgentOffer]) -> [SSHAgentReply.Identity] {
        func size(_ blob: [UInt8], _ comment: String) -> Int { 8 + blob.count + comment.utf8.count }
        let keys = offers.map { SSHAgentReply.Identity(publicKey: $0.publicKey, comment: $0.comment) }
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

    /// The raw Ed25519 public key of an `ssh-ed25519` key blob, or of the key an
    /// `ssh-ed25519-cert-v01@openssh.com` certificate certifies; nil for any other blob.
    public static func publicKey(ofBlob blob: [UInt8]) -> [UInt8]? {
        blob.withUnsafeBytes { bytes in
            (try? SSHEd25519.publicKey(fromBlob: bytes)) ?? (try? SSHCertificate(blob: bytes))?.publicKey
        }
    }
}
