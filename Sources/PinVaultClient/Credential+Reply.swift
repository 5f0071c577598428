import FoundationEssentials
import PinVaultProtocol

extension Credential {
    /// The public form of a decoded `Credential` object.
    init(_ wire: VaultCredential) {
        self.init(
            user: wire.user,
            keyId: wire.keyId,
            label: wire.label,
            publicKey: wire.publicKey,
            ownerUid: wire.ownerUid,
            createdAt: Date(unixSeconds: wire.createdAt),
            lastUsedAt: wire.lastUsedAt.map(Date.init(unixSeconds:)),
            failedAttempts: Int(wire.failedAttempts),
            remainingAttempts: Int(wire.remainingAttempts),
            state: State(wire.state),
            lockedUntil: wire.lockedUntil.map(Date.init(unixSeconds:)),
            unregistrationExpiresAt: wire.unregistrationExpiresAt.map(Date.init(unixSeconds:)),
            unlockedUntil: wire.unlockedUntil.map(Date.init(unixSeconds:)),
            purpose: wire.purpose,
            algorithm: wire.algorithm,
            sshCertificates: wire.sshCertificates
        )
    }

    /// Decodes the `Credential` object `name` of a reply.
    static func decode(_ name: String, in reply: ParameterDecoder) throws(ParameterError) -> Credential {
        guard let object = try reply.object(name, required: true) else { throw ParameterError(name, .missing) }
        return Credential(try VaultCredential(from: object))
    }
}

extension Credential.State {
    /// The public form of a wire state.
    init(_ wire: VaultCredential.State) {
        switch wire {
        case .active: self = .active
        case .throttled: self = .throttled
        case .blocked: self = .blocked
        case .pendingUnregistration: self = .pendingUnregistration
        }
    }
}
