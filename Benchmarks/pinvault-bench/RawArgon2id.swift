import CSodium
import PinVaultCrypto

/// Argon2id v1.3 exactly as the daemon calls it (`crypto_pwhash`, 32-byte output, a
/// 16-byte salt, the benchmark PIN), run in this process: the floor PinVault is
/// measured against.
enum RawArgon2id {
    /// Seconds one `crypto_pwhash` takes at `parameters`.
    static func timeOne(_ parameters: KDFParameters) throws -> Double {
        try Monotonic.measure { try hash(parameters) }.seconds
    }

    /// Hashes per second with `threads` threads sharing `calls` hashes (each takes the
    /// next until none is left), from the first start to the last finish.
    static func throughput(threads: Int, calls: Int, _ parameters: KDFParameters) throws -> Double {
        let counter = SharedCounter(limit: calls)
        let (_, seconds) = try Monotonic.measure {
            try ThreadGroup.run(count: threads) { _ in
                while counter.take() { try hash(parameters) }
            }
        }
        return Double(calls) / seconds
    }

    private static func hash(_ parameters: KDFParameters) throws {
        guard sodium_init() >= 0 else { throw BenchError("sodium_init failed") }
        var output = [UInt8](repeating: 0, count: 32)
        let salt = RandomBytes.make(count: 16)
        let password = Array(VaultCalls.pin.utf8)
        let result = password.withUnsafeBufferPointer { passwordBytes in
            passwordBytes.withMemoryRebound(to: CChar.self) { password -> Int32 in
                guard let base = password.baseAddress else { return -1 }
                return crypto_pwhash(
                    &output, UInt64(output.count), base, UInt64(password.count), salt,
                    parameters.opslimit, Int(parameters.memlimit), crypto_pwhash_alg_argon2id13())
            }
        }
        guard result == 0 else { throw BenchError("crypto_pwhash failed (out of memory?)") }
    }
}
