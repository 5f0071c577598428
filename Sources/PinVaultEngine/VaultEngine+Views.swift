import PinVaultCore
import PinVaultStore

/// Stored records as callers see them.
extension VaultEngine {
    /// `record` with the state the lockout rules give it at `time` (now by default), and
    /// the `certificates` attached to it when the answer carries them.
    func view(of stored: CredentialRecord, at time: Int64? = nil, certificates: [[UInt8]] = []) -> CredentialView {
        let time = time ?? now()
        // Times beyond their bounds from now come from a clock stepped back: shown capped.
        let record = cappedToClock(stored, at: time) ?? stored
        let counter = counter(of: record)
        let pendingUntil = record.pendingUnregistration.map(\.expiresAt).flatMap { $0 > time ? $0 : nil }
        let state: CredentialView.State
        if pendingUntil != nil {
            state = .pendingUnregistration
        } else {
            switch counter.lockState(now: time, policy: settings.lockout) {
            case .active: state = .active
            case .throttled: state = .throttled
            case .blocked: state = .blocked
            }
        }
        return CredentialView(
            user: record.user,
            keyId: record.keyId,
            label: record.label,
            purpose: record.purpose,
            algorithm: record.algorithm,
            publicKey: record.publicKey,
            ownerUid: record.ownerUid,
            createdAt: record.createdAt,
            lastUsedAt: record.lastUsedAt,
            failedAttempts: record.failedAttempts,
            remainingAttempts: counter.remainingAttempts(policy: settings.lockout),
            state: state,
            lockedUntil: record.lockedUntil.flatMap { $0 > time ? $0 : nil },
            unregistrationExpiresAt: pendingUntil,
            unlockedUntil: sessions.unlockedUntil(record.keyId, owner: record.ownerUid, wallNow: time),
            sshCertificates: certificates
        )
    }
}
