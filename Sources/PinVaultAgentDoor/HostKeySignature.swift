import CPinVaultOpenSSL
import PinVaultCrypto
import PinVaultSSHProtocol

/// Checks an SSH server's signature with its host key, as OpenSSH's agent checks the one
/// `session-bind@openssh.com` carries (`sshkey_verify` of the session identifier): the
/// host key types servers offer — Ed25519 (libsodium), ECDSA over P-256, P-384 and
/// P-521 and RSA with SHA-2 (the system's libcrypto). Anything else (a host
/// certificate, a security-key host key, RSA with SHA-1) does not verify.
public enum HostKeySignature {
    /// OpenSSH's smallest RSA key (`SSH_RSA_MINIMUM_MODULUS_SIZE`).
    static let minimumRSABits: UInt32 = 1024

    /// Whether `signatureBlob` (string algorithm, string signature) is `hostKeyBlob`'s
    /// signature of exactly `data`.
    public static func verify(hostKeyBlob: [UInt8], signatureBlob: [UInt8], data: [UInt8]) -> Bool {
        hostKeyBlob.withUnsafeBytes { key in
            signatureBlob.withUnsafeBytes { signature in
                data.withUnsafeBytes { data in
                    (try? verify(key: key, signature: signature, data: data)) == true
                }
            }
        }
    }

    private static func verify(
        key keyBlob: UnsafeRawBufferPointer, signature signatureBlob: UnsafeRawBufferPointer, data: UnsafeRawBufferPointer
    ) throws(SSHAgentMessageError) -> Bool {
        var key = SSHWireReader(keyBlob)
        var signature = SSHWireReader(signatureBlob)
        let keyType = String(decoding: try key.cString(), as: UTF8.self)
        let algorithm = String(decoding: try signature.cString(), as: UTF8.self)
        let signed = try signature.string()
        try signature.expectEnd()
        switch keyType {
        case "ssh-ed25519":
            let publicKey = Array(try key.string())
            try key.expectEnd()
            return algorithm == keyType && Ed25519.verify(signature: Array(signed), message: data, publicKey: publicKey)
        case "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521":
            let (group, digest, curve) = switch keyType {
            case "ecdsa-sha2-nistp256": ("P-256", "SHA256", "nistp256")
            case "ecdsa-sha2-nistp384": ("P-384", "SHA384", "nistp384")
            default: ("P-521", "SHA512", "nistp521")
            }
            guard try key.string().elementsEqual(curve.utf8), algorithm == keyType else { return false }
            let point = try key.string()
            try key.expectEnd()
            var integers = SSHWireReader(signed)
            let r = try integers.mpint(), s = try integers.mpint()
            try integers.expectEnd()
            return CPinVaultOpenSSL_ecdsa_verify(
                group, digest, point.baseAddress, point.count, r.baseAddress, r.count, s.baseAddress, s.count,
                data.baseAddress, data.count
            ) == 1
        case "ssh-rsa":
            let digest: String
            switch algorithm {
            case "rsa-sha2-256": digest = "SHA256"
            case "rsa-sha2-512": digest = "SHA512"
            default: return false  // ssh-rsa (SHA-1): OpenSSH no longer accepts it either
            }
            let exponent = try key.mpint(), modulus = try key.mpint()
            try key.expectEnd()
            return CPinVaultOpenSSL_rsa_verify(
                digest, UInt32(minimumRSABits), modulus.baseAddress, modulus.count, exponent.baseAddress, exponent.count,
                signed.baseAddress, signed.count, data.baseAddress, data.count
            ) == 1
        default:
            return false
        }
    }
}

extension SSHWireReader {
    /// An `mpint` (RFC 4251 §5) that is not negative, without its leading zero byte.
    mutating func mpint() throws(SSHAgentMessageError) -> UnsafeRawBufferPointer {
        let value = try string()
        guard let first = value.first, first & 0x80 == 0 else {
            guard value.isEmpty else { throw .malformedName }
            return value
        }
        return first == 0 ? UnsafeRawBufferPointer(rebasing: value.dropFirst()) : value
    }
}
