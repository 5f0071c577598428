/// Where work runs: the store queue and the KDF pool (see `VaultEngine`).
extension VaultEngine {
    /// Runs `work` on the store queue. `work` answers with a result, or nil when it
    /// handed the call on (to the KDF pool) and that will answer instead. A call whose
    /// peer left before its turn is dropped unrun (`WorkPool`).
    func onStore(_ call: Call, _ work: @escaping @Sendable () throws(VaultError) -> VaultResult?) {
        let admission = storeQueue.submitAnswering(uid: call.caller.uid, isCancelled: call.isCancelled) {
            Self.run(call, work)
        }
        if let refusal = refusal(admission) {
            call.finish(.failure(refusal))
        }
    }

    /// Hands `work` to the KDF pool; throws `busy` when the pool is full (`shuttingDown`
    /// when it stops), so that a refusal comes before anything was counted. A call whose
    /// peer left before its turn is dropped unrun: no PIN was checked.
    func onKDF(_ call: Call, _ work: @escaping @Sendable () throws(VaultError) -> VaultResult) throws(VaultError) {
        let admission = kdfPool.submitAnswering(uid: call.caller.uid, isAdmin: call.caller.isAdmin, isCancelled: call.isCancelled) {
            Self.run(call, work)
        }
        if let refusal = refusal(admission) {
            throw refusal
        }
    }

    /// What a pool's refusal answers: `Busy` for a full queue (counted in the stats),
    /// `ShuttingDown` for a pool that stops; nil when the job was taken.
    func refusal(_ admission: WorkPool.Admission) -> VaultError? {
        switch admission {
        case .accepted:
            return nil
        case .busy(let milliseconds):
            stats.refusedBusy()
            return .busy(retryAfterMilliseconds: milliseconds)
        case .stopping:
            return .shuttingDown
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
