import PinVaultCore
import PinVaultCrypto
import PinVaultStore

/// Authenticate and ChangePin.
extension VaultEngine {
    /// `ownerUid` (admins only, as on List) names another uid's credential: the PAM
    /// module, run as root, signs a user in with that user's credential and PIN.
    func authenticate(_ call: Call, user: String, keyId: KeyID?, pin: SecretBytes, challenge: [UInt8], ownerUid: UInt32?) {
        guard ownerUid == nil || call.caller.isAdmin else { return call.finish(.failure(.permissionDenied)) }
        let owner = ownerUid ?? call.caller.uid
        let use = KeyUse(access: .authenticate, message: challenge)
        withPin(call, owner: owner, user: user, keyId: keyId, pin: pin, use: use) { [self] record, seed, rightPin throws(VaultError) in
            try signed(challenge, pin: pin, record: record, seed: seed, rightPin: rightPin, call: call)
        }
    }

    /// Signs `challenge`, clears the count, notes the use, and re-seals a record
    /// weaker than today's KDF parameters while its seed is open (`upgradedSeal`).
    private func signed(
        _ challenge: [UInt8], pin: SecretBytes, record: CredentialRecord, seed: SecretBytes,
        rightPin: RightPin, call: Call
    ) throws(VaultError) -> VaultResult {
        let signature = try crypto(call) { () throws(CryptoError) in
            let keyPair = try SigningKeyPair(algorithm: record.algorithm, seed: seed)
            return try challenge.withUnsafeBytes { bytes in Result { () throws(CryptoError) in try keyPair.sign(bytes) } }.get()
        }
        let upgraded = try upgradedSeal(of: record, seed: seed, pin: pin, call: call)
        let time = now()
        let (resealed, failedAttemptsCleared): (Bool, Int) = try write(call) { writer in
            guard let current = try writer.credential(keyId: record.keyId) else { return (false, 0) }
            var (updated, wrongPins) = clearing(current, by: rightPin)
            updated.lastUsedAt = time
            // A ChangePin that won a race keeps its seal; only the record we opened is upgraded.
            let reseal = upgraded != nil && current.sealed == record.sealed
            if reseal, let upgraded { updated.sealed = upgraded }
            try writer.update(updated)
            return (reseal, wrongPins)
        }
        stats.authenticationSucceeded()
        audit.record(.authenticationSucceeded, caller: call.caller, keyId: record.keyId, ownerUid: record.ownerUid)
        if resealed { audit.record(.resealed, caller: call.caller, keyId: record.keyId) }
        return .authenticated(
            keyId: record.keyId,
            publicKey: record.publicKey,
            signature: signature,
            pinPolicyOutdated: !settings.policy.violations(of: pin).isEmpty,
            failedAttemptsCleared: failedAttemptsCleared
        )
    }

    func changePin(_ call: Call, user: String, keyId: KeyID?, currentPin: SecretBytes, newPin: SecretBytes) {
        // The new PIN is judged (against the policy and the current PIN) before any KDF.
        let violations = settings.policy.violations(of: newPin, current: currentPin)
        guard violations.isEmpty else { return call.finish(.failure(.pinPolicyViolation(violations))) }
        let owner = call.caller.uid
        withPin(call, owner: owner, user: user, keyId: keyId, pin: currentPin) { [self] record, seed, rightPin throws(VaultError) in
            let resealed = try sealSeed(
                seed, pin: try sealingSecret(for: record.purpose, pin: newPin), purpose: record.purpose, algorithm: record.algorithm,
                formatVersion: record.sealed.header.formatVersion, ownerUid: owner, user: record.user, keyId: record.keyId,
                call: call
            )
            let (updated, wrongPins): (CredentialRecord, Int) = try write(call) { writer in
                guard let current = try writer.credential(keyId: record.keyId) else {
                    throw VaultError.noSuchCredential
                }
                var (updated, wrongPins) = clearing(current, by: rightPin)
                updated.sealed = resealed
                updated.lastUsedAt = now()
                try writer.update(updated)
                return (updated, wrongPins)
            }
            audit.record(.pinChanged, caller: call.caller, keyId: record.keyId)
            endSessions(of: [record.keyId], call: call)
            return .pinChanged(view(of: updated), failedAttemptsCleared: wrongPins)
        }
    }
}
