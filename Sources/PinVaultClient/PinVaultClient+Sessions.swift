import Foundation
import PinVaultProtocol

/// Unlock sessions: a credential's key kept open for a while, so that signatures
/// need no PIN (and the daemon's ssh-agent socket can use it).
extension PinVaultClient {
    /// Checks `pin` as `authenticate` does (a wrong one is counted) and keeps the
    /// credential unlocked for the caller's uid for `ttl` (whole seconds, at least 1;
    /// the daemon caps it at its `sessions.max_ttl_seconds`). With
    /// `bindToConnection`, the session also ends when this client's connection
    /// closes: keep the client open for as long as it should last. `confirmEachUse`:
    /// every signature needs the owner's yes in the per-user agent's prompt;
    /// `allowForwarding`: an agent may sign for a connection ssh forwarded. Consumes `pin`.
    public func unlock(
        user: String, keyId: String? = nil, pin: PIN, ttl: Duration, bindToConnection: Bool = false,
        confirmEachUse: Bool = false, allowForwarding: Bool = false
    ) async throws(PinVaultError) -> UnlockSession {
        let secrets = try PIN.take([(pin, "pin")])
        try ClientLimits.checkUser(user)
        try ClientLimits.checkKeyId(keyId)
        let seconds = try ClientLimits.ttlSeconds(ttl)
        return try await call(.unlock, wiping: secrets) { parameters in
            parameters.field("user", user)
            parameters.optionalField("keyId", keyId)
            parameters.secretField("pin", secrets[0], encoding: .raw)
            parameters.field("ttlSeconds", seconds)
            if bindToConnection { parameters.field("bindToConnection", true) }
            if confirmEachUse { parameters.field("confirmEachUse", true) }
            if allowForwarding { parameters.field("allowForwarding", true) }
        } decode: { reply throws(ParameterError) in
            UnlockSession(
                keyId: try reply.keyID(required: true)?.hex ?? "",
                unlockedUntil: Date(unixSeconds: try reply.time("unlockedUntil", required: true) ?? 0),
                failedAttemptsCleared: Int(try reply.int("failedAttemptsCleared", required: true, range: 0...Int64.max) ?? 0)
            )
        }
    }

    /// Ends the caller's session on `keyId`, or all of the caller's sessions; returns
    /// the key ids that were unlocked.
    @discardableResult
    public func lock(keyId: String? = nil) async throws(PinVaultError) -> [String] {
        try ClientLimits.checkKeyId(keyId)
        return try await call(.lock) { parameters in
            parameters.optionalField("keyId", keyId)
        } decode: { reply throws(ParameterError) in
            try reply.strings("lockedKeyIds", required: true, bytes: 1...64) ?? []
        }
    }

    /// Signs exactly `challenge` (1-1024 bytes) with a credential the caller's uid has
    /// unlocked: no PIN. Throws `.notUnlocked` otherwise.
    public func sign(keyId: String, challenge: [UInt8]) async throws(PinVaultError) -> [UInt8] {
        try ClientLimits.checkKeyId(keyId)
        try ClientLimits.checkChallenge(challenge)
        return try await call(.sign) { parameters in
            parameters.field("keyId", keyId)
            parameters.field("challenge", Base64.encodedString(challenge))
        } decode: { reply throws(ParameterError) in
            return try reply.base64("signature", required: true, decodedBytes: ProtocolLimits.signatureBytes) ?? []
        }
    }

    /// Signs a 32-byte SHA-256 `digest` (ECDSA over a hash, as `ssh -I` asks a PKCS#11
    /// token) with the caller's unlocked `ssh` credential `keyId`, a P-256 one: no PIN.
    /// Throws `.notUnlocked`, `.wrongPurpose` for a credential of another purpose, and
    /// `.invalidParameter("keyId")` for a key that signs no digest (Ed25519).
    public func signDigest(keyId: String, digest: [UInt8]) async throws(PinVaultError) -> [UInt8] {
        try ClientLimits.checkKeyId(keyId)
        guard ProtocolLimits.digestBytes.contains(digest.count) else { throw .invalidParameter("digest") }
        return try await call(.signDigest) { parameters in
            parameters.field("keyId", keyId)
            parameters.field("digest", Base64.encodedString(digest))
        } decode: { reply throws(ParameterError) in
            try reply.base64("signature", required: true, decodedBytes: ProtocolLimits.signatureBytes) ?? []
        }
    }

