import CSodium

/// Seals a seed at rest under a PIN and the pepper, and opens it again.
///
/// PIN key = Argon2id(PIN, salt, record's parameters); box key = keyed BLAKE2b-256
/// (key: pepper) of PIN key ‖ header; sealed seed = `crypto_secretbox_easy` (XSalsa20-
/// Poly1305) of the 32-byte seed under the box key and a fresh 24-byte nonce.
/// `docs/FORMAT.md` gives every byte.
public enum SeedSealer {
    /// The secretbox key of a record: keyed BLAKE2b-256 with the pepper as key, over the
    /// 32-byte PIN key followed by `header.canonicalEncoding()`.
    public static func boxKey(
        pinKey: SecretBytes,
        pepper: Pepper,
        header: RecordHeader
    ) throws(CryptoError) -> SecretBytes {
        guard pinKey.count == PinKDF.keySize else { throw CryptoError.invalidLength("pinKey") }
        guard pepper.secret.count == Pepper.size else { throw CryptoError.invalidLength("pepper") }
        let encoding = header.canonicalEncoding()
        let message = try SecretBytes(capacity: pinKey.count + encoding.count)
        message.fill { buffer in
            pinKey.withUnsafeBytes { buffer.copyMemory(from: $0) }
            UnsafeMutableRawBufferPointer(rebasing: buffer[pinKey.count...]).copyBytes(from: encoding)
            return buffer.count
        }
        let key = try SecretBytes(zeroed: boxKeySize)
        try pepper.secret.withUnsafeBytes { (pepperBytes) throws(CryptoError) in
            try message.withUnsafeBytes { (messageBytes) throws(CryptoError) in
                try BLAKE2b.hash(messageBytes, key: pepperBytes, into: key)
            }
        }
        // libsodium's BLAKE2b compression loads the message block — the PIN key — into
        // locals that it leaves on this thread's stack; nothing overwrote them until
        // the thread's next request went as deep (found by MemoryHygieneTests).
        sodium_stackzero(Self.stackScrubBytes)
        return key
    }

    /// Seals a 32-byte seed for `ownerUid`/`user`/`keyId`, its `purpose` and `algorithm`
    /// under `pin` and `pepper`, with a fresh random 16-byte salt and 24-byte nonce,
    /// running Argon2id at `parameters`. `formatVersion` is the record's when it is
    /// re-sealed (a record keeps its format); nil for a new key (format 3, or 1 for a
    /// legacy one).
    ///
    /// Throws `.invalidLength` for a seed that is not 32 bytes, a user longer than the
    /// header holds, or a pepper that is no longer 32 bytes; `.invalidKDFParameters`
    /// for parameters libsodium refuses; `.outOfMemory` when Argon2id cannot allocate.
    public static func seal(
        seed: SecretBytes,
        pin: SecretBytes,
        pepper: Pepper,
        purpose: KeyPurpose,
        algorithm: KeyAlgorithm,
        formatVersion: UInt8? = nil,
        ownerUid: UInt32,
        user: String,
        keyId: KeyID,
        parameters: KDFParameters
    ) throws(CryptoError) -> SealedSeed {
        let header = RecordHeader(
            formatVersion: formatVersion,
            purpose: purpose,
            algorithm: algorithm,
            ownerUid: ownerUid,
            user: user,
            keyId: keyId,
            kdf: parameters,
            salt: RandomBytes.make(count: RecordHeader.saltSize)
        )
        return try seal(
            seed: seed, pin: pin, pepper: pepper, header: header,
            nonce: RandomBytes.make(count: SealedSeed.nonceSize)
        )
    }

