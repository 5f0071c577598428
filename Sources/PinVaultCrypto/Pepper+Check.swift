extension Pepper {
    /// The fixed message of the check value (docs/FORMAT.md §9).
    public static let checkContext = Array("PinVault pepper check v1".utf8)

    /// The pepper's check value: keyed BLAKE2b-256 with the pepper as key over
    /// `checkContext`. The store keeps it to refuse a start under another pepper
    /// (every right PIN would then count as wrong). It involves no PIN and no record,
    /// and tells nothing of the pepper short of trying all 2^256 of them.
    public func checkValue() throws(CryptoError) -> [UInt8] {
        try secret.withUnsafeBytes { (key) throws(CryptoError) -> [UInt8] in
            try Self.checkContext.withUnsafeBytes { message in
                Result { () throws(CryptoError) in try BLAKE2b.hash(message, key: key, outputLength: 32) }
            }.get()
        }
    }

    /// Whether both hold the same 32 bytes (constant time).
    public func isSame(as other: Pepper) -> Bool {
        secret.constantTimeEquals(other.secret)
    }
}
