import PinVaultCore
import PinVaultCrypto
import PinVaultStore

/// The security key (CTAP 2.1), the engine's half: the PIN retries, a pinUvAuthToken
/// opened by the PIN's hash (`withPin`: counted durably before the check, throttled,
/// blocked), and the passkeys made and used under a token. The passkey door (CTAP)
/// speaks the protocol; what a passkey signs is built here (`WebAuthnSignedData`) and
/// checked by `KeyAccess.passkey`, the one door that serves `webauthn`.
extension VaultEngine {
    /// The caller's security key: its one `webauthn` credential, or NoSuchCredential.
    private func securityKey(_ reader: VaultReader, owner: UInt32) throws -> CredentialRecord {
        guard let record = try reader.credentials(ownerUid: owner, user: nil).first(where: { $0.purpose == .webauthn }) else {
            throw VaultError.noSuchCredential
        }
        return record
    }

    func securityKeyRetries(_ call: Call) {
        let owner = call.caller.uid
        onStore(call) { [self] () throws(VaultError) -> VaultResult? in
            let record = try read(call) { try securityKey($0, owner: owner) }
            return .securityKeyRetries(remaining: counter(of: record).remainingAttempts(policy: settings.lockout))
        }
    }

    /// Checks the PIN's hash as every PIN is checked, then makes the channel's token.
    func securityKeyToken(_ call: Call, pinHash: SecretBytes, channel: UInt64, permissions: UInt8, rpId: String?) {
        guard pinHash.count == SecurityKeyPin.hashSize else { return call.finish(.failure(.invalidChallenge)) }
        let owner = call.caller.uid
        onStore(call) { [self] () throws(VaultError) -> VaultResult? in
            let record = try read(call) { try securityKey($0, owner: owner) }
            // A new token ends the old one, whatever this PIN turns out to be.
            securityKeyTokens.end(channel: channel)
            withPin(
                call, owner: owner, user: record.user, keyId: record.keyId, pin: pinHash,
                use: KeyUse(access: .passkey, message: nil), pinIsSecurityKeyHash: true
            ) { [self] record, seed, rightPin throws(VaultError) in
                let wrongPins: Int = try write(call) { writer in
                    guard let current = try writer.credential(keyId: record.keyId), current.sealed == record.sealed else {
                        throw VaultError.conflict
                    }
                    let (cleared, wrongPins) = clearing(current, by: rightPin)
                    var updated = cleared
                    updated.lastUsedAt = now()
                    try writer.update(updated)
                    return wrongPins
                }
                securityKeyTokens.open(
                    channel: channel, owner: owner, keyId: record.keyId, seed: seed,
                    permissions: .init(rawValue: permissions), rpIdHash: rpId.map { SHA256.hash(Array($0.utf8)) })
                audit.record(.sessionUnlocked, caller: call.caller, keyId: record.keyId)
                return .securityKeyToken(failedAttemptsCleared: wrongPins)
            }
            return nil
        }
    }

