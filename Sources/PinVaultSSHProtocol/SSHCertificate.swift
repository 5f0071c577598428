/// An OpenSSH certificate of an Ed25519 key (PROTOCOL.certkeys,
/// `ssh-ed25519-cert-v01@openssh.com`), read field by field, exactly: a CA's signature
/// over a user's public key, principals and validity. PinVault keeps certificates an
/// owner attaches to an `ssh` credential and offers them beside its key; it never
/// signs one (a CA's key is not a PinVault key), and leaves checking the CA's signature
/// to the server that trusts the CA.
public struct SSHCertificate: Equatable, Sendable {
    /// The key type and the userauth algorithm name of such a certificate.
    public static let typeName = "ssh-ed25519-cert-v01@openssh.com"
    static let typeNameBytes = Array(typeName.utf8)
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
    /// The certified raw 32-byte Ed25519 public key.
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
        guard bytes.count <= Self.maxBytes else { throw .notAnEd25519Certificate }
        var reader = SSHWireReader(bytes)
        do throws(SSHAgentMessageError) {
            guard try reader.string().elementsEqual(Self.typeNameBytes) else { throw .notAnEd25519Certificate }
            _ = try reader.string()  // nonce
            let key = try reader.string()
            guard key.count == SSHEd25519.publicKeyBytes else { throw .notAnEd25519Certificate }
            publicKey = Array(key)
            serial = try reader.uint64()
            guard let kind = Kind(rawValue: try reader.uint32()) else { throw .notAnEd25519Certificate }
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
            guard try !reader.string().isEmpty, try !reader.string().isEmpty else { throw .notAnEd25519Certificate }  // CA key, signature
            try reader.expectEnd()
        } catch {
            throw .notAnEd25519Certificate
        }
        blob = Array(bytes)
    }

    /// The OpenSSH line (`ssh-ed25519-cert-v01@openssh.com BASE64 comment`), as
    /// `ssh-keygen -s` writes a certificate file.
    public func line(comment: String?) -> String {
        let encoded = SSHEd25519.base64(blob)
        guard let comment, !comment.isEmpty else { return Self.typeName + " " + encoded }
        return Self.typeName + " " + encoded + " " + comment
    }
}
