import PinVaultCrypto
import PinVaultStore

/// The engine's boundary with the layers under it. A store, crypto or system failure
/// becomes `internalError` here, logged with the caller's uid (the operator's business,
/// not the peer's); a `VaultError` that a transaction's body throws (a refusal decided
/// inside the transaction) passes through unchanged, after the transaction rolled back.
extension VaultEngine {
    /// One read transaction (`VaultStore.read`).
    func read<T>(_ call: Call, _ body: (VaultReader) throws -> T) throws(VaultError) -> T {
        do {
            return try store.read(body)
        } catch {
            throw failure(error, call)
        }
    }

    /// One write transaction (`VaultStore.write`): all of `body`'s changes or none.
    func write<T>(_ call: Call, _ body: (VaultWriter) throws -> T) throws(VaultError) -> T {
        do {
            return try store.write(body)
        } catch {
            throw failure(error, call)
        }
    }

    /// A libsodium step (signing, sealing, randomness) that must not fail.
    func crypto<T>(_ call: Call, _ body: () throws(CryptoError) -> T) throws(VaultError) -> T {
        do {
            return try body()
        } catch {
            throw failure(error, call)
        }
    }

    /// `error` as the peer may see it.
    func failure(_ error: any Error, _ call: Call) -> VaultError {
        if let refusal = error as? VaultError { return refusal }
        logger.error("call failed", metadata: ["uid": "\(call.caller.uid)", "error": "\(error)"])
        return .internalError
    }
}
