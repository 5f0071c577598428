import CSodium

/// The PIN key: Argon2id v1.3 (`crypto_pwhash` with `crypto_pwhash_ALG_ARGON2ID13`) over
/// the PIN's bytes, a 16-byte salt and a record's own cost parameters.
public enum PinKDF {
    /// Bytes of PIN key.
    public static let keySize = 32

    /// Derives the 32-byte PIN key into secret memory.
    ///
    /// Throws `.invalidLength("salt")` unless the salt has 16 bytes,
    /// `.invalidKDFParameters` for parameters libsodium refuses (checked before any
    /// memory is asked for), and `.outOfMemory` when Argon2id cannot get its memory.
    public static func deriveKey(
        pin: SecretBytes,
        salt: [UInt8],
        parameters: KDFParameters
    ) throws(CryptoError) -> SecretBytes {
        try derive(outputLength: keySize, password: pin, salt: salt, parameters: parameters)
    }

    /// True when libsodium's Argon2id accepts `parameters`: opslimit and memlimit
    /// (bytes) within `crypto_pwhash_argon2id_{opslimit,memlimit}_{min,max}()`.
    public static func isSupported(_ parameters: KDFParameters) -> Bool {
        let opslimits: ClosedRange<UInt64> =
            UInt64(crypto_pwhash_argon2id_opslimit_min())...UInt64(crypto_pwhash_argon2id_opslimit_max())
        let memlimits: ClosedRange<UInt64> =
            UInt64(crypto_pwhash_argon2id_memlimit_min())...UInt64(crypto_pwhash_argon2id_memlimit_max())
        return opslimits.contains(parameters.opslimit) && memlimits.contains(parameters.memlimit)
    }

    /// Argon2id with any output length libsodium allows; `deriveKey` fixes it at 32.
    /// Internal so that libsodium's own test vectors, which use longer outputs, can
    /// check this exact call.
    static func derive(
        outputLength: Int,
        password: SecretBytes,
        salt: [UInt8],
        parameters: KDFParameters
    ) throws(CryptoError) -> SecretBytes {
        guard salt.count == RecordHeader.saltSize else { throw CryptoError.invalidLength("salt") }
        guard outputLength >= Int(crypto_pwhash_argon2id_bytes_min()) else {
            throw CryptoError.invalidLength("output")
        }
        guard isSupported(parameters), let memlimit = Int(exactly: parameters.memlimit) else {
            throw CryptoError.invalidKDFParameters
        }
        let output = try SecretBytes(zeroed: outputLength)
        let result = password.withSodiumPointer { passwordPointer in
            output.withSodiumPointer { outputPointer in
                passwordPointer.withMemoryRebound(to: CChar.self, capacity: max(password.count, 1)) {
                    crypto_pwhash(
                        outputPointer, UInt64(outputLength),
                        $0, UInt64(password.count),
                        salt,
                        parameters.opslimit, memlimit,
                        crypto_pwhash_alg_argon2id13()
                    )
                }
            }
        }
        // Every input was checked above: what is left to fail is Argon2id's allocation.
        guard result == 0 else { throw CryptoError.outOfMemory }
        return output
    }
}
