import PinVaultCore
import PinVaultStore

/// The wall clock may step back (an RTC reset, an NTP correction); every stored time is
/// read against it (SECURITY.md, "The wall clock"). No wait is ever set longer than
/// `throttle_max_seconds` and no pending unregistration longer than
/// `unregister.expiry_seconds`, so an end later than that from now can only come from
/// such a step: it is capped at the bound when read, and the cap is written back before
/// a PIN call is answered, so that the wait or the pending state then runs down from it
/// instead of lasting as long as the step.
extension VaultEngine {
    /// `record` with its wait and its pending unregistration ending no later than their
    /// bounds from `now`; nil when both already do.
    func cappedToClock(_ record: CredentialRecord, at now: Int64) -> CredentialRecord? {
        var capped = record
        let counter = counter(of: record).cappedToClock(now: now, policy: settings.lockout)
        capped.lockedUntil = counter.lockedUntil
        if let pending = record.pendingUnregistration {
            capped.pendingUnregistration?.expiresAt = latestExpiry(pending.expiresAt, at: now)
        }
        return capped == record ? nil : capped
    }

    /// `expiresAt`, or `unregister.expiry_seconds` from `now` when that is sooner.
    func latestExpiry(_ expiresAt: Int64, at now: Int64) -> Int64 {
        let (latest, overflow) = now.addingReportingOverflow(max(settings.unregisterExpirySeconds, 0))
        return overflow ? expiresAt : min(expiresAt, latest)
    }

    /// Writes the capped times of `record`'s credential back, if the clock stepped back;
    /// returns the record as stored afterwards.
    func writeCappedTimes(of record: CredentialRecord, at now: Int64, call: Call) throws(VaultError) -> CredentialRecord {
        guard cappedToClock(record, at: now) != nil else { return record }
        return try write(call) { writer in
            guard let current = try writer.credential(keyId: record.keyId) else { throw VaultError.noSuchCredential }
            guard let capped = cappedToClock(current, at: now) else { return current }
            try writer.update(capped)
            return capped
        }
    }
}
