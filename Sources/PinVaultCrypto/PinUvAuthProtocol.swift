import CPinVaultOpenSSL
import CSodium
import Synchronization

/// CTAP 2.1's PIN/UV auth protocols (§6.5.6 one, §6.5.7 two): how a client and this
/// authenticator agree on a shared secret over P-256 ECDH, encrypt a PIN or a token
/// with AES-256-CBC, and authenticate a request with HMAC-SHA-256. The curve arithmetic
/// and AES are the system's libcrypto's, HMAC and SHA-256 libsodium's; every secret —
/// the ECDH result, the shared secret, a plaintext — lives in `SecretBytes`.
public enum PinUvAuthProtocol: Int, CaseIterable, Sendable {
    case one = 1
    case two = 2

    /// The shared secret's size: protocol one's SHA-256(Z); protocol two's HMAC key ‖
    /// AES key, each HKDF-SHA-256 of Z.
    public var sharedSecretSize: Int { self == .one ? 32 : 64 }

    /// The size of `authenticate`'s output: protocol one keeps the first 16 bytes.
    public var authenticatorSize: Int { self == .one ? 16 : 32 }

    /// The shared secret of `keyAgreement`'s private key and the platform's public key
    /// (SEC1 uncompressed, checked to be on the curve). Z never leaves secret memory.
    public func sharedSecret(_ keyAgreement: KeyAgreementKey, platformKey: [UInt8]) throws(CryptoError) -> SecretBytes {
        guard platformKey.count == P256.publicKeySize, platformKey.first == 0x04 else { throw CryptoError.invalidLength("keyAgreement") }
        let z = try SecretBytes(zeroed: 32)
        let done = keyAgreement.scalar.withSodiumPointer { scalar in
            z.withSodiumPointer { CPinVaultOpenSSL_p256_ecdh(scalar, platformKey, $0) }
        }
        guard done == 1 else { throw CryptoError.invalidLength("keyAgreement") }
        let shared = try SecretBytes(zeroed: sharedSecretSize)
        switch self {
        case .one:
            z.withUnsafeBytes { input in
                shared.withSodiumPointer { output in _ = Sodium.withInput(input) { crypto_hash_sha256(output, $0, UInt64($1)) } }
            }
        case .two:
            try Self.hkdf(z, info: Array("CTAP2 HMAC key".utf8), into: shared, at: 0)
            try Self.hkdf(z, info: Array("CTAP2 AES key".utf8), into: shared, at: 32)
        }
        return shared
    }

    /// HKDF-SHA-256 (RFC 5869) with a salt of 32 zero bytes and one block of output,
    /// written into `output` at `offset`.
    private static func hkdf(_ ikm: SecretBytes, info: [UInt8], into output: SecretBytes, at offset: Int) throws(CryptoError) {
        let prk = try SecretBytes(zeroed: 32)
        let salt = try SecretBytes(zeroed: 32)
        try hmac(key: salt, ikm, into: prk, at: 0)
        let block = try secret(info + [1])
        try hmac(key: prk, block, into: output, at: offset)
    }

    /// A copy of public bytes in secret memory, for the functions that take only that.
    private static func secret(_ bytes: [UInt8]) throws(CryptoError) -> SecretBytes {
        let copy = try SecretBytes(zeroed: bytes.count)
        copy.withUnsafeMutableBytes { buffer in bytes.withUnsafeBytes { buffer.copyMemory(from: $0) } }
        return copy
    }

    /// HMAC-SHA-256 of `message` under `key` (any length), 32 bytes into `output` at `offset`.
    static func hmac(key: SecretBytes, _ message: SecretBytes, into output: SecretBytes, at offset: Int) throws(CryptoError) {
        guard offset + 32 <= output.count else { throw CryptoError.invalidLength("output") }
        try Sodium.ensureInitialized()
        var state = crypto_auth_hmacsha256_state()
        defer { sodium_memzero(&state, MemoryLayout<crypto_auth_hmacsha256_state>.size) }
        key.withUnsafeBytes { k in _ = Sodium.withInput(k) { crypto_auth_hmacsha256_init(&state, $0, $1) } }
        message.withUnsafeBytes { m in _ = Sodium.withInput(m) { crypto_auth_hmacsha256_update(&state, $0, UInt64($1)) } }
        output.withSodiumPointer { _ = crypto_auth_hmacsha256_final(&state, $0 + offset) }
    }

