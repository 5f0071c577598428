import PinVaultCrypto

/// An OpenSSH certificate of a key of PinVault's algorithms (PROTOCOL.certkeys:
/// `ssh-ed25519-cert-v01@openssh.com`, `ecdsa-sha2-nistp256-cert-v01@openssh.com`),
/// read field by field, exactly: a CA's signature
/// over a user's public key, principals and validity. PinVault keeps certificates an
/// owner attaches to an `ssh` credential and offers them beside its key; it never
/// signs one (a CA's key is not a PinVault key), and leaves checking the CA's signature
/// to the server that trusts the CA.
public struct SSHCertificate: Equatable, Sendable {
    /// The largest certificate PinVault keeps: OpenSSH's certificates with a few
    /// principals and an RSA CA are 1 to 2 KiB.
    public static let maxBytes = 16 * 1024

    /// What `ssh-keygen -s … -h` makes (host) or does not (user).
    public enum Kind: UInt32, Sendable {
        case user = 1
        case host = 2
    }

    /// The whole certificate blob, as ssh sends it in place of a key blob.
    public let blob: [UInt8]
    /// The certified key's algorithm; the certificate's type is its `sshCertificateName`.
    public let algorithm: KeyAlgorithm
    /// The certified raw public key.
    public let publicKey: [UInt8]
    public let serial: UInt64
    public let kind: Kind
    /// The CA's name for the certificate (`ssh-keygen -I`).
    public let keyId: [UInt8]
    /// The users (or hosts) it is valid for; empty means any.
    public let principals: [[UInt8]]
    /// Unix seconds; 0 and `UInt64.max` mean unbounded (`ssh-keygen -V always:forever`).
    public let validAfter: UInt64
    public let validBefore: UInt64

    /// Parses a certificate blob; every field must be there and nothing after the
    /// signature.
    public init(blob bytes: UnsafeRawBufferPointer) throws(SSHAgentMessageError) {
        guard bytes.count <= Self.maxBytes else { throw .unsupportedCertificate }
        var reader = SSHWireReader(bytes)
        do throws(SSHAgentMessageError) {
            let type = try reader.string()
            guard let algorithm = KeyAlgorithm.allCases.first(where: { type.elementsEqual($0.sshCertificateName.utf8) }) else {
                throw .unsupportedCertificate
            }
            self.algorithm = algorithm
            _ = try reader.string()  // nonce
            publicKey = try algorithm.readSSHPublicKey(&reader)
            serial = try reader.uint64()
            guard let kind = Kind(rawValue: try reader.uint32()) else { throw .unsupportedCertificate }
            self.kind = kind
            keyId = Array(try reader.string())
            var names = SSHWireReader(try reader.string())
            var principals: [[UInt8]] = []
            while !names.isAtEnd { principals.append(Array(try names.string())) }
            self.principals = principals
            validAfter = try reader.uint64()
            validBefore = try reader.uint64()
            _ = try reader.string()  // critical options
            _ = try reader.string()  // extensions
            _ = try reader.string()  // reserved
            guard try !reader.string().isEmpty, try !reader.string().isEmpty else { throw .unsupportedCertificate }  // CA key, signature
            try reader.expectEnd()
        } catch {
            throw .unsupportedCertificate
        }
        blob = Array(bytes)
    }

    /// The certificate's type, `ssh-ed25519-cert-v01@openssh.com` for instance.
    public var typeName: String { algorithm.sshCertificateName }

    /// The certified key.
    public var key: SSHKey { SSHKey(algorithm: algorithm, publicKey: publicKey) }

    /// The OpenSSH line (`TYPE BASE64 comment`), as `ssh-keygen -s` writes a certificate file.
    public func line(comment: String?) -> String {
        let encoded = SSHKey.base64(blob)
        guard let comment, !comment.isEmpty else { return typeName + " " + encoded }
        return typeName + " " + encoded + " " + comment
    }

    /// Whether `name` is the type of a certificate PinVault reads (`TYPE` of a certificate line).
    public static func isTypeName(_ name: some StringProtocol) -> Bool {
        KeyAlgorithm.allCases.contains { $0.sshCertificateName == name }
    }
}
