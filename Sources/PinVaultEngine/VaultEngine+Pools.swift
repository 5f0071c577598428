/// Where work runs: the store queue and the KDF pool (see `VaultEngine`).
extension VaultEngine {
    /// Runs `work` on the store queue. `work` answers with a result, or nil when it
    /// handed the call on (to the KDF pool) and that will answer instead. A call whose
    /// peer left before its turn is dropped unrun (`WorkPool`).
    func onStore(_ call: Call, _ work: @escaping @Sendable () throws(VaultError) -> VaultResult?) {
        let admission = storeQueue.submitAnswering(uid: call.caller.uid, isCancelled: call.isCancelled) {
            Self.run(call, work)
        }
        if case .busy(let milliseconds) = admission {
            stats.refusedBusy()
            call.finish(.failure(.busy(retryAfterMilliseconds: milliseconds)))
        }
    }

    /// Hands `work` to the KDF pool; throws `busy` when the pool is full, so that a
    /// refusal comes before anything was counted. A call whose peer left before its
    /// turn is dropped unrun: no PIN was checked.
    func onKDF(_ call: Call, _ work: @escaping @Sendable () throws(VaultError) -> VaultResult) throws(VaultError) {
        let admission = kdfPool.submitAnswering(uid: call.caller.uid, isAdmin: call.caller.isAdmin, isCancelled: call.isCancelled) {
            Self.run(call, work)
        }
        if case .busy(let milliseconds) = admission {
            stats.refusedBusy()
            throw .busy(retryAfterMilliseconds: milliseconds)
        }
    }

    /// Runs `work` on a pool thread; returns the answer for the pool to send once the
    /// job's slot is free (nil when the work handed the call on).
    private static func run(_ call: Call, _ work: () throws(VaultError) -> VaultResult?) -> WorkPool.Answer? {
        let result: Result<VaultResult, VaultError>
        do {
            guard let value = try work() else { return nil }
            result = .success(value)
        } catch {
            result = .failure(error)
        }
        return { call.finish(result) }
    }
}