    /// The key HMAC uses: protocol one's whole shared secret, protocol two's first half;
    /// a pinUvAuthToken (32 bytes) is its own key in both.
    private func hmacKey(_ key: SecretBytes) throws(CryptoError) -> SecretBytes {
        guard self == .two, key.count == 64 else { return key }
        return try key.withUnsafeBytes { (bytes) throws(CryptoError) in try SecretBytes(copying: UnsafeRawBufferPointer(rebasing: bytes[0..<32])) }
    }

    /// authenticate(key, message): HMAC-SHA-256, cut to `authenticatorSize`.
    public func authenticate(key: SecretBytes, message: [UInt8]) throws(CryptoError) -> [UInt8] {
        let output = try SecretBytes(zeroed: 32)
        let input = try Self.secret(message)
        try Self.hmac(key: try hmacKey(key), input, into: output, at: 0)
        return output.withUnsafeBytes { Array($0.prefix(authenticatorSize)) }
    }

    /// Whether `signature` is `authenticate(key, message)`, compared in constant time.
    public func verify(key: SecretBytes, message: [UInt8], signature: [UInt8]) -> Bool {
        guard signature.count == authenticatorSize, let expected = try? authenticate(key: key, message: message) else { return false }
        return ConstantTime.equals(expected, signature)
    }

    /// AES-256-CBC under the shared secret (protocol two's second half; one's whole),
    /// with a zero IV (one) or a random IV sent before the ciphertext (two).
    public func encrypt(sharedSecret: SecretBytes, _ plaintext: SecretBytes) throws(CryptoError) -> [UInt8] {
        guard plaintext.count % 16 == 0, plaintext.count > 0 else { throw CryptoError.invalidLength("plaintext") }
        let iv = self == .one ? [UInt8](repeating: 0, count: 16) : RandomBytes.make(count: 16)
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count)
        let done = try aesKey(sharedSecret).withSodiumPointer { key in
            plaintext.withSodiumPointer { input in
                CPinVaultOpenSSL_aes256_cbc(1, key, iv, input, plaintext.count, &ciphertext)
            }
        }
        guard done == 1 else { throw CryptoError.invalidLength("plaintext") }
        return self == .one ? ciphertext : iv + ciphertext
    }

    /// The plaintext of `encrypt`'s output, in secret memory.
    public func decrypt(sharedSecret: SecretBytes, _ ciphertext: [UInt8]) throws(CryptoError) -> SecretBytes {
        let ivSize = self == .one ? 0 : 16
        let length = ciphertext.count - ivSize
        guard length > 0, length % 16 == 0, length <= 4096 else { throw CryptoError.invalidLength("ciphertext") }
        let iv = self == .one ? [UInt8](repeating: 0, count: 16) : Array(ciphertext.prefix(16))
        let body = Array(ciphertext.dropFirst(ivSize))
        let plaintext = try SecretBytes(zeroed: length)
        let done = try aesKey(sharedSecret).withSodiumPointer { key in
            plaintext.withSodiumPointer { CPinVaultOpenSSL_aes256_cbc(0, key, iv, body, length, $0) }
        }
        guard done == 1 else { throw CryptoError.invalidLength("ciphertext") }
        return plaintext
    }

    private func aesKey(_ shared: SecretBytes) throws(CryptoError) -> SecretBytes {
        guard shared.count == sharedSecretSize else { throw CryptoError.invalidLength("sharedSecret") }
        guard self == .two else { return shared }
        return try shared.withUnsafeBytes { (bytes) throws(CryptoError) in try SecretBytes(copying: UnsafeRawBufferPointer(rebasing: bytes[32..<64])) }
    }
}

/// The authenticator's key-agreement key: a P-256 key pair made at power-up (CTAP
/// regenerates it on each), its scalar in secret memory. The scalar is fixed at once;
/// its public point, libcrypto's work, is computed when first asked for, so that a
/// daemon whose security key no one uses never loads libcrypto for it.
public final class KeyAgreementKey: Sendable {
    let scalar: SecretBytes
    private let point = Mutex<[UInt8]?>(nil)

    public init() throws(CryptoError) {
        scalar = try P256.scalar(seed: KeyAlgorithm.generateSeed())
    }

    /// SEC1 uncompressed: 04 ‖ x ‖ y. Should libcrypto be missing, 04 and zeroes, a point
    /// not on the curve: every client refuses it, and `sharedSecret` fails all the same.
    public var publicKey: [UInt8] {
        point.withLock { point in
            if let point { return point }
            var computed = [UInt8](repeating: 0, count: P256.publicKeySize)
            guard scalar.withSodiumPointer({ CPinVaultOpenSSL_p256_public_key($0, &computed) }) == 1 else {
                return [0x04] + [UInt8](repeating: 0, count: P256.publicKeySize - 1)
            }
            point = computed
            return computed
        }
    }
}