    /// For an ssh-agent of the caller's (the per-user agent): signs `data`, what an ssh
    /// client asked it to sign, with the caller's unlocked `ssh` credential `keyId`.
    /// `forwarded`: the agent's connection was one ssh forwarded; `confirmed`: the
    /// owner said yes to this signature. Throws `.notUnlocked`, `.confirmationRequired`,
    /// `.forwardingNotAllowed`, `.wrongPurpose`, or `.invalidParameter("challenge")` for
    /// data that is not SSH data for that key.
    public func agentSign(
        keyId: String, data: [UInt8], forwarded: Bool = false, confirmed: Bool = false
    ) async throws(PinVaultError) -> [UInt8] {
        try Self.checkAgentSign(keyId: keyId, data: data)
        return try await call(.agentSign, Self.agentSignParameters(keyId, data, forwarded, confirmed), decode: Self.signature)
    }

    /// `agentSign` for an agent's event loop, which must not wait: the signature or the
    /// error goes to `completion`, on the connection's queue.
    public func agentSign(
        keyId: String, data: [UInt8], forwarded: Bool = false, confirmed: Bool = false,
        completion: @escaping @Sendable (Result<[UInt8], PinVaultError>) -> Void
    ) {
        do throws(PinVaultError) {
            try Self.checkAgentSign(keyId: keyId, data: data)
        } catch {
            return completion(.failure(error))
        }
        call(.agentSign, Self.agentSignParameters(keyId, data, forwarded, confirmed), decode: Self.signature, completion: completion)
    }

    private static func checkAgentSign(keyId: String, data: [UInt8]) throws(PinVaultError) {
        try ClientLimits.checkKeyId(keyId)
        guard ProtocolLimits.agentDataBytes.contains(data.count) else { throw .invalidParameter("challenge") }
    }

    private static func agentSignParameters(
        _ keyId: String, _ data: [UInt8], _ forwarded: Bool, _ confirmed: Bool
    ) -> (inout JSONObjectWriter) -> Void {
        { parameters in
            parameters.field("keyId", keyId)
            parameters.field("challenge", Base64.encodedString(data))
            if forwarded { parameters.field("forwarded", true) }
            if confirmed { parameters.field("confirmed", true) }
        }
    }

    @Sendable private static func signature(_ reply: ParameterDecoder) throws(ParameterError) -> [UInt8] {
        try reply.base64("signature", required: true, decodedBytes: ProtocolLimits.signatureBytes) ?? []
    }

    /// Attaches an OpenSSH user certificate (its blob) of the key of the caller's `ssh`
    /// credential `keyId`: the agents offer it beside the key. Returns the credential.
    public func addSSHCertificate(keyId: String, certificate: [UInt8]) async throws(PinVaultError) -> Credential {
        try await changeCertificates(.addSSHCertificate, keyId: keyId, certificate: certificate)
    }

    /// Detaches a certificate from the caller's `ssh` credential `keyId`.
    public func removeSSHCertificate(keyId: String, certificate: [UInt8]) async throws(PinVaultError) -> Credential {
        try await changeCertificates(.removeSSHCertificate, keyId: keyId, certificate: certificate)
    }

    private func changeCertificates(_ method: VaultMethod, keyId: String, certificate: [UInt8]) async throws(PinVaultError) -> Credential {
        try ClientLimits.checkKeyId(keyId)
        guard ProtocolLimits.certificateBytes.contains(certificate.count) else { throw .invalidParameter("certificate") }
        return try await call(method) { parameters in
            parameters.field("keyId", keyId)
            parameters.field("certificate", Base64.encodedString(certificate))
        } decode: { reply throws(ParameterError) in
            try Credential.decode("credential", in: reply)
        }
    }
}
