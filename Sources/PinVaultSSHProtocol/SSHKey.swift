import PinVaultCrypto

/// A PinVault public key in SSH's encodings: the key blob ssh sends and lists
/// (`string type, …` as `KeyAlgorithm+SSH.swift` gives each algorithm's fields) and the
/// OpenSSH key line of `authorized_keys` and git's `allowed_signers`.
public struct SSHKey: Hashable, Sendable {
    public let algorithm: KeyAlgorithm
    /// The raw public key (`KeyAlgorithm`).
    public let publicKey: [UInt8]

    public init(algorithm: KeyAlgorithm, publicKey: [UInt8]) {
        self.algorithm = algorithm
        self.publicKey = publicKey
    }

    /// The key of a plain key blob of one of PinVault's algorithms, which must hold
    /// nothing else; nil for any other blob (a certificate, another type, a malformed key).
    public init?(blob: UnsafeRawBufferPointer) {
        var reader = SSHWireReader(blob)
        guard let type = try? reader.string(),
              let algorithm = KeyAlgorithm.allCases.first(where: { type.elementsEqual($0.sshNameBytes) }),
              let publicKey = try? algorithm.readSSHPublicKey(&reader), reader.isAtEnd
        else { return nil }
        self.init(algorithm: algorithm, publicKey: publicKey)
    }

    public init?(blob: [UInt8]) {
        guard let key = blob.withUnsafeBytes({ SSHKey(blob: $0) }) else { return nil }
        self = key
    }

    /// The key blob: `string type` and the algorithm's fields.
    public var blob: [UInt8] {
        var writer = SSHWireWriter(capacity: 24 + publicKey.count + algorithm.sshName.utf8.count)
        writer.string(algorithm.sshNameBytes)
        algorithm.writeSSHPublicKey(publicKey, into: &writer)
        return writer.bytes
    }

    /// The OpenSSH public key line: `TYPE BASE64 comment`. A comment is one line: any
    /// line break in it would start another entry, so each becomes a space.
    public func line(comment: String?) -> String {
        let encoded = Self.base64(blob)
        guard let comment, !comment.isEmpty else { return algorithm.sshName + " " + encoded }
        let oneLine = String(comment.unicodeScalars.map { scalar -> Character in
            scalar == "\n" || scalar == "\r" ? " " : Character(scalar)
        })
        return algorithm.sshName + " " + encoded + " " + oneLine
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
