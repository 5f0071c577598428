/// The authenticated part of a stored record. Its canonical encoding is mixed into the
/// box key, so a record moved to another owner or user, given another purpose, or with
/// its KDF parameters or salt edited, no longer opens. `docs/FORMAT.md` gives the byte
/// layout.
///
/// Three formats open: version 3, which this code writes for every new credential and
/// which binds the key's `purpose` and `algorithm`; version 2, the records of the third
/// release, which bind the purpose and are Ed25519; and version 1, the records made
/// before purposes existed, which read as `legacy` Ed25519. A record keeps its format
/// through every re-seal (ChangePin, upgrade on use): a purpose or an algorithm is never
/// given to a key after the fact.
public struct RecordHeader: Hashable, Sendable {
    /// The format new credentials are written in: it holds the purpose and the algorithm.
    public static let currentFormatVersion: UInt8 = 3
    /// The format of the third release's records: a purpose, Ed25519.
    public static let purposeFormatVersion: UInt8 = 2
    /// The format of the records made before purposes existed (`KeyPurpose.legacy`).
    public static let legacyFormatVersion: UInt8 = 1
    /// Domain-separation tag that opens every encoding.
    static let tag: [UInt8] = Array("pinvault".utf8)
    /// libsodium's `crypto_pwhash_ALG_ARGON2ID13`.
    static let argon2id13: UInt8 = 2
    /// Salt size (`crypto_pwhash_SALTBYTES`).
    public static let saltSize = 16

    /// The record format: 3 (or 2, written by the third release) for a key with a
    /// purpose, 1 for a legacy one; no other opens.
    public var formatVersion: UInt8
    /// What the key is for; `legacy` exactly when `formatVersion` is 1.
    public var purpose: KeyPurpose
    /// The key's algorithm; Ed25519 for formats 1 and 2, which hold no algorithm byte.
    public var algorithm: KeyAlgorithm
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
    /// The format version defaults to the one a new key of `purpose` is written in.
    public init(
        formatVersion: UInt8? = nil,
        purpose: KeyPurpose,
        algorithm: KeyAlgorithm = .default,
        ownerUid: UInt32,
        user: String,
        keyId: KeyID,
        kdf: KDFParameters,
        salt: [UInt8]
    ) {
        self.formatVersion = formatVersion ?? Self.formatVersion(forNew: purpose)
        self.purpose = purpose
        self.algorithm = algorithm
        self.ownerUid = ownerUid
        self.user = user
        self.keyId = keyId
        self.kdf = kdf
        self.salt = salt
    }

    /// Longest `user` the encoding can hold (its length field has two bytes). PinVault's
    /// own limit, 256 bytes, is checked where requests are parsed.
    public static let maximumUserLength = Int(UInt16.max)

    /// The format a new key of `purpose` is written in: 1 for `legacy` (which only a
    /// re-seal of a first-release record makes), else 3.
    public static func formatVersion(forNew purpose: KeyPurpose) -> UInt8 {
        purpose == .legacy ? legacyFormatVersion : currentFormatVersion
    }

    /// Whether format `version` holds a key of `purpose` and `algorithm`: version 1 only
    /// a legacy Ed25519 key, version 2 an Ed25519 key with a purpose, version 3 any key
    /// with a purpose. A record whose columns say otherwise was edited from outside.
    public static func holds(version: UInt8, purpose: KeyPurpose, algorithm: KeyAlgorithm) -> Bool {
        switch version {
        case legacyFormatVersion: purpose == .legacy && algorithm == .ed25519
        case purposeFormatVersion: purpose != .legacy && algorithm == .ed25519
        case currentFormatVersion: purpose != .legacy
        default: false
        }
    }

    /// True when `canonicalEncoding()` is unambiguous: a format this code knows, holding
    /// the purpose and algorithm (`holds`), a user that fits its length field and a salt
    /// of its fixed size. Sealing refuses, and opening fails, otherwise.
    public var isEncodable: Bool {
        Self.holds(version: formatVersion, purpose: purpose, algorithm: algorithm)
            && user.utf8.count <= Self.maximumUserLength && salt.count == Self.saltSize
    }

    /// tag(8) ‖ version(1) ‖ [purpose(1), versions 2 and 3] ‖ [algorithm(1), version 3]
    /// ‖ ownerUid(4, BE)
    /// ‖ userLength(2, BE) ‖ user ‖ keyId(16) ‖ algorithm(1) ‖ opslimit(8, BE)
    /// ‖ memlimit(8, BE) ‖ salt(16)
    ///
    /// `user` is encoded as its exact UTF-8 bytes, without Unicode normalisation.
    /// Only meaningful when `isEncodable`.
    public func canonicalEncoding() -> [UInt8] {
        let userBytes = Array(user.utf8)
        var out = [UInt8]()
        out.reserveCapacity(8 + 1 + 1 + 1 + 4 + 2 + userBytes.count + 16 + 1 + 8 + 8 + salt.count)
        out += Self.tag
        out.append(formatVersion)
        if let purposeByte = purpose.headerByte { out.append(purposeByte) }
        if formatVersion == Self.currentFormatVersion { out.append(algorithm.headerByte) }
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
