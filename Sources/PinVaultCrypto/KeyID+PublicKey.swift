extension KeyID {
    /// The raw size of a key identifier.
    public static let size = 16

    /// The identifier of a raw public key of any `KeyAlgorithm`: the first 16 bytes of
    /// the unkeyed BLAKE2b-256 of its bytes.
    public init(publicKey: [UInt8]) throws(CryptoError) {
        guard KeyAlgorithm.allCases.contains(where: { $0.publicKeySize == publicKey.count }) else {
            throw CryptoError.invalidLength("publicKey")
        }
        let digest = try publicKey.withUnsafeBytes { bytes in
            Result { () throws(CryptoError) in try BLAKE2b.hash(bytes, outputLength: 32) }
        }.get()
        guard let identifier = KeyID(bytes: Array(digest.prefix(Self.size))) else {
            throw CryptoError.invalidLength("keyId")
        }
        self = identifier
    }
}
