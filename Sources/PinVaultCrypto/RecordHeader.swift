/// The authenticated part of a stored record. Its canonical encoding is mixed into the
/// box key, so a record moved to another owner or user, or with its KDF parameters or
/// salt edited, no longer opens. `docs/FORMAT.md` gives the byte layout.
public struct RecordHeader: Hashable, Sendable {
    /// The format this code writes.
    public static let currentFormatVersion: UInt8 = 1
    /// Domain-separation tag that opens every encoding.
    static let tag: [UInt8] = Array("pinvault".utf8)
    /// libsodium's `crypto_pwhash_ALG_ARGON2ID13`.
    static let argon2id13: UInt8 = 2
    /// Salt size (`crypto_pwhash_SALTBYTES`).
    public static let saltSize = 16

    /// The record format; only `currentFormatVersion` opens.
    public var formatVersion: UInt8
    /// The uid of the process that registered the credential.
    public var ownerUid: UInt32
    /// The account name, 1–256 bytes of UTF-8.
    public var user: String
    /// The identifier of the credential's public key.
    public var keyId: KeyID
    /// The Argon2id parameters the PIN key was derived with.
    public var kdf: KDFParameters
    /// 16 random bytes, fresh for every seal.
    public var salt: [UInt8]

    /// A header with the given fields; nothing is checked until it is sealed or opened.
    public init(
        formatVersion: UInt8 = RecordHeader.currentFormatVersion,
        ownerUid: UInt32,
        user: String,
        keyId: KeyID,
        kdf: KDFParameters,
        salt: [UInt8]
    ) {
        self.formatVersion = formatVersion
        self.ownerUid = ownerUid
        self.user = user
        self.keyId = keyId
        self.kdf = kdf
        self.salt = salt
    }

    /// Longest `user` the encoding can hold (its length field has two bytes). PinVault's
    /// own limit, 256 bytes, is checked where requests are parsed.
    public static let maximumUserLength = Int(UInt16.max)

    /// True when `canonicalEncoding()` is unambiguous: the user fits its length field
    /// and the salt has its fixed size. Sealing refuses, and opening fails, otherwise.
    public var isEncodable: Bool {
        user.utf8.count <= Self.maximumUserLength && salt.count == Self.saltSize
    }

    /// tag(8) ‖ version(1) ‖ ownerUid(4, BE) ‖ userLength(2, BE) ‖ user ‖ keyId(16)
    /// ‖ algorithm(1) ‖ opslimit(8, BE) ‖ memlimit(8, BE) ‖ salt(16)
    ///
    /// `user` is encoded as its exact UTF-8 bytes, without Unicode normalisation.
    /// Only meaningful when `isEncodable`.
    public func canonicalEncoding() -> [UInt8] {
        let userBytes = Array(user.utf8)
        var out = [UInt8]()
        out.reserveCapacity(8 + 1 + 4 + 2 + userBytes.count + 16 + 1 + 8 + 8 + salt.count)
        out += Self.tag
        out.append(formatVersion)
        out.appendBigEndian(ownerUid)
        out.appendBigEndian(UInt16(truncatingIfNeeded: userBytes.count))
        out += userBytes
        out += keyId.bytes
        out.append(Self.argon2id13)
        out.appendBigEndian(kdf.opslimit)
        out.appendBigEndian(kdf.memlimit)
        out += salt
        return out
    }
}

extension Array where Element == UInt8 {
    mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        var big = value.bigEndian
        Swift.withUnsafeBytes(of: &big) { append(contentsOf: $0) }
    }
}
