import PinVaultCrypto

/// The SSH part of the `KeyAlgorithm` table (PinVaultCrypto holds the rest): each
/// algorithm's key type, its public key's fields in a key or certificate blob, and its
/// signature blob. An exhaustive switch each, so a third algorithm does not build until
/// it says how SSH writes it.
///
/// - Ed25519 (RFC 8709): key `string "ssh-ed25519", string key(32)`; signature
///   `string "ssh-ed25519", string signature(64)`.
/// - ECDSA P-256 (RFC 5656 §3.1): key `string "ecdsa-sha2-nistp256", string "nistp256",
///   string Q` (the SEC1 uncompressed point, 65 bytes); signature
///   `string "ecdsa-sha2-nistp256", string (mpint r, mpint s)`, SHA-256 over the data.
extension KeyAlgorithm {
    /// The key type, which is also the signature algorithm's name.
    public var sshName: String {
        switch self {
        case .ed25519: "ssh-ed25519"
        case .p256: "ecdsa-sha2-nistp256"
        }
    }

    /// The type of an OpenSSH certificate of such a key (PROTOCOL.certkeys), also the
    /// algorithm name a userauth request with it carries.
    public var sshCertificateName: String { sshName + "-cert-v01@openssh.com" }

    var sshNameBytes: [UInt8] { Array(sshName.utf8) }

    /// The curve identifier an ECDSA key blob holds after its type.
    private static let nistp256 = Array("nistp256".utf8)

    /// Writes the public key's fields (after the type) as a key and a certificate blob hold them.
    func writeSSHPublicKey(_ publicKey: [UInt8], into writer: inout SSHWireWriter) {
        switch self {
        case .ed25519:
            writer.string(publicKey)
        case .p256:
            writer.string(Self.nistp256)
            writer.string(publicKey)
        }
    }

    /// Reads the public key's fields (after the type); throws for any other size, curve
    /// or point form.
    func readSSHPublicKey(_ reader: inout SSHWireReader) throws(SSHAgentMessageError) -> [UInt8] {
        switch self {
        case .ed25519:
            break
        case .p256:
            guard try reader.string().elementsEqual(Self.nistp256) else { throw .unsupportedKey }
        }
        let key = Array(try reader.string())
        guard isWellFormed(publicKey: key) else { throw .unsupportedKey }
        return key
    }

    /// The SSH signature blob of a signature in its wire form (`KeyAlgorithm`); nil when
    /// the signature is not well formed (a P-256 one that is not a DER pair).
    public func sshSignatureBlob(_ signature: [UInt8]) -> [UInt8]? {
        var writer = SSHWireWriter(capacity: 32 + signature.count)
        writer.string(sshNameBytes)
        switch self {
        case .ed25519:
            guard signature.count == Ed25519.signatureSize else { return nil }
            writer.string(signature)
        case .p256:
            // An mpint is a minimal two's-complement integer, as a DER INTEGER's contents are.
            guard let (r, s) = ECDSASignature.integers(der: signature, scalarSize: P256.scalarSize) else { return nil }
            var pair = SSHWireWriter(capacity: 8 + r.count + s.count)
            pair.string(r)
            pair.string(s)
            writer.string(pair.bytes)
        }
        return writer.bytes
    }
}
