import PinVaultCore
import PinVaultCrypto
import PinVaultProtocol
import PinVaultStore

/// Turns results and errors into Varlink replies (DESIGN §6 names and fields).
extension VaultService {
    /// Appends the reply for `result` to `buffer`.
    func encode(_ result: Result<VaultResult, ServiceError>, into buffer: ReplyBuffer) {
        switch result {
        case .success(let value):
            let time = now()
            VarlinkReply.appendSuccess(to: buffer) { reply in
                write(value, at: time, into: &reply)
            }
        case .failure(let error):
            append(error, to: buffer)
        }
    }

    private func write(_ value: VaultResult, at time: Int64, into reply: inout JSONObjectWriter) {
        switch value {
        case .policy:
            reply.objectField("policy") { wirePolicy.writeFields(&$0) }
        case .checkPin(let violations):
            reply.field("valid", violations.isEmpty)
            reply.field("violations", strings: violations.map(\.rawValue))
        case .credential(let record):
            reply.objectField("credential") { wire(record, at: time).writeFields(&$0) }
        case .credentials(let records):
            reply.arrayField("credentials") { array in
                for record in records {
                    array.objectElement { wire(record, at: time).writeFields(&$0) }
                }
            }
        case .authenticated(let keyId, let publicKey, let signature, let outdated):
            reply.field("keyId", keyId.hex)
            reply.field("publicKey", Base64.encodedString(publicKey))
            reply.field("signature", Base64.encodedString(signature))
            reply.field("pinPolicyOutdated", outdated)
        case .unregistrationBegun(let keyId, let token, let expiresAt):
            reply.field("keyId", keyId.hex)
            reply.secretField("token", token, encoding: .base64url)
            reply.field("expiresAt", RFC3339.string(fromUnixSeconds: expiresAt))
        case .empty:
            break
        case .wiped(let user, let keyIds):
            reply.field("user", user)
            reply.field("deletedKeyIds", strings: keyIds.map(\.hex))
        case .reset(let count):
            reply.field("deletedCount", count)
        case .stats:
            reply.objectField("counters") { wireStats.writeFields(&$0) }
        }
    }

    private func append(_ error: ServiceError, to buffer: ReplyBuffer) {
        let vault: VaultError
        switch error {
        case .wrongPin(let remaining): vault = .wrongPin(remainingAttempts: Int64(remaining))
        case .lockedOut(let seconds): vault = .lockedOut(retryAfterSeconds: seconds)
        case .credentialBlocked: vault = .credentialBlocked
        case .credentialWiped: vault = .credentialWiped
        case .pinPolicyViolation(let violations): vault = .pinPolicyViolation(violations: violations.map(\.rawValue))
        case .noSuchCredential: vault = .noSuchCredential
        case .ambiguousCredential(let keyIds): vault = .ambiguousCredential(keyIds: keyIds.map(\.hex))
        case .tooManyCredentials(let limit): vault = .tooManyCredentials(limit: Int64(limit))
        case .unregistrationPending(let expiresAt): vault = .unregistrationPending(expiresAt: expiresAt)
        case .invalidToken: vault = .invalidToken
        case .busy(let milliseconds): vault = .busy(retryAfterMilliseconds: Int64(milliseconds))
        case .internalError: vault = .internalError
        case .invalidParameter(let name):
            return VarlinkReply.appendError(.invalidParameter(parameter: name), to: buffer)
        case .permissionDenied:
            return VarlinkReply.appendError(.permissionDenied, to: buffer)
        }
        vault.appendReply(to: buffer)
    }

    /// A credential as its owner sees it at `time`.
    func wire(_ record: CredentialRecord, at time: Int64) -> VaultCredential {
        let counter = counter(of: record)
        let pendingUntil = record.pendingUnregistration.map(\.expiresAt).flatMap { $0 > time ? $0 : nil }
        let state: VaultCredential.State
        if pendingUntil != nil {
            state = .pendingUnregistration
        } else {
            switch counter.lockState(now: time, policy: settings.lockout) {
            case .active: state = .active
            case .throttled: state = .throttled
            case .blocked: state = .blocked
            }
        }
        return VaultCredential(
            user: record.user,
            keyId: record.keyId.hex,
            label: record.label,
            publicKey: record.publicKey,
            ownerUid: record.ownerUid,
            createdAt: record.createdAt,
            lastUsedAt: record.lastUsedAt,
            failedAttempts: Int64(record.failedAttempts),
            remainingAttempts: Int64(counter.remainingAttempts(policy: settings.lockout)),
            state: state,
            lockedUntil: record.lockedUntil.flatMap { $0 > time ? $0 : nil },
            unregistrationExpiresAt: pendingUntil
        )
    }

    var wirePolicy: VaultPinPolicy {
        let policy = settings.policy
        return VaultPinPolicy(
            minLength: Int64(policy.minLength),
            maxLength: Int64(policy.maxLength),
            digitsOnly: policy.digitsOnly,
            maxIdenticalDigits: Int64(policy.maxIdenticalDigits),
            allowSequences: policy.allowSequences,
            denyListSize: Int64(policy.denyList.count),
            throttleAfter: Int64(settings.lockout.throttleAfter),
            maxAttempts: Int64(settings.lockout.maxAttempts),
            onMaxAttempts: settings.lockout.onMaxAttempts == .wipe ? .wipe : .block
        )
    }

    var wireStats: VaultStats {
        let counters = stats.snapshot()
        let kdf = kdfPool.snapshot
        return VaultStats(
            requests: Int64(counters.requests),
            authenticationsSucceeded: Int64(counters.authenticationsSucceeded),
            authenticationsFailed: Int64(counters.authenticationsFailed),
            lockouts: Int64(counters.lockouts),
            kdfQueueDepth: Int64(kdf.queued),
            kdfRunning: Int64(kdf.running),
            activeConnections: Int64(counters.activeConnections),
            uptimeSeconds: Int64(counters.uptimeSeconds),
            kdfEvaluations: Int64(counters.kdfEvaluations)
        )
    }
}