    /// The deterministic core of `seal`, given the header (with its salt) and the
    /// nonce. Internal: production code must never choose a salt or nonce.
    static func seal(
        seed: SecretBytes,
        pin: SecretBytes,
        pepper: Pepper,
        header: RecordHeader,
        nonce: [UInt8]
    ) throws(CryptoError) -> SealedSeed {
        guard seed.count == KeyAlgorithm.seedSize else { throw CryptoError.invalidLength("seed") }
        guard header.user.utf8.count <= RecordHeader.maximumUserLength else {
            throw CryptoError.invalidLength("user")
        }
        guard header.salt.count == RecordHeader.saltSize else { throw CryptoError.invalidLength("salt") }
        // A format that does not hold the purpose or algorithm (a programming error:
        // the headers this code makes take a format that holds them).
        guard header.isEncodable else { throw CryptoError.invalidLength("header") }
        guard nonce.count == SealedSeed.nonceSize else { throw CryptoError.invalidLength("nonce") }
        let pinKey = try PinKDF.deriveKey(pin: pin, salt: header.salt, parameters: header.kdf)
        let key = try boxKey(pinKey: pinKey, pepper: pepper, header: header)
        var ciphertext = [UInt8](repeating: 0, count: SealedSeed.ciphertextSize)
        let result = seed.withSodiumPointer { seedPointer in
            key.withSodiumPointer { keyPointer in
                crypto_secretbox_easy(&ciphertext, seedPointer, UInt64(seed.count), nonce, keyPointer)
            }
        }
        // Fails only for a message over crypto_secretbox_MESSAGEBYTES_MAX.
        guard result == 0 else { throw CryptoError.invalidLength("seed") }
        return SealedSeed(header: header, nonce: nonce, ciphertext: ciphertext)
    }

    /// Opens a sealed seed with `pin` and `pepper`, running Argon2id with the record's
    /// own parameters, and returns the 32-byte seed in secret memory.
    ///
    /// Every mismatch — wrong PIN, wrong pepper, a tampered or moved header (its purpose
    /// and algorithm too), a tampered nonce or ciphertext, bad sizes, unsupported parameters, an unknown
    /// format version or one that does not hold the purpose or algorithm — throws `.openFailed` and
    /// nothing else. Only failures that say nothing
    /// about the PIN escape as themselves, so a caller never counts them as a wrong
    /// PIN: `.outOfMemory` (Argon2id could not allocate), `.sodiumUnavailable`, and
    /// `.invalidLength("pepper")` for a pepper that was wiped.
    public static func open(
        _ sealed: SealedSeed,
        pin: SecretBytes,
        pepper: Pepper
    ) throws(CryptoError) -> SecretBytes {
        let header = sealed.header
        guard header.isEncodable,
              PinKDF.isSupported(header.kdf),
              sealed.nonce.count == SealedSeed.nonceSize,
              sealed.ciphertext.count == SealedSeed.ciphertextSize
        else { throw CryptoError.openFailed }
        guard pepper.secret.count == Pepper.size else { throw CryptoError.invalidLength("pepper") }

        let key: SecretBytes
        do {
            let pinKey = try PinKDF.deriveKey(pin: pin, salt: header.salt, parameters: header.kdf)
            key = try boxKey(pinKey: pinKey, pepper: pepper, header: header)
        } catch .outOfMemory {
            throw CryptoError.outOfMemory
        } catch .sodiumUnavailable {
            throw CryptoError.sodiumUnavailable
        } catch {
            throw CryptoError.openFailed
        }

        let seed = try SecretBytes(zeroed: KeyAlgorithm.seedSize)
        let result = seed.withSodiumPointer { seedPointer in
            key.withSodiumPointer { keyPointer in
                crypto_secretbox_open_easy(
                    seedPointer, sealed.ciphertext, UInt64(sealed.ciphertext.count), sealed.nonce, keyPointer
                )
            }
        }
        guard result == 0 else {
            seed.wipe()
            throw CryptoError.openFailed
        }
        return seed
    }

    /// `crypto_secretbox_KEYBYTES`.
    static let boxKeySize = 32

    /// How much stack below the caller `sodium_stackzero` clears after a libsodium call
    /// that saw a secret: libsodium's BLAKE2b and Argon2id frames take a few KiB.
    static let stackScrubBytes = 16384
}