    func securityKeyChangePin(_ call: Call, pinHash: SecretBytes, newPin: SecretBytes) {
        guard pinHash.count == SecurityKeyPin.hashSize else { return call.finish(.failure(.invalidChallenge)) }
        let violations = settings.policy.violations(of: newPin)
        guard violations.isEmpty else { return call.finish(.failure(.pinPolicyViolation(violations))) }
        let owner = call.caller.uid
        onStore(call) { [self] () throws(VaultError) -> VaultResult? in
            let record = try read(call) { try securityKey($0, owner: owner) }
            withPin(
                call, owner: owner, user: record.user, keyId: record.keyId, pin: pinHash,
                use: KeyUse(access: .passkey, message: nil), pinIsSecurityKeyHash: true
            ) { [self] record, seed, rightPin throws(VaultError) in
                let resealed = try sealSeed(
                    seed, pin: try sealingSecret(for: .webauthn, pin: newPin), purpose: record.purpose, algorithm: record.algorithm,
                    formatVersion: record.sealed.header.formatVersion, ownerUid: owner, user: record.user, keyId: record.keyId,
                    call: call)
                let (updated, wrongPins): (CredentialRecord, Int) = try write(call) { writer in
                    guard let current = try writer.credential(keyId: record.keyId) else { throw VaultError.noSuchCredential }
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
            return nil
        }
    }

    /// authenticatorReset: the caller's security key deleted as Wipe deletes a credential
    /// (audited, its sessions and tokens ended), its passkeys with it (the store deletes
    /// them with their authenticator credential). Nothing to delete is a reset too: CTAP
    /// answers a reset of a fresh authenticator with success.
    func securityKeyReset(_ call: Call) {
        let owner = call.caller.uid
        onStore(call) { [self] () throws(VaultError) -> VaultResult? in
            let keys: [CredentialRecord] = try write(call) { writer in
                let keys = try writer.credentials(ownerUid: owner, user: nil).filter { $0.purpose == .webauthn }
                for key in keys { _ = try writer.delete(keyId: key.keyId) }
                return keys
            }
            let deleted = keys.map(\.keyId)
            if !deleted.isEmpty {
                audit.record(.accountWiped, caller: call.caller, ownerUid: owner, count: deleted.count)
                endSessions(of: deleted, call: call)
            }
            return .wiped(user: keys.first?.user ?? "", deletedKeyIds: deleted, failedAttemptsCleared: 0)
        }
    }

    /// Ends the channel's token (its channel closed, or was initialised anew).
    public func endSecurityKeyToken(channel: UInt64) {
        securityKeyTokens.end(channel: channel)
    }

    /// Whether the channel holds a token now: an end told to the observer after a new
    /// token was opened on the channel was of an older one.
    public func holdsSecurityKeyToken(channel: UInt64) -> Bool {
        securityKeyTokens.holds(channel: channel)
    }

    /// Has `observer` told the channels whose tokens ended — expired, replaced, their
    /// credential changed or reset, the engine stopping — so that the passkey door drops
    /// what it keeps of each (the platform's HMAC key) then too. Called on the thread that
    /// ended them, with no lock of the engine's held. One observer: a later one replaces it.
    public func onSecurityKeyTokensEnded(_ observer: @escaping @Sendable ([UInt64]) -> Void) {
        securityKeyTokens.onEnd(observer)
    }

    /// Runs `body` with the channel's token, mapping its refusals: no token is
    /// NotUnlocked, a token without the permission or for another relying party is
    /// PermissionDenied, a used-up presence where presence is asked ConfirmationRequired.
    private func withToken<T>(
        _ call: Call, channel: UInt64, permission: SecurityKeyTokens.Permissions, rpIdHash: [UInt8]?, presence: Bool,
        _ body: (SecretBytes, KeyID, Bool) throws -> T
    ) throws(VaultError) -> T {
        do {
            return try securityKeyTokens.use(channel: channel, owner: call.caller.uid, permission: permission, rpIdHash: rpIdHash) {
                seed, keyId, present in
                if presence && !present { throw VaultError.confirmationRequired }
                return try body(seed, keyId, present)
            }
        } catch let refusal as SecurityKeyTokens.Refusal {
            throw refusal == .noToken ? .notUnlocked : .permissionDenied
        } catch let error as VaultError {
            throw error
        } catch {
            throw failure(error, call)
        }
    }

    /// Signs WebAuthn's data with a passkey, after `KeyAccess.passkey`'s check.
    private func passkeySignature(
        _ keyPair: SigningKeyPair, authenticatorData: [UInt8], clientDataHash: [UInt8]
    ) throws -> [UInt8] {
        let message = authenticatorData + clientDataHash
        try KeyAccess.passkey.check(.webauthn, message: message, algorithm: keyPair.algorithm, publicKey: keyPair.publicKey)
        return try message.withUnsafeBytes { try keyPair.sign($0) }
    }

    func makePasskey(
        _ call: Call, channel: UInt64, rpId: String, userHandle: [UInt8], userName: String?, displayName: String?,
        algorithm: KeyAlgorithm, clientDataHash: [UInt8]
    ) {
        // What the store holds (docs/FORMAT.md, "Passkeys"): the door refuses larger ones
        // as CTAP says; names longer than 64 bytes are cut, as CTAP lets an authenticator.
        guard clientDataHash.count == WebAuthnSignedData.clientDataHashSize, (1...255).contains(rpId.utf8.count),
              (1...64).contains(userHandle.count)
        else { return call.finish(.failure(.invalidChallenge)) }
        let (userName, displayName) = (userName.map(Self.truncated), displayName.map(Self.truncated))
        let rpIdHash = SHA256.hash(Array(rpId.utf8))
        onStore(call) { [self] () throws(VaultError) -> VaultResult? in
            let owner = call.caller.uid
            let count = try read(call) { try $0.passkeyCount(ownerUid: owner) }
            guard count < Passkey.maximumPerUid else { throw .tooManyCredentials(limit: Passkey.maximumPerUid) }
            let (record, made) = try withToken(
                call, channel: channel, permission: .makeCredential, rpIdHash: rpIdHash, presence: true
            ) { seed, keyId, _ in
                let credentialId = RandomBytes.make(count: 32)
                let keyPair = try PasskeySeed.keyPair(
                    algorithm: algorithm, authenticatorSeed: seed, rpIdHash: rpIdHash, credentialId: credentialId)
                let cose = algorithm.coseKey(publicKey: keyPair.publicKey)
                let flags = WebAuthnSignedData.Flag.userPresent | WebAuthnSignedData.Flag.userVerified
                    | WebAuthnSignedData.Flag.attestedCredentialData
                let authenticatorData = WebAuthnSignedData.assertionData(rpIdHash: rpIdHash, flags: flags, signCount: 0)
                    + Passkey.aaguid + [UInt8(credentialId.count >> 8), UInt8(credentialId.count & 0xff)] + credentialId + cose
                let signature = try passkeySignature(keyPair, authenticatorData: authenticatorData, clientDataHash: clientDataHash)
                let record = PasskeyRecord(
                    credentialId: credentialId, authenticatorKeyId: keyId, ownerUid: owner, rpId: rpId, rpIdHash: rpIdHash,
                    userHandle: userHandle, userName: userName, displayName: displayName, algorithm: algorithm,
                    publicKey: keyPair.publicKey, createdAt: now())
                return (record, Passkey.Made(
                    credentialId: credentialId, algorithm: algorithm, publicKey: keyPair.publicKey,
                    authenticatorData: authenticatorData, signature: signature))
            }
            try write(call) { writer in
                guard try writer.credential(keyId: record.authenticatorKeyId) != nil else { throw VaultError.noSuchCredential }
                try writer.insertPasskey(record)
            }
            return .passkeyMade(made)
        }
    }

    /// `name` cut to at most 64 bytes of UTF-8, at a character's boundary.
    static func truncated(_ name: String) -> String {
        var result = ""
        for character in name {
            guard result.utf8.count + character.utf8.count <= 64 else { break }
            result.append(character)
        }
        return result
    }

    func passkeyAssertions(_ call: Call, channel: UInt64, rpId: String, allowList: [[UInt8]]?, clientDataHash: [UInt8], presence: Bool) {
        guard clientDataHash.count == WebAuthnSignedData.clientDataHashSize else { return call.finish(.failure(.invalidChallenge)) }
        let rpIdHash = SHA256.hash(Array(rpId.utf8))
        onStore(call) { [self] () throws(VaultError) -> VaultResult? in
            let owner = call.caller.uid
            let stored = try read(call) { try $0.passkeys(ownerUid: owner, rpIdHash: rpIdHash) }
            let matching = Array(stored.filter { allowList?.contains($0.credentialId) ?? true }.reversed()
                .prefix(Passkey.maximumAssertions))
            guard !matching.isEmpty else { throw .noSuchCredential }
            let assertions = try withToken(
                call, channel: channel, permission: .getAssertion, rpIdHash: rpIdHash, presence: presence
            ) { seed, keyId, present in
                try matching.filter { $0.authenticatorKeyId == keyId }.map { passkey in
                    let keyPair = try PasskeySeed.keyPair(
                        algorithm: passkey.algorithm, authenticatorSeed: seed, rpIdHash: rpIdHash, credentialId: passkey.credentialId)
                    let flags = (present ? WebAuthnSignedData.Flag.userPresent : 0) | WebAuthnSignedData.Flag.userVerified
                    let authenticatorData = WebAuthnSignedData.assertionData(rpIdHash: rpIdHash, flags: flags, signCount: 0)
                    return Passkey.Assertion(
                        credentialId: passkey.credentialId, userHandle: passkey.userHandle, userName: passkey.userName,
                        displayName: passkey.displayName, authenticatorData: authenticatorData,
                        signature: try passkeySignature(keyPair, authenticatorData: authenticatorData, clientDataHash: clientDataHash))
                }
            }
            guard !assertions.isEmpty else { throw .noSuchCredential }
            return .passkeyAssertions(assertions)
        }
    }

    /// The caller's passkeys (CredentialManagement under a token with `cm`; Varlink's
    /// own listing, for the owner, needs none: `channel` nil).
    func passkeys(_ call: Call, channel: UInt64?, rpIdHash: [UInt8]?) {
        onStore(call) { [self] () throws(VaultError) -> VaultResult? in
            if let channel {
                try withToken(call, channel: channel, permission: .credentialManagement, rpIdHash: nil, presence: false) { _, _, _ in }
            }
            return .passkeys(try read(call) { try $0.passkeys(ownerUid: call.caller.uid, rpIdHash: rpIdHash) })
        }
    }

    func deletePasskey(_ call: Call, channel: UInt64?, credentialId: [UInt8]) {
        onStore(call) { [self] () throws(VaultError) -> VaultResult? in
            if let channel {
                try withToken(call, channel: channel, permission: .credentialManagement, rpIdHash: nil, presence: false) { _, _, _ in }
            }
            let deleted = try write(call) { try $0.deletePasskey(credentialId: credentialId, ownerUid: call.caller.uid) }
            guard deleted else { throw .noSuchCredential }
            return .empty
        }
    }
}
