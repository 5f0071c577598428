/// Ed25519 keys and signatures in SSH's encodings (RFC 8709): the key blob
/// `string "ssh-ed25519", string key` and the signature blob
/// `string "ssh-ed25519", string signature`.
public enum SSHEd25519 {
    /// The key type and signature algorithm name.
    public static let name = "ssh-ed25519"
    static let nameBytes = Array(name.utf8)
    public static let publicKeyBytes = 32
    public static let signatureBytes = 64

    /// The key blob of a raw 32-byte public key.
    public static func keyBlob(publicKey: [UInt8]) -> [UInt8] {
        var writer = SSHWireWriter(capacity: 51)
        writer.string(nameBytes)
        writer.string(publicKey)
        return writer.bytes
    }

    /// The raw public key of an `ssh-ed25519` key blob, which must hold nothing else.
    public static func publicKey(fromBlob blob: UnsafeRawBufferPointer) throws(SSHAgentMessageError) -> [UInt8] {
        var reader = SSHWireReader(blob)
        let type: UnsafeRawBufferPointer
        let key: UnsafeRawBufferPointer
        do {
            type = try reader.string()
            key = try reader.string()
            try reader.expectEnd()
        } catch {
            throw .notAnEd25519Key
        }
        guard type.elementsEqual(nameBytes), key.count == publicKeyBytes else { throw .notAnEd25519Key }
        return Array(key)
    }

    /// The signature blob of a raw 64-byte signature.
    public static func signatureBlob(_ signature: [UInt8]) -> [UInt8] {
        var writer = SSHWireWriter(capacity: 83)
        writer.string(nameBytes)
        writer.string(signature)
        return writer.bytes
    }

    /// The OpenSSH public key line (`authorized_keys`, git's `allowed_signers` after
    /// the principals): `ssh-ed25519 BASE64 comment`. A comment is one line: any
    /// line break in it would start another entry, so each becomes a space.
    public static func publicKeyLine(publicKey: [UInt8], comment: String?) -> String {
        let encoded = base64(keyBlob(publicKey: publicKey))
        guard let comment, !comment.isEmpty else { return name + " " + encoded }
        let oneLine = String(comment.unicodeScalars.map { scalar -> Character in
            scalar == "\n" || scalar == "\r" ? " " : Character(scalar)
        })
        return name + " " + encoded + " " + oneLine
    }

    /// A credential's comment: `user (label)`, or `user`.
    public static func comment(user: String, label: String?) -> String {
        label.map { "\(user) (\($0))" } ?? user
    }

    /// Standard base64 with padding.
    static func base64(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index + 3 <= bytes.count {
            let value = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            out += [alphabet[Int(value >> 18 & 63)], alphabet[Int(value >> 12 & 63)],
                    alphabet[Int(value >> 6 & 63)], alphabet[Int(value & 63)]]
            index += 3
        }
        let left = bytes.count - index
        if left > 0 {
            let value = UInt32(bytes[index]) << 16 | (left == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
            out += [alphabet[Int(value >> 18 & 63)], alphabet[Int(value >> 12 & 63)]]
            out += left == 2 ? [alphabet[Int(value >> 6 & 63)], UInt8(ascii: "=")] : [UInt8(ascii: "="), UInt8(ascii: "=")]
        }
        return String(decoding: out, as: UTF8.self)
    }
}
