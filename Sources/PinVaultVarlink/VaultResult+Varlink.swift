import PinVaultCore
import PinVaultCrypto
import PinVaultEngine
import PinVaultProtocol
import PinVaultDoor

/// The engine's answers as `io.pinvault.Vault` replies: the interface's field names and
/// encodings (`io.pinvault.Vault.varlink`).
enum VarlinkReplies {
    /// Appends the reply for `result` to `buffer`; `serverStats` fills GetStats' counts
    /// of connections and requests.
    static func append(_ result: Result<VaultResult, VaultError>, serverStats: ServerStats, to buffer: ReplyBuffer) {
        switch result {
        case .success(let value):
            VarlinkReply.appendSuccess(to: buffer) { write(value, serverStats: serverStats, into: &$0) }
        case .failure(let error):
            error.appendVarlinkReply(to: buffer)
        }
    }

    private static func write(_ value: VaultResult, serverStats: ServerStats, into reply: inout JSONObjectWriter) {
        switch value {
        case .policy(let policy, let lockout):
            reply.objectField("policy") { wire(policy, lockout).writeFields(&$0) }
        case .checkPin(let violations):
            reply.field("valid", violations.isEmpty)
            reply.field("violations", strings: violations.map(\.rawValue))
        case .credential(let credential):
            reply.objectField("credential") { wire(credential).writeFields(&$0) }
        case .credentials(let credentials):
            reply.arrayField("credentials") { array in
                for credential in credentials {
                    array.objectElement { wire(credential).writeFields(&$0) }
                }
            }
        case .authenticated(let keyId, let publicKey, let signature, let outdated, let cleared):
            reply.field("keyId", keyId.hex)
            reply.field("publicKey", Base64.encodedString(publicKey))
            reply.field("signature", Base64.encodedString(signature))
            reply.field("pinPolicyOutdated", outdated)
            reply.field("failedAttemptsCleared", cleared)
        case .pinChanged(let credential, let cleared):
            reply.objectField("credential") { wire(credential).writeFields(&$0) }
            reply.field("failedAttemptsCleared", cleared)
        case .unregistrationBegun(let keyId, let token, let expiresAt, let cleared):
            reply.field("keyId", keyId.hex)
            reply.secretField("token", token, encoding: .base64url)
            reply.field("expiresAt", RFC3339.string(fromUnixSeconds: expiresAt))
            reply.field("failedAttemptsCleared", cleared)
        case .empty:
            break
        case .wiped(let user, let keyIds, let cleared):
            reply.field("user", user)
            reply.field("deletedKeyIds", strings: keyIds.map(\.hex))
            reply.field("failedAttemptsCleared", cleared)
        case .reset(let count):
            reply.field("deletedCount", count)
        case .stats(let counters):
            reply.objectField("counters") { wire(counters, serverStats).writeFields(&$0) }
        case .unlocked(let keyId, let until, let cleared):
            reply.field("keyId", keyId.hex)
            reply.field("unlockedUntil", RFC3339.string(fromUnixSeconds: until))
            reply.field("failedAttemptsCleared", Int64(cleared))
        case .locked(let keyIds):
            reply.field("lockedKeyIds", strings: keyIds.map(\.hex))
        case .signature(let signature):
            reply.field("signature", Base64.encodedString(signature))
        case .passkeys(let passkeys):
            reply.arrayField("passkeys") { array in
                for passkey in passkeys {
                    let wire = VaultPasskey(
                        credentialId: passkey.credentialId, rpId: passkey.rpId, userHandle: passkey.userHandle,
                        userName: passkey.userName, displayName: passkey.displayName, algorithm: passkey.algorithm,
                        createdAt: VaultTime(unixSeconds: passkey.createdAt)
                    )
                    array.objectElement { wire.writeFields(&$0) }
                }
            }
        case .unlockedKeys, .securityKeyRetries, .securityKeyToken, .passkeyMade, .passkeyAssertions:
            // The ssh-agent door's and the passkey door's requests; no Varlink method asks for them.
            break
        }
    }

    private static func wire(_ credential: CredentialView) -> VaultCredential {
        let state: VaultCredential.State = switch credential.state {
        case .active: .active
        case .throttled: .throttled
        case .blocked: .blocked
        case .pendingUnregistration: .pendingUnregistration
        }
        return VaultCredential(
            user: credential.user,
            keyId: credential.keyId.hex,
            label: credential.label,
            purpose: credential.purpose,
            algorithm: credential.algorithm,
            publicKey: credential.publicKey,
            ownerUid: credential.ownerUid,
            createdAt: VaultTime(unixSeconds: credential.createdAt),
            lastUsedAt: credential.lastUsedAt.map(VaultTime.init(unixSeconds:)),
            failedAttempts: credential.failedAttempts,
            remainingAttempts: credential.remainingAttempts,
            state: state,
            lockedUntil: credential.lockedUntil.map(VaultTime.init(unixSeconds:)),
            unregistrationExpiresAt: credential.unregistrationExpiresAt.map(VaultTime.init(unixSeconds:)),
            unlockedUntil: credential.unlockedUntil.map(VaultTime.init(unixSeconds:)),
            sshCertificates: credential.sshCertificates
        )
    }

    private static func wire(_ policy: PinPolicy, _ lockout: LockoutPolicy) -> VaultPinPolicy {
        VaultPinPolicy(
            minLength: policy.minLength,
            maxLength: policy.maxLength,
            digitsOnly: policy.digitsOnly,
            maxIdenticalDigits: policy.maxIdenticalDigits,
            allowSequences: policy.allowSequences,
            denyListSize: policy.denyList.count,
            throttleAfter: lockout.throttleAfter,
            maxAttempts: lockout.maxAttempts,
            onMaxAttempts: lockout.onMaxAttempts == .wipe ? .wipe : .block
        )
    }

    private static func wire(_ counters: EngineStats.Snapshot, _ server: ServerStats) -> VaultStats {
        VaultStats(
            requests: server.messagesReceived,
            authenticationsSucceeded: counters.authenticationsSucceeded,
            authenticationsFailed: counters.authenticationsFailed,
            lockouts: counters.lockouts,
            kdfQueueDepth: counters.kdfQueued,
            kdfRunning: counters.kdfRunning,
            kdfEvaluations: counters.kdfEvaluations,
            activeConnections: server.activeConnections,
            uptimeSeconds: counters.uptimeSeconds
        )
    }
}
